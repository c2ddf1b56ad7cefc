"""The table of requests still waiting for their response (the correlator).

Each endpoint owns one. Ids come from a per-table counter and are never
reused. A request is registered *before* its bytes are written, so a response
can never arrive for an id the table does not know yet.
"""

from __future__ import annotations

import collections
import itertools
import threading
import time
from concurrent.futures import CancelledError, Future, InvalidStateError
from typing import Any, Callable, Optional

__all__ = ["PendingRequests", "RequestFuture"]

#: Seconds of each slice of a wait for an answer. Python runs a signal's handler only between
#: bytecodes, and only a real signal wakes a thread blocked in a lock's C-level wait:
#: ``_thread.interrupt_main()`` (a notebook's timer, a watchdog) only sets the flag. Waking this
#: often lets that interrupt land within a slice; an answer still ends the wait at once.
WAIT_SLICE = 0.05
#: How many abandoned ids we remember, to tell a late response from a wrong one. Under load with
#: many timeouts, 1024 was too few: answers a couple of seconds late were logged as strays.
ABANDONED_MEMORY = 16384


class RequestFuture(Future):  # type: ignore[type-arg]
    """A ``concurrent.futures.Future`` for one request, which knows its id and method.

    ``cancel()`` works as on any future; when it succeeds the request is
    forgotten and the server told (``notifications/cancelled``).

    Besides the ``Future`` API, ``wait_settled`` and ``settled_result`` wait
    for and read the outcome without the future's ``Condition``: a
    ``KeyboardInterrupt`` can arrive at any bytecode, and one that lands
    inside ``Condition.wait`` can leave its lock released twice or held. The
    gate here is a plain lock that only this future's waiter ever takes.
    """

    #: Extra HTTP headers of the request (a modern request's ``Mcp-Method`` and the like), or ``None``.
    headers: Optional[dict[str, str]] = None
    #: The request's tracing (``_session.tracing.RequestSpan``), or ``None``.
    span: Any = None

    def __init__(self, request_id: int, method: str, on_cancel: Optional[Callable[[RequestFuture], None]]) -> None:
        super().__init__()
        self.request_id = request_id
        self.method = method
        self._on_cancel = on_cancel
        # (True, result), (False, exception) once settled; written before the gate opens.
        self._outcome: Optional[tuple[bool, Any]] = None
        self._unsettled = [True]  # popped by the one _settle that settles (list.pop is atomic)
        self._gate = threading.Lock()
        self._gate.acquire()

    def set_result(self, result: Any) -> None:
        super().set_result(result)  # raises InvalidStateError if settled already
        # _settle, written out: this runs on the reader thread for every answer.
        try:
            self._unsettled.pop()
        except IndexError:
            return
        self._outcome = (True, result)
        self._gate.release()

    def set_exception(self, exception: Optional[BaseException]) -> None:
        super().set_exception(exception)
        self._settle((False, exception))

    def cancel(self) -> bool:
        """Cancel the request if it has not been answered; returns whether it was cancelled."""
        cancelled = super().cancel()
        if cancelled:
            self._settle((False, CancelledError()))
            if self._on_cancel is not None:
                on_cancel, self._on_cancel = self._on_cancel, None
                on_cancel(self)
        return cancelled

    def _settle(self, outcome: tuple[bool, Any]) -> None:
        try:
            self._unsettled.pop()  # two cancel() at once both succeed: only one may open the gate
        except IndexError:
            return
        self._outcome = outcome
        self._gate.release()

    @property
    def settled(self) -> bool:
        """Whether the request has its outcome (a result, an error, or cancelled); takes no lock."""
        return self._outcome is not None

    def wait_settled(self, timeout: Optional[float]) -> bool:
        """Block until the request is settled, at most ``timeout`` seconds (``None``: no limit).

        Safe to interrupt: an interrupt leaves nothing held that another thread needs. It waits
        in slices of ``WAIT_SLICE`` seconds, so that ``_thread.interrupt_main()`` ends it too.
        """
        if self._outcome is not None:
            return True
        end = None if timeout is None else time.monotonic() + timeout
        while True:
            step = WAIT_SLICE if end is None else min(WAIT_SLICE, end - time.monotonic())
            if self._gate.acquire(timeout=max(0.0, step)):
                self._gate.release()
                return True
            if self._outcome is not None:
                return True
            if step < WAIT_SLICE:  # the last slice, cut to the deadline, has passed
                return False

    def settled_result(self) -> Any:
        """The result of a settled request, or raise its error (``CancelledError`` if cancelled)."""
        assert self._outcome is not None, "settled_result() before the request was settled"
        ok, value = self._outcome
        if ok:
            return value
        raise value


