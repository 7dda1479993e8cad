# Issue 34: plan time of one plan in a fresh process (no FFTW wisdom yet), docs/fft.md "Defaults".
# mpiexec -n 1 python bench/defaults/plan_time.py 3d|nd N estimate|measure
"""Plan time of effort=estimate vs measure in a fresh process (no FFTW wisdom yet): argv shape, effort, kind (3d|nd)."""
import sys, time
import numpy as np
from mpi4py import MPI
import nbfft
comm = MPI.COMM_WORLD
kind, n, effort = sys.argv[1], int(sys.argv[2]), sys.argv[3]
comm.Barrier(); t = time.perf_counter()
p = nbfft.Plan(comm, (n, n, n), effort=effort) if kind == "3d" else nbfft.NdPlan(comm, (n, n), effort=effort)
comm.Barrier(); tp = time.perf_counter() - t
if comm.rank == 0:
    print("%s %d %s plan %.3f s" % (kind, n, effort, tp), flush=True)
