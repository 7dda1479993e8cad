"""Spectral Poisson solve on a periodic box with nbfft.

Solves ``laplacian(phi) = f`` on ``[0, 2*pi)^3`` for the manufactured solution
``phi = sin(x) cos(2y) sin(3z)`` (so ``f = -14 phi``): one forward transform of ``f``,
a division by ``-|k|^2`` in spectral space, one backward transform; the result is compared
with ``phi`` on every rank. Run it with::

    mpirun -n 4 python -m mpi4py -m nbfft.examples.poisson [--n 64] [--transport thread]

(``python -m mpi4py`` turns an uncaught exception on one rank into ``MPI_Abort`` of the
whole job instead of a hang: docs/python.md, "An exception on one rank").

It exits non-zero if the error is above 1e-10.
"""

import argparse
import sys

import numpy as np

import nbfft
from nbfft import MPI


def grid_coordinates(plan):
    """Physical coordinates of this rank's input block, broadcastable: (z, y, x)."""
    nz, ny, nx = plan.shape
    box = plan.input_box
    z, y, x = (2 * np.pi * np.arange(s.start, s.stop) / n for s, n in zip(box.slices, (nz, ny, nx)))
    return z[:, None, None], y[None, :, None], x[None, None, :]


def main(n=64, comm=None, transport="blocking", verbose=True):
    """Solves the Poisson problem on an ``n^3`` grid and returns the max error.

    Parameters
    ----------
    n : int
        Grid points per direction.
    comm : mpi4py.MPI.Intracomm, optional
        Defaults to ``MPI.COMM_WORLD``.
    transport : str
        nbfft transport of both exchanges.
    verbose : bool
        Rank 0 prints the plan and the error.

    Returns
    -------
    float
        ``max |phi_numeric - phi_exact|`` over all ranks.
    """
    comm = comm if comm is not None else MPI.COMM_WORLD
    with nbfft.Plan(comm, (n, n, n), dtype=np.float64, transport=transport) as plan:
        z, y, x = grid_coordinates(plan)
        phi = np.sin(x) * np.cos(2 * y) * np.sin(3 * z)
        f = plan.empty_input()
        f[...] = -14.0 * phi

        F = plan.forward(f)
        kz, ky, kx = plan.wavenumbers()
        k2 = kx ** 2 + ky ** 2 + kz ** 2
        k2[k2 == 0] = 1.0          # the mean of phi is free; f has none, so F there is 0
        F /= -k2
        solution = plan.backward(F)

        err = comm.allreduce(float(np.abs(solution - phi).max()) if phi.size else 0.0, op=MPI.MAX)
        if verbose and comm.rank == 0:
            print(plan)
            print("poisson: {}^3 on {} ranks, max error {:.3e}".format(n, comm.size, err))
    return err


def _cli(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=64)
    ap.add_argument("--transport", default="blocking")
    args = ap.parse_args(argv)
    err = main(args.n, transport=args.transport)
    ok = err < 1e-10
    if MPI.COMM_WORLD.rank == 0:
        print("poisson: " + ("OK" if ok else "FAILED (error above 1e-10)"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(_cli())
