"""nbfft's exceptions: one class per kind of nbfft::Error (include/nbfft/error.hpp).

Every error carries ``message`` (what went wrong, in the caller's terms), ``code`` (the
C ABI's number, 1..8) and ``kind`` (its name). Each class also derives from the built-in
exception a Python user would catch for that kind (``ValueError``, ``MemoryError``, ...).
Errors of collective calls are raised on every rank; the message then ends with the
failing rank ("... [rank 2]").
"""

from typing import Any, Callable, List, Optional, Sequence, Tuple, Type

from . import _core


class Error(Exception):
    """Base class of every error nbfft raises."""

    code: int = 0
    kind: str = "unknown"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class InvalidArgument(Error, ValueError):
    """A value passed is malformed, out of range, or too small (code 1)."""

    code = 1


class ArgumentTypeError(InvalidArgument, TypeError):
    """An argument of the wrong type or dtype (code 1, also a ``TypeError``)."""


class RanksDisagree(Error, ValueError):
    """Ranks passed different values for something that must agree (code 2)."""

    code = 2


class Unavailable(Error, RuntimeError):
    """Valid, but this MPI, build or thread level cannot do it here (code 3)."""

    code = 3


class MpiError(Error, RuntimeError):
    """An MPI call failed (code 4)."""

    code = 4


class OutOfMemory(Error, MemoryError):
    """An allocation failed or a size cannot be addressed (code 5)."""

    code = 5


class IoError(Error, OSError):
    """A file could not be read, written or parsed (code 6)."""

    code = 6

    def __init__(self, message: str) -> None:
        OSError.__init__(self, message)
        self.message = message


class InvalidState(Error, RuntimeError):
    """Misuse of an object: closed, busy, or MPI not running (code 7)."""

    code = 7


class InternalError(Error, RuntimeError):
    """A bug in nbfft; please report it (code 8)."""

    code = 8


_BY_CODE = {c.code: c for c in (InvalidArgument, RanksDisagree, Unavailable, MpiError, OutOfMemory,
                                IoError, InvalidState, InternalError)}
for _c in _BY_CODE.values():
    _c.kind = _core.error_code_name(_c.code)
ArgumentTypeError.kind = InvalidArgument.kind


def from_code(code: int, message: str) -> Error:
    """The exception for an nbfft::Error of the given code (used by the C++ translator)."""
    return _BY_CODE.get(code, Error)(message)


_core._set_error_factory(from_code)

# Kinds the Python-side checks agree on across ranks (index + 1 travels over MPI).
_AGREED: List[Type[Error]] = [InvalidArgument, ArgumentTypeError, RanksDisagree, Unavailable, InvalidState]


def agree(agree_fn: Callable[[int, str], Tuple[int, str]], problem: Optional[Tuple[Type[Error], str]]) -> None:
    """Makes a local check collective.

    ``problem`` is None or ``(exception_class, message)``; ``agree_fn(kind, message)`` is
    the C++ agreement over the right communicator. Raises the lowest failing rank's error
    on every rank.
    """
    if problem is None:
        kind, message = 0, ""
    else:
        kind, message = _AGREED.index(problem[0]) + 1, problem[1]
    kind, message = agree_fn(kind, message)
    if kind:
        raise _AGREED[kind - 1](message)

def agree_same(comm: Any, what: str, fields: Sequence[Tuple[str, Any]]) -> None:
    """Every rank of the mpi4py ``comm`` must pass the same ``fields`` ((name, value)
    pairs): otherwise RanksDisagree on every rank naming the first that differs and two
    ranks' values, as C++'s check_same. Collective (one allgather)."""
    every = comm.allgather([v for _, v in fields])
    for i, (name, mine) in enumerate(fields):
        for r, values in enumerate(every):
            if values[i] != every[0][i]:
                raise RanksDisagree("{}: ranks disagree on {}: rank 0 has {!r}, rank {} has {!r} (it must be the "
                                    "same on every rank)".format(what, name, every[0][i], r, values[i]))


for _k in [Error, ArgumentTypeError] + list(_BY_CODE.values()):
    _k.__module__ = "nbfft"  # shown as nbfft.InvalidArgument in tracebacks
