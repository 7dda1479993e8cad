"""Misuse of every public Python function and class: the outside bad-input campaign's
findings on the package. Integers that are not ints (floats, bools, strings of digits:
truncated or taken before), values past the C++ types (which nanobind refused with its own
TypeError), empty and wrong-length tuples, spacings and lengths that divided by zero,
wrong dtypes and layouts, None, object arrays, closed objects and a plan of another
communicator.

Each case asserts the package's exception class on every rank, the same message on every
rank, and that the message names the argument. A collective call gets the bad value on the
last rank only, the others the good one: every rank must still raise (none may be left
waiting in a collective) and the message names the last rank. A local call gets the bad
value on every rank.
"""

import os
import tempfile

import numpy as np
import pytest

import nbfft
import nbfft.coll as coll
from conftest import COMM, all_ranks, raises_everywhere
from mpi4py import MPI

pytestmark = pytest.mark.timeout(60)

P = COMM.size
LAST = P - 1
SHAPE = (8, 6, 10)     # Plan and Pencils: (nz, ny, nx)
ND = (8, 6)            # NdPlan
BIG = 2**64            # past int64_t
LOCAL = object()       # "good" of a local call: every rank passes the bad value
hdf5 = nbfft.io.hdf5_available()


class Objects:
    """One of each kind of object, made once for the module (every rank in the same order)."""

    def __init__(self, folder):
        self.plan = nbfft.Plan(COMM, SHAPE)
        self.u = self.plan.empty_input()
        self.u[...] = 1
        self.g = np.zeros(SHAPE)
        self.nd = nbfft.NdPlan(COMM, ND)
        self.ndu = np.ones(self.nd.in_shape)
        self.ndg = np.zeros(ND)
        self.pencils = nbfft.Pencils(COMM, SHAPE)
        self.ux = np.zeros(self.pencils.shape("x"))
        self.uy = np.zeros(self.pencils.shape("y"))
        self.send = np.zeros(4 * P)
        self.recv = np.zeros(4 * P)
        self.self_plan = nbfft.Plan(MPI.COMM_SELF, SHAPE)  # a plan of another communicator (P > 1)
        self.file = None
        if hdf5:
            self.folder = folder
            self.file = nbfft.io.File(COMM, os.path.join(folder, "misuse.h5"), "w")
            self.file.write(self.plan, "u", self.u, step=0, time=0.0)
            self.file.write_plane(self.plan, "plane", self.u, step=0, axis="z", index=0)
            self.file.write_subsampled(self.plan, "sub", self.u, step=0, stride=2)

    def path(self, name):
        return os.path.join(self.folder, name)

    def close(self):
        if self.file is not None:
            self.file.close()
        for x in (self.self_plan, self.pencils, self.nd, self.plan):
            x.close()


@pytest.fixture(scope="module")
def objs():
    d = tempfile.mkdtemp(prefix="nbfft_misuse_") if COMM.rank == 0 else None
    d = COMM.bcast(d)
    o = Objects(d)
    yield o
    o.close()
    COMM.Barrier()
    if COMM.rank == 0:
        for name in os.listdir(d):
            os.remove(os.path.join(d, name))
        os.rmdir(d)


class Made:
    """A case's value made from the module's objects (an array, a plan) when the case runs."""

    def __init__(self, make):
        self.make = make


def closed(make):
    """An object made and closed at once (collective)."""
    x = make()
    x.close()
    return x


NDU = Made(lambda o: o.ndu)  # a good NdPlan input block

