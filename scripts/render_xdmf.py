"""Draws a field of an nbfft time series the way ParaView would, headless: the XDMF beside
the HDF5 file is read by VTK's XDMF reader (vtkXdmfReader, ParaView's "XDMF Reader") and
rendered off screen by VTK, the box's faces coloured by the field at two physical times (the first and
the last unless told), side by side, on one colour scale. docs/img/io_heat.png is

    mpiexec -n 2 build/openmpi/tests/io/io_series_example OUT
    python scripts/render_xdmf.py OUT/heat.xmf --array u --times 0,2 --out docs/img/io_heat.png

(needs the vtk wheel, scripts/python-requirements.txt; it renders through EGL or OSMesa
when there is no display).
"""
import argparse

from vtkmodules.vtkCommonColor import vtkNamedColors  # noqa: F401  (loads the colour tables)
from vtkmodules.vtkCommonDataModel import vtkCompositeDataSet, vtkImageData
from vtkmodules.vtkCommonExecutionModel import vtkStreamingDemandDrivenPipeline
from vtkmodules.vtkFiltersGeometry import vtkDataSetSurfaceFilter
from vtkmodules.vtkFiltersModeling import vtkOutlineFilter
from vtkmodules.vtkIOImage import vtkPNGWriter
from vtkmodules.vtkIOXdmf2 import vtkXdmfReader
from vtkmodules.vtkRenderingAnnotation import vtkScalarBarActor
from vtkmodules.vtkRenderingCore import (vtkActor, vtkColorTransferFunction, vtkPolyDataMapper, vtkRenderer,
                                         vtkRenderWindow, vtkTextActor, vtkWindowToImageFilter)
import vtkmodules.vtkRenderingOpenGL2  # noqa: F401  (the OpenGL back end)
import vtkmodules.vtkRenderingFreeType  # noqa: F401  (text)


def grid_at(reader, name, t):
    """A copy of the grid `name` at time t."""
    reader.UpdateTimeStep(t)
    out = reader.GetOutputDataObject(0)
    it = out.NewIterator()
    it.InitTraversal()
    while not it.IsDoneWithTraversal():
        if it.GetCurrentMetaData().Get(vtkCompositeDataSet.NAME()) == name:
            copy = vtkImageData()
            copy.DeepCopy(it.GetCurrentDataObject())
            return copy
        it.GoToNextItem()
    raise SystemExit(f"no grid {name!r} in the XDMF")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("xmf")
    ap.add_argument("--grid", default="physical", help="the XDMF grid (physical, spectral, 'u_mid (plane)', ...)")
    ap.add_argument("--array", default="u")
    ap.add_argument("--out", required=True, help="the PNG to write")
    ap.add_argument("--times", help="the two times shown, 'T0,T1' (default: the first and the last)")
    ap.add_argument("--size", default="900x380")
    a = ap.parse_args()

    reader = vtkXdmfReader()
    reader.SetFileName(a.xmf)
    reader.UpdateInformation()
    times = list(reader.GetOutputInformation(0).Get(vtkStreamingDemandDrivenPipeline.TIME_STEPS()))
    shown = [times[0], times[-1]] if not a.times else [float(v) for v in a.times.split(",")]
    for t in shown:
        if t not in times:
            raise SystemExit(f"no time {t:g} in the XDMF; its times: {times}")
    grids = [grid_at(reader, a.grid, t) for t in shown]
    for g in grids:
        g.GetPointData().SetActiveScalars(a.array)
    m = max(max(abs(v) for v in g.GetPointData().GetArray(a.array).GetRange()) for g in grids)

    ctf = vtkColorTransferFunction()  # a diverging map: blue below zero, red above
    ctf.SetColorSpaceToDiverging()
    ctf.AddRGBPoint(-m, 0.230, 0.299, 0.754)
    ctf.AddRGBPoint(0.0, 0.865, 0.865, 0.865)
    ctf.AddRGBPoint(m, 0.706, 0.016, 0.150)

    w, h = (int(s) for s in a.size.split("x"))
    window = vtkRenderWindow()
    window.SetOffScreenRendering(1)
    window.SetSize(w, h)
    for k, (g, t) in enumerate(zip(grids, shown)):
        ren = vtkRenderer()
        ren.SetViewport(k * 0.43, 0, (k + 1) * 0.43, 1)
        ren.SetBackground(1, 1, 1)
        faces = vtkDataSetSurfaceFilter()  # the six faces of the box
        faces.SetInputData(g)
        mapper = vtkPolyDataMapper()
        mapper.SetInputConnection(faces.GetOutputPort())
        mapper.SetLookupTable(ctf)
        mapper.SetScalarRange(-m, m)
        mapper.SetScalarModeToUsePointFieldData()
        mapper.SelectColorArray(a.array)
        actor = vtkActor()
        actor.SetMapper(mapper)
        actor.GetProperty().SetAmbient(0.45)  # the colours stay readable on the shaded faces
        actor.GetProperty().SetDiffuse(0.55)
        ren.AddActor(actor)
        outline = vtkOutlineFilter()
        outline.SetInputData(g)
        om = vtkPolyDataMapper()
        om.SetInputConnection(outline.GetOutputPort())
        oa = vtkActor()
        oa.SetMapper(om)
        oa.GetProperty().SetColor(0.2, 0.2, 0.2)
        ren.AddActor(oa)
        label = vtkTextActor()
        label.SetInput(f"{a.array} at t = {t:g}")
        label.GetTextProperty().SetColor(0, 0, 0)
        label.GetTextProperty().SetFontSize(18)
        label.SetPosition(12, h - 34)
        ren.AddViewProp(label)
        ren.ResetCamera()
        cam = ren.GetActiveCamera()
        cam.Azimuth(35)
        cam.Elevation(25)
        ren.ResetCamera()
        cam.Zoom(1.05)
        window.AddRenderer(ren)
    bar_ren = vtkRenderer()
    bar_ren.SetViewport(0.86, 0, 1, 1)
    bar_ren.SetBackground(1, 1, 1)
    bar = vtkScalarBarActor()
    bar.SetLookupTable(ctf)
    bar.SetTitle(a.array)
    bar.SetNumberOfLabels(5)
    bar.UnconstrainedFontSizeOn()
    bar.GetTitleTextProperty().SetFontSize(18)
    bar.GetLabelTextProperty().SetFontSize(14)
    bar.GetTitleTextProperty().SetColor(0, 0, 0)
    bar.GetLabelTextProperty().SetColor(0, 0, 0)
    bar.SetPosition(0.15, 0.06)
    bar.SetWidth(0.6)
    bar.SetHeight(0.78)
    bar_ren.AddViewProp(bar)
    window.AddRenderer(bar_ren)
    window.Render()
    grab = vtkWindowToImageFilter()
    grab.SetInput(window)
    grab.Update()
    png = vtkPNGWriter()
    png.SetFileName(a.out)
    png.SetInputConnection(grab.GetOutputPort())
    png.Write()
    print(f"render_xdmf: {a.out}: {a.array} on grid {a.grid!r} at t = {shown[0]:g} and {shown[-1]:g} "
          f"of {len(times)} times {times}")


if __name__ == "__main__":
    main()
