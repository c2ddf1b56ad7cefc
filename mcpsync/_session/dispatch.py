"""The dispatch thread: where a client runs user callbacks, in arrival order.

The reader thread only queues work here, so a slow or blocking handler never
stops responses from being read, and a handler may call back into the client
(even wait for a response) without deadlock.
"""

from __future__ import annotations

import logging
import queue
import threading
from typing import Any, Callable, Optional

from .._wire.interrupts import Latch

__all__ = ["Dispatcher"]

logger = logging.getLogger("mcpsync.client")

_STOP = object()


class Dispatcher:
    """One worker thread running queued calls in order; started at once, stopped by ``close``."""

    def __init__(self, name: str) -> None:
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._closed = False
        self._thread = threading.Thread(target=self._run, name=f"mcpsync-dispatch-{name}", daemon=True)
        self._thread.start()

    @property
    def thread(self) -> threading.Thread:
        """The worker thread."""
        return self._thread

    def submit(self, fn: Callable[..., Any], *args: Any) -> None:
        """Queue ``fn(*args)``; dropped (with a debug log) once the dispatcher is closed."""
        if self._closed:
            logger.debug("dispatcher closed; dropped %r", fn)
            return
        self._queue.put((fn, args))

    def drain(self, timeout: float) -> bool:
        """Wait until the calls queued so far have run; ``False`` if ``timeout`` seconds passed first.

        Returns ``True`` at once on the dispatch thread itself (it cannot wait
        for its own queue) and once the dispatcher is closed.
        """
        if self._closed or self._thread is threading.current_thread():
            return True
        done = Latch()  # not an Event: the caller may be interrupted while it waits
        self._queue.put((done.set, ()))
        return done.wait(timeout)

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is _STOP:
                return
            fn, args = item
            try:
                fn(*args)
            except Exception:
                logger.exception("callback %r failed", fn)

    def close(self, timeout: Optional[float] = 5.0) -> None:
        """Stop after the work already queued, waiting at most ``timeout`` seconds."""
        if not self._closed:
            self._closed = True
            self._queue.put(_STOP)
        if self._thread is not threading.current_thread():
            self._thread.join(timeout)
            if self._thread.is_alive():
                logger.warning("dispatch thread %s still busy after %ss", self._thread.name, timeout)
