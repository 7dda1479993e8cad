"""nbfft.io.File's planes, subsampled fields, box lengths, XDMF option and background
writes (write_start): planes and subsamples read by serial h5py equal numpy's slices of the
global field, and read back by read_plane / read_subsampled on other decompositions they
set exactly their points of a block of sentinels; a file written in the background equals
one written blocking; bad input fails on every rank."""

import gc
import os
import weakref

import numpy as np
import pytest

import nbfft
from conftest import COMM, all_ranks, global_field, raises_everywhere
from io_helpers import block, folder, same_bits, serial  # noqa: F401 (folder: a fixture)
from mpi4py import MPI

SHAPE = (5, 6, 7)  # (nz, ny, nx): uneven on 2-3 ranks, odd nx
# The planes and subsamples test_planes_and_subsamples_read_back writes and reads: name,
# space, the keywords of both calls, the points of the global (z, y, x) array they hold.
LOOKS = [
    ("uz", "physical", dict(axis="z", index=3), np.s_[3:4]),
    ("uy", "physical", dict(axis="y", index=5), np.s_[:, 5:6]),
    ("ux", "physical", dict(axis="x", index=6), np.s_[:, :, 6:7]),
    ("us", "physical", dict(stride=(2, 3, 4)), np.s_[::2, ::3, ::4]),
    ("Uy", "spectral", dict(axis="y", index=1), np.s_[:, 1:2]),
    ("Ux", "spectral", dict(axis="x", index=3), np.s_[:, :, 3:4]),  # the last kx of an (5, 6, 4) spectrum
    ("Us", "spectral", dict(stride=2), np.s_[::2, ::2, ::2]),
]
SENTINEL = 1e300  # no value of the fields: a point no read has set
pytestmark = pytest.mark.skipif(not nbfft.io.hdf5_available(), reason="built without parallel HDF5")


def test_planes_and_subsamples_are_numpys_slices(comm, folder):
    path = os.path.join(folder, "view.h5")
    g = global_field(SHAPE, np.float64, seed=5)
    with nbfft.Plan(comm, SHAPE, dtype=np.float64) as plan:
        u = block(plan, g)
        U = plan.forward(u)
        U_glob = comm.bcast(plan.gather(U))
        with nbfft.io.File(comm, path, "w") as f:
            f.write_plane(plan, "uz", u, step=0, time=0.5, axis="z", index=3)
            f.write_plane(plan, "uy", u, step=0, axis="y", index=5)
            f.write_plane(plan, "ux", u, step=0, axis="x", index=0, space="physical")
            f.write_plane(plan, "Uz", U, step=0, axis="z", index=1)  # 'auto': the spectrum
            f.write_subsampled(plan, "us", u, step=0, stride=(2, 3, 4))
            f.write_subsampled(plan, "u2", u, step=1, time=1.0, stride=2)

    def check(h):
        ok = same_bits(h["uz/0"][...], g[3:4]) and same_bits(h["uy/0"][...], g[:, 5:6])
        ok = ok and same_bits(h["ux/0"][...], g[:, :, 0:1]) and same_bits(h["Uz/0"][...], U_glob[1:2])
        ok = ok and same_bits(h["us/0"][...], g[::2, ::3, ::4]) and same_bits(h["u2/1"][...], g[::2, ::2, ::2])
        ok = ok and h["uz/0"].attrs["kind"] == "plane" and h["us/0"].attrs["kind"] == "subsampled"
        ok = ok and list(h["us/0"].attrs["stride"]) == [2, 3, 4] and list(h["uz/0"].attrs["start"]) == [3, 0, 0]
        return ok and h["uz/0"].attrs["time"] == 0.5
    assert serial(path, check), "planes or subsamples are not numpy's slices of the field"


def _read_look(f, plan, name, space, kw, out=None, step=0):
    if "axis" in kw:
        return f.read_plane(plan, name, step, out=out, space=space, **kw)
    return f.read_subsampled(plan, name, step, out=out, space=space, **kw)


