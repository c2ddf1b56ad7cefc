"""A small pool of named worker threads for one transport: started on demand, joined with a bound.

The HTTP transports run here what no caller waits for on its own thread:
``send_request`` exchanges, GET streams handed over, notices (cancellations)
sent in the background. The threads are ``mcpsync-<role>-<server>-<n>``;
``close`` stops taking work, lets running jobs (and, asked to drain, queued
ones) end, bounded, and returns the jobs never started (a transport's owner has failed their requests already).
"""

from __future__ import annotations

import collections
import logging
import threading
import time
from typing import Callable

from .._core.errors import TransportClosed

__all__ = ["Workers"]

logger = logging.getLogger("mcpsync.transport")

Job = Callable[[], object]


class Workers:
    """At most ``size`` threads running submitted jobs in order of submission.

    Args:
        name: the thread names' stem (``mcpsync-http-<server>``).
        size: threads at most; more jobs wait in the queue.
    """

    def __init__(self, name: str, size: int) -> None:
        self._name = name
        self._size = size
        self._queue: collections.deque[Job] = collections.deque()
        self._lock = threading.Condition(threading.Lock())
        self._threads: list[threading.Thread] = []
        self._idle = 0
        self._closed = False

    @property
    def threads(self) -> list[threading.Thread]:
        """The threads started so far."""
        return list(self._threads)

    def submit(self, job: Job) -> None:
        """Queue ``job``; a worker runs it as soon as one is free.

        Raises:
            TransportClosed: the pool is closed.
        """
        with self._lock:
            if self._closed:
                raise TransportClosed(f"{self._name}: closed")
            self._queue.append(job)
            if self._idle:
                self._idle -= 1  # claimed now: a second submit must not count on the same worker
                self._lock.notify()
            elif len(self._threads) < self._size:
                thread = threading.Thread(target=self._run, name=f"{self._name}-{len(self._threads) + 1}", daemon=True)
                self._threads.append(thread)
                thread.start()

    def _run(self) -> None:
        while True:
            with self._lock:
                while not self._queue and not self._closed:
                    self._idle += 1
                    self._lock.wait()
                if not self._queue:
                    return
                job = self._queue.popleft()
            try:
                job()
            except Exception:
                logger.exception("%s: a job failed", self._name)

    def close(self, timeout: float, *, drain: bool = False) -> list[Job]:
        """Stop taking work and join the threads, waiting ``timeout`` seconds in all; returns the jobs never started.

        ``drain``: the jobs already queued still run, as far as ``timeout`` allows.
        """
        with self._lock:
            self._closed = True
            left = [] if drain else list(self._queue)
            if not drain:
                self._queue.clear()
            self._lock.notify_all()
        deadline = time.monotonic() + timeout
        for thread in self._threads:
            if thread is not threading.current_thread():
                thread.join(max(0.0, deadline - time.monotonic()))
                if thread.is_alive():
                    logger.warning("thread %s did not stop within %ss", thread.name, timeout)
        if drain:
            with self._lock:
                left = list(self._queue)
                self._queue.clear()
        return left
