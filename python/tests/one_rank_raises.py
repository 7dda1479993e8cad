"""Run by `make python-test` as ``mpirun -n 2 python -m mpi4py one_rank_raises.py``: rank 1
raises in the user's own code while rank 0 goes on into a collective transform. Under
``python -m mpi4py`` the uncaught exception calls MPI_Abort and the job ends at once with a
non-zero exit; run as plain ``python`` the same job hangs (rank 1 finalizes MPI at exit and
waits for rank 0, which waits in the transform for rank 1). docs/python.md, "An exception on
one rank". Not a pytest file: it must end the whole job.
"""

import numpy as np

import nbfft
from nbfft import MPI

comm = MPI.COMM_WORLD
with nbfft.Plan(comm, (16, 12, 10), dtype=np.float64) as plan:
    u = plan.empty_input()
    u[...] = 1.0
    if comm.rank == 1:
        raise RuntimeError("one_rank_raises: the user's own code fails on rank 1 (expected)")
    plan.forward(u)
print(f"one_rank_raises: rank {comm.rank} finished, but the job should have been aborted", flush=True)
