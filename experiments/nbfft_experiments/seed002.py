"""Seed 002 (FFT kernels on the Cray T3E and IBM SP2): Figs. 1-2 (five kernels' total and
communication time vs process count) and Figs. 5-7 (the fitted performance model)."""
from __future__ import annotations

import numpy as np

from nbfft_experiments.registry import experiment

KERNELS = ["replace", "standard", "overlap", "oneplane", "allplanes"]


def _kernels(ctx, grid, np_, kernels="all"):
    args = ["--grid", str(grid), "--iters", "3" if ctx.quick else "10"]
    if kernels != "all":
        args += ["--kernels", kernels]
    return ctx.bench("kernels", args, np=np_, label=f"kernels grid {grid} np={np_}")


def _grid_a(ctx):
    return 32 if ctx.quick else 128


@experiment(
    name="s002_fig1_2", seed="002", figure="Figs. 1-2", title="five FFT kernels: total and communication time vs processes",
    seed_reported="T3E and SP2: the single-MPI_Alltoall kernel (allplanes) is fastest, the overlap kernel "
                  "(Isend/Irecv per plane) slowest (SP2, 128^3 on 32 procs: overlap 191 ms vs allplanes 91 ms, "
                  "communication 105 vs 42 ms); the standard kernel has the least communication on the T3E but "
                  "not the least total.",
    verdict_rule="nbfft-bench kernels over process counts. 'reproduced' if, at the largest count, allplanes has the "
                 "lowest total and overlap the highest; 'in shape' if allplanes is fastest; else not reproduced.",
    weight=2.0)
def fig1_2(ctx):
    grid = _grid_a(ctx)
    nps = ctx.rank_counts()
    per = {k: {"np": [], "time_s": [], "comm_s": []} for k in KERNELS}
    for n in nps:
        for r in _kernels(ctx, grid, n):
            d = per[r["kernel"]]
            d["np"].append(n), d["time_s"].append(r["time_s"]), d["comm_s"].append(r["comm_s"])
    fig, (ax, bx) = ctx.figure(ncols=2, width=5)
    for k, d in per.items():
        ax.plot(d["np"], [x * 1e3 for x in d["time_s"]], "o-", label=k)
        bx.plot(d["np"], [x * 1e3 for x in d["comm_s"]], "o-", label=k)
    ax.set_ylabel("ms per FFT step (fwd + bwd)"), bx.set_ylabel("communication ms")
    for a in (ax, bx):
        a.set_xlabel("processes"), a.set_yscale("log"), a.legend(fontsize=7)
    ctx.save(fig)
    last = {k: d["time_s"][-1] for k, d in per.items()}
    comm = {k: d["comm_s"][-1] for k, d in per.items()}
    fastest, slowest = min(last, key=last.get), max(last, key=last.get)
    least_comm = min(comm, key=comm.get)
    if fastest == "allplanes" and slowest == "overlap":
        v = "reproduced"
    elif fastest == "allplanes":
        v = "reproduced in shape"
    else:
        v = f"not reproduced because {fastest} is fastest here"
    return {"grid": grid, "kernels": per}, (
        f"{v}: {grid}^3 on {nps[-1]} processes: fastest {fastest} ({last[fastest] * 1e3:.2f} ms), slowest {slowest} "
        f"({last[slowest] * 1e3:.2f} ms; overlap/allplanes = {last['overlap'] / last['allplanes']:.2f}x, seed SP2 "
        f"2.1x), least communication {least_comm}.")


def fit_comm(nps, t):
    """t = a0 + a1/(a2 + np): a grid over a2 with linear least squares for a0, a1."""
    nps, t = np.asarray(nps, float), np.asarray(t, float)
    best = None
    for a2 in np.concatenate([np.linspace(-0.9 * nps.min(), 4 * nps.max(), 400), [1e3, 1e4]]):
        A = np.stack([np.ones_like(nps), 1.0 / (a2 + nps)], axis=1)
        coef, *_ = np.linalg.lstsq(A, t, rcond=None)
        err = float(np.sum((A @ coef - t) ** 2))
        if best is None or err < best[0]:
            best = (err, float(coef[0]), float(coef[1]), float(a2))
    return best[1:]


def fit_comp(nps, t):
    """t = a0 + a1/np, linear least squares."""
    nps, t = np.asarray(nps, float), np.asarray(t, float)
    A = np.stack([np.ones_like(nps), 1.0 / nps], axis=1)
    coef, *_ = np.linalg.lstsq(A, t, rcond=None)
    return float(coef[0]), float(coef[1])


