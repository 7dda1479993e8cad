"""nbfft.io.File: written at P ranks, read back bit for bit at every k <= P ranks on slabs,
rows and nbfft's own grid; serial h5py sees the global arrays in numpy's natural order
(z, y, x) equal to the reference field; bad input from Python fails on every rank."""

import os

import numpy as np
import pytest

import nbfft
from conftest import COMM, all_ranks, global_field, raises_everywhere
from io_helpers import block, folder, same_bits  # noqa: F401 (folder: a fixture)
from mpi4py import MPI

P = COMM.size
SHAPE = (5, 6, 7)  # (nz, ny, nx): uneven on 2-4 ranks, odd nx
needs_hdf5 = pytest.mark.skipif(not nbfft.io.hdf5_available(), reason="built without parallel HDF5")


@pytest.mark.skipif(nbfft.io.hdf5_available(), reason="this build has parallel HDF5")
def test_without_hdf5_a_file_says_what_is_missing(comm):
    e = raises_everywhere(nbfft.Unavailable, lambda: nbfft.io.File(comm, "never.h5", "w"))
    assert "built without parallel HDF5" in str(e) and "libhdf5-openmpi-dev" in str(e)
    assert "NBFFT_WITH_HDF5" in nbfft.io.hdf5_info() or "pkg-config" in nbfft.io.hdf5_info()


@needs_hdf5
def test_written_at_p_ranks_reads_back_bit_identical_everywhere(comm, folder):
    path = os.path.join(folder, "run.h5")
    u_glob = global_field(SHAPE, np.float64, seed=3)
    c_glob = global_field(SHAPE, np.complex64, seed=4)
    with nbfft.Plan(comm, SHAPE, dtype=np.float64) as plan, nbfft.Plan(comm, SHAPE, dtype=np.complex64) as cplan:
        u = block(plan, u_glob, "physical")
        U = plan.forward(u)
        U_glob = plan.gather(U)
        U_glob = comm.bcast(U_glob)
        with nbfft.io.File(comm, path, "w") as f:
            f.write(plan, "u", u, step=0, time=0.0)
            f.write(plan, "u", 2 * u, step=10, time=0.5, space="physical")
            f.write(plan, "U", U, step=10, time=0.5)                     # 'auto': the spectrum
            f.write(cplan, "c", block(cplan, c_glob, "physical"), step=1, time=0.25, space="physical")
        assert not os.path.exists(path + ".nbfft-tmp")

    # Plain serial h5py: the global arrays in (z, y, x) order, as numpy computes them.
    ok = True
    if COMM.rank == 0:
        import h5py
        with h5py.File(path, "r") as h:
            ok = same_bits(h["u/0"][...], u_glob) and same_bits(h["u/10"][...], 2 * u_glob)
            ok = ok and same_bits(h["U/10"][...], U_glob) and same_bits(h["c/1"][...], c_glob)
            ok = ok and np.allclose(h["U/10"][...], np.fft.rfftn(u_glob), atol=1e-11)
            ok = ok and h["U/10"].attrs["space"] == "spectral" and h["U/10"].attrs["time"] == 0.5
            ok = ok and h["U/10"].shape == (5, 6, 4) and h["U/10"].attrs["halved_axis"] == "kx"
    assert all_ranks(ok), "h5py sees another array than numpy's"

    # Every rank count k <= P (the first k ranks), each with several process grids.
    for k in range(1, P + 1):
        sub = comm.Split(0 if comm.rank < k else MPI.UNDEFINED, comm.rank)
        good = True
        if sub != MPI.COMM_NULL:
            for grid in {None, (1, k), (k, 1)} if k == P else [None]:  # few runs: MPICH busy-polls
                with nbfft.Plan(sub, SHAPE, dtype=np.float64, grid=grid) as p2, \
                        nbfft.Plan(sub, SHAPE, dtype=np.complex64, grid=grid) as c2, \
                        nbfft.io.File(sub, path) as f:
                    assert f.fields() == ["U", "c", "u"]
                    assert f.steps("u") == [0, 10] and f.time("u", 10) == 0.5
                    good &= same_bits(f.read(p2, "u", 0), block(p2, u_glob, "physical"))
                    good &= same_bits(f.read(p2, "u"), block(p2, 2 * u_glob, "physical"))  # the last step
                    out = p2.empty_output()
                    assert f.read(p2, "U", 10, out=out) is out
                    good &= same_bits(out, block(p2, U_glob, "spectral"))
                    good &= same_bits(f.read(c2, "c", 1, space="physical"), block(c2, c_glob, "physical"))
            sub.Free()
        assert all_ranks(good), "a block read at {} ranks differs".format(k)


