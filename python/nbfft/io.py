"""Fields to disk and back: one parallel HDF5 file that restarts at any rank count.

    from mpi4py import MPI
    import nbfft

    with nbfft.Plan(MPI.COMM_WORLD, (64, 64, 64)) as plan, \\
            nbfft.io.File(MPI.COMM_WORLD, "run.h5", "w") as f:
        u = plan.empty_input()
        u[...] = ...
        f.write(plan, "u", u, step=0, time=0.0)      # dataset /u/0, the global (z, y, x) array
        f.write(plan, "U", plan.forward(u), step=0)  # the spectrum, (kz, ky, kx)

    # later, at any rank count, slabs or pencils:
    with nbfft.io.File(comm, "run.h5") as f:
        u = f.read(plan2, "u", f.steps("u")[-1])

Every rank writes and reads only its own block; in the file each field and step is one
global array in numpy's natural order, so serial ``h5py.File("run.h5")["u/0"][...]`` is the
whole field as ``plan.gather`` would give it. Every method is collective over the file's
communicator (the plans passed must be on the same ranks). See docs/io.md for the layout,
the attributes and the guarantees.
"""

import os
from typing import Any, List, Optional, Sequence, Tuple, Type

import numpy as np

from . import _core, _lifetime
from . import _plan as _plan_module
from ._args import INT64_MAX, check_problem, int_arg, ints_arg, is_int, is_number, per_axis_arg, problem_of
from ._errors import ArgumentTypeError, Error, InvalidArgument, InvalidState, agree
from ._mpi import MPI, comm_problem, handle_of
from ._plan import Plan, aligned_empty
from ._request import Request

# The transforms' own array check (dtype, shape, contiguity: never a silent copy); private
# to _plan, so not in its stub.
_array_problem: Any = getattr(_plan_module, "_array_problem")

__all__ = ["File", "Layout", "Pending", "hdf5_available", "hdf5_info"]

_MODES = {"r": "read", "w": "create", "a": "append"}
_SPACES = ("auto", "physical", "spectral")
_AXES = ("x", "y", "z")


def hdf5_available() -> bool:
    """Whether this nbfft was built with parallel HDF5 (without it, :class:`File` raises
    ``nbfft.Unavailable`` saying what to install)."""
    return bool(_core.hdf5_available())


def hdf5_info() -> str:
    """The HDF5 nbfft uses ("parallel HDF5 1.10.8 (hdf5-openmpi)"), or why there is none."""
    return str(_core.hdf5_info())


def _bytes_option(what: str, name: str, value: Any) -> int:
    """A size in bytes or points: an int >= 0 that fits int64_t."""
    return int_arg(what, name, value, 0, INT64_MAX)


def _lengths_option(what: str, value: Any) -> Tuple[float, ...]:
    """box_lengths: (Lz, Ly, Lx), 3 finite floats >= 0 (0: the default)."""
    return per_axis_arg(what, "box_lengths", value, 3, 0.0, False, False, "Lz, Ly, Lx")


def _core_plan(plan: Plan) -> Any:
    """The _core.Plan inside an nbfft.Plan (InvalidState once closed)."""
    p: Any = plan
    return p._plan()


def _xyz(what: str, stride: Any) -> Tuple[int, ...]:
    """stride (an int, or (sz, sy, sx) ints) in the core's (x, y, z) order; values below 1
    are the core's to name."""
    if is_int(stride):
        return (int_arg(what, "stride", stride),) * 3
    if np.ndim(stride) != 1 or len(stride) != 3:
        raise ArgumentTypeError("{}: stride must be an int or (sz, sy, sx) ints, got {!r}".format(what, stride))
    return ints_arg(what, "stride", stride, 3)[::-1]


def _field_step(what: str, name: Any, step: Any) -> None:
    """A field's name (a str) and a step (an int that fits int64_t)."""
    if not isinstance(name, str):
        raise ArgumentTypeError("{}: the field name must be a str, got {!r}".format(what, name))
    int_arg(what, "step", step)


def _field_step_time(what: str, name: Any, step: Any, time: Any) -> None:
    """A write's or read's field and step, and the physical time (a number)."""
    _field_step(what, name, step)
    if not is_number(time):
        raise ArgumentTypeError("{}: time must be a float, got {!r}".format(what, time))


Pending = Request  # the earlier name of a background write's request

_PENCILS = {"x": 0, "y": 1, "z": 2}


