"""docs/performance.md in one command: nbfft against FFTW-MPI, mpi4py-fft and FFTW's threaded
serial transform (the single-node limit), with the plan-time tuner's choice beside the default.

    make performance                        # grids 128,256 on 1, 2, 4 ranks -> docs/performance.md
    python bench/compare/performance.py --build build/openmpi --grids 128,256,512 --ranks 1,2,4

Every number is the median over --iters iterations of one forward r2c + normalization + one
backward c2r of a double N^3 field, the slowest rank's time, FFTW_MEASURE everywhere.

* nbfft: one nbfft-sine job per (grid, ranks) runs the default plan (blocking, slabs when
  they fit), the tuner's quick and exhaustive choices and FFTW-MPI (its transposed-out
  layouts, as nbfft's) with their iterations interleaved round-robin, so a noisy moment
  of the shared machine hits all of them alike.
* mpi4py-fft: PFFT slabs, forward + backward (python/benchmarks/compare.py's worker),
  when mpi4py_fft imports in this Python.
* FFTW serial: nbfft-fftw-serial, one process with as many threads as ranks, the whole grid
  in its memory (no data moves between processes).
"""

import argparse
import datetime
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def run(cmd, timeout, env=None):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout, env=env)
    if p.returncode != 0:
        raise RuntimeError("{} failed ({}):\n{}".format(" ".join(cmd), p.returncode, p.stdout[-3000:]))
    return p.stdout


def nbfft_runs(args, mpirun, n, p, iters):
    """Median seconds of blocking, tuned-quick, tuned-exhaustive, fftw-mpi; tuning seconds."""
    with tempfile.TemporaryDirectory() as tmp:
        js = os.path.join(tmp, "sine.json")
        cmd = mpirun + ["-n", str(p), os.path.join(args.build, "bin", "nbfft-sine"), "--grid", str(n), "--iters",
                        str(iters), "--transport", "blocking", "--autotune", "quick,exhaustive", "--autotune-budget",
                        str(args.tune_budget), "--effort", "measure", "--json", js]
        if args.fftw_mpi:
            cmd += ["--baseline", "fftw-mpi"]
        text = run(cmd, args.timeout)
        with open(js) as f:
            records = json.load(f)
    by = {}
    for r in records:
        key = "fftw-mpi" if r.get("code") == "fftw-mpi" or r.get("transport") == "fftw-mpi" else r["transport"]
        by[key] = r
    tuning = {m.group(1): (float(m.group(3)), int(m.group(2)))
              for m in re.finditer(r"\[(\w+)\] tuning: (\d+) trials in ([0-9.]+) s", text)}
    chosen = {m.group(1): m.group(2) for m in re.finditer(r"\[(\w+)\] tuning:.*?chosen: ([^\n]*)", text, re.S)}
    return by, tuning, chosen


def serial_limit(args, n, threads, iters):
    with tempfile.TemporaryDirectory() as tmp:
        js = os.path.join(tmp, "serial.json")
        run([os.path.join(args.build, "bin", "nbfft-fftw-serial"), "--grid", str(n), "--threads", str(threads),
             "--iters", str(iters), "--json", js], args.timeout)
        with open(js) as f:
            return json.load(f)[0]["median_s"]


def mpi4py_fft(args, mpirun, n, p, iters):
    try:
        text = run(mpirun + ["-n", str(p), sys.executable, os.path.join(ROOT, "python", "benchmarks", "compare.py"),
                             "--worker", "--grid", str(n), "--iters", str(iters)], args.timeout)
    except (RuntimeError, subprocess.TimeoutExpired) as e:
        return None, "failed: {}".format(str(e).splitlines()[0])
    res = json.loads([ln for ln in text.splitlines() if ln.startswith("RESULT ")][-1][7:])
    return res.get("mpi4py_fft_s"), res.get("mpi4py_fft")


