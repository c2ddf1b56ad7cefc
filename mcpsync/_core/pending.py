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
from concurrent.futures import CancelledError, Future, InvalidStateError, _base as _futures
from typing import Any, Callable, Optional

__all__ = ["PendingRequests", "RequestFuture"]

# A Future's states, as concurrent.futures keeps them (RequestFuture writes them as Future does).
_PENDING, _RUNNING, _FINISHED = _futures.PENDING, _futures.RUNNING, _futures.FINISHED
_CANCELLED = _futures.CANCELLED
_CANCELLED_STATES = frozenset({_futures.CANCELLED, _futures.CANCELLED_AND_NOTIFIED})
_DONE_STATES = _CANCELLED_STATES | {_FINISHED}

#: Seconds of each slice of a wait for an answer. Python runs a signal's handler only between
#: bytecodes, and only a real signal wakes a thread blocked in a lock's C-level wait:
#: ``_thread.interrupt_main()`` (a notebook's timer, a watchdog) only sets the flag. Waking this
#: often lets that interrupt land within a slice; an answer still ends the wait at once.
WAIT_SLICE = 0.05
#: The settler's claim in a future's ``_claims``, before or after a ``Condition``'s (``RequestFuture._settle``).
_SETTLING: Any = object()
#: Seconds a ``Condition`` made while a settler writes the state waits for it (it takes bytecodes).
SETTLING_WAIT = 1.0
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

    The ``Condition`` of the ``Future`` API is made only when something uses
    it (``result()`` of a request not answered yet, ``add_done_callback``,
    ``concurrent.futures.wait``, ``asyncio.wrap_future``); most requests are
    waited for through the gate and never need one. Whoever settles the
    future first takes ``_unsettled``'s one item (``list.pop`` is atomic):
    the answer, an error or ``cancel()``, never two. The settler and whoever
    makes the ``Condition`` each append their claim to ``_claims``
    (``list.append`` is atomic) and the first one decides: a ``Condition``
    first, the settler writes the state and tells the waiters under it, as
    ``Future`` does; the settler first, it writes the state without a lock,
    and the ``Condition`` waits for the state before anyone uses it. So a waiter of ``concurrent.futures.wait`` or
    ``as_completed`` reads the state either before the settlement (and is
    told of it) or after it (and is not): never both, never neither (both
    happened, under load: ``as_completed`` yielded a future twice).
    """

    #: Extra HTTP headers of the request (a modern request's ``Mcp-Method`` and the like), or ``None``.
    headers: Optional[dict[str, str]] = None
    #: The request's tracing (``_session.tracing.RequestSpan``), or ``None``.
    span: Any = None
    #: Why the wire stopped working for the request when its time ran out (a token refresh that
    #: waited for another process, say), for its timeout to say; ``None``: nothing known.
    held_up_by: Optional[str] = None

    # Future.__init__'s fields: the immutable ones here, read by every request until it settles and
    # written on the instance when it does; the lists made by the first who needs them (see _condition).
    _state = _PENDING
    _result: Any = None
    _exception: Optional[BaseException] = None
    #: ``(True, result)`` or ``(False, exception)`` once settled, ``None`` before; written before the
    #: gate opens, so a waiter that ``wait_settled`` let through reads it without a lock.
    outcome: Optional[tuple[bool, Any]] = None

    def __init__(self, request_id: int, method: str, on_cancel: Optional[Callable[[RequestFuture], None]]) -> None:
        self.request_id = request_id
        self.method = method
        self._on_cancel = on_cancel
        self._unsettled = [True]  # popped by the one that settles (list.pop is atomic)
        #: Who came first, the settler (``_SETTLING``) or a ``Condition`` made for the Future API:
        #: appended to by both (``list.append`` is atomic), decided by its first item.
        self._claims: list[Any] = []
        self._gate = gate = threading.Lock()
        gate.acquire()

    @property
    def _waiters(self) -> list[Any]:  # type: ignore[override]  # Future's attribute, made lazily
        """The ``concurrent.futures.wait`` waiters (``Future._waiters``), made by the first who adds one."""
        made: Optional[list[Any]] = self.__dict__.get("_made_waiters")
        if made is None:
            made = self.__dict__.setdefault("_made_waiters", [])
        return made

    @property
    def _done_callbacks(self) -> list[Callable[[Future[Any]], object]]:
        """``add_done_callback``'s list (``Future._done_callbacks``), made by the first who needs it."""
        made: Optional[list[Callable[[Future[Any]], object]]] = self.__dict__.get("_made_callbacks")
        if made is None:
            made = self.__dict__.setdefault("_made_callbacks", [])
        return made

    @property
    def _condition(self) -> threading.Condition:  # type: ignore[override]  # Future's attribute, made lazily
        """The ``Future`` API's ``Condition``, made by the first who needs it (racing threads get the
        same one: the first appended to ``_claims``). Made after the settler claimed first, it waits for
        the settled state: whoever uses it reads the state as it ends, and is told of nothing."""
        claims = self._claims
        for made in claims:  # the first Condition made wins: every thread takes the same
            if made is not _SETTLING:
                break
        else:
            claims.append(threading.Condition())  # atomic: of racing makers, the first one appended wins
            made = next(claim for claim in claims if claim is not _SETTLING)
        if claims[0] is _SETTLING:  # a settler came first: it writes the state without a lock
            # It is between its claim and its write: a few bytecodes (bounded all the same: a settler
            # on the main thread that a Ctrl-C ended there never writes it).
            until = time.monotonic() + SETTLING_WAIT
            while self.outcome is None and time.monotonic() < until:
                time.sleep(0)
        return made  # type: ignore[no-any-return]

    def set_result(self, result: Any) -> None:
        try:
            self._unsettled.pop()
        except IndexError:
            raise InvalidStateError(f"{self._state}: {self!r}") from None
        self._settle((True, result), _FINISHED, result=result)

    def set_exception(self, exception: Optional[BaseException]) -> None:
        try:
            self._unsettled.pop()
        except IndexError:
            raise InvalidStateError(f"{self._state}: {self!r}") from None
        self._settle((False, exception), _FINISHED, exception=exception)

    def cancel(self) -> bool:
        """Cancel the request if it has not been answered; returns whether it was cancelled."""
        if self._state == _RUNNING:
            return False
        try:
            self._unsettled.pop()
        except IndexError:  # answered, failed or cancelled already
            return self._state in _CANCELLED_STATES
        self._settle((False, CancelledError()), _CANCELLED)
        if self._on_cancel is not None:
            on_cancel, self._on_cancel = self._on_cancel, None
            on_cancel(self)
        return True

    def _settle(
        self, outcome: tuple[bool, Any], state: str, result: Any = None, exception: Optional[BaseException] = None
    ) -> None:
        """Write the outcome, once (the caller took ``_unsettled``'s item), and open the gate. With a
        ``Condition`` made (someone uses the Future API), under it, as ``Future.set_result`` and the
        like do: the waiters of ``concurrent.futures.wait`` told (not of a cancel: as ``Future.cancel``,
        they hear of it from an executor alone), ``result()`` woken; then the callbacks."""
        claims = self._claims
        claims.append(_SETTLING)  # atomic: the first claim decides, a Condition's or this one
        condition = claims[0]
        if condition is _SETTLING:  # nobody uses the Future API (the usual): no lock
            self._write(outcome, state, result, exception)
            return
        with condition:
            self._write(outcome, state, result, exception)
            if state == _FINISHED:
                for waiter in self._waiters:
                    if outcome[0]:
                        waiter.add_result(self)
                    else:
                        waiter.add_exception(self)
            condition.notify_all()
        self._invoke_callbacks()  # type: ignore[attr-defined]

    def _write(self, outcome: tuple[bool, Any], state: str, result: Any, exception: Optional[BaseException]) -> None:
        """The settled state (what ``Future`` keeps, and ``outcome``), then the gate opened."""
        self._result = result
        self._exception = exception
        self.outcome = outcome
        self._state = state
        self._gate.release()

    # The Future API's questions, answered without the Condition (a read of one attribute).

    def done(self) -> bool:
        return self._state in _DONE_STATES

    def cancelled(self) -> bool:
        return self._state in _CANCELLED_STATES

    def running(self) -> bool:
        return self._state == _RUNNING

    def result(self, timeout: Optional[float] = None) -> Any:
        outcome = self.outcome
        if outcome is None:  # not settled yet: wait as any Future does
            return super().result(timeout)
        if outcome[0]:
            return outcome[1]
        if self._state in _CANCELLED_STATES:
            raise CancelledError()
        raise outcome[1]

    def exception(self, timeout: Optional[float] = None) -> Optional[BaseException]:
        outcome = self.outcome
        if outcome is None:
            return super().exception(timeout)
        if self._state in _CANCELLED_STATES:
            raise CancelledError()
        return None if outcome[0] else outcome[1]

    @property
    def settled(self) -> bool:
        """Whether the request has its outcome (a result, an error, or cancelled); takes no lock."""
        return self.outcome is not None

    def wait_settled(self, timeout: Optional[float], stop: Optional[Callable[[], bool]] = None) -> bool:
        """Block until the request is settled, at most ``timeout`` seconds (``None``: no limit).

        Safe to interrupt: an interrupt leaves nothing held that another thread needs. It waits
        in slices of ``WAIT_SLICE`` seconds, so that ``_thread.interrupt_main()`` ends it too, and
        so does ``stop()`` when it turns true (a Ctrl-C held back while the caller waits in a
        deferred section: its handler only notes it). Returns whether the request is settled.
        """
        if self.outcome is not None:
            return True
        gate = self._gate
        # The first slice is taken before the clock is read: most answers come within it.
        step = WAIT_SLICE if timeout is None or timeout >= WAIT_SLICE else (timeout if timeout > 0.0 else 0.0)
        if gate.acquire(timeout=step):
            gate.release()
            return True
        end = None if timeout is None else time.monotonic() - step + timeout  # the slice took step at least
        while True:
            if self.outcome is not None:
                return True
            if step < WAIT_SLICE or (stop is not None and stop()):  # the last slice has passed, or stopped
                return False
            if end is not None:
                step = end - time.monotonic()
                step = WAIT_SLICE if step >= WAIT_SLICE else (step if step > 0.0 else 0.0)
            if gate.acquire(timeout=step):
                gate.release()
                return True

    def settled_result(self) -> Any:
        """The result of a settled request, or raise its error (``CancelledError`` if cancelled)."""
        assert self.outcome is not None, "settled_result() before the request was settled"
        ok, value = self.outcome
        if ok:
            return value
        raise value


