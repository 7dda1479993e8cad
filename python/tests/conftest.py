"""Shared fixtures of the MPI test suite (run through mpi_pytest.py under mpiexec)."""

import os

import numpy as np
import pytest

import nbfft
from mpi4py import MPI

COMM = MPI.COMM_WORLD
_REPORT_FD = int(os.environ.get("NBFFT_TEST_REPORT_FD", "-1"))


def pytest_runtest_logreport(report):
    # Non-root ranks print nothing else; a failure still names its rank and test.
    if _REPORT_FD >= 0 and report.failed:
        line = "rank {} FAILED {} ({}): {}\n".format(COMM.rank, report.nodeid, report.when,
                                                     str(report.longrepr).strip().splitlines()[-1:])
        os.write(_REPORT_FD, line.encode())


@pytest.fixture
def comm():
    return COMM


def all_ranks(ok):
    """True on every rank iff ``ok`` is true on every rank (so asserts agree and -x stops everyone)."""
    return bool(COMM.allreduce(bool(ok), op=MPI.LAND))


def global_field(shape, dtype, seed=7):
    """The same random global field on every rank."""
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    f = rng.standard_normal(shape)
    if dtype.kind == "c":
        f = f + 1j * rng.standard_normal(shape)
    return f.astype(dtype)


def tolerance(dtype):
    return 2e-5 if np.dtype(dtype) in (np.dtype(np.float32), np.dtype(np.complex64)) else 1e-11


def assert_close_everywhere(local, expected, dtype):
    """Compares a local block with its expected values; every rank asserts the same outcome."""
    scale = max(1.0, float(np.abs(expected).max()) if expected.size else 1.0)
    err = float(np.abs(local - expected).max()) / scale if local.size else 0.0
    worst = COMM.allreduce(err, op=MPI.MAX)
    assert worst <= tolerance(dtype), "max relative error {:.3g} > {:.3g}".format(worst, tolerance(dtype))


def raises_everywhere(exc_type, fn):
    """Runs fn on every rank; asserts that every rank raised exc_type and returns the errors."""
    try:
        fn()
        got = None
    except Exception as e:  # noqa: BLE001 - the type is what is tested
        got = e
    ok = isinstance(got, exc_type)
    assert all_ranks(ok), "rank {} got {!r}, wanted {}".format(COMM.rank, got, exc_type.__name__)
    return got
