"""Taylor-Green vortex: a few pseudo-spectral Navier-Stokes steps with nbfft.

The velocity ``u = (sin x cos y cos z, -cos x sin y cos z, 0)`` on ``[0, 2*pi)^3`` is
advanced by Heun's method (RK2) in spectral space: the nonlinear term ``u x omega`` is
formed in physical space (three fields through ``backward_many`` / ``forward_many``, so
each field's exchange overlaps its neighbours' FFTs), dealiased by the 2/3 rule and
projected onto divergence-free fields; viscosity is exact per mode. Checks: the velocity
stays divergence-free and, at early times, the kinetic energy decays as
``E0 exp(-6 nu t)`` (the initial field is a Laplacian eigenfunction with ``|k|^2 = 3``;
the nonlinear transfer changes that only at second order in t). Run it with::

    mpirun -n 4 python -m mpi4py -m nbfft.examples.taylor_green [--n 32] [--steps 10] [--transport thread]

(``python -m mpi4py``: an uncaught exception on one rank aborts the job instead of hanging it.)

Fields to disk (nbfft.io, parallel HDF5; docs/io.md)::

    mpirun -n 2 python -m mpi4py -m nbfft.examples.taylor_green --steps 20 --checkpoint tg.h5 --checkpoint-every 5
    mpirun -n 3 python -m mpi4py -m nbfft.examples.taylor_green --steps 40 --restart tg.h5 --series tg_series.h5

``--checkpoint`` writes the velocity spectrum (fields ``U_x``, ``U_y``, ``U_z``, the state of
the run) every k steps and at the end, each time to a new file renamed over the old one;
``--restart`` continues from its last step at any rank count and process grid, up to
``--steps`` in all; ``--series`` adds the physical velocity (``u_x``, ``u_y``, ``u_z``, global
(z, y, x) arrays that h5py and ParaView read) every ``--series-every`` steps to one file.
"""

import argparse
import sys

import numpy as np

import nbfft
from nbfft import MPI
from nbfft.examples.poisson import grid_coordinates


COMPONENTS = ("x", "y", "z")


def write_checkpoint(comm, plan, path, U, step, t):
    """The run's state (the velocity spectrum) at ``step`` into a new file at ``path``,
    renamed over the previous checkpoint only once every rank has written it."""
    with nbfft.io.File(comm, path, "w") as f:
        for c, name in enumerate(COMPONENTS):
            f.write(plan, "U_" + name, U[c], step=step, time=t, space="spectral")


def read_checkpoint(comm, plan, path, U):
    """Reads the last step of a checkpoint into ``U`` (any rank count wrote it); returns
    ``(step, time)``."""
    with nbfft.io.File(comm, path) as f:
        step = f.steps("U_x")[-1]
        for c, name in enumerate(COMPONENTS):
            f.read(plan, "U_" + name, step, out=U[c], space="spectral")
        return step, f.time("U_x", step)


def write_series(comm, plan, path, u, step, t):
    """Adds the physical velocity at ``step`` to the time series at ``path`` (a step it
    already holds, from a run that was restarted, is kept)."""
    import os
    exists = comm.bcast(os.path.exists(path) if comm.rank == 0 else None)
    with nbfft.io.File(comm, path, "a" if exists else "w") as f:
        if exists and "u_x" in f.fields() and step in f.steps("u_x"):
            return
        for c, name in enumerate(COMPONENTS):
            f.write(plan, "u_" + name, u[c], step=step, time=t, space="physical")


