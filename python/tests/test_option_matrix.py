"""Every row of the option table on every shape (docs/fft.md "Options", docs/nd.md): the 3-D
plan and N-D plans over 3-D (all axes), 2-D, 3-D over two axes and a 4-D batch, at any rank
count. A row that applies to a plan is set to a value other than its default and the plan's
forward matches numpy's (gathered), its backward returns the input; a row that does not
apply is refused on every rank, naming the key and the plans it is for. The cells come from
``nbfft.option_rows()``: a new row is a new column here, and fails until it has a value."""

import os

import numpy as np
import pytest
from mpi4py import MPI

import nbfft
from conftest import all_ranks

COMM = MPI.COMM_WORLD
P = COMM.size
ROWS = {r["key"]: r for r in nbfft.option_rows()}

# name: (the 3-D plan or an N-D plan, shape, axes, batch axis)
SHAPES = {
    "3-D plan": ("3d", (11, 10, 12), (0, 1, 2), None),  # (a shape of its own: the tuners remember)
    "N-D over 3-D": ("nd", (11, 10, 12), (0, 1, 2), None),
    "N-D 2-D": ("nd", (16, 12), (0, 1), None),
    "N-D 3-D over 0, 2": ("nd", (8, 6, 10), (0, 2), None),
    "N-D 4-D batch": ("nd", (3, 8, 6, 10), (1, 2, 3), 0),
}


def wisdom_file():
    return COMM.bcast("/tmp/nbfft-matrix-{}.txt".format(os.getpid()) if COMM.rank == 0 else None)


def value_for(key, plan, shape, axes, batch):
    """A valid value of `key` other than the plan's default, and the dtype the cell runs on;
    keywords the value needs beside it."""
    nd = plan == "nd"
    extra = {}
    if key in ("tune_budget", "tune_fields", "tune_wisdom", "tune_log"):
        extra = {"tune": "quick", "tune_budget": 0.3}
    values = {
        "kinds": ("dct2," + ",".join(["periodic"] * (len(axes) - 1))) if nd else "periodic,periodic,dct2",
        "norm": "ortho",
        "proc_grid": "x".join(str(P if a == (1 if batch == 0 else 0) else 1) for a in range(len(shape))),
        "backend": "fftw",
        "output_order": "transposed" if nd else "natural",
        "tune": "quick",
        "tune_budget": 0.3,
        "tune_wisdom": wisdom_file(),
        "allow_empty": False,
        "batch_axis": batch if batch is not None else (0 if len(axes) == len(shape) else 1),
        # one ratio per listed axis on an N-D plan: 3/2, none, 2, ...
        "padding": ",".join(("1.5", "1", "2")[i % 3] for i in range(len(axes))) if nd else ROWS["padding"]["example"],
    }
    if key in values:
        return values[key], extra
    return ROWS[key]["example"], extra


def dct2(g, axis):
    """FFTW's REDFT10 (unnormalized DCT-II) along `axis`."""
    n = g.shape[axis]
    j = np.arange(n)
    m = 2 * np.cos(np.pi * np.outer(j + 0.5, j) / n)  # [input j][output k]
    return np.moveaxis(np.tensordot(np.moveaxis(g, axis, -1), m, axes=([-1], [0])), -1, axis)


def reference(g, axes, dtype, kinds=None, norm="backward"):
    axes = list(range(g.ndim)) if axes is None else list(axes)
    periodic = [a for i, a in enumerate(axes) if not kinds or kinds[i] == "periodic"]
    x = g.astype(np.complex128 if np.dtype(dtype).kind == "c" else np.float64)
    for i, a in enumerate(axes):
        if kinds and kinds[i] == "dct2":
            x = dct2(x, a)
    f = np.fft.fftn if np.dtype(dtype).kind == "c" else np.fft.rfftn
    return f(x, axes=periodic, norm=norm)


