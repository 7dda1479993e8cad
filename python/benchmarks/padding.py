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
* ``m3 only``: that plan's backward + forward alone, without the zeroing (the transforms'
  share of ``by hand``).

r2c, double, default process grid (``--grid 2x1``: another), FFTW_MEASURE, blocking exchanges. Prints medians and
minima in ms and the ratio.
"""

import argparse
import time

import numpy as np

import nbfft
from mpi4py import MPI


def band_mask(plan, n):
    """True at this rank's output points whose mode is one of the n-grid's (|k| < n/2, or n/2)."""
    kz, ky, kx = plan.wavenumbers()
    keep = lambda k: (k >= -((n - 1) // 2)) & (k <= n // 2)  # noqa: E731 - numpy order of n modes
    return keep(kz) & keep(ky) & keep(kx)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=96)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--grid", default=None, help="process grid M1xM2 of both plans (default: nbfft's choice)")
    args = ap.parse_args()
    grid = tuple(int(g) for g in args.grid.split("x")) if args.grid else None
    comm = MPI.COMM_WORLD
    n = args.n
    m = int(np.floor(1.5 * n))
    rng = np.random.default_rng(comm.rank)
    with nbfft.Plan(comm, (n, n, n), grid=grid, padding=1.5) as padded, nbfft.Plan(comm, (m, m, m), grid=grid) as big:
        U = padded.empty_output()
        U[...] = rng.standard_normal(U.shape) + 1j * rng.standard_normal(U.shape)
        u, U2 = padded.empty_input(), padded.empty_output()
        V = big.empty_output()
        V[...] = rng.standard_normal(V.shape) + 1j * rng.standard_normal(V.shape)
        v = big.empty_input()
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

        runs = (("padded", run_padded), ("by hand", run_by_hand), ("m3 only", run_big))
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
            print("padded round trip {n}^3 spectrum on {m}^3, {p} ranks, grid {g}, {k} interleaved iterations".format(
                n=n, m=m, p=comm.size, g="x".join(map(str, padded.grid)), k=args.iters))
            for name, t in times.items():
                print("  {:8s} median {:8.2f} ms   min {:8.2f} ms".format(name, np.median(t), np.min(t)))
            print("  by hand / padded: {:.2f}x (median)".format(np.median(times["by hand"]) / np.median(times["padded"])))


if __name__ == "__main__":
    main()
