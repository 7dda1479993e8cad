#!/usr/bin/env python3
"""Issue 24's N-D benchmarks in one interleaved run: nbfft's nd::Plan against FFTW-MPI (and
the 3-D plan) in nbfft-bench-nd, and mpi4py-fft's PFFT on the same work.

    python3 bench/nd/bench_nd.py --case 2d --n 8192 --ranks 1 2 --jobs 3 --rounds 3 \
        --python /path/to/venv/bin/python          # a Python with mpi4py_fft (optional)

Each job of nbfft-bench-nd times its contestants interleaved round by round (a forward +
backward pair each, unnormalized, the slowest rank's time); mpi4py-fft runs as its own job
right after (PFFT with grid=(-1,), slabs on the first axis, normalize=False, FFTW_MEASURE).
The jobs alternate `--jobs` times (with several `--build` folders, each build's job in turn, to
compare builds); the table gives each contestant's median and min/max over
every round, and nd's median over the best peer's.

Cases (nbfft-bench-nd --case): 2d (n x n r2c; FFTW-MPI transposed out and in natural order),
batch (`--batch` fields of n^3 as the 4-D array [batch][n][n][n], axes (1, 2, 3): nd with the
ranks on the batch axis, nd-batch with it a batch axis (fields_in_flight 2, and -f1: 1);
FFTW-MPI with howmany), 3d (n^3: nd, which runs on the 3-D nbfft::fft::Plan, and nd-own,
nd's own steps, each in both output orders, against fft::Plan in both; no mpi4py-fft).
"""
import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def worker(args):
    """mpi4py-fft's side: one job of `rounds` timed forward + backward pairs."""
    import numpy as np
    from mpi4py import MPI
    from mpi4py_fft import PFFT, newDistArray
    comm = MPI.COMM_WORLD
    if args.case == "2d":
        shape, axes = (args.n, args.n), (0, 1)
    else:
        shape, axes = (args.batch, args.n, args.n, args.n), (1, 2, 3)
    fft = PFFT(comm, shape, axes=axes, dtype=np.float64, grid=(-1,))
    a = newDistArray(fft, False)
    a[...] = np.random.default_rng(comm.rank).standard_normal(a.shape)
    A = newDistArray(fft, True)

    def pair():
        fft.forward(a, A, normalize=False)
        fft.backward(A, a, normalize=False)

    pair()
    times = []
    for _ in range(args.rounds):
        comm.Barrier()
        t0 = time.perf_counter()
        pair()
        times.append(comm.allreduce(time.perf_counter() - t0, op=MPI.MAX))
    if comm.rank == 0:
        print("RESULT " + json.dumps({"case": args.case, "who": "mpi4py-fft", "n": args.n, "batch": args.batch,
                                      "ranks": comm.size, "note": "PFFT grid=(-1,) axes {}".format(axes),
                                      "times": times}), flush=True)
    fft.destroy()


def results(cmd, timeout):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout)
    if p.returncode != 0:
        raise RuntimeError("{} failed ({}):\n{}".format(" ".join(cmd), p.returncode, p.stdout[-3000:]))
    return [json.loads(ln[7:]) for ln in p.stdout.splitlines() if ln.startswith("RESULT ")]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--case", choices=["2d", "batch", "3d"], default="2d")
    ap.add_argument("--n", type=int, default=8192)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--ranks", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--jobs", type=int, default=3, help="alternating jobs per contestant set")
    ap.add_argument("--rounds", type=int, default=3, help="timed pairs per job")
    ap.add_argument("--effort", default="measure")
    ap.add_argument("--transport", default="blocking", help="the nd plans' exchanges")
    ap.add_argument("--build", nargs="+", default=[os.path.join(ROOT, "build", "openmpi")],
                    help="build folders (bin/nbfft-bench-nd in each); several: their jobs alternate and each "
                         "contestant is named with its build's folder name (nd@base, nd@openmpi)")
    ap.add_argument("--mpirun", default="mpirun --oversubscribe --bind-to none")
    ap.add_argument("--python", default=sys.executable, help="a Python with mpi4py_fft (skipped if it lacks it)")
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        return worker(args)
    mpirun = shlex.split(args.mpirun)
    benches = [(os.path.basename(os.path.normpath(b)), os.path.join(b, "bin", "nbfft-bench-nd")) for b in args.build]
    have_m4 = args.case != "3d" and subprocess.run([args.python, "-c", "import mpi4py_fft"],
                                                     stderr=subprocess.DEVNULL).returncode == 0
    common = ["--case", args.case, "--n", str(args.n), "--batch", str(args.batch), "--rounds", str(args.rounds)]
    print("case {} n {} batch {} effort {}; {} jobs x {} rounds each, interleaved{}".format(
        args.case, args.n, args.batch, args.effort, args.jobs, args.rounds,
        "" if have_m4 or args.case == "3d" else "; mpi4py-fft: not importable by " + args.python))
    for p in args.ranks:
        times, notes = {}, {}
        for _ in range(args.jobs):
            recs = []
            for label, bench in benches:
                rs = results(mpirun + ["-n", str(p), bench] + common + ["--effort", args.effort, "--transport",
                                                                      args.transport], args.timeout)
                for r in rs:
                    if len(benches) > 1:
                        r["who"] += "@" + label
                recs += rs
            if have_m4:
                recs += results(mpirun + ["-n", str(p), args.python, os.path.abspath(__file__), "--worker"] + common,
                                args.timeout)
            for r in recs:
                times.setdefault(r["who"], []).extend(r["times"])
                notes[r["who"]] = r["note"]
        med = {w: statistics.median(t) for w, t in times.items()}
        peers = [m for w, m in med.items() if not w.startswith("nd")]
        best = min(peers) if peers else None
        print("ranks {}:".format(p))
        for w, t in times.items():
            ratio = " /best peer {:.2f}".format(med[w] / best) if w.startswith("nd") and best else ""
            print("  {:10s} median {:9.2f} ms  min {:9.2f}  max {:9.2f}  ({} rounds){}  [{}]".format(
                w, 1e3 * med[w], 1e3 * min(t), 1e3 * max(t), len(t), ratio, notes[w]))
        sys.stdout.flush()


if __name__ == "__main__":
    sys.exit(main())