@needs_hdf5
def test_append_and_a_failed_block_keep_the_previous_file(comm, folder):
    path = os.path.join(folder, "ckpt.h5")
    with nbfft.Plan(comm, SHAPE) as plan:
        u = plan.empty_input()
        u[...] = 1.0
        with nbfft.io.File(comm, path, "w") as f:
            f.write(plan, "u", u, 0)
        with nbfft.io.File(comm, path, "a") as f:
            f.write(plan, "u", u, 1, time=1.0)
        # An exception inside the block discards the new file: the checkpoint stays.
        with pytest.raises(RuntimeError):
            with nbfft.io.File(comm, path, "w") as f:
                f.write(plan, "v", u, 0)
                raise RuntimeError("the solver failed")
        assert f.closed
        with nbfft.io.File(comm, path) as f:
            assert f.fields() == ["u"] and f.steps("u") == [0, 1]
            assert f.time("u", 1) == 1.0


@needs_hdf5
def test_bad_input_fails_on_every_rank(comm, folder):
    path = os.path.join(folder, "bad.h5")
    with nbfft.Plan(comm, SHAPE) as plan:
        u = plan.empty_input()
        u[...] = 0.0
        f = nbfft.io.File(comm, path, "w")
        # Wrong dtype: TypeError, nothing converted silently.
        e = raises_everywhere(nbfft.ArgumentTypeError, lambda: f.write(plan, "u", u.astype(np.float32), 0,
                                                                       space="physical"))
        assert "float64" in str(e) and "never copies silently" in str(e)
        # A short block on one rank only: every rank fails naming it.
        short = u.reshape(-1)[:-1] if comm.rank == P - 1 and u.size else u
        e = raises_everywhere(nbfft.InvalidArgument, lambda: f.write(plan, "u", short, 0, space="physical"))
        assert "[rank" in str(e)
        # A strided view (a silent copy would be needed): refused.
        wide = np.zeros(u.shape[:-1] + (2 * u.shape[-1],))
        e = raises_everywhere(nbfft.InvalidArgument, lambda: f.write(plan, "u", wide[..., ::2], 0, space="physical"))
        assert "C-contiguous" in str(e)
        raises_everywhere(nbfft.InvalidArgument, lambda: f.write(plan, "u", u, 0, space="fourier"))
        raises_everywhere(nbfft.ArgumentTypeError, lambda: f.write("plan", "u", u, 0))
        raises_everywhere(nbfft.ArgumentTypeError, lambda: f.write(plan, "u", u, 0.5))
        raises_everywhere(nbfft.InvalidArgument, lambda: f.write(plan, "a/b", u, 0))
        f.write(plan, "u", u, 0)
        e = raises_everywhere(nbfft.InvalidArgument, lambda: f.write(plan, "u", u, 0))
        assert "already holds /u/0" in str(e)
        f.close()
        # A closed file.
        raises_everywhere(nbfft.InvalidState, lambda: f.write(plan, "u", u, 1))
        raises_everywhere(nbfft.InvalidState, f.fields)
        f.close()  # a second close does nothing
        with nbfft.io.File(comm, path) as f:
            e = raises_everywhere(nbfft.InvalidArgument, lambda: f.read(plan, "v", 0))
            assert "has no field 'v' (its fields: u)" in str(e)
            e = raises_everywhere(nbfft.InvalidArgument, lambda: f.read(plan, "u", 3))
            assert "its steps: 0" in str(e)
            e = raises_everywhere(nbfft.InvalidArgument, lambda: f.write(plan, "w", u, 0))
            assert "opened for reading" in str(e)
            ro = plan.empty_input()
            ro.flags.writeable = False
            raises_everywhere(nbfft.InvalidArgument, lambda: f.read(plan, "u", 0, out=ro))
            raises_everywhere(nbfft.ArgumentTypeError, lambda: f.read(plan, "u", 0, out=np.empty(u.shape, np.float32)))
            with nbfft.Plan(comm, SHAPE, dtype=np.float32) as p32:
                e = raises_everywhere(nbfft.InvalidArgument, lambda: f.read(p32, "u", 0))
                assert "holds float64" in str(e)
            with nbfft.Plan(comm, (5, 6, 8)) as other:
                e = raises_everywhere(nbfft.InvalidArgument, lambda: f.read(other, "u", 0))
                assert "another grid" in str(e)
    raises_everywhere(nbfft.InvalidArgument, lambda: nbfft.io.File(comm, path, "x"))
    raises_everywhere(nbfft.InvalidArgument, lambda: nbfft.io.File(comm, path, chunk=(4, 4)))
    raises_everywhere(nbfft.ArgumentTypeError, lambda: nbfft.io.File(comm, 42))
    raises_everywhere(nbfft.IoError, lambda: nbfft.io.File(comm, os.path.join(folder, "none", "x.h5"), "w"))
    raises_everywhere(nbfft.IoError, lambda: nbfft.io.File(comm, os.path.join(folder, "missing.h5")))
    if P > 1:  # ranks that pass different paths
        raises_everywhere(nbfft.RanksDisagree, lambda: nbfft.io.File(comm, path + str(comm.rank)))


