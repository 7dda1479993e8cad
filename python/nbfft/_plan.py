"""nbfft.Plan: a distributed 3D FFT on numpy arrays and mpi4py communicators."""

import logging

import numpy as np

from . import _core, _lifetime
from ._args import EXTENT_MAX, INT_MAX, check_problem, flag_arg, int_arg, ints_arg, is_number, per_axis_arg, rank_arg
from ._request import Request
from ._errors import ArgumentTypeError, Error, InvalidArgument, InvalidState, Unavailable, agree
from ._mpi import MPI, comm_problem, handle_of

ALIGNMENT = 64  # bytes; FFTW's SIMD codelets want 16-32, cache lines 64

# dtype -> (precision, transform of the dtype alone)
_DTYPES = {
    np.dtype(np.float64): ("double", "r2c"),
    np.dtype(np.float32): ("single", "r2c"),
    np.dtype(np.complex128): ("double", "c2c"),
    np.dtype(np.complex64): ("single", "c2c"),
}
_COMPLEX = {"double": np.dtype(np.complex128), "single": np.dtype(np.complex64)}
_REAL = {"double": np.dtype(np.float64), "single": np.dtype(np.float32)}
_NORMS = {"backward": "backward", "forward": "forward", "ortho": "ortho", None: "none", "none": "none"}
_ROWS = {r["key"]: r for r in _core.option_rows()}  # the option table (fft/option_table.hpp)
# Keys that Plan takes as named parameters (numpy-style spellings); every other key of the
# table is a keyword argument of the same name.
_NAMED = ("transform", "transport", "row_transport", "col_transport", "norm")
_THREAD_NAMES = {MPI.THREAD_SINGLE: "MPI_THREAD_SINGLE", MPI.THREAD_FUNNELED: "MPI_THREAD_FUNNELED",
                 MPI.THREAD_SERIALIZED: "MPI_THREAD_SERIALIZED", MPI.THREAD_MULTIPLE: "MPI_THREAD_MULTIPLE"}


def option_rows():
    """The plan options, one dict per row of nbfft's option table: ``key``, ``type`` ('choice',
    'int', 'bool', 'grid', 'transport', 'real', 'text', 'ratios'), ``allowed``, ``doc``, ``default``,
    ``agreed`` (ranks must pass the same value), ``tuned`` (the tuner chooses it), ``tuning``
    (a setting of the tuner itself: ``tune``, ``tune_budget``, ...), ``shorthand`` (sets other rows).
    The keys are ``Plan``'s keyword arguments, the fields of ``plan.options``, the C and Fortran
    keys and nbfft-sine's ``--words``. ``lo``/``hi`` bound an 'int' row, ``aliases`` are other
    accepted words, ``example`` a valid value. Needs no MPI.

    Examples
    --------
    >>> row = {r["key"]: r for r in nbfft.option_rows()}["effort"]
    >>> row["default"], row["allowed"]          # doctest: +SKIP
    ('measure', 'estimate|measure|patient|exhaustive')
    """
    return [dict(r) for r in _ROWS.values()]


def option_keys():
    """The plan options' keys, in the option table's order.

    Each is a keyword argument of :class:`Plan` and an attribute of ``plan.options``.

    Examples
    --------
    >>> "lean_workspace" in nbfft.option_keys()
    True
    """
    return list(_ROWS)


def _option_text(what, key, value, check=None):
    """A keyword argument's value as the option table's word, type-checked as Python sees it
    (``check``: the plan's parser of a word, the 3-D plan's by default)."""
    check = check or _core.check_option
    row = _ROWS[key]
    kind = row["type"]
    if kind == "int":
        return str(int_arg(what, key, value, row["lo"], row["hi"]))
    if kind == "bool":
        return "true" if flag_arg(what, key, value) else "false"
    if kind == "real":
        if not is_number(value):
            raise ArgumentTypeError("{}: {} must be a number ({}), got {!r}".format(what, key, row["allowed"], value))
        text = repr(float(value))
        check(key, text)
        return text
    if kind == "grid" and not isinstance(value, str):
        return "{}x{}".format(*ints_arg(what, key, value, 2, 0, INT_MAX))  # or the table's '2x4'

    if key == "kinds" and isinstance(value, (tuple, list)) and all(isinstance(k, str) for k in value):
        value = ",".join(value)  # (kx, ky, kz) as the table's "KX,KY,KZ"
    if kind == "ratios" and not isinstance(value, str):
        return _ratios_text(what, key, value, check)
    if not isinstance(value, str):
        raise ArgumentTypeError("{}: {} must be a str ({}), got {!r}".format(what, key, row["allowed"], value))
    check(key, value)
    return value


# Mode k of an r2r kind has wavenumber (k + shift) * pi / L (docs/fft.md "Transform kinds").
_R2R_SHIFT = {"dct1": 0.0, "dct2": 0.0, "dct3": 0.5, "dct4": 0.5, "dst1": 1.0, "dst2": 1.0, "dst3": 0.5, "dst4": 0.5}


def _lengths(what, length):
    """A box's (Lz, Ly, Lx): ``length`` (one for every axis, or three), 2*pi when None."""
    return (2 * np.pi,) * 3 if length is None else per_axis_arg(what, "length", length, 3, order="Lz, Ly, Lx")


def _axis_points(kind, n, length):
    """Grid points of an axis of n points of a kind on [0, length] (docs/fft.md)."""
    j = np.arange(n, dtype=np.float64)
    if kind in ("periodic", "dct3"):
        return j * length / n
    if kind == "dct1":
        return j * length / (n - 1)
    if kind == "dst1":
        return (j + 1) * length / (n + 1)
    if kind == "dst3":
        return (j + 1) * length / n
    return (j + 0.5) * length / n  # dct2, dct4, dst2, dst4: cell centres


def _ratios_text(what, key, value, check):
    """Ratios as the table's word. The 3-D plan's (``check`` its parser): a number, or three in
    numpy's axis order (z, y, x) as ``shape`` ("1.5", or "2,1,1.5" for (1.5, 1, 2): x first).
    An N-D plan's: a number, or one per listed axis in the order of ``axes``, as given."""
    values = list(value) if isinstance(value, (tuple, list, np.ndarray)) else [value]
    three_d = check is _core.check_option
    counts_ok = len(values) in (1, 3) if three_d else len(values) >= 1
    if not counts_ok or not all(is_number(v) for v in values):
        what_it_takes = ("a sequence of 3 numbers (z, y, x)" if three_d else
                         "a sequence of numbers (one per listed axis, in the order of axes)")
        raise ArgumentTypeError("{}: {} must be a number or {}, got {!r}".format(what, key, what_it_takes, value))
    text = ",".join(repr(float(v)) for v in (reversed(values) if three_d else values))
    check(key, text)  # >= 1 and finite, as the table says
    return text


def aligned_empty(shape, dtype, alignment=ALIGNMENT):
    """An uninitialized C-contiguous array whose data starts on an ``alignment``-byte boundary.

    FFTW's SIMD codelets run fastest on aligned data; ``Plan.empty_*`` use this.

    Parameters
    ----------
    shape : int or tuple of int
    dtype : numpy dtype
    alignment : int
        Bytes (default ``ALIGNMENT`` = 64).

    Examples
    --------
    >>> a = nbfft.aligned_empty((4, 5), np.complex128)
    >>> a.ctypes.data % 64, a.flags.c_contiguous
    (0, True)
    """
    what = "aligned_empty"
    try:
        dtype = np.dtype(dtype)
    except TypeError:
        raise ArgumentTypeError("{}: dtype {!r} is not a numpy dtype".format(what, dtype)) from None
    shape = (int_arg(what, "shape", shape, 0, EXTENT_MAX),) if np.ndim(shape) == 0 and not isinstance(
        shape, (str, bytes)) else ints_arg(what, "shape", shape, None, 0, EXTENT_MAX)
    alignment = int_arg(what, "alignment", alignment, 1, 2**30)
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    raw = np.empty(nbytes + alignment, dtype=np.uint8)
    start = -raw.ctypes.data % alignment
    return raw[start:start + nbytes].view(dtype).reshape(shape)


