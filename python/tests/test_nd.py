"""nbfft.NdPlan against numpy.fft.rfftn / fftn over the same axes on uneven shapes at every
rank count the suite runs: 2-D, 3-D over two axes (the channel case), 4-D over three, 5-D
over two, r2c and c2c, every transport (rotated over the cases and rank counts, so each
case is small and each transport runs at every rank count); forward_many / backward_many,
the split-phase forward_start / backward_start, and a batch axis (bit for bit against one field at a time, and against numpy); single
precision and sine/cosine kinds (against scipy's dct/dst); gather /
scatter, wavenumbers and boxes; and its errors."""

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


# Every transport but rma (its windows on several sub-communicators are unreliable in Open
# MPI 4.1, as tests/fft/test_transform.cpp notes; test_every_transport runs it on slabs).
TRANSPORTS = ["blocking", "native", "caller", "thread", "pairwise:2@caller", "pairwise:3@thread"]


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_against_numpy(case, dtype):
    shape, axes = CASES[case]
    # Rotated: another transport for each case, dtype and rank count.
    transport = TRANSPORTS[(case + (dtype == np.complex128) * 3 + P) % len(TRANSPORTS)]
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
        G = p.gather(U, root=None, space="output")
        assert all_ranks(np.array_equal(G, gather(p, U, True)))
        assert all_ranks(np.abs(G - ref).max() < 1e-12 * max(1.0, np.abs(ref).max()))


THREAD_CASES = [((40, 36), None, {}), ((12, 7, 20), (0, 2), {"output_order": "transposed"}),
                ((3, 12, 10, 16), (1, 2, 3), {"batch_axis": 0, "transport": "pairwise@caller"}),
                ((12, 10, 16), None, {})]


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
@pytest.mark.parametrize("case", range(len(THREAD_CASES)))
def test_threads_against_numpy(case, dtype):
    """threads=2 (docs/nd.md "Threads inside each rank"): the plan says it runs them and
    matches numpy on a 2-D array, 3-D over two axes, a 4-D batch and 3-D over every axis (on
    the 3-D plan, which takes the threads)."""
    shape, axes, extra = THREAD_CASES[case]
    g = global_array(shape, dtype)
    ax = axes if axes is not None else tuple(a for a in range(len(shape)) if a != extra.get("batch_axis"))
    ref = np.fft.rfftn(g, axes=ax) if dtype == np.float64 else np.fft.fftn(g, axes=ax)
    with nbfft.NdPlan(COMM, shape, axes=axes, dtype=dtype, threads=2, effort="estimate", **extra) as p:
        assert p.options.threads == 2
        assert "the 3-D plan" in p.describe() or "2 threads" in p.describe(), p.describe()
        u = np.ascontiguousarray(g[p.in_slices])
        U = p.forward(u)
        G = p.gather(U, root=None, space="output")
        assert all_ranks(np.abs(G - ref).max() < 1e-12 * max(1.0, np.abs(ref).max())), p.describe()
        assert all_ranks(np.abs(p.backward(U) - u).max(initial=0) < 1e-12), p.describe()


@pytest.mark.skipif(COMM.size != 4, reason="the pipelined exchanges need a 2-D process grid: run at 4 ranks")
@pytest.mark.parametrize("words", [{"col_chunk_planes": 2}, {"col_chunk_planes": 1, "col_depth": 1},
                                   {"col_kernel": "overlap"}, {"col_chunk_planes": 2, "transport": "thread"}],
                         ids=["planes2", "planes1_depth1", "overlap", "thread"])
def test_plane_pipeline_against_numpy(words):
    """col_chunk_planes on an N-D plan (docs/nd.md "Plane-pipelined exchanges"): the second
    exchange of a 4-D array over axes 1-3 on a 1x2x2x1 grid runs in chunks of planes of axis
    0 (describe() says so) and the result is numpy's."""
    shape, axes = (5, 8, 6, 10), (1, 2, 3)
    g = global_array(shape, np.float64)
    ref = np.fft.rfftn(g, axes=axes)
    with nbfft.NdPlan(COMM, shape, axes=axes, grid=(1, 2, 2, 1), effort="estimate", **words) as p:
        assert " chunks of " in p.describe(), p.describe()
        u = np.ascontiguousarray(g[p.in_slices])
        U = p.forward(u)
        G = p.gather(U, root=None, space="output")
        assert all_ranks(np.abs(G - ref).max() < 1e-12 * max(1.0, np.abs(ref).max())), p.describe()
        assert all_ranks(np.abs(p.backward(U) - u).max(initial=0) < 1e-12), p.describe()


