"""nbfft.coll: nbfft's non-blocking collective layer from Python.

Enough to write an overlap benchmark in Python::

    from mpi4py import MPI
    import numpy as np
    import nbfft.coll as coll

    with coll.Comm(MPI.COMM_WORLD, engine="thread") as comm:
        send = np.ones(comm.size * 1024)
        recv = np.empty_like(send)
        a2a = coll.alltoall(comm, send, recv, algorithm="pairwise:4")  # built once
        req = a2a.start()          # posts; returns at once
        compute()                  # the engine thread moves the exchange meanwhile
        req.wait()

Engines: 'caller' (progress only inside test()/wait()/progress() calls), 'thread' (an
agent thread; needs MPI_THREAD_MULTIPLE), 'native' (whatever MPI does by itself).
Everything here is collective over the communicator, in the same order on every rank.
"""

from types import TracebackType
from typing import Any, List, Optional, Tuple, Type, Union

import numpy as np

from . import _core, _lifetime
from ._args import bytes_dtype_problem
from ._errors import ArgumentTypeError, Error, InvalidArgument, InvalidState, Unavailable, agree
from ._mpi import MPI, comm_problem, handle_of
from ._plan import thread_level_name

__all__ = ["Comm", "Collective", "Request", "alltoall", "progress", "engines"]


def engines() -> List[Tuple[str, str, bool]]:
    """The progress engines as ``[(name, summary, needs_thread_multiple), ...]``.

    >>> [name for name, _, _ in nbfft.coll.engines()]       # doctest: +SKIP
    ['caller', 'thread', 'native']
    """
    return list(_core.engines())


def _agree_on(comm: MPI.Comm, problem: Optional[Tuple[Type[Error], str]]) -> None:
    agree(lambda k, m: _core.agree(handle_of(comm), k, m), problem)


class Comm:
    """A communicator for nbfft collectives: a private duplicate of ``comm`` and an engine.

    Collective to create and to ``close()`` (or leave a ``with`` block); the duplicate
    keeps nbfft's messages apart from the caller's.

    Parameters
    ----------
    comm : mpi4py.MPI.Intracomm
        The ranks of the collectives.
    engine : {'thread', 'caller', 'native'}
        Who progresses started collectives (see the module docstring); 'thread' needs
        MPI initialized with MPI_THREAD_MULTIPLE (mpi4py's default).

    Raises
    ------
    TypeError (nbfft.ArgumentTypeError)
        ``comm`` is not an mpi4py communicator.
    ValueError (nbfft.InvalidArgument)
        An unknown engine, MPI.COMM_NULL, an intercommunicator.
    nbfft.Unavailable
        The thread engine below MPI_THREAD_MULTIPLE. Errors are raised on every rank.

    Examples
    --------
    >>> with nbfft.coll.Comm(MPI.COMM_WORLD, engine="caller") as c:
    ...     print(c.rank, c.size, c.engine)                  # doctest: +SKIP
    0 2 caller
    """

    def __init__(self, comm: MPI.Intracomm, engine: str = "thread") -> None:
        self._c: Any = None
        problem = comm_problem(comm, "coll.Comm")
        if problem is not None and not isinstance(comm, MPI.Intracomm):
            raise problem[0](problem[1])
        names = {name: multiple for name, _, multiple in _core.engines()}
        if problem is None and (not isinstance(engine, str) or engine not in names):
            problem = InvalidArgument, "coll.Comm: unknown engine {!r} (use {})".format(engine, ", ".join(names))
        if problem is None and names[engine] and MPI.Query_thread() < MPI.THREAD_MULTIPLE:
            problem = Unavailable, "coll.Comm: the {} engine needs MPI_THREAD_MULTIPLE but MPI was initialized " \
                                   "with {}".format(engine, thread_level_name(MPI.Query_thread()))
        _agree_on(comm, problem)
        self._c = _core.CollComm(handle_of(comm), engine)
        self._key = _lifetime.register(self)
        self.mpi_comm: MPI.Intracomm = comm

    def _get(self) -> Any:
        if self._c is None:
            raise InvalidState("coll.Comm: used after close()")
        return self._c

    @property
    def rank(self) -> int:
        """This rank's number in the communicator."""
        return self._get().rank

    @property
    def size(self) -> int:
        """Number of ranks."""
        return self._get().size

    @property
    def engine(self) -> str:
        """The progress engine's name."""
        return self._get().engine

    def progress(self) -> None:
        """One host progress opportunity for this communicator's engine."""
        self._get().progress()

    def close(self) -> None:
        """Frees the duplicate communicator (collective). Close collectives first."""
        if self._c is not None:
            self._c.close()
            self._c = None
            _lifetime.unregister(self._key)

    @property
    def closed(self) -> bool:
        """Whether ``close()`` was called."""
        return self._c is None

    def __enter__(self) -> "Comm":
        return self

    def __exit__(self, *exc: Union[Optional[Type[BaseException]], Optional[BaseException],
                                   Optional[TracebackType]]) -> None:
        self.close()

    def __repr__(self) -> str:
        if self._c is None:
            return "<nbfft.coll.Comm (closed)>"
        return "<nbfft.coll.Comm rank {} of {}, engine {}>".format(self.rank, self.size, self.engine)


