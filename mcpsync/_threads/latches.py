"""Waits a ``KeyboardInterrupt`` cannot leave holding a lock: a one-shot latch and change notices.

``threading.Event`` and ``threading.Condition`` wait inside ``Condition.wait``,
which an interrupt can leave with its lock in the wrong hands. ``Latch`` waits
on a plain lock, in slices, and gives up when a deferred section of the main
thread has been interrupted (signals.py); ``Changes`` is ``notify_all`` for
waiters that hold nothing while they wait. The session and the manager wait
on these.
"""

from __future__ import annotations

import threading
import time
from typing import Optional

from .signals import POLL, interrupted

__all__ = ["Changes", "Latch"]


class Latch:
    """A one-shot event whose ``wait`` is safe to interrupt: a plain lock, not a ``Condition``.

    ``threading.Event.wait`` runs ``Condition.wait``, which a ``KeyboardInterrupt``
    can leave with its lock held, and then the thread that would ``set`` it hangs.
    """

    __slots__ = ("_lock", "_set", "_unset")

    def __init__(self) -> None:
        self._set = False
        self._unset = [True]  # popped by the one set() that opens the latch (list.pop is atomic)
        self._lock = threading.Lock()
        self._lock.acquire()

    def set(self) -> None:
        """Open the latch (once; later calls do nothing)."""
        try:
            self._unset.pop()
        except IndexError:
            return
        self._set = True
        self._lock.release()

    def is_set(self) -> bool:
        """Whether ``set`` has been called."""
        return self._set

    def wait(self, timeout: Optional[float] = None) -> bool:
        """Block until the latch is open, at most ``timeout`` seconds; returns whether it is.

        In a deferred section of the main thread, a SIGINT ends the wait too.
        """
        end = None if timeout is None else time.monotonic() + timeout
        while not self._set and not interrupted():
            # In slices: should an interrupt ever strand the lock with a waiter, the flag still frees the rest;
            # and _thread.interrupt_main(), which wakes no blocked thread, lands within one.
            step = POLL if end is None else min(POLL, end - time.monotonic())
            if step <= 0:
                break
            if self._lock.acquire(timeout=step):
                self._lock.release()
        return self._set


class Changes:
    """``Condition.notify_all`` and ``wait`` for waiters a ``KeyboardInterrupt`` may hit.

    ``Condition.wait`` re-takes its lock in a ``finally``; interrupted there, it
    leaves the lock in the wrong hands (and a ``RuntimeError`` on release).
    Here a waiter takes ``current()`` under the owner's lock, lets the lock go,
    then waits on that latch: nothing is held while it waits. ``notify_all``
    (under the same lock) opens the latch and puts a new one in its place.
    """

    __slots__ = ("_latch",)

    def __init__(self) -> None:
        self._latch = Latch()

    def current(self) -> Latch:
        """The latch the next ``notify_all`` opens (take it under the owner's lock)."""
        return self._latch

    def notify_all(self) -> None:
        """Wake every waiter (call it under the owner's lock)."""
        latch, self._latch = self._latch, Latch()
        latch.set()
