"""Seed 000 (P3DFFT over ConnectX-2 offloaded non-blocking alltoall): Table I, Figs. 6-10,
Table II. Offload = the thread engine, libNBC = the caller engine with test calls,
MVAPICH2's MPI_Alltoall = the `blocking` algorithm."""
from __future__ import annotations

import math
import statistics

from nbfft_experiments.registry import experiment
from nbfft_experiments.runner import errorbar, legend_below, robust_pct_axis
from nbfft_experiments.verdict import Effect, grade

KB = 1024


def _sizes(ctx):
    if ctx.quick:
        return [1 * KB, 16 * KB, 256 * KB]
    return [1 * KB, 4 * KB, 16 * KB, 64 * KB, 256 * KB, 1024 * KB, 4096 * KB]


def _iters(ctx, quick=4, full=20):
    return str(quick if ctx.quick else full)


def _overlap(ctx, *, algorithm="pairwise", progress="thread", sizes=None, tests="0", window=None, concurrent=1,
             iters=None, label="", rep=0):
    args = ["--algorithm", algorithm, "--progress", progress, "--sizes", ",".join(map(str, sizes or _sizes(ctx))),
            "--tests", str(tests), "--concurrent", str(concurrent), "--iters", iters or _iters(ctx)]
    if window:
        args += ["--window", window]
    return ctx.bench("overlap", args, label=label or f"overlap {algorithm}@{progress} tests={tests}", rep=rep)


def _where(ctx):
    return "the emulated cluster" if ctx.cluster else "local ranks, where shared memory moves the bytes with the CPU"


def _kib(b):
    return f"{b // KB} KiB" if b >= KB else f"{b} B"


def _med(xs):
    return statistics.median(xs)


def _cols(runs):
    """[run][point] -> per-point medians."""
    return [_med(p) for p in zip(*runs)]


def _fmed(xs):
    """Median of the finite values (NaN marks a value that could not be computed), else NaN."""
    xs = [x for x in xs if x == x]
    return _med(xs) if xs else math.nan


# ------------------------------------------------------------------------------- Table I
@experiment(
    name="s000_table1", seed="000", figure="Table I", title="overlap % vs number of test calls (libNBC)",
    seed_reported="8 MB messages, 64 processes, libNBC progressed by NBC_Test: 2 tests 8.73 %, 10: 21.16 %, "
                  "100: 36.13 %, 1,000: 97.24 %, 100,000: 78.95 % (a peak at ~1,000 test calls).",
    verdict_rule="caller engine (libNBC's test-driven progress), overlap % per test count, every configuration run "
                 "--repeats times. Shape: overlap at the peak count above overlap at the fewest tests in every run. "
                 "Full: also a drop at the most tests and a peak >= 80 %. Honest: hidden % at the peak count above "
                 "0 in every run (overlap that the compute paid for is not overlap).",
    weight=1.0)