def required_thread_level(transport):
    """The MPI thread level a transport needs, as an ``MPI.THREAD_*`` constant.

    Transports on the ``thread`` engine ("thread", "rma", "pairwise:4@thread", ...) make MPI
    calls from nbfft's engine thread while the caller computes: ``MPI.THREAD_MULTIPLE``.
    The others make every MPI call from the thread that calls nbfft: ``MPI.THREAD_SINGLE``
    (call nbfft from the main thread, or initialize MPI with ``MPI.THREAD_FUNNELED`` or
    ``MPI.THREAD_SERIALIZED`` to call it from another). The answer is the C++ library's
    (``nbfft::fft::required_thread_level``, C's ``nbfft_required_thread_level``).

    Parameters
    ----------
    transport : str
        A preset ('blocking', 'native', 'caller', 'thread', 'rma') or
        ALGORITHM[:WINDOW]@ENGINE.

    Raises
    ------
    InvalidArgument
        If ``transport`` is not a transport (the message lists the known names).

    Examples
    --------
    >>> nbfft.required_thread_level("pairwise:4@thread") == MPI.THREAD_MULTIPLE
    True
    >>> nbfft.required_thread_level("blocking") == MPI.THREAD_SINGLE
    True
    """
    if not isinstance(transport, str):
        raise ArgumentTypeError("required_thread_level: transport must be a str, got {!r}".format(transport))
    return _core.required_thread_level(transport)


def thread_level_name(level):
    """The name of an ``MPI.THREAD_*`` constant ('MPI_THREAD_MULTIPLE', ...); other ints as str.

    >>> nbfft.thread_level_name(MPI.THREAD_SINGLE)
    'MPI_THREAD_SINGLE'
    """
    level = int_arg("thread_level_name", "level", level)
    return _THREAD_NAMES.get(level, str(level))


def _thread_problem(transports, what):
    try:
        provided = MPI.Query_thread()
    except MPI.Exception as e:  # pragma: no cover - MPI not initialized
        return Unavailable, "{}: MPI_Query_thread failed: {}".format(what, e)
    for t in transports:
        need = required_thread_level(t)
        if provided < need:
            return Unavailable, (
                "{}: transport '{}' needs {} but MPI was initialized with {}; let mpi4py initialize "
                "MPI with its default (mpi4py.rc.thread_level = 'multiple'), or use a transport on the "
                "caller engine (e.g. 'blocking' or 'caller')".format(
                    what, t, thread_level_name(need), thread_level_name(provided)))
    return None


def transport_presets():
    """The transport presets as ``[(name, expansion, summary), ...]``.

    A preset is a short name for ALGORITHM[:WINDOW]@ENGINE, e.g. ``('thread',
    'pairwise:4@thread', ...)``; ``Plan(transport=...)`` takes either form. Needs no MPI.

    >>> [name for name, _, _ in nbfft.transport_presets()]     # doctest: +SKIP
    ['blocking', 'native', 'caller', 'thread', 'rma']
    """
    return list(_core.transport_presets())


class Box:
    """The part of a global array one rank holds, in numpy index order.

    Attributes
    ----------
    axes : tuple of str
        The grid axis of each array index: ``('z', 'y', 'x')`` for the input (array
        ``[z][y][x]``, x contiguous), ``('y', 'z', 'x')`` for the output ([ky][kz][kx]).
    start, shape : tuple of int
        Global offset and local extent along each of ``axes``.
    global_shape : tuple of int
        The whole array along ``axes`` (for r2c output the x extent is nx//2 + 1).
    perm : tuple of int
        Axis permutation from the numpy.fft order (z, y, x) to this box's order: the local
        block of a global array ``G`` in (z, y, x) order is ``G.transpose(perm)[box.slices]``.
    size : int
        Number of elements (the product of ``shape``; 0 for an empty box).

    Examples
    --------
    >>> b = plan.output_box                        # [ky][kz][kx] on this rank
    >>> mine = G.transpose(b.perm)[b.slices]       # this rank's block of a global G
    """

    __slots__ = ("axes", "start", "shape", "global_shape")

    def __init__(self, axes, start, shape, global_shape):
        what = "Box"
        try:
            self.axes = tuple(axes)
        except TypeError:
            self.axes = ()
        if not all(isinstance(a, str) for a in self.axes) or sorted(self.axes) != ["x", "y", "z"]:
            raise InvalidArgument("{}: axes must be a permutation of 'z', 'y', 'x', got {!r}".format(what, axes))
        self.start = ints_arg(what, "start", start, 3, 0, EXTENT_MAX)
        self.shape = ints_arg(what, "shape", shape, 3, 0, EXTENT_MAX)
        self.global_shape = ints_arg(what, "global_shape", global_shape, 3, 0, EXTENT_MAX)

    @classmethod
    def _from_cpp(cls, box, sizes):
        lo, n, order = box
        dims = list(reversed(order))  # numpy's last index is the fastest in memory
        return cls(("xyz"[d] for d in dims), (lo[d] for d in dims), (n[d] for d in dims),
                   (sizes[d] for d in dims))

    @property
    def slices(self):
        """Slices of the global array (in ``axes`` order) that this rank holds."""
        return tuple(slice(s, s + n) for s, n in zip(self.start, self.shape))

    @property
    def perm(self):
        """Permutation taking numpy's (z, y, x) axes to ``axes``: ``G.transpose(perm)``."""
        return tuple("zyx".index(a) for a in self.axes)

    @property
    def size(self):
        """Number of elements of the box."""
        return int(np.prod(self.shape, dtype=np.int64))

    def __eq__(self, other):
        return isinstance(other, Box) and all(getattr(self, k) == getattr(other, k) for k in self.__slots__)

    def __repr__(self):
        idx = "".join("[{}]".format(a) for a in self.axes)
        sl = ", ".join("{}:{}".format(s.start, s.stop) for s in self.slices)
        return "Box({} [{}] of {}, shape {})".format(idx, sl, self.global_shape, self.shape)


def _user_box(name, box):
    """A box argument of Plan (``in_box=``/``out_box=``) as the core's (lo, n, order) in x, y, z
    terms, or None. ``(start, shape)``: numpy (z, y, x) triples, the block a C-contiguous
    ``[z][y][x]`` array holds (x fastest). A ``Box``: its ``axes`` say the order (the last
    axis fastest in memory), ``start`` and ``shape`` follow ``axes``."""
    if box is None:
        return None
    if isinstance(box, Box):
        axes, start, shape = box.axes, box.start, box.shape
    else:
        try:
            start, shape = box
            axes = ("z", "y", "x")
        except (TypeError, ValueError):
            raise ArgumentTypeError("Plan: {} must be (start, shape), two (z, y, x) triples, or an nbfft.Box; got "
                                    "{!r}".format(name, box)) from None
    # The core checks that the blocks tile the grid; here only that they are ints it can take.
    start = ints_arg("Plan", name + " start", start, 3, -EXTENT_MAX, EXTENT_MAX)
    shape = ints_arg("Plan", name + " shape", shape, 3, -EXTENT_MAX, EXTENT_MAX)
    lo = tuple(start[axes.index(a)] for a in "xyz")
    n = tuple(shape[axes.index(a)] for a in "xyz")
    order = tuple("xyz".index(a) for a in reversed(axes))  # fastest first
    return lo, n, order


def _same_option(key, a, b):
    """Whether two words of an option mean the same value (read back through the table)."""
    return _core.option_value(key, a) == _core.option_value(key, b)


TUNE_LOGGER = logging.getLogger("nbfft.tune")


def _log_tune(event):
    """One event of plan-time tuning as a record of the logger ``nbfft.tune`` (INFO): the
    start (trials expected, budget), each trial (its options and time, with the trials done,
    the time spent and an ETA in the message) and the choice. The event's fields are the
    record's ``tune`` attribute (a dict: kind, trial, planned, step, options, seconds,
    elapsed, budget, eta, from_wisdom, line)."""
    TUNE_LOGGER.info("%s", event["line"], extra={"tune": event})


