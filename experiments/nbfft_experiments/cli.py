"""nbfft-experiments list | run NAME... | run all [--quick] [--cluster HOSTSxRANKS@RATE] [--out DIR]
                  | check [--out DIR]"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
import traceback
from pathlib import Path

from nbfft_experiments.registry import all_experiments
from nbfft_experiments.runner import REPO, Cluster, Context, Launcher, Progress, Skip

FILES = ("data.json", "verdict.md")


def _parser():
    p = argparse.ArgumentParser(prog="nbfft-experiments", description="The seed papers' experiments, one command each.")
    sub = p.add_subparsers(dest="cmd", required=True)
    sub.add_parser("list", help="list the registered experiments")
    r = sub.add_parser("run", help="run experiments by name, or 'all'")
    r.add_argument("names", nargs="+")
    r.add_argument("--quick", action="store_true", help="small sizes, few iterations, local ranks (CI)")
    r.add_argument("--cluster", metavar="HOSTSxRANKS@RATE", help="run on tools/netcluster, e.g. 4x1@1gbit (root)")
    r.add_argument("--out", default="results", help="results folder (default results)")
    r.add_argument("--build", default=os.environ.get("NBFFT_BUILD", str(REPO / "build/openmpi")),
                   help="build folder holding bin/nbfft-bench and bin/nbfft-sine (default build/openmpi)")
    r.add_argument("--mpi", choices=["openmpi", "mpich"], help="MPI of that build (default: from the folder name)")
    r.add_argument("--lock", help="wrap every MPI run in `flock FILE` (a machine shared by several jobs)")
    r.add_argument("--check", action="store_true", help="then check the results (as `check`)")
    c = sub.add_parser("check", help="check that every experiment's figure, verdict and valid data.json exist")
    c.add_argument("--out", default="results")
    c.add_argument("names", nargs="*")
    return p


def _select(names):
    exps = all_experiments()
    if names in (["all"], []):
        return exps
    by = {e.name: e for e in exps}
    unknown = [n for n in names if n not in by]
    if unknown:
        raise SystemExit(f"nbfft-experiments: unknown experiment(s) {', '.join(unknown)} (see `nbfft-experiments list`)")
    return [by[n] for n in names]


def _write_verdict(e, ctx, outdir, verdict, seconds, quick):
    lines = [f"# {e.name}: seed {e.seed} {e.figure}", "", f"**{e.title}**", "",
             f"**Verdict:** {verdict}", "",
             f"**What the seed reported:** {e.seed_reported}", "",
             f"**How the verdict is computed:** {e.verdict_rule}", "",
             f"**Where:** {'emulated cluster ' + str(ctx.cluster) if ctx.cluster else 'local ranks'} ({ctx.mpi}), "
             f"{'quick' if quick else 'full'} mode, {seconds:.0f} s", "",
             f"![{e.name}]({e.name}.png)", "", "**Commands:**", "", "```"]
    lines += list(dict.fromkeys(ctx.commands)) + ["```", ""]
    lines += [f"Note: {n}" for n in ctx.notes]
    (outdir / "verdict.md").write_text("\n".join(lines) + "\n")


def _index(out: Path):
    rows, figs = [], []
    for d in sorted(p for p in out.iterdir() if p.is_dir()):
        data = d / "data.json"
        if not data.exists():
            continue
        meta = json.loads(data.read_text()).get("experiment", {})
        name = d.name
        v = meta.get("verdict", "?").replace("|", "/")
        rows.append(f"| [{name}]({name}/verdict.md) | {meta.get('seed', '?')} | {meta.get('figure', '?')} | {v} |")
        if (d / f"{name}.png").exists():
            figs.append(f"### {name}: seed {meta.get('seed')} {meta.get('figure')}\n\n{v}\n\n![{name}]({name}/{name}.png)\n")
    text = ["# nbfft experiments", "", "| experiment | seed | figure | verdict |", "|---|---|---|---|", *rows, "", *figs]
    (out / "index.md").write_text("\n".join(text) + "\n")


def run(args) -> int:
    exps = _select(args.names)
    mpi = args.mpi or ("mpich" if "mpich" in Path(args.build).name else "openmpi")
    cluster = Cluster.parse(args.cluster) if args.cluster else None
    launcher = Launcher(Path(args.build).resolve(), mpi, cluster, args.lock)
    for prog in ("nbfft-bench", "nbfft-sine"):
        if not (launcher.build / "bin" / prog).exists():
            raise SystemExit(f"nbfft-experiments: {launcher.build / 'bin' / prog} is missing: build first (make build)")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    progress = Progress(sum(e.weight for e in exps))
    cache: dict = {}
    failed, skipped = [], []
    t_all = time.time()
    for i, e in enumerate(exps, 1):
        progress.start(i, len(exps), e.name)
        outdir = out / e.name
        outdir.mkdir(parents=True, exist_ok=True)
        (outdir / "log.txt").write_text("")
        ctx = Context(e, launcher, args.quick, outdir, progress, cache)
        t0 = time.time()
        try:
            if ctx.ranks < e.min_ranks:
                raise Skip(f"needs {e.min_ranks} ranks, this run has {ctx.ranks}")
            data, verdict = e.run(ctx)
        except Skip as s:
            verdict, data = f"skipped: {s}", {}
            skipped.append(e.name)
        except Exception as x:  # one failing experiment must not lose the others' results
            verdict, data = f"failed: {str(x).splitlines()[0] if str(x) else type(x).__name__}", {}
            (outdir / "log.txt").open("a").write(traceback.format_exc())
            failed.append(e.name)
        secs = time.time() - t0
        record = {"experiment": {"name": e.name, "seed": e.seed, "figure": e.figure, "title": e.title,
                                 "seed_reported": e.seed_reported, "verdict_rule": e.verdict_rule, "verdict": verdict,
                                 "quick": args.quick, "mpi": mpi, "cluster": args.cluster, "seconds": secs,
                                 "commands": list(dict.fromkeys(ctx.commands)), "figures": ctx.figures},
                  "data": data}
        (outdir / "data.json").write_text(json.dumps(record, indent=1, default=float))
        _write_verdict(e, ctx, outdir, verdict, secs, args.quick)
        progress.finish(e.weight)
        print(f"  {e.name}: {verdict} ({secs:.0f} s)", file=sys.stderr, flush=True)
    _index(out)
    print(f"nbfft-experiments: {len(exps)} experiments in {time.time() - t_all:.0f} s "
          f"({progress.run_seconds:.0f} s inside MPI runs); results in {out}/index.md"
          f"{'; failed: ' + ', '.join(failed) if failed else ''}{'; skipped: ' + ', '.join(skipped) if skipped else ''}",
          file=sys.stderr)
    rc = 1 if failed else 0
    if args.check:
        rc = check(out, [e.name for e in exps]) or rc
    return rc


def check(out: Path, names) -> int:
    """Every experiment: data.json valid JSON with a verdict, verdict.md, and NAME.png/.svg
    unless it was skipped (with its reason)."""
    problems = []
    names = names or [e.name for e in all_experiments()]
    for n in names:
        d = out / n
        try:
            rec = json.loads((d / "data.json").read_text())
            verdict = rec["experiment"]["verdict"]
        except (OSError, ValueError, KeyError) as x:
            problems.append(f"{n}: data.json missing or invalid ({x})")
            continue
        if not (d / "verdict.md").exists():
            problems.append(f"{n}: verdict.md missing")
        if verdict.startswith("failed"):
            problems.append(f"{n}: {verdict}")
        elif not verdict.startswith("skipped"):
            for ext in ("png", "svg"):
                if not (d / f"{n}.{ext}").stat().st_size if (d / f"{n}.{ext}").exists() else True:
                    problems.append(f"{n}: {n}.{ext} missing or empty")
    if not (out / "index.md").exists():
        problems.append("index.md missing")
    for p in problems:
        print(f"check: {p}", file=sys.stderr)
    print(f"check: {len(names)} experiments, {len(problems)} problems", file=sys.stderr)
    return 1 if problems else 0


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    if args.cmd == "list":
        for e in all_experiments():
            print(f"{e.name:<16} seed {e.seed} {e.figure:<30} {e.title}")
        return 0
    if args.cmd == "check":
        return check(Path(args.out), args.names)
    return run(args)
