"""Transform kinds per axis (Plan(kinds=...)) against scipy.fft's dct/dst and numpy.fft,
axis by axis on the gathered field: every r2r kind on every axis, mixed kinds, real and
complex dtypes, slabs and pencils; real in and real out when every axis is r2r; every norm
round trip; wavenumbers and grid points; and the bad input, on every rank."""

import numpy as np
import pytest
import scipy.fft

import nbfft
from conftest import COMM, all_ranks, assert_close_everywhere, global_field, raises_everywhere

P = COMM.size
R2R = ["dct1", "dct2", "dct3", "dct4", "dst1", "dst2", "dst3", "dst4"]
SHAPE = (6, 7, 9)  # (nz, ny, nx): uneven over 2-4 ranks
GRIDS = {"slabs": (1, P), "rows": (P, 1), "auto": None}


def reference(g, kinds):
    """The forward transform of the global field g[z][y][x], one axis at a time."""
    out = g.astype(np.complex128)
    for axis, kind in zip((2, 1, 0), kinds):  # kinds are x, y, z
        if kind == "periodic":
            out = np.fft.fft(out, axis=axis)
        else:
            f = scipy.fft.dct if kind.startswith("dct") else scipy.fft.dst
            t = int(kind[3])
            out = f(out.real, type=t, axis=axis) + 1j * f(out.imag, type=t, axis=axis)
    return out


def check(comm, shape, dtype, kinds, grid):
    g = global_field(shape, dtype)
    with nbfft.Plan(comm, shape, dtype=dtype, grid=GRIDS[grid], effort="estimate", kinds=kinds) as plan:
        assert plan.kinds == tuple(kinds)
        real_in = np.dtype(dtype).kind == "f"
        real_out = real_in and "periodic" not in kinds
        assert plan.out_dtype.kind == ("f" if real_out else "c")
        want = reference(g, kinds)
        if real_in and kinds[0] == "periodic":
            want = want[:, :, :shape[2] // 2 + 1]
        if real_out:
            assert all_ranks(np.abs(want.imag).max() < 1e-9 * max(1.0, np.abs(want).max()))
            want = want.real
        assert plan.output_shape == want.shape
        u = plan.scatter(g if comm.rank == 0 else None)
        U = plan.forward(u)
        assert U.dtype == plan.out_dtype and U.shape == plan.output_box.shape
        assert_close_everywhere(U, want.transpose(plan.output_box.perm)[plan.output_box.slices], dtype)
        G = plan.gather(U)  # numpy order [kz][ky][kx], real or complex as the plan's output
        assert_close_everywhere(G if comm.rank == 0 else np.zeros(0), want if comm.rank == 0 else np.zeros(0), dtype)
        v = plan.backward(U)
        assert_close_everywhere(v, g[plan.input_box.slices], dtype)


# Case i on process grid i mod 3 (the C++ test's rotation), not the full product: each kind
# and each axis still meets every grid, at a third of the runs (the product cost ~30 s at
# 3 ranks under MPICH, whose ranks busy-poll on 2 cores).
CASES = [(k, axis, list(GRIDS)[(i + axis) % len(GRIDS)]) for i, k in enumerate(R2R) for axis in range(3)]


@pytest.mark.parametrize("kind,axis,grid", CASES, ids=lambda c: str(c))
def test_every_kind_on_every_axis(comm, kind, axis, grid):
    kinds = ["periodic"] * 3
    kinds[axis] = kind
    check(comm, SHAPE, np.complex128, kinds, grid)
    if axis > 0:  # real data: x periodic (r2c) with an r2r y or z
        check(comm, SHAPE, np.float64, kinds, grid)


@pytest.mark.parametrize("kind", R2R)
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex64], ids=lambda d: np.dtype(d).name)
def test_every_axis_r2r(comm, kind, dtype):
    check(comm, SHAPE, dtype, [kind] * 3, "auto")


@pytest.mark.parametrize("kinds", [("periodic", "periodic", "dct1"), ("dst2", "dct3", "dct1"),
                                   ("dct4", "periodic", "dst3")], ids=",".join)
@pytest.mark.parametrize("grid", list(GRIDS), ids=str)
def test_mixed(comm, kinds, grid):
    dtype = np.float64 if kinds[0] == "periodic" or "periodic" not in kinds else np.complex128
    check(comm, (9, 8, 6), dtype, list(kinds), grid)


# Two norms a kind in turn (norm j + i and j + i + 2 of kind i): every norm meets four kinds,
# each kind two norms, one scaled and one other; the C++ suite runs each kind under every norm.
NORMS = ["backward", "forward", "ortho", None]
NORM_CASES = [(NORMS[(i + j) % 4], k) for i, k in enumerate(R2R) for j in (0, 2)]


