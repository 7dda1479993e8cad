"""gather / scatter (the C++ fft::gather_bytes / scatter_bytes underneath): every dtype,
uneven grids, every process grid, both spaces, roots other than 0, and their errors."""

import numpy as np
import pytest

import nbfft
from conftest import COMM, all_ranks, global_field, raises_everywhere

P = COMM.size
DTYPES = [np.float64, np.float32, np.complex128, np.complex64]
# Uneven in every direction (odd nx: the r2c half axis is nx//2 + 1), and a grid with
# fewer planes than ranks along an axis at 4 ranks (some boxes then have few points).
SHAPES = [(7, 5, 9), (3, 6, 5)]
GRIDS = {"slabs": (1, P), "rows": (P, 1), "auto": None}
if P == 4:
    GRIDS["pencils2x2"] = (2, 2)
ROOTS = sorted({0, P - 1, P // 2})


def local_block(plan, g, space):
    """This rank's block of the global numpy-order array g, built from the plan's boxes alone."""
    box = plan.input_box if space == "input" else plan.output_box
    return np.ascontiguousarray(g.transpose(box.perm)[box.slices])


# One shape per (dtype, transform, process grid), in turn, not both: every process grid and
# every dtype still meets both shapes (the full product cost ~15 s a run at 3-4 ranks under
# MPICH, whose ranks busy-poll on 2 cores). r2c takes real dtypes only.
SCATTER_CASES = [(d, t, SHAPES[(di + ti + gi) % 2], g)
                 for di, d in enumerate(DTYPES) for ti, t in enumerate(["r2c", "c2c"]) for gi, g in enumerate(GRIDS)
                 if not (t == "r2c" and np.dtype(d).kind == "c")]


@pytest.mark.parametrize("dtype,transform,shape,grid", SCATTER_CASES,
                         ids=lambda c: np.dtype(c).name if isinstance(c, type) else
                         "x".join(map(str, c)) if isinstance(c, tuple) else str(c))
def test_scatter_then_gather_is_exact(comm, dtype, transform, shape, grid):
    with nbfft.Plan(comm, shape, dtype=dtype, transform=transform, grid=GRIDS[grid], effort="estimate",
                    allow_empty=True) as plan:
        for space, gshape, dt in (("input", plan.shape, plan.in_dtype),
                                  ("output", plan.output_shape, plan.out_dtype)):
            g = global_field(gshape, dt, seed=11)
            for root in ROOTS:
                # scatter puts exactly this rank's block of g into out ...
                u = plan.scatter(g if comm.rank == root else None, root=root, space=space)
                assert all_ranks(np.array_equal(u, local_block(plan, g, space)))
                # ... and gather puts every block back where it came from, on root only.
                back = plan.gather(local_block(plan, g, space), root=root, space=space)
                if comm.rank == root:
                    assert back.shape == gshape and back.dtype == dt and back.flags.c_contiguous
                ok = np.array_equal(back, g) if comm.rank == root else back is None
                assert all_ranks(ok)


def test_gather_of_a_transform_is_numpy_fft(comm):
    shape = (5, 6, 7)
    g = global_field(shape, np.float32)
    with nbfft.Plan(comm, shape, dtype=np.float32, effort="estimate") as plan:
        u = plan.scatter(g if comm.rank == 0 else None)
        G = plan.gather(plan.forward(u), root=P - 1)  # 'auto': the output space by its dtype
        ok = G is None if comm.rank != P - 1 else np.allclose(G, np.fft.rfftn(g), rtol=1e-4, atol=1e-4)
        assert all_ranks(ok)


def test_scatter_takes_a_strided_global_array(comm):
    shape = (4, 5, 6)
    big = global_field((4, 5, 12), np.complex128)
    g = big[:, :, ::2]  # not contiguous: copied on root, as numpy would
    with nbfft.Plan(comm, shape, dtype=np.complex128, effort="estimate") as plan:
        u = plan.scatter(g if comm.rank == 0 else None)
        assert all_ranks(np.array_equal(u, local_block(plan, np.ascontiguousarray(g), "input")))


def test_scatter_into_out(comm):
    shape = (6, 5, 4)
    g = global_field(shape, np.float64)
    with nbfft.Plan(comm, shape, dtype=np.float64, effort="estimate") as plan:
        u = plan.empty_input()
        got = plan.scatter(g if comm.rank == 0 else None, out=u)
        assert got is u and all_ranks(np.array_equal(u, local_block(plan, g, "input")))


def test_root_errors_on_every_rank(comm):
    with nbfft.Plan(comm, (4, 5, 6), dtype=np.float64, effort="estimate") as plan:
        u = plan.empty_input()
        e = raises_everywhere(nbfft.InvalidArgument, lambda: plan.gather(u, root=P))
        assert "root {} is not a rank".format(P) in e.message
        raises_everywhere(nbfft.InvalidArgument, lambda: plan.scatter(None, root=-1))
        e = raises_everywhere(nbfft.ArgumentTypeError, lambda: plan.gather(u, root=0.0))
        assert "root must be an int" in e.message
        raises_everywhere(nbfft.ArgumentTypeError, lambda: plan.scatter(None, root="0"))
        # numpy integers are ranks too
        back = plan.gather(plan.scatter(np.zeros((4, 5, 6)) if comm.rank == 0 else None, root=np.int64(0)),
                           root=np.int32(0))
        assert all_ranks(back is None if comm.rank else np.array_equal(back, np.zeros((4, 5, 6))))


def test_bad_global_array_on_root_fails_everywhere(comm):
    with nbfft.Plan(comm, (4, 5, 6), dtype=np.float64, effort="estimate") as plan:
        root = P - 1
        e = raises_everywhere(nbfft.InvalidArgument,
                              lambda: plan.scatter(np.zeros((4, 5, 7)) if comm.rank == root else None, root=root))
        assert "shape (4, 5, 7)" in e.message and "[rank {}]".format(root) in e.message
        raises_everywhere(nbfft.ArgumentTypeError,
                          lambda: plan.scatter(np.zeros((4, 5, 6), np.float32) if comm.rank == root else None,
                                               root=root))
        raises_everywhere(nbfft.ArgumentTypeError, lambda: plan.scatter([0.0] if comm.rank == root else None,
                                                                        root=root))
        # a wrong local block on one rank only
        bad = plan.empty_input() if comm.rank != P - 1 else np.zeros((1, 1, 1))
        raises_everywhere(ValueError, lambda: plan.gather(bad, space="input"))