def test_planes_and_subsamples_read_back(comm, folder):
    path = os.path.join(folder, "looks.h5")
    g = global_field(SHAPE, np.float64, seed=13)
    with nbfft.Plan(comm, SHAPE, dtype=np.float64) as plan:
        u = block(plan, g)
        U = plan.forward(u)
        glob = {"physical": g, "spectral": comm.bcast(plan.gather(U))}
        with nbfft.io.File(comm, path, "w", xdmf=False) as f:
            for name, space, kw, _ in LOOKS:
                a = u if space == "physical" else U
                if "axis" in kw:
                    f.write_plane(plan, name, a, 0, space=space, **kw)
                else:
                    f.write_subsampled(plan, name, a, 0, space=space, **kw)

    # Read at P ranks on nbfft's grid and slabs both ways, and on rank 0 alone, into blocks
    # of sentinels: exactly the look's points change, to the values written.
    P = comm.size
    runs = [(comm, None)] + ([(comm, (1, P)), (comm, (P, 1))] if P > 1 else [])
    first = comm.Split(0 if comm.rank == 0 else MPI.UNDEFINED, comm.rank) if P > 1 else MPI.COMM_NULL
    if first != MPI.COMM_NULL:
        runs.append((first, None))
    good = True
    for c, grid in runs:
        with nbfft.Plan(c, SHAPE, dtype=np.float64, grid=grid) as p2, nbfft.io.File(c, path) as f:
            for name, space, kw, points in LOOKS:
                want = np.full_like(glob[space], SENTINEL)
                want[points] = glob[space][points]
                out = p2.empty_input() if space == "physical" else p2.empty_output()
                out[...] = SENTINEL
                got = _read_look(f, p2, name, space, kw, out=out)
                good &= got is out and same_bits(out, block(p2, want, space))
            # out=None and step=None: a zeroed block, the last step.
            zeros = np.zeros(SHAPE)
            zeros[::2, ::3, ::4] = g[::2, ::3, ::4]
            good &= same_bits(f.read_subsampled(p2, "us", stride=(2, 3, 4)), block(p2, zeros))
        if c is not comm:
            c.Free()
    assert all_ranks(good), "a look read back differs, or points outside it changed"

    with nbfft.Plan(comm, SHAPE, dtype=np.float64) as plan, nbfft.io.File(comm, path) as f:
        out = plan.empty_input()
        out[...] = SENTINEL
        # Bad input on every rank (one rank's too), the block left as it was.
        short = out.reshape(-1)[:-1] if comm.rank == P - 1 and out.size else out
        e = raises_everywhere(nbfft.InvalidArgument, lambda: f.read_plane(plan, "uz", 0, out=short, axis="z", index=3))
        assert "[rank" in str(e)
        raises_everywhere(nbfft.ArgumentTypeError,
                          lambda: f.read_subsampled(plan, "us", 0, out=np.empty(out.shape, np.float32), stride=(2, 3, 4)))
        e = raises_everywhere(nbfft.InvalidArgument, lambda: f.read_plane(plan, "uz", 0, out=out, axis="w", index=3))
        assert "'x', 'y' or 'z'" in str(e)
        bad_axis = "q" if comm.rank == 0 else "z"
        raises_everywhere(nbfft.InvalidArgument, lambda: f.read_plane(plan, "uz", 0, out=out, axis=bad_axis, index=3))
        e = raises_everywhere(nbfft.InvalidArgument, lambda: f.read_plane(plan, "uz", 0, out=out, axis="z", index=5))
        assert "outside" in str(e)
        e = raises_everywhere(nbfft.InvalidArgument, lambda: f.read_plane(plan, "uz", 0, out=out, axis="z", index=2))
        assert "is the plane z = 3" in str(e)
        e = raises_everywhere(nbfft.InvalidArgument, lambda: f.read_subsampled(plan, "us", 0, out=out, stride=2))
        assert "subsampled by 4,3,2 (x, y, z)" in str(e)
        e = raises_everywhere(nbfft.InvalidArgument, lambda: f.read_subsampled(plan, "us", 0, out=out, stride=0))
        assert "at least 1" in str(e)
        raises_everywhere(nbfft.ArgumentTypeError, lambda: f.read_subsampled(plan, "us", 0, out=out, stride=(1, 2)))
        raises_everywhere(nbfft.InvalidArgument,
                          lambda: f.read_plane(plan, "uz", 0, out=out, axis="z", index=3, space="spectral"))
        ro = plan.empty_input()
        ro.flags.writeable = False
        raises_everywhere(nbfft.InvalidArgument, lambda: f.read_plane(plan, "uz", 0, out=ro, axis="z", index=3))
        assert all_ranks((out == SENTINEL).all()), "a failed read changed the block"
    raises_everywhere(nbfft.InvalidState, lambda: f.read_plane(plan, "uz", 0, out=out, axis="z", index=3))


def test_box_lengths_and_xdmf(comm, folder):
    path = os.path.join(folder, "box.h5")
    with nbfft.Plan(comm, SHAPE, dtype=np.float64) as plan:
        u = block(plan, global_field(SHAPE, np.float64))
        with nbfft.io.File(comm, path, "w", box_lengths=(1.0, 2.5, 4)) as f:
            assert f.box_lengths == (1.0, 2.5, 4.0)  # (Lz, Ly, Lx) as given
            assert f.xdmf_path == os.path.join(folder, "box.xmf")
            f.write(plan, "u", u, step=0)
        assert all_ranks(os.path.exists(os.path.join(folder, "box.xmf")))
        with nbfft.io.File(comm, path) as f:
            assert f.box_lengths == (1.0, 2.5, 4.0) and f.xdmf_path is None
        with nbfft.io.File(comm, path, "a") as f:  # the file's own, not 2 pi
            assert f.box_lengths == (1.0, 2.5, 4.0)
        with nbfft.io.File(comm, os.path.join(folder, "plain.h5"), "w", xdmf=False) as f:
            assert f.xdmf_path is None
            assert np.allclose(f.box_lengths, 2 * np.pi)
            f.write(plan, "u", u, step=0)
        assert all_ranks(not os.path.exists(os.path.join(folder, "plain.xmf")))