@pytest.mark.parametrize("norm,kind", NORM_CASES, ids=str)
def test_norms_round_trip(comm, norm, kind):
    """The forward is scipy's unnormalized one times 1/N (forward), 1/sqrt(N) (ortho) or 1,
    N the product of FFTW's logical sizes; backward(forward(f)) is f (N f for None)."""
    shape = (5, 4, 6)
    g = global_field(shape, np.float64)
    N = float(np.prod([2 * (n - 1) if kind == "dct1" else 2 * (n + 1) if kind == "dst1" else 2 * n for n in shape]))
    with nbfft.Plan(comm, shape, norm=norm, effort="estimate", kinds=(kind,) * 3) as plan:
        u = plan.scatter(g if comm.rank == 0 else None)
        U = plan.forward(u)
        f = scipy.fft.dctn if kind.startswith("dct") else scipy.fft.dstn
        s = {"forward": 1 / N, "ortho": N ** -0.5}.get(norm, 1.0)
        want = f(g, type=int(kind[3])) * s
        assert_close_everywhere(U, want.transpose(plan.output_box.perm)[plan.output_box.slices], np.float64)
        back = plan.backward(U)
        want_back = g * (N if norm is None else 1)
        assert_close_everywhere(back, want_back[plan.input_box.slices], np.float64)


def test_wavenumbers_and_points(comm):
    shape = (6, 8, 10)
    with nbfft.Plan(comm, shape, effort="estimate", kinds="periodic,periodic,dst1") as plan:
        kz, ky, kx = plan.wavenumbers(length=(np.pi, 2 * np.pi, 2 * np.pi))
        b = plan.output_box
        start, count = dict(zip(b.axes, b.start)), dict(zip(b.axes, b.shape))
        assert np.allclose(kz.ravel(), (np.arange(6) + 1.0)[start["z"]:start["z"] + count["z"]])
        assert np.allclose(ky.ravel(), np.fft.fftfreq(8, 1 / 8)[start["y"]:start["y"] + count["y"]])
        assert np.allclose(kx.ravel(), np.arange(6)[start["x"]:start["x"] + count["x"]])
        z, y, x = plan.points(length=(np.pi, 2 * np.pi, 2 * np.pi))
        zb = plan.input_box.start[0]
        assert np.allclose(z.ravel(), (np.arange(1, 7) * np.pi / 7)[zb:zb + z.size])
        raises_everywhere(nbfft.InvalidArgument, lambda: plan.wavenumbers(d=0.1))
    with nbfft.Plan(comm, shape, effort="estimate", kinds=("dct2", "dct3", "dst4")) as plan:
        kz, ky, kx = plan.wavenumbers(length=np.pi)
        b = plan.output_box
        start, count = dict(zip(b.axes, b.start)), dict(zip(b.axes, b.shape))
        assert np.allclose(kx.ravel(), np.arange(10)[start["x"]:start["x"] + count["x"]])
        assert np.allclose(ky.ravel(), (np.arange(8) + 0.5)[start["y"]:start["y"] + count["y"]])
        assert np.allclose(kz.ravel(), np.arange(6) + 0.5)


def test_bad_kinds_fail_on_every_rank(comm):
    e = raises_everywhere(nbfft.InvalidArgument, lambda: nbfft.Plan(comm, (1, 8, 8), kinds="periodic,periodic,dct1"))
    assert "dct1 (REDFT00) on z needs nz >= 2, got 1" in str(e)
    e = raises_everywhere(nbfft.InvalidArgument, lambda: nbfft.Plan(comm, (8, 8, 8), kinds="periodic,dct5,dst1"))
    assert "unknown transform kind 'dct5'" in str(e)
    e = raises_everywhere(nbfft.InvalidArgument, lambda: nbfft.Plan(comm, (8, 8, 8), kinds="dct1,dct2"))
    assert "has 2 entries" in str(e)
    e = raises_everywhere(nbfft.InvalidArgument, lambda: nbfft.Plan(comm, (8, 8, 8), kinds="dct2,periodic,periodic"))
    assert "real data with an r2r x axis needs every axis r2r" in str(e)
    raises_everywhere(nbfft.ArgumentTypeError, lambda: nbfft.Plan(comm, (8, 8, 8), kinds=3))
    with nbfft.Plan(comm, (8, 8, 8), effort="estimate", kinds="dct2") as plan:  # real -> real
        u = plan.empty_input()
        e = raises_everywhere(TypeError, lambda: plan.forward(u, out=np.zeros(plan.output_box.shape, np.complex128)))
        assert "float64" in str(e)


def test_fftw_names_are_aliases(comm):
    with nbfft.Plan(comm, (4, 5, 6), effort="estimate", kinds="REDFT10,rodft00,REDFT00") as plan:
        assert plan.kinds == ("dct2", "dst1", "dct1")
        assert plan.options.kinds == "dct2,dst1,dct1"