class PendingRequests:
    """Futures of the requests in flight, keyed by request id; safe from any thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._futures: dict[Any, RequestFuture] = {}
        #: A fresh request id (thread-safe: ``itertools.count`` is atomic in CPython); a C call, no frame.
        self.next_id: Callable[[], int] = itertools.count(1).__next__
        self._abandoned: collections.OrderedDict[Any, None] = collections.OrderedDict()
        self._closed_error: Optional[Callable[[], BaseException]] = None

    def __len__(self) -> int:
        return len(self._futures)

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
        # No lock: stored first, then the table's closing looked for. ``fail_all`` marks the table
        # closed before it takes the futures, so a future stored meanwhile is either failed by it or
        # taken back here; either way its caller hears of the closing, never waits for nothing.
        self._futures[request_id] = future
        if self._closed_error is not None:
            self._futures.pop(request_id, None)
            raise self._closed_error()
        return future

    def resolve(self, request_id: Any, result: Any) -> bool:
        """Give a request its result; ``False`` if no such request is waiting."""
        # No lock: one dict.pop is atomic, and whoever pops the future (this answer, a discard, the
        # table's closing) is the one who settles it. The lock keeps the steps of those together.
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
        future = self._futures.pop(request_id, None)  # no lock, as in resolve: whoever pops it settles it
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
