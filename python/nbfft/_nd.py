"""nbfft.NdPlan: distributed FFTs of arrays of any number of dimensions along chosen axes
(numpy's ``rfftn`` / ``fftn`` with ``axes``), nbfft::nd::Plan (docs/fft.md "N-D arrays").

Everything is in numpy order: ``shape`` lists axes slowest first, each rank holds a
C-contiguous block of the global array (``plan.in_slices`` / ``plan.out_slices`` cut it
out of a global array), and ``axes`` are spelled as numpy's (negative ones count from the
end; for real input the r2c axis is the last one listed, as ``rfftn`` does).
"""

import logging
import weakref
from types import TracebackType
from typing import Any, Dict, List, Optional, Sequence, Tuple, Type

import numpy as np

from . import _core, _lifetime
from ._args import (EXTENT_MAX, INT_MAX, check_problem, flag_arg, int_arg, ints_arg, per_axis_arg, problem_of,
                    rank_arg, real_arg)
from ._errors import ArgumentTypeError, Error, InvalidArgument, InvalidState, agree, agree_same
from ._mpi import MPI, comm_problem, handle_of
from ._plan import _ROWS, TUNE_LOGGER, Options, _log_tune, _option_text, aligned_empty
from ._request import Request

__all__ = ["NdPlan", "NdPending", "NdOptions"]

# dtype -> (kind: 0 r2c / 1 c2c, precision: 0 double / 1 single)
_DTYPES = {np.dtype(np.float64): (0, 0), np.dtype(np.float32): (0, 1), np.dtype(np.complex128): (1, 0),
           np.dtype(np.complex64): (1, 1)}
# The option table's keys NdPlan takes as named parameters (numpy-style spellings: grid and
# kinds as sequences, batch_axis an int or None, norm None for 'none'); dtype gives transform
# and precision. Every other key of the table an N-D plan takes is a keyword argument of the
# same name (nbfft.option_rows(): scope 'all' or 'N-D').
_ND_NAMED = ("norm", "kinds", "batch_axis", "transform", "precision")
# Mode k of an r2r kind has wavenumber (k + shift) * pi / L (docs/fft.md "Transform kinds").
_R2R_SHIFT = {"dct1": 0.0, "dct2": 0.0, "dct3": 0.5, "dct4": 0.5, "dst1": 1.0, "dst2": 1.0, "dst3": 0.5, "dst4": 0.5}
_Problem = Optional[Tuple[Type[Error], str]]


def _bytes(a: "np.ndarray[Any, Any]") -> "np.ndarray[Any, Any]":
    return a.reshape(-1).view(np.uint8)


def _root(a: "np.ndarray[Any, Any]") -> "np.ndarray[Any, Any]":
    while isinstance(a.base, np.ndarray):
        a = a.base
    return a


def _pair_bytes(a: "np.ndarray[Any, Any]", out: "np.ndarray[Any, Any]",
                owned: "Dict[int, Tuple[Any, int]]") -> Tuple[Any, Any]:
    """The byte views a call passes. In place (the same first byte), both span the larger of
    the two arrays, or a whole buffer from the plan's ``empty_inplace`` (``owned``: its start
    -> a weak reference to the memory's owner and its bytes), which a lean plan's middle
    stages may need: never memory the caller did not hand over."""
    if a.size and out.size and np.may_share_memory(a, out) and a.ctypes.data == out.ctypes.data:
        n = max(a.nbytes, out.nbytes)
        base = _root(a)
        mine = owned.get(a.ctypes.data)
        if mine is not None and mine[0]() is base:  # views of an empty_inplace buffer: all of it
            n = max(n, mine[1])
        if base is not a and base.flags.c_contiguous:
            at = a.ctypes.data - base.ctypes.data
            raw = base.reshape(-1).view(np.uint8)[at:at + n]
            return raw, raw
    return _bytes(a), _bytes(out)


def _fields(what: str, name: str, value: Any, ndim: int) -> Tuple[List[Any], _Problem]:
    """The arrays of a list / tuple, or of a stacked array (fields first), and any problem."""
    if isinstance(value, np.ndarray):
        if value.ndim != ndim + 1:
            return [], (InvalidArgument, "{}: a stacked {} needs {} dimensions (fields first), got shape {}".format(
                what, name, ndim + 1, tuple(value.shape)))
        return list(value), None
    if isinstance(value, (list, tuple)):
        return list(value), None
    return [], (ArgumentTypeError, "{}: {} must be a list of arrays or a stacked array, got {}".format(
        what, name, type(value).__name__))


