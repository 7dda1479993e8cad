"""nbfft: a distributed 3D FFT for numpy arrays on mpi4py communicators.

    from mpi4py import MPI
    import numpy as np
    import nbfft

    with nbfft.Plan(MPI.COMM_WORLD, (64, 64, 64), dtype=np.float64) as plan:
        u = plan.empty_input()            # this rank's [z][y][x] block
        u[...] = ...
        U = plan.forward(u)               # this rank's [ky][kz][kx] block of rfftn(u)
        v = plan.backward(U)              # == u (norm="backward", numpy's default)

Fields go to disk and back with nbfft.io.File (parallel HDF5, docs/io.md).
See docs/python.md for the layout, the transports and the error model.
"""

from ._mpi import MPI  # noqa: F401  (loads the extension first, then mpi4py on the same MPI)
from ._errors import (ArgumentTypeError, Error, InternalError, InvalidArgument, InvalidState, IoError, MpiError,
                      OutOfMemory, RanksDisagree, Unavailable)
from ._plan import (Box, Options, Plan, TuneReport, aligned_empty, option_keys, option_rows, required_thread_level,
                    thread_level_name, transport_presets)
from ._lifetime import close_all
from ._transpose import Pencils, PencilsPending
from ._nd import NdOptions, NdPending, NdPlan
from ._request import Request
from . import _core, coll, io

__version__: str = _core.version  # CMake's project(nbfft VERSION ...), the one source

__all__ = ["Plan", "NdPlan", "NdOptions", "NdPending", "Pencils", "PencilsPending", "Request", "Box", "Options", "TuneReport", "aligned_empty", "option_keys", "option_rows", "required_thread_level",
           "thread_level_name",
           "transport_presets", "close_all", "coll", "io", "Error", "InvalidArgument", "ArgumentTypeError",
           "RanksDisagree", "Unavailable", "MpiError", "OutOfMemory", "IoError", "InvalidState",
           "InternalError"]
