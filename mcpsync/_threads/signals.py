"""Ctrl-C on the main thread, made safe: held back over critical sections, delivered right after.

Python raises ``KeyboardInterrupt`` in the main thread between any two
bytecodes, also inside code that is not written to survive it: in urllib3's
connection pool while it holds its queue's lock, in ``threading.Condition.wait``
between releasing and re-taking its lock, in our own ``with lock:`` blocks. A
notebook user pressing "interrupt kernel" at such a moment would leave a lock
held and the client hung.

So the main thread does its locked work (registering a request, writing it,
an HTTP exchange) inside ``deferred_interrupts()``. Meanwhile SIGINT's handler
only records the interrupt and runs the section's ``on_interrupt`` callbacks,
which cut what the section waits on (an HTTP exchange's socket) so that it
ends at once, by an ordinary exception, through code that handles those. When
the outermost section ends, the original handler is called: the
``KeyboardInterrupt`` is raised there, where nothing is held. Waits *outside*
these sections (on a request's future) take no shared lock and are
interrupted directly.

Other threads never receive ``KeyboardInterrupt``: for them this is a no-op.
SIGINT and its handler belong to the whole process, so the record of the
main thread's section lives in this module. The waits that must survive an
interrupt (``Latch``, ``Changes``) are in latches.py.
"""

from __future__ import annotations

import _signal  # type: ignore[import-not-found]  # the C module behind signal
import math
import os
import signal
import threading
import time
from typing import Any, Callable, Optional

__all__ = ["DEFERRED", "POLL", "acquire_deferred", "deferred_interrupts", "interrupted"]

#: Seconds between looks at the interrupt flag while a deferred section waits for a lock.
POLL = 0.05


class _Handler:
    """Our SIGINT handler, in front of the one it replaced (``original``).

    One is made each time ours has to be put in front again, and each keeps
    the handler it replaced: code that saves the current handler, installs
    its own and later restores the saved one (ipykernel does, around each
    cell) restores a handler of ours that still knows what stood behind it.
    """

    __slots__ = ("original",)

    def __init__(self, original: Callable[[int, Any], Any]) -> None:
        self.original = original

    def __call__(self, signum: int, frame: Any) -> None:
        """In a section, only note the interrupt and run the callbacks: this runs between two bytecodes
        of the main thread, so it takes no lock, and neither may they. Elsewhere: the replaced handler."""
        state = _main
        if state.depth == 0:
            self.original(signum, frame)
            return
        state.interrupted = True
        for callback in list(state.callbacks):
            try:
                callback()
            except Exception:  # a cut that fails leaves the wait to its own bound
                pass


class _MainThread:
    """What the main thread's deferred sections share: nesting depth, the interrupt noted, callbacks.

    Our handler stays installed after the first section: entering and
    leaving one costs a look at the current handler (a C call of a few
    nanoseconds), not two ``sigaction`` calls; outside a section it hands
    the signal to the handler it replaced, so Ctrl-C behaves as before.
    """

    def __init__(self) -> None:
        self.depth = 0
        #: ``DEFERRED`` sections open that could defer nothing (no handler of ours could be put in front).
        self.undeferred = 0
        self.interrupted = False
        self.callbacks: list[Callable[[], None]] = []
        self.handler: Optional[_Handler] = None  # the one in effect for the current section

    def install(self) -> bool:
        """Make sure a handler of ours stands in front of SIGINT's; ``False`` if there is none to defer."""
        current = _getsignal(signal.SIGINT)
        if isinstance(current, _Handler):
            self.handler = current
            return True
        if not callable(current):  # SIG_IGN: nothing to defer; SIG_DFL or a C handler: not ours to wrap
            return False
        handler = _Handler(current)
        try:
            signal.signal(signal.SIGINT, handler)
        except (ValueError, TypeError):  # not the main interpreter
            return False
        self.handler = handler
        return True

    def deliver(self) -> None:
        """The section is over: the interrupt it held back happens now, as the replaced handler has it."""
        self.interrupted = False
        assert self.handler is not None
        self.handler.original(signal.SIGINT, None)