def table1(ctx):
    tests = [2, 10, 100, 1000] if ctx.quick else [2, 10, 100, 1000, 10000, 100000]
    size = 256 * KB if ctx.quick else 1024 * KB
    runs = [_overlap(ctx, progress="caller", sizes=[size], tests=",".join(map(str, tests)), rep=r)
            for r in range(ctx.repeats)]
    ov = [[r["overlap_pct"] for r in recs] for recs in runs]
    hid = [[r["hidden_pct"] for r in recs] for recs in runs]
    mov, mhid = _cols(ov), _cols(hid)
    # The peak among the counts above the fewest: the rise is then measured, not assumed.
    peak = max(range(1, len(tests)), key=lambda i: mov[i])
    fig, (ax, bx) = ctx.figure(ncols=2, width=5)
    errorbar(ax, tests, ov, "o-", label="ours: overlap % (seed's definition)")
    ax.plot([2, 10, 100, 1000, 100000], [8.73, 21.16, 36.13, 97.24, 78.95], "k:", marker="x",
            label="seed 000 (64 procs, 8 MB)")
    errorbar(bx, tests, hid, "s--", label="ours: hidden % (honest)", color="C1")
    bx.axhline(0, color="gray", lw=0.5)
    note = robust_pct_axis(bx, [v for r in hid for v in r])
    ax.set_title(f"overlap %: caller engine, {_kib(size)} per peer, {ctx.ranks} ranks", fontsize=9)
    bx.set_title("hidden % (honest)" + (f"\n{note}" if note else ""), fontsize=9)
    for a in (ax, bx):
        a.set_xscale("log"), a.set_xlabel("test calls during the compute"), a.set_ylabel("%"), legend_below(a, 2)
    ctx.save(fig)
    effects = [
        Effect(f"overlap % at {tests[peak]} tests - at {tests[0]} tests (rise)", [o[peak] - o[0] for o in ov], "shape", " pts"),
        Effect(f"overlap % at {tests[peak]} tests - at {tests[-1]} tests (drop)" if peak < len(tests) - 1 else
               f"drop after the peak (no count above {tests[peak]} measured)", [o[peak] - o[-1] for o in ov], "full", " pts"),
        Effect(f"overlap % at {tests[peak]} tests - 80 %", [o[peak] - 80 for o in ov], "full", " pts"),
        Effect(f"hidden % at {tests[peak]} tests", [h[peak] for h in hid], "honest", " %"),
    ]
    table = ", ".join(f"{t}: {o:.1f} % (hidden {h:.0f} %)" for t, o, h in zip(tests, mov, mhid))
    v = grade(effects, f"overlap peaks at {tests[peak]} tests with {mov[peak]:.1f} % (seed: 97.24 % at 1,000) on "
                       f"{_where(ctx)}. Ours (medians): {table}.")
    return {"tests": tests, "bytes": size, "runs": runs}, v


# ------------------------------------------------------------------------------- Fig. 6
@experiment(
    name="s000_fig6", seed="000", figure="Fig. 6", title="alltoall latency vs communication window",
    seed_reported="32 processes: the window length makes no significant difference; 64 processes: it matters, "
                  "best at a window of 6 (used for all further runs).",
    verdict_rule="pairwise@thread base latency per window, every configuration run --repeats times; window effect = "
                 "slowest/fastest window - 1 at the largest size. With <= 32 ranks the seed's claim is 'no "
                 "significant impact': reproduced if the window effect stays under 25 % in every run.",
    weight=1.0)
def fig6(ctx):
    windows = [1, 2, 4] if ctx.quick else [1, 2, 3, 4, 6, 8, 12]
    windows = [w for w in windows if w < max(2, ctx.ranks)] or [1]
    sizes = _sizes(ctx)
    runs = [_overlap(ctx, window=",".join(map(str, windows)), sizes=sizes, rep=r) for r in range(ctx.repeats)]

    def lat(recs, w, s):
        return next(r["base_s"] for r in recs if r["window"] == w and r["bytes_per_peer"] == s)

    fig, (ax,) = ctx.figure()
    for s in sizes:
        errorbar(ax, windows, [[lat(recs, w, s) for w in windows] for recs in runs], "o-", label=_kib(s), scale=1e3)
    ax.set_xlabel("window W (exchanges in flight)"), ax.set_ylabel("latency ms (start+wait)"), ax.set_yscale("log")
    ax.set_xticks(windows)
    legend_below(ax, len(sizes))
    ctx.save(fig)
    big = [[lat(recs, w, sizes[-1]) for w in windows] for recs in runs]
    effect = [100 * (max(b) / min(b) - 1) for b in big]
    mbig = _cols(big)
    best = windows[mbig.index(min(mbig))]
    noise = max(100 * (max(p) / min(p) - 1) for p in zip(*big))
    v = grade([Effect("25 % - window effect (slowest/fastest window - 1)", [25 - e for e in effect], "shape", " pts")],
              f"with {ctx.ranks} ranks (the seed's 'few processes' case) the window changes the {_kib(sizes[-1])} "
              f"latency by {_med(effect):.0f} % (best W={best}); one window's run-to-run spread is up to {noise:.0f} %. "
              f"The seed saw no significant impact at 32 processes and a best window of 6 at 64, which needs more "
              f"ranks than this run has.")
    return {"windows": windows, "sizes": sizes, "runs": runs, "window_effect_pct": effect}, v


