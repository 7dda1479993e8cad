"""The bad-input campaign through Python (issue 16): arrays of the wrong shape, order,
dtype, contiguity or writability, aliasing, bad option values and types, ranks that
disagree, sub-communicators, closed plans, split-phase misuse, and an exception in user
code on one rank. Each case asserts the error class on EVERY rank (raises_everywhere) and
that the message names the problem; the suite's per-test timeout (pyproject.toml) turns a
hang into a failure.
"""

import os
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import nbfft
import nbfft.coll as coll
from mpi4py import MPI
from conftest import COMM, all_ranks, assert_close_everywhere, global_field, raises_everywhere

P = COMM.size
LAST = P - 1
SHAPE = (8, 6, 10)  # (nz, ny, nx): no two local extents coincide at 1-4 ranks


@pytest.fixture
def plan(comm):
    with nbfft.Plan(comm, SHAPE, effort="estimate") as p:
        yield p


@pytest.fixture
def cplan(comm):
    with nbfft.Plan(comm, SHAPE, dtype=np.complex128, effort="estimate") as p:
        yield p


def filled(p):
    u = p.empty_input()
    u[...] = 1
    return u


def r0(value):
    """Rank 0's value: an agreed message is the lowest failing rank's, here rank 0's."""
    return COMM.bcast(value, root=0)


def swapped(shape):
    return (shape[1], shape[0], shape[2])


# -- shapes and order ------------------------------------------------------------------------
def test_spectrum_in_numpy_order_is_refused(plan):
    """A spectrum indexed [kz][ky][kx] (numpy.fft's order) instead of nbfft's [ky][kz][kx]."""
    out = np.empty(swapped(plan.output_box.shape), plan.out_dtype)
    e = raises_everywhere(nbfft.InvalidArgument, lambda: plan.forward(filled(plan), out=out))
    assert r0("expected out of shape {} [y][z][x]".format(plan.output_box.shape)) in e.message
    assert r0("got {}".format(out.shape)) in e.message and "another order" in e.message


def test_backward_of_a_spectrum_in_the_wrong_order(plan):
    bad = np.zeros(swapped(plan.output_box.shape), plan.out_dtype)
    e = raises_everywhere(nbfft.InvalidArgument, lambda: plan.backward(bad))
    assert "expected a of shape" in e.message and "[y][z][x]" in e.message


def test_wrong_order_on_one_rank_only(plan, comm):
    good = plan.empty_output()
    bad = np.empty(swapped(good.shape), good.dtype) if comm.rank == LAST else good
    e = raises_everywhere(nbfft.InvalidArgument, lambda: plan.forward(filled(plan), out=bad))
    assert "[rank {}]".format(LAST) in e.message


def test_input_in_x_y_z_order(plan):
    u = np.zeros(tuple(reversed(plan.input_box.shape)))
    e = raises_everywhere(nbfft.InvalidArgument, lambda: plan.forward(u))
    assert "[z][y][x]" in e.message and r0("got {}".format(u.shape)) in e.message


def test_one_extent_too_long(plan):
    s = plan.input_box.shape
    e = raises_everywhere(nbfft.InvalidArgument, lambda: plan.forward(np.zeros(s[:2] + (s[2] + 1,))))
    assert r0("expected a of shape {}".format(s)) in e.message


def test_same_size_other_shape(plan):
    u = filled(plan).reshape(-1)
    e = raises_everywhere(nbfft.InvalidArgument, lambda: plan.forward(u))
    assert r0("got ({},)".format(u.size)) in e.message


@pytest.mark.parametrize("ndim", [2, 4])
def test_wrong_number_of_dimensions(plan, ndim):
    s = plan.input_box.shape
    u = np.zeros(s[:2] if ndim == 2 else (1,) + s)
    e = raises_everywhere(nbfft.InvalidArgument, lambda: plan.forward(u))
    assert "expected a of shape" in e.message


# -- contiguity, writability, dtype ------------------------------------------------------------
def test_fortran_ordered_input(plan):
    u = np.asfortranarray(filled(plan))
    e = raises_everywhere(nbfft.InvalidArgument, lambda: plan.forward(u))
    assert "Fortran-ordered" in e.message and "C-contiguous" in e.message


