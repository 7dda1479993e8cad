"""Seed 003 (generalized collective primitives on the ConnectX-2 offload engine): the
primitives' latency and overlap, host-based (caller) vs offloaded (thread), and the barrier
built on them against MPI_Barrier."""
from __future__ import annotations

from nbfft_experiments.registry import experiment

PRIMS = ["multi-send", "recv-replicate", "recv-reduce"]


@experiment(
    name="s003_primitives", seed="003", figure="primitive latency and overlap",
    title="multi-send, receive-replicate, receive-reduce: caller (host) vs thread (offload)",
    seed_reported="Offloaded primitives match or beat host-based latency (receive-replicate up to 5 % better; "
                  "receive-reduce matches while the data fits one WQE) and overlap 95 % or more (multi-send), "
                  "97 % or more (receive-replicate), 98 % or more (receive-reduce).",
    verdict_rule="per primitive at the largest size: thread overlap % and latency / caller latency. 'reproduced' if "
                 "every primitive's thread overlap >= 95 % and its latency <= 1.05x the caller's; 'in shape' if "
                 "thread overlap beats caller overlap for every primitive; else not reproduced.",
    weight=1.5, min_ranks=4)
def primitives(ctx):
    sizes = [8, 1024, 65536] if ctx.quick else [8, 64, 1024, 16384, 65536, 262144, 1048576]
    recv = [2] if ctx.quick else sorted({2, 4, 6} & set(range(1, ctx.ranks - 1)) or {2})
    recs = ctx.bench("primitives", ["--primitive", ",".join(PRIMS), "--sizes", ",".join(map(str, sizes)),
                                    "--receivers", ",".join(map(str, recv)), "--iters", "20" if ctx.quick else "100",
                                    "--tests", "10"], label="primitives latency + overlap")
    fig, axes = ctx.figure(ncols=3, width=4)
    for ax, p in zip(axes, PRIMS):
        for prog, mk in (("caller", "s--"), ("thread", "o-")):
            for R in recv:
                rs = [r for r in recs if r["primitive"] == p and r["progress"] == prog and r["receivers"] == R]
                if rs:
                    ax.loglog([r["bytes"] for r in rs], [r["latency_s"] * 1e6 for r in rs], mk,
                              label=f"{R} rcvr {'NIC (thread)' if prog == 'thread' else 'host (caller)'}")
        ax.set_title(p, fontsize=9), ax.set_xlabel("bytes"), ax.set_ylabel("latency us"), ax.legend(fontsize=7)
    ctx.save(fig)
    big = max(sizes)
    summary = {}
    for p in PRIMS:
        c = next((r for r in recs if r["primitive"] == p and r["progress"] == "caller" and r["bytes"] == big), None)
        t = next((r for r in recs if r["primitive"] == p and r["progress"] == "thread" and r["bytes"] == big), None)
        if c and t:
            summary[p] = {"thread_overlap_pct": t["overlap_pct"], "caller_overlap_pct": c["overlap_pct"],
                          "thread_hidden_pct": t["hidden_pct"], "latency_ratio": t["latency_s"] / c["latency_s"]}
    if summary and all(s["thread_overlap_pct"] >= 95 and s["latency_ratio"] <= 1.05 for s in summary.values()):
        v = "reproduced"
    elif summary and all(s["thread_overlap_pct"] > s["caller_overlap_pct"] for s in summary.values()):
        v = "reproduced in shape"
    else:
        v = "not reproduced"
    txt = "; ".join(f"{p}: thread overlap {s['thread_overlap_pct']:.0f} % (hidden {s['thread_hidden_pct']:.0f} %) vs "
                    f"caller {s['caller_overlap_pct']:.0f} %, latency {s['latency_ratio']:.2f}x caller"
                    for p, s in summary.items())
    return {"sizes": sizes, "receivers": recv, "records": recs, "summary": summary}, f"{v}: at {big} B, {txt}."


@experiment(
    name="s003_barrier", seed="003", figure="MPI_Barrier", title="barrier latency vs group size: coll::barrier vs MPI_Barrier",
    seed_reported="The offload-based MPI_Barrier gets better relative to the host one with increasing group size: "
                  "10 % faster on 8 nodes.",
    verdict_rule="latency of coll::barrier (dissemination over multi-sends) on the thread engine and the caller "
                 "engine vs MPI_Barrier on the same ranks. 'reproduced' if the thread-engine barrier is faster than "
                 "MPI_Barrier at the largest group; 'in shape' if its ratio to MPI_Barrier falls as groups grow; "
                 "else not reproduced.",
    weight=1.0)
def barrier(ctx):
    groups = sorted({2, ctx.ranks} | ({4} if ctx.ranks >= 4 else set()) | ({8} if ctx.ranks >= 8 else set()))
    recs = ctx.bench("primitives", ["--primitive", "barrier", "--groups", ",".join(map(str, groups)),
                                    "--iters", "50" if ctx.quick else "500"], label="primitives barrier")
    fig, (ax,) = ctx.figure()
    for prog in ("caller", "thread"):
        rs = [r for r in recs if r["progress"] == prog]
        ax.plot([r["group"] for r in rs], [r["latency_s"] * 1e6 for r in rs], "o-", label=f"coll::barrier @{prog}")
    rs = [r for r in recs if r["progress"] == "caller"]
    ax.plot([r["group"] for r in rs], [r["mpi_barrier_s"] * 1e6 for r in rs], "k^--", label="MPI_Barrier")
    ax.set_xlabel("group size"), ax.set_ylabel("latency us"), ax.legend(fontsize=8)
    ctx.save(fig)
    th = [r for r in recs if r["progress"] == "thread"]
    ratios = [r["latency_s"] / r["mpi_barrier_s"] for r in th]
    if ratios[-1] < 1:
        v = "reproduced"
    elif len(ratios) > 1 and ratios[-1] < ratios[0]:
        v = "reproduced in shape"
    else:
        v = "not reproduced"
    return {"groups": groups, "records": recs, "thread_vs_mpi": ratios}, (
        f"{v}: coll::barrier on the thread engine / MPI_Barrier = {', '.join(f'{g}: {x:.2f}x' for g, x in zip(groups, ratios))} "
        f"over group sizes (seed: 0.9x at 8 nodes).")