class TuneReport:
    """What plan-time tuning (``Plan(..., tune='quick')``) tried and chose.

    Attributes
    ----------
    chosen : dict
        The options of the plan made (every key of the option table).
    from_wisdom : bool
        Answered from this process's memory or the ``tune_wisdom`` file, without trials.
    tuning_seconds, best_seconds : float
        Time the tuning took; the chosen configuration's time per forward+backward (0 from
        wisdom).
    budget_exhausted : bool
        The search stopped at ``tune_budget``.
    trials : list of dict
        ``step``, ``seconds`` (the runoff's, when it timed the trial again),
        ``search_seconds`` (the time the search's steps compared) and ``options`` of each
        trial, in the order tried.
    key : str
        What the choice is remembered under (grid, ranks, the options it depends on, host).

    ``str(report)`` is the table C++ prints.
    """

    def __init__(self, d):
        self.chosen = d["chosen"]
        self.from_wisdom = d["from_wisdom"]
        self.tuning_seconds = d["tuning_seconds"]
        self.best_seconds = d["best_seconds"]
        self.budget_exhausted = d["budget_exhausted"]
        self.trials = d["trials"]
        self.key = d["key"]
        self._text = d["text"]

    def __str__(self):
        return self._text

    def __repr__(self):
        return "<nbfft.TuneReport {} trials, chosen {}>".format(
            len(self.trials), " ".join("{}={}".format(k, self.chosen[k]) for k in ("proc_grid", "col_transport")))


class Options:
    """The resolved options of a plan (``plan.options``), read only.

    One attribute per key of nbfft's option table (``nbfft.option_keys()``): ints and bools
    as such, the rest as the table's words. ``proc_grid`` is the grid in use ('2x2'), also
    as the ints ``m1`` and ``m2``. ``str()`` prints ``key=value`` pairs like the C++
    ``Options``; ``as_dict()`` gives them as a dict.

    Examples
    --------
    >>> plan.options.effort, plan.options.m1 * plan.options.m2 == comm.size
    ('estimate', True)
    """

    def __init__(self, fields, text):
        self.__dict__.update(fields)
        self._text = text

    @property
    def m1(self):
        """Ranks along the ROW exchange (they split y of the input)."""
        return int(self.proc_grid.split("x")[0]) if "x" in self.proc_grid else 0

    @property
    def m2(self):
        """Ranks along the COL exchange (they split z of the input)."""
        return int(self.proc_grid.split("x")[1]) if "x" in self.proc_grid else 0

    def as_dict(self):
        """``{key: value}`` of every option."""
        return {k: v for k, v in self.__dict__.items() if not k.startswith("_")}

    def __str__(self):
        return self._text

    def __repr__(self):
        return "nbfft.Options({})".format(", ".join("{}={!r}".format(k, v) for k, v in self.as_dict().items()))


def _extent(a):
    """Bytes from a's first element to the end of the memory block it lives in."""
    base = a
    while isinstance(base.base, np.ndarray):
        base = base.base
    if base is not a and base.flags.c_contiguous:
        end = base.ctypes.data + base.nbytes
        return max(a.nbytes, end - a.ctypes.data)
    return a.nbytes


def _axes_str(axes):
    return "".join("[{}]".format(a) for a in axes)



def _on_device(x):
    """Whether x is a GPU array (CuPy, PyTorch on CUDA, Numba, ...): it exposes
    ``__cuda_array_interface__`` and is no numpy array."""
    return x is not None and not isinstance(x, np.ndarray) and hasattr(x, "__cuda_array_interface__")


def _address(x):
    """The device address of GPU array x (its ``__cuda_array_interface__`` data pointer)."""
    return x.__cuda_array_interface__["data"][0]


def _library(x):
    """The top-level module of x's type: "cupy", "torch", "numba", ..."""
    return type(x).__module__.split(".")[0]


def _device_array_problem(what, name, x, shape, dtype, writable):
    """(exception class, message) when GPU array x does not fit, else None."""
    if not _on_device(x):
        return ArgumentTypeError, "{}: {} must be a GPU array like the other one (got {})".format(
            what, name, type(x).__name__)
    cai = x.__cuda_array_interface__
    got = np.dtype(cai["typestr"])
    if got != dtype:
        return ArgumentTypeError, "{}: {} has dtype {}, the plan needs {}".format(what, name, got, dtype)
    if tuple(cai["shape"]) != tuple(shape):
        return InvalidArgument, "{}: {} has shape {}, this rank's box needs {}".format(
            what, name, tuple(cai["shape"]), tuple(shape))
    strides = cai.get("strides")
    if strides is not None:
        want, step = [], dtype.itemsize
        for n in reversed(shape):
            want.append(step)
            step *= n
        if any(n > 1 and s != w for n, s, w in zip(shape, strides, reversed(want))):
            return InvalidArgument, "{}: {} is not C-contiguous (strides {})".format(what, name, tuple(strides))
    if writable and cai["data"][1]:
        return InvalidArgument, "{}: {} is read-only".format(what, name)
    return None


def _device_empty(what, like, shape, dtype):
    """A new GPU array of ``like``'s library, or (None, problem)."""
    lib = _library(like)
    try:
        if lib == "cupy":
            import cupy
            return cupy.empty(shape, dtype=dtype), None
        if lib == "torch":
            import torch
            names = {"float64": torch.float64, "float32": torch.float32, "complex128": torch.complex128,
                     "complex64": torch.complex64}
            return torch.empty(shape, dtype=names[dtype.name], device=like.device), None
    except Exception as e:  # noqa: BLE001 - any failure of the library to allocate is the user's problem to see
        return None, (Unavailable, "{}: could not allocate out with {}: {}".format(what, lib, e))
    return None, (ArgumentTypeError, "{}: pass out= for a GPU array of type {} (nbfft allocates CuPy and "
                  "PyTorch arrays only)".format(what, type(like).__name__))


def _host_copy(what, x):
    """A numpy copy of GPU array x with its own library's call (CuPy's ``get``, PyTorch's
    ``cpu``, Numba's ``copy_to_host``), or (None, problem)."""
    try:
        if _library(x) == "torch":
            return x.detach().cpu().numpy(), None
        for call in ("get", "copy_to_host"):
            if callable(getattr(x, call, None)):
                h = getattr(x, call)()
                if isinstance(h, np.ndarray):
                    return h, None
    except Exception as e:  # noqa: BLE001 - the library's own failure, shown to the user
        return None, (Unavailable, "{}: could not copy the GPU array to the host: {}".format(what, e))
    return None, (ArgumentTypeError, "{}: cannot copy a GPU array of type {} to the host (nbfft reads CuPy, "
                  "PyTorch and Numba arrays)".format(what, type(x).__name__))


def _device_fill(what, out, h):
    """Copies numpy array h into GPU array out with its own library's call; a problem or None."""
    try:
        if _library(out) == "torch":
            import torch
            out.copy_(torch.from_numpy(h))
            return None
        for call in ("set", "copy_to_device"):
            if callable(getattr(out, call, None)):
                getattr(out, call)(h)
                return None
    except Exception as e:  # noqa: BLE001
        return Unavailable, "{}: could not copy the block into the GPU array out: {}".format(what, e)
    return ArgumentTypeError, "{}: cannot write a GPU array of type {} from the host (nbfft writes CuPy, " \
        "PyTorch and Numba arrays)".format(what, type(out).__name__)


def _array_problem(what, name, a, shape, dtype, writable, space, axes=None):
    """None, or (exception class, message) if ``a`` cannot be used without a copy.

    Every message names what was expected and what was given. ``axes`` (the box's axis
    names, in index order) lets a shape message say which index is which.
    """
    if not isinstance(a, np.ndarray):
        return ArgumentTypeError, "{}: {} must be a numpy.ndarray, got {}".format(what, name, type(a).__name__)
    if a.dtype != dtype:
        return ArgumentTypeError, (
            "{}: expected {} of dtype {} (the plan's {}), got {} (nbfft never copies silently; convert with "
            "{}.astype(np.{}) and use the result)".format(what, name, dtype, space, a.dtype, name, dtype.name))
    if a.shape != shape:
        idx = " " + _axes_str(axes) if axes else ""
        msg = "{}: expected {} of shape {}{} (this rank's {} box), got {}".format(
            what, name, tuple(shape), idx, space, a.shape)
        if axes and len(a.shape) == len(shape) and sorted(a.shape) == sorted(shape):
            msg += "; the same extents in another order: nbfft's {} is indexed {}".format(space, _axes_str(axes))
        return InvalidArgument, msg
    if not a.flags.c_contiguous:
        kind = "Fortran-ordered (order='F')" if a.flags.f_contiguous else "a strided view"
        return InvalidArgument, (
            "{}: expected {} C-contiguous (the last index fastest), got {} (strides {}); nbfft "
            "transforms in place of the memory it is given, so pass np.ascontiguousarray({}) and use "
            "that".format(what, name, kind, a.strides, name))
    if writable and not a.flags.writeable:
        return InvalidArgument, "{}: expected {} writable (it receives the result), got a read-only array".format(
            what, name)
    return None