# (id, call(objects, value), bad value, good value or LOCAL, exception, words the message names)
CASES = [
    # -- nbfft.Plan ----------------------------------------------------------------------------
    ("plan-shape-float", lambda o, v: nbfft.Plan(COMM, v), (8, 6, 10.0), SHAPE, nbfft.ArgumentTypeError, ["shape"]),
    ("plan-shape-bool", lambda o, v: nbfft.Plan(COMM, v), (8, True, 10), SHAPE, nbfft.ArgumentTypeError, ["shape"]),
    ("plan-shape-digits", lambda o, v: nbfft.Plan(COMM, v), ("8", "6", "10"), SHAPE, nbfft.ArgumentTypeError,
     ["shape"]),
    ("plan-shape-empty", lambda o, v: nbfft.Plan(COMM, v), (), SHAPE, nbfft.InvalidArgument, ["shape"]),
    ("plan-shape-none", lambda o, v: nbfft.Plan(COMM, v), None, SHAPE, nbfft.ArgumentTypeError, ["shape"]),
    ("plan-shape-overflow", lambda o, v: nbfft.Plan(COMM, v), (8, 6, BIG), SHAPE, nbfft.InvalidArgument, ["shape"]),
    ("plan-grid-bool", lambda o, v: nbfft.Plan(COMM, SHAPE, grid=v), (True, P), None, nbfft.ArgumentTypeError,
     ["grid"]),
    ("plan-grid-float", lambda o, v: nbfft.Plan(COMM, SHAPE, grid=v), (1.0, P), None, nbfft.ArgumentTypeError,
     ["grid"]),
    ("plan-grid-digits", lambda o, v: nbfft.Plan(COMM, SHAPE, grid=v), "11", None, nbfft.ArgumentTypeError,
     ["grid"]),
    ("plan-grid-overflow", lambda o, v: nbfft.Plan(COMM, SHAPE, grid=v), (2**40, 1), None, nbfft.InvalidArgument,
     ["grid"]),
    ("plan-in_box-float", lambda o, v: nbfft.Plan(COMM, SHAPE, in_box=v), ((0.5, 0, 0), (1, 1, 1)), None,
     nbfft.ArgumentTypeError, ["in_box"]),
    ("plan-in_box-bool", lambda o, v: nbfft.Plan(COMM, SHAPE, in_box=v), ((False, 0, 0), SHAPE), None,
     nbfft.ArgumentTypeError, ["in_box"]),
    ("plan-out_box-overflow", lambda o, v: nbfft.Plan(COMM, SHAPE, out_box=v), ((0, 0, 0), (BIG, 1, 1)), None,
     nbfft.InvalidArgument, ["out_box"]),
    ("plan-proc_grid-bool", lambda o, v: nbfft.Plan(COMM, SHAPE, proc_grid=v), (True, P), (1, P),
     nbfft.ArgumentTypeError, ["proc_grid"]),
    ("plan-proc_grid-float", lambda o, v: nbfft.Plan(COMM, SHAPE, proc_grid=v), (1.5, 1), (1, P),
     nbfft.ArgumentTypeError, ["proc_grid"]),
    ("plan-fields_in_flight-npfloat", lambda o, v: nbfft.Plan(COMM, SHAPE, fields_in_flight=v), np.float64(2), 2,
     nbfft.ArgumentTypeError, ["fields_in_flight"]),
    ("plan-progress_chunks-bool", lambda o, v: nbfft.Plan(COMM, SHAPE, progress_chunks=v), True, 4,
     nbfft.ArgumentTypeError, ["progress_chunks"]),
    ("plan-col_depth-digits", lambda o, v: nbfft.Plan(COMM, SHAPE, col_depth=v), "2", 2, nbfft.ArgumentTypeError,
     ["col_depth"]),
    ("plan-dtype-int", lambda o, v: nbfft.Plan(COMM, SHAPE, dtype=v), np.int64, np.float64, nbfft.ArgumentTypeError,
     ["dtype"]),
    ("plan-gather-root-float", lambda o, v: o.plan.gather(o.u, root=v), 1.0, 0, nbfft.ArgumentTypeError, ["root"]),
    ("plan-gather-root-bool", lambda o, v: o.plan.gather(o.u, root=v), True, 0, nbfft.ArgumentTypeError, ["root"]),
    ("plan-gather-root-overflow", lambda o, v: o.plan.gather(o.u, root=v), BIG, 0, nbfft.InvalidArgument, ["root"]),
    ("plan-scatter-root-digits", lambda o, v: o.plan.scatter(o.g, root=v), "0", 0, nbfft.ArgumentTypeError,
     ["root"]),
    ("plan-scatter-root-negative", lambda o, v: o.plan.scatter(o.g, root=v), -1, 0, nbfft.InvalidArgument, ["root"]),
    ("plan-wavenumbers-d-zero", lambda o, v: o.plan.wavenumbers(d=v), 0, LOCAL, nbfft.InvalidArgument, [": d "]),
    ("plan-wavenumbers-d-negative", lambda o, v: o.plan.wavenumbers(d=v), -0.5, LOCAL, nbfft.InvalidArgument, [": d "]),
    ("plan-wavenumbers-d-two", lambda o, v: o.plan.wavenumbers(d=v), (1.0, 1.0), LOCAL, nbfft.InvalidArgument,
     [": d "]),
    ("plan-wavenumbers-length-text", lambda o, v: o.plan.wavenumbers(length=v), "abc", LOCAL,
     nbfft.ArgumentTypeError, ["length"]),
    ("plan-wavenumbers-length-two", lambda o, v: o.plan.wavenumbers(length=v), (1.0, 2.0), LOCAL,
     nbfft.InvalidArgument, ["length"]),
    ("plan-wavenumbers-length-inf", lambda o, v: o.plan.wavenumbers(length=v), float("inf"), LOCAL,
     nbfft.InvalidArgument, ["length"]),
    ("plan-wavenumbers-length-tiny", lambda o, v: o.plan.wavenumbers(length=v), 1e-320, LOCAL,
     nbfft.InvalidArgument, ["length", "overflow"]),
    ("plan-wavenumbers-d-tiny", lambda o, v: o.plan.wavenumbers(d=v), 1e-320, LOCAL, nbfft.InvalidArgument,
     ["d ", "overflow"]),
    ("plan-points-length-negative", lambda o, v: o.plan.points(length=v), -1.0, LOCAL, nbfft.InvalidArgument,
     ["length"]),
    ("plan-points-length-two", lambda o, v: o.plan.points(length=v), (1, 2), LOCAL, nbfft.InvalidArgument,
     ["length"]),
    ("plan-points-length-none-entry", lambda o, v: o.plan.points(length=v), (1.0, None, 1.0), LOCAL,
     nbfft.ArgumentTypeError, ["length"]),
    ("plan-closed-points", lambda o, v: closed(lambda: nbfft.Plan(COMM, SHAPE)).points(), None, LOCAL,
     nbfft.InvalidState, ["close"]),
    ("plan-closed-wavenumbers", lambda o, v: closed(lambda: nbfft.Plan(COMM, SHAPE)).wavenumbers(d=v), 1.0, LOCAL,
     nbfft.InvalidState, ["close"]),
    ("plan-closed-shape", lambda o, v: closed(lambda: nbfft.Plan(COMM, SHAPE)).shape, None, LOCAL,
     nbfft.InvalidState, ["close"]),
    ("plan-closed-empty_output", lambda o, v: closed(lambda: nbfft.Plan(COMM, SHAPE)).empty_output(), None, LOCAL,
     nbfft.InvalidState, ["close"]),
    # -- helpers and Box -------------------------------------------------------------------------
    ("aligned_empty-shape-float", lambda o, v: nbfft.aligned_empty(v, np.float64), 8.9, LOCAL,
     nbfft.ArgumentTypeError, ["shape"]),
    ("aligned_empty-shape-entry-float", lambda o, v: nbfft.aligned_empty(v, np.float64), (4, 2.5), LOCAL,
     nbfft.ArgumentTypeError, ["shape"]),
    ("aligned_empty-shape-negative", lambda o, v: nbfft.aligned_empty(v, np.float64), (4, -1), LOCAL,
     nbfft.InvalidArgument, ["shape"]),
    ("aligned_empty-shape-bool", lambda o, v: nbfft.aligned_empty(v, np.float64), True, LOCAL,
     nbfft.ArgumentTypeError, ["shape"]),
    ("aligned_empty-shape-digits", lambda o, v: nbfft.aligned_empty(v, np.float64), "4", LOCAL,
     nbfft.ArgumentTypeError, ["shape"]),
    ("aligned_empty-alignment-zero", lambda o, v: nbfft.aligned_empty(4, np.float64, alignment=v), 0, LOCAL,
     nbfft.InvalidArgument, ["alignment"]),
    ("aligned_empty-alignment-float", lambda o, v: nbfft.aligned_empty(4, np.float64, alignment=v), 1.5, LOCAL,
     nbfft.ArgumentTypeError, ["alignment"]),
    ("aligned_empty-dtype", lambda o, v: nbfft.aligned_empty(4, v), "nonsense", LOCAL, nbfft.ArgumentTypeError,
     ["dtype"]),
    ("thread_level_name-float", lambda o, v: nbfft.thread_level_name(v), 1.5, LOCAL, nbfft.ArgumentTypeError,
     ["level"]),
    ("thread_level_name-list", lambda o, v: nbfft.thread_level_name(v), [1], LOCAL, nbfft.ArgumentTypeError,
     ["level"]),
    ("required_thread_level-int", lambda o, v: nbfft.required_thread_level(v), 3, LOCAL, nbfft.ArgumentTypeError,
     ["transport"]),
    ("required_thread_level-none", lambda o, v: nbfft.required_thread_level(v), None, LOCAL,
     nbfft.ArgumentTypeError, ["transport"]),
    ("box-start-float", lambda o, v: nbfft.Box(("z", "y", "x"), v, (1, 1, 1), SHAPE), (0.5, 0, 0), LOCAL,
     nbfft.ArgumentTypeError, ["start"]),
    ("box-shape-length", lambda o, v: nbfft.Box(("z", "y", "x"), (0, 0, 0), v, SHAPE), (1, 1), LOCAL,
     nbfft.InvalidArgument, ["shape"]),
    ("box-shape-negative", lambda o, v: nbfft.Box(("z", "y", "x"), (0, 0, 0), v, SHAPE), (1, -1, 1), LOCAL,
     nbfft.InvalidArgument, ["shape"]),
    ("box-global_shape-digits", lambda o, v: nbfft.Box(("z", "y", "x"), (0, 0, 0), (1, 1, 1), v), (8, 6, "10"),
     LOCAL, nbfft.ArgumentTypeError, ["global_shape"]),
    ("box-axes", lambda o, v: nbfft.Box(v, (0, 0, 0), (1, 1, 1), SHAPE), ("z", "y", "q"), LOCAL,
     nbfft.InvalidArgument, ["axes"]),
    # -- nbfft.NdPlan ----------------------------------------------------------------------------
    ("nd-shape-float", lambda o, v: nbfft.NdPlan(COMM, v), (8.9, 6), ND, nbfft.ArgumentTypeError, ["shape"]),
    ("nd-shape-digits", lambda o, v: nbfft.NdPlan(COMM, v), ("8", "6"), ND, nbfft.ArgumentTypeError, ["shape"]),
    ("nd-shape-string", lambda o, v: nbfft.NdPlan(COMM, v), "86", ND, nbfft.ArgumentTypeError, ["shape"]),
    ("nd-shape-bool", lambda o, v: nbfft.NdPlan(COMM, v), (True, 6), ND, nbfft.ArgumentTypeError, ["shape"]),
    ("nd-shape-none", lambda o, v: nbfft.NdPlan(COMM, v), None, ND, nbfft.ArgumentTypeError, ["shape"]),
    ("nd-shape-empty", lambda o, v: nbfft.NdPlan(COMM, v), (), ND, nbfft.InvalidArgument, ["shape"]),
    ("nd-shape-zero", lambda o, v: nbfft.NdPlan(COMM, v), (8, 0), ND, nbfft.InvalidArgument, ["shape"]),
    ("nd-shape-overflow", lambda o, v: nbfft.NdPlan(COMM, v), (8, BIG), ND, nbfft.InvalidArgument, ["shape"]),
    ("nd-axes-float", lambda o, v: nbfft.NdPlan(COMM, ND, axes=v), (1.5,), (1,), nbfft.ArgumentTypeError, ["axes"]),
    ("nd-axes-overflow", lambda o, v: nbfft.NdPlan(COMM, ND, axes=v), (2**40,), (1,), nbfft.InvalidArgument,
     ["axes"]),
    ("nd-axes-out-of-range", lambda o, v: nbfft.NdPlan(COMM, ND, axes=v), (5,), (1,), nbfft.InvalidArgument,
     ["axes[0]", "got 5"]),
    ("nd-axes-int", lambda o, v: nbfft.NdPlan(COMM, ND, axes=v), 1, (1,), nbfft.ArgumentTypeError, ["axes"]),
    ("nd-grid-float", lambda o, v: nbfft.NdPlan(COMM, ND, grid=v), (1.0 * P, 1), (P, 1), nbfft.ArgumentTypeError,
     ["grid"]),
    ("nd-grid-overflow", lambda o, v: nbfft.NdPlan(COMM, ND, grid=v), (2**40, 1), (P, 1), nbfft.InvalidArgument,
     ["grid"]),
    ("nd-batch_axis-overflow", lambda o, v: nbfft.NdPlan(COMM, ND + (4,), batch_axis=v), 2**40, 0,
     nbfft.InvalidArgument, ["batch_axis"]),
    ("nd-batch_axis-npfloat", lambda o, v: nbfft.NdPlan(COMM, ND + (4,), batch_axis=v), np.float64(0), 0,
     nbfft.ArgumentTypeError, ["batch_axis"]),
    ("nd-fields_in_flight-overflow", lambda o, v: nbfft.NdPlan(COMM, ND + (4,), batch_axis=0, fields_in_flight=v),
     2**40, 2, nbfft.InvalidArgument, ["fields_in_flight"]),
    ("nd-fields_in_flight-bool", lambda o, v: nbfft.NdPlan(COMM, ND, fields_in_flight=v), True, 2,
     nbfft.ArgumentTypeError, ["fields_in_flight"]),
    ("nd-tune_fields-bool", lambda o, v: nbfft.NdPlan(COMM, ND, tune_fields=v), True, 1, nbfft.ArgumentTypeError,
     ["tune_fields"]),
    ("nd-in_box-float", lambda o, v: nbfft.NdPlan(COMM, ND, in_box=v), ((0.5, 0), ND), None,
     nbfft.ArgumentTypeError, ["in_box"]),
    ("nd-in_box-bool", lambda o, v: nbfft.NdPlan(COMM, ND, in_box=v), ((False, 0), ND), None,
     nbfft.ArgumentTypeError, ["in_box"]),
    ("nd-in_box-overflow", lambda o, v: nbfft.NdPlan(COMM, ND, in_box=v), ((0, 0), (BIG, 6)), None,
     nbfft.InvalidArgument, ["in_box"]),
    ("nd-in_box-length", lambda o, v: nbfft.NdPlan(COMM, ND, in_box=v), ((0,), (8,)), None, nbfft.InvalidArgument,
     ["in_box"]),
    ("nd-out_box-text", lambda o, v: nbfft.NdPlan(COMM, ND, out_box=v), "everything", None,
     nbfft.ArgumentTypeError, ["out_box"]),
    ("nd-dtype-int", lambda o, v: nbfft.NdPlan(COMM, ND, dtype=v), np.int32, np.float64, nbfft.ArgumentTypeError,
     ["dtype"]),
    ("nd-in_box_of-float", lambda o, v: o.nd.in_box_of(v), 1.5, LOCAL, nbfft.ArgumentTypeError, ["rank"]),
    ("nd-in_box_of-digits", lambda o, v: o.nd.in_box_of(v), "0", LOCAL, nbfft.ArgumentTypeError, ["rank"]),
    ("nd-in_box_of-negative", lambda o, v: o.nd.in_box_of(v), -2, LOCAL, nbfft.InvalidArgument, ["rank"]),
    ("nd-out_box_of-bool", lambda o, v: o.nd.out_box_of(v), True, LOCAL, nbfft.ArgumentTypeError, ["rank"]),
    ("nd-in_slices_of-past", lambda o, v: o.nd.in_slices_of(v), P, LOCAL, nbfft.InvalidArgument, ["rank"]),
    ("nd-out_slices_of-overflow", lambda o, v: o.nd.out_slices_of(v), 2**40, LOCAL, nbfft.InvalidArgument, ["rank"]),
    ("nd-gather-root-float", lambda o, v: o.nd.gather(o.ndu, root=v), 1.5, 0, nbfft.ArgumentTypeError, ["root"]),
    ("nd-gather-root-overflow", lambda o, v: o.nd.gather(o.ndu, root=v), BIG, 0, nbfft.InvalidArgument, ["root"]),
    ("nd-scatter-root-none", lambda o, v: o.nd.scatter(o.ndg, root=v), None, 0, nbfft.InvalidArgument, ["root"]),
    ("nd-scatter-g-dtype", lambda o, v: o.nd.scatter(v, root=LAST), np.zeros(ND, np.complex128), np.zeros(ND),
     nbfft.ArgumentTypeError, ["g has dtype complex128"]),
    ("nd-wavenumbers-d-zero", lambda o, v: o.nd.wavenumbers(d=v), 0.0, LOCAL, nbfft.InvalidArgument, [": d "]),
    ("nd-wavenumbers-length-tiny", lambda o, v: o.nd.wavenumbers(length=v), 1e-320, LOCAL, nbfft.InvalidArgument,
     ["length", "overflow"]),
    ("nd-wavenumbers-length-text", lambda o, v: o.nd.wavenumbers(length=v), "long", LOCAL,
     nbfft.ArgumentTypeError, ["length"]),
    ("nd-wavenumbers-length-negative", lambda o, v: o.nd.wavenumbers(length=v), (1.0, -2.0), LOCAL,
     nbfft.InvalidArgument, ["length"]),
    ("nd-forward-dtype", lambda o, v: o.nd.forward(v), Made(lambda o: o.ndu.astype(np.float32)), NDU,
     nbfft.ArgumentTypeError, ["input", "dtype"]),
    ("nd-forward-none", lambda o, v: o.nd.forward(v), None, NDU, nbfft.ArgumentTypeError, ["input"]),
    ("nd-forward-strided", lambda o, v: o.nd.forward(v), Made(lambda o: np.repeat(o.ndu, 2, axis=-1)[..., ::2]),
     NDU, nbfft.InvalidArgument, ["input", "C-contiguous"]),
    ("nd-forward-out-read-only", lambda o, v: o.nd.forward(o.ndu, out=v),
     Made(lambda o: _read_only(np.zeros(o.nd.out_shape, o.nd.out_dtype))), None, nbfft.InvalidArgument,
     ["out", "read-only"]),
    ("nd-forward_many-none", lambda o, v: o.nd.forward_many(v), None, Made(lambda o: [o.ndu]),
     nbfft.ArgumentTypeError, ["fields"]),
    ("nd-forward_many-out-int", lambda o, v: o.nd.forward_many([o.ndu], out=v), 5, None, nbfft.ArgumentTypeError,
     ["out"]),
    ("nd-closed-in_box_of", lambda o, v: closed(lambda: nbfft.NdPlan(COMM, ND)).in_box_of(v), 0, LOCAL,
     nbfft.InvalidState, ["close"]),
    # -- nbfft.Pencils ---------------------------------------------------------------------------
    ("pencils-shape-float", lambda o, v: nbfft.Pencils(COMM, v), (8.9, 6, 10), SHAPE, nbfft.ArgumentTypeError,
     ["shape"]),
    ("pencils-shape-digits", lambda o, v: nbfft.Pencils(COMM, v), ("8", "6", "10"), SHAPE, nbfft.ArgumentTypeError,
     ["shape"]),
    ("pencils-shape-overflow", lambda o, v: nbfft.Pencils(COMM, v), (8, 6, BIG), SHAPE, nbfft.InvalidArgument,
     ["shape"]),
    ("pencils-shape-none", lambda o, v: nbfft.Pencils(COMM, v), None, SHAPE, nbfft.ArgumentTypeError, ["shape"]),
    ("pencils-proc_grid-float", lambda o, v: nbfft.Pencils(COMM, SHAPE, proc_grid=v), (1.5, 1), (P, 1),
     nbfft.ArgumentTypeError, ["proc_grid"]),
    ("pencils-proc_grid-bool", lambda o, v: nbfft.Pencils(COMM, SHAPE, proc_grid=v), (True, P), (1, P),
     nbfft.ArgumentTypeError, ["proc_grid"]),
    ("pencils-proc_grid-overflow", lambda o, v: nbfft.Pencils(COMM, SHAPE, proc_grid=v), (2**40, 1), (P, 1),
     nbfft.InvalidArgument, ["proc_grid"]),
    ("pencils-fields_in_flight-bool", lambda o, v: nbfft.Pencils(COMM, SHAPE, fields_in_flight=v), True, 2,
     nbfft.ArgumentTypeError, ["fields_in_flight"]),
    ("pencils-fields_in_flight-overflow", lambda o, v: nbfft.Pencils(COMM, SHAPE, fields_in_flight=v), 2**40, 2,
     nbfft.InvalidArgument, ["fields_in_flight"]),
    ("pencils-transpose_many-none", lambda o, v: o.pencils.transpose_many(v, "x", v, "y"), None,
     Made(lambda o: []), nbfft.ArgumentTypeError, ["src"]),
    ("pencils-transpose_many-dst-int", lambda o, v: o.pencils.transpose_many([o.ux], "x", v, "y"), 5,
     Made(lambda o: [o.uy]), nbfft.ArgumentTypeError, ["dst"]),
    ("pencils-transpose-object-dtype", lambda o, v: o.pencils.transpose(o.ux.astype(v), "x", o.uy.astype(v), "y"),
     object, np.float64, nbfft.ArgumentTypeError, ["dtype", "object"]),
    ("pencils-box-int", lambda o, v: o.pencils.box(v), 1, LOCAL, nbfft.InvalidArgument, ["pencil"]),
    ("pencils-closed-global_shape", lambda o, v: closed(lambda: nbfft.Pencils(COMM, SHAPE)).global_shape, None,
     LOCAL, nbfft.InvalidState, ["close"]),
    # -- nbfft.coll ------------------------------------------------------------------------------
    ("coll-alltoall-object-dtype", lambda o, v: coll.alltoall(COMM, o.send.astype(v), o.recv.astype(v)), object,
     np.float64, nbfft.ArgumentTypeError, ["dtype", "object"]),
    ("coll-alltoall-algorithm-none", lambda o, v: coll.alltoall(COMM, o.send, o.recv, algorithm=v), None,
     "pairwise:4", nbfft.ArgumentTypeError, ["algorithm"]),
    ("coll-alltoall-send-none", lambda o, v: coll.alltoall(COMM, v, o.recv), None, Made(lambda o: o.send),
     nbfft.ArgumentTypeError, ["send"]),
    ("coll-alltoall-closed-comm", lambda o, v: coll.alltoall(closed(lambda: coll.Comm(COMM, "caller")), o.send,
                                                             o.recv), None, LOCAL, nbfft.InvalidState, ["close"]),
    ("coll-comm-engine-int", lambda o, v: coll.Comm(COMM, engine=v), 5, "caller", nbfft.InvalidArgument,
     ["engine"]),
]