def test_background_file_equals_blocking(comm, folder):
    a_path, b_path = os.path.join(folder, "blocking.h5"), os.path.join(folder, "background.h5")
    g = global_field(SHAPE, np.float64, seed=9)
    with nbfft.Plan(comm, SHAPE, dtype=np.float64) as plan:
        u = block(plan, g)
        U = plan.forward(u)
        with nbfft.io.File(comm, a_path, "w", xdmf=False) as f:
            f.write(plan, "u", u, step=0, time=0.5)
            f.write(plan, "U", U, step=0, time=0.5)
            f.write(plan, "u", 2 * u, step=1, time=1.5)
        with nbfft.io.File(comm, b_path, "w", xdmf=False) as f:
            scratch = u.copy()
            w0 = f.write_start(plan, "u", scratch, step=0, time=0.5)
            scratch[...] = -1  # copied at start: changes nothing in the file
            w1 = f.write_start(plan, "U", U, step=0, time=0.5, borrow=True)
            done = w0.test()
            assert done in (True, False) and w0.active
            # Any other use of a file while writes are in flight: refused, on every rank.
            raises_everywhere(nbfft.InvalidState, f.fields)
            w1.wait()  # waits in any order
            w0.wait()
            assert not w0.active
            w0.wait()  # a second wait is a no-op, as for every nbfft.Request
            assert w0.done and w0.test()
            with f.write_start(plan, "u", 2 * u, step=1, time=1.5, borrow=True):  # waited at the block's end
                pass

    def check(h):
        with __import__("h5py").File(a_path, "r") as a:
            ok = sorted(a.keys()) == sorted(h.keys())
            for name in ("u/0", "U/0", "u/1"):
                ok = ok and same_bits(a[name][...], h[name][...])
                ok = ok and dict(a[name].attrs).keys() == dict(h[name].attrs).keys()
                ok = ok and a[name].attrs["time"] == h[name].attrs["time"]
            return ok
    assert serial(b_path, check), "the background-written file differs from the blocking one"


def test_waits_in_any_order_on_each_rank_and_the_plan_may_go_first(comm, folder):
    """The completion rule (every front end's): each rank waits in its own order, the plan
    is closed before the waits, and every dataset reads back whole (its checksum checked)."""
    path = os.path.join(folder, "order.h5")
    g = global_field(SHAPE, np.float64, seed=5)
    with nbfft.Plan(comm, SHAPE, dtype=np.float64) as reader:
        with nbfft.io.File(comm, path, "w", xdmf=False) as f:
            plan = nbfft.Plan(comm, SHAPE, dtype=np.float64)
            u = block(plan, g)
            w = [f.write_start(plan, "u", (k + 1) * u, step=k) for k in range(4)]
            plan.close()  # the writes need nothing more of it
            order = list(range(4))
            if comm.rank % 2:
                order.reverse()
            else:
                order = order[comm.rank % 4:] + order[:comm.rank % 4]
            for k in order:
                w[k].wait()
            assert not any(p.active for p in w)
            if comm.size > 1:
                # A rank that starts a write while another waits: an error on both, and
                # the file is never committed.
                a = f.write_start(reader, "v", u, step=0)
                if comm.rank == 0:
                    e = raises_everywhere(nbfft.RanksDisagree, a.wait)
                else:
                    e = raises_everywhere(nbfft.RanksDisagree, lambda: f.write_start(reader, "v", u, step=1))
                assert "write_start" in str(e) and "wait" in str(e)
                raises_everywhere(nbfft.IoError, f.close)
        if comm.size > 1:
            assert all_ranks(not os.path.exists(path))
            return
        with nbfft.io.File(comm, path) as f:
            for k in range(4):
                assert np.array_equal(f.read(reader, "u", step=k), (k + 1) * u)


