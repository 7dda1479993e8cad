"""Seed 003 (generalized collective primitives on the ConnectX-2 offload engine): the
primitives' latency and overlap, host-based (caller) vs offloaded (thread), and the barrier
built on them against MPI_Barrier."""
from __future__ import annotations

import statistics

from nbfft_experiments.registry import experiment
from nbfft_experiments.runner import errorbar, legend_below
from nbfft_experiments.verdict import Effect, grade

PRIMS = ["multi-send", "recv-replicate", "recv-reduce"]


def _med(xs):
    return statistics.median(xs)


@experiment(
    name="s003_primitives", seed="003", figure="primitive latency and overlap",
    title="multi-send, receive-replicate, receive-reduce: caller (host) vs thread (offload)",
    seed_reported="Offloaded primitives match or beat host-based latency (receive-replicate up to 5 % better; "
                  "receive-reduce matches while the data fits one WQE) and overlap 95 % or more (multi-send), "
                  "97 % or more (receive-replicate), 98 % or more (receive-reduce).",
    verdict_rule="per primitive at the largest size, --repeats runs: thread overlap % and latency / caller latency. "
                 "Shape: thread overlap above caller overlap for every primitive in every run. Full: every "
                 "primitive's thread overlap >= 95 % and latency <= 1.05x the caller's. Honest: every primitive's "
                 "thread hidden % above 0 in every run.",
    weight=1.5, min_ranks=4)
def primitives(ctx):
    sizes = [8, 1024, 65536] if ctx.quick else [8, 64, 1024, 16384, 65536, 262144, 1048576]
    recv = [2] if ctx.quick else sorted({2, 4, 6} & set(range(1, ctx.ranks - 1)) or {2})
    runs = [ctx.bench("primitives", ["--primitive", ",".join(PRIMS), "--sizes", ",".join(map(str, sizes)),
                                     "--receivers", ",".join(map(str, recv)), "--iters", "20" if ctx.quick else "100",
                                     "--tests", "10"], label="primitives latency + overlap", rep=rep)
            for rep in range(ctx.repeats)]
    fig, axes = ctx.figure(ncols=3, width=4)
    for ax, p in zip(axes, PRIMS):
        for prog, mk in (("caller", "s--"), ("thread", "o-")):
            for R in recv:
                rs = [[r for r in recs if r["primitive"] == p and r["progress"] == prog and r["receivers"] == R]
                      for recs in runs]
                if rs[0]:
                    errorbar(ax, [r["bytes"] for r in rs[0]], [[r["latency_s"] for r in x] for x in rs], mk, scale=1e6,
                             label=f"{R} rcvr {'NIC (thread)' if prog == 'thread' else 'host (caller)'}")
        ax.set_xscale("log"), ax.set_yscale("log")
        ax.set_title(p, fontsize=9), ax.set_xlabel("bytes"), ax.set_ylabel("latency us"), legend_below(ax, 1)
    ctx.save(fig)
    big = max(sizes)

    def summary(recs):
        out = {}
        for p in PRIMS:
            c = next((r for r in recs if r["primitive"] == p and r["progress"] == "caller" and r["bytes"] == big), None)
            t = next((r for r in recs if r["primitive"] == p and r["progress"] == "thread" and r["bytes"] == big), None)
            if c and t:
                out[p] = {"thread_overlap_pct": t["overlap_pct"], "caller_overlap_pct": c["overlap_pct"],
                          "thread_hidden_pct": t["hidden_pct"], "latency_ratio": t["latency_s"] / c["latency_s"]}
        return out

    sums = [summary(recs) for recs in runs]
    if not sums[0]:
        raise RuntimeError(f"nbfft-bench primitives returned no caller/thread pair at {big} B")
    prims = list(sums[0])
    v = grade([Effect("smallest over primitives of thread overlap % - caller overlap %",
                      [min(s[p]["thread_overlap_pct"] - s[p]["caller_overlap_pct"] for p in prims) for s in sums], "shape", " pts"),
               Effect("smallest thread overlap % over primitives - 95 %",
                      [min(s[p]["thread_overlap_pct"] for p in prims) - 95 for s in sums], "full", " pts"),
               Effect("1.05 - largest thread/caller latency over primitives",
                      [1.05 - max(s[p]["latency_ratio"] for p in prims) for s in sums], "full", "x"),
               Effect("smallest thread hidden % over primitives",
                      [min(s[p]["thread_hidden_pct"] for p in prims) for s in sums], "honest", " %")],
              f"at {big} B (medians): " + "; ".join(
                  f"{p}: thread overlap {_med([s[p]['thread_overlap_pct'] for s in sums]):.0f} % (hidden "
                  f"{_med([s[p]['thread_hidden_pct'] for s in sums]):.0f} %) vs caller "
                  f"{_med([s[p]['caller_overlap_pct'] for s in sums]):.0f} %, latency "
                  f"{_med([s[p]['latency_ratio'] for s in sums]):.2f}x caller" for p in prims) + ".")
    return {"sizes": sizes, "receivers": recv, "runs": runs, "summary": sums}, v


@experiment(
    name="s003_barrier", seed="003", figure="MPI_Barrier", title="barrier latency vs group size: coll::barrier vs MPI_Barrier",
    seed_reported="The offload-based MPI_Barrier gets better relative to the host one with increasing group size: "
                  "10 % faster on 8 nodes.",
    verdict_rule="latency of coll::barrier (dissemination over multi-sends) on the thread engine and the caller "
                 "engine vs MPI_Barrier on the same ranks, --repeats runs. Shape: the thread-engine barrier's ratio "
                 "to MPI_Barrier falls from the smallest to the largest group in every run. Full: it is faster than "
                 "MPI_Barrier at the largest group in every run.",
    weight=1.0)
def barrier(ctx):
    groups = sorted({2, ctx.ranks} | ({4} if ctx.ranks >= 4 else set()) | ({8} if ctx.ranks >= 8 else set()))
    runs = [ctx.bench("primitives", ["--primitive", "barrier", "--groups", ",".join(map(str, groups)),
                                     "--iters", "50" if ctx.quick else "500"], label="primitives barrier", rep=rep)
            for rep in range(ctx.repeats)]
    fig, (ax,) = ctx.figure()
    for prog in ("caller", "thread"):
        errorbar(ax, groups, [[r["latency_s"] for r in recs if r["progress"] == prog] for recs in runs], "o-",
                 label=f"coll::barrier @{prog}", scale=1e6)
    errorbar(ax, groups, [[r["mpi_barrier_s"] for r in recs if r["progress"] == "caller"] for recs in runs], "k^--",
             label="MPI_Barrier", scale=1e6)
    ax.set_xlabel("group size"), ax.set_ylabel("latency us"), legend_below(ax, 3, 8), ax.set_xticks(groups)
    ctx.save(fig)
    ratios = [[r["latency_s"] / r["mpi_barrier_s"] for r in recs if r["progress"] == "thread"] for recs in runs]
    med = [_med(p) for p in zip(*ratios)]
    v = grade([Effect("thread/MPI_Barrier ratio at the smallest group - at the largest", [r[0] - r[-1] for r in ratios],
                      "shape", "x"),
               Effect("1 - thread/MPI_Barrier ratio at the largest group", [1 - r[-1] for r in ratios], "full", "x")],
              f"coll::barrier on the thread engine / MPI_Barrier = "
              f"{', '.join(f'{g}: {x:.2f}x' for g, x in zip(groups, med))} over group sizes (medians; seed: 0.9x at 8 nodes).")
    return {"groups": groups, "runs": runs, "thread_vs_mpi": ratios}, v
