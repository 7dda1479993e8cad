"""A dealiased nonlinear term with nbfft's padded transforms (the 3/2 rule).

A spectral code holds its fields as spectra of an ``n^3`` grid and needs the spectrum of a
product ``w = u v``. Multiplying on the ``n^3`` grid aliases: product modes beyond n/2 fold
back onto kept ones. A plan with ``padding=1.5`` transforms the spectra backward onto the
``(3n/2)^3`` grid (zero-padding them stage by stage, with no padded spectrum in any
exchange), the product is taken there, and forward truncates it back to the ``n`` modes:
exactly the modes of the alias-free product.

Here ``u = cos(6x) cos(5y) cos(7z)`` and ``v = cos(5x) cos(6y) cos(4z)`` on ``n = 16``; their
product is ``(cos x + cos 11x)(cos y + cos 11y)(cos 3z + cos 11z) / 8``, whose modes below
n/2 = 8 are ``cos(x) cos(y) cos(3z) / 8``: the dealiased result, checked on every rank, while
the product taken on the 16^3 grid is off by O(1). Run it with::

    mpirun -n 4 python -m mpi4py -m nbfft.examples.dealias [--n 16]

It exits non-zero if the dealiased error is above 1e-12.
"""

import argparse
import sys

import numpy as np

import nbfft
from nbfft import MPI


def coordinates(plan):
    """Physical coordinates of this rank's input block on the plan's (padded) grid: (z, y, x)."""
    box = plan.input_box
    z, y, x = (2 * np.pi * np.arange(s.start, s.stop) / m for s, m in zip(box.slices, plan.shape))
    return z[:, None, None], y[None, :, None], x[None, None, :]


def fields(plan):
    z, y, x = coordinates(plan)
    u = np.cos(6 * x) * np.cos(5 * y) * np.cos(7 * z)
    v = np.cos(5 * x) * np.cos(6 * y) * np.cos(4 * z)
    return u, v, np.cos(x) * np.cos(y) * np.cos(3 * z) / 8


def main(n=16, comm=None, verbose=True):
    """Returns (dealiased error, aliased error), max over ranks, on an ``n^3`` spectrum (n >= 16)."""
    comm = comm if comm is not None else MPI.COMM_WORLD
    with nbfft.Plan(comm, (n, n, n), effort="estimate") as plain, \
            nbfft.Plan(comm, (n, n, n), grid=plain.grid, padding=1.5, effort="estimate") as padded:
        assert plain.output_box == padded.output_box  # the same grid: the same spectrum boxes
        # The spectra of u and v (the state a spectral code holds), from the fields on the n grid.
        u, v, exact = fields(plain)
        U, V = plain.forward(u), plain.forward(v)

        # Dealiased: backward onto the 3/2 grid, multiply there, forward truncates back.
        W = padded.forward(padded.backward(U) * padded.backward(V))
        # Aliased, for comparison: the product on the n grid.
        W_aliased = plain.forward(plain.backward(U) * plain.backward(V))

        def error(spectrum):
            local = float(np.abs(plain.backward(spectrum) - exact).max()) if exact.size else 0.0
            return comm.allreduce(local, op=MPI.MAX)

        err, aliased = error(W), error(W_aliased)
        if verbose and comm.rank == 0:
            print(padded)
            print("dealias: {}^3 spectrum on a {} grid, {} ranks: dealiased product error {:.2e}, "
                  "aliased (no padding) {:.2e}".format(n, "x".join(map(str, padded.shape)), comm.size, err, aliased))
    return err, aliased


def _cli(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=16)
    args = ap.parse_args(argv)
    err, _ = main(args.n)
    ok = err < 1e-12
    if MPI.COMM_WORLD.rank == 0:
        print("dealias: " + ("OK" if ok else "FAILED (error above 1e-12)"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(_cli())