# ------------------------------------------------------------------------------- Fig. 7
def _available_algorithms(ctx):
    if ctx.cluster:  # netcluster runs Open MPI over TCP, which has no RMA window under MPI_THREAD_MULTIPLE
        ctx.note("rma left out: Open MPI over TCP (the emulated cluster) cannot create its window")
        return ["pairwise", "linear", "bruck", "native", "blocking"]
    return ["pairwise", "linear", "bruck", "native", "rma", "blocking"]


@experiment(
    name="s000_fig7", seed="000", figure="Fig. 7", title="alltoall latency of every algorithm vs message size",
    seed_reported="Offloaded alltoall latency comparable to MVAPICH2's MPI_Alltoall (default) at 32 and 64 "
                  "processes; libNBC's NBC_Ialltoall slower than both (a different schedule).",
    verdict_rule="start+wait latency per algorithm (caller engine) and pairwise on the thread engine (offload), "
                 "--repeats runs. Shape: the offloaded pairwise within 25 % of blocking MPI_Alltoall at the largest "
                 "size in every run. Full: also caller-progressed pairwise (libNBC) slower than blocking in every run.",
    weight=1.6)
def fig7(ctx):
    sizes = _sizes(ctx)
    algos = _available_algorithms(ctx)
    runs = []
    for rep in range(ctx.repeats):
        recs = _overlap(ctx, algorithm=",".join(algos), progress="caller", sizes=sizes, tests="0", rep=rep)
        recs_t = _overlap(ctx, algorithm="pairwise", progress="thread", sizes=sizes, tests="0", rep=rep)
        series = {f"{a}@caller": [next(r["base_s"] for r in recs if r["algorithm"] == a and r["bytes_per_peer"] == s)
                                  for s in sizes] for a in algos}
        series["pairwise@thread (offload)"] = [next(r["base_s"] for r in recs_t if r["bytes_per_peer"] == s) for s in sizes]
        runs.append(series)
    fig, (ax,) = ctx.figure()
    for k in runs[0]:
        errorbar(ax, sizes, [r[k] for r in runs], "o-" if "thread" in k else ".-", label=k, scale=1e3)
    ax.set_xscale("log"), ax.set_yscale("log"), ax.set_xlabel("bytes per peer"), ax.set_ylabel("latency ms")
    legend_below(ax, 3)
    ctx.save(fig)
    ratio = [r["pairwise@thread (offload)"][-1] / r["blocking@caller"][-1] for r in runs]
    nbc = [r["pairwise@caller"][-1] / r["blocking@caller"][-1] for r in runs]
    med = {k: _med([r[k][-1] for r in runs]) for k in runs[0]}
    v = grade([Effect("1.25 - offload/blocking latency", [1.25 - x for x in ratio], "shape", "x"),
               Effect("libNBC (caller pairwise)/blocking latency - 1", [x - 1 for x in nbc], "full", "x")],
              f"at {_kib(sizes[-1])} per peer the offloaded (thread) pairwise takes {med['pairwise@thread (offload)'] * 1e3:.3f} ms, "
              f"{_med(ratio):.2f}x blocking MPI_Alltoall ({med['blocking@caller'] * 1e3:.3f} ms); caller-progressed "
              f"pairwise (libNBC's place) {med['pairwise@caller'] * 1e3:.3f} ms. The seed: offload comparable to the "
              f"default, libNBC slower.")
    return {"sizes": sizes, "runs_latency_s": runs}, v


# ------------------------------------------------------------------------------- Fig. 8 / 9
def _fig8_data(ctx):
    tests = [2, 1000, 10000]
    sizes = _sizes(ctx)
    runs = []
    for rep in range(ctx.repeats):
        caller = _overlap(ctx, progress="caller", sizes=sizes, tests=",".join(map(str, tests)), rep=rep)
        thread = _overlap(ctx, progress="thread", sizes=sizes, tests="0", rep=rep)
        runs.append({"caller": caller, "thread": thread})
    return sizes, tests, runs


@experiment(
    name="s000_fig8", seed="000", figure="Fig. 8", title="overlap vs message size: caller with 2/1000/10000 tests vs thread",
    seed_reported="32 processes: offload ~99 % overlap at every message size (about 90 % at 64 processes); libNBC best "
                  "with ~1,000 NBC_Test calls, worse with 2 (too little progress) and 10,000 (test overhead).",
    verdict_rule="overlap % (seed's definition) and hidden % per size, --repeats runs. Shape: the thread engine's "
                 "overlap above every caller setting's at the largest size in every run. Full: thread overlap >= 90 % "
                 "at every size and hidden >= 50 % at the largest. Honest: the thread engine's hidden % at the "
                 "largest size above 0 in every run.",
    weight=2.0)
