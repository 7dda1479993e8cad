"""nbfft.Pencils: the pencil decomposition of a global grid and the transposes between
pencils, on the caller's own numpy arrays of any dtype (nbfft::fft::Pencils, see
docs/fft.md "Transposes on your own arrays").

Everything is in numpy order, as for ``nbfft.Plan``: ``shape`` is ``(nz, ny, nx)`` and every
pencil is a C-contiguous ``[z][y][x]`` block (x fastest). An X-pencil holds all of x, a
Y-pencil all of y, a Z-pencil all of z; ``proc_grid=(m1, m2)`` splits as the plan's
``grid`` does (m1 over y then x, m2 over z then y)::

    p = nbfft.Pencils(MPI.COMM_WORLD, (nz, ny, nx))
    ux = np.empty(p.shape("x")); uy = np.empty(p.shape("y"))
    p.transpose(ux, "x", uy, "y")              # blocking
    t = p.start(uy, "y", uz, "z"); work(); t.wait()
"""

import weakref
from types import TracebackType
from typing import Any, Dict, List, Optional, Sequence, Tuple, Type, Union

import numpy as np

from . import _core, _lifetime
from ._args import EXTENT_MAX, INT_MAX, bytes_dtype_problem, int_arg, ints_arg, problem_of
from ._errors import ArgumentTypeError, Error, InvalidArgument, InvalidState, Unavailable, agree
from ._mpi import MPI, comm_problem, handle_of
from ._plan import Box, required_thread_level, thread_level_name
from ._request import Request

__all__ = ["Pencils", "PencilsPending"]

_PENCILS = {"x": 0, "y": 1, "z": 2}
_Problem = Optional[Tuple[Type[Error], str]]


def _pencil(name: object, what: str) -> int:
    if isinstance(name, str) and name.lower() in _PENCILS:
        return _PENCILS[name.lower()]
    raise InvalidArgument("{}: a pencil is 'x', 'y' or 'z', got {!r}".format(what, name))


