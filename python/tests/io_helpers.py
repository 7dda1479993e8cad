"""What test_io.py and test_io_view.py share: a folder every rank sees, a rank's block of a
global field, bit-for-bit comparison, and a serial h5py check whose verdict every rank gets."""

import os
import tempfile

import numpy as np
import pytest

from conftest import COMM, all_ranks


@pytest.fixture
def folder():
    """A folder every rank sees (made by rank 0), removed afterwards."""
    d = tempfile.mkdtemp(prefix="nbfft_io_") if COMM.rank == 0 else None
    d = COMM.bcast(d)
    yield d
    COMM.Barrier()
    if COMM.rank == 0:
        for name in os.listdir(d):
            os.remove(os.path.join(d, name))
        os.rmdir(d)


def block(plan, g, space="physical"):
    """This rank's box of the global field g (z, y, x) in the plan's memory order."""
    box = plan.input_box if space == "physical" else plan.output_box
    return np.ascontiguousarray(g.transpose(box.perm)[box.slices])


def same_bits(a, b):
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


def serial(path, check):
    """check(h5py.File) on rank 0; its verdict on every rank."""
    ok = True
    if COMM.rank == 0:
        import h5py
        with h5py.File(path, "r") as h:
            ok = check(h)
    return all_ranks(ok)