@pytest.mark.parametrize("transport", TRANSPORTS + ["rma"])
def test_every_transport(transport):
    """Every transport at every rank count on a 2-D slab plan (one exchange) and, but for
    rma, a 4-D one over three axes."""
    cases = [((9, 7), (0, 1), (P, 1))] + ([] if transport == "rma" else [((3, 5, 4, 6), (1, 2, 3), None)])
    for shape, axes, grid in cases:
        g = global_array(shape, np.float64)
        try:
            p = nbfft.NdPlan(COMM, shape, axes=axes, grid=grid, transport=transport)
        except nbfft.Unavailable:
            assert transport == "rma"  # no one-sided component in this MPI: raised on every rank
            return
        with p:
            U = p.forward(p.scatter(g if COMM.rank == 0 else None))
            ref = np.fft.rfftn(g, axes=axes)
            assert all_ranks(np.abs(U - ref[p.out_slices]).max(initial=0) < 1e-12 * np.abs(ref).max())
            assert all_ranks(np.abs(p.backward(U) - g[p.in_slices]).max(initial=0) < 1e-12)


@pytest.mark.parametrize("root", [0, P - 1, None])
def test_gather_scatter(root):
    shape, axes = (5, 3, 7), (0, 2)
    for dtype in (np.float64, np.complex128):
        g = global_array(shape, dtype)
        with nbfft.NdPlan(COMM, shape, axes=axes, dtype=dtype, grid=(P, 1, 1)) as p:
            at = 0 if root is None else root
            u = p.scatter(g if COMM.rank == at else None, root=at)
            assert all_ranks(np.array_equal(u, g[p.in_slices]))
            G = p.gather(u, root=root)
            assert all_ranks((G is None) == (root is not None and COMM.rank != root))
            assert all_ranks(G is None or np.array_equal(G, g))
            H = np.fft.rfftn(g, axes=axes) if dtype == np.float64 else np.fft.fftn(g, axes=axes)
            U = p.scatter(H if COMM.rank == at else None, root=at, space="output")
            assert all_ranks(np.array_equal(U, H[p.out_slices]))
            assert all_ranks(np.abs(p.backward(U) - u).max(initial=0) < 1e-12)
            out = np.empty(p.in_shape, dtype)
            assert p.scatter(g if COMM.rank == at else None, root=at, out=out) is out


@pytest.mark.skipif(P < 2, reason="needs two ranks to disagree")
def test_gather_scatter_roots_that_differ_fail_on_every_rank():
    """Roots each valid on their own but not the same (or another space) would pair sends
    with no receive: RanksDisagree on every rank, never a hang."""
    shape = (6, 4, 5)
    g = global_array(shape, np.float64)
    with nbfft.NdPlan(COMM, shape, grid=(P, 1, 1)) as p:
        u = np.ascontiguousarray(g[p.in_slices])
        e = raises_everywhere(nbfft.RanksDisagree, lambda: p.gather(u, root=0 if COMM.rank == 0 else 1))
        assert "ranks disagree on root" in str(e)
        e = raises_everywhere(nbfft.RanksDisagree, lambda: p.gather(u, root=None if COMM.rank == 0 else 0))
        assert "ranks disagree on root" in str(e)
        e = raises_everywhere(nbfft.RanksDisagree, lambda: p.scatter(g, root=COMM.rank % 2))
        assert "ranks disagree on root" in str(e)
        assert all_ranks(np.array_equal(p.scatter(g if COMM.rank == 0 else None, root=0), u))  # still usable


