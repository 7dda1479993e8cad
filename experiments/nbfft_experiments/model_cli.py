"""nbfft-model measure | fit | predict | validate: the scaling model of model.py on the
command line (tools/nbfft-model). See docs/model.md."""
from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import numpy as np

from nbfft_experiments import argv as cli_argv
from nbfft_experiments import model as M

REPO = Path(__file__).resolve().parents[2]


def _fail(msg: str) -> M.ModelError:
    return M.ModelError(msg)


# ----------------------------------------------------------------------------- measure
def parse_cluster(spec: str) -> Tuple[int, int, str]:
    m = re.fullmatch(r"(\d+)x(\d+)@([0-9.]+[a-zA-Z]+)", spec or "")
    if not m or int(m.group(1)) < 1 or int(m.group(2)) < 1:
        raise M.ModelError(f"--cluster: expected HOSTSxRANKS@RATE such as 4x1@1gbit, got '{spec}'")
    return int(m.group(1)), int(m.group(2)), m.group(3)


def plan_measurements(cluster: Optional[Tuple[int, int, str]], grids: List[int], local_ranks: List[int],
                      fields: int, pipeline_transports: str, iters: int) -> List[Dict]:
    """The nbfft-sine invocations of one `measure`: per rank count, every grid with its
    slab and pencil process grids (blocking), and the multi-field pipeline at the largest
    grid (blocking + the non-blocking transports, so nbfft-sine reports the gap closed)."""
    out = []
    counts = [cluster[0] * cluster[1]] if cluster else local_ranks
    for p in counts:
        pgs = [f"1x{p}"]
        if cluster and cluster[1] > 1 and cluster[0] > 1:
            pgs.append(f"{cluster[1]}x{cluster[0]}")        # ROW within a host, COL across
        elif cluster and p >= 4 and p % 2 == 0:
            pgs.append(f"2x{p // 2}")                       # ROW across hosts too
        elif not cluster and p == 2:
            pgs.append("2x1")                               # a ROW exchange on its own
        elif not cluster and p >= 4 and p % 2 == 0:
            pgs.append(f"2x{p // 2}")
        for g in grids:
            use = [pg for pg in pgs if M.fits((g, g, g), *M.parse_proc_grid(pg)) is None]
            if use:
                out.append({"np": p, "args": ["--grid", str(g), "--proc-grid", ",".join(use), "--transport", "blocking",
                                              "--iters", str(iters), "--warmup", "1"]})
        if p > 1 and fields > 1:
            g = max(grids)
            out.append({"np": p, "args": ["--grid", str(g), "--proc-grid", pgs[0], "--fields", str(fields),
                                          "--transport", "blocking," + pipeline_transports, "--iters", str(iters),
                                          "--warmup", "1"]})
    return out


def _launch(build: Path, cluster, np_: int, args: List[str], lock: Optional[str]) -> List[str]:
    exe = str(build / "bin" / "nbfft-sine")
    if cluster:
        h, r, rate = cluster
        cmd = [str(REPO / "tools/netcluster/netcluster"), "run", "-q", "--hosts", str(h), "--ranks-per-host", str(r),
               "--rate", rate, "--np", str(np_), "--", exe, *args]
    else:
        cmd = ["mpiexec.openmpi", "--oversubscribe", "--bind-to", "none", "-n", str(np_), exe, *args]
    return ["flock", lock, *cmd] if lock else cmd


