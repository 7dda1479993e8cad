"""nbfft.io.Layout: an NdPlan's fields (2-D r2c, and a 4-D batch spectrum), a transpose's
pencils and a user's own blocks written at P ranks and read back at every k <= P ranks
through the same File.write / read / write_start as a 3-D plan's, element by element
against the global array; a 3-D plan's file read through its layout; bad layouts and blocks
failing on every rank."""

import numpy as np
import pytest

import nbfft
from conftest import COMM, all_ranks, global_field, raises_everywhere
from io_helpers import folder  # noqa: F401 (a fixture)
from mpi4py import MPI

P = COMM.size
pytestmark = pytest.mark.skipif(not nbfft.io.hdf5_available(), reason="built without parallel HDF5")


def block_of(lay, g):
    """This rank's block of the global array g under a natural-order layout."""
    sl = tuple(slice(s, s + e) for s, e in zip(lay.start, lay.extent))
    return np.ascontiguousarray(g[sl])


def each_k(comm, body):
    """body(sub) on the first k ranks for every k <= P; asserts every rank's verdict."""
    for k in range(1, P + 1):
        sub = comm.Split(0 if comm.rank < k else MPI.UNDEFINED, comm.rank)
        good = True
        if sub != MPI.COMM_NULL:
            good = body(sub)
            sub.Free()
        assert all_ranks(good), "a block read at {} ranks differs".format(k)


def test_ndplan_fields_restart_at_other_rank_counts(comm, folder):
    path = folder + "/nd.h5"
    g = global_field((7, 9), np.float64)
    with nbfft.NdPlan(comm, (7, 9)) as p, nbfft.io.File(comm, path, "w", xdmf=False) as f:
        lay = nbfft.io.Layout.of(p, "physical")
        u = block_of(lay, g)
        f.write(p, "u", u, step=0)                      # an NdPlan stands for its own layout
        f.write(lay, "u", 2 * u, step=1, time=0.5)      # or its layout, explicitly
        w = f.write_start(p, "U", p.forward(u), step=0, space="spectral")
        assert isinstance(w, nbfft.Request)
        w.wait()
    U_glob = np.fft.rfftn(g)

    def read_back(sub):
        with nbfft.NdPlan(sub, (7, 9)) as q, nbfft.io.File(sub, path) as f:
            lay = nbfft.io.Layout.of(q, "physical")
            ok = np.array_equal(f.read(q, "u", 0), block_of(lay, g))
            ok &= np.array_equal(f.read(lay, "u"), block_of(lay, 2 * g))  # the last step
            U = f.read(q, "U", 0, space="spectral")
            ok &= np.allclose(q.backward(U), block_of(lay, g), atol=1e-12)
            # The spectrum in the file is numpy's, whatever the writer's decomposition.
            full = f.read(nbfft.io.Layout(U_glob.shape, (0, 0), U_glob.shape if sub.rank == 0 else (0, 0),
                                          np.complex128), "U", 0)
            if sub.rank == 0:
                ok &= np.allclose(full, U_glob, atol=1e-11)
        return ok
    each_k(comm, read_back)


def test_batch_spectrum_and_pencils_restart(comm, folder):
    path = folder + "/b.h5"
    shape = (3, 4, 5, 6)
    g = global_field((4, 5, 6), np.complex128)
    with nbfft.NdPlan(comm, shape, axes=(1, 2, 3), dtype=np.complex128, batch_axis=0) as p, \
            nbfft.Pencils(comm, (4, 5, 6)) as pc, nbfft.io.File(comm, path, "w", xdmf=False) as f:
        a = np.empty(p.in_shape, np.complex128)
        lay_in = nbfft.io.Layout.of(p, "physical")
        a[...] = block_of(lay_in, np.stack([g * (b + 1) for b in range(3)]))
        f.write(p, "A", p.forward(a), step=0, space="spectral")
        lx = nbfft.io.Layout.of(pc, "x", np.complex128)
        assert lx.block_shape == pc.shape("x") and lx.shape == (4, 5, 6)
        f.write(lx, "v", block_of(lx, g), step=0)
    want = np.stack([np.fft.fftn(g * (b + 1)) for b in range(3)])

    def read_back(sub):
        with nbfft.NdPlan(sub, shape, axes=(1, 2, 3), dtype=np.complex128, batch_axis=0) as q, \
                nbfft.Pencils(sub, (4, 5, 6)) as pc, nbfft.io.File(sub, path) as f:
            spec = nbfft.io.Layout.of(q, "spectral")
            A = f.read(spec, "A", 0)
            full = np.ascontiguousarray(want.transpose(spec._l.order)) if spec._l.order else want
            lo = [spec.start[o] for o in (spec._l.order or range(4))]
            ok = A.shape == spec.block_shape and np.allclose(
                A, full[tuple(slice(s, s + e) for s, e in zip(lo, A.shape))], atol=1e-10)
            for pencil in "yz":  # written as X-pencils, read as the others
                lp = nbfft.io.Layout.of(pc, pencil, np.complex128)
                ok &= np.array_equal(f.read(lp, "v", 0), block_of(lp, g))
        return ok
    each_k(comm, read_back)


def test_plan_file_read_through_its_layout(comm, folder):
    path = folder + "/p.h5"
    g = global_field((5, 6, 7), np.float64)
    with nbfft.Plan(comm, (5, 6, 7)) as plan, nbfft.io.File(comm, path, "w", xdmf=False) as f:
        u = np.ascontiguousarray(g.transpose(plan.input_box.perm)[plan.input_box.slices])
        f.write(plan, "u", u, step=0)
        lay = nbfft.io.Layout.of(plan, "physical")
        assert lay.shape == (5, 6, 7)
    with nbfft.Plan(comm, (5, 6, 7)) as plan, nbfft.io.File(comm, path) as f:
        lay = nbfft.io.Layout.of(plan, "physical")
        assert all_ranks(np.array_equal(f.read(lay, "u", 0), f.read(plan, "u", 0)))


def test_bad_layouts_fail_on_every_rank(comm, folder):
    path = folder + "/bad.h5"
    with nbfft.io.File(comm, path, "w", xdmf=False) as f:
        rows = [(6 * r) // P for r in range(P + 1)]
        good = nbfft.io.Layout((6, 5), (rows[comm.rank], 0), (rows[comm.rank + 1] - rows[comm.rank], 5), np.float64)
        outside = nbfft.io.Layout((6, 5), (rows[comm.rank], 3), (rows[comm.rank + 1] - rows[comm.rank], 5),
                                  np.float64) if comm.rank == 0 else good
        a = np.zeros(good.block_shape)
        e = raises_everywhere(nbfft.InvalidArgument, lambda: f.write(outside, "x", a, step=0))
        assert "outside" in str(e) or "layout" in str(e)
        wrong = a.astype(np.float32) if comm.rank == P - 1 else a
        raises_everywhere(nbfft.ArgumentTypeError, lambda: f.write(good, "x", wrong, step=0))
        raises_everywhere(nbfft.ArgumentTypeError, lambda: f.write("not a layout", "x", a, step=0))
        f.write(good, "x", a + comm.rank, step=0)  # the file still takes writes