def test_boxes_and_wavenumbers():
    shape, axes = (6, 5, 8), (0, 2)          # channel: kz, y, kx
    L = (2.0, 1.0, 3.0)
    with nbfft.NdPlan(COMM, shape, axes=axes, grid=(P, 1, 1)) as p:
        lo, n = p.out_box
        assert tuple(slice(a, a + b) for a, b in zip(lo, n)) == p.out_slices
        assert p.in_box_of(COMM.rank) == p.in_box
        assert sum(int(np.prod(p.in_box_of(r)[1])) for r in range(P)) == int(np.prod(shape))
        kz, ky, kx = p.wavenumbers()
        assert ky is None
        full_kx, full_kz = np.fft.rfftfreq(8, 1 / 8), np.fft.fftfreq(6, 1 / 6)
        assert all_ranks(np.array_equal(kx.ravel(), full_kx[p.out_slices[2]]) and kx.shape == (1, 1, n[2]))
        assert all_ranks(np.array_equal(kz.ravel(), full_kz[p.out_slices[0]]) and kz.shape == (n[0], 1, 1))
        kz, _, kx = p.wavenumbers(length=L)
        assert all_ranks(np.allclose(kx.ravel(), 2 * np.pi / 3.0 * full_kx[p.out_slices[2]]))
        kz, _, _ = p.wavenumbers(d=0.5)
        assert all_ranks(np.allclose(kz.ravel(), np.fft.fftfreq(6, 0.5)[p.out_slices[0]]))
        # d/dx and d/dz of a sampled field, spectrally.
        z = np.arange(6)[:, None, None] * 2 * np.pi / 6
        x = np.arange(8)[None, None, :] * 2 * np.pi / 8
        f = np.sin(2 * x) * np.cos(z) + np.zeros(shape)
        kz, _, kx = p.wavenumbers()
        dfdx = p.backward(1j * kx * p.forward(np.ascontiguousarray(f[p.in_slices])))
        assert all_ranks(np.allclose(dfdx, (2 * np.cos(2 * x) * np.cos(z) + np.zeros(shape))[p.in_slices]))
        with pytest.raises(nbfft.InvalidArgument):
            p.wavenumbers(d=1.0, length=1.0)


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


@pytest.mark.parametrize("transport", ["blocking", "pairwise:2@caller", "thread"])
def test_forward_many_equals_forward(transport):
    """Three fields in one call (a list, and stacked) against three calls, bit for bit, and
    against numpy; r2c and c2c, a grid with an exchange across an axis."""
    for shape, axes, grid, dtype in [((7, 6), (0, 1), None, np.float64),
                                      ((6, 3, 8), (2, 0), (P, 1, 1), np.complex128)]:
        with nbfft.NdPlan(COMM, shape, axes=axes, grid=grid, dtype=dtype, transport=transport) as p:
            assert p.fields_in_flight == 2 and p.batch_axis is None
            gs = [global_array(shape, dtype) * (k + 1) + k for k in range(3)]
            us = [np.ascontiguousarray(g[p.in_slices]) for g in gs]
            Us = p.forward_many(us)
            assert isinstance(Us, list) and len(Us) == 3
            for g, u, U in zip(gs, us, Us):
                assert all_ranks(np.array_equal(U, p.forward(u)))
                ref = np.fft.rfftn(g, axes=axes) if dtype == np.float64 else np.fft.fftn(g, axes=axes)
                assert all_ranks(np.abs(U - ref[p.out_slices]).max(initial=0) < 1e-12 * np.abs(ref).max())
            stacked = p.forward_many(np.stack(us))
            assert stacked.shape == (3,) + p.out_shape and all_ranks(np.array_equal(stacked, np.stack(Us)))
            back = p.backward_many(Us)
            for u, v, U in zip(us, back, Us):
                assert all_ranks(np.array_equal(v, p.backward(U)))
                assert all_ranks(np.abs(v - u).max(initial=0) < 1e-12)


@pytest.mark.parametrize("transport", ["blocking", "pairwise:2@caller", "thread"])
def test_split_phase_equals_blocking_calls(transport):
    """forward_start / backward_start: several transforms in flight at once (two exchanges
    on the 4-D case, so wait() is collective there), finished in start order, each bit for
    bit the blocking call's; test() and progress() between; a batch plan; close() waits for
    a transform still in flight."""
    for shape, axes, dtype, batch in [((7, 6), (0, 1), np.float64, None),
                                      ((3, 5, 4, 6), (1, 2, 3), np.complex128, None),
                                      ((3, 8, 6), (1, 2), np.float64, 0)]:
        with nbfft.NdPlan(COMM, shape, axes=axes, dtype=dtype, transport=transport, batch_axis=batch) as p:
            gs = [global_array(shape, dtype) * (k + 1) for k in range(3)]
            us = [np.ascontiguousarray(g[p.in_slices]) for g in gs]
            ts = [p.forward_start(u) for u in us]
            assert all(t.active for t in ts)
            for t in ts:
                t.progress()
                t.test()
            for t in ts:
                t.wait()
                assert not t.active and t.test()
                t.wait()  # a second wait is a no-op
            for u, t in zip(us, ts):
                assert all_ranks(np.array_equal(t.out, p.forward(u))), p.describe()
            U = ts[1].out
            ref = np.fft.rfftn(gs[1], axes=axes) if dtype == np.float64 else np.fft.fftn(gs[1], axes=axes)
            assert all_ranks(np.abs(U - ref[p.out_slices]).max(initial=0) < 1e-12 * np.abs(ref).max())
            v = np.full(p.in_shape, np.nan, p.in_dtype)
            with p.backward_start(U, v) as t:
                assert t.out is v
            assert all_ranks(np.array_equal(v, p.backward(U)))
            assert all_ranks(np.abs(v - us[1]).max(initial=0) < 1e-12)
            left = p.forward_start(us[0])  # still in flight at close()
        assert not left.active and all_ranks(np.array_equal(left.out, ts[0].out))


