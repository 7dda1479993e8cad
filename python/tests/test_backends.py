"""Local FFT backends from Python: the 3-D Plan's ``backend`` option (one per plan or per
stage) and NdPlan's ``backend`` keyword run every built backend to numpy's result (r2r axes
on MKL to FFTW's), the plan's options name the backend that ran, and a backend this build
lacks or a misspelt name is the package's error on every rank. MKL cases are SKIPPED where
it is not built."""

import numpy as np
import pytest

import nbfft
from nbfft import _core
from conftest import COMM, all_ranks, raises_everywhere  # noqa: F401

SHAPE = (12, 10, 9)


def built():
    """The backends of this build, from nbfft's build description."""
    line = next(l for l in _core.build_info().splitlines() if l.startswith("local FFT backends:"))
    names = [part.strip().split(" ")[0] for part in line.split(":", 1)[1].split(", default")[0].split(";")]
    return [n for n in names if n]


def test_build_names_its_backends():
    assert "fftw" in built() or "mkl" in built()


@pytest.mark.parametrize("backend", ["fftw", "mkl", "fftw,mkl,mkl", "mkl,fftw,fftw"])
def test_plan_backend_matches_numpy(backend):
    if any(b not in built() for b in backend.split(",")):
        pytest.skip("{} is not built here".format(backend))
    g = np.random.default_rng(5).standard_normal(SHAPE)
    with nbfft.Plan(COMM, SHAPE, effort="estimate", backend=backend) as plan:
        assert plan.options.backend == backend
        U = plan.forward(plan.scatter(g if COMM.rank == 0 else None))
        want = np.fft.rfftn(g).transpose(plan.output_box.perm)[plan.output_box.slices]
        assert all_ranks(np.allclose(U, want, rtol=1e-12, atol=1e-10))


def test_auto_names_what_ran():
    with nbfft.Plan(COMM, SHAPE, effort="estimate") as plan:
        assert plan.options.backend in ("fftw", "mkl") or "," in plan.options.backend


@pytest.mark.parametrize("backend", ["fftw", "mkl"])
def test_ndplan_backend_matches_numpy(backend):
    if backend not in built():
        pytest.skip("{} is not built here".format(backend))
    shape = (10, 9)
    g = np.random.default_rng(6).standard_normal(shape) + 1j * np.random.default_rng(7).standard_normal(shape)
    with nbfft.NdPlan(COMM, shape, dtype=np.complex128, backend=backend) as p:
        out = p.forward(np.ascontiguousarray(g[p.in_slices]))
        assert all_ranks(np.allclose(out, np.fft.fftn(g)[p.out_slices], rtol=1e-12, atol=1e-10))


def test_missing_backend_is_unavailable_everywhere():
    missing = [b for b in ("fftw", "mkl") if b not in built()]
    if not missing:
        pytest.skip("every backend is built here")
    e = raises_everywhere(nbfft.Unavailable, lambda: nbfft.Plan(COMM, SHAPE, backend=missing[0]))
    assert "'{}' is not built".format(missing[0]) in e.message
    e = raises_everywhere(nbfft.Unavailable, lambda: nbfft.NdPlan(COMM, (8, 8), backend=missing[0]))
    assert missing[0] in e.message


def test_r2r_on_mkl_matches_fftw():
    """An r2r axis on MKL runs through its complex DFT: FFTW's numbers."""
    if "mkl" not in built() or "fftw" not in built():
        pytest.skip("needs both mkl and fftw built")
    g = np.random.default_rng(8).standard_normal(SHAPE)
    got = []
    for backend in ("fftw", "mkl"):
        with nbfft.Plan(COMM, SHAPE, effort="estimate", transform="r2c", kinds="dct2", backend=backend) as plan:
            got.append(plan.forward(plan.scatter(g if COMM.rank == 0 else None)))
    assert all_ranks(np.allclose(got[0], got[1], rtol=1e-12, atol=1e-10))


def test_misspelt_backend_names_it():
    e = raises_everywhere(nbfft.InvalidArgument, lambda: nbfft.Plan(COMM, SHAPE, backend="cufft"))
    assert "cufft" in e.message
    e = raises_everywhere(nbfft.InvalidArgument, lambda: nbfft.NdPlan(COMM, (8, 8), backend="cufft"))
    assert "backend" in e.message and "cufft" in e.message
