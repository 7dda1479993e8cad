"""Frees nbfft's MPI objects before MPI_Finalize.

Plans and collective communicators own duplicated communicators (and possibly RMA windows
and an engine thread). Freed after mpi4py has finalized MPI they would call MPI after
MPI_Finalize, so every such object registers here and an atexit handler closes whatever is
still open, newest first (a collective before its communicator). Prefer ``close()`` or a
``with`` block: freeing is collective, so every rank should free in the same order.
"""

import atexit
import itertools
import weakref
from typing import Any, Dict

_live: Dict[int, "weakref.ref[Any]"] = {}
_counter = itertools.count()


def register(obj: Any) -> int:
    key = next(_counter)
    _live[key] = weakref.ref(obj)
    return key


def unregister(key: int) -> None:
    _live.pop(key, None)


def close_all() -> None:
    """Closes every open nbfft object, newest first. Runs at exit; safe to call twice."""
    for key in sorted(_live, reverse=True):
        ref = _live.pop(key, None)
        obj = ref() if ref is not None else None
        if obj is not None:
            try:
                obj.close()
            except Exception:  # at exit, nothing useful can be done with it
                pass


atexit.register(close_all)