@pytest.mark.parametrize("batch_axis", [0, 1, -1])
def test_batch_axis_against_numpy(batch_axis):
    """A batch of fields as one more axis (slowest, middle, fastest): rfftn / fftn over the
    other axes, the batch axis whole on every rank, each slice equal to a one-field plan."""
    for dtype in (np.float64, np.complex128):
        shape = (3, 8, 6) if batch_axis == 0 else (8, 3, 6) if batch_axis == 1 else (8, 6, 3)
        b = batch_axis % 3
        axes = tuple(a for a in range(3) if a != b)
        g = global_array(shape, dtype)
        ref = np.fft.rfftn(g, axes=axes) if dtype == np.float64 else np.fft.fftn(g, axes=axes)
        with nbfft.NdPlan(COMM, shape, axes=axes if dtype == np.float64 else None, dtype=dtype,
                          batch_axis=batch_axis, transport="pairwise:2@caller") as p:   # None: all but the batch
            assert p.batch_axis == b and p.grid[b] == 1 and p.in_shape[b] == shape[b]
            assert "batch axis {}".format(b) in p.describe()
            u = p.scatter(g if COMM.rank == 0 else None)
            U = p.forward(u)
            assert all_ranks(np.abs(U - ref[p.out_slices]).max(initial=0) < 1e-12 * np.abs(ref).max()), p.describe()
            assert all_ranks(np.abs(p.backward(U) - u).max(initial=0) < 1e-12)
            kb = p.wavenumbers()[b]
            assert kb is None
            field_shape = tuple(n for a, n in enumerate(shape) if a != b)
            field_axes = tuple(a - (a > b) for a in axes)
            grid = tuple(n for a, n in enumerate(p.grid) if a != b)
            with nbfft.NdPlan(COMM, field_shape, axes=field_axes, dtype=dtype, grid=grid) as q:
                for j in range(shape[b]):
                    Uj = q.forward(np.ascontiguousarray(np.take(u, j, axis=b)))
                    assert all_ranks(np.array_equal(Uj, np.take(U, j, axis=b)))


def r2r_reference(g, axes, kinds):
    """The forward transform of g along each listed axis: numpy's DFT or scipy's r2r kind."""
    import scipy.fft
    out = g.astype(np.complex128)
    for a, k in zip(axes, kinds):
        if k == "periodic":
            out = np.fft.fft(out, axis=a)
        else:
            f, t = (scipy.fft.dct if k.startswith("dct") else scipy.fft.dst), int(k[3])
            out = f(out.real, type=t, axis=a) + 1j * f(out.imag, type=t, axis=a)
    return out


