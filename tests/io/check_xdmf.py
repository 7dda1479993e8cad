"""Opens the XDMF that io_xdmf_series wrote with VTK's XDMF reader (vtkXdmfReader, the
one ParaView uses), headless, and checks what a ParaView user would see: the time steps
are the physical times, each grid sits where the box lengths put it, and every array
holds the right values at every point: the physical field, the real and imaginary
parts and modulus of its spectrum (computed here with numpy), the same two in single
precision on the same grids, the planes and the subsample; and a 2-D field of an N-D plan and
its spectrum, each a grid of one z plane.

    python tests/io/check_xdmf.py OUTDIR/run.xmf      # exits non-zero on any mismatch
"""
import math
import sys

import numpy as np
from vtkmodules.util.numpy_support import vtk_to_numpy
from vtkmodules.vtkCommonDataModel import vtkCompositeDataSet
from vtkmodules.vtkCommonExecutionModel import vtkStreamingDemandDrivenPipeline
from vtkmodules.vtkIOXdmf2 import vtkXdmfReader

NX, NY, NZ = 10, 7, 6
LX, LY, LZ = 2.0, 3.0, 4.0
TIMES = [0.0, 0.25, 0.5]


def field(step):
    """u[z, y, x] as the writer made it."""
    z, y, x = np.meshgrid(np.arange(NZ), np.arange(NY), np.arange(NX), indexing="ij")
    return (x + 10 * y + 100 * z + 1000 * step).astype(np.float64)


def blocks(data):
    """{name: dataset} of the reader's output (a multiblock: one block per grid)."""
    out = {}
    it = data.NewIterator()
    it.InitTraversal()
    while not it.IsDoneWithTraversal():
        name = it.GetCurrentMetaData().Get(vtkCompositeDataSet.NAME())
        out[name] = it.GetCurrentDataObject()
        it.GoToNextItem()
    return out


def array(ds, name):
    """A point array as [z, y, x] (VTK stores x fastest)."""
    a = ds.GetPointData().GetArray(name)
    assert a is not None, f"no point array {name!r}; it has " + ", ".join(
        ds.GetPointData().GetArrayName(i) for i in range(ds.GetPointData().GetNumberOfArrays()))
    nx, ny, nz = ds.GetDimensions()
    return vtk_to_numpy(a).reshape(nz, ny, nx)


def check_grid(ds, what, dims, origin, spacing):
    assert tuple(ds.GetDimensions()) == dims, f"{what}: dimensions {ds.GetDimensions()}, expected {dims}"
    for got, want, label in ((ds.GetOrigin(), origin, "origin"), (ds.GetSpacing(), spacing, "spacing")):
        assert np.allclose(got, want, rtol=1e-12, atol=1e-12), f"{what}: {label} {got}, expected {want}"


def same(got, want, what, tol=1e-12):
    assert got.shape == want.shape, f"{what}: shape {got.shape}, expected {want.shape}"
    err = np.max(np.abs(got - want)) / max(1.0, np.max(np.abs(want)))
    assert err < tol, f"{what}: off by {err:.3g} (relative)"


def main(path):
    reader = vtkXdmfReader()
    reader.SetFileName(path)
    reader.UpdateInformation()
    info = reader.GetOutputInformation(0)
    times = list(info.Get(vtkStreamingDemandDrivenPipeline.TIME_STEPS()))
    assert times == TIMES, f"time steps {times}, expected {TIMES}"
    dx, dy, dz = LX / NX, LY / NY, LZ / NZ
    kx, ky, kz = 2 * math.pi / LX, 2 * math.pi / LY, 2 * math.pi / LZ
    for step, t in enumerate(TIMES):
        reader.UpdateTimeStep(t)
        got = blocks(reader.GetOutputDataObject(0))
        expect = {"physical", "spectral", "u_z2 (plane)", "u_x3 (plane)", "u_sub (subsampled)", "U_kz1 (plane)",
                  "physical 2-D", "spectral 2-D"}
        assert set(got) == expect, f"t={t}: grids {sorted(got)}, expected {sorted(expect)}"
        u = field(step)
        U = np.fft.rfftn(u)  # nbfft's forward r2c, unnormalized (norm=backward)
        ds = got["physical"]
        check_grid(ds, "physical", (NX, NY, NZ), (0, 0, 0), (dx, dy, dz))
        same(array(ds, "u"), u, f"u at t={t}")
        same(array(ds, "v"), u, f"v (float32) at t={t}")
        assert ds.GetPointData().GetArray("v").GetDataTypeAsString() == "float", "v is not read as float32"
        ds = got["spectral"]
        check_grid(ds, "spectral", (NX // 2 + 1, NY, NZ), (0, 0, 0), (kx, ky, kz))
        same(array(ds, "U_re"), U.real, f"U_re at t={t}")
        same(array(ds, "U_im"), U.imag, f"U_im at t={t}")
        same(array(ds, "U_abs"), np.abs(U), f"U_abs at t={t}")
        same(array(ds, "V_re"), U.real, f"V_re (complex64) at t={t}", 1e-6)
        same(array(ds, "V_im"), U.imag, f"V_im (complex64) at t={t}", 1e-6)
        same(array(ds, "V_abs"), np.abs(U), f"V_abs (complex64) at t={t}", 1e-6)
        ds = got["u_z2 (plane)"]
        check_grid(ds, "plane z=2", (NX, NY, 1), (0, 0, 2 * dz), (dx, dy, dz))
        same(array(ds, "u_z2"), u[2:3], f"plane z=2 at t={t}")
        ds = got["u_x3 (plane)"]
        check_grid(ds, "plane x=3", (1, NY, NZ), (3 * dx, 0, 0), (dx, dy, dz))
        same(array(ds, "u_x3"), u[:, :, 3:4], f"plane x=3 at t={t}")
        ds = got["u_sub (subsampled)"]
        check_grid(ds, "subsample", (4, 4, 3), (0, 0, 0), (3 * dx, 2 * dy, 2 * dz))
        same(array(ds, "u_sub"), u[::2, ::2, ::3], f"subsample at t={t}")
        ds = got["U_kz1 (plane)"]
        check_grid(ds, "plane kz=1", (NX // 2 + 1, NY, 1), (0, 0, kz), (kx, ky, kz))
        same(array(ds, "U_kz1_re"), U[1:2].real, f"U_kz1_re at t={t}")
        same(array(ds, "U_kz1_im"), U[1:2].imag, f"U_kz1_im at t={t}")
        same(array(ds, "U_kz1_abs"), np.abs(U[1:2]), f"U_kz1_abs at t={t}")
        y, x = np.meshgrid(np.arange(NY), np.arange(NX), indexing="ij")
        w = (x + 10 * y + 1000 * step).astype(np.float64)[None]  # one z plane
        W = np.fft.rfftn(w[0])[None]
        ds = got["physical 2-D"]
        check_grid(ds, "physical 2-D", (NX, NY, 1), (0, 0, 0), (dx, dy, LZ))
        same(array(ds, "w"), w, f"w (2-D) at t={t}")
        ds = got["spectral 2-D"]
        check_grid(ds, "spectral 2-D", (NX // 2 + 1, NY, 1), (0, 0, 0), (kx, ky, kz))
        same(array(ds, "W_re"), W.real, f"W_re (2-D) at t={t}")
        same(array(ds, "W_im"), W.imag, f"W_im (2-D) at t={t}")
        same(array(ds, "W_abs"), np.abs(W), f"W_abs (2-D) at t={t}")
    print(f"check_xdmf: {path}: {len(TIMES)} steps at times {TIMES}, 8 grids, every value as written")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