@needs_hdf5
def test_options_shape_the_file(comm, folder):
    path = os.path.join(folder, "chunked.h5")
    g = global_field(SHAPE, np.float64, seed=9)
    with nbfft.Plan(comm, SHAPE) as plan:
        with nbfft.io.File(comm, path, "w", alignment=4096, align_threshold=1024, chunk=(2, 3, 4)) as f:
            f.write(plan, "u", block(plan, g, "physical"), 0)
    ok = True
    if COMM.rank == 0:
        import h5py
        with h5py.File(path, "r") as h:
            ok = h["u/0"].chunks == (2, 3, 4) and same_bits(h["u/0"][...], g)
    assert all_ranks(ok)


@needs_hdf5
def test_taylor_green_restarts_at_other_rank_counts(comm, folder):
    """The Navier-Stokes example checkpoints at P ranks and restarts at 1 and P-1 ranks
    (another decomposition) with the energy of an uninterrupted run; its series is one file
    of global velocity fields that h5py reads."""
    from nbfft.examples import taylor_green
    n, dt = 12, 1e-3
    full = taylor_green.main(n=n, steps=4, dt=dt, comm=comm, verbose=False)
    ck, series = os.path.join(folder, "tg.h5"), os.path.join(folder, "tg_series.h5")
    first = taylor_green.main(n=n, steps=2, dt=dt, comm=comm, verbose=False, checkpoint=ck, checkpoint_every=1,
                              series=series)
    assert first["first_step"] == 0
    for k in sorted({1, max(1, P - 1)}):
        sub = comm.Split(0 if comm.rank < k else MPI.UNDEFINED, comm.rank)
        ok = True
        if sub != MPI.COMM_NULL:
            r = taylor_green.main(n=n, steps=4, dt=dt, comm=sub, verbose=False, restart=ck,
                                  series=series if k == max(1, P - 1) else None)
            ok = r["first_step"] == 2 and abs(r["energy"] - full["energy"]) <= 1e-12 * full["energy"]
            ok = ok and r["divergence"] < 1e-10
            sub.Free()
        assert all_ranks(ok), "the run restarted at {} ranks ends with another energy".format(k)
    ok = True
    if comm.rank == 0:
        import h5py
        with h5py.File(series, "r") as h:
            ok = sorted(int(s) for s in h["u_x"]) == [0, 1, 2, 3, 4] and set(h) == {"u_x", "u_y", "u_z"}
            ok = ok and abs(h["u_y/3"].attrs["time"] - 3 * dt) < 1e-15 and h["u_z/4"].shape == (n, n, n)
            z, y, x = np.meshgrid(*(2 * np.pi * np.arange(n) / n,) * 3, indexing="ij")
            ok = ok and np.allclose(h["u_x/0"][...], np.sin(x) * np.cos(y) * np.cos(z), atol=1e-14)
        with h5py.File(ck, "r") as h:
            ok = ok and [int(s) for s in h["U_x"]] == [2] and h["U_x/2"].attrs["space"] == "spectral"
    assert all_ranks(ok), "the series or the checkpoint holds other fields than written"
