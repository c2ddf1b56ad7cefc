"""Progress of requests in flight: unique tokens, and what each token's notifications do.

A request that wants progress carries ``_meta.progressToken``; the server then
sends ``notifications/progress`` with that token. The reader thread records
the time of each (it keeps the request's timeout alive) and the client's
dispatch thread calls the user's callback with ``(progress, total, message)``.
"""

from __future__ import annotations

import itertools
import threading
import time
from typing import Any, Callable, Optional

from .._threads.signals import DEFERRED
from .channel import Channel
from .dispatch import Dispatcher

__all__ = [
    "PROGRESS_DRAIN_WAIT",
    "ProgressCallback",
    "ProgressTokens",
    "ProgressWatch",
    "request_with_progress",
    "with_progress_token",
]

ProgressCallback = Callable[[float, Optional[float], Optional[str]], None]
#: Seconds a call with ``on_progress`` waits, after its answer, for the progress callbacks queued before it.
PROGRESS_DRAIN_WAIT = 1.0


class ProgressWatch:
    """One request's progress: the callback, and when the last notification came."""

    __slots__ = ("callback", "last", "notified")

    def __init__(self, callback: Optional[ProgressCallback]) -> None:
        self.callback = callback
        self.last = time.monotonic()
        self.notified = False  # whether any notification came for it


class ProgressTokens:
    """The progress tokens of this client's requests in flight; thread-safe."""

    def __init__(self, prefix: str = "mcpsync") -> None:
        self._prefix = prefix
        self._numbers = itertools.count(1)
        self._lock = threading.Lock()
        self._watches: dict[str, ProgressWatch] = {}

    def open(self, callback: Optional[ProgressCallback]) -> tuple[str, ProgressWatch]:
        """A fresh token (unique among this client's requests) and its watch."""
        token = f"{self._prefix}-{next(self._numbers)}"
        watch = ProgressWatch(callback)
        with self._lock:
            self._watches[token] = watch
        return token, watch

    def close(self, token: str) -> None:
        """Forget a token: later notifications for it are ignored."""
        with self._lock:
            self._watches.pop(token, None)

    def notified(self, params: Any) -> Optional[tuple[ProgressCallback, tuple[Any, ...]]]:
        """Record a ``notifications/progress``; return the callback and its arguments, if any.

        Notifications with an unknown token or a malformed ``progress`` are ignored.
        """
        if not isinstance(params, dict):
            return None
        token = params.get("progressToken")
        with self._lock:
            watch = self._watches.get(token) if isinstance(token, str) else None
        progress = params.get("progress")
        if watch is None or isinstance(progress, bool) or not isinstance(progress, (int, float)):
            return None
        watch.last = time.monotonic()
        watch.notified = True
        if watch.callback is None:
            return None
        total = params.get("total")
        message = params.get("message")
        return watch.callback, (
            progress,
            total if isinstance(total, (int, float)) and not isinstance(total, bool) else None,
            message if isinstance(message, str) else None,
        )


def with_progress_token(params: Optional[dict[str, Any]], token: str) -> dict[str, Any]:
    """A copy of ``params`` whose ``_meta`` carries ``progressToken``."""
    params = dict(params or {})
    meta = dict(params.get("_meta") or {})
    meta["progressToken"] = token
    params["_meta"] = meta
    return params


def request_with_progress(
    channel: Channel,
    tokens: ProgressTokens,
    dispatcher: Dispatcher,
    method: str,
    params: Optional[dict[str, Any]],
    seconds: Optional[float],
    on_progress: Optional[ProgressCallback],
    max_total_timeout: Optional[float],
    progress_resets_timeout: Optional[bool],
) -> dict[str, Any]:
    """One request with a progress token (``on_progress``), or a cap on its time whatever its activity
    (see ``Client.request``); the callbacks of the progress sent before the answer have run when it returns."""
    if progress_resets_timeout is None:
        progress_resets_timeout = True  # the caller asked for progress, or for a cap on it
    with DEFERRED:
        token, watch = tokens.open(on_progress)
    try:
        result = channel.request(
            method,
            with_progress_token(params, token),
            timeout=seconds,
            max_total=max_total_timeout,
            last_activity=(lambda: watch.last) if progress_resets_timeout else None,
        )
    finally:
        with DEFERRED:
            tokens.close(token)
    if on_progress is not None and watch.notified:
        # The server sent its progress before the answer; let the callbacks see all of it before we return.
        dispatcher.drain(PROGRESS_DRAIN_WAIT)
    return result