def main(n=32, steps=10, nu=0.1, dt=1e-3, comm=None, transport="blocking", verbose=True, checkpoint=None,
         checkpoint_every=0, restart=None, series=None, series_every=1):
    """Runs RK2 steps on an ``n^3`` grid up to step ``steps``.

    Parameters
    ----------
    n : int
        Grid points per direction.
    steps : int
        Time steps.
    nu : float
        Kinematic viscosity.
    dt : float
        Time step.
    comm : mpi4py.MPI.Intracomm, optional
        Defaults to ``MPI.COMM_WORLD``.
    transport : str
        nbfft transport of both exchanges (e.g. 'thread' to overlap them).
    verbose : bool
        Rank 0 prints the energy per step.
    checkpoint : str, optional
        Writes the state there every ``checkpoint_every`` steps (0: only) and at the end.
    restart : str, optional
        Continues from the last step of this checkpoint (written at any rank count).
    series : str, optional
        Adds the physical velocity to this file every ``series_every`` steps.

    Returns
    -------
    dict
        ``energy`` (final), ``energy_error`` (relative to ``E0 exp(-6 nu t)``),
        ``divergence`` (max ``|k . U|`` relative to max ``|U|``), ``seconds`` per step,
        ``first_step`` (0, or the step restarted from).
    """
    comm = comm if comm is not None else MPI.COMM_WORLD
    with nbfft.Plan(comm, (n, n, n), dtype=np.float64, transport=transport) as plan:
        z, y, x = grid_coordinates(plan)
        u = np.empty((3,) + plan.input_box.shape)
        u[0] = np.sin(x) * np.cos(y) * np.cos(z)
        u[1] = -np.cos(x) * np.sin(y) * np.cos(z)
        u[2] = 0.0
        kz, ky, kx = plan.wavenumbers()
        k = [kx, ky, kz]                       # component order u, v, w = x, y, z
        k2 = kx ** 2 + ky ** 2 + kz ** 2
        k2_safe = np.where(k2 == 0, 1.0, k2)
        cut = n / 3.0
        dealias = (np.abs(kx) < cut) & (np.abs(ky) < cut) & (np.abs(kz) < cut)
        total = float(n) ** 3

        def energy(vel):
            return comm.allreduce(0.5 * float(np.sum(vel * vel)), op=MPI.SUM) / total

        def rhs(U):
            vel = plan.backward_many(U)
            omega_hat = np.stack([1j * (k[1] * U[2] - k[2] * U[1]),
                                  1j * (k[2] * U[0] - k[0] * U[2]),
                                  1j * (k[0] * U[1] - k[1] * U[0])])
            omega = plan.backward_many(omega_hat)
            cross = np.stack([vel[1] * omega[2] - vel[2] * omega[1],
                              vel[2] * omega[0] - vel[0] * omega[2],
                              vel[0] * omega[1] - vel[1] * omega[0]])
            N = plan.forward_many(cross) * dealias
            kdotn = (k[0] * N[0] + k[1] * N[1] + k[2] * N[2]) / k2_safe
            for c in range(3):
                N[c] -= k[c] * kdotn           # projection: pressure removes the divergence
            return N

        U = plan.forward_many(u)
        E0 = energy(u)                         # of the initial field, also after a restart
        first = 0
        if restart is not None:
            first, _ = read_checkpoint(comm, plan, restart, U)
            if verbose and comm.rank == 0:
                print("restarted from step {} of {} on {} ranks".format(first, restart, comm.size))
        elif series is not None:
            write_series(comm, plan, series, u, 0, 0.0)
        decay = np.exp(-nu * k2 * dt)          # exact viscous factor per mode
        t0 = MPI.Wtime()
        for step in range(first, steps):
            N1 = rhs(U)
            U1 = (U + dt * N1) * decay
            N2 = rhs(U1)
            U = U * decay + 0.5 * dt * (N1 * decay + N2)
            done = step + 1
            if verbose and comm.rank == 0 and (done == steps or step % 5 == 0):
                print("step {:3d}  t = {:.4f}".format(done, done * dt))
            if checkpoint is not None and (done == steps or (checkpoint_every > 0 and done % checkpoint_every == 0)):
                write_checkpoint(comm, plan, checkpoint, U, done, done * dt)
            if series is not None and (done == steps or done % max(series_every, 1) == 0):
                write_series(comm, plan, series, plan.backward_many(U), done, done * dt)
        seconds = (MPI.Wtime() - t0) / max(steps - first, 1)
        u = plan.backward_many(U)
        E = energy(u)
        t = steps * dt
        div = comm.allreduce(float(np.abs(k[0] * U[0] + k[1] * U[1] + k[2] * U[2]).max()) if U.size else 0.0,
                             op=MPI.MAX)
        scale = comm.allreduce(float(np.abs(U).max()) if U.size else 0.0, op=MPI.MAX)
        result = {"energy": E, "energy_error": (E - E0 * np.exp(-6 * nu * t)) / E0,
                  "divergence": div / scale, "seconds": seconds, "first_step": first}
        if verbose and comm.rank == 0:
            print(plan)
            print("taylor_green: {}^3 on {} ranks, {} steps: E0 = {:.6f}, E = {:.8f}, relative error vs "
                  "E0 exp(-6 nu t) {:.2e}, divergence {:.1e}, {:.3f} s/step".format(
                      n, comm.size, steps, E0, E, result["energy_error"], result["divergence"], seconds))
    return result


def _cli(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=32)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--transport", default="blocking")
    ap.add_argument("--checkpoint", metavar="PATH", help="write the state there every K steps and at the end")
    ap.add_argument("--checkpoint-every", type=int, default=0, metavar="K")
    ap.add_argument("--restart", metavar="PATH", help="continue from this checkpoint's last step (any rank count)")
    ap.add_argument("--series", metavar="PATH", help="add the physical velocity to this file every K steps")
    ap.add_argument("--series-every", type=int, default=1, metavar="K")
    args = ap.parse_args(argv)
    r = main(args.n, args.steps, transport=args.transport, checkpoint=args.checkpoint,
             checkpoint_every=args.checkpoint_every, restart=args.restart, series=args.series,
             series_every=args.series_every)
    ok = r["divergence"] < 1e-10 and abs(r["energy_error"]) < 1e-6
    if MPI.COMM_WORLD.rank == 0:
        print("taylor_green: " + ("OK" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(_cli())