class Request:
    """One started instance of a Collective. ``test()`` / ``wait()`` complete it."""

    def __init__(self, req: Any, collective: "Collective") -> None:
        self._r = req
        self._collective = collective  # keeps the buffers alive until completion

    def test(self) -> bool:
        """True when complete (the request is then freed); makes progress on host engines."""
        return self._r.test()

    def wait(self) -> None:
        """Blocks until complete (without holding the GIL)."""
        self._r.wait()

    @property
    def active(self) -> bool:
        """Whether the request is started and not yet complete."""
        return self._r.active


class Collective:
    """A built (persistent) collective; ``start()`` posts it and returns a Request."""

    def __init__(self, c: Any, comm: Comm, buffers: Tuple[np.ndarray[Any, Any], ...],
                 owned_comm: Optional[Comm] = None) -> None:
        self._c: Any = c
        self.comm = comm
        self._buffers = buffers  # bound at build time, like MPI persistent collectives
        self._owned = owned_comm
        self._key = _lifetime.register(self)

    def start(self) -> Request:
        """Starts the collective (returns at once). The previous start must be complete."""
        if self._c is None:
            raise InvalidState("coll.Collective: used after close()")
        return Request(self._c.start(), self)

    @property
    def description(self) -> str:
        """The algorithm and its parameters, as built ('pairwise:4 on 2 ranks, ...')."""
        return self._c.description if self._c is not None else "(closed)"

    def close(self) -> None:
        """Frees the schedule (completing an outstanding start first). Collective."""
        if self._c is not None:
            self._c.close()
            self._c = None
            _lifetime.unregister(self._key)
        if self._owned is not None:
            self._owned.close()
            self._owned = None

    def __enter__(self) -> "Collective":
        return self

    def __exit__(self, *exc: Union[Optional[Type[BaseException]], Optional[BaseException],
                                   Optional[TracebackType]]) -> None:
        self.close()

    def __repr__(self) -> str:
        return "<nbfft.coll.Collective {}>".format(self.description)


def alltoall(comm: Union[Comm, MPI.Intracomm], send: np.ndarray[Any, Any], recv: np.ndarray[Any, Any],
             algorithm: str = "pairwise:4") -> Collective:
    """A persistent alltoall from ``send`` to ``recv``: block k of ``send`` goes to rank k.

    Parameters
    ----------
    comm : nbfft.coll.Comm or mpi4py.MPI.Intracomm
        An mpi4py communicator gets a ``Comm`` of its own with the caller engine.
    send, recv : numpy.ndarray
        C-contiguous, same dtype and size, a multiple of ``comm.size`` elements; ``recv``
        writable. Both are bound now and must not be resized; the Collective keeps them.
    algorithm : str
        An alltoall algorithm of nbfft's registry ('pairwise:4', 'linear', 'bruck',
        'native', 'blocking', 'persistent', 'rma', ...).

    Returns
    -------
    Collective
        Start it with ``start()`` as often as needed (one start in flight at a time).

    Raises
    ------
    TypeError (nbfft.ArgumentTypeError)
        Not numpy arrays, different dtypes, a non-str algorithm.
    ValueError (nbfft.InvalidArgument)
        Non-contiguous or read-only buffers, sizes that differ or do not divide by the
        ranks, an unknown algorithm. On every rank (collective).

    Examples
    --------
    >>> send = np.arange(4.0 * comm.size); recv = np.empty_like(send)
    >>> a2a = nbfft.coll.alltoall(comm, send, recv, algorithm="pairwise:4")
    >>> a2a.start().wait()                   # recv[4*k:4*k+4] came from rank k
    """
    owned: Optional[Comm] = None
    if isinstance(comm, MPI.Comm):
        comm = owned = Comm(comm, engine="caller")
    if not isinstance(comm, Comm):
        raise ArgumentTypeError("alltoall: comm must be an nbfft.coll.Comm or an mpi4py communicator, got {}".format(
            type(comm).__name__))
    problem: Optional[Tuple[Type[Error], str]] = None
    for name, a, writable in (("send", send, False), ("recv", recv, True)):
        if problem is not None:
            break
        if not isinstance(a, np.ndarray):
            problem = ArgumentTypeError, "alltoall: {} must be a numpy.ndarray, got {}".format(name, type(a).__name__)
        elif not a.flags.c_contiguous:
            problem = InvalidArgument, "alltoall: {} is not C-contiguous".format(name)
        elif writable and not a.flags.writeable:
            problem = InvalidArgument, "alltoall: {} is read-only".format(name)
    if problem is None and send.dtype != recv.dtype:
        problem = ArgumentTypeError, "alltoall: send has dtype {} but recv {}".format(send.dtype, recv.dtype)
    if problem is None:
        problem = bytes_dtype_problem("alltoall", "send", send.dtype)
    if problem is None and (send.size != recv.size or send.size % comm.size):
        problem = InvalidArgument, "alltoall: send ({}) and recv ({}) must hold the same number of elements, a " \
                                   "multiple of the {} ranks".format(send.size, recv.size, comm.size)
    if problem is None and not isinstance(algorithm, str):
        problem = ArgumentTypeError, "alltoall: algorithm must be a str, got {!r}".format(algorithm)
    if problem is None:
        try:
            algorithm = _core.parse_algorithm(algorithm)
        except Error as e:
            problem = InvalidArgument, "alltoall: " + e.message
    _agree_on(comm.mpi_comm, problem)
    c = _core.alltoall(comm._get(), send, recv, send.size // comm.size, send.itemsize, algorithm)
    return Collective(c, comm, (send, recv), owned)


def progress() -> None:
    """A host progress opportunity for every live engine (call it between compute chunks)."""
    _core.progress()
