"""The deadline watchdog: one thread that cuts whatever is still running when its deadline passes.

A socket's timeout bounds each read, not a whole exchange: a server that
trickles one byte, one header line or one keep-alive comment at a time, or
sends redirect after redirect, keeps every read short and the exchange alive
for ever. So each HTTP exchange with a deadline is watched here, and when the
deadline passes its ``cut`` runs (it shuts the exchange's socket down), which
ends the blocked read at once with an ordinary error, wherever the exchange
is: connecting, sending, waiting for headers, reading the body.

The thread starts with the first watched deadline and sleeps until the
earliest one; ``watch`` wakes it only when a new deadline comes earlier
than the one it sleeps towards, so a stream of calls that finish in time
costs a dictionary entry each, not a thread wake-up.
"""

from __future__ import annotations

import itertools
import logging
import math
import threading
import time
from typing import Callable, Optional

__all__ = ["Watchdog"]

logger = logging.getLogger("mcpsync.transport")


class Watchdog:
    """Cuts watched work whose deadline passed; one lazily started thread, joined by ``close``.

    Args:
        name: the server's name, for the thread's name (``mcpsync-watchdog-<name>``).
    """

    def __init__(self, name: str) -> None:
        self._name = name
        self._lock = threading.Condition(threading.Lock())
        self._watched: dict[int, tuple[float, Callable[[], None]]] = {}
        self._tokens = itertools.count(1)
        self._wake_at = math.inf  # the deadline the thread sleeps towards
        self._thread: Optional[threading.Thread] = None
        self._closed = False

    def watch(self, deadline: float, cut: Callable[[], None]) -> Optional[int]:
        """Run ``cut`` once ``time.monotonic()`` passes ``deadline``, unless ``unwatch`` comes first.

        Returns the token for ``unwatch`` (``None`` for an infinite deadline, which needs no watching).
        ``cut`` runs on the watchdog's thread and must not block.
        """
        if deadline == math.inf:
            return None
        token = next(self._tokens)
        with self._lock:
            if self._closed:
                return None
            self._watched[token] = (deadline, cut)
            if deadline < self._wake_at:
                self._wake_at = deadline
                if self._thread is None:
                    self._thread = threading.Thread(
                        target=self._run, name=f"mcpsync-watchdog-{self._name}", daemon=True
                    )
                    self._thread.start()
                else:
                    self._lock.notify()
        return token

    def unwatch(self, token: Optional[int]) -> None:
        """The work ended in time (or was cut): forget it. The thread is not woken for this."""
        if token is not None:
            with self._lock:
                self._watched.pop(token, None)

    def _run(self) -> None:
        with self._lock:
            while not self._closed:
                now = time.monotonic()
                due = [token for token, (deadline, _) in self._watched.items() if deadline <= now]
                cuts = [self._watched.pop(token)[1] for token in due]
                self._wake_at = min((deadline for deadline, _ in self._watched.values()), default=math.inf)
                if cuts:
                    self._lock.release()
                    try:
                        for cut in cuts:
                            try:
                                cut()
                            except Exception:
                                logger.exception("server %r: cutting work past its deadline failed", self._name)
                    finally:
                        self._lock.acquire()
                    continue
                self._lock.wait(None if self._wake_at == math.inf else self._wake_at - now)

    def close(self, timeout: float = 2.0) -> None:
        """Stop watching and join the thread (bounded); nothing is cut any more."""
        with self._lock:
            self._closed = True
            self._watched.clear()
            self._lock.notify()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)
            if thread.is_alive():
                logger.warning("thread %s did not stop within %ss", thread.name, timeout)
