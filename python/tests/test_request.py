"""nbfft.Request, the one handle of every split-phase operation: the 3-D plan's
forward_start / backward_start against its blocking calls (several in flight, with user
code between start and wait, caller and thread engines), and the same class returned by an
NdPlan, a transpose and a background write."""

import numpy as np
import pytest

import nbfft
from conftest import COMM, all_ranks, assert_close_everywhere, global_field, raises_everywhere

TRANSPORTS = ["blocking", "pairwise@caller", "pairwise@thread"]


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("dtype", [np.float64, np.complex64])
def test_plan_split_phase_equals_blocking(comm, transport, dtype):
    shape = (7, 6, 9)
    with nbfft.Plan(comm, shape, dtype=dtype, transport=transport, effort="estimate") as plan:
        us = [plan.scatter(global_field(shape, dtype, seed=s) if comm.rank == 0 else None) for s in (3, 4, 5)]
        want = [plan.forward(u) for u in us]
        # Three in flight at once, each on its own work area of the plan's pool.
        rs = [plan.forward_start(u) for u in us]
        assert all(isinstance(r, nbfft.Request) and r.active for r in rs)
        busy = sum(float(np.sum(u.real)) for u in us)  # user code while the exchanges travel
        for r in rs:
            r.progress()
            r.test()
        for r in reversed(rs):  # a forward wait is local: any order
            r.wait()
            assert r.done and not r.active and r.test()
            r.wait()  # a second wait is a no-op
        for r, w in zip(rs, want):
            assert_close_everywhere(r.out, w, dtype)
        # Backward: waited in start order on every rank (its wait runs the second exchange).
        back = [plan.backward_start(r.out) for r in rs]
        _ = busy * 2.0
        for b in back:
            b.wait()
        for b, u in zip(back, us):
            assert_close_everywhere(b.out, u, dtype)
        # As a context manager; and the pool is reused (no more work areas than were in flight).
        with plan.forward_start(us[0]) as r:
            pass
        assert r.done
        assert_close_everywhere(r.out, want[0], dtype)


def test_plan_start_checks_arrays_on_every_rank(comm):
    with nbfft.Plan(comm, (6, 5, 4), effort="estimate") as plan:
        u = plan.empty_input()
        u[...] = 1.0
        bad = np.zeros(3) if comm.rank == 0 else u
        raises_everywhere(nbfft.InvalidArgument, lambda: plan.forward_start(bad))
        wrong = u.astype(np.float32) if comm.rank == comm.size - 1 else u
        raises_everywhere(nbfft.ArgumentTypeError, lambda: plan.forward_start(wrong))
        r = plan.forward_start(u)  # the plan still works after refused starts
        r.wait()
        assert all_ranks(np.isfinite(r.out).all())


def test_one_request_class_for_every_kind(comm, tmp_path_factory):
    assert nbfft.NdPending is nbfft.Request and nbfft.PencilsPending is nbfft.Request
    assert nbfft.io.Pending is nbfft.Request
    with nbfft.NdPlan(comm, (6, 5), axes=(0, 1)) as nd:
        r = nd.forward_start(np.ones(nd.in_shape))
        assert isinstance(r, nbfft.Request)
        r.wait()
    with nbfft.Pencils(comm, (4, 5, 6)) as p:
        src = np.zeros(p.box("x").shape)
        dst = np.zeros(p.box("y").shape)
        t = p.start(src, "x", dst, "y")
        assert isinstance(t, nbfft.Request)
        while not t.test():  # a transpose is unpacked as soon as it arrives
            pass
        assert t.done
    if nbfft.io.hdf5_available():
        path = str(tmp_path_factory.mktemp("req")) + "/r.h5" if comm.rank == 0 else None
        path = comm.bcast(path)
        with nbfft.Plan(comm, (4, 5, 6), effort="estimate") as plan, nbfft.io.File(comm, path, "w") as f:
            w = f.write_start(plan, "u", plan.empty_input() * 0 + 1.0, step=0)
            assert isinstance(w, nbfft.Request)
            w.wait()
            assert w.done