def fig8(ctx):
    sizes, tests, runs = _fig8_data(ctx)
    fig, (ax, bx) = ctx.figure(ncols=2, width=5)
    for t in tests:
        for a, key in ((ax, "overlap_pct"), (bx, "hidden_pct")):
            errorbar(a, sizes, [[r[key] for r in run["caller"] if r["tests"] == t] for run in runs], ".-",
                     label=f"caller, {t} tests")
    for a, key in ((ax, "overlap_pct"), (bx, "hidden_pct")):
        errorbar(a, sizes, [[r[key] for r in run["thread"]] for run in runs], "o-", label="thread (offload)")
    ax.axhline(99, color="k", ls=":", label="seed: offload 99 %")
    bx.axhline(0, color="gray", lw=0.5)
    note = robust_pct_axis(bx, [r["hidden_pct"] for run in runs for k in ("caller", "thread") for r in run[k]])
    ax.set_title("overlap % (seed 000's definition)", fontsize=9)
    bx.set_title("hidden % (honest)" + (f"\n{note}" if note else ""), fontsize=9)
    for a in (ax, bx):
        a.set_xscale("log"), a.set_xlabel("bytes per peer"), a.set_ylabel("%"), legend_below(a, 2)
    ctx.save(fig)
    th_ov = [[r["overlap_pct"] for r in run["thread"]] for run in runs]
    th_hid = [run["thread"][-1]["hidden_pct"] for run in runs]
    best_caller = [max(r["overlap_pct"] for r in run["caller"] if r["bytes_per_peer"] == sizes[-1]) for run in runs]
    mth = _cols(th_ov)
    slow = _med([run["thread"][-1]["slowdown"] for run in runs])
    v = grade([Effect(f"thread overlap % - best caller overlap % at {_kib(sizes[-1])}",
                      [o[-1] - c for o, c in zip(th_ov, best_caller)], "shape", " pts"),
               Effect("smallest thread overlap % over the sizes - 90 %", [min(o) - 90 for o in th_ov], "full", " pts"),
               Effect(f"thread hidden % at {_kib(sizes[-1])} - 50 %", [h - 50 for h in th_hid], "full", " pts"),
               Effect(f"thread hidden % at {_kib(sizes[-1])}", th_hid, "honest", " %")],
              f"thread engine overlap {min(mth):.0f}-{max(mth):.0f} % over {_kib(sizes[0])}..{_kib(sizes[-1])} "
              f"(seed: ~99 %), hidden {_med(th_hid):.0f} % at {_kib(sizes[-1])}, compute slowdown {slow:.2f}x; best "
              f"caller setting {_med(best_caller):.0f} %. On {_where(ctx)} the engine thread competes with the compute "
              f"for the cores.")
    return {"sizes": sizes, "tests": tests, "runs": runs}, v


@experiment(
    name="s000_fig9", seed="000", figure="Fig. 9", title="aggregate latency with compute (overlapped total)",
    seed_reported="Offload: overlapping compute has little or no impact on the aggregate latency (total ~ the "
                  "compute); libNBC, even with the best test count, has larger completion times.",
    verdict_rule="total of the overlapped run vs base latency and compute alone, --repeats runs. Shape: thread's "
                 "total below caller's (1000 tests) at the largest size in every run. Full: thread's total <= 1.2 x "
                 "max(base, compute alone) at every size. Honest: thread's hidden % (total against base + compute "
                 "alone) at the largest size above 0 in every run.",
    weight=0.3)
