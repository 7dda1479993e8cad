"""Bad input raises the right nbfft error class on EVERY rank (never a hang or a copy)."""

import numpy as np
import pytest

import nbfft
from mpi4py import MPI
from conftest import COMM, all_ranks, raises_everywhere

P = COMM.size
LAST = P - 1  # the rank that gets the bad argument when only one does


@pytest.fixture
def plan(comm):
    with nbfft.Plan(comm, (8, 6, 10), effort="estimate") as p:
        yield p


def test_error_classes_carry_kind_and_code():
    assert issubclass(nbfft.InvalidArgument, ValueError) and issubclass(nbfft.InvalidArgument, nbfft.Error)
    assert issubclass(nbfft.ArgumentTypeError, TypeError)
    assert issubclass(nbfft.OutOfMemory, MemoryError) and issubclass(nbfft.IoError, OSError)
    codes = {c.code: c.kind for c in (nbfft.InvalidArgument, nbfft.RanksDisagree, nbfft.Unavailable, nbfft.MpiError,
                                      nbfft.OutOfMemory, nbfft.IoError, nbfft.InvalidState, nbfft.InternalError)}
    assert codes == {1: "invalid argument", 2: "ranks disagree", 3: "unavailable", 4: "mpi", 5: "out of memory",
                     6: "io", 7: "invalid state", 8: "internal"}


def test_wrong_dtype_on_one_rank(comm, plan):
    u = np.zeros_like(plan.empty_input())
    bad = u.astype(np.float32) if comm.rank == LAST else u
    e = raises_everywhere(nbfft.ArgumentTypeError, lambda: plan.forward(bad))
    assert "float32" in e.message and "[rank {}]".format(LAST) in e.message
    assert e.code == 1 and e.kind == "invalid argument"


def test_non_contiguous_is_refused_not_copied(comm, plan):
    big = np.zeros(plan.input_box.shape[:2] + (2 * plan.input_box.shape[2],))
    view = big[:, :, ::2]
    e = raises_everywhere(nbfft.InvalidArgument, lambda: plan.forward(view))
    assert "C-contiguous" in e.message
    fortran = np.asfortranarray(np.zeros(plan.input_box.shape))
    if min(plan.input_box.shape) > 1:
        raises_everywhere(ValueError, lambda: plan.forward(fortran))


def test_wrong_shape_and_readonly_out(comm, plan):
    u = plan.empty_input()
    bad = np.zeros(u.shape[:2] + (u.shape[2] + 1,)) if comm.rank == 0 else u
    e = raises_everywhere(ValueError, lambda: plan.forward(bad))
    assert "shape" in e.message and "[rank 0]" in e.message
    out = plan.empty_output()
    out.flags.writeable = False
    raises_everywhere(nbfft.InvalidArgument, lambda: plan.forward(u, out=out))
    raises_everywhere(TypeError, lambda: plan.forward([1.0, 2.0]))
    raises_everywhere(TypeError, lambda: plan.backward(u))  # real array given to backward


def test_complex_dtype_needs_c2c(comm):
    raises_everywhere(TypeError, lambda: nbfft.Plan(comm, (4, 4, 4), dtype=np.complex128, transform="r2c"))
    raises_everywhere(TypeError, lambda: nbfft.Plan(comm, (4, 4, 4), dtype=np.int32))
    with nbfft.Plan(comm, (4, 4, 4), dtype=np.float32, transform="c2c", effort="estimate") as p:
        assert p.in_dtype == np.complex64


@pytest.mark.parametrize("kwargs", [dict(shape=(4, 4)), dict(shape=(4, 0, 4)), dict(norm="unitary"),
                                    dict(transport="warp-drive"), dict(effort="fast"), dict(grid=(3, 5, 1)),
                                    dict(grid=(P + 1, 1))])
def test_bad_plan_arguments(comm, kwargs):
    args = dict(shape=(6, 6, 6), effort="estimate")
    args.update(kwargs)
    shape = args.pop("shape")
    raises_everywhere(nbfft.InvalidArgument, lambda: nbfft.Plan(comm, shape, **args))


@pytest.mark.skipif(P < 2, reason="needs two ranks to disagree")
def test_ranks_that_disagree(comm):
    shape = (8, 8, 8) if comm.rank == 0 else (8, 8, 9)
    e = raises_everywhere(nbfft.RanksDisagree, lambda: nbfft.Plan(comm, shape, effort="estimate"))
    assert "grid" in e.message and e.code == 2
    transport = "thread" if comm.rank == LAST else "blocking"
    raises_everywhere(nbfft.RanksDisagree, lambda: nbfft.Plan(comm, (8, 8, 8), transport=transport, effort="estimate"))


@pytest.mark.skipif(P < 2, reason="needs two ranks to disagree")
def test_field_counts_that_disagree(comm, plan):
    nv = 2 if comm.rank == 0 else 3
    fields = [plan.empty_input() for _ in range(nv)]
    for f in fields:
        f[...] = 1
    raises_everywhere(nbfft.RanksDisagree, lambda: plan.forward_many(fields))