@pytest.mark.parametrize("dtype", [np.float32, np.complex64, np.float64, np.complex128])
def test_single_precision_and_kinds(dtype):
    """float32 / complex64 run in single precision; kinds per listed axis against scipy's
    dct/dst (a real spectrum when every listed axis is r2r on real input); every dtype with
    forward_many and a batch axis."""
    tol = 2e-5 if np.dtype(dtype) in (np.dtype(np.float32), np.dtype(np.complex64)) else 1e-12
    real = np.dtype(dtype).kind == "f"
    cases = [((7, 6), (0, 1), None), ((6, 5, 8), (0, 2), ("dst2", "periodic")),
             ((5, 3, 6), (0, 2), ("dct1", "dst3")), ((4, 5, 3, 6), (1, 3, 0), ("periodic", "dct2", "periodic"))]
    for k, (shape, axes, kinds) in enumerate(cases):
        g = global_array(shape, dtype)
        full = r2r_reference(g, axes, kinds or ("periodic",) * len(axes))
        kk = kinds or ("periodic",) * len(axes)
        periodic = [a for a, w in zip(axes, kk) if w == "periodic"]
        if real and periodic:
            cut = [slice(None)] * len(shape)
            cut[periodic[-1]] = slice(0, shape[periodic[-1]] // 2 + 1)
            full = full[tuple(cut)]
        elif real:
            full = full.real
        transport = ["blocking", "pairwise:2@caller", "thread"][(k + P) % 3]
        with nbfft.NdPlan(COMM, shape, axes=axes, dtype=dtype, kinds=kinds, transport=transport) as p:
            assert p.in_dtype == np.dtype(dtype) and p.kinds == kk
            assert p.out_dtype.kind == ("f" if real and not periodic else "c")
            assert p.out_dtype.itemsize == (np.dtype(dtype).itemsize * (1 if not real or not periodic else 2))
            u = p.scatter(g if COMM.rank == 0 else None)
            U = p.forward(u)
            scale = max(1.0, np.abs(full).max())
            assert all_ranks(np.abs(U - full[p.out_slices]).max(initial=0) < tol * scale), (p.describe(), dtype)
            assert all_ranks(np.abs(p.backward(U) - u).max(initial=0) < tol * max(1.0, np.abs(g).max()))
            assert all_ranks(all(np.array_equal(a, p.forward(b)) for a, b in zip(p.forward_many([u, 2 * u]), [u, 2 * u])))
    g = global_array((2, 7, 6), dtype)
    with nbfft.NdPlan(COMM, (2, 7, 6), dtype=dtype, batch_axis=0, kinds=("dct2", "periodic"),
                      transport="pairwise:2@caller") as p:
        full = r2r_reference(g, (1, 2), ("dct2", "periodic"))
        if real:
            full = full[:, :, :4]
        U = p.forward(p.scatter(g if COMM.rank == 0 else None))
        assert all_ranks(np.abs(U - full[p.out_slices]).max(initial=0) < tol * np.abs(full).max())
        _, ky, kx = p.wavenumbers(length=(1.0, 3.0, 2.0))
        assert all_ranks(np.allclose(ky.ravel(), np.pi / 3.0 * np.arange(7)[p.out_slices[1]]))
        with pytest.raises(nbfft.InvalidArgument):
            p.wavenumbers(d=0.5)


@pytest.mark.parametrize("case", [((9, 8), (0, 1), None), ((5, 4, 6), (0, 2), None), ((6, 1, 7), (0, 2), None),
                                  ((3, 5, 4, 6), (1, 2, 3), 0), ((4, 3, 5, 6), (0, 2, 3), 1)])
def test_transposed_output_order(case):
    """output_order='transposed': the spectrum block is rfftn's block with the two slowest
    transformed axes traded in memory; backward, gather / scatter, wavenumbers and
    forward_many follow it."""
    shape, axes, batch = case
    g = global_array(shape, np.float64)
    ref = np.fft.rfftn(g, axes=axes)
    transport = ["pairwise:2@caller", "thread", "blocking"][P % 3]
    with nbfft.NdPlan(COMM, shape, axes=axes, output_order="transposed", batch_axis=batch,
                      transport=transport) as p:
        two = sorted(axes)[:2]
        order = list(range(len(shape)))
        order[two[0]], order[two[1]] = order[two[1]], order[two[0]]
        assert p.out_order == tuple(order)
        u = np.ascontiguousarray(g[p.in_slices])
        U = p.forward(u)
        want = ref[p.out_slices].transpose(order)
        assert U.shape == p.out_shape == want.shape and U.flags.c_contiguous
        scale = max(1.0, np.abs(ref).max())
        assert all_ranks(np.abs(U - want).max(initial=0) < 1e-12 * scale), p.describe()
        assert all_ranks(np.abs(p.backward(U) - u).max(initial=0) < 1e-12)
        G = p.gather(U, root=None, space="output")
        assert all_ranks(np.abs(G - ref).max() < 1e-12 * scale)
        V = p.scatter(ref if COMM.rank == 0 else None, root=0, space="output")
        assert all_ranks(np.array_equal(V, np.ascontiguousarray(want)))
        # The wavenumbers broadcast against the block: d/dx of the last axis, spectrally.
        ks = p.wavenumbers()
        kx = ks[axes[-1]]
        assert all_ranks(kx.shape[order.index(axes[-1])] == U.shape[order.index(axes[-1])])
        d = p.backward(1j * kx * U)
        dref = np.fft.irfftn(1j * np.fft.rfftfreq(shape[axes[-1]], 1 / shape[axes[-1]]).reshape(
            [-1 if a == axes[-1] else 1 for a in range(len(shape))]) * ref, s=[shape[a] for a in axes], axes=axes)
        assert all_ranks(np.abs(d - dref[p.in_slices]).max(initial=0) < 1e-9 * scale)
        many = p.forward_many([u, 2 * u])
        assert all_ranks(np.array_equal(many[0], U) and np.array_equal(many[1], p.forward(2 * u)))
    with nbfft.NdPlan(COMM, (4, 6), output_order="natural") as p:
        assert p.out_order == (0, 1)


def test_errors_on_every_rank():
    raises_everywhere(nbfft.InvalidArgument, lambda: nbfft.NdPlan(COMM, (4, 5), axes=(0, 2)))
    raises_everywhere(nbfft.InvalidArgument, lambda: nbfft.NdPlan(COMM, (4, 5), axes=(1, -1)))
    raises_everywhere(nbfft.InvalidArgument, lambda: nbfft.NdPlan(COMM, (4, 5), dtype=np.int32))
    raises_everywhere(nbfft.InvalidArgument, lambda: nbfft.NdPlan(COMM, (4, 5), kinds=("dct9", "periodic")))
    raises_everywhere(nbfft.InvalidArgument, lambda: nbfft.NdPlan(COMM, (4, 5), kinds=("dct2",)))
    raises_everywhere(nbfft.ArgumentTypeError, lambda: nbfft.NdPlan(COMM, (4, 5), kinds=(2, 3)))
    raises_everywhere(nbfft.InvalidArgument, lambda: nbfft.NdPlan(COMM, (4, 5), norm="sideways"))
    raises_everywhere(nbfft.InvalidArgument, lambda: nbfft.NdPlan(COMM, (8, 8), grid=(P, 2)))
    raises_everywhere(nbfft.ArgumentTypeError, lambda: nbfft.NdPlan(COMM, (4, "x")))
    if P > 1:
        raises_everywhere(nbfft.RanksDisagree, lambda: nbfft.NdPlan(COMM, (4 + COMM.rank, 5)))
    if P > 2:
        e = raises_everywhere(nbfft.InvalidArgument, lambda: nbfft.NdPlan(COMM, (2, 9), allow_empty=False))
        assert "cannot decompose" in str(e)
    raises_everywhere(nbfft.ArgumentTypeError, lambda: nbfft.NdPlan(COMM, (2, 9), allow_empty="no"))
    with nbfft.NdPlan(COMM, (6, 8)) as p:
        u = np.zeros(p.in_shape)
        bad = u if COMM.rank else np.zeros(p.in_shape, np.float32)
        raises_everywhere(nbfft.InvalidArgument, lambda: p.forward(bad))
        raises_everywhere(nbfft.InvalidArgument, lambda: p.gather(bad))
        raises_everywhere(nbfft.InvalidArgument, lambda: p.gather(u, root=P))
        raises_everywhere(nbfft.InvalidArgument, lambda: p.gather(u, space="spectrum"))
        g = np.zeros((6, 8) if COMM.rank else (8, 6))
        raises_everywhere(nbfft.InvalidArgument, lambda: p.scatter(g, root=0))
        raises_everywhere(nbfft.InvalidArgument, lambda: p.forward_many([u, bad]))
        raises_everywhere(nbfft.InvalidArgument, lambda: p.forward_many([u, u], out=[p.forward(u)]))
        raises_everywhere(nbfft.ArgumentTypeError, lambda: p.forward_many(u.tolist()[0][0]))
        raises_everywhere(nbfft.InvalidArgument, lambda: p.forward_start(bad))
        raises_everywhere(nbfft.InvalidArgument, lambda: p.backward_start(p.forward(u), bad))
    raises_everywhere(nbfft.InvalidState, lambda: p.forward(u))
    e = raises_everywhere(nbfft.InvalidArgument, lambda: nbfft.NdPlan(COMM, (3, 4, 5), axes=(0, 2), batch_axis=2))
    assert "batch axis" in str(e)
    e = raises_everywhere(nbfft.InvalidArgument, lambda: nbfft.NdPlan(COMM, (3, 4, 5), batch_axis=0, fields_in_flight=0))
    assert "fields_in_flight" in str(e)
    raises_everywhere(nbfft.ArgumentTypeError, lambda: nbfft.NdPlan(COMM, (3, 4, 5), batch_axis="0"))
    e = raises_everywhere(nbfft.InvalidArgument, lambda: nbfft.NdPlan(COMM, (3, 4), output_order="sideways"))
    assert "output_order" in str(e)


def test_sizes_that_overflow_or_cannot_be_allocated():
    """Shapes whose element counts overflow are refused before anything is allocated, naming the
    shape (C++'s check; extents beyond 2**62 Python's own); one no rank can allocate is OutOfMemory."""
    e = raises_everywhere(nbfft.InvalidArgument, lambda: nbfft.NdPlan(COMM, (2**40, 2**40)))
    assert "shape 1099511627776x1099511627776: 2^80 elements overflow a 64-bit count" in str(e)
    e = raises_everywhere(nbfft.InvalidArgument, lambda: nbfft.NdPlan(COMM, (2**31, 2**31, 4)))  # the 3-D plan's case
    assert "2^64 elements overflow" in str(e)
    e = raises_everywhere(nbfft.InvalidArgument, lambda: nbfft.NdPlan(COMM, (2**70, 4)))
    assert "shape[0] must be in [1, 2**62]" in str(e)
    e = raises_everywhere(nbfft.OutOfMemory, lambda: nbfft.NdPlan(COMM, (2**46, 2), axes=(1,), dtype=np.complex128))
    assert "cannot allocate" in str(e) and isinstance(e, MemoryError)


def test_tuned_plan_matches_numpy_and_reports():
    shape, axes = (10, 6, 9), (0, 2)
    g = global_array(shape, np.float64)
    with nbfft.NdPlan(COMM, shape, axes=axes, tune="quick", tune_budget=120, tune_fields=2) as p:
        report = p.tune_report
        assert report is not None and report.startswith("nd tune: ")
        assert "untuned" in report
        assert int(np.prod(p.grid)) == P
        chosen = "grid={} transport={} fields_in_flight={}".format(
            "x".join(str(x) for x in p.grid), p.transport, p.fields_in_flight)
        assert chosen in report, (chosen, report)
        u = np.ascontiguousarray(g[p.in_slices])
        U = p.forward(u)
        ref = np.fft.rfftn(g, axes=axes)[p.out_slices]
        assert np.allclose(U, ref, atol=1e-12 * np.abs(ref).max())
        assert np.allclose(p.backward(U), u, atol=1e-12)
        grid, transport = p.grid, p.transport
    # The same arguments again: from this process's memory, the same choice.
    with nbfft.NdPlan(COMM, shape, axes=axes, tune="quick", tune_budget=120, tune_fields=2) as p:
        assert "memory" in p.tune_report
        assert (p.grid, p.transport) == (grid, transport)
    with nbfft.NdPlan(COMM, shape, axes=axes) as p:
        assert p.tune_report is None


@pytest.mark.parametrize("case", [((8, 12), (0, 1), np.float64, "transposed"),
                                  ((5, 6, 9), (0, 2), np.complex128, "natural"),
                                  ((4, 6, 10), (0, 1, 2), np.float64, "transposed")])
def test_in_place_and_lean_workspace(case):
    """In place (empty_inplace) and on a lean plan: as numpy, and as the plan out of place."""
    shape, axes, dtype, order = case
    g = global_array(shape, dtype)
    ref = np.fft.rfftn(g, axes=axes) if dtype == np.float64 else np.fft.fftn(g, axes=axes)
    with nbfft.NdPlan(COMM, shape, axes=axes, dtype=dtype, output_order=order, transport="pairwise:2@caller") as p, \
            nbfft.NdPlan(COMM, shape, axes=axes, dtype=dtype, output_order=order, transport="pairwise:2@caller",
                         lean_workspace=True) as lean:
        assert not p.lean_workspace
        # The lean 3-D plan's own layout may refuse (describe says why); nd's own steps never do here.
        assert lean.lean_workspace or "not lean" in lean.describe()
        if lean.lean_workspace and len(shape) == 2:
            assert lean.workspace_bytes < p.workspace_bytes
        u = np.ascontiguousarray(g[p.in_slices])
        U = p.forward(u)
        assert np.allclose(U, ref[p.out_slices].transpose(p.out_order), atol=1e-10)
        for q in (p, lean):
            a, A = q.empty_inplace()
            assert np.shares_memory(a, A) and q.inplace_bytes >= max(a.nbytes, A.nbytes)
            a[...] = u
            assert q.forward(a, out=A) is A
            assert np.array_equal(A, U)
            q.backward(A, out=a)
            assert np.allclose(a, u, atol=1e-12)
        if lean.lean_workspace:
            with pytest.raises(nbfft.InvalidArgument, match="in place only"):
                lean.forward(u)


def test_lean_uses_no_memory_it_was_not_given():
    """In place on views into a larger array (not from empty_inplace): the call spans the two
    views only, so where a lean plan needs more (8x12 at 4 ranks: a middle stage larger than
    both boxes) it fails on every rank, and the memory after the views stays untouched."""
    with nbfft.NdPlan(COMM, (8, 12), output_order="transposed", lean_workspace=True) as p:
        ni, no = int(np.prod(p.in_shape)) * 8, int(np.prod(p.out_shape)) * 16
        size = max(ni, no)
        big = np.zeros(2 * size + 128, np.uint8)
        at = -big.ctypes.data % 64
        a = big[at:at + ni].view(np.float64).reshape(p.in_shape)
        A = big[at:at + no].view(np.complex128).reshape(p.out_shape)
        big[at + size:] = 7
        a[...] = 1.0
        if any(COMM.allgather(p.inplace_bytes > size)):
            with pytest.raises(nbfft.InvalidArgument, match="in-place array has"):
                p.forward(a, out=A)
        else:
            assert p.forward(a, out=A) is A
        assert np.all(big[at + size:] == 7)


@pytest.mark.parametrize("shape", [(2, 9), (1, 3, 2)])
def test_empty_parts_against_numpy(shape):
    """Arrays smaller than the rank count: some ranks hold nothing at some stages."""
    g = global_array(shape, np.complex128)
    with nbfft.NdPlan(COMM, shape, dtype=np.complex128, transport="pairwise:2@caller") as p:
        U = p.forward(np.ascontiguousarray(g[p.in_slices]))
        assert np.allclose(U, np.fft.fftn(g)[p.out_slices], atol=1e-12)
        assert np.allclose(p.gather(p.backward(U), root=None), g, atol=1e-12)


def _slab(shape, axis, rank, size):
    """Rank's block of shape cut into uneven slabs along axis: (start, shape)."""
    cuts = [shape[axis] * sum(range(1, q + 1)) // sum(range(1, size + 1)) for q in range(size + 1)]
    start = [0] * len(shape)
    extent = list(shape)
    start[axis], extent[axis] = cuts[rank], cuts[rank + 1] - cuts[rank]
    return tuple(start), tuple(extent)


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_user_boxes_against_numpy(dtype):
    shape, axes = (6, 7, 10), (0, 2)
    g = global_array(shape, dtype)
    ref = np.fft.rfftn(g, axes=axes) if dtype == np.float64 else np.fft.fftn(g, axes=axes)
    in_box = _slab(shape, 2, COMM.rank, P)
    out_box = _slab(ref.shape, 1, COMM.rank, P)
    with nbfft.NdPlan(COMM, shape, axes=axes, dtype=dtype, in_box=in_box, out_box=out_box,
                      transport="pairwise:2@caller", output_order="transposed") as p:
        assert p.in_shape == in_box[1] and p.out_shape == out_box[1]
        assert p.out_order == (0, 1, 2)  # the caller's blocks are C order
        assert p.user_boxes  # the plan's spectrum is transposed, the caller's block is not
        u = np.ascontiguousarray(g[p.in_slices])
        U = p.forward(u)
        assert U.shape == out_box[1]
        assert np.allclose(U, ref[p.out_slices], atol=1e-12 * np.abs(ref).max())
        assert np.allclose(p.backward(U), u, atol=1e-12)
        assert np.allclose(p.gather(U, root=None, space="output"), ref, atol=1e-12 * np.abs(ref).max())
    if P > 1:
        e = raises_everywhere(nbfft.InvalidArgument,
                              lambda: nbfft.NdPlan(COMM, shape, axes=axes, in_box=((0, 0, 0), shape)))
        assert "overlap" in str(e)
    raises_everywhere(nbfft.ArgumentTypeError, lambda: nbfft.NdPlan(COMM, shape, in_box=(0, 0)))


def test_tune_errors_on_every_rank():
    e = raises_everywhere(nbfft.InvalidArgument, lambda: nbfft.NdPlan(COMM, (4, 5), tune="fast"))
    assert "tune" in str(e)
    e = raises_everywhere(nbfft.InvalidArgument, lambda: nbfft.NdPlan(COMM, (4, 5), tune="quick", tune_budget=0))
    assert "tune_budget" in str(e)
    raises_everywhere(nbfft.ArgumentTypeError, lambda: nbfft.NdPlan(COMM, (4, 5), tune="quick", tune_budget="5"))
    raises_everywhere(nbfft.InvalidArgument, lambda: nbfft.NdPlan(COMM, (4, 5), tune="quick", tune_fields=0))
    if P > 1:
        raises_everywhere(nbfft.RanksDisagree,
                          lambda: nbfft.NdPlan(COMM, (4, 5), tune="quick" if COMM.rank == 0 else "none"))


def test_docs_examples(capsys):
    """Every Python block of docs/nd.md runs, and its asserts hold, at this rank count."""
    import os
    import re
    doc = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "nd.md")
    if not os.path.exists(doc):
        pytest.skip("docs/nd.md is not beside this checkout of the tests")
    blocks = re.findall(r"```python\n(.*?)```", open(doc).read(), re.S)
    assert len(blocks) >= 2
    for code in blocks:
        exec(compile(code, "docs/nd.md", "exec"), {})
    assert "axes (0, 2)" in capsys.readouterr().out