def test_fortran_ordered_output(plan):
    out = np.asfortranarray(plan.empty_output())
    e = raises_everywhere(nbfft.InvalidArgument, lambda: plan.forward(filled(plan), out=out))
    assert "expected out C-contiguous" in e.message


def test_strided_output_view(plan):
    s = plan.output_box.shape
    out = np.zeros(s[:2] + (2 * s[2],), plan.out_dtype)[:, :, ::2]
    e = raises_everywhere(nbfft.InvalidArgument, lambda: plan.forward(filled(plan), out=out))
    assert "strided view" in e.message


def test_read_only_input_is_fine(plan, comm):
    g = global_field(SHAPE, np.float64)
    u = np.ascontiguousarray(g.transpose(plan.input_box.perm)[plan.input_box.slices])
    u.flags.writeable = False
    spec = plan.gather(plan.forward(u))
    if comm.rank == 0:
        assert np.allclose(spec, np.fft.rfftn(g))
    assert all_ranks(True)


def test_read_only_output_on_one_rank(plan, comm):
    out = plan.empty_output()
    out.flags.writeable = comm.rank != LAST
    e = raises_everywhere(nbfft.InvalidArgument, lambda: plan.forward(filled(plan), out=out))
    assert "read-only" in e.message and "[rank {}]".format(LAST) in e.message


def test_read_only_output_of_backward(plan):
    out = plan.empty_input()
    out.flags.writeable = False
    e = raises_everywhere(nbfft.InvalidArgument, lambda: plan.backward(np.zeros_like(plan.empty_output()), out=out))
    assert "expected out writable" in e.message


@pytest.mark.parametrize("dtype", [np.complex64, np.float64])
def test_output_of_the_wrong_dtype(plan, dtype):
    out = np.empty(plan.output_box.shape, dtype)
    e = raises_everywhere(nbfft.ArgumentTypeError, lambda: plan.forward(filled(plan), out=out))
    assert "complex128" in e.message and np.dtype(dtype).name in e.message


def test_integer_input(plan):
    e = raises_everywhere(TypeError, lambda: plan.forward(np.zeros(plan.input_box.shape, np.int64)))
    assert "int64" in e.message and "float64" in e.message


def test_complex_input_to_an_r2c_plan(plan):
    e = raises_everywhere(nbfft.ArgumentTypeError, lambda: plan.forward(np.zeros(plan.input_box.shape, complex)))
    assert "complex128" in e.message


def test_output_that_is_no_array(plan):
    e = raises_everywhere(nbfft.ArgumentTypeError, lambda: plan.forward(filled(plan), out=[0.0]))
    assert "numpy.ndarray" in e.message and "list" in e.message


# -- aliasing --------------------------------------------------------------------------------
def test_partially_overlapping_in_and_out(cplan):
    n = cplan.input_box.size
    if cplan.input_box.shape != cplan.output_box.shape or n == 0:
        pytest.skip("needs equal input and output boxes")
    buf = np.zeros(n + 1, complex)
    a, out = buf[:n].reshape(cplan.input_box.shape), buf[1:].reshape(cplan.output_box.shape)
    e = raises_everywhere(nbfft.InvalidArgument, lambda: cplan.forward(a, out=out))
    assert "overlap" in e.message


def test_in_place_c2c_and_r2c_are_allowed(cplan, plan, comm):
    g = global_field(SHAPE, np.complex128)
    a, A = cplan.empty_inplace()
    a[...] = g.transpose(cplan.input_box.perm)[cplan.input_box.slices]
    spec = cplan.gather(cplan.forward(a, out=A))
    if comm.rank == 0:
        assert np.allclose(spec, np.fft.fftn(g))
    r, R = plan.empty_inplace()
    gr = global_field(SHAPE, np.float64)
    r[...] = gr.transpose(plan.input_box.perm)[plan.input_box.slices]
    plan.forward(r, out=R)
    back = plan.backward(R, out=r)
    assert_close_everywhere(back, gr.transpose(plan.input_box.perm)[plan.input_box.slices], np.float64)