def ms(x):
    return "{:.2f}".format(1e3 * x) if isinstance(x, (int, float)) else "-"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build", "openmpi"))
    ap.add_argument("--grids", default="128,256")
    ap.add_argument("--ranks", default="1,2,4")
    ap.add_argument("--iters", type=int, default=10)
    ap.add_argument("--tune-budget", type=float, default=30)
    ap.add_argument("--mpirun", default="mpiexec --oversubscribe --bind-to none")
    ap.add_argument("--no-fftw-mpi", dest="fftw_mpi", action="store_false", help="MPICH builds have no FFTW-MPI")
    ap.add_argument("--timeout", type=int, default=1800)
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "performance.md"))
    args = ap.parse_args()
    mpirun = shlex.split(args.mpirun)

    rows = []
    for n in [int(g) for g in args.grids.split(",")]:
        for p in [int(r) for r in args.ranks.split(",")]:
            iters = args.iters if n <= 256 else max(3, args.iters // 3)
            by, tuning, chosen = nbfft_runs(args, mpirun, n, p, iters)
            m4, m4_note = mpi4py_fft(args, mpirun, n, p, iters)
            ser = serial_limit(args, n, p, iters)
            row = {"grid": n, "ranks": p, "iters": iters,
                   "blocking": by["blocking"]["time_s"], "proc_grid": by["blocking"]["proc_grid"],
                   "quick": by["tuned-quick"]["time_s"], "exhaustive": by["tuned-exhaustive"]["time_s"],
                   "quick_grid": by["tuned-quick"]["proc_grid"], "exhaustive_grid": by["tuned-exhaustive"]["proc_grid"],
                   "tune_quick_s": tuning.get("quick", (None, 0))[0], "tune_quick_trials": tuning.get("quick", (0, 0))[1],
                   "tune_exhaustive_s": tuning.get("exhaustive", (None, 0))[0],
                   "tune_exhaustive_trials": tuning.get("exhaustive", (0, 0))[1],
                   "chosen_quick": chosen.get("quick", ""), "chosen_exhaustive": chosen.get("exhaustive", ""),
                   "fftw_mpi": by["fftw-mpi"]["time_s"] if "fftw-mpi" in by else None,
                   "mpi4py_fft": m4, "mpi4py_fft_note": m4_note, "serial": ser}
            rows.append(row)
            print(json.dumps(row), flush=True)

    host = run(["sh", "-c", "grep -m1 'model name' /proc/cpuinfo | cut -d: -f2; nproc"], 30).split("\n")
    lines = [
        "# Performance: nbfft against the distributed FFTs users have, and the single-node limit",
        "",
        "Made by `make performance` (bench/compare/performance.py) on {} ({} cores, {}), {}."
        .format(host[0].strip(), host[1].strip(), os.path.basename(os.path.normpath(args.build)),
                datetime.date.today().isoformat()),
        "Median ms per forward r2c + normalization + backward c2r of a double N^3 field, slowest rank,",
        "FFTW_MEASURE everywhere; nbfft's runs and FFTW-MPI interleaved in one job per row.",
        "All ranks share the machine's cores (more ranks than cores oversubscribe them).",
        "",
        "| grid | ranks | nbfft default | nbfft tuned (quick) | tuned (exhaustive) | quick / exhaustive | tuning s (quick / exhaustive) |"
        " FFTW-MPI | mpi4py-fft | FFTW serial, threads = ranks | nbfft best / best other | nbfft best / serial limit |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        best = min(r["blocking"], r["quick"])
        others = [x for x in (r["fftw_mpi"], r["mpi4py_fft"]) if x]
        lines.append("| {g}^3 | {p} | {b} ({bg}) | {q} ({qg}) | {e} ({eg}) | {qe:.3f} | {tq} / {te} | {f} | {m} | {s} | {bo} | {bs:.2f} |".format(
            g=r["grid"], p=r["ranks"], b=ms(r["blocking"]), bg=r["proc_grid"], q=ms(r["quick"]), qg=r["quick_grid"],
            e=ms(r["exhaustive"]), eg=r["exhaustive_grid"], qe=r["quick"] / r["exhaustive"],
            tq="{:.1f}".format(r["tune_quick_s"]) if r["tune_quick_s"] is not None else "-",
            te="{:.1f}".format(r["tune_exhaustive_s"]) if r["tune_exhaustive_s"] is not None else "-",
            f=ms(r["fftw_mpi"]), m=ms(r["mpi4py_fft"]) if r["mpi4py_fft"] else "n/a", s=ms(r["serial"]),
            bo="{:.2f}".format(best / min(others)) if others else "-", bs=best / r["serial"]))
    lines += ["", "The tuner's choices:", ""]
    for r in rows:
        lines.append("- {}^3 on {} ranks: quick ({} trials): {}; exhaustive ({} trials): {}".format(
            r["grid"], r["ranks"], r["tune_quick_trials"], r["chosen_quick"], r["tune_exhaustive_trials"],
            r["chosen_exhaustive"]))
    notes = sorted({r["mpi4py_fft_note"] for r in rows if r["mpi4py_fft_note"]})
    if notes:
        lines += ["", "mpi4py-fft: " + "; ".join(notes)]
    with open(args.out + ".tmp", "w") as f:
        f.write("\n".join(lines) + "\n\nRaw rows (JSON):\n\n```\n" + "\n".join(json.dumps(r) for r in rows) + "\n```\n")
    os.replace(args.out + ".tmp", args.out)
    print("wrote", args.out)


if __name__ == "__main__":
    main()