def measure(args) -> int:
    cluster = parse_cluster(args.cluster) if args.cluster else None
    if cluster and os.geteuid() != 0:
        raise _fail("--cluster needs root (tools/netcluster creates network namespaces)")
    build = Path(args.build).resolve()
    if not (build / "bin/nbfft-sine").exists():
        raise _fail(f"{build}/bin/nbfft-sine is missing: build first (make build)")
    try:
        grids = [int(g) for g in args.grids.split(",")]
        ranks = [int(p) for p in args.ranks.split(",")]
    except ValueError:
        raise _fail(f"--grids/--ranks: expected comma-separated integers, got '{args.grids}' / '{args.ranks}'") from None
    for option, values, least in (("--grids", grids, 2), ("--ranks", ranks, 1), ("--iters", [args.iters], 1),
                                  ("--fields", [args.fields], 1)):
        if min(values) < least:
            raise _fail(f"{option} must be >= {least}, got {min(values)}")
    _check_output("--out", args.out)  # written after every run: its folder must take a file now
    plan = plan_measurements(cluster, grids, ranks, args.fields, args.pipeline_transports, args.iters)
    cores = os.cpu_count() or 1
    h, r, rate = cluster if cluster else (1, 0, "")
    runs, env = [], {**os.environ, "OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
    for i, inv in enumerate(plan):
        setting = {"where": args.cluster or "local", "hosts": h, "ranks_per_node": r or inv["np"], "rate": rate,
                   "cores": cores, "invocation": i}
        with tempfile.TemporaryDirectory() as td:
            out = Path(td) / "out.json"
            cmd = _launch(build, cluster, inv["np"], [*inv["args"], "--json", str(out)], args.lock)
            shown = " ".join(shlex.quote(c) for c in cmd[2 if args.lock else 0:])
            print(f"[{i + 1}/{len(plan)}] {shown}", file=sys.stderr, flush=True)
            t0 = time.time()
            p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, timeout=900)
            if p.returncode != 0:
                tail = "\n".join(p.stdout.strip().splitlines()[-8:])
                raise _fail(f"nbfft-sine failed (rc={p.returncode}): {shown}\n{tail}")
            recs = json.loads(out.read_text())
        setting["command"] = shown.replace(str(out), "FILE")
        setting["seconds"] = time.time() - t0
        for rec in recs:
            runs.append({"setting": setting, "record": rec})
    doc = {"nbfft_model_measurements": 1, "cluster": args.cluster, "cores": cores,
           "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "runs": runs}
    Path(args.out).write_text(json.dumps(doc, indent=1))
    print(f"nbfft-model: {len(runs)} records from {len(plan)} runs -> {args.out}", file=sys.stderr)
    return 0


# ----------------------------------------------------------------------------- loading
def load_measurements(paths: List[str]) -> Tuple[List[M.Observation], List[Dict]]:
    """Blocking observations, and per pipelined invocation its best non-blocking run
    (with the blocking run of the same invocation), from measurement files."""
    obs, pipes = [], []
    for path in paths:
        try:
            doc = json.loads(Path(path).read_text())
        except OSError as e:
            raise M.ModelError(f"cannot read measurements '{path}': {e.strerror}") from None
        except ValueError as e:
            raise M.ModelError(f"'{path}' is not JSON ({e})") from None
        if not isinstance(doc, dict) or "runs" not in doc:
            raise M.ModelError(f"'{path}' is not an nbfft-model measurement file (no 'runs'; make one with "
                               "`nbfft-model measure`)")
        groups: Dict[Tuple, List] = {}
        for run in doc["runs"]:
            rec, st = run.get("record", {}), run.get("setting", {})
            o = M.observation_from_record(rec, st)
            o.label += f" [{Path(path).name}]"
            if rec.get("transport") == "blocking":
                obs.append(o)
            if o.layout.fields > 1:
                groups.setdefault((st.get("invocation"), rec.get("proc_grid")), []).append((rec, o))
        for (_, _), items in groups.items():
            blk = [o for rec, o in items if rec.get("transport") == "blocking"]
            nb = [(rec, o) for rec, o in items if rec.get("transport") != "blocking"]
            if not blk or not nb:
                continue
            rec, o = min(nb, key=lambda x: x[1].total_s)
            pipes.append({"obs": o, "blocking": blk[0], "transport": rec.get("transport"),
                          "gap_closed": rec.get("gap_closed"), "bound_s": rec.get("pipeline_bound_s")})
    return obs, pipes


def _load_model(path: str) -> M.Model:
    try:
        return M.Model.from_json(json.loads(Path(path).read_text()))
    except OSError as e:
        raise M.ModelError(f"cannot read model '{path}': {e.strerror}") from None
    except ValueError as e:
        if isinstance(e, M.ModelError):
            raise
        raise M.ModelError(f"model '{path}' is not JSON ({e})") from None


# ----------------------------------------------------------------------------- fit
def _q(d: Dict) -> str:
    return f"R^2 {d['r2']:.3f}, |rel. residual| median {100 * d['median_abs_rel']:.1f} % max " \
           f"{100 * d['max_abs_rel']:.1f} % (n={d['n']})"


def _check_output(option: str, path: Optional[str]) -> None:
    """An output file the command writes at its end: refused now if its folder cannot take it."""
    if not path:
        return
    if Path(path).is_dir():
        raise _fail(f"{option}: '{path}' is a folder, not a file")
    try:
        with tempfile.NamedTemporaryFile(dir=Path(path).parent, prefix=Path(path).name + "."):
            pass
    except OSError as x:
        raise _fail(f"{option}: cannot write '{path}': {x.strerror}") from None


def do_fit(args) -> int:
    _check_output("--out", args.out)
    obs, pipes = load_measurements(args.measurements)
    gaps = [p["gap_closed"] for p in pipes if p["gap_closed"] is not None and p["obs"].network]
    if not gaps:  # no pipeline between nodes measured: use what there is
        gaps = [p["gap_closed"] for p in pipes if p["gap_closed"] is not None]
    m = M.fit(obs, gaps)
    m.fit_report["inputs"] = list(args.measurements)
    Path(args.out).write_text(json.dumps(m.to_json(), indent=1))
    r, n = m.rates, m.network
    print(f"nbfft-model fit: {len(obs)} blocking runs, {len(pipes)} pipelined, from {', '.join(args.measurements)}")
    units = {"fft_x": "ns per point.log2 n (r2c counted as n/2 complex)", "fft_y": "ns per point.log2 n",
             "fft_z": "ns per point.log2 n", "pack": "ns per byte", "unpack": "ns per byte"}
    for p in M.COMPUTE_PHASES:
        print(f"  {p:<7} {1e9 * r[p]:8.4f} {units[p]:<48} {_q(m.fit_report['phases'][p])}")
    print(f"  intra-node  alpha {1e6 * n.alpha_intra:8.2f} us   beta {1e9 * n.beta_intra:8.4f} ns/B "
          f"({1e-9 / n.beta_intra if n.beta_intra else float('inf'):.2f} GB/s)  {_q(m.fit_report['network']['intra'])}")
    if n.alpha_inter is not None:
        link = m.fit_report["network"].get("inter_link", "")
        print(f"  inter-node  alpha {1e6 * n.alpha_inter:8.2f} us   beta {1e9 * n.beta_inter:8.4f} ns/B per node link "
              f"({8e-9 / n.beta_inter if n.beta_inter else float('inf'):.3f} Gbit/s; emulated link {link})  "
              f"{_q(m.fit_report['network']['inter'])}")
    else:
        print("  inter-node  not fitted (no run crossed nodes); predict needs --network")
    if "theta" in m.fit_report:
        print(f"  oversubscribed: theta {m.theta:.2f} (time = (1 + theta (ranks/cores - 1)) x CPU work)  "
              f"{_q(m.fit_report['theta'])}")
    print(f"  total (predicted blocking vs measured time per iteration): {_q(m.fit_report['total'])}")
    if m.gap_closed is not None:
        print(f"  pipeline: median gap closed {100 * m.gap_closed:.0f} % of (blocking - bound) over "
              f"{len(gaps)} run(s)")
    print(f"-> {args.out}")
    return 0


# ----------------------------------------------------------------------------- predict
def _fmt_t(s: float) -> str:
    if s >= 1:
        return f"{s:.2f} s"
    return f"{1e3 * s:.1f} ms" if s >= 1e-3 else f"{1e6 * s:.0f} us"


def _fmt_b(b: float) -> str:
    for unit, f in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6)):
        if b >= f:
            return f"{b / f:.1f} {unit}"
    return f"{b / 1e3:.1f} kB"


