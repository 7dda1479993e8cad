"""Loads the extension, then mpi4py bound to the same MPI library.

mpi4py's PyPI wheel carries one variant per MPI ABI (Open MPI, MPICH) and picks one at
import time by looking for an MPI library. With two MPIs installed (Debian allows it) it
could pick the other one than the extension was linked against: two MPI libraries in one
process. So the package tells mpi4py which library to use before it imports mpi4py.MPI,
and refuses to run if mpi4py was already imported with a different one.
"""

import os
import sys
from typing import TYPE_CHECKING, Optional, Tuple, Type

from . import _core

if TYPE_CHECKING:
    from ._errors import Error

LIBRARY_VERSION: str
LIBRARY_PATH: str
LIBRARY_VERSION, LIBRARY_PATH = _core.mpi_library()
ABI: str = "openmpi" if "Open MPI" in LIBRARY_VERSION else "mpich"

if "mpi4py.MPI" not in sys.modules:
    os.environ.setdefault("MPI4PY_MPIABI", ABI)
    if LIBRARY_PATH:
        os.environ.setdefault("MPI4PY_LIBMPI", LIBRARY_PATH)

from mpi4py import MPI  # noqa: E402

if MPI.Get_library_version().strip() != LIBRARY_VERSION.strip():
    raise ImportError(
        "nbfft was built against the MPI library at {} ({}), but mpi4py loaded {}. Import "
        "nbfft before mpi4py.MPI, or set MPI4PY_LIBMPI={} (and MPI4PY_MPIABI={}).".format(
            LIBRARY_PATH, LIBRARY_VERSION.splitlines()[0].strip(),
            MPI.Get_library_version().splitlines()[0].strip(), LIBRARY_PATH, ABI))


def handle_of(comm: MPI.Comm) -> int:
    """The C handle of an mpi4py communicator as an unsigned 64-bit integer."""
    return int(comm.handle) & 0xFFFFFFFFFFFFFFFF


def comm_problem(comm: object, what: str) -> Optional[Tuple[Type["Error"], str]]:
    """None, or (exception class, message) if ``comm`` is no usable intracommunicator."""
    from ._errors import ArgumentTypeError, InvalidArgument
    if not isinstance(comm, MPI.Comm):
        return ArgumentTypeError, "{}: comm must be an mpi4py.MPI.Comm, got {}".format(what, type(comm).__name__)
    if comm == MPI.COMM_NULL:
        return InvalidArgument, "{}: comm is MPI.COMM_NULL".format(what)
    if not isinstance(comm, MPI.Intracomm):
        return InvalidArgument, "{}: comm must be an intracommunicator, got {}".format(what, type(comm).__name__)
    return None
