"""User boxes (Plan(..., in_box=, out_box=)) and the natural output order against numpy.fft
of the whole field: bricks in and a different split out, empty blocks, another memory order
through nbfft.Box, single and multi-field calls, and bad boxes raising on every rank."""

import numpy as np
import pytest

import nbfft
from conftest import COMM, all_ranks, assert_close_everywhere, global_field, raises_everywhere

P = COMM.size
R = COMM.rank
SHAPE = (9, 10, 12)  # (nz, ny, nx)


def part(n, m, k):
    """(start, length) of part k of n points over m parts (the first n % m one longer)."""
    b, r = divmod(n, m)
    return k * b + min(k, r), b + (1 if k < r else 0)


def brick(shape, parts, rank):
    """(start, shape) of rank's brick in (z, y, x) when parts = (pz, py, px) split the grid;
    rank = ix + px * (iy + py * iz)."""
    pz, py, px = parts
    ix, iy, iz = rank % px, (rank // px) % py, rank // (px * py)
    (sz, nz), (sy, ny), (sx, nx) = part(shape[0], pz, iz), part(shape[1], py, iy), part(shape[2], px, ix)
    return (sz, sy, sx), (nz, ny, nx)


def bricks_2d():
    """(pz, py, px): 2x2 bricks in y, x on 4 ranks, one split of x otherwise."""
    return (1, 2, 2) if P == 4 else (1, 1, P)


def spectrum_shape(dtype):
    nz, ny, nx = SHAPE
    return (nz, ny, nx // 2 + 1) if np.dtype(dtype).kind == "f" else SHAPE


def reference(g, dtype):
    return np.fft.rfftn(g) if np.dtype(dtype).kind == "f" else np.fft.fftn(g)


def block(g, box):
    (s0, s1, s2), (n0, n1, n2) = box
    return g[s0:s0 + n0, s1:s1 + n1, s2:s2 + n2]


@pytest.mark.parametrize("dtype", [np.float64, np.complex64], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("layout", ["bricks", "empty", "pm"])
def test_bricks_in_slabs_out_match_numpy(comm, dtype, layout):
    g = global_field(SHAPE, dtype)
    G = reference(g, dtype)
    S = spectrum_shape(dtype)
    if layout == "bricks":
        ib, ob = brick(SHAPE, bricks_2d(), R), brick(S, (P, 1, 1), R)
    elif layout == "pm":  # docs/fft.md's particle-mesh layout: the spectrum on the bricks with x start 0
        ib = brick(SHAPE, bricks_2d(), R)
        (bz, by, bx), (nz, ny, _) = ib
        ob = ((bz, by, 0), (nz, ny, S[2])) if bx == 0 else ((0, 0, 0), (0, 0, 0))
    else:  # the last rank holds no input, rank 0 the whole spectrum
        ib = brick(SHAPE, (1, max(P - 1, 1), 1), R) if R < max(P - 1, 1) else ((0, 0, 0), (0, 0, 0))
        ob = ((0, 0, 0), S) if R == 0 else ((0, 0, 0), (0, 0, 0))
    with nbfft.Plan(comm, SHAPE, dtype=dtype, effort="estimate", in_box=ib, out_box=ob) as plan:
        assert plan.input_box.shape == ib[1] and plan.input_box.axes == ("z", "y", "x")
        assert plan.output_box.shape == ob[1]
        u = np.ascontiguousarray(block(g, ib))
        U = plan.forward(u)
        assert_close_everywhere(U, block(G, ob), dtype)
        assert_close_everywhere(plan.backward(U), u, dtype)
        # The whole spectrum through gather: numpy's order on rank 0.
        whole = plan.gather(U, space="output")
        if R == 0:
            assert np.allclose(whole, G, rtol=1e-4, atol=1e-3 * np.abs(G).max())


def test_box_with_another_memory_order_and_many_fields(comm):
    """An output block stored [x][z][y] (y fastest), through forward_many with 2 in flight."""
    dtype = np.float64
    g = global_field(SHAPE, dtype)
    G = reference(g, dtype)
    S = spectrum_shape(dtype)
    (sz, sy, sx), (nz, ny, nx) = brick(S, (1, P, 1), R)
    ob = nbfft.Box(("x", "z", "y"), (sx, sz, sy), (nx, nz, ny), (S[2], S[0], S[1]))
    ib = brick(SHAPE, (P, 1, 1), R)
    with nbfft.Plan(comm, SHAPE, dtype=dtype, effort="estimate", in_box=ib, out_box=ob,
                    fields_in_flight=2) as plan:
        assert plan.output_box == ob
        u = np.ascontiguousarray(block(g, ib))
        Us = plan.forward_many(np.stack([u, 2 * u, 3 * u]))
        want = G.transpose(ob.perm)[ob.slices]
        for k in range(3):
            assert_close_everywhere(Us[k], (k + 1) * want, dtype)
        back = plan.backward_many(Us)
        for k in range(3):
            assert_close_everywhere(back[k], (k + 1) * u, dtype)


def test_natural_output_order(comm):
    g = global_field(SHAPE, np.float64)
    G = np.fft.rfftn(g)
    with nbfft.Plan(comm, SHAPE, effort="estimate", output_order="natural") as plan:
        assert plan.output_box.axes == ("z", "y", "x")
        assert plan.options.output_order == "natural"
        u = np.ascontiguousarray(g[plan.input_box.slices])
        U = plan.forward(u)
        assert_close_everywhere(U, G[plan.output_box.slices], np.float64)


def test_own_pencils_cost_nothing(comm):
    with nbfft.Plan(comm, SHAPE, effort="estimate") as ref:
        ib = (ref.input_box.start, ref.input_box.shape)
        with nbfft.Plan(comm, SHAPE, effort="estimate", in_box=ib, out_box=ref.output_box) as same:
            assert same.output_box == ref.output_box and same.input_box == ref.input_box
            assert same.workspace_bytes == ref.workspace_bytes


@pytest.mark.skipif(P < 2, reason="overlap and disagreement need two ranks")
def test_bad_boxes_raise_on_every_rank(comm):
    whole = ((0, 0, 0), SHAPE)
    errs = raises_everywhere(nbfft.InvalidArgument,
                             lambda: nbfft.Plan(comm, SHAPE, effort="estimate", in_box=whole))
    assert all_ranks("in_box of ranks 0 and 1 overlap" in str(errs))
    start, shape = brick(SHAPE, (P, 1, 1), R)
    if R == P - 1:
        shape = (shape[0] + 1, shape[1], shape[2])  # past z
    errs = raises_everywhere(nbfft.InvalidArgument,
                             lambda: nbfft.Plan(comm, SHAPE, effort="estimate", in_box=(start, shape)))
    assert all_ranks("out of range along z" in str(errs))
    errs = raises_everywhere(nbfft.RanksDisagree,
                             lambda: nbfft.Plan(comm, SHAPE, effort="estimate", in_box=whole if R == 0 else None))
    assert all_ranks("user boxes" in str(errs))


def test_box_argument_types(comm):
    errs = raises_everywhere(nbfft.ArgumentTypeError, lambda: nbfft.Plan(comm, SHAPE, in_box="everything"))
    assert all_ranks("in_box must be (start, shape)" in str(errs))
    errs = raises_everywhere(nbfft.InvalidArgument, lambda: nbfft.Plan(comm, SHAPE, out_box=((0, 0), (1, 1))))
    assert all_ranks("3 entries" in str(errs))
