"""Device plans from Python (docs/gpu.md): ``device='emulated'`` runs the GPU plan's path on
host memory, so here it takes stand-ins for GPU arrays (objects with
``__cuda_array_interface__`` over numpy memory, as CuPy and PyTorch expose theirs) and must
give what the CPU plan gives for numpy arrays; wrong shapes, dtypes and a GPU array given to a
host plan are errors on every rank; ``device='cuda'`` without a GPU is ``nbfft.Unavailable``."""

import numpy as np
import pytest

import nbfft
from conftest import COMM, all_ranks


class FakeGpuArray:
    """A numpy array behind ``__cuda_array_interface__`` (version 3), as a GPU array shows itself."""

    def __init__(self, a, readonly=False):
        self.a = a
        self.readonly = readonly

    def get(self):  # a copy to the host, as CuPy's
        return self.a.copy()

    def set(self, h):  # a copy from the host, as CuPy's
        self.a[...] = h

    @property
    def __cuda_array_interface__(self):
        return {"shape": self.a.shape, "typestr": self.a.dtype.str, "data": (self.a.ctypes.data, self.readonly),
                "strides": None if self.a.flags.c_contiguous else self.a.strides, "version": 3, "stream": None}


def host_and_device(shape, seed, transport="caller"):
    """A CPU plan, the same plan on the emulated device, and this rank's random generator."""
    host = nbfft.Plan(COMM, shape)
    dev = nbfft.Plan(COMM, shape, device="emulated", transport=transport)
    return host, dev, np.random.default_rng(seed + COMM.rank)


def close(got, want, tol=1e-12, scaled=True):
    """On every rank: max |got - want| <= tol, times max(1, max |want|) when scaled."""
    bound = tol * max(1.0, np.abs(want).max(initial=0)) if scaled else tol
    return all_ranks(np.abs(got - want).max(initial=0) <= bound)


@pytest.mark.parametrize("dtype", [np.float64, np.complex128, np.float32])
@pytest.mark.parametrize("order", ["transposed", "natural"])
def test_gpu_arrays_match_the_cpu_plan(dtype, order):
    shape = (7, 10, 12)
    host = nbfft.Plan(COMM, shape, dtype=dtype, output_order=order)
    dev = nbfft.Plan(COMM, shape, dtype=dtype, output_order=order, device="emulated", transport="caller")
    rng = np.random.default_rng(3 + COMM.rank)
    u = rng.standard_normal(host.input_box.shape).astype(dtype)
    if np.dtype(dtype).kind == "c":
        u = u + 1j * rng.standard_normal(host.input_box.shape)
    U = host.forward(u)
    out = np.empty(dev.output_box.shape, dev.out_dtype)
    got = dev.forward(FakeGpuArray(u), out=FakeGpuArray(out))
    tol = 1e-4 if dtype == np.float32 else 1e-12
    assert isinstance(got, FakeGpuArray)
    assert close(out, U, tol)
    back = np.empty(dev.input_box.shape, dev.in_dtype)
    dev.backward(FakeGpuArray(out), out=FakeGpuArray(back))
    assert close(back, u, tol)
    host.close()
    dev.close()


def test_gpu_array_lists_in_forward_many():
    host, dev, rng = host_and_device((7, 10, 12), 11)
    us = [rng.standard_normal(host.input_box.shape) for _ in range(3)]
    outs = [np.empty(dev.output_box.shape, dev.out_dtype) for _ in us]
    got = dev.forward_many([FakeGpuArray(u) for u in us], out=[FakeGpuArray(o) for o in outs])
    assert len(got) == 3
    for u, o in zip(us, outs):
        U = host.forward(u)
        assert close(o, U)
    backs = [np.empty(dev.input_box.shape) for _ in us]
    dev.backward_many([FakeGpuArray(o) for o in outs], out=[FakeGpuArray(b) for b in backs])
    for u, b in zip(us, backs):
        assert close(b, u, scaled=False)
    with pytest.raises(nbfft.InvalidArgument, match="2 input fields but 1 output"):
        dev.forward_many([FakeGpuArray(us[0]), FakeGpuArray(us[1])], out=[FakeGpuArray(outs[0])])
    host.close()
    dev.close()


