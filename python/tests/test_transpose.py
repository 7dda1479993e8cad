"""nbfft.Pencils: the pencil transposes on numpy arrays of any dtype, against slices of a
global array, at every rank count the suite runs (uneven grids, slab and pencil grids)."""

import numpy as np
import pytest

import nbfft
from conftest import COMM, all_ranks, raises_everywhere

P = COMM.size
STRUCT = np.dtype([("a", np.int16), ("b", np.float64), ("c", "S3")])  # 13 bytes, unaligned
DTYPES = [np.int8, np.float64, np.complex128, STRUCT]


def grids():
    """Every (m1, m2) factorization of the ranks (slabs both ways and pencils)."""
    return [(m, P // m) for m in range(1, P + 1) if P % m == 0]


def global_array(shape, dtype, seed=3):
    """The same global array on every rank: each point's value encodes its position."""
    dtype = np.dtype(dtype)
    idx = np.arange(int(np.prod(shape))).reshape(shape)
    if dtype == STRUCT:
        g = np.empty(shape, STRUCT)
        g["a"] = idx % 30000
        g["b"] = idx * 0.5
        g["c"] = np.char.encode((idx % 997).astype(str))
        return g
    if dtype.kind == "c":
        return (idx + 1j * (idx + seed)).astype(dtype)
    return (idx % 127 if dtype.itemsize == 1 else idx).astype(dtype)


def block(p, g, pencil):
    return np.ascontiguousarray(g[p.box(pencil).slices])


@pytest.mark.parametrize("dtype", DTYPES, ids=["int8", "float64", "complex128", "struct"])
@pytest.mark.parametrize("shape", [(5, 7, 10), (4, 3, 2), (1, 1, 3)])
def test_round_trip_against_global_slices(comm, dtype, shape):
    g = global_array(shape, dtype)
    for grid in grids():
        with nbfft.Pencils(comm, shape, proc_grid=grid) as p:
            assert p.proc_grid == grid and p.global_shape == shape
            ux = block(p, g, "x")
            uy = np.empty(p.shape("y"), dtype)
            uz = np.empty(p.shape("z"), dtype)
            assert p.shape("x")[2] == shape[2] and p.shape("y")[1] == shape[1] and p.shape("z")[0] == shape[0]
            assert p.transpose(ux, "x", uy, "y") is uy
            assert all_ranks(np.array_equal(uy, block(p, g, "y")))
            p.transpose(uy, "y", uz, "z")
            assert all_ranks(np.array_equal(uz, block(p, g, "z")))
            back = np.empty(p.shape("x"), dtype)
            p.transpose(uz, "z", uy, "y")
            p.transpose(uy, "y", back, "x")
            assert all_ranks(np.array_equal(back, ux))
            if p.can_transpose("x", "z"):  # slab grid: one exchange
                uz[...] = np.zeros((), dtype)
                p.transpose(ux, "x", uz, "z")
                assert all_ranks(np.array_equal(uz, block(p, g, "z")))


def test_boxes_tile_the_grid(comm):
    shape = (5, 7, 10)
    with nbfft.Pencils(comm, shape) as p:
        m1, m2 = p.proc_grid
        assert m1 * m2 == P
        for pencil in "xyz":
            b = p.box(pencil)
            assert b.axes == ("z", "y", "x") and b.global_shape == shape
            total = COMM.allreduce(b.size)
            assert total == 5 * 7 * 10
        assert "Pencils" in repr(p)


@pytest.mark.parametrize("transport", ["blocking", "caller", "thread"])
def test_start_wait_and_test(comm, transport):
    shape = (6, 5, 9)
    g = global_array(shape, np.float64)
    with nbfft.Pencils(comm, shape, row_transport=transport, col_transport=transport) as p:
        ux = block(p, g, "x")
        uy = np.full(p.shape("y"), -1.0)
        t = p.start(ux, "x", uy, "y")
        del ux  # the pending transpose keeps its arrays alive
        t.wait()
        assert not t.active
        assert all_ranks(np.array_equal(uy, block(p, g, "y")))
        uz = np.full(p.shape("z"), -1.0)
        t = p.start(uy, "y", uz, "z")
        while not t.test():
            t.progress()
        assert all_ranks(np.array_equal(uz, block(p, g, "z")))
        assert t.test() and not t.active
        t.wait()  # completed: a no-op


def test_close_completes_a_started_transpose(comm):
    shape = (4, 4, 4)
    g = global_array(shape, np.complex128)
    p = nbfft.Pencils(comm, shape, row_transport="caller")
    uy = np.empty(p.shape("y"), np.complex128)
    want = block(p, g, "y")
    p.start(block(p, g, "x"), "x", uy, "y")
    p.close()
    assert p.closed
    assert all_ranks(np.array_equal(uy, want))
    raises_everywhere(nbfft.InvalidState, lambda: p.shape("x"))


@pytest.mark.parametrize("dtype", [np.float64, STRUCT], ids=["float64", "struct"])
def test_batch(comm, dtype):
    shape = (5, 7, 10)
    gs = [global_array(shape, dtype, seed=s) for s in range(3)]
    if np.dtype(dtype) != STRUCT:
        gs = [g * (k + 1) for k, g in enumerate(gs)]
    with nbfft.Pencils(comm, shape, fields_in_flight=2) as p:
        zs = [block(p, g, "z") for g in gs]
        ys = [np.empty(p.shape("y"), dtype) for _ in gs]
        p.transpose_many(zs, "z", ys, "y")
        assert all_ranks(all(np.array_equal(y, block(p, g, "y")) for y, g in zip(ys, gs)))
        p.transpose_many([], "z", [], "y")  # no fields: a no-op on every rank


def test_errors_on_every_rank(comm):
    shape = (5, 7, 10)
    with nbfft.Pencils(comm, shape) as p:
        ux = np.zeros(p.shape("x"))
        uy = np.zeros(p.shape("y"))
        e = raises_everywhere(nbfft.InvalidArgument, lambda: p.transpose(ux, "x", np.zeros((1, 2, 3)), "y"))
        assert "shape" in str(e)
        e = raises_everywhere(nbfft.ArgumentTypeError,
                              lambda: p.transpose(ux, "x", np.zeros(p.shape("y"), np.float32), "y"))
        assert "dtype" in str(e)
        strided = np.zeros(p.shape("x")[:2] + (2 * p.shape("x")[2],))[:, :, ::2]
        e = raises_everywhere(nbfft.InvalidArgument, lambda: p.transpose(strided, "x", uy, "y"))
        assert "C-contiguous" in str(e)
        ro = np.zeros(p.shape("y"))
        ro.flags.writeable = False
        e = raises_everywhere(nbfft.InvalidArgument, lambda: p.transpose(ux, "x", ro, "y"))
        assert "read-only" in str(e)
        raises_everywhere(nbfft.InvalidArgument, lambda: p.start(ux, "x", ro, "y"))
        raises_everywhere(nbfft.InvalidArgument, lambda: p.transpose(ux, "w", uy, "y"))
        raises_everywhere(nbfft.ArgumentTypeError, lambda: p.transpose([0.0], "x", uy, "y"))
        raises_everywhere(nbfft.InvalidArgument, lambda: p.transpose_many([ux], "x", [uy, uy], "y"))
        # Only rank 0 passes a bad array: every rank still raises, naming rank 0.
        bad = np.zeros((1, 1, 1)) if COMM.rank == 0 else uy
        e = raises_everywhere(nbfft.InvalidArgument, lambda: p.transpose(ux, "x", bad, "y"))
        assert "[rank 0]" in str(e)
        if not p.can_transpose("x", "z"):
            raises_everywhere(nbfft.InvalidArgument, lambda: p.transpose(ux, "x", np.zeros(p.shape("z")), "z"))
        p.transpose(ux, "x", uy, "y")  # still usable after the errors


def test_bad_construction(comm):
    raises_everywhere(nbfft.InvalidArgument, lambda: nbfft.Pencils(comm, (0, 4, 4)))
    raises_everywhere(nbfft.InvalidArgument, lambda: nbfft.Pencils(comm, (4, 4)))
    raises_everywhere(nbfft.InvalidArgument, lambda: nbfft.Pencils(comm, (4, 4, 4), row_transport="nonsense"))
    raises_everywhere(nbfft.ArgumentTypeError, lambda: nbfft.Pencils(None, (4, 4, 4)))
    raises_everywhere(nbfft.Error, lambda: nbfft.Pencils(comm, (4, 4, 4), proc_grid=(P + 1, 1)))