@experiment(
    name="s002_fig5_7", seed="002", figure="Figs. 5-7", title="fitted model t_comm = a0 + a1/(a2+np), t_comp = a0 + a1/np",
    seed_reported="T3E, allplanes, 256^3, 32..256 procs: t_comm = -26.527 + 13210.143/(47.447 + np), t_comp = "
                  "-1.278 + 25779.423/np (ms); predicting 128^3 from it is accurate except communication on 128 "
                  "procs (about 25 % overestimated).",
    verdict_rule="fit both models to allplanes on grid A over process counts, scale a1 by the volume ratio "
                 "(the data moved and the work both grow with N^3) to predict grid B, report the mean absolute "
                 "relative error. 'reproduced' if the computation error <= 15 % and the communication error "
                 "<= 30 %; 'in shape' if computation alone is within 15 %; else not reproduced.",
    weight=1.5, min_ranks=3)
def fig5_7(ctx):
    ga = _grid_a(ctx)
    gb = 48 if ctx.quick else 192
    nps = ctx.rank_counts()
    nps = [n for n in nps if n > 1] if len(nps) > 3 else nps
    meas = {}
    for g in (ga, gb):
        rs = [next(r for r in _kernels(ctx, g, n, "all" if g == ga else "allplanes") if r["kernel"] == "allplanes")
              for n in nps]
        meas[g] = {"comm_s": [r["comm_s"] for r in rs], "comp_s": [r["comp_s"] for r in rs]}
    c0, c1, c2 = fit_comm(nps, meas[ga]["comm_s"])
    p0, p1 = fit_comp(nps, meas[ga]["comp_s"])
    scale = (gb / ga) ** 3
    pred_comm = [c0 + scale * c1 / (c2 + n) for n in nps]
    pred_comp = [p0 + scale * p1 / n for n in nps]
    rel = lambda p, m: [abs(a - b) / b for a, b in zip(p, m) if b > 0]  # noqa: E731
    err_comm = 100 * float(np.mean(rel(pred_comm, meas[gb]["comm_s"]) or [np.nan]))
    err_comp = 100 * float(np.mean(rel(pred_comp, meas[gb]["comp_s"]) or [np.nan]))
    fig, (ax, bx) = ctx.figure(ncols=2, width=5)
    fine = np.linspace(min(nps), max(nps), 50)
    for g, mk in ((ga, "o"), (gb, "s")):
        s = 1.0 if g == ga else scale
        ax.plot(nps, [x * 1e3 for x in meas[g]["comm_s"]], mk, label=f"{g}^3 measured")
        ax.plot(fine, [(c0 + s * c1 / (c2 + n)) * 1e3 for n in fine], "-", label=f"{g}^3 {'fit' if g == ga else 'predicted'}")
        bx.plot(nps, [x * 1e3 for x in meas[g]["comp_s"]], mk, label=f"{g}^3 measured")
        bx.plot(fine, [(p0 + s * p1 / n) * 1e3 for n in fine], "-", label=f"{g}^3 {'fit' if g == ga else 'predicted'}")
    ax.set_title("communication", fontsize=9), bx.set_title("computation", fontsize=9)
    for a in (ax, bx):
        a.set_xlabel("processes"), a.set_ylabel("ms"), a.legend(fontsize=7)
    ctx.save(fig)
    if err_comp <= 15 and err_comm <= 30:
        v = "reproduced"
    elif err_comp <= 15:
        v = "reproduced in shape"
    else:
        v = "not reproduced"
    return {"grid_fit": ga, "grid_predicted": gb, "np": nps, "measured": meas,
            "comm_fit": {"a0": c0, "a1": c1, "a2": c2}, "comp_fit": {"a0": p0, "a1": p1},
            "predicted": {"comm_s": pred_comm, "comp_s": pred_comp},
            "error_pct": {"comm": err_comm, "comp": err_comp}}, (
        f"{v}: fit on {ga}^3 (np {nps}), predicting {gb}^3: computation error {err_comp:.0f} %, communication error "
        f"{err_comm:.0f} % (seed: accurate except ~25 % on communication at its limit case). t_comm = "
        f"{c0 * 1e3:.3f} + {c1 * 1e3:.3f}/({c2:.2f} + np) ms, t_comp = {p0 * 1e3:.3f} + {p1 * 1e3:.3f}/np ms.")
