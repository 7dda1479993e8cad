"""Python nbfft vs C++ nbfft (nbfft-sine) vs mpi4py-fft on the same grids and ranks.

Run it as a driver (not under mpirun); it launches each measurement as its own MPI job::

    python python/benchmarks/compare.py --sine build/openmpi/bin/nbfft-sine \\
        --grids 32,128 --ranks 1,2,4 --mpirun "mpiexec.openmpi --oversubscribe --bind-to none"

Every number is the median over ``--iters`` iterations of one forward + one backward
transform of a real double-precision N^3 field (r2c / c2r), slab decomposition, FFTW
planned with FFTW_MEASURE, blocking exchanges; an iteration's time is the slowest rank's.

* ``C++``: nbfft-sine ``--transport blocking`` (its median ms per iteration).
* ``Python``: ``nbfft.Plan.forward(u, out=U)`` + ``backward(U, out=u)``.
* ``wrapper``: what the Python layer adds per call, measured alone: the argument checks
  plus the one-integer agreement over MPI that makes a bad argument on one rank raise on
  every rank (``Plan._pair`` + ``Plan._agree``), per forward+backward pair.
* ``mpi4py-fft``: ``PFFT(comm, (N, N, N), grid=(-1,))`` slabs, ``forward`` + ``backward``
  (skipped, and said so, when mpi4py_fft cannot be imported).
"""

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile


def worker(args):
    import numpy as np
    import nbfft
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    n = args.grid
    out = {"grid": n, "ranks": comm.size}

    def timed(step, iters):
        times = []
        for _ in range(args.warmup):
            step()
        for _ in range(iters):
            comm.Barrier()
            t0 = MPI.Wtime()
            step()
            times.append(comm.allreduce(MPI.Wtime() - t0, op=MPI.MAX))
        return float(np.median(times)), float(np.min(times))

    with nbfft.Plan(comm, (n, n, n), dtype=np.float64, transport="blocking", effort="measure") as plan:
        u = plan.empty_input()
        u[...] = np.random.default_rng(comm.rank).standard_normal(u.shape)
        U = plan.empty_output()

        def step():
            plan.forward(u, out=U)
            plan.backward(U, out=u)

        out["python_s"], out["python_min_s"] = timed(step, args.iters)

        def wrapper_only():
            for _ in range(args.wrapper_calls):
                problem, _, _, _ = plan._pair("forward", u, U, True)
                plan._agree(problem)
                problem, _, _, _ = plan._pair("backward", U, u, False)
                plan._agree(problem)

        med, _ = timed(wrapper_only, 3)
        out["wrapper_s"] = med / args.wrapper_calls

    try:
        from mpi4py_fft import PFFT, newDistArray
    except ImportError as e:
        out["mpi4py_fft"] = "not installed ({})".format(e)
    else:
        fft = PFFT(comm, (n, n, n), dtype=np.float64, grid=(-1,))
        a = newDistArray(fft, False)
        a[...] = np.random.default_rng(comm.rank).standard_normal(a.shape)
        A = newDistArray(fft, True)

        def step4():
            fft.forward(a, A)
            fft.backward(A, a)

        out["mpi4py_fft_s"], out["mpi4py_fft_min_s"] = timed(step4, args.iters)
        fft.destroy()
    if comm.rank == 0:
        print("RESULT " + json.dumps(out), flush=True)


def run(cmd, timeout):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout)
    if p.returncode != 0:
        raise RuntimeError("{} failed ({}):\n{}".format(" ".join(cmd), p.returncode, p.stdout[-3000:]))
    return p.stdout


def driver(args):
    mpirun = shlex.split(args.mpirun)
    rows = []
    for n in [int(g) for g in args.grids.split(",")]:
        for p in [int(r) for r in args.ranks.split(",")]:
            iters = args.iters if n < 256 else max(3, args.iters // 2)
            cpp = None
            if args.sine:
                with tempfile.TemporaryDirectory() as tmp:
                    js = os.path.join(tmp, "sine.json")
                    run(mpirun + ["-n", str(p), args.sine, "--grid", str(n), "--iters", str(iters), "--transport",
                                  "blocking", "--effort", "measure", "--json", js], args.timeout)
                    with open(js) as f:
                        cpp = json.load(f)[0]["time_s"]
            text = run(mpirun + ["-n", str(p), sys.executable, os.path.abspath(__file__), "--worker", "--grid", str(n),
                                 "--iters", str(iters)], args.timeout)
            res = json.loads([ln for ln in text.splitlines() if ln.startswith("RESULT ")][-1][7:])
            res["cpp_s"] = cpp
            rows.append(res)
            print(format_row(res), flush=True)
    print()
    print(table(rows))


def ms(x):
    return "{:.2f}".format(1e3 * x) if isinstance(x, (int, float)) else "-"


def format_row(r):
    return "N={grid} P={ranks}: C++ {c} ms, Python {p} ms, wrapper {w} us, mpi4py-fft {m}".format(
        grid=r["grid"], ranks=r["ranks"], c=ms(r.get("cpp_s")), p=ms(r["python_s"]),
        w="{:.1f}".format(1e6 * r["wrapper_s"] * 2), m=ms(r["mpi4py_fft_s"]) + " ms" if "mpi4py_fft_s" in r
        else r.get("mpi4py_fft"))


def table(rows):
    lines = ["| grid | ranks | C++ nbfft-sine ms | Python nbfft ms | Python - C++ | wrapper us/iter | mpi4py-fft ms |"
             " mpi4py-fft / Python |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        cpp, py = r.get("cpp_s"), r["python_s"]
        diff = "{:+.1f}%".format(100 * (py - cpp) / cpp) if cpp else "-"
        m = r.get("mpi4py_fft_s")
        ratio = "{:.2f}x".format(m / py) if m else "-"
        lines.append("| {g}^3 | {p} | {c} | {y} | {d} | {w:.1f} | {m} | {r} |".format(
            g=r["grid"], p=r["ranks"], c=ms(cpp), y=ms(py), d=diff, w=1e6 * 2 * r["wrapper_s"], m=ms(m) if m else
            "n/a", r=ratio))
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--grid", type=int, default=32, help=argparse.SUPPRESS)
    ap.add_argument("--grids", default="32,128")
    ap.add_argument("--ranks", default="1,2,4")
    ap.add_argument("--iters", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--wrapper-calls", type=int, default=200)
    ap.add_argument("--sine", default="", help="path of the C++ nbfft-sine binary (omit to skip)")
    ap.add_argument("--mpirun", default="mpiexec --oversubscribe --bind-to none")
    ap.add_argument("--timeout", type=int, default=600)
    args = ap.parse_args()
    if args.worker:
        worker(args)
    else:
        driver(args)


if __name__ == "__main__":
    main()
