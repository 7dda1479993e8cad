"""Runs pytest on every rank of an MPI job; only rank 0 prints pytest's report.

    mpiexec -n 4 python python/tests/mpi_pytest.py -q -x python/tests

Every rank runs every test (the tests are collective). Other ranks keep quiet but print a
one-line "rank r FAILED <test>" to stderr for each failure, and every rank exits with its
own pytest status, so mpiexec fails the run if any rank failed (a rank still running 30 s
after another finished is aborted). "No tests collected"
(pytest's status 5) is a failure too: a test run that tests nothing cannot fail.
"""

import os
import sys
import time

import nbfft  # noqa: F401  (before mpi4py.MPI: binds mpi4py to the extension's MPI)
from mpi4py import MPI

import pytest


def main():
    rank = MPI.COMM_WORLD.Get_rank()
    args = sys.argv[1:]
    if rank != 0:
        os.environ["NBFFT_TEST_REPORT_FD"] = str(os.dup(2))
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        args = ["-p", "no:cacheprovider"] + args
    rc = int(pytest.main(args))
    if rc == 5:
        if rank == 0:
            print("mpi_pytest: pytest collected no tests; failing (a run that tests nothing cannot fail)",
                  file=sys.stderr)
        rc = 1
    sys.stdout.flush()
    # A rank that stopped early (a failure only it saw, with -x) must not leave the others
    # blocked in a collective until their timeouts: wait a while for everyone, then abort.
    done = MPI.COMM_WORLD.Ibarrier()
    deadline = time.monotonic() + 30
    while not done.Test():
        if time.monotonic() > deadline:
            sys.stderr.write("mpi_pytest: rank {} finished (status {}) but other ranks are still running "
                             "after 30 s; aborting the job\n".format(rank, rc))
            sys.stderr.flush()
            MPI.COMM_WORLD.Abort(rc or 1)
        time.sleep(0.01)
    sys.exit(rc)


if __name__ == "__main__":
    main()