def test_many_fields_errors(comm, plan):
    u = np.zeros_like(plan.empty_input())
    raises_everywhere(TypeError, lambda: plan.forward_many("uvw"))
    raises_everywhere(ValueError, lambda: plan.forward_many([u, u.copy()], out=[plan.empty_output()]))
    bad = [u, u.astype(np.float32) if comm.rank == LAST else u.copy()]
    e = raises_everywhere(TypeError, lambda: plan.forward_many(bad))
    assert "field 1" in e.message
    # Two fields on the same memory: the C++ check, agreed on every rank.
    raises_everywhere(nbfft.InvalidArgument, lambda: plan.forward_many([u, u], out=[plan.empty_output()] * 2))


def test_closed_plan_is_invalid_state(comm):
    p = nbfft.Plan(comm, (4, 4, 4), effort="estimate")
    u = p.empty_input()
    p.close()
    p.close()  # idempotent
    raises_everywhere(nbfft.InvalidState, lambda: p.forward(u))


def test_thread_level(comm, monkeypatch):
    assert nbfft.required_thread_level("thread") == MPI.THREAD_MULTIPLE
    assert nbfft.required_thread_level("pairwise:2@thread") == MPI.THREAD_MULTIPLE
    assert nbfft.required_thread_level("rma") == MPI.THREAD_MULTIPLE
    assert nbfft.required_thread_level("blocking") == MPI.THREAD_SINGLE
    assert nbfft.required_thread_level("caller") == MPI.THREAD_SINGLE
    with pytest.raises(nbfft.InvalidArgument):
        nbfft.required_thread_level("nonsense")
    # As if mpi4py had initialized MPI with MPI_THREAD_FUNNELED.
    monkeypatch.setattr(MPI, "Query_thread", lambda: MPI.THREAD_FUNNELED)
    e = raises_everywhere(nbfft.Unavailable, lambda: nbfft.Plan(comm, (4, 4, 4), transport="thread"))
    assert "MPI_THREAD_MULTIPLE" in e.message and "MPI_THREAD_FUNNELED" in e.message
    raises_everywhere(nbfft.Unavailable, lambda: nbfft.coll.Comm(comm, engine="thread"))
    with nbfft.Plan(comm, (4, 4, 4), transport="caller", effort="estimate"):
        pass
    # A caller-engine plan runs under MPI_THREAD_SINGLE, as C++ says.
    monkeypatch.setattr(MPI, "Query_thread", lambda: MPI.THREAD_SINGLE)
    with nbfft.Plan(comm, (4, 4, 4), transport="blocking", effort="estimate"):
        pass
    raises_everywhere(nbfft.Unavailable, lambda: nbfft.Plan(comm, (4, 4, 4), transport="blocking",
                                                            col_transport="rma"))


def test_thread_level_is_cpps_for_every_transport():
    # Every engine of the C++ registry, with every algorithm it takes, and every preset:
    # Python's answer is the registry's and that of the C++ rule for a plan's options
    # (nbfft_required_thread_level), for either exchange and for mixed pairs.
    engines = nbfft._core.engines()
    transports = [name for name, _, _ in nbfft.transport_presets()]
    for engine, _, multiple in engines:
        for algorithm in ("pairwise", "pairwise:2", "linear", "bruck", "native", "persistent", "rma", "blocking"):
            try:
                nbfft._core.parse_transport("{}@{}".format(algorithm, engine))
            except nbfft.InvalidArgument:
                continue  # not an algorithm of this engine
            t = "{}@{}".format(algorithm, engine)
            transports.append(t)
            assert nbfft.required_thread_level(t) == (MPI.THREAD_MULTIPLE if multiple else MPI.THREAD_SINGLE), t
    assert len(transports) >= 3 * len(engines)
    for row in transports:
        for col in transports:
            words = [("row_transport", row), ("col_transport", col)]
            want = max(nbfft.required_thread_level(row), nbfft.required_thread_level(col))
            assert nbfft._core.options_thread_level(words) == want, (row, col)
        assert nbfft._core.options_thread_level([("transport", row)]) == nbfft.required_thread_level(row)


def test_gather_scatter_errors(comm, plan):
    raises_everywhere(ValueError, lambda: plan.gather(plan.empty_input(), root=P))
    g = np.zeros((3, 3, 3))
    raises_everywhere(ValueError, lambda: plan.scatter(g if comm.rank == 0 else None))
    raises_everywhere(ValueError, lambda: plan.gather(plan.empty_input(), space="fourier"))


def test_not_a_communicator():
    with pytest.raises(TypeError):
        nbfft.Plan("COMM_WORLD", (4, 4, 4))
    with pytest.raises(ValueError):
        nbfft.Plan(MPI.COMM_NULL, (4, 4, 4))
    assert all_ranks(True)