def _plan_args(what: str, shape: Any, axes: Any, dtype: Any, norm: Any, grid: Any, kinds: Any, batch_axis: Any,
               in_box: Any, out_box: Any, options: Dict[str, Any]) -> Dict[str, Any]:
    """NdPlan's arguments checked (raising InvalidArgument / ArgumentTypeError) and in the core's
    terms: the options as the table's key=value text (its words, ranges and N-D parser)."""
    options = dict(options)
    a: Dict[str, Any] = {}
    if shape is None:
        raise ArgumentTypeError("{}: shape must be a sequence of ints, got None".format(what))
    a["shape"] = list(ints_arg(what, "shape", shape, None, 1, EXTENT_MAX))
    nd = len(a["shape"])
    if nd == 0:
        raise InvalidArgument("{}: shape is empty (an array needs at least one axis)".format(what))
    a["batch_axis"] = None if batch_axis is None else int_arg(what, "batch_axis", batch_axis, -nd, nd - 1)
    if axes is None:  # every axis but the batch
        a["axes"] = [k for k in range(nd) if a["batch_axis"] is None or k != a["batch_axis"] % nd]
    else:
        a["axes"] = list(ints_arg(what, "axes", axes, None, -nd, nd - 1))
    try:
        a["dtype"] = np.dtype(dtype)
    except TypeError:
        a["dtype"] = None
    if a["dtype"] not in _DTYPES:
        raise ArgumentTypeError("{}: dtype must be float64 or float32 (r2c), complex128 or complex64 (c2c), "
                                "got {!r}".format(what, dtype))
    kind, precision = _DTYPES[a["dtype"]]
    items = [("transform", "c2c" if kind else "r2c"), ("precision", "single" if precision else "double"),
             ("norm", "none" if norm is None else _option_text(what, "norm", norm, _core.check_nd_option))]
    if grid is not None and "proc_grid" in options:
        raise ArgumentTypeError("{}: grid and proc_grid are one option (ranks per axis): give one".format(what))
    if grid is None and "proc_grid" in options:  # the table's key, as Plan takes it: "2x1" or a sequence
        grid = options.pop("proc_grid")
        if isinstance(grid, str):
            items.append(("proc_grid", _option_text(what, "proc_grid", grid, _core.check_nd_option)))
            grid = None
    if grid is not None:
        items.append(("proc_grid", "x".join(str(g) for g in ints_arg(what, "grid", grid, None, 1, INT_MAX))))
    a["kinds"] = []
    if kinds is not None:
        given = kinds.split(",") if isinstance(kinds, str) else kinds
        listed: List[Any] = list(given) if isinstance(given, (list, tuple)) else [None]
        if not all(isinstance(k, str) for k in listed):
            raise ArgumentTypeError("{}: kinds must be a sequence of str, got {!r}".format(what, kinds))
        a["kinds"] = [k.strip().lower() for k in listed]
        items.append(("kinds", _option_text(what, "kinds", ",".join(a["kinds"]), _core.check_nd_option)))
    if a["batch_axis"] is not None:
        items.append(("batch_axis", str(a["batch_axis"])))
    for key, value in options.items():
        row = _ROWS.get(key)
        if row is None or key in _ND_NAMED or row["scope"] == "3-D":
            why = " (the 3-D plan's only)" if row is not None and row["scope"] == "3-D" else \
                  " (given by dtype)" if key in ("transform", "precision") else ""
            raise ArgumentTypeError("{}: unexpected keyword argument {!r}{} (options: {})".format(
                what, key, why, ", ".join(k for k, r in _ROWS.items() if r["scope"] != "3-D" and k not in _ND_NAMED)))
        items.append((key, _option_text(what, key, value, _core.check_nd_option)))
    a["options"] = " ".join("{}={}".format(k, v) for k, v in items)
    a["tuning"] = dict(items).get("tune", "none") != "none"  # as Plan decides it
    for name, b in (("in_box", in_box), ("out_box", out_box)):
        a[name] = None
        if b is None:
            continue
        try:
            start, extent = b
        except (TypeError, ValueError):
            raise ArgumentTypeError("{}: {} must be (start, shape), two sequences of ints, got {!r}".format(
                what, name, b)) from None
        # The core checks that the blocks tile the array; here that they are ints it can take.
        a[name] = (list(ints_arg(what, name + " start", start, nd, -EXTENT_MAX, EXTENT_MAX)),
                   list(ints_arg(what, name + " shape", extent, nd, -EXTENT_MAX, EXTENT_MAX)))
    return a


class NdOptions(Options):
    """An N-D plan's resolved options (``plan.options``), read only: one attribute per key of
    the option table that applies to N-D plans. ``proc_grid`` is ranks per axis, numpy order
    ('2x1x1'); the 3-D plan's ``m1`` / ``m2`` do not apply."""

    @property
    def m1(self) -> int:
        raise AttributeError("an N-D plan's grid is ranks per axis: options.proc_grid (or plan.grid)")

    @property
    def m2(self) -> int:
        raise AttributeError("an N-D plan's grid is ranks per axis: options.proc_grid (or plan.grid)")


NdPending = Request  # the earlier name of an N-D transform's request


