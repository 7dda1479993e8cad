"""A small typed program against nbfft's public API, for mypy (make python-test).

Not a test module (pytest collects test_*.py): mypy checks that these calls type-check
against the stubs and annotations the package ships (py.typed), and, run with
--warn-unused-ignores, that the mistakes in `mistakes` are caught (an ignore that stops being
needed is an error). It also runs: `mpirun -n 2 python python/tests/typed_usage.py`.
"""

from typing import List, Optional, Tuple

import numpy as np
import numpy.typing as npt

import nbfft
import nbfft.coll
from nbfft import MPI


def roundtrip(comm: MPI.Intracomm, shape: Tuple[int, int, int]) -> float:
    with nbfft.Plan(comm, shape, dtype=np.float64, transport="blocking", norm="backward") as plan:
        u: npt.NDArray[np.float64] = plan.empty_input()
        u[...] = 1.0
        spectrum = plan.forward(u)
        kz, ky, kx = plan.wavenumbers()
        spectrum *= np.exp(-(kx**2 + ky**2 + kz**2))
        v = plan.backward(spectrum, out=plan.empty_input())
        g: Optional[np.ndarray] = plan.gather(v, root=0)
        box: nbfft.Box = plan.input_box
        grid: Tuple[int, int] = plan.grid
        presets: List[Tuple[str, str, str]] = nbfft.transport_presets()
        level: int = nbfft.required_thread_level("pairwise:4@thread")
        name: str = nbfft.thread_level_name(level)
        assert box.size == u.size and grid[0] * grid[1] == comm.Get_size() and presets and name
        return float(np.abs(v - u).max()) if g is None or g.size else 0.0


def exchange(comm: MPI.Intracomm) -> None:
    with nbfft.coll.Comm(comm, engine="caller") as c:
        send = np.ones(c.size * 4)
        recv = np.empty_like(send)
        with nbfft.coll.alltoall(c, send, recv, algorithm="pairwise:2") as a2a:
            req: nbfft.coll.Request = a2a.start()
            req.wait()


def checkpoint(comm: MPI.Intracomm, path: str) -> List[int]:
    if not nbfft.io.hdf5_available():
        return []
    with nbfft.Plan(comm, (4, 5, 6)) as plan:
        u = plan.empty_input()
        u[...] = 2.0
        with nbfft.io.File(comm, path, "w", alignment=4096) as f:
            f.write(plan, "u", u, step=0, time=0.0)
            f.write_plane(plan, "u_mid", u, step=0, axis="z", index=2)
            f.write_subsampled(plan, "u_coarse", u, step=0, stride=(2, 2, 3))
        with nbfft.io.File(comm, path) as f:
            v: np.ndarray = f.read(plan, "u", 0, out=plan.empty_input())
            t: float = f.time("u", 0)
            mid: np.ndarray = f.read_plane(plan, "u_mid", 0, out=np.zeros_like(v), axis="z", index=2)
            coarse: np.ndarray = f.read_subsampled(plan, "u_coarse", stride=(2, 2, 3))
            assert f.fields() == ["u", "u_coarse", "u_mid"] and t == 0.0 and v.size == u.size
            assert mid.shape == coarse.shape == v.shape
            return f.steps("u")


def handles_errors(comm: MPI.Intracomm) -> str:
    try:
        nbfft.Plan(comm, (4, 4, 4), grid=(3, 7))
    except nbfft.InvalidArgument as e:
        return "{} {} {}".format(e.code, e.kind, e.message)
    return ""


def mistakes(comm: MPI.Intracomm) -> None:
    """Each line is wrong; the stubs must say so (mypy fails if an ignore goes unused)."""
    nbfft.Plan(comm, (4, 4, 4), transport=4)  # type: ignore[arg-type]
    nbfft.Plan(comm, (4, 4, 4), grid=[2, 2, 2])  # type: ignore[arg-type]
    nbfft.thread_level_name("MPI_THREAD_MULTIPLE")  # type: ignore[arg-type]
    nbfft.coll.alltoall(comm, [1.0], [2.0])  # type: ignore[arg-type]
    n: int = nbfft.__version__  # type: ignore[assignment]
    s: str = nbfft.required_thread_level("thread")  # type: ignore[assignment]
    nbfft.io.File(comm, "run.h5", mode=1)  # type: ignore[arg-type]
    print(n, s)


if __name__ == "__main__":
    version: str = nbfft.__version__
    err = roundtrip(MPI.COMM_WORLD, (9, 8, 7))
    exchange(MPI.COMM_WORLD)
    checkpoint(MPI.COMM_WORLD, "typed_usage.h5")
    if MPI.COMM_WORLD.rank == 0 and nbfft.io.hdf5_available():
        import os
        os.remove("typed_usage.h5")
    print(version, err, handles_errors(MPI.COMM_WORLD) != "")
