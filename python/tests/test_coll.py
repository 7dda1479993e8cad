"""nbfft.coll: persistent alltoall on every engine and algorithm, test/wait/progress."""

import numpy as np
import pytest

import nbfft
import nbfft.coll as coll
from conftest import COMM, all_ranks, raises_everywhere

P = COMM.size


def expected(rank, n):
    # Block k of rank r's send holds 1000*r + 10*k + i; recv block k comes from rank k.
    return np.concatenate([1000.0 * k + 10.0 * rank + np.arange(n) for k in range(P)])


@pytest.mark.parametrize("engine", ["caller", "thread", "native"])
@pytest.mark.parametrize("algorithm", ["pairwise:4", "pairwise:1", "linear", "bruck", "native", "blocking"])
def test_alltoall(comm, engine, algorithm):
    n = 5
    send = np.concatenate([1000.0 * comm.rank + 10.0 * k + np.arange(n) for k in range(P)])
    recv = np.full_like(send, -1)
    with coll.Comm(comm, engine=engine) as c:
        assert c.size == P and c.rank == comm.rank and c.engine == engine
        with coll.alltoall(c, send, recv, algorithm=algorithm) as a2a:
            assert "alltoall" in a2a.description
            for it in range(3):  # persistent: start it again
                recv[:] = -1
                req = a2a.start()
                while not req.test():
                    coll.progress()
                assert all_ranks(np.array_equal(recv, expected(comm.rank, n)))
            a2a.start().wait()
            assert all_ranks(np.array_equal(recv, expected(comm.rank, n)))


def test_alltoall_on_an_mpi4py_comm(comm):
    send = np.arange(P * 3, dtype=np.int64) + 100 * comm.rank
    recv = np.empty_like(send)
    a2a = coll.alltoall(comm, send, recv)
    a2a.start().wait()
    want = np.concatenate([100 * k + np.arange(3) + 3 * comm.rank for k in range(P)])
    assert all_ranks(np.array_equal(recv, want))
    a2a.close()


def test_alltoall_errors(comm):
    with coll.Comm(comm, engine="caller") as c:
        send = np.zeros(P * 4)
        raises_everywhere(TypeError, lambda: coll.alltoall(c, send, np.zeros(P * 4, dtype=np.float32)))
        raises_everywhere(ValueError, lambda: coll.alltoall(c, send, np.zeros(P * 4 + (comm.rank == 0))))
        raises_everywhere(ValueError, lambda: coll.alltoall(c, send, np.zeros((P * 4, 2))[:, 0]))
        raises_everywhere(nbfft.InvalidArgument, lambda: coll.alltoall(c, send, np.zeros(P * 4), algorithm="magic"))
    raises_everywhere(nbfft.InvalidArgument, lambda: coll.Comm(comm, engine="warp"))
    raises_everywhere(nbfft.InvalidState, lambda: c.progress())


def test_engines_listed():
    names = [e[0] for e in coll.engines()]
    assert set(names) >= {"caller", "thread", "native"}
    assert dict((e[0], e[2]) for e in coll.engines())["thread"] is True
