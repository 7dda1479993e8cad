"""nbfft.NdPlan against numpy.fft.rfftn / fftn over the same axes on uneven shapes at every
rank count the suite runs: 2-D, 3-D over two axes (the channel case), 4-D over three, 5-D
over two, r2c and c2c, blocking and a non-blocking transport; and its errors."""

import numpy as np
import pytest

import nbfft
from conftest import COMM, all_ranks, raises_everywhere

P = COMM.size

CASES = [
    ((7, 6), (0, 1)),
    ((7, 9), (1, 0)),          # r2c along axis 0: the last one listed, as rfftn
    ((6, 5), (-1,)),
    ((5, 4, 6), (0, 2)),       # channel: z and x transformed, y kept (split over y: local)
    ((6, 1, 7), (0, 2)),       # y too short: z and x exchanged across it
    ((3, 5, 4, 6), (1, 2, 3)),
    ((4, 5, 3, 6), (0, 1, 3)),
    ((2, 3, 4, 3, 5), (1, 3)),
    ((1, 5, 1, 2, 6), (4, 1)),
]


def global_array(shape, dtype):
    rng = np.random.default_rng(11)
    g = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        g = g + 1j * rng.standard_normal(shape)
    return g.astype(dtype)


def gather(plan, block, out):
    """The global array on every rank from each rank's block."""
    shape = plan.global_out_shape if out else plan.global_shape
    g = np.zeros(shape, block.dtype)
    for r, b in enumerate(COMM.allgather(block)):
        g[plan.out_slices_of(r) if out else plan.in_slices_of(r)] = b
    return g


@pytest.mark.parametrize("transport", ["blocking", "pairwise:2@caller"])
@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
@pytest.mark.parametrize("shape,axes", CASES)
def test_against_numpy(shape, axes, dtype, transport):
    g = global_array(shape, dtype)
    ref = np.fft.rfftn(g, axes=axes) if dtype == np.float64 else np.fft.fftn(g, axes=axes)
    with nbfft.NdPlan(COMM, shape, axes=axes, dtype=dtype, transport=transport) as p:
        u = np.ascontiguousarray(g[p.in_slices])
        U = p.forward(u)
        assert U.shape == p.out_shape and p.global_out_shape == ref.shape
        err = np.abs(U - ref[p.out_slices]).max(initial=0)
        assert all_ranks(err < 1e-12 * max(1.0, np.abs(ref).max())), (p.describe(), err)
        v = p.backward(U)
        assert all_ranks(np.abs(v - u).max(initial=0) < 1e-12), p.describe()
        assert all_ranks(np.array_equal(gather(p, U, True), gather(p, U, True)))
        assert all_ranks(np.abs(gather(p, U, True) - ref).max() < 1e-12 * max(1.0, np.abs(ref).max()))


def test_channel_is_local_and_backward_matches_irfftn():
    shape, axes = (6, 4, 10), (0, 2)
    g = global_array(shape, np.float64)
    with nbfft.NdPlan(COMM, shape, axes=axes, norm="ortho") as p:
        if P <= 4:
            assert p.exchanges == 0 and p.grid == (1, P, 1), p.describe()
        U = p.forward(np.ascontiguousarray(g[p.in_slices]))
        ref = np.fft.rfftn(g, axes=axes, norm="ortho")
        assert all_ranks(np.abs(U - ref[p.out_slices]).max(initial=0) < 1e-12)
        H = gather(p, U, True)
        v = p.backward(np.ascontiguousarray(H[p.out_slices]))
        back = np.fft.irfftn(H, s=[shape[a] for a in axes], axes=axes, norm="ortho")
        assert all_ranks(np.abs(v - back[p.in_slices]).max(initial=0) < 1e-12)


def test_set_grid_and_describe():
    with nbfft.NdPlan(COMM, (6, 3, 8), axes=(0, 2), grid=(P, 1, 1), dtype=np.complex128) as p:
        assert p.grid == (P, 1, 1)
        assert p.exchanges == (1 if P > 1 else 0)
        assert "axes (0, 2)" in p.describe()


def test_errors_on_every_rank():
    raises_everywhere(nbfft.InvalidArgument, lambda: nbfft.NdPlan(COMM, (4, 5), axes=(0, 2)))
    raises_everywhere(nbfft.InvalidArgument, lambda: nbfft.NdPlan(COMM, (4, 5), axes=(1, -1)))
    raises_everywhere(nbfft.InvalidArgument, lambda: nbfft.NdPlan(COMM, (4, 5), dtype=np.float32))
    raises_everywhere(nbfft.InvalidArgument, lambda: nbfft.NdPlan(COMM, (4, 5), norm="sideways"))
    raises_everywhere(nbfft.InvalidArgument, lambda: nbfft.NdPlan(COMM, (8, 8), grid=(P, 2)))
    raises_everywhere(nbfft.ArgumentTypeError, lambda: nbfft.NdPlan(COMM, (4, "x")))
    if P > 1:
        raises_everywhere(nbfft.RanksDisagree, lambda: nbfft.NdPlan(COMM, (4 + COMM.rank, 5)))
    if P > 2:
        e = raises_everywhere(nbfft.InvalidArgument, lambda: nbfft.NdPlan(COMM, (2, 9)))
        assert "cannot decompose" in str(e)
    with nbfft.NdPlan(COMM, (6, 8)) as p:
        u = np.zeros(p.in_shape)
        bad = u if COMM.rank else np.zeros(p.in_shape, np.float32)
        raises_everywhere(nbfft.InvalidArgument, lambda: p.forward(bad))
    raises_everywhere(nbfft.InvalidState, lambda: p.forward(u))