def fig9(ctx):
    sizes, tests, runs = _fig8_data(ctx)
    c1000 = [[r for r in run["caller"] if r["tests"] == 1000] for run in runs]
    th = [run["thread"] for run in runs]
    fig, (ax,) = ctx.figure()
    errorbar(ax, sizes, [[r["base_s"] for r in t] for t in th], "k:", label="base latency (no compute)", scale=1e3)
    errorbar(ax, sizes, [[r["base_s"] + r["compute_alone_s"] for r in t] for t in th], "k--",
             label="base + compute (no overlap)", scale=1e3)
    errorbar(ax, sizes, [[r["total_s"] for r in t] for t in th], "o-", label="thread total (offload)", scale=1e3)
    errorbar(ax, sizes, [[r["total_s"] for r in c] for c in c1000], "s-", label="caller total, 1000 tests (libNBC)", scale=1e3)
    ax.set_xscale("log"), ax.set_yscale("log"), ax.set_xlabel("bytes per peer"), ax.set_ylabel("ms")
    legend_below(ax, 2)
    ctx.save(fig)
    ratios = [[r["total_s"] / max(r["base_s"], r["compute_alone_s"]) for r in t] for t in th]
    mr = _cols(ratios)
    v = grade([Effect(f"caller/1000 tests total - thread total at {_kib(sizes[-1])}",
                      [(c[-1]["total_s"] - t[-1]["total_s"]) * 1e3 for c, t in zip(c1000, th)], "shape", " ms"),
               Effect("1.2 - largest thread total / max(base, compute alone)", [1.2 - max(r) for r in ratios], "full"),
               Effect(f"thread hidden % at {_kib(sizes[-1])}", [t[-1]["hidden_pct"] for t in th], "honest", " %")],
              f"thread total / max(base, compute) = {', '.join(f'{x:.2f}' for x in mr)} over the sizes (1.0 = perfect "
              f"overlap); at {_kib(sizes[-1])} thread {_med([t[-1]['total_s'] for t in th]) * 1e3:.2f} ms vs caller/1000 "
              f"tests {_med([c[-1]['total_s'] for c in c1000]) * 1e3:.2f} ms.")
    return {"sizes": sizes, "runs": [{"thread": t, "caller_1000": c} for t, c in zip(th, c1000)]}, v


# ------------------------------------------------------------------------------- Fig. 10
@experiment(
    name="s000_fig10", seed="000", figure="Fig. 10", title="1, 2, 4 concurrent alltoalls with compute",
    seed_reported="2 concurrent alltoalls on 32 processes: offload has better aggregate latency and better overlap "
                  "than libNBC at every message size.",
    verdict_rule="for K = 1, 2, 4 outstanding collectives: total and overlap of thread vs caller (1000 tests), "
                 "--repeats runs. Shape: thread's aggregate latency below caller's at K=2 in every run. Full: also "
                 "thread's overlap % above caller's. Honest: thread's hidden % at K=2 above 0 in every run.",
    weight=1.6)
def fig10(ctx):
    size = 64 * KB if ctx.quick else 1024 * KB
    ks = [1, 2, 4]
    runs = []
    for rep in range(ctx.repeats):
        th, ca = [], []
        for k in ks:
            th += _overlap(ctx, progress="thread", sizes=[size], tests="0", concurrent=k, rep=rep)
            ca += _overlap(ctx, progress="caller", sizes=[size], tests="1000", concurrent=k, rep=rep)
        runs.append({"thread": th, "caller": ca})
    fig, (ax, bx) = ctx.figure(ncols=2, width=5)
    pct = []
    for key, lab in (("thread", "thread (offload)"), ("caller", "caller, 1000 tests")):
        errorbar(ax, ks, [[r["total_s"] for r in run[key]] for run in runs], "o-", label=lab, scale=1e3)
        errorbar(bx, ks, [[r["overlap_pct"] for r in run[key]] for run in runs], "o-", label=lab + " overlap %")
        errorbar(bx, ks, [[r["hidden_pct"] for r in run[key]] for run in runs], "x--", label=lab + " hidden %")
        pct += [r[f] for run in runs for r in run[key] for f in ("overlap_pct", "hidden_pct")]
    bx.axhline(0, color="gray", lw=0.5)
    note = robust_pct_axis(bx, pct)
    bx.set_title(note, fontsize=8)
    ax.set_xticks(ks), bx.set_xticks(ks)
    ax.set_xlabel("concurrent collectives K"), ax.set_ylabel("aggregate latency ms"), legend_below(ax, 2)
    bx.set_xlabel("concurrent collectives K"), bx.set_ylabel("%"), legend_below(bx, 2)
    ctx.save(fig)
    t2 = [run["thread"][1] for run in runs]
    c2 = [run["caller"][1] for run in runs]
    m = lambda rs, f: _med([r[f] for r in rs])  # noqa: E731
    v = grade([Effect("caller total - thread total at K=2", [(c["total_s"] - t["total_s"]) * 1e3 for t, c in zip(t2, c2)],
                      "shape", " ms"),
               Effect("thread overlap % - caller overlap % at K=2", [t["overlap_pct"] - c["overlap_pct"] for t, c in zip(t2, c2)],
                      "full", " pts"),
               Effect("thread hidden % at K=2", [t["hidden_pct"] for t in t2], "honest", " %")],
              f"K=2, {_kib(size)} per peer: thread {m(t2, 'total_s') * 1e3:.2f} ms / {m(t2, 'overlap_pct'):.0f} % overlap "
              f"(hidden {m(t2, 'hidden_pct'):.0f} %) vs caller {m(c2, 'total_s') * 1e3:.2f} ms / "
              f"{m(c2, 'overlap_pct'):.0f} % (hidden {m(c2, 'hidden_pct'):.0f} %).")
    return {"bytes": size, "k": ks, "runs": runs}, v