def test_borrowed_array_lives_until_wait_and_dropped_pending_waits(comm, folder):
    path = os.path.join(folder, "borrow.h5")
    g = global_field(SHAPE, np.float64, seed=11)
    with nbfft.Plan(comm, SHAPE, dtype=np.float64) as plan:
        with nbfft.io.File(comm, path, "w", xdmf=False) as f:
            tmp = block(plan, g)
            alive = weakref.ref(tmp)
            w = f.write_start(plan, "u", tmp, step=0, borrow=True)
            del tmp
            gc.collect()
            assert alive() is not None, "a borrowed array was freed before the wait"
            w.wait()
            del w
            gc.collect()
            assert alive() is None, "the Pending holds the array after the wait"
            # A Pending dropped unwaited completes its write on this rank; the file stays
            # busy (its error and checksum wait for close(), which is collective).
            f.write_start(plan, "u", 3 * block(plan, g), step=1)
            gc.collect()
            raises_everywhere(nbfft.InvalidState, lambda: f.steps("u"))
        with nbfft.io.File(comm, path) as f:
            assert f.steps("u") == [0, 1]
    assert serial(path, lambda h: same_bits(h["u/1"][...], 3 * g) and same_bits(h["u/0"][...], g))


def test_bad_input_fails_on_every_rank(comm, folder):
    path = os.path.join(folder, "bad.h5")
    with nbfft.Plan(comm, SHAPE, dtype=np.float64) as plan:
        u = block(plan, global_field(SHAPE, np.float64))
        with nbfft.io.File(comm, path, "w") as f:
            e = raises_everywhere(nbfft.InvalidArgument, lambda: f.write_plane(plan, "p", u, 0, axis="y", index=6))
            assert "outside" in str(e)
            raises_everywhere(nbfft.InvalidArgument, lambda: f.write_plane(plan, "p", u, 0, axis="z", index=-1))
            e = raises_everywhere(nbfft.InvalidArgument, lambda: f.write_plane(plan, "p", u, 0, axis="w", index=0))
            assert "'x', 'y' or 'z'" in str(e)
            bad_axis = "q" if comm.rank == 0 else "x"  # one rank wrong: every rank fails
            raises_everywhere(nbfft.InvalidArgument, lambda: f.write_plane(plan, "p", u, 0, axis=bad_axis, index=0))
            raises_everywhere(nbfft.ArgumentTypeError, lambda: f.write_plane(plan, "p", u, 0, axis="x", index=1.5))
            e = raises_everywhere(nbfft.InvalidArgument, lambda: f.write_subsampled(plan, "s", u, 0, stride=0))
            assert "at least 1" in str(e)
            raises_everywhere(nbfft.InvalidArgument, lambda: f.write_subsampled(plan, "s", u, 0, stride=(1, 0, 2)))
            raises_everywhere(nbfft.ArgumentTypeError, lambda: f.write_subsampled(plan, "s", u, 0, stride=(1, 2)))
            raises_everywhere(nbfft.InvalidArgument, lambda: f.write_start(plan, "u", u[:-1], 0))
            raises_everywhere(nbfft.ArgumentTypeError, lambda: f.write_start(plan, "u", u, 0, borrow="yes"))
            f.write_plane(plan, "p", u, 0, axis="x", index=6)
            e = raises_everywhere(nbfft.InvalidArgument, lambda: f.write_plane(plan, "p", u, 0, axis="x", index=6))
            assert "already holds" in str(e)
        raises_everywhere(nbfft.InvalidState, lambda: f.write_plane(plan, "p", u, 1, axis="x", index=0))
        raises_everywhere(nbfft.InvalidState, lambda: f.write_subsampled(plan, "s", u, 1, stride=2))
        raises_everywhere(nbfft.InvalidState, lambda: f.write_start(plan, "u", u, 1))
        raises_everywhere(nbfft.InvalidState, lambda: f.box_lengths)
        raises_everywhere(nbfft.ArgumentTypeError, lambda: nbfft.io.File(comm, path, box_lengths=(1, 2, "3")))
        e = raises_everywhere(nbfft.InvalidArgument, lambda: nbfft.io.File(comm, path, box_lengths=(1, 2)))
        assert "Lz, Ly, Lx" in str(e)
        raises_everywhere(nbfft.InvalidArgument,
                          lambda: nbfft.io.File(comm, path, box_lengths=(1, -2 if comm.rank == 0 else 2, 3)))
        raises_everywhere(nbfft.ArgumentTypeError, lambda: nbfft.io.File(comm, path, xdmf=1))


def test_a_step_already_there_is_refused_at_the_start(comm, folder):
    path = os.path.join(folder, "late.h5")
    with nbfft.Plan(comm, SHAPE, dtype=np.float64) as plan:
        u = block(plan, global_field(SHAPE, np.float64))
        with nbfft.io.File(comm, path, "w", xdmf=False) as f:
            f.write(plan, "u", u, step=0)
            # The dataset is made at the start, so its errors come from write_start.
            e = raises_everywhere(nbfft.InvalidArgument, lambda: f.write_start(plan, "u", u, step=0))
            assert "already holds" in str(e)
            assert f.steps("u") == [0]
