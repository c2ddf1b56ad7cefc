"""One callback at a time with the latest value: ``Announcer`` (the manager's ``on_tools_changed``)."""

from __future__ import annotations

import logging
import threading
from typing import Callable, Generic, Optional, TypeVar

__all__ = ["Announcer"]

logger = logging.getLogger("mcpsync.manager")

T = TypeVar("T")


class Announcer(Generic[T]):
    """Call ``callback(latest())`` whenever ``announce()`` is asked; one call at a time, the last with
    the latest value.

    Threads announce at once (supervisors, dispatch threads). The first becomes the announcer and
    runs the callback, without ``lock``, until no change is left to announce; the others only ask it
    for one more round. ``latest`` and ``stopped`` are asked under ``lock``; a callback that fails is
    logged.
    """

    def __init__(
        self,
        lock: threading.RLock,
        latest: Callable[[], T],
        stopped: Callable[[], bool],
        callback: Callable[[], Optional[Callable[[T], object]]],
    ) -> None:
        self._lock = lock
        self._latest = latest
        self._stopped = stopped
        self._callback = callback  # asked each round: the owner's attribute may change
        self._running = False  # a thread is calling the callback
        self._wanted = False  # the value changed since it took it

    def announce(self) -> None:
        """Announce the latest value now, or have the thread announcing do one more round."""
        if self._callback() is None:
            return
        with self._lock:
            self._wanted = True
            if self._running:
                return
            self._running = True
        try:
            while True:
                with self._lock:
                    callback = self._callback()
                    if not self._wanted or self._stopped() or callback is None:
                        self._running = False  # in the same hold as the check: no request is missed
                        return
                    self._wanted = False
                    value = self._latest()
                try:
                    callback(value)
                except Exception:
                    logger.exception("manager: on_tools_changed failed")
        except BaseException:  # Ctrl-C in the callback: let the next change find no announcer
            with self._lock:
                self._running = False
            raise