def test_backward_many_into_one_array_twice(plan):
    spec = [np.zeros_like(plan.empty_output()) for _ in range(2)]
    out = plan.empty_input()
    raises_everywhere(nbfft.InvalidArgument, lambda: plan.backward_many(spec, out=[out, out]))


def test_stacked_fields_in_the_wrong_order(plan):
    s = plan.input_box.shape
    fields = np.zeros((2,) + tuple(reversed(s)))
    e = raises_everywhere(nbfft.InvalidArgument, lambda: plan.forward_many(fields))
    assert "fields" in e.message


def test_one_fortran_ordered_field_on_one_rank(plan, comm):
    u = [filled(plan), filled(plan)]
    if comm.rank == LAST:
        u[1] = np.asfortranarray(u[1])
    if all_ranks(u[1].flags.c_contiguous):  # 1-extent boxes are both C- and F-contiguous
        pytest.skip("the box is contiguous either way")
    e = raises_everywhere(nbfft.InvalidArgument, lambda: plan.forward_many(u))
    assert "field 1" in e.message and "[rank {}]".format(LAST) in e.message


# -- option values and types -------------------------------------------------------------------
@pytest.mark.parametrize("kwargs, kind, words", [
    (dict(shape=(8.5, 6, 10)), nbfft.ArgumentTypeError, "shape"),
    (dict(shape=(8, 6, 2**63)), nbfft.InvalidArgument, "shape"),
    (dict(grid=(1.5, 1)), nbfft.InvalidArgument, "grid"),
    (dict(fields_in_flight=0), nbfft.InvalidArgument, "fields_in_flight"),
    (dict(fields_in_flight="2"), nbfft.ArgumentTypeError, "fields_in_flight"),
    (dict(progress_chunks=-1), nbfft.InvalidArgument, "progress_chunks"),
    (dict(progress_chunks=2**40), nbfft.InvalidArgument, "progress_chunks"),
    (dict(col_chunk_planes=1.5), nbfft.ArgumentTypeError, "col_chunk_planes"),
    (dict(lean_workspace="yes"), nbfft.ArgumentTypeError, "lean_workspace"),
    (dict(col_kernel="bogus"), nbfft.InvalidArgument, "COL kernel 'bogus'"),
    (dict(transport=None), nbfft.ArgumentTypeError, "transport"),
    (dict(norm=["backward"]), nbfft.InvalidArgument, "norm"),
    (dict(effort=3), nbfft.InvalidArgument, "effort"),
])
def test_bad_option_on_one_rank(comm, kwargs, kind, words):
    """Only the last rank passes the bad value: every rank raises, none is left waiting."""
    args = dict(shape=SHAPE, effort="estimate")
    if comm.rank == LAST:
        args.update(kwargs)
    shape = args.pop("shape")
    e = raises_everywhere(kind, lambda: nbfft.Plan(comm, shape, **args))
    assert words in e.message and "[rank {}]".format(LAST) in e.message


@pytest.mark.skipif(P < 2, reason="needs two ranks to disagree")
@pytest.mark.parametrize("field, kwargs", [
    ("norm", dict(norm="ortho")), ("precision", dict(dtype=np.float32)), ("transform", dict(dtype=np.complex128)),
    ("fields_in_flight", dict(fields_in_flight=3)), ("lean_workspace", dict(lean_workspace=True)),
    ("proc_grid", dict(grid=(1, P))),
])
def test_ranks_disagree_on_options(comm, field, kwargs):
    args = dict(effort="estimate", grid=(P, 1))
    if comm.rank == 0:
        args.update(kwargs)
    e = raises_everywhere(nbfft.RanksDisagree, lambda: nbfft.Plan(comm, SHAPE, **args))
    assert field in e.message


def test_default_norm_is_backward_everywhere(plan):
    """One default across the front ends: forward unscaled, backward by 1/N (numpy's)."""
    assert plan.options.norm == "backward"
    u = filled(plan)
    assert_close_everywhere(plan.backward(plan.forward(u)), u, np.float64)