# nbfft.io: the file made by Objects holds u/0, plane/0 (z = 0) and sub/0 (stride 2).
IO_CASES = [
    ("io-file-chunk-float", lambda o, v: nbfft.io.File(COMM, o.path("c.h5"), "w", chunk=v), (4.0, 4, 4), None,
     nbfft.ArgumentTypeError, ["chunk"]),
    ("io-file-chunk-text", lambda o, v: nbfft.io.File(COMM, o.path("c.h5"), "w", chunk=v), "444", None,
     nbfft.ArgumentTypeError, ["chunk"]),
    ("io-file-chunk-length", lambda o, v: nbfft.io.File(COMM, o.path("c.h5"), "w", chunk=v), (4, 4), None,
     nbfft.InvalidArgument, ["chunk"]),
    ("io-file-alignment-overflow", lambda o, v: nbfft.io.File(COMM, o.path("c.h5"), "w", alignment=v), BIG, 0,
     nbfft.InvalidArgument, ["alignment"]),
    ("io-file-align_threshold-bool", lambda o, v: nbfft.io.File(COMM, o.path("c.h5"), "w", align_threshold=v),
     True, 0, nbfft.ArgumentTypeError, ["align_threshold"]),
    ("io-write-step-overflow", lambda o, v: o.file.write(o.plan, "w", o.u, step=v), BIG, 1, nbfft.InvalidArgument,
     ["step"]),
    ("io-write-step-digits", lambda o, v: o.file.write(o.plan, "w", o.u, step=v), "1", 1, nbfft.ArgumentTypeError,
     ["step"]),
    ("io-write-time-text", lambda o, v: o.file.write(o.plan, "w", o.u, step=1, time=v), "0", 0.0,
     nbfft.ArgumentTypeError, ["time"]),
    # An NdPlan stands for its layout (nbfft.io.Layout); a 3-D plan's block does not fit it.
    ("io-write-plan-nd", lambda o, v: o.file.write(v, "w", o.u, step=1), Made(lambda o: o.nd), Made(lambda o: o.plan),
     nbfft.ArgumentTypeError,
     ["layout", "dtype"]),
    ("io-write-plan-other-communicator", lambda o, v: o.file.write(v, "w", o.u, step=1),
     Made(lambda o: o.self_plan), Made(lambda o: o.plan), nbfft.InvalidArgument, ["plan", "communicator"]),
    ("io-write_plane-index-overflow", lambda o, v: o.file.write_plane(o.plan, "w", o.u, 1, axis="z", index=v), BIG,
     0, nbfft.InvalidArgument, ["index"]),
    ("io-write_plane-index-float", lambda o, v: o.file.write_plane(o.plan, "w", o.u, 1, axis="z", index=v), 1.0, 0,
     nbfft.ArgumentTypeError, ["index"]),
    ("io-write_subsampled-stride-overflow", lambda o, v: o.file.write_subsampled(o.plan, "w", o.u, 1, stride=v),
     BIG, 2, nbfft.InvalidArgument, ["stride"]),
    ("io-write_subsampled-stride-float", lambda o, v: o.file.write_subsampled(o.plan, "w", o.u, 1, stride=v),
     (1, 1.5, 1), 2, nbfft.ArgumentTypeError, ["stride"]),
    ("io-read_subsampled-stride-length", lambda o, v: o.file.read_subsampled(o.plan, "sub", 0, stride=v), (2, 2), 2,
     nbfft.InvalidArgument, ["stride"]),
    ("io-read_plane-index-bool", lambda o, v: o.file.read_plane(o.plan, "plane", 0, axis="z", index=v), False, 0,
     nbfft.ArgumentTypeError, ["index"]),
    ("io-read-step-float", lambda o, v: o.file.read(o.plan, "u", step=v), 0.0, 0, nbfft.ArgumentTypeError, ["step"]),
    ("io-time-step-overflow", lambda o, v: o.file.time("u", v), BIG, 0, nbfft.InvalidArgument, ["step"]),
    ("io-time-step-float", lambda o, v: o.file.time("u", v), 0.0, 0, nbfft.ArgumentTypeError, ["step"]),
    ("io-steps-name-int", lambda o, v: o.file.steps(v), 5, "u", nbfft.ArgumentTypeError, ["name"]),
    ("io-closed-file-steps", lambda o, v: closed(lambda: nbfft.io.File(COMM, o.path("closed.h5"), "w")).steps(v),
     "u", LOCAL, nbfft.InvalidState, ["close"]),
]