_main = _MainThread()
# The C function itself: signal.getsignal wraps it in Python and costs a hundred times as much.
_getsignal: Callable[[int], Any] = getattr(_signal, "getsignal", signal.getsignal)


_main_ident = threading.main_thread().ident
_get_ident = threading.get_ident
_SIGINT = signal.SIGINT


def _forked() -> None:  # a child forked from another thread: that thread is its main thread now
    global _main_ident
    _main_ident = threading.main_thread().ident


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forked)


def _on_main_thread() -> bool:
    return threading.get_ident() == _main_ident


class deferred_interrupts:  # used like a function: ``with deferred_interrupts():``
    """Hold SIGINT back on the main thread for the ``with`` block; deliver it at the end.

    Args:
        on_interrupt: called (from the signal handler; it must take no lock)
            when SIGINT arrives during the block, or at once if one is already
            waiting, so that what the block waits on ends early.
    """

    __slots__ = ("_active", "_callback")

    def __init__(self, on_interrupt: Optional[Callable[[], None]] = None) -> None:
        self._callback = on_interrupt
        self._active = False

    def __enter__(self) -> deferred_interrupts:
        if _get_ident() != _main_ident:
            return self
        state = _main
        undeferred = state.undeferred
        DEFERRED.__enter__()  # the section itself; this one keeps its own book of it (``_active``)
        if state.undeferred != undeferred:  # nothing to defer
            state.undeferred = undeferred
            return self
        self._active = True
        if self._callback is not None:
            state.callbacks.append(self._callback)
            if state.interrupted:
                self._callback()
        return self

    def __exit__(self, *exc_info: object) -> None:
        if not self._active:
            return
        self._active = False
        state = _main
        if self._callback is not None:
            state.callbacks.remove(self._callback)
        state.depth -= 1
        if state.depth == 0 and state.interrupted:
            state.deliver()


class _Deferred:
    """``deferred_interrupts()`` without a callback, as one object for every section (``DEFERRED``): no
    object made per section, for a section that every request opens. What a section did is kept in
    the main thread's record (``depth``, ``undeferred``), so one object serves nested sections and
    every thread."""

    __slots__ = ()

    def __enter__(self) -> _Deferred:
        if _get_ident() != _main_ident:
            return self
        state = _main
        if state.depth == 0:
            current = _getsignal(_SIGINT)
            if type(current) is _Handler:  # ours stands in front already: the usual case
                state.handler = current
            elif not state.install():
                state.undeferred += 1
                return self
            state.interrupted = False
        state.depth += 1
        return self

    def __exit__(self, *exc_info: object) -> None:
        if _get_ident() != _main_ident:
            return
        state = _main
        if state.undeferred:
            state.undeferred -= 1
            return
        state.depth -= 1
        if state.depth == 0 and state.interrupted:
            state.deliver()


#: ``with DEFERRED:`` is ``with deferred_interrupts():``, without making an object.
DEFERRED = _Deferred()


def interrupted() -> bool:
    """Whether a SIGINT is waiting for the end of the main thread's deferred section (``False`` elsewhere)."""
    return _main.interrupted and _main.depth > 0 and _on_main_thread()


def acquire_deferred(acquire: Callable[..., bool], timeout: Optional[float]) -> bool:
    """``acquire(timeout=...)`` of a lock or semaphore, ending early (``False``) on a deferred SIGINT.

    In a deferred section a SIGINT does not end a blocked ``acquire``; this
    looks at the flag every ``POLL`` seconds. Elsewhere it is one ``acquire``.
    ``None`` or ``math.inf``: no limit.
    """
    if acquire(False):  # free: the common case, at the cost of one call
        return True
    if timeout is not None and timeout == math.inf:
        timeout = None
    if not (_main.depth > 0 and _on_main_thread()):
        return acquire(timeout=-1 if timeout is None else max(0.0, timeout))
    end = None if timeout is None else time.monotonic() + timeout
    while not _main.interrupted:
        step = POLL if end is None else min(POLL, end - time.monotonic())
        if step <= 0:
            return bool(acquire(timeout=0))
        if acquire(timeout=step):
            return True
    return False