# -- sub-communicators ------------------------------------------------------------------------
def test_plans_on_a_split_communicator(comm):
    color = comm.rank % 2
    sub = comm.Split(color, comm.rank)
    shape = (6, 4, 8) if color == 0 else (5, 7, 3)  # each half its own grid
    g = global_field(shape, np.float64, seed=3 + color)
    with nbfft.Plan(sub, shape, effort="estimate") as p:
        b = p.input_box
        spec = p.gather(p.forward(np.ascontiguousarray(g.transpose(b.perm)[b.slices])))
        ok = sub.rank != 0 or np.allclose(spec, np.fft.rfftn(g))
    sub.Free()
    assert all_ranks(ok)


def test_mistake_on_one_rank_of_one_sub_communicator(comm):
    color = comm.rank % 2
    sub = comm.Split(color, comm.rank)
    with nbfft.Plan(sub, SHAPE, effort="estimate") as p:
        u = filled(p)
        bad = color == 0 and sub.rank == sub.size - 1
        a = np.asfortranarray(np.zeros(tuple(reversed(u.shape)))) if bad else u
        try:
            p.forward(a)
            got = None
        except nbfft.InvalidArgument as e:
            got = e.message
    failing = "[rank {}]".format(sub.size - 1)
    sub.Free()
    # Half 0 fails together naming its rank; half 1 transforms, nobody waits for the other half.
    ok = (got is not None and failing in got) if color == 0 else got is None
    assert all_ranks(ok)


def test_plan_on_comm_self_per_rank_grids(comm):
    shape = (4, 3 + comm.rank, 5)  # a different grid on every rank is fine on COMM_SELF
    g = global_field(shape, np.complex128)
    with nbfft.Plan(MPI.COMM_SELF, shape, dtype=np.complex128, effort="estimate") as p:
        assert np.allclose(p.gather(p.forward(g.copy()), space="output"), np.fft.fftn(g))
    assert all_ranks(True)


def test_plan_outlives_its_communicator(comm):
    dup = comm.Dup()
    p = nbfft.Plan(dup, SHAPE, effort="estimate")
    dup.Free()  # the plan keeps its own duplicate
    u = filled(p)
    assert_close_everywhere(p.backward(p.forward(u)), u, np.float64)
    p.close()


@pytest.mark.skipif(P < 2, reason="an intercommunicator needs two groups")
def test_intercommunicator_is_refused(comm):
    color = comm.rank % 2
    local = comm.Split(color, comm.rank)
    inter = local.Create_intercomm(0, comm, 1 - color)
    e = raises_everywhere(nbfft.InvalidArgument, lambda: nbfft.Plan(inter, SHAPE))
    assert "intracommunicator" in e.message
    inter.Free()
    local.Free()


# -- closed plans and split-phase misuse ---------------------------------------------------------
@pytest.mark.parametrize("use", ["backward", "forward_many", "gather", "scatter", "grid", "options"])
def test_closed_plan_used_again(comm, use):
    p = nbfft.Plan(comm, SHAPE, effort="estimate")
    u, U = filled(p), p.empty_output()
    p.close()
    calls = {"backward": lambda: p.backward(U), "forward_many": lambda: p.forward_many([u]),
             "gather": lambda: p.gather(u), "scatter": lambda: p.scatter(None),
             "grid": lambda: p.grid, "options": lambda: p.options}
    e = raises_everywhere(nbfft.InvalidState, calls[use])
    assert "close" in e.message


def test_closed_inside_with(comm):
    with nbfft.Plan(comm, SHAPE, effort="estimate") as p:
        u = filled(p)
    raises_everywhere(nbfft.InvalidState, lambda: p.forward(u))


