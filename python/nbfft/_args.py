"""The checks of integer and per-axis arguments, shared by every public function.

Sizes, axes, counts, steps, strides, ranks and indices take Python ints and numpy integer
scalars only: a bool is no count, 8.9 is not silently 8 and "8" is a string. A wrong type
raises ``ArgumentTypeError`` (also a ``TypeError``), a value out of range
``InvalidArgument`` (a ``ValueError``); each message names the call, the argument and the
value given. Ranges stop where the C++ side's types do (``int``, ``int64_t``), so no value
reaches the bindings to overflow there. The checks raise; a collective caller catches
``InvalidArgument`` and agrees on it (``problem_of``).
"""

import numbers
from typing import Any, Callable, Optional, Tuple, Type

import numpy as np

from ._errors import ArgumentTypeError, Error, InvalidArgument

INT_MAX = 2**31 - 1  # a C int
INT64_MAX = 2**63 - 1  # a C int64_t
EXTENT_MAX = 2**62  # a grid extent: sums and products of a few stay in int64_t
_BOUNDS = {INT_MAX: "2**31 - 1", INT64_MAX: "2**63 - 1", EXTENT_MAX: "2**62", -INT_MAX - 1: "-2**31",
           -INT64_MAX - 1: "-2**63"}
Problem = Optional[Tuple[Type[Error], str]]


def is_int(value: Any) -> bool:
    """Whether ``value`` is an int or a numpy integer scalar (a bool is not)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def is_number(value: Any) -> bool:
    """Whether ``value`` is a real number: int, float or a numpy one (a bool is not)."""
    return isinstance(value, (numbers.Real, np.floating, np.integer)) and not isinstance(value, (bool, np.bool_))


def _bound(v: int) -> str:
    return _BOUNDS.get(v, str(v))


def _range_problem(what: str, name: str, v: int, lo: int, hi: int) -> Optional[str]:
    if lo <= v <= hi:
        return None
    if hi == INT64_MAX and v < lo:  # the upper end is only the C type's
        return "{}: {} must be >= {}, got {}".format(what, name, _bound(lo), v)
    return "{}: {} must be in [{}, {}], got {}".format(what, name, _bound(lo), _bound(hi), v)


def int_arg(what: str, name: str, value: Any, lo: int = -INT64_MAX - 1, hi: int = INT64_MAX) -> int:
    """``value`` as an int in [lo, hi]."""
    if not is_int(value):
        raise ArgumentTypeError("{}: {} must be an int, got {!r}".format(what, name, value))
    v = int(value)
    problem = _range_problem(what, name, v, lo, hi)
    if problem:
        raise InvalidArgument(problem)
    return v


def ints_arg(what: str, name: str, value: Any, length: Optional[int] = None, lo: int = -INT64_MAX - 1,
             hi: int = INT64_MAX) -> Tuple[int, ...]:
    """``value`` (a sequence: tuple, list, 1-D integer array) as a tuple of ints, each in
    [lo, hi], of ``length`` entries when given."""
    items = None
    if not isinstance(value, (str, bytes)):
        try:
            items = list(value)
        except TypeError:
            pass
    bad = [k for k, v in enumerate(items or []) if not is_int(v)]
    if items is None or bad:
        raise ArgumentTypeError("{}: {} must be a sequence of ints, got {!r}{}".format(
            what, name, value, " (entry {} is {!r})".format(bad[0], items[bad[0]]) if items else ""))
    if length is not None and len(items) != length:
        raise InvalidArgument("{}: {} must have {} entries, got {!r}".format(what, name, length, value))
    for k, v in enumerate(items):
        problem = _range_problem(what, "{}[{}]".format(name, k), int(v), lo, hi)
        if problem:
            raise InvalidArgument(problem)
    return tuple(int(v) for v in items)


def rank_arg(what: str, name: str, value: Any, size: int) -> int:
    """``value`` as a rank of a communicator of ``size`` ranks."""
    if not is_int(value):
        raise ArgumentTypeError("{}: {} must be an int (a rank), got {!r}".format(what, name, value))
    if not 0 <= value < size:
        raise InvalidArgument("{}: {} {} is not a rank of the {} ranks (0 to {})".format(
            what, name, value, size, size - 1))
    return int(value)


def real_arg(what: str, name: str, value: Any, lo: float = 0.0, strict: bool = True) -> float:
    """``value`` as a finite float above ``lo`` (at least ``lo`` when not ``strict``)."""
    if not is_number(value):
        raise ArgumentTypeError("{}: {} must be a number, got {!r}".format(what, name, value))
    v = float(value)
    if not (np.isfinite(v) and (v > lo if strict else v >= lo)):
        raise InvalidArgument("{}: {} must be finite and {} {:g}, got {!r}".format(
            what, name, ">" if strict else ">=", lo, value))
    return v


def per_axis_arg(what: str, name: str, value: Any, count: int, lo: float = 0.0, strict: bool = True,
                 scalar: bool = True, order: str = "one per axis") -> Tuple[float, ...]:
    """One number for every axis (when ``scalar``) or a sequence of ``count`` numbers (in
    ``order``), each finite and above ``lo`` (at least ``lo`` when not ``strict``)."""
    items = None
    if not isinstance(value, (str, bytes)):
        try:
            items = list(value)
        except TypeError:  # no sequence: one number for every axis
            if scalar:
                return (real_arg(what, name, value, lo, strict),) * count
    if items is None:
        raise ArgumentTypeError("{}: {} must be {}a sequence of {} numbers, got {!r}".format(
            what, name, "a number or " if scalar else "", count, value))
    if len(items) != count:
        raise InvalidArgument("{}: {} has {} entries, {} wanted ({}), got {!r}".format(
            what, name, len(items), count, order, value))
    return tuple(real_arg(what, "{}[{}]".format(name, k), v, lo, strict) for k, v in enumerate(items))


def bytes_dtype_problem(what: str, name: str, dtype: "np.dtype[Any]") -> Problem:
    """None, or why arrays of ``dtype`` cannot travel between ranks as their bytes."""
    if dtype.hasobject:
        return ArgumentTypeError, "{}: {} has dtype {}, whose elements are Python objects: their addresses " \
                                  "mean nothing on another rank".format(what, name, dtype)
    return None


def flag_arg(what: str, name: str, value: Any) -> bool:
    """``value`` as a bool: True or False (numpy's too), not 1 or "yes"."""
    if not isinstance(value, (bool, np.bool_)):
        raise ArgumentTypeError("{}: {} must be True or False, got {!r}".format(what, name, value))
    return bool(value)


def problem_of(e: Error) -> Tuple[Type[Error], str]:
    """A raised check as the ``(class, message)`` problem the ranks agree on."""
    return type(e), e.message


def check_problem(check: Callable[..., Any], *args: Any) -> Problem:
    """None, or the problem ``check(*args)`` raised (for checks whose value is not needed)."""
    try:
        check(*args)
    except InvalidArgument as e:
        return problem_of(e)
    return None