class Plan:
    """A distributed 3D FFT of a global ``shape`` array over an MPI communicator.

    Parameters
    ----------
    comm : mpi4py.MPI.Intracomm
        The ranks that share the transform. Construction and every transform are
        collective over it.
    shape : tuple of 3 ints
        Global shape of the input array in numpy order ``(nz, ny, nx)``; the last axis is
        contiguous in memory and is the real-to-complex axis (as in ``numpy.fft.rfftn``).
        With ``padding=1.5`` (or ``(pz, py, px)``, in ``shape``'s order as mpi4py-fft's; each
        >= 1; 3/2-rule dealiasing, docs/fft.md "Padding") it is the spectrum's grid:
        ``output_shape`` keeps its modes, while the input lives on the padded grid
        ``plan.shape`` (floor(n * p) per axis); backward zero-pads, forward truncates. A
        string is the option table's word, x first ("1.5,1,2" is px=1.5, py=1, pz=2).
    dtype : numpy dtype
        Input dtype: ``float64``/``float32`` give a real-to-complex transform (output
        ``complex128``/``complex64``), ``complex128``/``complex64`` complex-to-complex.
    transform : {None, 'r2c', 'c2c'}
        None infers it from ``dtype``; 'c2c' with a real dtype uses the complex dtype of
        that precision.
    grid : (m1, m2) or None
        Process grid: m1 ranks split y of the input (and x of the output), m2 split z (and
        y of the output); m1 * m2 = comm.size. ``(1, P)`` are slabs. None lets nbfft choose
        (slabs when they fit, else the squarest grid); a 0 is derived from the other.
    transport : str
        How both exchanges move data: a preset ('blocking', 'native', 'caller', 'thread',
        'rma') or ALGORITHM[:WINDOW]@ENGINE ('pairwise:4@thread'). See
        ``nbfft.transport_presets()``; thread-engine transports need MPI_THREAD_MULTIPLE.
    row_transport, col_transport : str or None
        Override ``transport`` for the ROW (y) or COL (z) exchange.
    norm : {'backward', 'forward', 'ortho', None}
        numpy.fft's scaling conventions; None scales neither direction (FFTW's).
    in_box, out_box : (start, shape) or Box, optional
        Your own layout (docs/fft.md "Your own layout: boxes in and out"): this rank's block
        of the input and of the spectrum, as numpy ``(z, y, x)`` triples ``start`` and
        ``shape`` of a C-contiguous ``[z][y][x]`` array (x fastest in memory), or an
        ``nbfft.Box`` whose ``axes`` give another memory order (``Box(('y', 'z', 'x'), start,
        shape, global_shape)``). The spectrum's x extent is ``nx//2 + 1`` for r2c. Any blocks
        that tile the grid, empty ones (a 0 in ``shape``) included, different in and out;
        None keeps that side's own pencil. Transforms then reshape to and from nbfft's
        pencils; blocks equal to them cost nothing. Blocks that overlap, leave gaps or fall
        outside the grid raise ``InvalidArgument`` on every rank, naming the first conflict.
    **options
        Every other option of nbfft's table by its key (``nbfft.option_rows()`` lists them
        with their values and defaults; docs/fft.md "Options"), e.g. ``effort`` (FFTW
        planner effort: 'estimate', 'measure', 'patient', 'exhaustive'),
        ``fields_in_flight`` (fields ``forward_many``/``backward_many`` keep in flight, a
        workspace each: 2 overlaps each field's exchange with its neighbours' FFTs),
        ``lean_workspace`` (a workspace of about the local data instead of 1.5-3x; every
        transform must then run in place, ``empty_inplace``; ``plan.lean_workspace`` says
        whether the plan could make it), ``pipeline_row``, ``allow_empty``,
        ``progress_chunks``, ``col_chunk_planes``, ``col_depth``, ``col_kernel``,
        ``kinds`` (the forward transform of x, y, z: 'periodic' or an r2r kind 'dct1'..'dct4',
        'dst1'..'dst4' / FFTW's 'REDFT10' etc., as 'periodic,periodic,dst2' or a tuple
        ``(kx, ky, kz)`` in x, y, z order; a real dtype with every axis r2r is real in and
        real out, ``out_dtype`` float; a real dtype with an r2r x needs every axis r2r),
        ``output_order`` ('natural': the spectrum ``[kz][ky][kx]``, numpy's order, at the cost
        of one local copy per transform; 'transposed', the default: ``[ky][kz][kx]``), and the
        tuner's: ``tune`` ('quick', 'thorough', 'exhaustive': time candidate grids,
        transports and chunkings first and make the plan with the fastest; ``tune_report``
        says what was tried), ``tune_budget`` (seconds), ``tune_fields``, ``tune_wisdom``
        (a file remembering choices across runs), ``tune_log`` (lines on rank 0's stderr);
        each trial is also a record of the logger "nbfft.tune".
        ``precision`` may be given too and must then match ``dtype``; ``proc_grid`` ('2x4'
        or (2, 4)) is ``grid`` by the table's name (both given must match). Ints, bools and
        numbers (``tune_budget``) are checked as such, the rest are the table's words.

    Attributes
    ----------
    comm : mpi4py.MPI.Intracomm
        The communicator given.
    input_box, output_box : Box
        This rank's block of the input (``[z][y][x]``) and of the output (``[ky][kz][kx]``).
    in_dtype, out_dtype : numpy.dtype
        Input and output dtypes (for r2c: float64 -> complex128, float32 -> complex64).

    Raises
    ------
    TypeError (nbfft.ArgumentTypeError)
        A value of the wrong type (a float shape, a complex dtype for 'r2c', ...).
    ValueError (nbfft.InvalidArgument)
        A value out of range or unknown (a grid whose product is not comm.size, an unknown
        transport or option word); ``nbfft.RanksDisagree`` if ranks pass different values.
    nbfft.Unavailable
        A thread-engine transport while MPI was initialized below MPI_THREAD_MULTIPLE.

    Every error is raised on every rank (the ranks agree before planning), with the
    message of the lowest failing rank and "[rank r]".

    Notes
    -----
    The input of ``forward`` is indexed ``[z][y][x]`` (``input_box``); its output is
    indexed ``[ky][kz][kx]`` (``output_box``), FFTW-MPI's transposed-out order, which is
    what makes the transform fast. ``gather`` / ``scatter`` convert to and from the
    numpy.fft order. Call ``close()`` (or use ``with``) before MPI is finalized; an atexit
    handler closes what is left. Construction and every transform are collective: call
    them on every rank in the same order.

    Examples
    --------
    Run with ``mpirun -n 2 python script.py``::

        from mpi4py import MPI
        import numpy as np
        import nbfft

        with nbfft.Plan(MPI.COMM_WORLD, (32, 32, 32), dtype=np.float64) as plan:
            u = plan.empty_input()                  # this rank's [z][y][x] block
            z, y, x = np.meshgrid(*(np.arange(s, s + n) for s, n in
                                    zip(plan.input_box.start, plan.input_box.shape)), indexing="ij")
            u[...] = np.sin(2 * np.pi * x / 32)
            U = plan.forward(u)                     # this rank's [ky][kz][kx] block
            v = plan.backward(U)                    # == u
            G = plan.gather(U)                      # numpy.fft.rfftn order on rank 0
    """

    def __init__(self, comm, shape, dtype=np.float64, transform=None, grid=None, transport="blocking",
                 row_transport=None, col_transport=None, norm="backward", in_box=None, out_box=None, **options):
        self._p = None
        problem = comm_problem(comm, "Plan")
        if problem is not None and not isinstance(comm, MPI.Intracomm):
            raise problem[0](problem[1])  # nothing to agree over
        items = []
        user = (None, None)
        try:
            problem = problem or self._check_args(comm, shape, dtype, transform, grid, transport, row_transport,
                                                  col_transport, norm)
            if problem is None:
                user = (_user_box("in_box", in_box), _user_box("out_box", out_box))
            if problem is None:
                items = [("precision", self._precision), ("transform", self._transform), ("norm", self._norm),
                         ("proc_grid", "{}x{}".format(*self._grid)), ("row_transport", self._row),
                         ("col_transport", self._col)]
                for key, value in options.items():
                    if key not in _ROWS or key in _NAMED or _ROWS[key]["scope"] == "N-D":
                        why = " (N-D plans only: nbfft.NdPlan)" if key in _ROWS and key not in _NAMED else ""
                        raise ArgumentTypeError("Plan: unexpected keyword argument {!r}{} (options: {})".format(
                            key, why, ", ".join(k for k, r in _ROWS.items() if r["scope"] != "N-D")))
                    text = _option_text("Plan", key, value)
                    if key == "proc_grid" and grid is None:  # the table's spelling of grid
                        items[3] = (key, text)
                        continue
                    if key in ("precision", "proc_grid"):  # given by dtype and grid too: must match
                        fixed = dict(items)[key]
                        if not _same_option(key, text, fixed):
                            raise InvalidArgument("Plan: {}={!r} contradicts {} ({})".format(
                                key, value, "dtype" if key == "precision" else "grid", fixed))
                        continue
                    items.append((key, text))
                for key, text in items[:6]:  # the named parameters' words, in the table's range
                    _core.check_option(key, text)
        except Error as e:
            problem = (type(e) if type(e) in (InvalidArgument, ArgumentTypeError, Unavailable) else InvalidArgument,
                       e.message)
        agree(lambda k, m: _core.agree(handle_of(comm), k, m), problem)
        nz, ny, nx = self._shape
        tuning = dict(items).get("tune", "none") != "none"
        log = _log_tune if tuning and TUNE_LOGGER.isEnabledFor(logging.INFO) else None
        self._p = _core.Plan(handle_of(comm), (nx, ny, nz), items, log, user[0], user[1],
                             in_box is not None or out_box is not None)
        self._key = _lifetime.register(self)
        self.comm = comm
        self._rank, self._size = comm.Get_rank(), comm.Get_size()
        # The resolved kinds (x, y, z): an r2r x keeps nx points; every axis r2r on real data
        # keeps the spectrum real.
        self._kinds = tuple(self._p.options["kinds"].split(","))
        if self._transform == "r2c" and "periodic" not in self._kinds:
            self.out_dtype = _REAL[self._precision]
        xc = nx // 2 + 1 if self._transform == "r2c" and self._kinds[0] == "periodic" else nx
        # Padded plans: the input lives on the physical grid, the output keeps shape's modes.
        self._spectral = self._shape
        mx, my, mz = self._p.physical_size
        self._shape = (mz, my, mx)
        self.input_box = Box._from_cpp(self._p.in_box, (mx, my, mz))
        self.output_box = Box._from_cpp(self._p.out_box, (xc, ny, nz))
        self._xc = xc

    def _check_args(self, comm, shape, dtype, transform, grid, transport, row, col, norm):
        self._shape = ints_arg("Plan", "shape", shape, 3, 1, EXTENT_MAX)  # (nz, ny, nx); 4.5 is an error, not 4
        try:
            dt = np.dtype(dtype)
        except TypeError:
            return ArgumentTypeError, "Plan: dtype {!r} is not a numpy dtype".format(dtype)
        if dt not in _DTYPES:
            return ArgumentTypeError, "Plan: dtype must be float64, float32, complex128 or complex64, got {}".format(dt)
        precision, kind = _DTYPES[dt]
        if transform is None:
            transform = kind
        if transform not in ("r2c", "c2c"):
            return InvalidArgument, "Plan: transform must be 'r2c', 'c2c' or None, got {!r}".format(transform)
        if transform == "r2c" and kind == "c2c":
            return ArgumentTypeError, "Plan: an r2c transform needs a real dtype (float64 or float32), got {}".format(dt)
        self._precision, self._transform = precision, transform
        self.in_dtype = _REAL[precision] if transform == "r2c" else _COMPLEX[precision]
        self.out_dtype = _COMPLEX[precision]
        self._grid = (0, 0) if grid is None else ints_arg("Plan", "grid", grid, 2, 0, INT_MAX)  # 0: choose
        if not (norm is None or isinstance(norm, str)) or norm not in _NORMS:  # a list is unhashable
            return InvalidArgument, "Plan: norm must be 'backward', 'forward', 'ortho' or None, got {!r}".format(norm)
        self._norm = _NORMS[norm]
        for name, t in (("transport", transport), ("row_transport", row), ("col_transport", col)):
            if not (isinstance(t, str) or (t is None and name != "transport")):
                return ArgumentTypeError, "Plan: {} must be a str, got {!r}".format(name, t)
        self._row = _core.parse_transport(row if row is not None else transport)[0]
        self._col = _core.parse_transport(col if col is not None else transport)[0]
        return _thread_problem([self._row, self._col], "Plan")

    # -- lifetime ------------------------------------------------------------------------
    def close(self):
        """Frees the plan's communicators and buffers. Collective; a second call does nothing.

        Any later use of the plan raises ``nbfft.InvalidState``. ``with Plan(...) as plan:``
        closes it at the end of the block.
        """
        if self._p is not None:
            self._p.close()
            self._p = None
            _lifetime.unregister(self._key)

    @property
    def closed(self):
        """Whether ``close()`` was called."""
        return self._p is None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _plan(self):
        if self._p is None:
            raise InvalidState("Plan: used after close()")
        return self._p

    # -- description ---------------------------------------------------------------------
    @property
    def shape(self):
        """Global input shape in numpy order ``(nz, ny, nx)``: as given, or for a padded plan
        its physical grid (floor(n * padding) per axis), the spectrum keeping the modes of the
        shape given."""
        self._plan()
        return self._shape

    @property
    def output_shape(self):
        """Global output shape in numpy.fft order: ``(nz, ny, nx//2 + 1)`` for r2c with a
        periodic x (as ``numpy.fft.rfftn``), ``(nz, ny, nx)`` for c2c or an r2r x; a padded
        plan's spectrum keeps the modes of the shape given."""
        self._plan()
        return (self._spectral[0], self._spectral[1], self._xc)

    @property
    def transform(self):
        """'r2c' (real input, complex output of x extent nx//2 + 1) or 'c2c'."""
        self._plan()
        return self._transform

    @property
    def kinds(self):
        """The forward transform of each axis in x, y, z order ('periodic', 'dct2', ...)."""
        self._plan()
        return self._kinds

    @property
    def grid(self):
        """The process grid ``(m1, m2)`` in use: m1 ranks split y of the input, m2 split z;
        ``m1 * m2 == comm.size``."""
        p = self._plan()
        return (p.m1, p.m2)

    @property
    def options(self):
        """The resolved options (:class:`Options`): every key of the option table, the grid
        in use included, as the plan runs them."""
        p = self._plan()
        return Options(p.options, p.options_str)

    @property
    def tune_report(self):
        """What plan-time tuning tried and chose (:class:`TuneReport`), or None when the plan
        was made as asked (``tune='none'``, the default)."""
        r = self._plan().tune_report
        return None if r is None else TuneReport(r)

    @property
    def workspace_bytes(self):
        """Bytes of buffers the plan holds on this rank besides the user's arrays (exchange
        buffers, one workspace per field in flight)."""
        return self._plan().workspace_bytes

    @property
    def lean_workspace(self):
        """Whether the plan got the lean workspace it was asked for (``lean_workspace=True``):
        about the local data instead of 1.5-3x, and then every transform must run in place
        (``empty_inplace``). False on one rank and on grids the lean layout cannot serve."""
        return self._plan().lean_workspace

    @property
    def inplace_bytes(self):
        """Bytes an in-place buffer needs on this rank: the larger of the input and output
        blocks (``empty_inplace`` allocates this)."""
        return self._plan().inplace_bytes

    def __repr__(self):
        if self._p is None:
            return "<nbfft.Plan (closed)>"
        return "<nbfft.Plan {} {} {} on {} ranks, grid {}x{}, transport {}/{}, norm {}>".format(
            "x".join(map(str, self._shape)), self._transform, self.in_dtype, self._size, *self.grid,
            self._row, self._col, self._norm)

    def __str__(self):
        if self._p is None:
            return repr(self)
        return "{}\n  input  {} {}\n  output {} {}\n  options {}".format(
            repr(self), self.input_box, self.in_dtype, self.output_box, self.out_dtype, self.options)

    # -- arrays --------------------------------------------------------------------------
    def empty_input(self):
        """An aligned, uninitialized array for this rank's input block: shape
        ``input_box.shape`` (``[z][y][x]``), dtype ``in_dtype``."""
        self._plan()
        return aligned_empty(self.input_box.shape, self.in_dtype)

    def empty_output(self):
        """An aligned, uninitialized array for this rank's output block: shape
        ``output_box.shape`` (``[ky][kz][kx]``), dtype ``out_dtype``."""
        self._plan()
        return aligned_empty(self.output_box.shape, self.out_dtype)

    def empty_inplace(self):
        """Two views of one aligned buffer of ``inplace_bytes``: ``(a, A)``.

        ``a`` has the input shape and dtype, ``A`` the output's; ``plan.forward(a, out=A)``
        and ``plan.backward(A, out=a)`` then run in place (needed with the lean workspace).

        >>> a, A = plan.empty_inplace()
        >>> a[...] = 1.0
        >>> _ = plan.forward(a, out=A)      # A now holds the spectrum; a is overwritten
        """
        raw = aligned_empty((self._plan().inplace_bytes,), np.uint8)
        a = raw[:self.input_box.size * self.in_dtype.itemsize].view(self.in_dtype).reshape(self.input_box.shape)
        A = raw[:self.output_box.size * self.out_dtype.itemsize].view(self.out_dtype).reshape(self.output_box.shape)
        return a, A

    # -- transforms ----------------------------------------------------------------------
    def _agree(self, problem):
        self._plan()  # a closed plan: InvalidState (close is collective, so on every rank)
        if self._size == 1:
            if problem is not None:
                raise problem[0](problem[1] + " [rank 0]")  # as the agreement would say
            return
        agree(self._plan().agree, problem)

    def _sides(self, forward):
        """(box read, box written, dtype read, dtype written) of a transform's direction."""
        if forward:
            return self.input_box, self.output_box, self.in_dtype, self.out_dtype
        return self.output_box, self.input_box, self.out_dtype, self.in_dtype

    def _host_plan_problem(self, what):
        """The problem of a GPU array given to a plan made for host arrays, else None."""
        if self.options.as_dict().get("device", "host") != "host":
            return None
        return (ArgumentTypeError, "{}: a GPU array (__cuda_array_interface__) given to a plan made with "
                "device='host'; make the plan with device='cuda' (docs/gpu.md)".format(what))

    def _pair(self, what, a, out, forward):
        """Validates one (input, output) pair; returns (problem, out, a_bytes, out_bytes)."""
        ib, ob, idt, odt = self._sides(forward)
        ispace, ospace = ("input", "output") if forward else ("output", "input")
        problem = _array_problem(what, "a", a, ib.shape, idt, False, ispace, ib.axes)
        if problem is None and out is not None:
            problem = _array_problem(what, "out", out, ob.shape, odt, True, ospace, ob.axes)
        if problem is not None:
            return problem, out, 0, 0
        if out is None:
            out = aligned_empty(ob.shape, odt)
        # In place (same first byte): the whole memory block counts, not just each view's
        # bytes. may_share_memory is a cheap bounds test; ndarray.ctypes costs ~4 us a call.
        if a.size and out.size and np.may_share_memory(a, out) and a.ctypes.data == out.ctypes.data:
            n = min(_extent(a), _extent(out))
            return None, out, n, n
        return None, out, a.nbytes, out.nbytes

    def forward(self, a, out=None):
        """Forward transform of this rank's input block ``a``; returns ``out``.

        ``a`` must be C-contiguous with ``input_box.shape`` and ``in_dtype``; ``out``
        (allocated when None) likewise for the output. Nothing is copied: a wrong dtype
        is a TypeError, a wrong shape or a non-contiguous array a ValueError, on every
        rank. ``out`` may share ``a``'s memory (``empty_inplace``, or ``out=a`` for c2c).
        Out of place, ``a`` is not modified. Collective.

        Parameters
        ----------
        a : numpy.ndarray
            This rank's input block, ``input_box.shape``, ``in_dtype``.
        out : numpy.ndarray, optional
            This rank's output block, ``output_box.shape``, ``out_dtype``, writable.

        Returns
        -------
        numpy.ndarray
            ``out``: this rank's ``[ky][kz][kx]`` block of ``numpy.fft.rfftn`` (or ``fftn``)
            of the global input, scaled by ``norm``.

        Raises
        ------
        TypeError (nbfft.ArgumentTypeError), ValueError (nbfft.InvalidArgument)
            On every rank when any rank's arrays are wrong; ``nbfft.InvalidState`` after
            ``close()``.

        Examples
        --------
        >>> U = plan.forward(u)                  # allocates the output
        >>> plan.forward(u, out=U) is U
        True
        """
        if _on_device(a) or _on_device(out):
            return self._device_transform("forward", a, out, True)
        problem, out, na, no = self._pair("forward", a, out, True)
        self._agree(problem)
        self._plan().forward(a, na, out, no)
        return out

    def backward(self, a, out=None):
        """Backward transform of this rank's output-box block ``a``; returns ``out``.

        The inverse of ``forward`` up to ``norm``: ``a`` has ``output_box.shape`` and
        ``out_dtype``, ``out`` (allocated when None) ``input_box.shape`` and ``in_dtype``.
        Same rules and errors as ``forward``; ``a`` is not modified when out of place (for
        r2c too). Collective.

        >>> v = plan.backward(plan.forward(u))   # == u with norm='backward'
        """
        if _on_device(a) or _on_device(out):
            return self._device_transform("backward", a, out, False)
        problem, out, na, no = self._pair("backward", a, out, False)
        self._agree(problem)
        self._plan().backward(a, na, out, no)
        return out

    def _device_pairs(self, what, fields, outs, forward):
        """Checks GPU arrays (CuPy, PyTorch, anything with ``__cuda_array_interface__``) for a
        zero-copy transform on a plan made with ``device='cuda'`` (docs/gpu.md), on every
        rank together; ``outs`` None: new arrays of the inputs' library. Returns (outs,
        input bytes, output bytes) of one field."""
        ib, ob, idt, odt = self._sides(forward)
        problem = self._host_plan_problem(what)
        if problem is None and outs is not None and len(outs) != len(fields):
            problem = InvalidArgument, "{}: {} input fields but {} output fields".format(what, len(fields), len(outs))
        if problem is None and outs is None:
            outs = []
            for a in fields:
                o, problem = _device_empty(what, a, ob.shape, odt)
                if problem is not None:
                    break
                outs.append(o)
        for k in range(len(fields) if problem is None else 0):
            field = "{} (field {})".format(what, k) if len(fields) > 1 else what
            problem = (_device_array_problem(field, "a", fields[k], ib.shape, idt, False) or
                       _device_array_problem(field, "out", outs[k], ob.shape, odt, True))
            if problem is not None:
                break
        self._agree(problem)
        return outs, ib.size * idt.itemsize, ob.size * odt.itemsize

    def _device_many(self, what, fields, out, forward):
        """forward_many / backward_many of lists of GPU arrays."""
        if out is not None and not isinstance(out, (list, tuple)):
            self._agree((ArgumentTypeError, "{}: out must be a list of GPU arrays, got {}".format(
                what, type(out).__name__)))
        outs, na, no = self._device_pairs(what, fields, None if out is None else list(out), forward)
        self._plan().transform_many_ptr(forward, [_address(f) for f in fields], na, [_address(o) for o in outs], no)
        return outs

    def _device_transform(self, what, a, out, forward):
        """forward / backward of one GPU array."""
        outs, na, no = self._device_pairs(what, [a], None if out is None else [out], forward)
        self._plan().transform_ptr(forward, _address(a), na, _address(outs[0]), no)
        return outs[0]

    def forward_start(self, a, out=None):
        """Starts ``forward(a, out)`` and returns once its exchange is in flight (split phase).

        Collective (every rank starts in the same order). The returned ``nbfft.Request``'s
        ``wait()`` finishes it (local for forward); then ``out`` (allocated when None; also
        the request's ``out``) holds the spectrum block. In between, do your own work: with
        a ``...@thread`` transport the exchange moves meanwhile; with the caller engine call
        the request's ``progress()`` now and then. Any number may be in flight (the plan
        makes a work area for each one more in flight at once, up to 64). Do not write
        ``a`` or read ``out`` before the wait. Raises as ``forward``. GPU arrays (a plan
        made with ``device='cuda'``) start on the device; there every wait is collective
        (docs/gpu.md).

        Examples
        --------
        >>> r = plan.forward_start(u); other_work(); r.wait(); U = r.out
        """
        return self._start("Plan.forward_start", a, out, True)

    def backward_start(self, a, out=None):
        """Starts ``backward(a, out)``; as ``forward_start``, but the wait runs the second
        exchange: every rank waits its backward transforms in the same order (collective).

        >>> r = plan.backward_start(U, u); other_work(); r.wait()
        """
        return self._start("Plan.backward_start", a, out, False)

    def _start(self, what, a, out, forward):
        if _on_device(a) or _on_device(out):
            outs, na, no = self._device_pairs(what, [a], None if out is None else [out], forward)
            out = outs[0]
            r = self._plan().start_ptr(forward, _address(a), na, _address(out), no)
            return Request(r, what, self, (a, out), out=out)
        problem, out, na, no = self._pair(what, a, out, forward)
        self._agree(problem)
        return Request(self._plan().start(forward, a, na, out, no), what, self, (a, out), out=out)

    def _device_stacked(self, what, fields, out, forward):
        """forward_many / backward_many of one stacked GPU array ``(nv,) + box shape``."""
        ib, ob, idt, odt = self._sides(forward)
        shape = tuple(fields.__cuda_array_interface__["shape"])
        nv = shape[0] if len(shape) == 4 else 0
        problem = self._host_plan_problem(what)
        if problem is None:
            problem = _device_array_problem(what, "fields", fields, (nv,) + ib.shape, idt, False)
        if problem is None and out is None:
            out, problem = _device_empty(what, fields, (nv,) + ob.shape, odt)
        if problem is None:
            problem = _device_array_problem(what, "out", out, (nv,) + ob.shape, odt, True)
        self._agree(problem)
        na, no = ib.size * idt.itemsize, ob.size * odt.itemsize
        base, obase = _address(fields), _address(out)
        self._plan().transform_many_ptr(forward, [base + k * na for k in range(nv)], na,
                                        [obase + k * no for k in range(nv)], no)
        return out

    def _many(self, what, fields, out, forward):
        if isinstance(fields, (list, tuple)) and any(_on_device(f) for f in fields):
            return self._device_many(what, list(fields), out, forward)
        if _on_device(fields):
            return self._device_stacked(what, fields, out, forward)
        stacked = isinstance(fields, np.ndarray)
        ib, ob, idt, odt = self._sides(forward)
        problem = None
        ins, outs = [], []
        if stacked:
            problem = _array_problem(what, "fields", fields, (len(fields),) + ib.shape if fields.ndim == 4 else
                                     ("nv",) + ib.shape, idt, False, "stacked input")
            ins = list(fields) if problem is None else []
        elif isinstance(fields, (list, tuple)):
            ins = list(fields)
        else:
            problem = ArgumentTypeError, "{}: fields must be a list of arrays or a stacked array, got {}".format(
                what, type(fields).__name__)
        nv = len(ins)
        if problem is None:
            if out is None:
                out_arr = aligned_empty((nv,) + ob.shape, odt)
                outs = list(out_arr) if stacked else [out_arr[k] for k in range(nv)]
                out = out_arr if stacked else outs
            elif isinstance(out, np.ndarray):
                problem = _array_problem(what, "out", out, (nv,) + ob.shape, odt, True, "stacked output")
                outs = list(out) if problem is None else []
            elif isinstance(out, (list, tuple)):
                outs = list(out)
                if len(outs) != nv:
                    problem = InvalidArgument, "{}: {} input fields but {} output fields".format(what, nv, len(outs))
            else:
                problem = ArgumentTypeError, "{}: out must be a list of arrays or a stacked array, got {}".format(
                    what, type(out).__name__)
        na = no = None
        for k in range(nv if problem is None else 0):
            problem, _, a_b, o_b = self._pair("{} (field {})".format(what, k), ins[k], outs[k], forward)
            if problem is not None:
                break
            na = a_b if na is None else min(na, a_b)
            no = o_b if no is None else min(no, o_b)
        self._agree(problem)
        p = self._plan()
        (p.forward_many if forward else p.backward_many)(ins, na or 0, outs, no or 0)
        return out

    def forward_many(self, fields, out=None):
        """Forward transforms of several fields in one pipelined call.

        ``fields`` is a list of input arrays or one stacked array of shape
        ``(nv,) + input_box.shape``; ``out`` likewise (allocated, stacked when ``fields``
        is, when None). Every rank must pass the same number of fields. Results equal
        ``nv`` calls of ``forward``; each field's exchange overlaps its neighbours' FFTs
        (with ``fields_in_flight=2``, the default). Fields must not share memory with each
        other. Returns ``out``. Errors as ``forward`` (naming the field), on every rank.

        >>> U = plan.forward_many(np.stack([u, 2 * u]))     # shape (2,) + output_box.shape
        """
        return self._many("forward_many", fields, out, True)

    def backward_many(self, fields, out=None):
        """Backward transforms of several fields in one pipelined call.

        ``fields``: a list of output-box arrays or one stacked array ``(nv,) +
        output_box.shape``; ``out`` likewise for the input box. Otherwise as
        ``forward_many``.
        """
        return self._many("backward_many", fields, out, False)

    # -- spectral helpers ----------------------------------------------------------------
    def wavenumbers(self, d=None, length=None):
        """Wavenumbers of this rank's output box, broadcastable against the output array.

        Returns ``(kz, ky, kx)`` (numpy order of the input axes) with shapes that broadcast
        against the ``[ky][kz][kx]`` output array: ``ky`` is ``(ny_local, 1, 1)``, ``kz``
        ``(1, nz, 1)``, ``kx`` ``(1, 1, nx_local)``; so ``kx**2 + ky**2 + kz**2`` has the
        output's shape. ``d=None`` gives integer wavenumbers (``fftfreq(n) * n``: 0, 1, ...,
        -1), those of a 2*pi-periodic box; ``d`` = sample spacing (scalar or ``(dz, dy, dx)``)
        gives ``numpy.fft.fftfreq(n, d)`` exactly. The r2c axis x uses ``rfftfreq``.

        ``length`` (scalar or ``(Lz, Ly, Lx)``; not with ``d``) gives angular wavenumbers of
        a box of that length: ``2*pi/L * fftfreq(n)*n`` on periodic axes and, on an r2r axis
        (``kinds``), ``pi/L`` times k, k+1 or k+1/2 by kind (docs/fft.md "Transform kinds"):
        ``-k**2`` is the eigenvalue of the second derivative on either. r2r axes take the
        box's length (default 2*pi, as the periodic axes'), never a spacing ``d``.
        Local: no communication.

        Examples
        --------
        A Poisson solve, ``laplacian(phi) = f`` on a 2*pi-periodic box::

            kz, ky, kx = plan.wavenumbers()
            k2 = kx**2 + ky**2 + kz**2
            F = plan.forward(f)
            F /= np.where(k2 == 0, 1, -k2)
            phi = plan.backward(F)
        """
        self._plan()
        nz, ny, nx = self._spectral
        kz_, ky_, kx_ = self._kinds[2], self._kinds[1], self._kinds[0]
        if d is not None and length is not None:
            raise InvalidArgument("wavenumbers: give d (sample spacing) or length (box length), not both")
        if d is not None and any(k != "periodic" for k in self._kinds):
            raise InvalidArgument("wavenumbers: d (a sample spacing) is for periodic axes; these kinds {} need "
                                  "length (the box's length)".format(",".join(self._kinds)))
        dz, dy, dx = (None, None, None) if d is None else per_axis_arg("wavenumbers", "d", d, 3, order="dz, dy, dx")
        lz, ly, lx = _lengths("wavenumbers", length)

        def freq(n, dd, kind, L, real=False):
            with np.errstate(all="ignore"):
                if kind != "periodic":
                    k = np.pi / L * (np.arange(n) + _R2R_SHIFT[kind])
                else:
                    f = np.fft.rfftfreq if real else np.fft.fftfreq
                    k = f(n, 1.0 / n) * (2 * np.pi / L) if dd is None else f(n, dd)
            if not np.isfinite(k).all():
                raise InvalidArgument("wavenumbers: {} is so small that the wavenumbers overflow a double".format(
                    "length {!r}".format(L) if dd is None else "d {!r}".format(dd)))
            return k

        box = self.output_box
        start = dict(zip(box.axes, box.start))
        count = dict(zip(box.axes, box.shape))
        full = {"z": freq(nz, dz, kz_, lz), "y": freq(ny, dy, ky_, ly),
                "x": freq(nx, dx, kx_, lx, self._transform == "r2c")}
        out = {}
        for pos, axis in enumerate(box.axes):
            shape = [1, 1, 1]
            shape[pos] = count[axis]
            out[axis] = full[axis][start[axis]:start[axis] + count[axis]].reshape(shape)
        return out["z"], out["y"], out["x"]

    def points(self, length=None):
        """Grid points of this rank's input box, ``(z, y, x)`` broadcastable against it.

        Each axis's points follow its kind on ``[0, L]`` (``length``: scalar or ``(Lz, Ly,
        Lx)``, default 2*pi): periodic ``j L/n``, dct2/dct4/dst2/dst4 cell centres
        ``(j+1/2) L/n``, dct1 ``j L/(n-1)`` (both walls), dst1 ``(j+1) L/(n+1)`` (interior),
        dct3 ``j L/n``, dst3 ``(j+1) L/n``.
        """
        self._plan()
        nz, ny, nx = self._shape
        lz, ly, lx = _lengths("points", length)
        b = self.input_box
        (z0, y0, x0), (cz, cy, cx) = b.start, b.shape
        z = _axis_points(self._kinds[2], nz, lz)[z0:z0 + cz].reshape(cz, 1, 1)
        y = _axis_points(self._kinds[1], ny, ly)[y0:y0 + cy].reshape(1, cy, 1)
        x = _axis_points(self._kinds[0], nx, lx)[x0:x0 + cx].reshape(1, 1, cx)
        return z, y, x

    # -- gather / scatter ----------------------------------------------------------------
    def _space_of(self, a, space, what):
        if space not in ("auto", "input", "output"):
            return None, (InvalidArgument, "{}: space must be 'auto', 'input' or 'output', got {!r}".format(what, space))
        fits = []
        if isinstance(a, np.ndarray):
            if a.shape == self.input_box.shape and a.dtype == self.in_dtype:
                fits.append("input")
            if a.shape == self.output_box.shape and a.dtype == self.out_dtype:
                fits.append("output")
        if space != "auto":
            return space, None
        # Which spaces fit on every rank (bit 1: input, bit 2: output).
        mask = self.comm.allreduce((1 if "input" in fits else 0) | (2 if "output" in fits else 0), op=MPI.BAND)
        if mask == 3:
            return None, (InvalidArgument, "{}: the array fits both the input and the output box; pass "
                          "space='input' or space='output'".format(what))
        if mask == 0:
            return "input", None  # the array check below names the problem
        return ("input" if mask == 1 else "output"), None

    def _root_problem(self, what, root):
        return check_problem(rank_arg, what, "root", root, self._size)

    def gather(self, a, root=0, space="auto"):
        """Collects every rank's block into the global array on ``root`` (None elsewhere).

        ``space`` says whether ``a`` is an input-box or output-box block ('auto' infers it
        from shape and dtype). Input: the global array of ``shape`` (``[z][y][x]``).
        Output: the spectrum in numpy.fft order (``[kz][ky][kx]``, shape ``output_shape``),
        i.e. what ``numpy.fft.rfftn`` / ``fftn`` of the gathered input returns. For
        checks, I/O and initial conditions: everything goes through one rank, whose memory
        must hold the whole array (sizes are 64-bit; one rank's block must have fewer than
        2**31 elements). Collective.

        Parameters
        ----------
        a : numpy.ndarray or GPU array
            This rank's block: C-contiguous, the box's shape and dtype. A GPU array (CuPy,
            PyTorch, Numba) is copied to the host first; the result is a numpy array.
        root : int
            The rank that receives the global array.
        space : {'auto', 'input', 'output'}
            'auto' is refused when the array fits both boxes (c2c with equal shapes).

        Returns
        -------
        numpy.ndarray or None
            On ``root`` the new global array (``shape`` / ``output_shape``, ``a``'s dtype);
            None elsewhere.

        Raises
        ------
        ValueError (nbfft.InvalidArgument)
            A root that is not a rank, an unknown space, a block of the wrong shape or not
            C-contiguous; TypeError (nbfft.ArgumentTypeError) for a wrong dtype or a root
            that is not an int. On every rank.

        Examples
        --------
        >>> G = plan.gather(plan.forward(u), root=0)
        >>> if comm.rank == 0: assert np.allclose(G, np.fft.rfftn(plan.gather(u)))   # doctest: +SKIP
        """
        self._plan()
        if _on_device(a):  # through host memory: gathering is for checks and I/O
            h, problem = _host_copy("gather", a)
            self._agree(problem)
            a = h
        space, problem = self._space_of(a, space, "gather")
        if problem is None:
            box, dtype = (self.input_box, self.in_dtype) if space == "input" else (self.output_box, self.out_dtype)
            problem = _array_problem("gather", "a", a, box.shape, dtype, False, space, box.axes)
        if problem is None:
            problem = self._root_problem("gather", root)
        self._agree(problem)
        g = None
        if self._rank == root:
            g = np.empty(self._shape if space == "input" else self.output_shape, dtype=a.dtype)
        self._plan().gather(space == "output", a, g, int(root))
        return g

    def scatter(self, g, root=0, space="input", out=None):
        """Distributes the global array ``g`` on ``root`` (ignored elsewhere); returns this rank's block.

        The inverse of ``gather``: ``g`` is in numpy order (``shape`` for space='input',
        ``output_shape`` in [kz][ky][kx] order for 'output'). ``out`` (allocated when None)
        receives the block. Collective; sizes as in ``gather``.

        Parameters
        ----------
        g : numpy.ndarray, GPU array or None
            On ``root``: the global array, of the space's global shape and the plan's dtype
            for it (any strides: a strided one is copied first; a GPU one is copied to the
            host first). Ignored elsewhere (pass None).
        root : int
            The rank that holds ``g``.
        space : {'input', 'output'}
        out : numpy.ndarray or GPU array, optional
            This rank's block: C-contiguous, writable, the box's shape and dtype. A GPU
            array (CuPy, PyTorch, Numba) is filled from the host.

        Returns
        -------
        numpy.ndarray
            ``out``: this rank's block of ``g``.

        Raises
        ------
        ValueError (nbfft.InvalidArgument), TypeError (nbfft.ArgumentTypeError)
            A bad root or space, a ``g`` of the wrong shape or dtype on root, a bad ``out``;
            on every rank.

        Examples
        --------
        >>> g = np.random.default_rng(0).standard_normal(plan.shape) if comm.rank == 0 else None
        >>> u = plan.scatter(g)                  # this rank's [z][y][x] block of g
        """
        self._plan()
        problem = None
        if space not in ("input", "output"):
            problem = InvalidArgument, "scatter: space must be 'input' or 'output', got {!r}".format(space)
        else:
            box, dtype = (self.input_box, self.in_dtype) if space == "input" else (self.output_box, self.out_dtype)
            gshape = self._shape if space == "input" else self.output_shape
            problem = self._root_problem("scatter", root)
            if problem is None and self._rank == root and _on_device(g):  # through host memory
                g, problem = _host_copy("scatter", g)
            if problem is None and self._rank == root:
                if not isinstance(g, np.ndarray):
                    problem = ArgumentTypeError, "scatter: g must be a numpy or GPU array on the root, got {}".format(
                        type(g).__name__)
                elif g.shape != gshape:
                    problem = InvalidArgument, "scatter: g has shape {} but the global {} is {}".format(
                        g.shape, space, gshape)
                elif g.dtype != dtype:
                    problem = ArgumentTypeError, "scatter: g has dtype {} but the plan's {} is {}".format(
                        g.dtype, space, dtype)
            if problem is None and out is not None:
                if _on_device(out):
                    problem = _device_array_problem("scatter", "out", out, box.shape, dtype, True)
                else:
                    problem = _array_problem("scatter", "out", out, box.shape, dtype, True, space, box.axes)
        self._agree(problem)
        device_out = out if _on_device(out) else None
        if out is None or device_out is not None:
            out = aligned_empty(box.shape, dtype)
        g = np.ascontiguousarray(g) if self._rank == root else None  # a copy only if g is strided
        self._plan().scatter(space == "output", g, out, int(root))
        if device_out is not None:
            problem = _device_fill("scatter", device_out, out)
            self._agree(problem)
            return device_out
        return out
