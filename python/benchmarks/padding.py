"""Padded transform (``padding=1.5``) against padding by hand, in one interleaved run.

Run it under MPI::

    mpirun -n 2 python python/benchmarks/padding.py --n 96 --iters 20

Each iteration times, one after the other on the same ranks (the slowest rank's time):

* ``padded``: ``Plan((n,)*3, padding=1.5)``: ``backward(U)`` of the n^3 spectrum onto the
  (3n/2)^3 grid, then ``forward`` back to the n^3 spectrum (the dealiasing round trip).
* ``by hand``: a plan of the (3n/2)^3 grid whose spectrum the user keeps zero outside the
  n^3 modes: zero them (the padding), ``backward``, ``forward``, zero them again (the
  truncation). The spectrum stays in the large plan's layout, so no data is moved between
  ranks to pad; the cheapest way to pad by hand with a distributed FFT.
* ``m^d only``: that plan's backward + forward alone, without the zeroing (the transforms'
  share of ``by hand``).

r2c, double, default process grid (``--grid 2x1``: another), FFTW_MEASURE, blocking exchanges. Prints medians and
minima in ms and the ratio. ``--nd D``: the same with ``NdPlan`` of D dimensions (its own
steps, or the 3-D plan inside for D = 3), ``--n`` points per axis, ``--grid`` ranks per axis.
"""

import argparse
import time

import numpy as np

import nbfft
from mpi4py import MPI


def band_mask(plan, n):
    """True at this rank's output points whose mode is one of the n-grid's (|k| < n/2, or n/2)."""
    keep = lambda k: (k >= -((n - 1) // 2)) & (k <= n // 2)  # noqa: E731 - numpy order of n modes
    mask = True
    for k in plan.wavenumbers():
        mask = mask & keep(k)
    return mask


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=96)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--grid", default=None, help="process grid M1xM2 of both plans (default: nbfft's choice)")
    ap.add_argument("--nd", type=int, default=0, help="NdPlan of this many dimensions instead of the 3-D Plan")
    args = ap.parse_args()
    grid = tuple(int(g) for g in args.grid.split("x")) if args.grid else None
    comm = MPI.COMM_WORLD
    n = args.n
    m = int(np.floor(1.5 * n))
    rng = np.random.default_rng(comm.rank)
    if args.nd:
        padded = nbfft.NdPlan(comm, (n,) * args.nd, grid=grid, padding=1.5)
        big = nbfft.NdPlan(comm, (m,) * args.nd, grid=grid)
        empty_in = lambda p: np.empty(p.in_shape, p.in_dtype)  # noqa: E731
        empty_out = lambda p: np.empty(p.out_shape, p.out_dtype)  # noqa: E731
    else:
        padded = nbfft.Plan(comm, (n, n, n), grid=grid, padding=1.5)
        big = nbfft.Plan(comm, (m, m, m), grid=grid)
        empty_in = lambda p: p.empty_input()  # noqa: E731
        empty_out = lambda p: p.empty_output()  # noqa: E731
    with padded, big:
        U = empty_out(padded)
        U[...] = rng.standard_normal(U.shape) + 1j * rng.standard_normal(U.shape)
        u, U2 = empty_in(padded), empty_out(padded)
        V = empty_out(big)
        V[...] = rng.standard_normal(V.shape) + 1j * rng.standard_normal(V.shape)
        v = empty_in(big)
        mask = band_mask(big, n)

        def run_padded():
            padded.backward(U, out=u)
            padded.forward(u, out=U2)

        def run_by_hand():
            V[...] *= mask
            big.backward(V, out=v)
            big.forward(v, out=V)
            V[...] *= mask

        def run_big():
            big.backward(V, out=v)
            big.forward(v, out=V)

        runs = (("padded", run_padded), ("by hand", run_by_hand), ("m^d only", run_big))
        times = {name: [] for name, _ in runs}
        for it in range(args.warmup + args.iters):
            for name, fn in runs:
                comm.Barrier()
                t0 = time.perf_counter()
                fn()
                dt = comm.allreduce(time.perf_counter() - t0, op=MPI.MAX)
                if it >= args.warmup:
                    times[name].append(dt * 1e3)
        if comm.rank == 0:
            d = args.nd or 3
            print("padded round trip {n}^{d} spectrum on {m}^{d} ({w}), {p} ranks, grid {g}, {k} interleaved "
                  "iterations".format(n=n, m=m, d=d, w="NdPlan" if args.nd else "Plan", p=comm.size,
                                      g="x".join(map(str, padded.grid)), k=args.iters))
            for name, t in times.items():
                print("  {:8s} median {:8.2f} ms   min {:8.2f} ms".format(name, np.median(t), np.min(t)))
            print("  by hand / padded: {:.2f}x (median)".format(np.median(times["by hand"]) / np.median(times["padded"])))


if __name__ == "__main__":
    main()