def cell(shape_name, key):
    plan, shape, axes, batch = SHAPES[shape_name]
    row = ROWS[key]
    value, extra = value_for(key, plan, shape, axes, batch)
    applies = row["scope"] == "all" or row["scope"] == ("3-D" if plan == "3d" else "N-D")
    kwargs = dict(effort="estimate")
    kwargs.update(extra)
    dtype = np.float64
    if key == "precision":
        dtype = np.float32  # the plan's precision is its dtype's
    elif key == "transform":
        dtype = np.complex128
    else:
        kwargs[key] = value
    if plan == "nd" and key == "batch_axis" and batch is None:
        axes = tuple(a for a in axes if a != value)
        batch = value
    elif plan == "nd" and batch is not None:
        kwargs["batch_axis"] = batch

    def make():
        if plan == "3d":
            return nbfft.Plan(COMM, shape, dtype=dtype, **kwargs)
        return nbfft.NdPlan(COMM, shape, axes=axes, dtype=dtype, **kwargs)

    if plan == "nd" and key == "batch_axis" and len(axes) == 1 and P > 1:
        # A batch of 1-D r2c fields: the batch axis and the r2c axis stay whole, so no axis
        # can take the ranks; refused on every rank, naming the user's axes.
        with pytest.raises(nbfft.InvalidArgument, match="batch axis 0.*the r2c axis 1"):
            make()
        return
    if not applies:
        try:
            make()
        except nbfft.ArgumentTypeError as e:
            ok = key in str(e) and ("3-D" in str(e) or "N-D" in str(e))
            assert all_ranks(ok), str(e)
            return
        assert all_ranks(False), "{} was not refused by the {} plan".format(key, plan)

    g = (np.random.default_rng(5).standard_normal(shape)).astype(dtype)
    if np.dtype(dtype).kind == "c":
        g = g + 1j * np.random.default_rng(6).standard_normal(shape).astype(g.real.dtype)
    kinds = value.split(",") if key == "kinds" else None
    if kinds and plan == "3d":
        kinds = kinds[::-1]  # the 3-D plan lists x, y, z; numpy's axes are z, y, x
    norm = value if key == "norm" else "backward"
    tol = 2e-4 if dtype == np.float32 else 1e-10
    with make() as p:
        if key not in ("precision", "transform", "tune", "tune_budget", "tune_fields", "tune_wisdom", "tune_log"):
            got = p.options.as_dict()[key] if hasattr(p.options, "as_dict") else getattr(p.options, key)
            if key == "proc_grid" and plan == "3d":
                value = "1x{}".format(P)  # ranks per axis PZxPYx1 read back as the plan's M1xM2
            if key not in ("threads", "backend"):  # resolved: the CPUs, the library
                assert str(got) == str(value) or got == value, (key, got, value)
        padded = key == "padding"
        if padded:  # the physical grid is the padded one
            g = np.random.default_rng(5).standard_normal(p.global_shape if plan == "nd" else p.shape).astype(dtype)
        u = p.scatter(g if COMM.rank == 0 else None)
        if getattr(p, "lean_workspace", False):
            a, A = p.empty_inplace()
            a[...] = u
            U = p.forward(a, out=A).copy()
            back = p.backward(A, out=a).copy()
        else:
            U = p.forward(u)
            back = p.backward(U)
        if padded:
            # A padded grid: forward truncates and backward pads, so forward(backward(U)) is U.
            again = p.forward(back)
            assert all_ranks(np.abs(again - U).max(initial=0) <= tol * max(1.0, np.abs(U).max(initial=0)))
            return
        G = p.gather(U, root=0, space="output") if plan == "nd" else p.gather(U)
        ok = True
        if COMM.rank == 0:
            want = reference(g, axes, dtype, kinds, norm)
            ok = G.shape == want.shape and np.abs(G - want).max() <= tol * max(1.0, np.abs(want).max())
        assert all_ranks(COMM.bcast(ok)), (key, shape_name)
        assert all_ranks(np.abs(back - u).max(initial=0) <= tol * max(1.0, np.abs(u).max(initial=0)))


@pytest.mark.parametrize("key", list(ROWS))
@pytest.mark.parametrize("shape_name", list(SHAPES))
def test_option_on_shape(shape_name, key):
    try:
        cell(shape_name, key)
    finally:
        path = wisdom_file()
        COMM.Barrier()
        if COMM.rank == 0 and os.path.exists(path):
            os.remove(path)
