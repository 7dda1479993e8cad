"""nbfft-experiments list | run NAME... | run all [--quick] [--repeats N] [--cluster HOSTSxRANKS@RATE] [--out DIR]
                  | check [--out DIR] | docs [--from DIR] [--check]

`list`, `check` and `docs` need nothing beyond python3; `run` needs the project's venv
(matplotlib, numpy) and the benchmarks of a build, and says which command makes them."""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
import traceback
from pathlib import Path

from nbfft_experiments import argv as cli_argv
from nbfft_experiments import docs as docgen
from nbfft_experiments.registry import all_experiments
from nbfft_experiments.runner import REPO, Cluster, Context, Launcher, Progress, Skip
from nbfft_experiments.verdict import Verdict, kind_of, regrade

SETUP = "make venv build"  # the one command that makes everything `run` needs

FILES = ("data.json", "verdict.md")


def _parser():
    p = argparse.ArgumentParser(prog="nbfft-experiments", description="The seed papers' experiments, one command each.")
    sub = p.add_subparsers(dest="cmd", required=True)
    sub.add_parser("list", help="list the registered experiments")
    r = sub.add_parser("run", help="run experiments by name, or 'all'")
    r.add_argument("names", nargs="+")
    r.add_argument("--quick", action="store_true", help="small sizes, few iterations, local ranks (CI)")
    r.add_argument("--repeats", type=int, help="runs of every measurement, for the spread the verdicts compare "
                                               "effects with (default 3 quick, 5 full; at least 2)")
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
    d = sub.add_parser("docs", help="write docs/experiments.md's verdicts and figures from a run's results, or "
                                    "check that they match docs/figures/results.json")
    d.add_argument("--from", dest="src", metavar="DIR", help="a run's results folder: copy its verdicts and figures "
                                                             "into docs/ and rewrite the generated part of the page")
    d.add_argument("--check", action="store_true", help="fail if docs/experiments.md differs from what "
                                                        "docs/figures/results.json generates (the default)")
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
    """verdict.md: the same verdict text as data.json and index.md."""
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
        rows.append(f"| [{name}]({name}/verdict.md) | {meta.get('seed', '?')} | {meta.get('figure', '?')} | "
                    f"{kind_of(v)} |")
        if (d / f"{name}.png").exists():
            figs.append(f"### {name}: seed {meta.get('seed')} {meta.get('figure')}\n\n{v}\n\n![{name}]({name}/{name}.png)\n")
    text = ["# nbfft experiments", "", "| experiment | seed | figure | verdict |", "|---|---|---|---|", *rows, "", *figs]
    (out / "index.md").write_text("\n".join(text) + "\n")


def _needs(build: Path):
    """One line naming the command to run when `run` lacks its Python packages or binaries."""
    missing = []
    for mod in ("numpy", "matplotlib"):
        try:
            __import__(mod)
        except ImportError:
            missing.append(f"Python package {mod} ({sys.executable})")
    progs = [p for p in ("nbfft-bench", "nbfft-sine") if not (build / "bin" / p).exists()]
    if progs:
        cache = build / "CMakeCache.txt"
        off = cache.exists() and "NBFFT_BUILD_BENCH:BOOL=OFF" in cache.read_text(errors="replace")
        missing.append(f"{' and '.join(progs)} in {build / 'bin'}" + (
            " (this build has -DNBFFT_BUILD_BENCH=OFF, as in the README's install recipe; the command below "
            "builds build/openmpi with them)" if off else ""))
    if missing:
        raise SystemExit(f"nbfft-experiments: run needs {'; '.join(missing)}: run `{SETUP}` once in {REPO} "
                         f"(or `make experiments` to set up and run them all)")


def run(args) -> int:
    exps = _select(args.names)
    if args.repeats is not None and args.repeats < 2:
        raise SystemExit("nbfft-experiments: --repeats must be at least 2 (one run has no spread to compare an effect with)")
    try:
        cluster = Cluster.parse(args.cluster) if args.cluster else None
    except ValueError as x:
        raise SystemExit(f"nbfft-experiments: {x}")
    mpi = args.mpi or ("mpich" if "mpich" in Path(args.build).name else "openmpi")
    _needs(Path(args.build).resolve())
    launcher = Launcher(Path(args.build).resolve(), mpi, cluster, args.lock)
    # What the runs need from the file system, checked before the first one starts.
    out = Path(args.out)
    try:
        if args.lock:
            open(args.lock, "a").close()  # flock FILE opens it the same way
        out.mkdir(parents=True, exist_ok=True)
    except OSError as x:
        which = "--lock" if args.lock and x.filename == args.lock else "--out"
        raise SystemExit(f"nbfft-experiments: {which}: {x.strerror}: '{x.filename}'")
    progress = Progress(sum(e.weight for e in exps))
    cache: dict = {}
    failed, skipped = [], []
    t_all = time.time()
    for i, e in enumerate(exps, 1):
        progress.start(i, len(exps), e.name)
        outdir = out / e.name
        outdir.mkdir(parents=True, exist_ok=True)
        (outdir / "log.txt").write_text("")
        ctx = Context(e, launcher, args.quick, outdir, progress, cache, args.repeats)
        t0 = time.time()
        graded = None
        try:
            if ctx.ranks < e.min_ranks:
                raise Skip(f"needs {e.min_ranks} ranks, this run has {ctx.ranks}")
            data, v = e.run(ctx)
            if not isinstance(v, Verdict):
                raise TypeError(f"{e.name} returned {type(v).__name__}, not a graded Verdict")
            verdict, graded = v.text(), v.to_json()
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
                                 "kind": kind_of(verdict), "graded": graded, "repeats": ctx.repeats,
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
    unless it was skipped (with its reason); the verdict its stored effects give under the
    current rule is the one recorded, and verdict.md and index.md say the same."""
    problems = []
    names = names or [e.name for e in all_experiments()]
    index = (out / "index.md").read_text() if (out / "index.md").exists() else ""
    for n in names:
        d = out / n
        try:
            rec = json.loads((d / "data.json").read_text())
            verdict = rec["experiment"]["verdict"]
        except (OSError, ValueError, KeyError) as x:
            problems.append(f"{n}: data.json missing or invalid ({x})")
            continue
        graded = rec["experiment"].get("graded")
        if graded and regrade(graded) != kind_of(verdict):
            problems.append(f"{n}: data.json says '{kind_of(verdict)}' but its effects give '{regrade(graded)}'")
        if not (d / "verdict.md").exists():
            problems.append(f"{n}: verdict.md missing")
        elif f"**Verdict:** {verdict}" not in (d / "verdict.md").read_text():
            problems.append(f"{n}: verdict.md's verdict differs from data.json's")
        row = next((ln for ln in index.splitlines() if ln.startswith(f"| [{n}]")), "")
        if index and not row.endswith(f"| {kind_of(verdict).replace('|', '/')} |"):
            problems.append(f"{n}: index.md's verdict differs from data.json's")
        if index and (d / f"{n}.png").exists() and verdict.replace("|", "/") not in index:
            problems.append(f"{n}: index.md's verdict text differs from data.json's")
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
    args = cli_argv.parse(_parser(), argv)
    if args.cmd == "list":
        for e in all_experiments():
            print(f"{e.name:<16} seed {e.seed} {e.figure:<30} {e.title}")
        return 0
    if args.cmd == "check":
        return check(Path(args.out), args.names)
    if args.cmd == "docs":
        if args.src:
            docgen.update_from(Path(args.src))
            return docgen.check()
        return docgen.check()
    return run(args)