def predict_table(m: M.Model, grids: List[Tuple[int, int, int]], ranks: List[int], rpn: int, fields: int,
                  transform: str = "r2c", precision: str = "double") -> List[Dict]:
    rows = []
    for n in grids:
        for p in ranks:
            kw = dict(transform=transform, precision=precision)
            slab = M.best(m, n, p, min(rpn, p), fields, slabs=True, **kw)
            pen = M.best(m, n, p, min(rpn, p), fields, slabs=False, **kw)
            allb = [x for x in (slab, pen) if x]
            if not allb:
                rows.append({"grid": n, "ranks": p, "fits": False})
                continue
            b = min(allb, key=lambda x: x.blocking_s)
            pb = min(allb, key=lambda x: x.bound_s)
            rows.append({"grid": n, "ranks": p, "fits": True, "best": f"{b.layout.m1}x{b.layout.m2}",
                         "slab_s": slab.blocking_s / fields if slab else None,
                         "pencil_s": pen.blocking_s / fields if pen else None,
                         "blocking_s": b.blocking_s / fields, "bound_s": pb.bound_s / fields,
                         "bound_grid": f"{pb.layout.m1}x{pb.layout.m2}",
                         "expected_s": (pb.expected_s / fields) if pb.expected_s is not None else None,
                         "col_share": b.phases["col"] / b.blocking_s,
                         "mem_blocking": b.data_bytes + b.workspace_bytes,
                         "mem_pipelined": pb.data_bytes + 2 * pb.workspace_bytes})
    return rows