# ------------------------------------------------------------------------------- Table II
SEED_TABLE2 = {512: (1.56, 2.08, 2.01, 2.04, 23.5), 600: (2.94, 3.78, 3.66, 3.49, 15.7),
               712: (5.03, 6.54, 6.29, 5.68, 11.44), 800: (7.12, 9.20, 8.80, 7.68, 7.29)}


@experiment(
    name="s000_table2", seed="000", figure="Table II", title="sine kernel run time over grid sizes, per transport",
    seed_reported="P3DFFT sine kernel, 4 grids: offload/libNBC/RMA/default seconds 512: 1.56/2.08/2.01/2.04 "
                  "(23.5 % better), 600: 2.94/3.78/3.66/3.49 (15.7 %), 712: 5.03/6.54/6.29/5.68 (11.44 %), "
                  "800: 7.12/9.20/8.80/7.68 (7.29 %): offload always best, its gain shrinking with the grid.",
    verdict_rule="nbfft-sine --fields 4, transports thread (offload), caller (libNBC), native, rma, blocking "
                 "(default), --repeats runs. improvement = 1 - thread/blocking. Honest companion: the gap closed "
                 "against the best NON-overlapped run of nbfft's own exchange (the same transports with --fields 1, "
                 "times 4 fields), so a faster algorithm is not counted as overlap. Shape: the median over grids of "
                 "the improvement above 0 in every run. Full: thread beats blocking at every grid and every other "
                 "transport, in every run. Honest: the median over grids of the gap closed against the best "
                 "non-overlapped exchange above 0 in every run.",
    weight=3.0)