@pytest.mark.parametrize("transport", ["caller", "pairwise@thread"])
def test_gpu_arrays_split_phase(transport):
    """forward_start / backward_start of GPU arrays: two in flight, the caller's work between."""
    host, dev, rng = host_and_device((9, 10, 12), 17, transport)
    us = [rng.standard_normal(host.input_box.shape) for _ in range(2)]
    outs = [np.empty(dev.output_box.shape, dev.out_dtype) for _ in us]
    reqs = [dev.forward_start(FakeGpuArray(u), out=FakeGpuArray(o)) for u, o in zip(us, outs)]
    busy = sum(k * 1e-9 for k in range(20000))
    reqs[0].progress()
    for r in reqs:
        r.wait()
    assert isinstance(reqs[0].out, FakeGpuArray) and busy > 0
    for u, o in zip(us, outs):
        U = host.forward(u)
        assert close(o, U)
    backs = [np.empty(dev.input_box.shape) for _ in us]
    reqs = [dev.backward_start(FakeGpuArray(o), out=FakeGpuArray(b)) for o, b in zip(outs, backs)]
    for r in reqs:
        r.wait()
    for u, b in zip(us, backs):
        assert close(b, u, scaled=False)
    with pytest.raises(nbfft.ArgumentTypeError, match="dtype"):
        dev.forward_start(FakeGpuArray(us[0].astype(np.float32)), out=FakeGpuArray(outs[0]))
    host.close()
    dev.close()


def test_stacked_gpu_arrays_in_forward_many():
    host, dev, rng = host_and_device((7, 10, 12), 23)
    us = np.stack([rng.standard_normal(host.input_box.shape) for _ in range(3)])
    outs = np.empty((3,) + dev.output_box.shape, dev.out_dtype)
    got = dev.forward_many(FakeGpuArray(us), out=FakeGpuArray(outs))
    assert isinstance(got, FakeGpuArray)
    for k in range(3):
        U = host.forward(us[k])
        assert close(outs[k], U)
    backs = np.empty_like(us)
    dev.backward_many(FakeGpuArray(outs), out=FakeGpuArray(backs))
    assert close(backs, us, scaled=False)
    with pytest.raises(nbfft.InvalidArgument, match="shape"):
        dev.forward_many(FakeGpuArray(us), out=FakeGpuArray(outs[:2]))
    with pytest.raises(nbfft.ArgumentTypeError, match="pass out="):
        dev.forward_many(FakeGpuArray(us))
    host.close()
    dev.close()


def test_gather_and_scatter_of_gpu_arrays():
    shape = (7, 10, 12)
    dev = nbfft.Plan(COMM, shape, device="emulated", transport="caller")
    g = np.random.default_rng(29).standard_normal(shape) if COMM.rank == 0 else None
    u = dev.scatter(FakeGpuArray(g) if g is not None else None)  # a GPU g on the root
    out = np.empty(dev.input_box.shape)
    got = dev.scatter(g, out=FakeGpuArray(out))  # into a GPU block
    assert isinstance(got, FakeGpuArray) and all_ranks(np.array_equal(out, u))
    G = dev.gather(FakeGpuArray(u))
    assert COMM.rank != 0 or np.array_equal(G, g)
    U = np.empty(dev.output_box.shape, dev.out_dtype)
    dev.forward(FakeGpuArray(u), out=FakeGpuArray(U))
    S = dev.gather(FakeGpuArray(U), space="output")
    assert COMM.rank != 0 or np.allclose(S, np.fft.rfftn(g), atol=1e-10)
    with pytest.raises(nbfft.InvalidArgument, match="shape"):
        dev.scatter(g, out=FakeGpuArray(np.empty((1, 2, 3))))
    dev.close()


def test_gpu_array_errors_on_every_rank():
    shape = (6, 8, 8)
    dev = nbfft.Plan(COMM, shape, device="emulated")
    u = np.zeros(dev.input_box.shape)
    out = np.zeros(dev.output_box.shape, dev.out_dtype)
    with pytest.raises(nbfft.ArgumentTypeError, match="pass out="):
        dev.forward(FakeGpuArray(u))  # nbfft allocates CuPy and PyTorch arrays only
    with pytest.raises(nbfft.ArgumentTypeError, match="dtype float32"):
        dev.forward(FakeGpuArray(u.astype(np.float32)), out=FakeGpuArray(out))
    with pytest.raises(nbfft.InvalidArgument, match="shape"):
        dev.forward(FakeGpuArray(np.zeros(u.shape + (1,))), out=FakeGpuArray(out))
    with pytest.raises(nbfft.ArgumentTypeError, match="GPU array like the other"):
        dev.forward(FakeGpuArray(u), out=out)
    with pytest.raises(nbfft.InvalidArgument, match="read-only"):
        dev.forward(FakeGpuArray(u), out=FakeGpuArray(out, readonly=True))
    dev.close()
    host = nbfft.Plan(COMM, shape)
    with pytest.raises(nbfft.ArgumentTypeError, match="device='host'"):
        host.forward(FakeGpuArray(u), out=FakeGpuArray(out))
    host.close()


def test_cuda_without_a_gpu_is_unavailable():
    try:
        p = nbfft.Plan(COMM, (8, 8, 8), device="cuda")
    except nbfft.Unavailable as e:
        assert all_ranks("GPU" in str(e) or "CUDA" in str(e)), str(e)
        return
    # A GPU is here: numpy arrays are host memory, refused naming it.
    with pytest.raises(nbfft.InvalidArgument, match="not device memory"):
        p.forward(np.zeros(p.input_box.shape))
    p.close()
