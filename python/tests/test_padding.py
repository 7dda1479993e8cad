"""Padded transforms (``padding``, 3/2-rule dealiasing) against numpy: the spectrum padded or
truncated by hand with numpy.fft on the gathered field, the round trip, a dealiased product
against the exact alias-free one, shapes, the other call paths and bad padding values."""

import numpy as np
import pytest

import nbfft
from mpi4py import MPI
from conftest import COMM, all_ranks, assert_close_everywhere, global_field

P = COMM.size
GRIDS = {"slabs": (1, P), "rows": (P, 1), "auto": None}
if P == 4:
    GRIDS["pencils2x2"] = (2, 2)
# (shape (nz, ny, nx), padding as Plan takes it): odd and even n and m, one ratio, per axis.
CASES = [((6, 8, 8), 1.5), ((5, 7, 10), (2, 1, 1.5)), ((9, 5, 6), 1.34)]


def padded_shape(shape, padding):
    p = np.broadcast_to(np.asarray(padding, dtype=float), (3,))
    return tuple(int(np.floor(n * r)) for n, r in zip(shape, p))


def pad_axis(F, axis, m):
    """numpy order, n coefficients -> m; even n: the Nyquist one halved onto +n/2 and -n/2."""
    n = F.shape[axis]
    if m == n:
        return F
    F = np.moveaxis(F, axis, 0)
    out = np.zeros((m,) + F.shape[1:], dtype=complex)
    h = (n + 1) // 2
    out[:h] = F[:h]
    out[m - (n - h):] = F[h:]
    if n % 2 == 0:
        out[m - n // 2] *= 0.5
        out[n // 2] = out[m - n // 2]
    return np.moveaxis(out, 0, axis)


def truncate_axis(F, axis, n):
    """m coefficients -> n; even n: index n/2 gets the sum of +n/2 and -n/2."""
    m = F.shape[axis]
    if m == n:
        return F
    F = np.moveaxis(F, axis, 0)
    h = (n + 1) // 2
    out = np.concatenate([F[:h], F[m - (n - h):]])
    if n % 2 == 0:
        out[n // 2] = out[n // 2] + F[n // 2]
    return np.moveaxis(out, 0, axis)


def pad(F, m):
    for a in range(3):
        F = pad_axis(F, a, m[a])
    return F


def truncate(F, n):
    for a in range(3):
        F = truncate_axis(F, a, n[a])
    return F


@pytest.mark.parametrize("dtype", [np.float64, np.complex128, np.float32], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("case", CASES, ids=lambda c: "x".join(map(str, c[0])) + "_pad" + str(c[1]))
@pytest.mark.parametrize("grid", list(GRIDS), ids=str)
def test_padded_transforms_match_numpy(comm, dtype, case, grid):
    shape, padding = case
    m = padded_shape(shape, padding)
    real = np.dtype(dtype).kind == "f"
    N, M = np.prod(shape), np.prod(m)
    with nbfft.Plan(comm, shape, dtype=dtype, grid=GRIDS[grid], padding=padding, effort="estimate") as plan:
        assert plan.shape == m and plan.input_box.global_shape == m
        assert plan.output_shape == (shape[0], shape[1], shape[2] // 2 + 1 if real else shape[2])
        # Backward of the spectrum of an n-grid field: its spectrum padded, inverse on m.
        g = global_field(shape, dtype, seed=3).astype(np.complex128 if not real else np.float64)
        full = np.fft.fftn(g)
        F = np.fft.rfftn(g) if real else full
        U = plan.scatter(F.astype(plan.out_dtype) if comm.rank == 0 else None, space="output")
        u = plan.backward(U)
        want = np.fft.ifftn(pad(full, m)) * (M / N)  # numpy's ifftn divides by M; norm=backward by N
        want = want.real if real else want
        assert_close_everywhere(u, want[plan.input_box.slices], dtype)
        # Backward then forward returns the spectrum, Nyquist coefficients included.
        assert_close_everywhere(plan.forward(u), F.transpose(plan.output_box.perm)[plan.output_box.slices], dtype)
        # Forward of any field on the m grid: its spectrum truncated, scaled by N/M.
        f = global_field(m, dtype, seed=4)
        Ff = truncate(np.fft.fftn(f.astype(np.complex128)), shape) * (N / M)
        if real:
            Ff = Ff[..., :shape[2] // 2 + 1]
        got = plan.gather(plan.forward(plan.scatter(f if comm.rank == 0 else None)))
        if comm.rank == 0:
            assert got.shape == Ff.shape
        assert_close_everywhere(got if comm.rank == 0 else np.zeros(0), Ff if comm.rank == 0 else np.zeros(0), dtype)


def band_limited(shape, seed):
    """A real field's rfftn spectrum with modes |k| < n/2 only (no Nyquist)."""
    rng = np.random.default_rng(seed)
    F = np.fft.rfftn(rng.standard_normal(shape))
    for a, n in enumerate(shape):
        k = np.fft.rfftfreq(n, 1.0 / n) if a == 2 else np.fft.fftfreq(n, 1.0 / n)
        keep = np.abs(k) < n / 2
        idx = [None, None, None]
        idx[a] = slice(None)
        F = F * keep[tuple(idx)]
    return F


@pytest.mark.parametrize("shape", [(8, 6, 10), (7, 9, 8)], ids=lambda s: "x".join(map(str, s)))
def test_dealiased_product_matches_exact_convolution(comm, shape):
    """u*v computed on the 3/2 grid and truncated equals the alias-free product's modes
    (numpy on a 2n grid, where no product mode can alias), to 1e-12; without padding it does not."""
    Fu, Fv = band_limited(shape, 1), band_limited(shape, 2)
    n = np.array(shape)
    L = tuple(2 * n)
    N, NL = np.prod(n), np.prod(L)
    uL = np.fft.ifftn(pad(np.fft.fftn(np.fft.irfftn(Fu, shape, axes=(0, 1, 2))), L)).real * (NL / N)
    vL = np.fft.ifftn(pad(np.fft.fftn(np.fft.irfftn(Fv, shape, axes=(0, 1, 2))), L)).real * (NL / N)
    exact = (truncate(np.fft.fftn(uL * vL), shape) * (N / NL))[..., :shape[2] // 2 + 1]
    for padding, should_match in ((1.5, True), (1, False)):
        with nbfft.Plan(comm, shape, padding=padding, effort="estimate") as plan:
            sl = plan.output_box
            U = np.ascontiguousarray(Fu.transpose(sl.perm)[sl.slices])
            V = np.ascontiguousarray(Fv.transpose(sl.perm)[sl.slices])
            W = plan.forward(plan.backward(U) * plan.backward(V))
            err = np.max(np.abs(W - exact.transpose(sl.perm)[sl.slices]), initial=0.0)
            err = COMM.allreduce(err, op=MPI.MAX) / np.max(np.abs(exact))
            if should_match:
                assert err < 1e-12, err
            else:
                assert err > 1e-3, "the unpadded product should alias"


def test_padded_many_and_split_paths_equal_single_calls(comm):
    with nbfft.Plan(comm, (7, 6, 10), padding=1.5, fields_in_flight=2, effort="estimate") as plan:
        fields = [plan.scatter(global_field(plan.shape, np.float64, seed=s) if comm.rank == 0 else None)
                  for s in (1, 2, 3)]
        single = [plan.forward(f) for f in fields]
        many = plan.forward_many(fields)
        assert all_ranks(all(np.array_equal(a, b) for a, b in zip(single, many)))
        back = plan.backward_many(many)
        assert all_ranks(all(np.array_equal(plan.backward(s), b) for s, b in zip(single, back)))


@pytest.mark.parametrize("bad, kind", [(0.5, nbfft.InvalidArgument), ("abc", nbfft.InvalidArgument),
                                       ((1.5, 1.5), nbfft.ArgumentTypeError), (True, nbfft.ArgumentTypeError),
                                       ("1.5,,2", nbfft.InvalidArgument), (float("nan"), nbfft.InvalidArgument)],
                         ids=["below1", "word", "twoentries", "bool", "emptyentry", "nan"])
def test_bad_padding_fails_on_every_rank(comm, bad, kind):
    raised = None
    try:
        nbfft.Plan(comm, (8, 8, 8), padding=bad).close()
    except kind as e:
        raised = str(e)
    assert all_ranks(raised is not None and "padding" in raised), raised


def test_padding_reads_back_in_the_tables_order(comm):
    with nbfft.Plan(comm, (6, 5, 7), padding=(2, 1, 1.5), effort="estimate") as plan:
        assert plan.options.padding == "1.5,1,2"  # the table's word: x first
        assert plan.shape == (12, 5, 10)
        assert plan.empty_input().shape == plan.input_box.shape


# NdPlan: (shape (the spectrum's grid), axes, padding as NdPlan takes it: one ratio or one per
# listed axis, options): 2-D, 3-D over two axes, a 4-D batch in flight, a transposed output.
ND_CASES = [((9, 10), (0, 1), 1.5, {}),
            ((8, 7), (1, 0), (2, 1.5), {}),
            ((6, 5, 8), (0, 2), (1.5, 2), {}),
            ((3, 6, 5, 8), (1, 2, 3), 1.5, {"batch_axis": 0, "transport": "pairwise@caller", "fields_in_flight": 3}),
            ((6, 8, 10), (0, 1, 2), 1.5, {"output_order": "transposed", "lean_workspace": True}),
            ((12, 10), (0, 1), (1, 1.34), {"threads": 2})]


def resize_axes(F, axes, to):
    """Each of `axes` padded or truncated (the rules above) to `to`'s extent on it."""
    for a in axes:
        F = (pad_axis if to[a] > F.shape[a] else truncate_axis)(F, a, to[a])
    return F


@pytest.mark.parametrize("dtype", [np.float64, np.complex128], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("case", ND_CASES, ids=lambda c: "x".join(map(str, c[0])) + "_axes" + "".join(map(str, c[1])))
def test_nd_padded_transforms_match_numpy(comm, dtype, case):
    shape, axes, padding, options = case
    ratios = np.broadcast_to(np.asarray(padding, dtype=float), (len(axes),))
    m = list(shape)
    for a, r in zip(axes, ratios):
        m[a] = int(np.floor(shape[a] * r))
    m = tuple(m)
    real = np.dtype(dtype).kind == "f"
    N, M = np.prod([shape[a] for a in axes]), np.prod([m[a] for a in axes])
    with nbfft.NdPlan(comm, shape, axes=axes, dtype=dtype, padding=padding, effort="estimate", **options) as plan:
        assert plan.global_shape == m
        half = list(shape)
        if real:
            half[axes[-1]] = shape[axes[-1]] // 2 + 1
        assert plan.global_out_shape == tuple(half)
        # Forward of a field on the physical grid: its spectrum truncated to the n grid's modes, times N/M.
        f = global_field(m, dtype, seed=4)
        full = resize_axes(np.fft.fftn(f.astype(np.complex128), axes=axes), axes, shape) * (N / M)
        want = full[tuple(slice(0, h) for h in half)]
        if plan.lean_workspace:
            a, A = plan.empty_inplace()
            a[...] = plan.scatter(f if comm.rank == 0 else None)
            U = plan.forward(a, out=A).copy()
        else:
            U = plan.forward(plan.scatter(f if comm.rank == 0 else None))
        got = plan.gather(U, root=None, space="output")
        assert_close_everywhere(got, want, dtype)
        # Backward: that spectrum zero-padded to the physical grid, inverted there with 1/N.
        back = np.fft.ifftn(resize_axes(full, axes, m), axes=axes) * (M / N)
        back = back.real if real else back
        if plan.lean_workspace:
            A[...] = U
            u = plan.backward(A, out=a)
        else:
            u = plan.backward(U)
        assert_close_everywhere(plan.gather(u, root=None), back, dtype)


def test_nd_bad_padding_fails_on_every_rank(comm):
    for bad, kind, words in (((1.5, 2, 1), nbfft.InvalidArgument, "3 entries for 2 axes"),
                             ((0.5,), nbfft.InvalidArgument, "padding"),
                             (("a",), nbfft.ArgumentTypeError, "padding must be a number"),
                             (1.5, nbfft.InvalidArgument, "periodic axes only")):
        raised = None
        try:
            nbfft.NdPlan(comm, (8, 6), padding=bad, kinds=("dct2", "periodic") if bad == 1.5 else None).close()
        except kind as e:
            raised = str(e)
        assert all_ranks(raised is not None and words in raised), (bad, raised)


def test_nd_padded_user_boxes_and_tuning_match_the_plain_padded_plan(comm):
    """A padded NdPlan on the caller's own input blocks (rows of the padded grid's axis 1) and a
    tuned one give the default padded plan's spectrum."""
    shape, m = (10, 9), (15, 13)  # padding (1.5, 1.5): floor(10 * 1.5), floor(9 * 1.5)
    P, r = comm.size, comm.rank
    lo, hi = r * m[1] // P, (r + 1) * m[1] // P
    f = global_field(m, np.float64, seed=7)
    with nbfft.NdPlan(comm, shape, padding=1.5, effort="estimate") as plain:
        want = plain.gather(plain.forward(plain.scatter(f if r == 0 else None)), root=None, space="output")
    with nbfft.NdPlan(comm, shape, padding=1.5, effort="estimate", in_box=((0, lo), (m[0], hi - lo))) as boxed:
        assert boxed.global_shape == m and boxed.in_shape == (m[0], hi - lo)
        U = boxed.forward(np.ascontiguousarray(f[:, lo:hi]))
        assert_close_everywhere(boxed.gather(U, root=None, space="output"), want, np.float64)
        assert_close_everywhere(boxed.backward(U), plain_back(shape, m, want)[:, lo:hi], np.float64)
    with nbfft.NdPlan(comm, shape, padding=1.5, effort="estimate", tune="quick", tune_budget=0.3) as tuned:
        assert tuned.options.padding == "1.5"
        U = tuned.forward(tuned.scatter(f if r == 0 else None))
        assert_close_everywhere(tuned.gather(U, root=None, space="output"), want, np.float64)


def plain_back(shape, m, half):
    """The physical field of an r2c spectrum `half` of the `shape` grid, zero-padded to `m`."""
    n = shape
    F = np.zeros(n, dtype=complex)
    F[:, :n[1] // 2 + 1] = half
    # the Hermitian rest of the full spectrum (numpy's order on every axis)
    k0 = (-np.arange(n[0])) % n[0]
    for j in range(n[1] // 2 + 1, n[1]):
        F[:, j] = np.conj(half[k0, n[1] - j])
    N, M = np.prod(n), np.prod(m)
    return np.fft.ifftn(resize_axes(F, (0, 1), m)).real * (M / N)