def _read_only(a):
    a.flags.writeable = False
    return a


def _run(o, case):
    case_id, call, bad, good, exc, words = case
    if case_id == "io-write-plan-other-communicator" and P == 1:
        pytest.skip("COMM_SELF is the file's communicator at one rank")
    collective = good is not LOCAL
    mine = bad if (not collective or COMM.rank == LAST) else good
    value = mine.make(o) if isinstance(mine, Made) else mine
    e = raises_everywhere(exc, lambda: call(o, value))
    message = str(e)
    first = COMM.bcast(message, root=0)
    assert all_ranks(message == first), "rank {} saw another message: {!r} vs {!r}".format(COMM.rank, message, first)
    missing = [w for w in words if w not in message]
    assert not missing, "the message {!r} does not name {}".format(message, missing)
    if collective and exc is not nbfft.InvalidState:
        assert "[rank {}]".format(LAST) in message, message


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_misuse(objs, case):
    _run(objs, case)


@pytest.mark.skipif(not hdf5, reason="built without parallel HDF5")
@pytest.mark.parametrize("case", IO_CASES, ids=[c[0] for c in IO_CASES])
def test_io_misuse(objs, case):
    _run(objs, case)


def test_numpy_integers_are_ints(objs):
    """What the checks refuse is no int; numpy's integer scalars are, everywhere."""
    i = np.int32
    with nbfft.Pencils(COMM, tuple(i(s) for s in SHAPE), proc_grid=(i(P), i(1)), fields_in_flight=np.int64(3)) as p:
        assert p.global_shape == SHAPE and p.proc_grid == (P, 1)
    with nbfft.NdPlan(COMM, np.array(ND), axes=np.array([1]), grid=(i(P), i(1))) as nd:
        assert nd.global_shape == ND and nd.axes == (1,) and nd.in_box_of(np.int16(0)) == nd.in_box_of(0)
    with nbfft.Plan(COMM, tuple(np.int64(s) for s in SHAPE), grid=(np.uint8(1), i(P)), fields_in_flight=i(2)) as p:
        assert p.grid == (1, P)
    a = nbfft.aligned_empty((i(3), np.uint16(5)), np.float64, alignment=np.int64(32))
    assert a.shape == (3, 5) and a.ctypes.data % 32 == 0
    assert nbfft.aligned_empty(np.int8(4), np.float32).shape == (4,)
    assert nbfft.thread_level_name(np.int32(MPI.THREAD_SINGLE)) == "MPI_THREAD_SINGLE"
    assert all_ranks(True)