class Layout:
    """What a write or read of a distributed array needs: the global shape, this rank's
    block of it and the dtype, whatever made the array.

    ``File.write``, ``read`` and ``write_start`` take a ``Layout`` where they take a
    ``Plan``, so that an ``NdPlan``'s arrays, a transpose's pencils and your own blocks are
    written and restarted (at any rank count) through the same calls. Shapes are numpy's:
    axis 0 slowest; the dataset in the file is the global array in C order.

    Examples
    --------
    >>> lay = nbfft.io.Layout.of(ndplan, "spectral")          # an NdPlan's spectrum block
    >>> f.write(lay, "U", U, step=0)
    >>> lay = nbfft.io.Layout.of(pencils, "y", np.float64)     # a Y-pencil, (nz, ny, nx)
    >>> mine = nbfft.io.Layout((64, 48), start=(16, 0), extent=(16, 48), dtype=np.float64)
    """

    def __init__(self, shape: Sequence[int], start: Sequence[int], extent: Sequence[int], dtype: Any,
                 order: Optional[Sequence[int]] = None) -> None:
        what = "nbfft.io.Layout"
        nd = len(shape) if isinstance(shape, (tuple, list)) else -1
        if nd < 1:
            raise ArgumentTypeError("{}: shape must be a tuple of ints, got {!r}".format(what, shape))
        dt = np.dtype(dtype)
        self._l = _core.Layout.user([int_arg(what, "shape", s, 0) for s in shape],
                                    list(ints_arg(what, "start", start, nd, 0, INT64_MAX)),
                                    list(ints_arg(what, "extent", extent, nd, 0, INT64_MAX)),
                                    [] if order is None else list(ints_arg(what, "order", order, nd, 0, nd - 1)),
                                    dt.name)
        # Its extents are checked where it is used (File.write, read: on every rank together).

    @classmethod
    def of(cls, obj: Any, which: str = "physical", dtype: Any = None) -> "Layout":
        """The layout of a plan's or pencils' arrays: a ``Plan``'s or an ``NdPlan``'s
        ``'physical'`` (input) or ``'spectral'`` (output) block, or a ``Pencils``' pencil
        ``'x'``, ``'y'`` or ``'z'`` of elements of ``dtype``."""
        from ._nd import NdPlan
        from ._transpose import Pencils
        what = "nbfft.io.Layout.of"
        if isinstance(obj, Pencils):
            if which not in _PENCILS:
                raise InvalidArgument("{}: the pencil must be 'x', 'y' or 'z', got {!r}".format(what, which))
            if dtype is None:
                raise ArgumentTypeError("{}: a pencil's layout needs a dtype".format(what))
            p: Any = obj
            return cls._wrap(_core.Layout.of_pencils(p._get(), _PENCILS[which], np.dtype(dtype).name))
        if which not in ("physical", "spectral"):
            raise InvalidArgument("{}: the side must be 'physical' or 'spectral', got {!r}".format(what, which))
        if isinstance(obj, NdPlan):
            q: Any = obj
            return cls._wrap(_core.Layout.of_nd(q._get(), which))
        if isinstance(obj, Plan):
            return cls._wrap(_core.Layout.of_plan(_core_plan(obj), which))
        raise ArgumentTypeError("{}: expected an nbfft.Plan, NdPlan or Pencils, got {}".format(
            what, type(obj).__name__))

    @classmethod
    def _wrap(cls, core: Any) -> "Layout":
        """A Layout holding a _core.Layout the factories made."""
        lay = cls.__new__(cls)
        lay._l = core
        return lay

    @property
    def shape(self) -> Tuple[int, ...]:
        """The global array's shape (axis 0 slowest)."""
        return tuple(self._l.shape)

    @property
    def start(self) -> Tuple[int, ...]:
        """This rank's block: its first point along each axis."""
        return tuple(self._l.lo)

    @property
    def extent(self) -> Tuple[int, ...]:
        """This rank's block: its points along each axis."""
        return tuple(self._l.n)

    @property
    def block_shape(self) -> Tuple[int, ...]:
        """The shape of this rank's array in memory (the extents in memory order)."""
        return tuple(self._l.memory_shape)

    @property
    def dtype(self) -> np.dtype:
        """The element type of the block (and of the dataset in the file)."""
        return np.dtype(self._l.dtype)

    def empty(self) -> np.ndarray:
        """An uninitialized array for this rank's block."""
        return aligned_empty(self.block_shape, self.dtype)

    def __repr__(self) -> str:
        return "<nbfft.io.Layout {} block {} at {} {}>".format(self.shape, self.extent, self.start, self.dtype.name)