def table2(ctx):
    grids = [32, 40, 48, 64] if ctx.quick else [128, 160, 192, 256]
    nv = 4
    iters = "3" if ctx.quick else "10"
    transports = ["thread", "caller", "native", "rma", "blocking"]
    eff = ["--effort", "estimate"] if ctx.quick else []
    runs = []
    for rep in range(ctx.repeats):
        rows = []
        for g in grids:
            recs = ctx.sine(["--grid", str(g), "--fields", str(nv), "--iters", iters, "--transport", ",".join(transports),
                             *eff], label=f"nbfft-sine grid {g} fields {nv}", rep=rep)
            solo = ctx.sine(["--grid", str(g), "--fields", "1", "--iters", iters, "--transport", "thread,caller,native,rma",
                             *eff], label=f"nbfft-sine grid {g} fields 1 (non-overlapped)", rep=rep)
            t = {r["transport"]: r["time_s"] for r in recs}
            bound = recs[0].get("pipeline_bound_s")
            nonov = {r["transport"]: nv * r["time_s"] for r in solo}
            best_nonov = min(nonov.values())
            honest = {k: (best_nonov - v) / (best_nonov - bound) if bound and best_nonov > bound else math.nan
                      for k, v in t.items()}
            rows.append({"grid": g, "time_s": t, "pipeline_bound_s": bound,
                         "improvement_pct": 100 * (1 - t["thread"] / t["blocking"]),
                         "gap_closed_vs_blocking": {r["transport"]: r.get("gap_closed") for r in recs},
                         "best_nonoverlapped_s": best_nonov, "best_nonoverlapped": min(nonov, key=nonov.get),
                         "gap_closed_vs_nonoverlapped": honest})
        runs.append(rows)
    # nbfft-sine leaves out a transport this MPI cannot run (rma over TCP) and says so.
    ran = [tr for tr in transports if all(tr in r["time_s"] for rows in runs for r in rows)]
    for tr in set(transports) - set(ran):
        ctx.note(f"{tr}: nbfft-sine did not run it here (see log.txt)")
    fig, (ax, bx) = ctx.figure(ncols=2, width=5.5, height=4.4)
    for tr in ran:
        errorbar(ax, grids, [[r["time_s"][tr] for r in rows] for rows in runs], "o-", label=tr, scale=1e3)
    errorbar(ax, grids, [[r["best_nonoverlapped_s"] for r in rows] for rows in runs], "k--",
             label="best non-overlapped nbfft", scale=1e3)
    errorbar(ax, grids, [[r["pipeline_bound_s"] or math.nan for r in rows] for rows in runs], "k:",
             label="pipeline bound", scale=1e3)
    ax.set_xlabel("grid N (N^3), ours"), ax.set_ylabel("ms per iteration"), ax.set_yscale("log"), legend_below(ax, 3)
    imp = [[r["improvement_pct"] for r in rows] for rows in runs]
    hon = [[100 * r["gap_closed_vs_nonoverlapped"]["thread"] for r in rows] for rows in runs]
    errorbar(bx, grids, imp, "o-", label="ours: thread vs blocking %", color="C0")
    errorbar(bx, grids, hon, "s--", label="ours: thread gap closed vs best non-overlapped %", color="C1")
    bx.axhline(0, color="gray", lw=0.5)
    note = robust_pct_axis(bx, [v for r in imp + hon for v in r] + [v[4] for v in SEED_TABLE2.values()])
    bx.set_xlabel("grid N (N^3), ours"), bx.set_ylabel("%" + (f"  ({note})" if note else ""))
    # The seed's grids are 8-25x ours: a second x axis at the top places its points at its own sizes.
    sx = bx.twiny()
    sx.plot(list(SEED_TABLE2), [v[4] for v in SEED_TABLE2.values()], "kx:", label="seed: offload vs default % (top axis: seed's grid)")
    sx.set_xlabel("grid N (N^3), seed 000", fontsize=8)
    h1, l1 = bx.get_legend_handles_labels()
    h2, l2 = sx.get_legend_handles_labels()
    bx.legend(h1 + h2, l1 + l2, fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.26), frameon=False)
    ctx.save(fig)
    best_other = [[min(v for k, v in r["time_s"].items() if k != "thread") / r["time_s"]["thread"] - 1 for r in rows]
                  for rows in runs]
    mimp, mhon = _cols(imp), [_fmed(p) for p in zip(*hon)]
    v = grade([Effect("median over grids of thread vs blocking improvement", [_med(i) for i in imp], "shape", " %"),
               Effect("smallest thread vs blocking improvement over the grids", [min(i) for i in imp], "full", " %"),
               Effect("fastest other transport / thread - 1, smallest over the grids",
                      [100 * min(b) for b in best_other], "full", " %"),
               Effect("median over grids of the gap closed vs the best non-overlapped exchange",
                      [_fmed(h) for h in hon], "honest", " %")],
              f"thread vs blocking {', '.join(f'{g}: {x:+.1f} %' for g, x in zip(grids, mimp))} (seed 23.5 % .. 7.29 % "
              f"at 512..800); gap closed by thread against the best non-overlapped nbfft exchange "
              f"{', '.join(f'{g}: {x:+.0f} %' if x == x else f'{g}: n/a' for g, x in zip(grids, mhon))} (medians"
              + ("; n/a: the best non-overlapped run at or below the pipeline bound in every run" if any(
                  x != x for x in mhon) else "") + f") on {_where(ctx)}.")
    return {"grids": grids, "fields": nv, "runs": runs, "seed": SEED_TABLE2}, v