@pytest.mark.skipif(P < 2, reason="one rank completes a start at once")
def test_collective_started_twice(comm):
    """Rank 0 starts only after the others tried twice: their first start cannot have
    completed (it needs rank 0's blocks), so the second must be refused, not queued."""
    send = np.zeros(P * 1000)
    recv = np.empty_like(send)
    with coll.Comm(comm, engine="caller") as c, coll.alltoall(c, send, recv, algorithm="linear") as a2a:
        message = ""
        if comm.rank != 0:
            req = a2a.start()
            try:
                a2a.start()
            except nbfft.InvalidState as e:
                message = e.message
        comm.Barrier()
        if comm.rank == 0:
            req = a2a.start()
        req.wait()
        assert all_ranks(comm.rank == 0 or "still active" in message)


def test_request_waited_twice(comm):
    send = np.zeros(P * 4)
    recv = np.empty_like(send)
    with coll.alltoall(comm, send, recv) as a2a:
        req = a2a.start()
        req.wait()
        e = raises_everywhere(nbfft.InvalidState, req.wait)
        assert "already completed" in e.message
        raises_everywhere(nbfft.InvalidState, req.test)


def test_collective_started_after_close(comm):
    send = np.zeros(P * 4)
    a2a = coll.alltoall(comm, send, np.empty_like(send))
    a2a.close()
    e = raises_everywhere(nbfft.InvalidState, a2a.start)
    assert "close" in e.message


def test_alltoall_in_place_is_refused(comm):
    buf = np.zeros(P * 4)
    e = raises_everywhere(nbfft.InvalidArgument, lambda: coll.alltoall(comm, buf, buf))
    assert "overlap" in e.message


@pytest.mark.parametrize("kwargs", [dict(algorithm=4), dict(engine=["caller"])])
def test_coll_option_types_on_one_rank(comm, kwargs):
    send = np.zeros(P * 4)
    if "engine" in kwargs:
        engine = kwargs["engine"] if comm.rank == LAST else "caller"
        raises_everywhere(nbfft.InvalidArgument, lambda: coll.Comm(comm, engine=engine))
    else:
        alg = kwargs["algorithm"] if comm.rank == LAST else "pairwise:4"
        e = raises_everywhere(nbfft.ArgumentTypeError,
                              lambda: coll.alltoall(comm, send, np.empty_like(send), algorithm=alg))
        assert "algorithm" in e.message


# -- an exception in user code on one rank -------------------------------------------------------
def _mpiexec():
    from nbfft import _mpi
    for name in ("mpiexec." + _mpi.ABI, "mpiexec"):
        if shutil.which(name):
            return shutil.which(name)
    return None


@pytest.mark.skipif(P != 1, reason="runs its own 2-rank job once, from the 1-rank suite")
@pytest.mark.timeout(120)
def test_exception_on_one_rank_ends_every_rank(tmp_path):
    """Under `python -m mpi4py` an uncaught exception on rank 1 aborts the job: rank 0,
    waiting in a transform, ends too (docs/python.md). A hang would hit the timeout."""
    mpiexec = _mpiexec()
    if mpiexec is None:
        pytest.skip("no mpiexec")
    script = tmp_path / "one_rank_fails.py"
    script.write_text(textwrap.dedent("""
        import numpy as np
        import nbfft
        from mpi4py import MPI
        comm = MPI.COMM_WORLD
        with nbfft.Plan(comm, (16, 16, 16), effort="estimate") as plan:
            u = plan.empty_input()
            u[...] = 1
            if comm.rank == 1:
                raise RuntimeError("user code failed on rank 1")
            for _ in range(1000):
                plan.forward(u)
        print("not reached")
    """))
    # A job of its own: drop the variables of the job this test runs in (keep the user's
    # run-as-root permission, which Open MPI needs in containers).
    env = {k: v for k, v in os.environ.items()
           if k.startswith("OMPI_ALLOW_RUN_AS_ROOT") or not k.startswith(("OMPI_", "PMIX_", "PMI_", "HYDRA_", "PRTE_"))}
    cmd = [mpiexec, "-n", "2"] + (["--oversubscribe"] if "openmpi" in mpiexec or "Open MPI" in
                                   MPI.Get_library_version() else []) + [sys.executable, "-m", "mpi4py", str(script)]
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=100)
    assert r.returncode != 0
    assert "user code failed on rank 1" in r.stderr
    assert "not reached" not in r.stdout
