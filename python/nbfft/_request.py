"""nbfft.Request: the one handle of everything nbfft starts now and finishes later.

A split-phase transform of a ``Plan`` or an ``NdPlan`` (``forward_start`` /
``backward_start``), a transpose (``Pencils.start``) and a background write
(``nbfft.io.File.write_start``) all return one. ``NdPending``, ``PencilsPending`` and
``nbfft.io.Pending`` are earlier names of this class.
"""

from types import TracebackType
from typing import Any, Optional, Tuple, Type

from ._errors import Error

__all__ = ["Request"]


class Request:
    """An operation started and not yet finished; ``wait()`` finishes it.

    ``progress()`` gives what is in flight a host progress pass (with a caller engine the
    exchange moves only inside nbfft's calls); ``test()`` does so and says whether it has
    arrived; ``wait()`` finishes it (a transform runs its stages left there) and is then a
    no-op, as ``test()`` is then True. Whether ``wait()`` is collective is the starting
    call's rule (its docstring says): a forward transform's and a transpose's wait are
    local, a backward 3-D transform's and a background write's are collective.

    It keeps the arrays (and the plan) alive until it finishes; ``out`` is the operation's
    output array (None for a write), holding the result after ``wait()``. Do not write the
    input or read the output before then. As a context manager it waits at the end of the
    block. A request collected unwaited finishes as its kind must: a transform or a
    transpose is waited for (so drop it at the same point on every rank), a write completes
    this rank's part and the file's ``close()`` reports its error.

    Examples
    --------
    >>> r = plan.forward_start(u); other_work(); r.wait(); U = r.out
    >>> with f.write_start(plan, "u", u, step=3):
    ...     u = step_forward(plan, u)
    """

    def __init__(self, core: Any, what: str, owner: Any = None,
                 arrays: Optional[Tuple[Any, ...]] = None, out: Any = None,
                 finish_on_arrival: bool = False) -> None:
        self._r: Any = core
        self._what = what
        self._owner = owner  # the plan or pencils whose work areas and communicator it uses
        self._arrays = arrays
        self._finish_on_arrival = finish_on_arrival  # a local wait: finish as soon as it arrives
        self.out = out

    @property
    def active(self) -> bool:
        """Whether the operation is in flight: started and not yet finished (a write: not
        yet settled by a wait on any rank or by the file's ``close()``)."""
        return bool(self._r.active)

    @property
    def done(self) -> bool:
        """Whether this request was waited for here (its result is then in place)."""
        return not self._r.valid

    def progress(self) -> None:
        """A host progress pass for what is in flight. Local."""
        if self._r.valid:
            self._r.progress()

    def test(self) -> bool:
        """``progress()``, then whether the operation has arrived. Local; never blocks. A
        transform's ``wait()`` is still needed afterwards (its stages after the exchange run
        there); a transpose is unpacked here once it has arrived."""
        if not self._r.valid:
            return True
        arrived = bool(self._r.test())
        if arrived and self._finish_on_arrival:
            self.wait()
        return arrived

    def wait(self) -> None:
        """Finishes the operation (without holding the GIL) and raises its error, the same
        on every rank; afterwards a no-op."""
        if self._r.valid:
            self._r.wait()
        self._arrays = None
        self._owner = None

    def __enter__(self) -> "Request":
        return self

    def __exit__(self, exc_type: Optional[Type[BaseException]], exc: Optional[BaseException],
                 tb: Optional[TracebackType]) -> None:
        if exc_type is None:
            self.wait()
            return
        try:
            self.wait()
        except Error:
            pass  # the block's own exception is the one to see

    def __repr__(self) -> str:
        state = "done" if self.done else "in flight" if self.active else "arrived"
        return "<nbfft.Request {} {}>".format(self._what, state)
