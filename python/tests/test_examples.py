"""The examples run and check themselves (small grids here; mpirun -n 4 for the real size)."""

from nbfft.examples import channel_poisson, dealias, poisson, taylor_green


def test_poisson(comm):
    err = poisson.main(n=16, comm=comm, verbose=False)
    assert err < 1e-10


def test_taylor_green(comm):
    result = taylor_green.main(n=16, steps=4, comm=comm, verbose=False)
    assert result["divergence"] < 1e-10 and abs(result["energy_error"]) < 1e-6


def test_channel_poisson(comm):
    errors = channel_poisson.main(n=12, comm=comm, verbose=False)
    assert set(errors) == {"dirichlet", "neumann", "box"} and max(errors.values()) < 1e-10


def test_dealias(comm):
    err, aliased = dealias.main(n=16, comm=comm, verbose=False)
    assert err < 1e-12 and aliased > 1e-2
