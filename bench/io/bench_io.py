"""Field I/O against its peers, one interleaved run (issue 23, deliverable 7; make bench-io).

Run it as a driver (not under mpirun)::

    python bench/io/bench_io.py --build build/openmpi --grids 256,512 --ranks 1,2,4 \\
        --mpirun "mpiexec.openmpi --oversubscribe --bind-to none"

For each grid and rank count, every round runs each variant once, in turn (the first of a
round rotates so that none always runs first), each as its own job writing one double
field of n^3 to a file in --dir and reading it back:

* ``nbfft``: ``nbfft-io-bench`` (bench/io/io_bench.cpp): ``H5File(Create)`` + ``write`` +
  ``close()`` (collective, rename over the target) without fsync (``H5Options::sync =
  false``; the others do not sync either), then ``H5File`` + ``read``; ``nbfft+fsync``: the
  same with the default close, which fsyncs before renaming (a checkpoint that survives a
  crash of the machine).
* ``nbfft-hdf5``: ``nbfft`` with every box through HDF5's collective transfer
  (``NBFFT_IO_OWN_WRITES=0``: the write path before each rank wrote its own runs), for the
  before/after comparison; not run unless named in ``--variants``.
* ``mpi4py-fft``: ``DistArray.write(file, "u", 0)`` and ``DistArray.read`` of a
  ``newDistArray(PFFT(comm, (n, n, n)), False)`` on parallel h5py (HDF5File, which opens
  and closes the file in each call).
* ``numpy``: one process, ``ndarray.tofile`` / ``numpy.fromfile`` of the same n^3 doubles
  (the disk's practical limit for one stream).

Each time is taken between barriers inside the job (the slowest rank's), so MPI start-up
is not in it. The files go to --dir (default /tmp, whose bytes land in the page cache
first: these are page-cache numbers unless fsync is said) and are removed after each run.
Reported: median and min-max over the rounds; and per grid the checks of the issue's
targets (nbfft's write at most mpi4py-fft's and at most 1.5x numpy's).
"""

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys

VARIANTS = ("nbfft", "nbfft+fsync", "nbfft-hdf5", "mpi4py-fft", "numpy")


def peer_worker(args):
    """One mpi4py-fft write + read (under mpirun)."""
    import numpy as np
    from mpi4py import MPI
    from mpi4py_fft import PFFT, newDistArray

    comm = MPI.COMM_WORLD
    n = args.grid
    fft = PFFT(comm, (n, n, n), dtype=np.float64, grid=(-1,))
    u = newDistArray(fft, False)
    u[...] = np.sin(np.arange(u.size, dtype=np.float64).reshape(u.shape) * 0.001)
    back = newDistArray(fft, False)
    if comm.rank == 0 and os.path.exists(args.path):
        os.remove(args.path)
    comm.Barrier()
    t0 = MPI.Wtime()
    u.write(args.path, "u", 0)
    comm.Barrier()
    write = comm.allreduce(MPI.Wtime() - t0, op=MPI.MAX)
    t0 = MPI.Wtime()
    back.read(args.path, "u", 0)
    comm.Barrier()
    read = comm.allreduce(MPI.Wtime() - t0, op=MPI.MAX)
    bad = comm.allreduce(int(not np.array_equal(back, u)), op=MPI.SUM)
    if bad:
        raise SystemExit("mpi4py-fft: the field read back differs")
    if comm.rank == 0:
        os.remove(args.path)
        print(json.dumps({"write": write, "read": read}))


def numpy_worker(args):
    """One process streams the n^3 doubles out and back in."""
    import time

    import numpy as np

    n = args.grid
    u = np.sin(np.arange(n * n * n, dtype=np.float64) * 0.001)
    t0 = time.perf_counter()
    u.tofile(args.path)
    write = time.perf_counter() - t0
    t0 = time.perf_counter()
    back = np.fromfile(args.path, dtype=np.float64)
    read = time.perf_counter() - t0
    if not np.array_equal(back, u):
        raise SystemExit("numpy: the field read back differs")
    os.remove(args.path)
    print(json.dumps({"write": write, "read": read}))