class PendingRequests:
    """Futures of the requests in flight, keyed by request id; safe from any thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._futures: dict[Any, RequestFuture] = {}
        self._ids = itertools.count(1)
        self._abandoned: collections.OrderedDict[Any, None] = collections.OrderedDict()
        self._closed_error: Optional[Callable[[], BaseException]] = None

    def __len__(self) -> int:
        return len(self._futures)

    def next_id(self) -> int:
        """Return a fresh request id (thread-safe: ``itertools.count`` is atomic in CPython)."""
        return next(self._ids)

    def register(
        self,
        request_id: int,
        method: str,
        on_cancel: Optional[Callable[[RequestFuture], None]] = None,
    ) -> RequestFuture:
        """Create and store the future for a request about to be sent.

        Raises:
            the table's close error, if ``fail_all`` has run: nobody would
            ever resolve a future registered now.
        """
        future = RequestFuture(request_id, method, on_cancel)
        with self._lock:
            if self._closed_error is not None:
                raise self._closed_error()
            self._futures[request_id] = future
        return future

    def resolve(self, request_id: Any, result: Any) -> bool:
        """Give a request its result; ``False`` if no such request is waiting."""
        with self._lock:
            future = self._futures.pop(request_id, None)
        if future is None:
            return False
        try:
            future.set_result(result)
        except InvalidStateError:
            self._cancelled_meanwhile(request_id)
            return False
        return True

    def reject(self, request_id: Any, error: BaseException) -> bool:
        """Fail a request with ``error``; ``False`` if no such request is waiting."""
        with self._lock:
            future = self._futures.pop(request_id, None)
        if future is None:
            return False
        try:
            future.set_exception(error)
        except InvalidStateError:
            self._cancelled_meanwhile(request_id)
            return False
        return True

    def _cancelled_meanwhile(self, request_id: Any) -> None:
        # Its caller cancelled between our lookup and the answer: the answer is late, not stray.
        with self._lock:
            self._remember_abandoned(request_id)

    def discard(self, request_id: Any) -> bool:
        """Forget a request its caller gave up on; its late response will be recognised.

        Returns ``True`` if it was still waiting (so the server should be told).
        """
        with self._lock:
            future = self._futures.pop(request_id, None)
            if future is None:
                return False
            self._remember_abandoned(request_id)
        return True

    def waiting(self, request_id: Any) -> Optional[RequestFuture]:
        """The future of ``request_id`` if it still waits (it stays in the table)."""
        with self._lock:
            return self._futures.get(request_id)

    def was_abandoned(self, request_id: Any) -> bool:
        """Whether ``request_id`` belongs to a request given up on recently."""
        with self._lock:
            return request_id in self._abandoned

    def in_flight(self) -> list[RequestFuture]:
        """A snapshot of the futures still waiting."""
        with self._lock:
            return list(self._futures.values())

    def _remember_abandoned(self, request_id: Any) -> None:
        # Caller holds the lock.
        self._abandoned[request_id] = None
        if len(self._abandoned) > ABANDONED_MEMORY:
            self._abandoned.popitem(last=False)

    def fail_all(self, make_error: Callable[[], BaseException]) -> int:
        """Fail every waiting request and refuse new ones; returns how many failed.

        ``make_error`` builds one exception per future, so no two callers share
        (and re-raise, concurrently) the same exception object. The failed ids
        count as abandoned: a server answering them while the connection winds
        down is not mistaken for a server sending stray responses.
        """
        with self._lock:
            if self._closed_error is None:
                self._closed_error = make_error
            futures = list(self._futures.values())
            self._futures.clear()
            for future in futures:
                self._remember_abandoned(future.request_id)
        failed = 0
        for future in futures:
            try:
                future.set_exception(make_error())
                failed += 1
            except InvalidStateError:
                pass
        return failed