class NdPlan:
    """A distributed FFT of an N-D array along ``axes`` (numpy's ``rfftn`` / ``fftn``).

    Collective to create and to ``close()`` (or leave a ``with`` block); ``forward`` and
    ``backward`` are collective too.

    Parameters
    ----------
    comm : mpi4py.MPI.Intracomm
        The ranks holding the array.
    shape : sequence of int
        The global array's shape, numpy order (any number of axes).
    axes : sequence of int or None
        The axes to transform (None: all, but the batch axis). With real input the last one
        listed is the r2c axis (its extent becomes ``n // 2 + 1``), as ``numpy.fft.rfftn``.
    dtype : numpy.float64, float32, complex128 or complex64
        The input: real (r2c, as rfftn) or complex (c2c, as fftn); 32-bit types run in
        single precision (spectrum complex64).
    kinds : sequence of str or None
        The forward transform of each listed axis, in the order of ``axes``: 'periodic' (the
        DFT) or an r2r kind 'dct1'..'dct4', 'dst1'..'dst4' (FFTW's REDFT/RODFT; backward runs
        the inverse kind). With real input the r2c axis is the last listed periodic one; with
        every axis r2r the spectrum is real (``out_dtype`` float). None: all periodic.
    norm : str
        'backward' (numpy's default: 1/N on backward), 'forward', 'ortho' or 'none'.
    grid : sequence of int or None
        Ranks along each axis at the input (product ``comm.size``). None: chosen, ranks on
        the untransformed axes first (no exchange), then the fewest exchanges. The table's
        key ``proc_grid=`` (``"2x1x1"`` or a sequence, as ``Plan`` takes it) is the same option.
    **options
        Every other key of nbfft's option table that applies to N-D plans
        (``nbfft.option_rows()``, scope 'all' or 'N-D'; the same words, ranges and defaults as
        ``Plan``, but ``output_order``), for example:
    transport : str
        The exchanges' transport, as ``Plan(transport=...)``: 'blocking', 'pairwise:4@caller', ...
    effort : str
        The local FFT backend's planning effort (FFTW's planner): 'measure' (the default),
        'estimate', 'patient' or 'exhaustive'.
    batch_axis : int or None (a named parameter, as ``grid`` and ``kinds``)
        A batch axis (numpy-style; not among ``axes``): every slice along it is a field,
        whole on every rank, transformed through the multi-field pipeline (each field's
        exchanges behind the other fields' FFTs). None: an untransformed axis is an ordinary
        one, which the plan may split over the ranks.
    fields_in_flight : int
        Fields whose exchanges travel at once in a batch or ``forward_many`` (1 to 64;
        1: one after the other). A blocking transport always runs one at a time.
    output_order : str
        'natural' (the spectrum block in numpy's order, as rfftn's) or 'transposed': the two
        slowest transformed axes trade places in the spectrum block's memory (2-D: ``[k1][k0]``,
        FFTW-MPI's transposed out), which saves the transform a strided pass. The block then
        has its axes in ``out_order``: ``U == rfftn(G, axes)[out_slices].transpose(out_order)``;
        ``gather`` / ``scatter`` with ``space='output'`` and ``wavenumbers`` follow it.
    in_box, out_box : (start, shape) or None
        Your own layout: this rank's block of the input array (``in_box``) and of the spectrum
        (``out_box``, its shape ``global_out_shape``), each ``start`` and ``shape`` tuples with
        one entry per axis (numpy order, C-contiguous blocks; a batch axis included). The
        blocks of all ranks must tile the array (empty ones, a 0 in ``shape``, allowed).
        ``forward`` then takes and returns arrays in these blocks (``in_shape``, ``out_shape``
        and the slices follow them); the plan moves them to and from its own blocks by one
        all-to-all each way. None (or the plan's own blocks): no reshape for that side.
    allow_empty : bool
        Whether the plan may split an axis over more ranks than it has points (those ranks
        then hold nothing of it at that stage: a (2, 9) array on 3 ranks). A grid that leaves
        no rank empty is chosen whenever there is one. False: such a decomposition is an error.
    lean_workspace : bool
        One work array instead of two or three (``workspace_bytes`` says how much): the plan
        uses your array as the other, so every call must run in place, ``a, A =
        plan.empty_inplace()`` then ``plan.forward(a, out=A)`` and ``plan.backward(A,
        out=a)`` (an error on every rank otherwise). ``lean_workspace`` says whether it was
        made (not with a batch axis or user boxes: ``describe()`` says why).
    backend : str
        The local FFT library: 'auto' (FFTW when built, always for r2r kinds; else MKL),
        'fftw' or 'mkl'. A backend this nbfft lacks, or 'mkl' with an r2r kind, is
        ``Unavailable`` on every rank.
    tune : str
        'none', or 'quick' / 'thorough' / 'exhaustive': time candidate grids, transports and
        fields in flight on these ranks for up to ``tune_budget`` seconds and keep the fastest
        (``grid``, ``transport`` and ``fields_in_flight`` are then the first candidate;
        ``tune_report`` says what was tried). A second plan with the same arguments in this
        process reuses the choice at once.
    tune_budget : float
        Seconds the tuner may spend (> 0).
    tune_fields : int
        Fields per call the application makes (``forward_many`` of that many; 1 to 4096, as ``Plan``).
    padding : float or sequence of float
        Dealiasing, as ``Plan(padding=...)`` (mpi4py-fft's ``padding``): one ratio >= 1 for
        every listed axis, or one per listed axis in the order of ``axes`` (periodic axes
        only). ``shape`` is then the spectrum's grid: the input lives on the physical grid
        ``floor(n * ratio)`` per listed axis (``global_shape``), backward zero-pads the
        spectrum to it and forward truncates back (1.5: the 3/2 rule).

    Raises
    ------
    TypeError (nbfft.ArgumentTypeError)
        ``comm`` is not an mpi4py communicator; shape, axes or grid are not ints.
    ValueError (nbfft.InvalidArgument)
        An axis out of range or repeated, a non-positive extent, an unknown dtype, norm,
        effort or transport, a grid of the wrong length or product, or a decomposition that
        cannot be made (with ``allow_empty=False``, an axis split over more ranks than it has
        points).
        nbfft.RanksDisagree: ranks passed different arguments. Errors are raised on every rank.

    Examples
    --------
    >>> with nbfft.NdPlan(MPI.COMM_WORLD, (nz, ny, nx), axes=(0, 2)) as p:   # channel: x and z
    ...     u = np.empty(p.in_shape); u[...] = G[p.in_slices]
    ...     U = p.forward(u)        # == numpy.fft.rfftn(G, axes=(0, 2))[p.out_slices]
    ...     v = p.backward(U)       # == u
    """

    def __init__(self, comm: MPI.Intracomm, shape: Sequence[int], axes: Optional[Sequence[int]] = None,
                 dtype: Any = np.float64, norm: Optional[str] = "backward", grid: Optional[Sequence[int]] = None,
                 kinds: Optional[Sequence[str]] = None, batch_axis: Optional[int] = None,
                 in_box: Optional[Tuple[Sequence[int], Sequence[int]]] = None,
                 out_box: Optional[Tuple[Sequence[int], Sequence[int]]] = None, **options: Any) -> None:
        self._p: Any = None
        what = "NdPlan"
        problem: _Problem = comm_problem(comm, what)
        if problem is not None and not isinstance(comm, MPI.Intracomm):
            raise problem[0](problem[1])
        a: Dict[str, Any] = {}
        if problem is None:
            try:
                a = _plan_args(what, shape, axes, dtype, norm, grid, kinds, batch_axis, in_box, out_box, options)
            except (InvalidArgument, ArgumentTypeError) as e:
                problem = problem_of(e)
        agree(lambda k, msg: _core.agree(handle_of(comm), k, msg), problem)
        kind, precision = _DTYPES[a["dtype"]]
        kk = a["kinds"]
        # The tuner's events reach the logger "nbfft.tune" as Plan's do (nbfft._plan._log_tune).
        log = _log_tune if a["tuning"] and TUNE_LOGGER.isEnabledFor(logging.INFO) else None
        self._p = _core.NdPlan(handle_of(comm), a["shape"], a["axes"], a["options"], a["in_box"], a["out_box"], log)
        self._key = _lifetime.register(self)
        self.mpi_comm: MPI.Intracomm = comm
        self._kinds = tuple(kk) if kk else ("periodic",) * len(a["axes"])
        self._in_dtype = a["dtype"]
        real_out = kind == 0 and all(k != "periodic" for k in self._kinds)
        self._out_dtype = np.dtype((np.float32 if precision else np.float64) if real_out else
                                   (np.complex64 if precision else np.complex128))
        lo, sz = self._p.in_box(-1)
        self._in = tuple(slice(a, a + b) for a, b in zip(lo, sz)), tuple(int(s) for s in sz)
        # The spectrum block's axes in memory order (natural: 0, 1, ...; transposed: two traded).
        self._order = tuple(int(a) for a in self._p.out_order)
        lo, sz = self._p.out_box(-1)
        self._out = tuple(slice(a, a + b) for a, b in zip(lo, sz)), tuple(int(sz[a]) for a in self._order)
        # gather / scatter talk on a duplicate, so their messages never meet the caller's.
        self._comm: Any = comm.Dup()
        self._pending: "weakref.WeakSet[NdPending]" = weakref.WeakSet()  # close() waits for these
        self._inplace_bufs: Dict[int, Tuple[Any, int]] = {}

    def _get(self) -> Any:
        if self._p is None:
            raise InvalidState("NdPlan: used after close()")
        return self._p

    @property
    def global_shape(self) -> Tuple[int, ...]:
        """The input's global shape (a padded plan's physical grid: ``floor(n * padding)`` on
        the listed axes)."""
        return tuple(int(s) for s in self._get().shape)

    @property
    def global_out_shape(self) -> Tuple[int, ...]:
        """The spectrum's global shape (r2c: the last listed axis is ``n // 2 + 1``)."""
        return tuple(int(s) for s in self._get().out_shape)

    @property
    def axes(self) -> Tuple[int, ...]:
        """The transformed axes as given, made non-negative."""
        return tuple(int(a) for a in self._get().axes)

    @property
    def grid(self) -> Tuple[int, ...]:
        """Ranks along each axis at the input."""
        return tuple(int(a) for a in self._get().grid)

    @property
    def out_grid(self) -> Tuple[int, ...]:
        """Ranks along each axis in the spectrum."""
        return tuple(int(a) for a in self._get().out_grid)

    @property
    def exchanges(self) -> int:
        """How many exchanges one transform makes (0: purely local)."""
        return int(self._get().exchanges)

    @property
    def in_dtype(self) -> "np.dtype[Any]":
        """The input's dtype (as given)."""
        self._get()
        return self._in_dtype

    @property
    def out_dtype(self) -> "np.dtype[Any]":
        """The spectrum's dtype: complex of the input's precision, or real when every listed
        axis is r2r on real input."""
        self._get()
        return self._out_dtype

    @property
    def kinds(self) -> Tuple[str, ...]:
        """The kind of each listed axis, in the order of ``axes``."""
        self._get()
        return self._kinds

    @property
    def batch_axis(self) -> Optional[int]:
        """The batch axis (non-negative), or None."""
        b = self._get().batch_axis
        return None if b is None else int(b)

    @property
    def fields_in_flight(self) -> int:
        """Fields whose exchanges travel at once (as given, or the tuner's choice)."""
        return int(self._get().fields_in_flight)

    @property
    def transport(self) -> str:
        """The exchanges' transport (as given, or the tuner's choice)."""
        return str(self._get().transport)

    @property
    def user_boxes(self) -> bool:
        """Whether calls move either side between your blocks (``in_box`` / ``out_box``) and
        the plan's own."""
        return bool(self._get().user_boxes)

    @property
    def lean_workspace(self) -> bool:
        """Whether the plan got the lean workspace it was asked for: then every call runs in
        place (``empty_inplace``)."""
        return bool(self._get().lean_workspace)

    @property
    def workspace_bytes(self) -> int:
        """Bytes of the plan's own work arrays on this rank (exchange buffers not counted)."""
        return int(self._get().workspace_bytes)

    @property
    def inplace_bytes(self) -> int:
        """Bytes of one array that serves a call in place on this rank (``empty_inplace``)."""
        return int(self._get().inplace_bytes)

    def empty_inplace(self) -> Tuple["np.ndarray[Any, Any]", "np.ndarray[Any, Any]"]:
        """Two views of one aligned buffer of ``inplace_bytes``: ``(a, A)``, the input block
        (``in_shape``, ``in_dtype``) and the spectrum's (``out_shape``, ``out_dtype``).

        ``plan.forward(a, out=A)`` and ``plan.backward(A, out=a)`` then run in place, with
        fewer copies than out of place (as FFTW-MPI's in-place transforms), and as the lean
        workspace needs; the input is overwritten.

        Examples
        --------
        >>> a, A = plan.empty_inplace()
        >>> a[...] = u
        >>> _ = plan.forward(a, out=A)      # A holds the spectrum
        """
        raw = aligned_empty((self.inplace_bytes,), np.uint8)
        for start in [k for k, (ref, _) in self._inplace_bufs.items() if ref() is None]:
            del self._inplace_bufs[start]  # buffers since freed
        self._inplace_bufs[raw.ctypes.data] = (weakref.ref(_root(raw)), raw.nbytes)  # its views may use all of it
        ni = int(np.prod(self._in[1])) * self._in_dtype.itemsize
        no = int(np.prod(self._out[1])) * self._out_dtype.itemsize
        a = raw[:ni].view(self._in_dtype).reshape(self._in[1])
        A = raw[:no].view(self._out_dtype).reshape(self._out[1])
        return a, A

    @property
    def tune_report(self) -> Optional[str]:
        """What the tuner tried and chose, one line per trial; None when not tuned."""
        r = self._get().tune_report
        return None if r is None else str(r)

    @property
    def out_order(self) -> Tuple[int, ...]:
        """The spectrum block's axes in memory order: dimension i of a spectrum block is
        global axis ``out_order[i]`` (``(0, 1, ..., N-1)`` unless ``output_order='transposed'``)."""
        self._get()
        return self._order

    @property
    def in_slices(self) -> Tuple[slice, ...]:
        """This rank's block of the global input: ``G[plan.in_slices]``."""
        self._get()
        return self._in[0]

    @property
    def out_slices(self) -> Tuple[slice, ...]:
        """This rank's block of the global spectrum: ``rfftn(G, axes=...)[plan.out_slices]``
        (transposed by ``out_order`` when the output order is transposed)."""
        self._get()
        return self._out[0]

    @property
    def in_shape(self) -> Tuple[int, ...]:
        """This rank's input array shape."""
        self._get()
        return self._in[1]

    @property
    def out_shape(self) -> Tuple[int, ...]:
        """This rank's spectrum array shape (its extents in ``out_order``)."""
        self._get()
        return self._out[1]

    def in_slices_of(self, rank: int) -> Tuple[slice, ...]:
        """Rank ``rank``'s block of the global input (for gathering)."""
        lo, sz = self._box_of("NdPlan.in_slices_of", rank, False)
        return tuple(slice(a, a + b) for a, b in zip(lo, sz))

    def out_slices_of(self, rank: int) -> Tuple[slice, ...]:
        """Rank ``rank``'s block of the global spectrum (for gathering)."""
        lo, sz = self._box_of("NdPlan.out_slices_of", rank, True)
        return tuple(slice(a, a + b) for a, b in zip(lo, sz))

    @property
    def options(self) -> "NdOptions":
        """The options the plan runs with (:class:`NdOptions`): every key of the option table
        that applies to N-D plans, the grid as made and, when tuned, the tuner's choice."""
        text = self._get().options_text
        fields: Dict[str, Any] = {}
        for pair in text.split():
            key, value = pair.split("=", 1)
            kind = _ROWS[key]["type"]
            fields[key] = int(value) if kind == "int" else value == "true" if kind == "bool" else \
                float(value) if kind == "real" else value
        return NdOptions(fields, text)

    def describe(self) -> str:
        """The decomposition: grids, local FFTs and exchanges, one line."""
        return str(self._get().describe())

    def _check(self, what: str, a: Any, shape: Tuple[int, ...], dtype: "np.dtype[Any]", writable: bool,
               name: str) -> _Problem:
        if not isinstance(a, np.ndarray):
            return ArgumentTypeError, "{}: {} must be a numpy array, got {}".format(what, name, type(a).__name__)
        if a.dtype != dtype:
            return ArgumentTypeError, "{}: {} has dtype {}, this plan needs {}".format(what, name, a.dtype, dtype)
        if tuple(a.shape) != shape:
            return InvalidArgument, "{}: {} has shape {}, this rank's block is {}".format(
                what, name, tuple(a.shape), shape)
        if not a.flags.c_contiguous:
            return InvalidArgument, "{}: {} must be C-contiguous".format(what, name)
        if writable and not a.flags.writeable:
            return InvalidArgument, "{}: {} is read-only".format(what, name)
        return None

    def _arrays(self, what: str, a: Any, out: Any, forward: bool) -> "np.ndarray[Any, Any]":
        """Checks a call's input and output on every rank (agreed); returns the output."""
        spec = self._out_dtype
        in_shape, in_dt = (self._in[1], self._in_dtype) if forward else (self._out[1], spec)
        out_shape, out_dt = (self._out[1], spec) if forward else (self._in[1], self._in_dtype)
        if out is None:
            out = np.empty(out_shape, out_dt)
        problem = self._check(what, a, in_shape, in_dt, False, "input") or \
            self._check(what, out, out_shape, out_dt, True, "out")
        agree(lambda k, msg: _core.agree(handle_of(self.mpi_comm), k, msg), problem)
        return out

    def _run(self, what: str, a: Any, out: Any, forward: bool) -> "np.ndarray[Any, Any]":
        p = self._get()
        out = self._arrays(what, a, out, forward)
        (p.forward if forward else p.backward)(*_pair_bytes(a, out, self._inplace_bufs))
        return out

    def _start(self, what: str, a: Any, out: Any, forward: bool) -> NdPending:
        p = self._get()
        out = self._arrays(what, a, out, forward)
        t = Request(p.start(forward, *_pair_bytes(a, out, self._inplace_bufs)), what, self, (a, out), out=out)
        self._pending.add(t)
        return t

    def forward_start(self, a: "np.ndarray[Any, Any]", out: "Optional[np.ndarray[Any, Any]]" = None) -> NdPending:
        """Starts ``forward(a, out)`` and returns once its first exchange is in flight (split phase).

        Collective (every rank starts in the same order). The returned ``NdPending``'s
        ``wait()`` finishes it; then ``out`` (allocated when None; also the Pending's ``out``)
        holds the spectrum block. In between, do your own work: with ``transport='thread'``
        the exchange moves meanwhile; with a caller engine call the Pending's ``progress()``
        now and then. Raises as ``forward``.

        Examples
        --------
        >>> t = plan.forward_start(u); other_work(); t.wait(); U = t.out
        """
        return self._start("NdPlan.forward_start", a, out, True)

    def backward_start(self, a: "np.ndarray[Any, Any]", out: "Optional[np.ndarray[Any, Any]]" = None) -> NdPending:
        """Starts ``backward(a, out)``; as ``forward_start``.

        Examples
        --------
        >>> t = plan.backward_start(U, u); other_work(); t.wait()
        """
        return self._start("NdPlan.backward_start", a, out, False)

    def forward(self, a: "np.ndarray[Any, Any]", out: "Optional[np.ndarray[Any, Any]]" = None) -> "np.ndarray[Any, Any]":
        """This rank's block of ``rfftn`` (real input) or ``fftn`` (complex) along ``axes``.

        ``a`` is this rank's C-contiguous input block (``in_shape``), left unchanged; ``out``
        (``out_shape``, ``out_dtype``) is filled and returned (a new array when None).

        Raises
        ------
        nbfft.InvalidArgument on every rank when any rank's arrays have the wrong shape,
        dtype or layout.

        Examples
        --------
        >>> U = plan.forward(u)
        """
        return self._run("NdPlan.forward", a, out, True)

    def _many(self, what: str, fields: Any, out: Any, forward: bool) -> Any:
        p = self._get()
        spec = self._out_dtype
        in_shape, in_dt = (self._in[1], self._in_dtype) if forward else (self._out[1], spec)
        out_shape, out_dt = (self._out[1], spec) if forward else (self._in[1], self._in_dtype)
        ins, problem = _fields(what, "fields", fields, len(in_shape))
        stacked, nv = isinstance(fields, np.ndarray), len(ins)
        outs: List[Any] = []
        if problem is None and out is None:
            made = np.empty((nv,) + out_shape, out_dt)
            outs = list(made)
            out = made if stacked else outs
        elif problem is None:
            outs, problem = _fields(what, "out", out, len(out_shape))
        if problem is None and len(outs) != nv:
            problem = InvalidArgument, "{}: {} input fields but {} output fields".format(what, nv, len(outs))
        for k in range(nv if problem is None else 0):
            problem = self._check(what, ins[k], in_shape, in_dt, False, "field {}".format(k)) or \
                self._check(what, outs[k], out_shape, out_dt, True, "out field {}".format(k))
            if problem is not None:
                break
        agree(lambda k, msg: _core.agree(handle_of(self.mpi_comm), k, msg), problem)
        pairs = [_pair_bytes(a, o, self._inplace_bufs) for a, o in zip(ins, outs)]
        (p.forward_many if forward else p.backward_many)([i for i, _ in pairs], [o for _, o in pairs])
        return out

    def forward_many(self, fields: Any, out: Any = None) -> Any:
        """Forward transforms of several fields in one pipelined call.

        ``fields``: a list of input blocks (``in_shape``) or one stacked array of shape
        ``(nv,) + in_shape``; ``out`` likewise (allocated when None, stacked when ``fields``
        is). Every rank passes the same number of fields. Results equal ``nv`` calls of
        ``forward`` bit for bit; up to ``fields_in_flight`` fields' exchanges travel behind
        the other fields' FFTs. Returns ``out``.

        Raises
        ------
        nbfft.InvalidArgument on every rank when any rank's arrays have the wrong shape,
        dtype, layout or number.

        Examples
        --------
        >>> U, V, W = plan.forward_many([u, v, w])
        """
        return self._many("NdPlan.forward_many", fields, out, True)

    def backward_many(self, fields: Any, out: Any = None) -> Any:
        """Backward transforms of several fields (spectrum blocks) in one pipelined call; as
        ``forward_many``.

        Examples
        --------
        >>> u, v, w = plan.backward_many([U, V, W])
        """
        return self._many("NdPlan.backward_many", fields, out, False)

    def backward(self, a: "np.ndarray[Any, Any]", out: "Optional[np.ndarray[Any, Any]]" = None) -> "np.ndarray[Any, Any]":
        """The inverse (``irfftn`` / ``ifftn`` with norm 'backward'): spectrum block in, input block out.

        Raises
        ------
        nbfft.InvalidArgument on every rank when any rank's arrays have the wrong shape,
        dtype or layout.

        Examples
        --------
        >>> u = plan.backward(U)
        """
        return self._run("NdPlan.backward", a, out, False)

    def close(self) -> None:
        """Frees the plan (collective); further calls raise nbfft.InvalidState."""
        if self._p is not None:
            for t in list(self._pending):
                t.wait()
            _lifetime.unregister(self._key)
            self._p.close()
            self._p = None
            if not MPI.Is_finalized():
                self._comm.Free()

    # -- boxes, wavenumbers, gather / scatter ------------------------------------------------
    @property
    def in_box(self) -> Tuple[Tuple[int, ...], Tuple[int, ...]]:
        """This rank's input block as ``(lo, n)``: global offset and extent along each axis."""
        return self.in_box_of(-1)

    @property
    def out_box(self) -> Tuple[Tuple[int, ...], Tuple[int, ...]]:
        """This rank's spectrum block as ``(lo, n)``."""
        return self.out_box_of(-1)

    def _box_of(self, what: str, rank: Any, out: bool) -> Tuple[Tuple[int, ...], Tuple[int, ...]]:
        p = self._get()
        r = int_arg(what, "rank", rank, -1, self.mpi_comm.size - 1)
        lo, n = p.out_box(r) if out else p.in_box(r)
        return tuple(int(v) for v in lo), tuple(int(v) for v in n)

    def in_box_of(self, rank: int) -> Tuple[Tuple[int, ...], Tuple[int, ...]]:
        """Rank ``rank``'s input block as ``(lo, n)`` (-1: this rank's). Local."""
        return self._box_of("NdPlan.in_box_of", rank, False)

    def out_box_of(self, rank: int) -> Tuple[Tuple[int, ...], Tuple[int, ...]]:
        """Rank ``rank``'s spectrum block as ``(lo, n)`` (-1: this rank's). Local."""
        return self._box_of("NdPlan.out_box_of", rank, True)

    def wavenumbers(self, d: Any = None, length: Any = None) -> Tuple[Any, ...]:
        """Wavenumbers of this rank's spectrum block, one entry per axis, broadcastable.

        Entry ``a`` is None for an axis that is not transformed, else an array of shape
        ``(1, .., n_a, .., 1)`` (this rank's extent along ``a``) that broadcasts against the
        spectrum block: with ``kz, _, kx = plan.wavenumbers()`` on a channel ``kx**2 + kz**2``
        has the shape of the block's (kz, kx) planes. ``d=None``: integer wavenumbers
        (``fftfreq(n) * n``, ``rfftfreq`` on the r2c axis); ``d`` (a spacing, scalar or one per
        axis) gives ``numpy.fft.fftfreq(n, d)``; ``length`` (scalar or one per axis; not with
        ``d``) gives ``2*pi/L * fftfreq(n) * n``. An r2r axis (``kinds``) gets ``pi/L`` times
        k, k+1 or k+1/2 by kind (L: ``length``, default 2*pi, as the periodic axes'), so that
        ``-k**2`` is the second derivative's eigenvalue on either; a spacing ``d`` is for
        periodic axes only. Local.

        Examples
        --------
        >>> kz, _, kx = plan.wavenumbers(length=(Lz, 1.0, Lx))
        """
        p = self._get()
        nd = len(self._in[1])
        if d is not None and length is not None:
            raise InvalidArgument("NdPlan.wavenumbers: give d (sample spacing) or length (box length), not both")

        def per_axis(v: Any, name: str) -> List[Any]:
            return [None] * nd if v is None else list(per_axis_arg("NdPlan.wavenumbers", name, v, nd))

        ds, ls = per_axis(d, "d"), per_axis(length, "length")
        axes = [int(a) for a in p.axes]
        kind_of = dict(zip(axes, self._kinds))
        if d is not None and any(k != "periodic" for k in self._kinds):
            raise InvalidArgument("NdPlan.wavenumbers: d (a sample spacing) is for periodic axes; kinds {} need "
                                  "length (the box's length)".format(",".join(self._kinds)))
        periodic = [a for a in axes if kind_of[a] == "periodic"]
        real_axis = periodic[-1] if self._in_dtype.kind == "f" and periodic else -1
        lo, n = self.out_box
        out: List[Any] = []
        for a in range(nd):
            if a not in axes:
                out.append(None)
                continue
            full = int(p.shape[a])
            f = np.fft.rfftfreq if a == real_axis else np.fft.fftfreq
            with np.errstate(all="ignore"):
                if kind_of[a] != "periodic":
                    k = np.pi / (2 * np.pi if ls[a] is None else ls[a]) * (np.arange(full) + _R2R_SHIFT[kind_of[a]])
                elif ds[a] is not None:
                    k = f(full, ds[a])
                else:
                    k = f(full, 1.0 / full) * (1.0 if ls[a] is None else 2 * np.pi / ls[a])
            if not np.isfinite(k).all():
                raise InvalidArgument("NdPlan.wavenumbers: {}[{}] = {!r} is so small that the wavenumbers overflow a "
                                      "double".format("d" if ds[a] is not None else "length", a,
                                                      ds[a] if ds[a] is not None else ls[a]))
            shape = [1] * nd
            shape[self._order.index(a)] = n[a]  # where axis a lies in the spectrum block
            out.append(k[lo[a]:lo[a] + n[a]].reshape(shape))
        return tuple(out)

    def _root_problem(self, what: str, root: Any) -> _Problem:
        return None if root is None else check_problem(rank_arg, what, "root", root, self.mpi_comm.size)

    def _space(self, what: str, space: Any) -> Tuple[_Problem, bool]:
        if space not in ("input", "output"):
            return (InvalidArgument, "{}: space must be 'input' or 'output', got {!r}".format(what, space)), False
        return None, space == "output"

    def gather(self, a: "np.ndarray[Any, Any]", root: Optional[int] = 0,
               space: str = "input") -> "Optional[np.ndarray[Any, Any]]":
        """Collects every rank's block into the global array on ``root`` (None: on every rank).

        ``space='input'``: ``a`` is this rank's input block and the result has
        ``global_shape``; ``'output'``: a spectrum block and the result is the whole of
        ``rfftn`` / ``fftn`` along ``axes`` (``global_out_shape``). Returns the new global
        array on ``root`` (every rank when root is None), None elsewhere. The whole array
        must fit one rank's memory: for checks, I/O and initial conditions. Collective.

        Raises
        ------
        nbfft.InvalidArgument / nbfft.ArgumentTypeError on every rank: a block of the wrong
        shape, dtype or layout on any rank, a bad root or space.

        Examples
        --------
        >>> G = plan.gather(plan.forward(u), root=0, space="output")   # == rfftn(g, axes=...)
        """
        p = self._get()
        problem, out = self._space("NdPlan.gather", space)
        if problem is None:
            shape, dt = (self._out[1], self._out_dtype) if out else (self._in[1], self._in_dtype)
            problem = self._check("NdPlan.gather", a, shape, dt, False, "a") or self._root_problem("NdPlan.gather", root)
        agree(lambda k, msg: _core.agree(handle_of(self.mpi_comm), k, msg), problem)
        # Roots valid on each rank but not the same would pair sends with no receive: agreed.
        agree_same(self._comm, "NdPlan.gather", [("root", None if root is None else int(root)), ("space", space)])
        comm, me = self._comm, self._comm.rank
        at = 0 if root is None else int(root)
        g = None
        if me == at:
            g = np.empty(tuple(int(v) for v in (p.out_shape if out else p.shape)), a.dtype)
            # A spectrum block's dimensions are in out_order: back to axis order.
            mem = self._order if out else tuple(range(len(self._order)))
            back = tuple(int(i) for i in np.argsort(mem))
            for r in range(comm.size):
                sl = self.out_slices_of(r) if out else self.in_slices_of(r)
                if r == me:
                    g[sl] = a.transpose(back)
                    continue
                ext = tuple(s.stop - s.start for s in sl)
                block = np.empty(tuple(ext[i] for i in mem), a.dtype)
                if block.size:
                    comm.Recv(block, source=r, tag=7)
                g[sl] = block.transpose(back)
        elif a.size:
            comm.Send(a, dest=at, tag=7)
        if root is None:
            if me != at:
                g = np.empty(tuple(int(v) for v in (p.out_shape if out else p.shape)), a.dtype)
            comm.Bcast(g, root=at)
        return g

    def scatter(self, g: Any, root: int = 0, space: str = "input",
                out: "Optional[np.ndarray[Any, Any]]" = None) -> "np.ndarray[Any, Any]":
        """This rank's block of the global array ``g`` held on ``root`` (ignored elsewhere).

        ``space='input'``: ``g`` has ``global_shape`` and the input dtype; ``'output'``:
        ``global_out_shape``, ``out_dtype``. ``out`` (this rank's block, C-contiguous, writable;
        allocated when None) is filled and returned. Collective.

        Raises
        ------
        nbfft.InvalidArgument / nbfft.ArgumentTypeError on every rank: ``g`` of the wrong
        shape or dtype on root, a bad ``out``, root or space.

        Examples
        --------
        >>> u = plan.scatter(g if comm.rank == 0 else None)    # this rank's block of g
        """
        p = self._get()
        problem, sp_out = self._space("NdPlan.scatter", space)
        me = self._comm.rank
        if problem is None:
            problem = self._root_problem("NdPlan.scatter", root)
            if problem is None and root is None:
                problem = InvalidArgument, "NdPlan.scatter: root must be a rank (the one holding g), got None"
        shape, dt = (self._out[1], self._out_dtype) if sp_out else (self._in[1], self._in_dtype)
        if problem is None and me == root:
            gshape = tuple(int(v) for v in (p.out_shape if sp_out else p.shape))
            if not isinstance(g, np.ndarray):
                problem = ArgumentTypeError, "NdPlan.scatter: g must be a numpy array on the root, got {}".format(
                    type(g).__name__)
            elif g.dtype != dt:
                problem = ArgumentTypeError, "NdPlan.scatter: g has dtype {}, the global {} is {}".format(
                    g.dtype, space, dt)
            elif tuple(g.shape) != gshape:
                problem = InvalidArgument, "NdPlan.scatter: g has shape {}, the global {} is {}".format(
                    tuple(g.shape), space, gshape)
        if problem is None and out is not None:
            problem = self._check("NdPlan.scatter", out, shape, dt, True, "out")
        agree(lambda k, msg: _core.agree(handle_of(self.mpi_comm), k, msg), problem)
        agree_same(self._comm, "NdPlan.scatter", [("root", int(root)), ("space", space)])
        if out is None:
            out = np.empty(shape, dt)
        comm = self._comm
        if me == root:
            for r in range(comm.size):
                sl = self.out_slices_of(r) if sp_out else self.in_slices_of(r)
                block = np.ascontiguousarray(g[sl].transpose(self._order) if sp_out else g[sl])
                if r == me:
                    out[...] = block
                elif block.size:
                    comm.Send(block, dest=r, tag=8)
        elif out.size:
            comm.Recv(out, source=int(root), tag=8)
        return out

    def __enter__(self) -> "NdPlan":
        return self

    def __exit__(self, exc_type: Optional[Type[BaseException]], exc: Optional[BaseException],
                 tb: Optional[TracebackType]) -> None:
        self.close()

    def __repr__(self) -> str:
        if self._p is None:
            return "<nbfft.NdPlan closed>"
        return "<nbfft.NdPlan {}>".format(self.describe())
