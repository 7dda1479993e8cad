"""``python -m nbfft``: what this nbfft is, and a self-test.

::

    python -m nbfft                       # version, MPI library and thread levels, FFTW,
                                          # build options, engines/transports/algorithms
    mpirun -n 4 python -m nbfft --test    # a small verified transform on every rank

The description is the C API's ``nbfft_build_info()`` text (the same as
``nbfft-sine --version``) plus the Python side: interpreter, numpy, mpi4py and the thread
level mpi4py asked for. Under mpirun only rank 0 prints it.

``--test`` runs forward and backward transforms of a small uneven grid (11 x 10 x 9) in
double, single and complex precision, with the blocking transport and, when MPI provides
MPI_THREAD_MULTIPLE, one on the thread engine, and compares each rank's block with
``numpy.fft`` of the same global array. Every rank checks its own block; the worst error
over all ranks decides, so every rank exits 0 (passed) or 1 (failed) together.
"""

import argparse
import math
import platform
import sys
from typing import List, Optional, Sequence, TextIO, Tuple

import numpy as np
import numpy.typing as npt

import mpi4py

from . import _core
from ._mpi import LIBRARY_PATH, MPI
from ._plan import Plan, required_thread_level, thread_level_name

SHAPE = (11, 10, 9)  # (nz, ny, nx): uneven, one prime, so blocks differ between ranks
TOLERANCE = {np.dtype(np.float64): 1e-12, np.dtype(np.complex128): 1e-12, np.dtype(np.float32): 1e-5}


def describe() -> str:
    """The build description of ``nbfft_build_info()`` and the Python side, as lines."""
    try:
        provided = thread_level_name(MPI.Query_thread())
    except MPI.Exception:  # pragma: no cover - MPI finalized
        provided = "MPI not running"
    lines = [
        _core.build_info().rstrip("\n"),
        "MPI library file: {}".format(LIBRARY_PATH or "unknown"),
        "Python: {} {}, numpy {}, mpi4py {} (asked for MPI thread level '{}', got {})".format(
            platform.python_implementation(), platform.python_version(), np.__version__, mpi4py.__version__,
            mpi4py.rc.thread_level, provided),
        "extension: {}".format(_core.__file__),
    ]
    return "\n".join(lines) + "\n"


def _errors(plan: Plan, g: npt.NDArray[np.generic]) -> Tuple[float, float]:
    """(forward error vs numpy.fft, round-trip error), relative to the largest value."""
    u = np.ascontiguousarray(g[plan.input_box.slices], dtype=plan.in_dtype)
    spectrum = np.fft.rfftn(g) if plan.transform == "r2c" else np.fft.fftn(g)
    want = np.ascontiguousarray(spectrum.transpose(plan.output_box.perm)[plan.output_box.slices])
    U = plan.forward(u)
    v = plan.backward(U)
    scale_f = max(float(np.abs(spectrum).max()), 1e-300)
    scale_u = max(float(np.abs(g).max()), 1e-300)
    forward = float(np.abs(U - want).max()) / scale_f if U.size else 0.0
    back = float(np.abs(v - u).max()) / scale_u if v.size else 0.0
    return forward, back


def self_test(comm: MPI.Intracomm, tolerance: Optional[float] = None, out: Optional[TextIO] = None) -> bool:
    """Runs the self-test on ``comm`` (collective); True on every rank when every case passed."""
    out = sys.stdout if out is None else out
    rank, size = comm.Get_rank(), comm.Get_size()
    transports = ["blocking"]
    if MPI.Query_thread() >= required_thread_level("pairwise:2@thread"):
        transports.append("pairwise:2@thread")
    rng = np.random.default_rng(17)  # the same global array on every rank
    real = rng.standard_normal(SHAPE)
    cplx = real + 1j * rng.standard_normal(SHAPE)
    cases: List[Tuple[npt.DTypeLike, str]] = [(np.float64, t) for t in transports]
    cases += [(np.complex128, "blocking"), (np.float32, "blocking")]
    ok = True
    for dtype, transport in cases:
        dt = np.dtype(dtype)
        g = (cplx if dt.kind == "c" else real).astype(dt)
        with Plan(comm, SHAPE, dtype=dt, transport=transport) as plan:
            mine = _errors(plan, g)
            worst = comm.allreduce(max(mine), op=MPI.MAX)
            limit = TOLERANCE[dt] if tolerance is None else tolerance
            passed = worst <= limit
            ok = ok and passed
            if rank == 0:
                m1, m2 = plan.grid
                print("nbfft self-test: {} {} on {} rank(s), grid {}x{}, transport {}: max error {:.1e} "
                      "(limit {:.0e}) {}".format(plan.transform, dt, size, m1, m2, transport, worst, limit,
                                                 "ok" if passed else "FAILED"), file=out, flush=True)
    if rank == 0:
        print("nbfft self-test: {} ({} cases, {} rank(s))".format("passed" if ok else "FAILED", len(cases), size),
              file=out, flush=True)
    return ok


def main(argv: Optional[Sequence[str]] = None) -> int:
    """``python -m nbfft [--test [--tolerance T]]``; returns the exit code."""
    parser = argparse.ArgumentParser(prog="python -m nbfft", description=__doc__.split("\n\n")[0].strip("`"))
    parser.add_argument("--test", action="store_true", help="run a small verified transform on every rank")
    parser.add_argument("--tolerance", type=float, default=None,
                        help="fail above this relative error (default 1e-12 double, 1e-5 single)")
    args = parser.parse_args(argv)
    if args.tolerance is not None and not (args.tolerance >= 0 and math.isfinite(args.tolerance)):
        # inf (or nan) would be a self-test that cannot fail
        parser.error("--tolerance must be a finite number >= 0, got {}".format(args.tolerance))
    if args.tolerance is not None and not args.test:
        parser.error("--tolerance applies to --test only (python -m nbfft --test --tolerance T)")
    comm = MPI.COMM_WORLD
    if not args.test:
        if comm.Get_rank() == 0:
            sys.stdout.write(describe())
        return 0
    if comm.Get_rank() == 0:
        sys.stdout.write(describe())
    return 0 if self_test(comm, args.tolerance) else 1


if __name__ == "__main__":
    sys.exit(main())