def _bytes(a: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """The memory of a checked C-contiguous array as flat bytes: a view, never a copy (the
    extension takes only the pointer, and DLPack has no structured or string dtypes)."""
    return a.reshape(-1).view(np.uint8)


PencilsPending = Request  # the earlier name of a transpose's request


class Pencils:
    """The X-, Y- and Z-pencils of a global grid over the ranks, and transposes between them.

    Collective to create and to ``close()`` (or leave a ``with`` block). Every transpose is
    collective: every rank makes the same calls in the same order with the same dtype.

    Parameters
    ----------
    comm : mpi4py.MPI.Intracomm
        The ranks holding the grid.
    shape : tuple of 3 int
        The global grid in numpy order ``(nz, ny, nx)``.
    proc_grid : (int, int) or None
        ``(m1, m2)`` with ``m1 * m2 == comm.size`` (one of them 0: the other divides): m1
        splits y of the X-pencil (x of the Y- and Z-pencils), m2 splits z of the X- and
        Y-pencils (y of the Z-pencil). ``None``: chosen as for a complex plan.
    row_transport, col_transport : str
        Transports (as ``Plan(transport=...)``: 'blocking', 'thread', 'pairwise:4@caller',
        ...) of the x<->y exchanges (within a row of m1 ranks) and the y<->z exchanges
        (within a column of m2 ranks).
    fields_in_flight : int
        ``transpose_many``: fields whose exchanges overlap (>= 1).

    Raises
    ------
    TypeError (nbfft.ArgumentTypeError)
        ``comm`` is not an mpi4py communicator, a non-str transport.
    ValueError (nbfft.InvalidArgument)
        A non-positive size, a grid that does not multiply to ``comm.size``, an unknown
        transport. nbfft.Unavailable: a thread transport below MPI_THREAD_MULTIPLE.
        Errors are raised on every rank.

    Examples
    --------
    >>> with nbfft.Pencils(MPI.COMM_WORLD, (5, 7, 10)) as p:
    ...     ux = np.zeros(p.shape("x"), np.complex128); uy = np.empty(p.shape("y"), np.complex128)
    ...     p.transpose(ux, "x", uy, "y")
    """

    def __init__(self, comm: MPI.Intracomm, shape: Sequence[int], proc_grid: Optional[Sequence[int]] = None,
                 row_transport: str = "blocking", col_transport: str = "blocking", fields_in_flight: int = 2) -> None:
        self._p: Any = None
        what = "Pencils"
        problem: _Problem = comm_problem(comm, what)
        if problem is not None and not isinstance(comm, MPI.Intracomm):
            raise problem[0](problem[1])
        n: Tuple[int, ...] = ()
        m: Tuple[int, ...] = (0, 0)
        fields = 0
        try:
            if problem is None:
                n = ints_arg(what, "shape", shape, 3, 1, EXTENT_MAX)  # (nz, ny, nx)
                m = (0, 0) if proc_grid is None else ints_arg(what, "proc_grid", proc_grid, 2, 0, INT_MAX)
                fields = int_arg(what, "fields_in_flight", fields_in_flight, 1, INT_MAX)
        except InvalidArgument as e:
            problem = problem_of(e)
        words: List[str] = []
        for key, t in (("row_transport", row_transport), ("col_transport", col_transport)):
            if problem is not None:
                break
            if not isinstance(t, str):
                problem = ArgumentTypeError, "{}: {} must be a str, got {!r}".format(what, key, t)
                break
            try:
                words.append(_core.parse_transport(t)[0])  # (full form, engine)
            except Error as e:
                problem = InvalidArgument, "{}: {}: {}".format(what, key, e.message)
        for w in words if problem is None else []:
            if MPI.Query_thread() < required_thread_level(w):
                problem = Unavailable, "{}: transport '{}' needs {} but MPI was initialized with {}".format(
                    what, w, thread_level_name(required_thread_level(w)), thread_level_name(MPI.Query_thread()))
                break
        agree(lambda k, msg: _core.agree(handle_of(comm), k, msg), problem)
        nz, ny, nx = n
        self._p = _core.Pencils(handle_of(comm), [nx, ny, nz], m[0], m[1], words[0], words[1], fields)
        self._shape = (nz, ny, nx)
        self._key = _lifetime.register(self)
        self._pending: "weakref.WeakSet[PencilsPending]" = weakref.WeakSet()
        self.mpi_comm: MPI.Intracomm = comm
        self._boxes: Dict[str, Box] = {}
        for k, v in _PENCILS.items():
            lo, size = self._p.box(v)  # {x, y, z}; numpy's last index is x
            self._boxes[k] = Box(("z", "y", "x"), tuple(reversed(lo)), tuple(reversed(size)), self._shape)

    def _get(self) -> Any:
        if self._p is None:
            raise InvalidState("Pencils: used after close()")
        return self._p

    @property
    def global_shape(self) -> Tuple[int, int, int]:
        """The global grid, numpy order ``(nz, ny, nx)``."""
        self._get()
        return self._shape

    @property
    def proc_grid(self) -> Tuple[int, int]:
        """The process grid ``(m1, m2)`` in use."""
        p = self._get()
        return int(p.m1), int(p.m2)

    def box(self, pencil: str) -> Box:
        """This rank's part of the global grid in ``pencil`` ('x', 'y' or 'z').

        ``box.slices`` cuts it out of a global ``(nz, ny, nx)`` array: ``G[box.slices]``.
        """
        self._get()
        return self._boxes["xyz"[_pencil(pencil, "Pencils.box")]]

    def shape(self, pencil: str) -> Tuple[int, ...]:
        """This rank's array shape in ``pencil``, ``[z][y][x]``: ``np.empty(p.shape('y'), dtype)``."""
        return self.box(pencil).shape

    def can_transpose(self, src_pencil: str, dst_pencil: str) -> bool:
        """Whether one transpose goes from ``src_pencil`` to ``dst_pencil`` (x<->z needs slabs)."""
        return bool(self._get().can_transpose(_pencil(src_pencil, "Pencils.can_transpose"),
                                              _pencil(dst_pencil, "Pencils.can_transpose")))

    def _check(self, what: str, src: Sequence[Any], src_pencil: str, dst: Sequence[Any],
               dst_pencil: str, problem: _Problem = None) -> Tuple[int, int, int]:
        """Agrees on every rank that the arrays fit (and on ``problem``, one the caller
        found); returns (from, to, element size)."""
        p = self._get()
        a, b = 0, 0
        try:
            a, b = _pencil(src_pencil, what), _pencil(dst_pencil, what)
        except InvalidArgument as e:
            problem = problem or problem_of(e)
        if problem is None and a == b:
            problem = InvalidArgument, "{}: source and destination are both the {}-pencil".format(what, "xyz"[a])
        if problem is None and not p.can_transpose(a, b):
            problem = InvalidArgument, "{}: the {}-pencil does not transpose directly to the {}-pencil on the {}x{} " \
                                       "grid (go through the y-pencil)".format(what, "xyz"[a], "xyz"[b], p.m1, p.m2)
        dtype: Optional[np.dtype[Any]] = None
        for arrays, pencil, name, writable in ((src, a, "src", False), (dst, b, "dst", True)):
            for k, x in enumerate(arrays):
                if problem is not None:
                    break
                label = name if len(arrays) == 1 else "{}[{}]".format(name, k)
                problem = self._array_problem(what, label, x, pencil, writable, dtype)
                if dtype is None and problem is None:
                    dtype = x.dtype
        if problem is None and dtype is not None and dtype.itemsize == 0:
            problem = InvalidArgument, "{}: dtype {} has no size".format(what, dtype)
        agree(p.agree, problem)
        return a, b, (dtype.itemsize if dtype is not None else 1)

    def _array_problem(self, what: str, name: str, x: Any, pencil: int, writable: bool,
                       dtype: "Optional[np.dtype[Any]]") -> _Problem:
        if not isinstance(x, np.ndarray):
            return ArgumentTypeError, "{}: {} must be a numpy.ndarray, got {}".format(what, name, type(x).__name__)
        if x.dtype.hasobject:
            return bytes_dtype_problem(what, name, x.dtype)
        if dtype is not None and x.dtype != dtype:
            return ArgumentTypeError, "{}: {} has dtype {} but the source {} (nbfft never converts silently)".format(
                what, name, x.dtype, dtype)
        shape = self._boxes["xyz"[pencil]].shape
        if x.shape != shape:
            return InvalidArgument, "{}: expected {} of shape {} (this rank's {}-pencil, [z][y][x]), got {}".format(
                what, name, shape, "xyz"[pencil], x.shape)
        if not x.flags.c_contiguous:
            return InvalidArgument, "{}: expected {} C-contiguous, got {} (strides {}); nbfft never copies " \
                                    "silently, so pass np.ascontiguousarray({}) and use that".format(
                                        what, name, "Fortran order" if x.flags.f_contiguous else "a strided view",
                                        x.strides, name)
        if writable and not x.flags.writeable:
            return InvalidArgument, "{}: expected {} writable (it receives the result), got a read-only array".format(
                what, name)
        return None

    def transpose(self, src: np.ndarray[Any, Any], src_pencil: str, dst: np.ndarray[Any, Any],
                  dst_pencil: str) -> np.ndarray[Any, Any]:
        """Moves ``src`` (in ``src_pencil``) into ``dst`` (in ``dst_pencil``); returns ``dst``.

        Collective. Both arrays C-contiguous, of exactly this rank's pencil shapes
        (``shape(pencil)``) and one dtype (any: the element size is its itemsize); ``dst``
        writable. Pairs: x<->y, y<->z, and x<->z on a slab grid (``can_transpose``).

        Raises
        ------
        TypeError (nbfft.ArgumentTypeError)
            Not numpy arrays, or dtypes that differ.
        ValueError (nbfft.InvalidArgument)
            A wrong shape, a non-contiguous array, a read-only ``dst``, an unknown pencil or a
            pair this grid cannot transpose directly. On every rank.

        Examples
        --------
        >>> uy = p.transpose(ux, "x", np.empty(p.shape("y"), ux.dtype), "y")
        """
        a, b, elem = self._check("Pencils.transpose", (src,), src_pencil, (dst,), dst_pencil)
        self._p.transpose(a, b, _bytes(src), src.nbytes, _bytes(dst), dst.nbytes, elem)
        return dst

    def start(self, src: np.ndarray[Any, Any], src_pencil: str, dst: np.ndarray[Any, Any],
              dst_pencil: str) -> PencilsPending:
        """Starts the transpose of ``transpose()`` and returns at once (split phase).

        Collective (in the same order on every rank); complete it with the returned
        object's ``wait()`` or ``test()``. It keeps ``src`` and ``dst`` alive; do not write
        ``src`` or read ``dst`` before it completes. Raises as ``transpose``.

        Examples
        --------
        >>> t = p.start(uy, "y", uz, "z"); other_work(); t.wait()
        """
        a, b, elem = self._check("Pencils.start", (src,), src_pencil, (dst,), dst_pencil)
        started = self._p.start(a, b, _bytes(src), src.nbytes, _bytes(dst), dst.nbytes, elem)
        t = Request(started, "Pencils.start", self, (src, dst), out=dst, finish_on_arrival=True)
        self._pending.add(t)
        return t

    def transpose_many(self, src: Sequence[np.ndarray[Any, Any]], src_pencil: str,
                       dst: Sequence[np.ndarray[Any, Any]], dst_pencil: str) -> None:
        """Transposes field k of ``src`` into ``dst[k]``, pipelined (``fields_in_flight``).

        Collective; every rank passes the same number of fields. Each array is checked as
        in ``transpose`` (one dtype for all). Raises as ``transpose``, and ValueError
        (nbfft.InvalidArgument) for lists of different lengths.

        Examples
        --------
        >>> p.transpose_many([uz, wz], "z", [uy, wy], "y")
        """
        what = "Pencils.transpose_many"
        problem: _Problem = None
        for name, fields in (("src", src), ("dst", dst)):
            if problem is None and not isinstance(fields, (list, tuple, np.ndarray)):
                problem = ArgumentTypeError, "{}: {} must be a list of arrays, got {}".format(
                    what, name, type(fields).__name__)
        src, dst = (list(src), list(dst)) if problem is None else ([], [])
        if len(src) != len(dst):
            problem = InvalidArgument, "{}: {} source fields but {} destinations".format(what, len(src), len(dst))
        a, b, elem = self._check(what, src, src_pencil, dst, dst_pencil, problem)
        nbytes = src[0].nbytes if src else 0, dst[0].nbytes if dst else 0
        self._p.transpose_many(a, b, [_bytes(x) for x in src], nbytes[0], [_bytes(x) for x in dst], nbytes[1], elem)

    def close(self) -> None:
        """Completes started transposes and frees the communicators and buffers (collective)."""
        if self._p is not None:
            for t in list(self._pending):
                t.wait()
            self._p.close()
            self._p = None
            _lifetime.unregister(self._key)

    @property
    def closed(self) -> bool:
        """Whether ``close()`` was called."""
        return self._p is None

    def __enter__(self) -> "Pencils":
        return self

    def __exit__(self, *exc: Union[Optional[Type[BaseException]], Optional[BaseException],
                                   Optional[TracebackType]]) -> None:
        self.close()

    def __repr__(self) -> str:
        if self._p is None:
            return "<nbfft.Pencils (closed)>"
        return "<nbfft.Pencils {} on a {}x{} grid: x {}, y {}, z {}>".format(
            self._shape, self._p.m1, self._p.m2, self.shape("x"), self.shape("y"), self.shape("z"))
