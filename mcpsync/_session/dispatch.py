"""The dispatch thread: where a client runs user callbacks, in arrival order.

The reader thread only queues work here, so a slow or blocking handler never
stops responses from being read, and a handler may call back into the client
(even wait for a response) without deadlock.

The queue is bounded for what can be dropped: a server that floods
notifications faster than the callbacks take them (2 M log messages against a
1 ms ``on_log`` grew the queue to 1.2 GB) has the surplus dropped, counted
and warned about; the reader never waits for room, so answers keep flowing.
What cannot be dropped (the server's requests, which want an answer) is
always queued. ``close`` lets what is queued run for ``CLOSE_DRAIN`` seconds
at most, drops the rest, and ends the thread.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from typing import Any, Callable, Optional

from .._threads.latches import Latch

__all__ = ["DEFAULT_MAX_QUEUED", "Dispatcher"]

logger = logging.getLogger("mcpsync.client")

#: Droppable calls that may wait at once; more are dropped.
DEFAULT_MAX_QUEUED = 10_000
#: Seconds between two warnings about dropped calls.
DROP_WARNING_INTERVAL = 5.0
#: Seconds ``close`` lets the calls already queued run; what is left then is dropped.
CLOSE_DRAIN = 1.0

_STOP = object()


class Dispatcher:
    """One worker thread running queued calls in order; started at once, stopped by ``close``.

    Args:
        name: the server's name (the thread is ``mcpsync-dispatch-<name>``).
        max_queued: droppable calls that may wait at once (``submit(..., droppable=True)``).
        on_drop: called (on the submitting thread; it must not block) each time a call is dropped.
    """

    def __init__(
        self,
        name: str,
        max_queued: int = DEFAULT_MAX_QUEUED,
        on_drop: Optional[Callable[[], None]] = None,
    ) -> None:
        self._name = name
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._max_queued = max_queued
        self._on_drop = on_drop
        self._closed = False
        self._drain_until = 0.0  # once closed: queued calls run until then, the rest are dropped
        self._dropped = 0
        self._warned_at = -DROP_WARNING_INTERVAL
        self._thread = threading.Thread(target=self._run, name=f"mcpsync-dispatch-{name}", daemon=True)
        self._thread.start()

    @property
    def thread(self) -> threading.Thread:
        """The worker thread."""
        return self._thread

    @property
    def dropped(self) -> int:
        """How many droppable calls were dropped because the queue was full."""
        return self._dropped

    def submit(self, fn: Callable[..., Any], *args: Any, droppable: bool = False) -> None:
        """Queue ``fn(*args)``; dropped (with a debug log) once the dispatcher is closed.

        ``droppable``: drop it (counted, warned about) rather than queue it
        when ``max_queued`` calls are waiting already.
        """
        if self._closed:
            logger.debug("dispatcher closed; dropped %r", fn)
            return
        if droppable and self._queue.qsize() >= self._max_queued:
            self._drop()
            return
        self._queue.put((fn, args))

    def _drop(self) -> None:
        self._dropped += 1
        if self._on_drop is not None:
            self._on_drop()
        now = time.monotonic()
        if now - self._warned_at >= DROP_WARNING_INTERVAL:
            self._warned_at = now
            logger.warning(
                "server %r: its notifications come faster than the callbacks take them; "
                "%d dropped so far (%d may wait at once)",
                self._name,
                self._dropped,
                self._max_queued,
            )

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
            if self._closed and time.monotonic() > self._drain_until:
                continue  # closed, and its time for the queue is up: dropped, up to the stop
            fn, args = item
            try:
                fn(*args)
            except Exception:
                logger.exception("callback %r failed", fn)

    def close(self, timeout: Optional[float] = 5.0) -> None:
        """Let what is queued run for ``CLOSE_DRAIN`` seconds, drop the rest, and join the thread.

        Waits ``timeout`` seconds at most (a callback may be slow to return).
        """
        if not self._closed:
            self._drain_until = time.monotonic() + CLOSE_DRAIN
            self._closed = True
            self._queue.put(_STOP)
        if self._thread is not threading.current_thread():
            self._thread.join(timeout)
            if self._thread.is_alive():
                logger.warning("dispatch thread %s still busy in a callback after %ss", self._thread.name, timeout)