def do_predict(args) -> int:
    _check_output("--json", args.json)
    grids = [M.parse_grid(g) for g in args.grid.split(";" if ";" in args.grid else ",")]
    try:
        ranks = [int(p) for p in args.ranks.split(",")]
    except ValueError:
        raise M.ModelError(f"--ranks: expected a comma-separated list of integers, got '{args.ranks}'") from None
    if min(ranks) < 1:
        raise M.ModelError("--ranks: every count must be >= 1")
    m = M.with_network(_load_model(args.model), args.network)
    rpn = m.network.ranks_per_node or int(m.fit_report.get("ranks_per_node", 1))
    rows = predict_table(m, grids, ranks, rpn, args.fields, args.transform, args.precision)
    n = m.network
    net = (f"inter-node alpha {1e6 * n.alpha_inter:.2f} us, beta {1e9 * n.beta_inter:.4f} ns/B "
           f"({8e-9 / n.beta_inter:.1f} Gbit/s per node link)" if n.alpha_inter is not None and n.beta_inter
           else "no inter-node network")
    print(f"nbfft-model predict: {args.transform} {args.precision}, {args.fields} field(s) in the pipeline, "
          f"{rpn} ranks per node; {net}; intra-node alpha {1e6 * n.alpha_intra:.2f} us, beta "
          f"{1e9 * n.beta_intra:.4f} ns/B; compute rates of {args.model}")
    print("time per forward+backward of one field; 'pipelined' = seed 000 Fig. 4 bound (expected: with the "
          "measured gap closed); memory per rank = data + nbfft's workspaces")
    hdr = f"{'grid':>6} {'ranks':>6} {'best':>8} {'slabs':>10} {'pencils':>10} {'blocking':>10} {'COL %':>6} " \
          f"{'pipelined':>10} {'expected':>10} {'mem blk':>9} {'mem pipe':>9}"
    print(hdr)
    for r in rows:
        g = f"{r['grid'][0]}^3" if len(set(r["grid"])) == 1 else "x".join(map(str, r["grid"]))
        if not r["fits"]:
            print(f"{g:>6} {r['ranks']:>6}  no process grid fits (more ranks than pencils)")
            continue
        f = lambda v: _fmt_t(v) if v is not None else "-"  # noqa: E731
        print(f"{g:>6} {r['ranks']:>6} {r['best']:>8} {f(r['slab_s']):>10} {f(r['pencil_s']):>10} "
              f"{f(r['blocking_s']):>10} {100 * r['col_share']:>6.0f} {f(r['bound_s']):>10} {f(r['expected_s']):>10} "
              f"{_fmt_b(r['mem_blocking']):>9} {_fmt_b(r['mem_pipelined']):>9}")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1, default=float))
    return 0


# ----------------------------------------------------------------------------- validate
def validate_rows(m: M.Model, obs: List[M.Observation], pipes: List[Dict]) -> List[Dict]:
    rows = []
    for o in obs:
        p = M.predict(m, o.layout)
        rows.append({"run": o.label, "kind": "blocking", "measured_s": o.total_s, "predicted_s": p.blocking_s,
                     "col_meas": o.phases.get("col", 0), "col_pred": p.phases["col"]})
    for q in pipes:
        o = q["obs"]
        p = M.predict(m, o.layout)
        if p.expected_s is None:
            continue
        rows.append({"run": o.label + f" {q['transport']}", "kind": "pipelined", "measured_s": o.total_s,
                     "predicted_s": p.expected_s, "bound_pred": p.bound_s, "bound_meas": q["bound_s"]})
    return rows