class _Discard:
    """At exit an unclosed file is discarded, never committed (a run that did not reach
    ``close()`` must not replace the previous checkpoint)."""

    def __init__(self, f: "File") -> None:
        self.f = f

    def close(self) -> None:
        self.f.discard()


class File:
    """An nbfft HDF5 file of fields, open on every rank of ``comm``.

    Parameters
    ----------
    comm : mpi4py.MPI.Intracomm
        The ranks that write and read (those of the plans passed to ``write``/``read``).
    path : str or os.PathLike
        The file. The same on every rank.
    mode : {'r', 'w', 'a'}
        'r' reads (the default). 'w' creates: the data goes to ``path + '.nbfft-tmp'``
        and ``close()`` renames it over ``path`` only after every rank has written, so a
        run that fails or is killed first leaves the previous file unchanged. 'a' adds
        fields and steps to an existing nbfft file in place.
    alignment, align_threshold : int
        Objects of at least ``align_threshold`` bytes start at a multiple of
        ``alignment`` bytes in the file (a file system's stripe: 1 MiB); 0: HDF5's packing.
    chunk : (int, int, int) or None
        Chunked datasets of this (z, y, x) shape, clipped to each dataset; None: contiguous.
    box_lengths : (float, float, float) or None
        The periodic box's physical size (Lz, Ly, Lx), numpy's order like ``chunk``: the
        run attribute ``box_lengths`` and the XDMF grid's spacing. None: the file's own
        ('a'), or 2 pi along each axis ('w').
    xdmf : bool
        Keep an XDMF file beside the .h5 (``run.h5`` -> ``run.xmf``) that ParaView and
        VisIt open as a time series (default True; ignored when reading).

    Raises
    ------
    nbfft.IoError (OSError)
        The file cannot be opened or created, or is not nbfft's; on every rank.
    nbfft.InvalidArgument (ValueError), nbfft.ArgumentTypeError (TypeError)
        A bad mode or option, or ranks that pass different ones.
    nbfft.Unavailable (RuntimeError)
        This nbfft was built without parallel HDF5.

    Examples
    --------
    >>> with nbfft.io.File(comm, "run.h5", "w") as f:
    ...     f.write(plan, "u", u, step=10, time=0.5)
    >>> with nbfft.io.File(comm, "run.h5") as f:
    ...     f.fields(), f.steps("u"), f.time("u", 10)
    (['u'], [10], 0.5)

    As a context manager the file is closed (committed) at the end of the block, or
    discarded when the block raises: a 'w' file then leaves ``path`` as it was.
    """

    def __init__(self, comm: MPI.Intracomm, path: Any, mode: str = "r", alignment: int = 0,
                 align_threshold: int = 0, chunk: Optional[Sequence[int]] = None,
                 box_lengths: Optional[Sequence[float]] = None, xdmf: bool = True) -> None:
        self._f: Any = None
        problem = comm_problem(comm, "nbfft.io.File")
        if problem is not None and not isinstance(comm, MPI.Intracomm):
            raise problem[0](problem[1])  # nothing to agree over
        what = "nbfft.io.File"
        chunk_v: Tuple[int, ...] = (0, 0, 0)
        lengths_v: Tuple[float, ...] = (0.0, 0.0, 0.0)
        try:
            if problem is None:
                if not isinstance(path, (str, bytes)) and not hasattr(path, "__fspath__"):
                    raise ArgumentTypeError("{}: path must be a str or os.PathLike, got {!r}".format(what, path))
                path = os.fsdecode(os.fspath(path))
                if mode not in _MODES:
                    raise InvalidArgument("{}: mode must be 'r' (read), 'w' (create) or 'a' (append), got {!r}".format(
                        what, mode))
                alignment = _bytes_option(what, "alignment", alignment)
                align_threshold = _bytes_option(what, "align_threshold", align_threshold)
                if chunk is not None:
                    try:
                        chunk_v = tuple(_bytes_option(what, "chunk", c) for c in chunk)
                    except TypeError:
                        raise ArgumentTypeError("{}: chunk must be (z, y, x) ints or None, got {!r}".format(
                            what, chunk)) from None
                    if len(chunk_v) != 3 or min(chunk_v) < 1:
                        raise InvalidArgument("{}: chunk must be 3 positive ints (z, y, x), got {!r}".format(
                            what, chunk))
                if box_lengths is not None:
                    lengths_v = _lengths_option(what, box_lengths)
                if not isinstance(xdmf, (bool, np.bool_)):
                    raise ArgumentTypeError("{}: xdmf must be a bool, got {!r}".format(what, xdmf))
        except (InvalidArgument, ArgumentTypeError) as e:
            problem = (type(e), e.message)
        agree(lambda k, m: _core.agree(handle_of(comm), k, m), problem)
        self._f = _core.H5File(handle_of(comm), path, mode, alignment, align_threshold, chunk_v,
                               lengths_v[::-1], bool(xdmf))  # the core takes (x, y, z)
        self.comm = comm
        self.mode = mode
        self._discarder = _Discard(self)  # registered weakly: lives as long as the file
        self._key = _lifetime.register(self._discarder)

    # -- lifetime ------------------------------------------------------------------------
    def close(self) -> None:
        """Commits and closes: every rank's data is written, and a 'w' file is renamed over
        its path. Collective; a second call does nothing. Later use raises
        ``nbfft.InvalidState``."""
        if self._f is not None:
            f, self._f = self._f, None
            _lifetime.unregister(self._key)
            f.close()

    def discard(self) -> None:
        """Closes without committing: an unfinished 'w' file is removed and the file at its
        path (the previous checkpoint) stays as it was; 'r' and 'a' files just close.
        Collective; does nothing once closed."""
        if self._f is not None:
            f, self._f = self._f, None
            _lifetime.unregister(self._key)
            f.discard()

    @property
    def closed(self) -> bool:
        """Whether ``close()`` or ``discard()`` was called."""
        return self._f is None

    def __enter__(self) -> "File":
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        if exc_type is None:
            self.close()
        else:
            self.discard()

    def _file(self) -> Any:
        if self._f is None:
            raise InvalidState("nbfft.io.File: used after close()")
        return self._f

    def _agree(self, problem: Optional[Tuple[Type[Error], str]], call: Optional[str] = None) -> None:
        """Raises ``problem`` of any rank on every rank of the file. With ``call``, the
        ranks first meet in the file's own agreement on which call they are in, so that a
        rank in this call and one waiting for a background write (or in another call)
        fail with RanksDisagree instead of waiting in different collectives."""
        if call is not None:
            self._file().agree_call(call, "")
        agree(lambda k, m: _core.agree(handle_of(self.comm), k, m), problem)

    @property
    def path(self) -> str:
        """The file's path as given."""
        return str(self._file().path)

    @property
    def box_lengths(self) -> Tuple[float, float, float]:
        """The run's box lengths (Lz, Ly, Lx): the ``box_lengths`` given, or the file's."""
        x, y, z = self._file().box_lengths
        return float(z), float(y), float(x)

    @property
    def xdmf_path(self) -> Optional[str]:
        """The XDMF file kept beside this one, or None (``xdmf=False``, or mode 'r')."""
        p = str(self._file().xdmf_path)
        return p if p else None

    def __repr__(self) -> str:
        if self._f is None:
            return "<nbfft.io.File (closed)>"
        return "<nbfft.io.File {!r} mode {!r} on {} ranks>".format(self.path, self.mode, self.comm.Get_size())

    # -- fields --------------------------------------------------------------------------
    def _checked(self, what: str, plan: Any, name: Any, a: Any, space: str, writable: bool,
                 step: Any, time: Any = 0.0, **cut: Any) -> str:
        """Checks the arguments on every rank together (two allreduces on the file's ranks);
        returns the space."""
        self._file().agree_call(what, "")  # every rank in this call (see _agree)
        problem: Optional[Tuple[Type[Error], str]] = None
        try:
            self._check_call(what, plan, name, space, step, time, **cut)
        except (InvalidArgument, InvalidState) as e:
            problem = problem_of(e)
        # 'auto' asks every rank (an allreduce): agree on the arguments first so that every
        # rank reaches it, or none does.
        self._agree(problem)
        if space == "auto":
            if a is None:
                space = "physical"
            else:
                p: Any = plan  # the transforms' own rule for 'auto' (private to Plan)
                s, problem = p._space_of(a, "auto", what)
                space = "physical" if s == "input" else "spectral"
        if problem is None and a is not None:
            box, dtype = (plan.input_box, plan.in_dtype) if space == "physical" else (plan.output_box, plan.out_dtype)
            problem = _array_problem(what, "out" if writable else "a", a, box.shape, dtype, writable, space, box.axes)
        self._agree(problem)
        return space

    def _layout_checked(self, what: str, obj: Any, name: Any, a: Any, space: str, writable: bool,
                        step: Any, time: Any = 0.0) -> Layout:
        """The checks of a write or read on a Layout (an NdPlan stands for its own, by
        ``space``), agreed on every rank; returns the layout."""
        from ._nd import NdPlan
        self._file().agree_call(what, "")  # every rank in this call (see _agree)
        problem: Optional[Tuple[Type[Error], str]] = None
        lay: Optional[Layout] = None
        try:
            _field_step_time(what, name, step, time)
            if isinstance(obj, NdPlan):
                if space == "auto":  # the side whose block a is, by shape and dtype
                    phys = Layout.of(obj, "physical")
                    space = "physical" if a is None or (a.shape == phys.block_shape and a.dtype == phys.dtype) \
                        else "spectral"
                lay = Layout.of(obj, space)
            elif isinstance(obj, Layout):
                lay = obj
                bad = lay._l.check()
                if bad:
                    raise InvalidArgument("{}: the layout: {}".format(what, bad))
            else:
                raise ArgumentTypeError("{}: plan must be an nbfft.Plan, NdPlan or nbfft.io.Layout, got {}".format(
                    what, type(obj).__name__))
            if a is not None:
                kind = "out" if writable else "a"
                if not isinstance(a, np.ndarray):
                    raise ArgumentTypeError("{}: {} must be a numpy array, got {}".format(what, kind, type(a).__name__))
                if a.dtype != lay.dtype:
                    raise ArgumentTypeError("{}: {} is {}, the layout's dtype is {}".format(
                        what, kind, a.dtype.name, lay.dtype.name))
                if a.shape != lay.block_shape or not a.flags.c_contiguous or (writable and not a.flags.writeable):
                    raise InvalidArgument("{}: {} must be a C-contiguous{} array of this rank's block shape {}, "
                                          "got {}{}".format(what, kind, " writable" if writable else "",
                                                            lay.block_shape, a.shape,
                                                            "" if a.flags.c_contiguous else " (strided)"))
        except Error as e:
            problem = problem_of(e)
        self._agree(problem)
        assert lay is not None
        return lay

    def _check_call(self, what: str, plan: Any, name: Any, space: Any, step: Any, time: Any, **cut: Any) -> None:
        """This rank's checks of a write's or read's arguments (raising)."""
        if not isinstance(plan, Plan):
            raise ArgumentTypeError("{}: plan must be an nbfft.Plan, got {}".format(what, type(plan).__name__))
        if plan.closed:
            raise InvalidState("{}: the plan is closed".format(what))
        p: Any = plan
        if (p._size, p._rank) != (self.comm.Get_size(), self.comm.Get_rank()):
            raise InvalidArgument("{}: the plan was made on another communicator (rank {} of {}) than the file's "
                                  "(rank {} of {}); use a plan on the file's ranks".format(
                                      what, p._rank, p._size, self.comm.Get_rank(), self.comm.Get_size()))
        _field_step_time(what, name, step, time)
        if space not in _SPACES:
            raise InvalidArgument("{}: space must be 'auto', 'physical' or 'spectral', got {!r}".format(what, space))
        if "axis" in cut:
            if cut["axis"] not in _AXES:
                raise InvalidArgument("{}: axis must be 'x', 'y' or 'z', got {!r}".format(what, cut["axis"]))
            int_arg(what, "index", cut["index"])
        if "stride" in cut:
            _xyz(what, cut["stride"])

    def write(self, plan: Plan, name: str, a: np.ndarray, step: int, time: float = 0.0,
              space: str = "auto") -> None:
        """Writes this rank's block ``a`` of field ``name`` as dataset ``/<name>/<step>``.

        ``a`` is the plan's input block (``space='physical'``: ``input_box.shape``,
        ``in_dtype``) or output block (``'spectral'``: ``output_box.shape``,
        ``out_dtype``), C-contiguous; 'auto' tells them apart by shape and dtype. Nothing
        is copied by Python: a wrong dtype is a TypeError, a wrong shape or a strided array
        a ValueError, on every rank. In the file the field is the global array in numpy
        order ((z, y, x); the spectrum (kz, ky, kx)) with its description as attributes
        (space, time, grid, ...). Collective.

        Parameters
        ----------
        plan : nbfft.Plan
            A plan on the file's ranks.
        name : str
            The field (any name without '/').
        a : numpy.ndarray
            This rank's block.
        step : int
            The step; a step the file already holds is an error.
        time : float
            The physical time, stored with the step.
        space : {'auto', 'physical', 'spectral'}

        Raises
        ------
        TypeError (nbfft.ArgumentTypeError), ValueError (nbfft.InvalidArgument)
            Bad arguments on any rank, a step already written, a file opened with 'r'.
        nbfft.IoError, nbfft.InvalidState
            HDF5 failed; the file or the plan is closed.

        Examples
        --------
        >>> f.write(plan, "u", u, step=3, time=0.75)
        >>> f.write(plan, "U", plan.forward(u), step=3, time=0.75)   # the spectrum
        """
        if not isinstance(plan, Plan):
            lay = self._layout_checked("write", plan, name, a, space, False, step, time)
            self._file().write_layout(lay._l, name, int(step), float(time), a)
            return
        space = self._checked("write", plan, name, a, space, False, step, time)
        self._file().write(_core_plan(plan), space, name, int(step), float(time), a)

    def read(self, plan: Plan, name: str, step: Optional[int] = None, out: Optional[np.ndarray] = None,
             space: str = "auto") -> np.ndarray:
        """Reads this rank's block of ``/<name>/<step>`` into ``out`` (allocated when None).

        The file may have been written at any rank count and process grid: only the global
        grid, the space and the dtype must be this plan's. ``step=None`` reads the last
        step. 'auto' space takes ``out``'s (by shape and dtype), or 'physical' when ``out``
        is None. Collective.

        Parameters
        ----------
        plan : nbfft.Plan
        name : str
        step : int or None
        out : numpy.ndarray, optional
            C-contiguous, writable, the space's block shape and dtype.
        space : {'auto', 'physical', 'spectral'}

        Returns
        -------
        numpy.ndarray
            ``out``: this rank's block, in the plan's memory order.

        Raises
        ------
        ValueError (nbfft.InvalidArgument)
            No such field or step (the message lists what there is), another grid, dtype or
            space in the file, a bad ``out``; on every rank.
        nbfft.IoError, nbfft.InvalidState

        Examples
        --------
        >>> u = f.read(plan, "u")                          # the last step
        >>> U = f.read(plan, "U", 3, out=plan.empty_output())
        """
        if not isinstance(plan, Plan):
            step = self._step_or_last("read", name, step)
            lay = self._layout_checked("read", plan, name, out, space, True, step)
            if out is None:
                out = lay.empty()
            self._file().read_layout(lay._l, name, int(step), out)
            return out
        return self._read_into("read", plan, name, step, out, space,
                               lambda core, sp, st, o: self._file().read(core, sp, name, st, o))

    def _step_or_last(self, what: str, name: Any, step: Any) -> Any:
        """``step``, or for None the field's last step (collective: asks the file)."""
        if step is None and isinstance(name, str):
            steps = self.steps(name)
            if not steps:
                raise InvalidArgument("{}: field {!r} of {!r} has no steps".format(what, name, self.path))
            step = steps[-1]
        return step

    def _read_into(self, what: str, plan: Any, name: Any, step: Any, out: Optional[np.ndarray], space: str,
                   call: Any, **cut: Any) -> np.ndarray:
        """What read, read_plane and read_subsampled share: the last step for None, the
        collective checks, ``out`` allocated when None (zeroed for a cut, whose read sets
        only its points), then call(core plan, space, step, out)."""
        step = self._step_or_last(what, name, step)
        space = self._checked(what, plan, name, out, space, True, step, **cut)
        if out is None:
            box, dtype = (plan.input_box, plan.in_dtype) if space == "physical" else (plan.output_box, plan.out_dtype)
            out = aligned_empty(box.shape, dtype)
            if cut:
                out[...] = 0
        call(_core_plan(plan), space, int(step), out)
        return out

    def write_plane(self, plan: Plan, name: str, a: np.ndarray, step: int, time: float = 0.0, *,
                    axis: str, index: int, space: str = "auto") -> None:
        """Writes the plane ``axis = index`` of the field as dataset ``/<name>/<step>``.

        A quick look without gathering: ``a`` is this rank's whole block, as for
        :meth:`write`; each rank writes only its points of the plane. In the file the
        dataset has thickness 1 along ``axis`` (a plane z = 3 of an (nz, ny, nx) field is
        (1, ny, nx)) and the attributes ``kind`` ("plane"), ``start`` and ``stride``
        (z, y, x). Collective.

        Parameters
        ----------
        plan, name, a, step, time, space
            As for :meth:`write`.
        axis : {'x', 'y', 'z'}
            The axis the plane cuts (for a spectrum: kx, ky, kz).
        index : int
            ``0 <= index <`` the grid's extent along ``axis`` in that space.

        Raises
        ------
        ValueError (nbfft.InvalidArgument), TypeError (nbfft.ArgumentTypeError)
            An index outside the grid, another axis, a bad block; on every rank.
        nbfft.IoError, nbfft.InvalidState

        Examples
        --------
        >>> f.write_plane(plan, "u_mid", u, step=3, axis="z", index=plan.shape[0] // 2)
        """
        space = self._checked("write_plane", plan, name, a, space, False, step, time, axis=axis, index=index)
        self._file().write_plane(_core_plan(plan), space, name, int(step), float(time), axis, int(index), a)

    def write_subsampled(self, plan: Plan, name: str, a: np.ndarray, step: int, time: float = 0.0, *,
                         stride: Any, space: str = "auto") -> None:
        """Writes every ``stride``-th point of the field as dataset ``/<name>/<step>``.

        ``stride`` is one int for every axis or (sz, sy, sx) in numpy's order, each >= 1;
        the dataset has ``ceil(n / s)`` points per axis, from point 0, and the attributes
        ``kind`` ("subsampled"), ``start`` and ``stride`` (z, y, x). ``a`` is this rank's
        whole block, as for :meth:`write`. Collective.

        Raises
        ------
        ValueError (nbfft.InvalidArgument), TypeError (nbfft.ArgumentTypeError)
            A stride below 1 or not 3 ints, a bad block; on every rank.
        nbfft.IoError, nbfft.InvalidState

        Examples
        --------
        >>> f.write_subsampled(plan, "u_coarse", u, step=3, stride=4)   # every 4th point
        """
        space = self._checked("write_subsampled", plan, name, a, space, False, step, time, stride=stride)
        self._file().write_subsampled(_core_plan(plan), space, name, int(step), float(time),
                                      _xyz("write_subsampled", stride), a)

    def read_plane(self, plan: Plan, name: str, step: Optional[int] = None, out: Optional[np.ndarray] = None, *,
                   axis: str, index: int, space: str = "auto") -> np.ndarray:
        """Reads the plane ``axis = index`` that :meth:`write_plane` wrote into ``out``.

        ``out`` is this rank's whole block, as for :meth:`read`: its points of the plane
        are set and every other point keeps its value (a rank whose block holds none reads
        nothing and still takes part); when None it is allocated, zeroed. The file may
        have been written at any rank count and process grid; the dataset must be that
        plane (the same axis and index) of this plan's grid, space and dtype, and its
        checksum is checked. ``step=None`` reads the last step; 'auto' space as for
        :meth:`read`. Collective.

        Parameters
        ----------
        plan, name, step, out, space
            As for :meth:`read`.
        axis : {'x', 'y', 'z'}
            The axis the plane cuts, as written.
        index : int
            The plane's index along ``axis``, as written.

        Returns
        -------
        numpy.ndarray
            ``out``, with the plane's points read.

        Raises
        ------
        ValueError (nbfft.InvalidArgument), TypeError (nbfft.ArgumentTypeError)
            An index outside the grid, another axis, a bad ``out``; a dataset that is not
            this plane (the message says what it is), no such field or step; on every rank.
        nbfft.IoError, nbfft.InvalidState
            A damaged dataset (its checksum); the file or the plan is closed.

        Examples
        --------
        >>> u = plan.empty_input(); u[...] = np.nan
        >>> f.read_plane(plan, "u_mid", 3, out=u, axis="z", index=plan.shape[0] // 2)
        """
        return self._read_into("read_plane", plan, name, step, out, space,
                               lambda core, sp, st, o: self._file().read_plane(core, sp, name, st, axis, int(index), o),
                               axis=axis, index=index)

    def read_subsampled(self, plan: Plan, name: str, step: Optional[int] = None, out: Optional[np.ndarray] = None,
                        *, stride: Any, space: str = "auto") -> np.ndarray:
        """Reads the subsample that :meth:`write_subsampled` wrote into ``out``.

        ``stride`` is the one it was written with (one int, or (sz, sy, sx)). ``out`` is
        this rank's whole block: its points of the subsample (every ``stride``-th point
        from 0) are set and every other point keeps its value; when None it is allocated,
        zeroed. As :meth:`read_plane` otherwise. Collective.

        Returns
        -------
        numpy.ndarray
            ``out``, with the subsample's points read.

        Raises
        ------
        ValueError (nbfft.InvalidArgument), TypeError (nbfft.ArgumentTypeError)
            A stride below 1 or not 3 ints, a bad ``out``; a dataset that is not this
            subsample, no such field or step; on every rank.
        nbfft.IoError, nbfft.InvalidState

        Examples
        --------
        >>> coarse = f.read_subsampled(plan, "u_coarse", 3, stride=4)   # zeros between the points
        """
        return self._read_into("read_subsampled", plan, name, step, out, space,
                               lambda core, sp, st, o: self._file().read_subsampled(
                                   core, sp, name, st, _xyz("read_subsampled", stride), o),
                               stride=stride)

    def write_start(self, plan: Plan, name: str, a: np.ndarray, step: int, time: float = 0.0,
                    space: str = "auto", borrow: bool = False) -> "Pending":
        """Starts writing ``a`` as :meth:`write` would and returns at once; the file is the
        one :meth:`write` makes.

        The dataset is made now and its bytes go by non-blocking collective MPI-IO while
        the caller goes on (transforms, MPI, computing); :meth:`Pending.wait` returns the
        write's outcome. ``borrow=False``
        copies this rank's block now (``a`` is free at once); ``borrow=True`` copies
        nothing and ``a`` must stay unchanged until the wait (the Pending keeps a reference
        to it, so it is not freed). ``plan`` may be closed once this returns. Until every
        write in flight is settled, no nbfft.io.File of this process may be used
        (InvalidState), except more ``write_start`` on this file and :meth:`close`, which
        settles them. Any MPI thread level. Collective: started in the same order on every
        rank; waited for in any order (see :class:`Pending`).

        Returns
        -------
        Pending
            Call ``wait()``; or use it as a context manager; a Pending collected unwaited
            completes its write on this rank and leaves the file busy until ``close()``
            (as C++'s does).

        Raises
        ------
        nbfft.Unavailable (RuntimeError)
            The file makes chunked datasets (``chunk=``): use :meth:`write`; on every rank.
        ValueError (nbfft.InvalidArgument), TypeError (nbfft.ArgumentTypeError), nbfft.InvalidState
            Bad arguments and a step already in the file, as :meth:`write`; errors of the
            bytes' transfer come from ``wait()``.

        Examples
        --------
        >>> w = f.write_start(plan, "u", u, step=3, time=0.75)
        >>> u = step_forward(plan, u)     # overlaps the write
        >>> w.wait()
        """
        lent = None if isinstance(borrow, (bool, np.bool_)) else (
            ArgumentTypeError, "write_start: borrow must be a bool, got {!r}".format(borrow))
        self._agree(lent, "write_start")
        if not isinstance(plan, Plan):
            lay = self._layout_checked("write_start", plan, name, a, space, False, step, time)
            p = self._file().write_start_layout(lay._l, name, int(step), float(time), a, bool(borrow), (a, plan))
            return Request(p, "write of {}/{}".format(name, int(step)))
        space = self._checked("write_start", plan, name, a, space, False, step, time)
        core = _core_plan(plan)
        p = self._file().write_start(core, space, name, int(step), float(time), a, bool(borrow), (a, core))
        return Request(p, "write of {}/{}".format(name, int(step)))

    def fields(self) -> List[str]:
        """The file's field names, sorted. Collective."""
        return list(self._file().fields())

    def steps(self, name: str) -> List[int]:
        """The steps of field ``name``, ascending (``nbfft.InvalidArgument`` if there is no
        such field). Collective."""
        f = self._file()
        self._agree(check_problem(_field_step, "steps", name, 0), "steps")
        return [int(s) for s in f.steps(name)]

    def time(self, name: str, step: int) -> float:
        """The physical time written with ``/<name>/<step>``. Collective."""
        f = self._file()
        self._agree(check_problem(_field_step, "time", name, step), "time")
        return float(f.time(name, int(step)))
