"""Poisson solves between walls with nbfft's transform kinds.

Solves ``laplacian(phi) = f`` periodic in x and y on ``[0, 2*pi)^2`` with walls at
``z = 0`` and ``z = pi``:

- Dirichlet walls (``phi = 0``): a sine transform in z, ``kinds="periodic,periodic,dst2"``
  (z on cell centres), for ``phi = sin(x) cos(2y) sin(3z) + cos(3x) sin(y) sin(z)``;
- Neumann walls (``dphi/dz = 0``): a cosine transform, ``kinds="periodic,periodic,dct2"``,
  for ``phi = sin(x) cos(2y) cos(3z) + cos(3x) sin(y) cos(z) + cos(2y)``;
- a closed box ``[0, pi]^3`` with every axis r2r, ``kinds="dst1,dct2,dst2"``: the
  spectrum is real, so the arrays are float64 all the way.

Each is one forward transform, a division by ``-|k|^2`` with ``plan.wavenumbers(length=...)``
(the second derivative's eigenvalues for every kind), one backward transform; the grid
points come from ``plan.points(length=...)``. Run it with::

    mpirun -n 4 python -m mpi4py -m nbfft.examples.channel_poisson [--n 32]

It exits non-zero if an error is above 1e-10.
"""

import argparse
import sys

import numpy as np

import nbfft
from nbfft import MPI

PI = np.pi
CASES = {
    "dirichlet": ("periodic,periodic,dst2", (PI, 2 * PI, 2 * PI),
                  lambda z, y, x: np.sin(x) * np.cos(2 * y) * np.sin(3 * z) + np.cos(3 * x) * np.sin(y) * np.sin(z),
                  lambda z, y, x: -14 * np.sin(x) * np.cos(2 * y) * np.sin(3 * z)
                  - 11 * np.cos(3 * x) * np.sin(y) * np.sin(z)),
    "neumann": ("periodic,periodic,dct2", (PI, 2 * PI, 2 * PI),
                lambda z, y, x: np.sin(x) * np.cos(2 * y) * np.cos(3 * z) + np.cos(3 * x) * np.sin(y) * np.cos(z)
                + np.cos(2 * y),
                lambda z, y, x: -14 * np.sin(x) * np.cos(2 * y) * np.cos(3 * z)
                - 11 * np.cos(3 * x) * np.sin(y) * np.cos(z) - 4 * np.cos(2 * y)),
    "box": ("dst1,dct2,dst2", (PI, PI, PI),
            lambda z, y, x: np.sin(2 * x) * np.cos(y) * np.sin(3 * z) + np.sin(x) * np.sin(z),
            lambda z, y, x: -14 * np.sin(2 * x) * np.cos(y) * np.sin(3 * z) - 2 * np.sin(x) * np.sin(z)),
}


def solve(case, n, comm, transport="blocking"):
    """One case on an ``n^3`` grid; returns the max error over all ranks."""
    kinds, length, exact, source = CASES[case]
    with nbfft.Plan(comm, (n, n, n), dtype=np.float64, transport=transport, kinds=kinds) as plan:
        z, y, x = plan.points(length=length)
        f = plan.empty_input()
        f[...] = source(z, y, x)
        F = plan.forward(f)              # complex, or float64 when every axis is r2r
        kz, ky, kx = plan.wavenumbers(length=length)
        k2 = kx ** 2 + ky ** 2 + kz ** 2
        k2[k2 == 0] = 1.0                # the mean of phi is free; f has none, so F there is 0
        F /= -k2
        phi = plan.backward(F)
        want = exact(z, y, x)
        return comm.allreduce(float(np.abs(phi - want).max()) if phi.size else 0.0, op=MPI.MAX)


def main(n=32, comm=None, transport="blocking", verbose=True):
    """Runs every case; returns ``{case: max error}``."""
    comm = comm if comm is not None else MPI.COMM_WORLD
    errors = {case: solve(case, n, comm, transport) for case in CASES}
    if verbose and comm.rank == 0:
        for case, err in errors.items():
            print("channel_poisson: {:9s} kinds {:22s} {}^3 on {} ranks, max error {:.3e}".format(
                case, CASES[case][0], n, comm.size, err))
    return errors


def _cli(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=32)
    ap.add_argument("--transport", default="blocking")
    args = ap.parse_args(argv)
    errors = main(args.n, transport=args.transport)
    ok = max(errors.values()) < 1e-10
    if MPI.COMM_WORLD.rank == 0:
        print("channel_poisson: " + ("OK" if ok else "FAILED (an error above 1e-10)"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(_cli())