def do_validate(args) -> int:
    _check_output("--json", args.json)
    m = _load_model(args.model)
    used = set(Path(p).resolve() for p in m.fit_report.get("inputs", []))
    again = [p for p in args.measurements if Path(p).resolve() in used]
    if again and not args.allow_fitted:
        raise M.ModelError(f"{', '.join(again)} was used in the fit; validate on runs the model has not seen "
                           "(or pass --allow-fitted to see the in-sample error)")
    obs, pipes = load_measurements(args.measurements)
    rows = validate_rows(m, obs, pipes)
    if not rows:
        raise M.ModelError("validate: the files hold no runs")
    print(f"nbfft-model validate: {args.model} against {', '.join(args.measurements)}")
    print(f"{'run':<44} {'kind':<9} {'measured':>10} {'predicted':>10} {'error':>8}   COL exchange meas/pred ms")
    for r in rows:
        r["rel"] = (r["predicted_s"] - r["measured_s"]) / r["measured_s"]
        col = f"   {1e3 * r['col_meas']:.2f} / {1e3 * r['col_pred']:.2f}" if r["kind"] == "blocking" else \
            f"   bound meas {1e3 * (r['bound_meas'] or 0):.2f} / pred {1e3 * r['bound_pred']:.2f}"
        print(f"{r['run'][:44]:<44} {r['kind']:<9} {1e3 * r['measured_s']:>8.2f}ms {1e3 * r['predicted_s']:>8.2f}ms "
              f"{100 * r['rel']:>+7.1f}%{col}")
    summary = {}
    for kind in ("blocking", "pipelined", "all"):
        sel = [r for r in rows if kind == "all" or r["kind"] == kind]
        if sel:
            e = M.relative_errors([r["predicted_s"] for r in sel], [r["measured_s"] for r in sel])
            summary[kind] = {"n": len(sel), "median_abs": e["median_abs"], "max_abs": e["max_abs"]}
            print(f"{kind:<10} n={len(sel):<3} |error| median {100 * e['median_abs']:.1f} %, max {100 * e['max_abs']:.1f} %")
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": rows, "summary": summary}, indent=1, default=float))
    return 0


# ----------------------------------------------------------------------------- main
def _parser():
    p = argparse.ArgumentParser(prog="nbfft-model", description="nbfft's fitted scaling model (docs/model.md)")
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("measure", help="run nbfft-sine over a few grids/process grids, store phase timings")
    s.add_argument("--out", required=True)
    s.add_argument("--cluster", metavar="HOSTSxRANKS@RATE", help="on tools/netcluster, e.g. 2x1@1gbit (root)")
    s.add_argument("--grids", default="64,96,128")
    s.add_argument("--ranks", default="1,2,3,4", help="local rank counts (ignored with --cluster)")
    s.add_argument("--fields", type=int, default=4, help="fields of the pipelined runs (1 = none)")
    s.add_argument("--pipeline-transports", default="caller,thread")
    s.add_argument("--iters", type=int, default=5)
    s.add_argument("--build", default=os.environ.get("NBFFT_BUILD", str(REPO / "build/openmpi")))
    s.add_argument("--lock", help="wrap every run in `flock FILE` (a machine shared by several jobs)")
    f = sub.add_parser("fit", help="fit rates and network to measurements")
    f.add_argument("measurements", nargs="+")
    f.add_argument("--out", required=True)
    q = sub.add_parser("predict", help="predict time per transform, blocking vs pipelined, best process grid")
    q.add_argument("--model", required=True)
    q.add_argument("--grid", required=True, help="N[,N..] (cubes) or NXxNYxNZ[;..]")
    q.add_argument("--ranks", required=True, help="P[,P..]")
    q.add_argument("--network", help='e.g. "alpha=1.5us,bw=100gbit,ranks-per-node=64" (default: the fitted one)')
    q.add_argument("--fields", type=int, default=4, help="fields in the pipeline (default 4)")
    q.add_argument("--transform", default="r2c", choices=["r2c", "c2c"])
    q.add_argument("--precision", default="double", choices=["double", "single"])
    q.add_argument("--json", help="also write the table as JSON")
    v = sub.add_parser("validate", help="prediction vs measurement on runs not used in the fit")
    v.add_argument("measurements", nargs="+")
    v.add_argument("--model", required=True)
    v.add_argument("--allow-fitted", action="store_true")
    v.add_argument("--json")
    return p


def main(argv=None) -> int:
    args = cli_argv.parse(_parser(), argv)
    try:
        if args.cmd == "measure":
            return measure(args)
        if args.cmd == "fit":
            return do_fit(args)
        if args.cmd == "predict":
            if args.fields < 1:
                raise M.ModelError("--fields must be >= 1")
            return do_predict(args)
        return do_validate(args)
    except M.ModelError as e:
        print(f"nbfft-model: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