def last_json(text):
    for line in reversed(text.splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    raise RuntimeError("no result in:\n" + text)


def run_variant(args, variant, n, p):
    path = os.path.join(args.dir, f"nbfft-bench-io-{os.getpid()}-{variant.replace('+', '-')}.h5")
    mpirun = shlex.split(args.mpirun)
    env = dict(os.environ)
    if variant.startswith("nbfft"):
        cmd = mpirun + ["-n", str(p), os.path.join(args.build, "bin", "nbfft-io-bench"), "--grid", str(n), "--path", path]
        if variant in ("nbfft", "nbfft-hdf5"):
            cmd.append("--no-sync")
        if variant == "nbfft-hdf5":
            env["NBFFT_IO_OWN_WRITES"] = "0"  # local ranks inherit mpirun's environment
    elif variant == "mpi4py-fft":
        cmd = mpirun + ["-n", str(p), sys.executable, os.path.abspath(__file__), "--worker", "peer", "--grid", str(n),
                        "--path", path]
    else:
        cmd = [sys.executable, os.path.abspath(__file__), "--worker", "numpy", "--grid", str(n), "--path", path]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600, env=env)
    if proc.returncode != 0:
        raise RuntimeError(f"{variant} at n={n}, {p} ranks failed ({proc.returncode}):\n{proc.stdout}")
    return last_json(proc.stdout)


def fmt(ts):
    return f"{statistics.median(ts):.3f} ({min(ts):.3f}-{max(ts):.3f})"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--worker", choices=("peer", "numpy"))
    ap.add_argument("--grid", type=int)
    ap.add_argument("--path")
    ap.add_argument("--grids", default="256,512")
    ap.add_argument("--ranks", default="1,2,4")
    ap.add_argument("--rounds", type=int, default=5, help="rounds at grids below 512 (default 5)")
    ap.add_argument("--rounds-large", type=int, default=3, help="rounds at 512^3 and above (default 3)")
    ap.add_argument("--build", default="build/openmpi")
    ap.add_argument("--dir", default="/tmp")
    ap.add_argument("--mpirun", default="mpiexec --oversubscribe --bind-to none")
    ap.add_argument("--json", help="write every round's times here")
    ap.add_argument("--variants", default=",".join(v for v in VARIANTS if v != "nbfft-hdf5"),
                    help="which variants run (default all but nbfft-hdf5: " + ",".join(VARIANTS) +
                    "); mpi4py-fft needs parallel h5py")
    args = ap.parse_args()
    if args.worker == "peer":
        return peer_worker(args)
    if args.worker == "numpy":
        return numpy_worker(args)

    variants = tuple(v for v in VARIANTS if v in args.variants.split(","))
    if not variants or len(variants) != len(args.variants.split(",")):
        ap.error(f"--variants takes a comma-separated subset of {','.join(VARIANTS)}")
    grids = [int(g) for g in args.grids.split(",")]
    ranks = [int(r) for r in args.ranks.split(",")]
    results = []
    print(f"field I/O: one double field of n^3, files in {args.dir} (page cache unless fsync), "
          f"median (min-max) seconds over interleaved rounds")
    print("| n | ranks | MiB | variant | write | read |")
    print("|---|---|---|---|---|---|")
    verdicts = []
    for n in grids:
        for p in ranks:
            rounds = args.rounds if n < 512 else args.rounds_large
            times = {v: {"write": [], "read": []} for v in variants}
            extra = {"write_call": [], "checksum": []}
            for r in range(rounds):
                order = variants[r % len(variants):] + variants[:r % len(variants)]
                for v in order:
                    res = run_variant(args, v, n, p)
                    times[v]["write"].append(res["write"])
                    times[v]["read"].append(res["read"])
                    if v == "nbfft":
                        extra["write_call"].append(res["write_call"])
                        extra["checksum"].append(res["checksum"])
                    results.append({"grid": n, "ranks": p, "variant": v, "round": r, **res})
            mib = n ** 3 * 8 / 2 ** 20
            for v in variants:
                print(f"| {n}^3 | {p} | {mib:.0f} | {v} | {fmt(times[v]['write'])} | {fmt(times[v]['read'])} |")
            if extra["write_call"]:
                print(f"|  |  |  | (nbfft: write() call alone {fmt(extra['write_call'])}, "
                      f"checksum pass {fmt(extra['checksum'])}) |  |  |", flush=True)
            w = {v: statistics.median(times[v]["write"]) for v in variants}
            if "nbfft" in w:
                peers = [f"{w['nbfft'] / w[v]:.2f}x {name}" for v, name in (
                    ("nbfft-hdf5", "nbfft through HDF5's transfer"), ("mpi4py-fft", "mpi4py-fft"),
                    ("numpy", "numpy.tofile")) if v in w]
                if "numpy" in w:  # the per-round ratios: rounds are interleaved, so each pair shares its moment
                    r = sorted(a / b for a, b in zip(times["nbfft"]["write"], times["numpy"]["write"]))
                    peers.append(f"per round {r[0]:.2f}-{r[-1]:.2f}x numpy")
                verdicts.append(f"{n}^3 at {p} ranks: nbfft write {w['nbfft']:.3f} s" + (" = " + ", ".join(peers) if peers else ""))
    print()
    for line in verdicts:
        print(line)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
