"""mcpsync.pending: the id -> future table, without any I/O or threads of its own."""

import asyncio
import concurrent.futures
import sys
import threading
import time
from concurrent.futures import CancelledError

import pytest

from mcpsync import TransportClosed
from mcpsync._core.pending import ABANDONED_MEMORY, WAIT_SLICE, PendingRequests


def test_ids_count_up_and_are_never_reused():
    table = PendingRequests()
    ids = [table.next_id() for _ in range(5)]
    assert ids == [1, 2, 3, 4, 5]


def test_ids_are_unique_across_threads():
    table = PendingRequests()
    seen: list[int] = []

    def take() -> None:
        seen.extend(table.next_id() for _ in range(1000))

    threads = [threading.Thread(target=take) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert len(seen) == len(set(seen)) == 8000


def test_resolve_and_reject_reach_the_right_future():
    table = PendingRequests()
    a, b = table.register(1, "a"), table.register(2, "b")
    assert table.resolve(1, {"ok": 1})
    assert table.reject(2, ValueError("bad"))
    assert a.result(0) == {"ok": 1}
    with pytest.raises(ValueError):
        b.result(0)
    assert len(table) == 0
    assert not table.resolve(1, {}), "an answered id is gone"


def test_discard_remembers_the_id_as_abandoned():
    table = PendingRequests()
    table.register(1, "slow")
    assert table.discard(1)
    assert not table.discard(1)
    assert table.was_abandoned(1)
    assert not table.resolve(1, {}), "a late response finds nothing"


def test_abandoned_memory_is_bounded():
    table = PendingRequests()
    for n in range(ABANDONED_MEMORY + 10):
        table.register(n, "m")
        table.discard(n)
    assert not table.was_abandoned(0)
    assert table.was_abandoned(ABANDONED_MEMORY + 9)


def test_fail_all_fails_each_future_with_its_own_exception_and_refuses_new_ones():
    table = PendingRequests()
    futures = [table.register(n, "m") for n in range(3)]
    assert table.fail_all(lambda: TransportClosed("gone")) == 3
    errors = [f.exception(0) for f in futures]
    assert all(isinstance(e, TransportClosed) for e in errors)
    assert len({id(e) for e in errors}) == 3
    with pytest.raises(TransportClosed):
        table.register(9, "late")
    assert all(table.was_abandoned(n) for n in range(3)), "answers arriving during shutdown are late, not stray"


def test_cancel_calls_the_hook_once_and_resolve_after_cancel_is_harmless():
    table = PendingRequests()
    calls = []
    future = table.register(1, "m", on_cancel=calls.append)
    assert future.cancel()
    assert future.cancel()  # cancelling twice is fine ...
    assert calls == [future]  # ... but the hook runs once
    assert not table.resolve(1, {})  # the future is cancelled: nothing to set
    assert future.request_id == 1 and future.method == "m"


def test_an_answer_racing_a_cancel_counts_as_late():
    table = PendingRequests()
    future = table.register(1, "m")
    # Cancelled (no hook registered), as when cancel() lands between the reader's lookup and its answer.
    assert future.cancel()
    assert not table.resolve(1, {})
    assert table.was_abandoned(1)


def test_settled_outcome_is_the_one_that_was_set():
    """A request's outcome as the waiting caller reads it: the answer, the error, or CancelledError.

    The caller's wait reads ``settled``, ``wait_settled`` and ``settled_result``, not the Future's own
    result; a slip that kept the answer as an error (or the other way) would turn every call into a
    failure. Found by mutation testing (docs/testing.md).
    """
    table = PendingRequests()
    answered, failed, cancelled = table.register(1, "a"), table.register(2, "b"), table.register(3, "c")
    assert not answered.settled and not answered.wait_settled(0.0)
    table.resolve(1, {"ok": 1})
    table.reject(2, ValueError("bad"))
    cancelled.cancel()
    assert answered.settled and answered.wait_settled(0.0)
    assert answered.settled_result() == {"ok": 1}
    assert failed.settled and failed.wait_settled(None)
    with pytest.raises(ValueError, match="bad"):
        failed.settled_result()
    assert cancelled.settled
    with pytest.raises(CancelledError):
        cancelled.settled_result()


def test_reject_of_an_unknown_id_says_so():
    """An error answer to an id nobody waits for is refused (``False``), not raised or counted."""
    table = PendingRequests()
    assert table.reject(7, ValueError("stray")) is False
    assert not table.was_abandoned(7)


def test_an_error_racing_a_cancel_counts_as_late():
    """An error answer that lands after the caller cancelled is late: refused, and its id remembered."""
    table = PendingRequests()
    future = table.register(1, "m")
    assert future.cancel()  # cancelled (no hook registered), between the reader's lookup and its answer
    assert table.reject(1, ValueError("late")) is False
    assert table.was_abandoned(1)


def test_abandoned_memory_holds_exactly_its_size():
    """The memory of abandoned ids holds ABANDONED_MEMORY of them, the oldest forgotten first."""
    table = PendingRequests()
    for n in range(ABANDONED_MEMORY):
        table.register(n, "m")
        table.discard(n)
    assert table.was_abandoned(0), "a full memory still holds its oldest id"
    table.register(ABANDONED_MEMORY, "m")
    table.discard(ABANDONED_MEMORY)
    assert not table.was_abandoned(0) and table.was_abandoned(1)


class _CountingGate:
    """A request's gate that records each wait's slice and can settle the request on a given wait."""

    def __init__(self, gate, settle_on: int, settle) -> None:
        self._gate, self._settle_on, self._settle = gate, settle_on, settle
        self.slices: list[float] = []

    def acquire(self, timeout: float = -1) -> bool:
        self.slices.append(timeout)
        if len(self.slices) == self._settle_on:
            self._settle()
        return self._gate.acquire(timeout=0)

    def release(self) -> None:
        self._gate.release()


@pytest.mark.parametrize("timeout", [None, 30.0])
def test_wait_settled_waits_slice_by_slice_until_the_answer(timeout):
    """A wait with no limit (or a long one) goes on past its first slice and returns True at the answer.

    The gate here settles the request on the third slice; every slice is at most WAIT_SLICE (so
    an interrupt ends the wait) and none is negative. Found by mutation testing (docs/testing.md).
    """
    table = PendingRequests()
    future = table.register(1, "m")
    gate = _CountingGate(future._gate, 3, lambda: table.resolve(1, {"ok": 1}))
    future._gate = gate
    assert future.wait_settled(timeout) is True
    assert len(gate.slices) == 3
    assert all(0.0 < step <= WAIT_SLICE for step in gate.slices), gate.slices
    assert future.settled_result() == {"ok": 1}


def test_wait_settled_gives_up_at_its_timeout():
    """A wait of 0 s for a request that is never answered takes one slice of 0 s and returns False."""
    table = PendingRequests()
    future = table.register(1, "m")
    gate = _CountingGate(future._gate, 0, lambda: None)
    future._gate = gate
    assert future.wait_settled(0.0) is False
    assert gate.slices == [0.0]


def test_waiting_and_in_flight_show_the_requests_still_waiting():
    """``waiting`` finds a waiting request's future (and it stays); ``in_flight`` lists those still waiting."""
    table = PendingRequests()
    a, b = table.register(1, "a"), table.register(2, "b")
    assert table.waiting(1) is a and table.waiting(1) is a
    assert set(table.in_flight()) == {a, b}
    table.resolve(1, {})
    assert table.waiting(1) is None
    assert table.in_flight() == [b]


class _LateGate(_CountingGate):
    """A gate whose wait times out just as the request is settled (before the gate is opened)."""

    def acquire(self, timeout: float = -1) -> bool:
        super().acquire(timeout)
        return False


def test_an_answer_that_lands_as_the_last_slice_ends_is_not_a_timeout():
    """The answer arrives while the last slice times out (its outcome set, the gate not yet opened):
    the wait sees the outcome and returns True, not a timeout. Found by mutation testing (docs/testing.md)."""
    table = PendingRequests()
    future = table.register(1, "m")
    future._gate = _LateGate(future._gate, 1, lambda: table.resolve(1, {"ok": 1}))
    assert future.wait_settled(0.0) is True
    assert future.settled_result() == {"ok": 1}


# -- the Future API, whose Condition a request makes only when something uses it ----------------------


def _settle_all_later(futures: list, start: threading.Event) -> threading.Thread:
    """A thread that, once ``start`` is set, answers every future in turn (as the reader would)."""

    def run() -> None:
        assert start.wait(10)
        for n, future in enumerate(futures):
            future.set_result(n)

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def test_result_waits_for_an_answer_that_comes_later_and_a_settled_one_needs_no_condition():
    """``result()`` of a request not answered yet blocks until the answer (made on another thread),
    and of an answered one returns at once without making the Future's ``Condition``."""
    table = PendingRequests()
    waiting, answered = table.register(1, "m"), table.register(2, "m")
    table.resolve(2, {"two": 2})
    assert answered.result(0) == {"two": 2} and answered.done() and not answered.cancelled()
    assert not made_a_condition(answered)
    timer = threading.Timer(0.2, table.resolve, (1, {"one": 1}))
    timer.start()
    assert waiting.result(10) == {"one": 1}
    timer.join(10)


def test_wait_and_as_completed_see_every_answer_given_while_they_watch():
    """``concurrent.futures.wait`` and ``as_completed`` over 200 requests answered by another thread
    while they wait: every one is reported done, none is lost (each wait bounded)."""
    for watch in ("wait", "as_completed"):
        table = PendingRequests()
        futures = [table.register(n, "m") for n in range(200)]
        start = threading.Event()
        thread = _settle_all_later(futures, start)
        start.set()
        if watch == "wait":
            done, not_done = concurrent.futures.wait(futures, timeout=10)
            assert len(done) == 200 and not not_done
        else:
            assert sorted(f.result() for f in concurrent.futures.as_completed(futures, timeout=10)) == list(range(200))
        thread.join(10)


def test_callbacks_run_once_whether_added_before_or_after_the_answer_and_in_a_race_with_it():
    """``add_done_callback``: a callback added before the answer runs when it comes, one added after
    runs at once, and over 500 requests answered while callbacks are being added, each runs exactly once."""
    table = PendingRequests()
    futures = [table.register(n, "m") for n in range(500)]
    calls: list = []
    start = threading.Event()
    thread = _settle_all_later(futures, start)
    futures[0].add_done_callback(calls.append)
    start.set()
    for future in futures[1:]:
        future.add_done_callback(calls.append)
    thread.join(10)
    futures[0].add_done_callback(calls.append)
    assert sorted(f.request_id for f in calls) == [0, *range(500)]
    assert all(f.result(0) == f.request_id for f in futures)


def test_an_answer_and_a_cancel_racing_from_two_threads_settle_the_request_once():
    """Over 300 requests, the reader's answer and the caller's ``cancel()`` race from two threads:
    each request ends either answered or cancelled, never both, its gate opens once, and a
    ``result()`` waiter (and an asyncio future wrapping it) sees that one outcome."""
    table = PendingRequests()
    futures = [table.register(n, "m") for n in range(300)]
    results: list = []
    start = threading.Event()

    def answer() -> None:
        assert start.wait(10)
        for future in futures:
            results.append(table.resolve(future.request_id, {"n": future.request_id}))

    thread = threading.Thread(target=answer)
    thread.start()
    start.set()
    cancelled = [future.cancel() for future in futures]
    thread.join(10)
    for future, answered, was_cancelled in zip(futures, results, cancelled):
        assert answered != was_cancelled, "both or neither settled it"
        assert future.wait_settled(0) and future.done()
        assert future.cancelled() == was_cancelled
        if was_cancelled:
            with pytest.raises(CancelledError):
                future.result(0)
        else:
            assert future.result(0) == {"n": future.request_id}

    async def wrapped(future) -> object:
        try:
            return await asyncio.wait_for(asyncio.wrap_future(future), 10)
        except asyncio.CancelledError:
            return "cancelled"

    for future, was_cancelled in zip(futures[:20], cancelled):
        assert asyncio.run(wrapped(future)) == ("cancelled" if was_cancelled else {"n": future.request_id})


def test_cancelling_the_asyncio_wrapper_cancels_the_request():
    """``asyncio.wrap_future`` of a request not answered: cancelling the asyncio side cancels the
    request (its hook runs once, as it tells the server), and a later answer is refused as late."""
    table = PendingRequests()
    hooks: list = []
    future = table.register(1, "m", on_cancel=hooks.append)

    async def main() -> None:
        wrapper = asyncio.wrap_future(future)
        await asyncio.sleep(0)
        wrapper.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(wrapper, 10)

    asyncio.run(main())
    assert future.cancelled() and hooks == [future]
    assert not table.resolve(1, {})
    assert table.was_abandoned(1)


def test_an_error_reaches_result_exception_and_wait():
    """An error answer: ``exception()`` returns it, ``result()`` raises it, before and after a waiter
    made the Condition."""
    table = PendingRequests()
    early, late = table.register(1, "m"), table.register(2, "m")
    timer = threading.Timer(0.1, table.reject, (1, ValueError("one")))
    timer.start()
    assert str(early.exception(10)) == "one"
    timer.join(10)
    table.reject(2, ValueError("two"))
    with pytest.raises(ValueError, match="two"):
        late.result(0)
    assert str(late.exception(0)) == "two" and not late.running()


# -- the second mutation run's survivors (docs/testing.md, pending) ----------------------------------


class _ClockedGate:
    """A request's gate on a clock the test moves: each wait that times out moves ``clock`` on by its
    slice (plus ``overrun[n]`` for the n-th wait, a slice that overran on a loaded machine); the wait
    numbered ``settle_on`` settles the request and takes the gate. More than ``limit`` waits fail the
    test instead of hanging it."""

    def __init__(self, gate, clock: list, settle_on: int = 0, settle=None, overrun=None, limit: int = 50) -> None:
        self._gate, self._clock, self._settle_on, self._settle = gate, clock, settle_on, settle
        self._overrun, self._limit = overrun or {}, limit
        self.slices: list[float] = []

    def acquire(self, timeout: float = -1) -> bool:
        self.slices.append(timeout)
        assert len(self.slices) <= self._limit, f"the wait never ends: {self.slices[:8]}..."
        assert timeout >= 0.0, f"a negative slice {timeout} (a lock raises, or blocks forever at -1)"
        if len(self.slices) == self._settle_on:
            self._settle()
            return self._gate.acquire(timeout=0)
        self._clock[0] += timeout + self._overrun.get(len(self.slices), 0.0)
        return False

    def release(self) -> None:
        self._gate.release()


def _clocked(monkeypatch, future, **gate_args) -> _ClockedGate:
    """Put ``future``'s wait on a test clock (the module's ``time``) and a ``_ClockedGate``."""
    from mcpsync._core import pending

    clock = [1000.0]
    monkeypatch.setattr(pending, "time", type("FakeTime", (), {"monotonic": staticmethod(lambda: clock[0])}))
    gate = _ClockedGate(future._gate, clock, **gate_args)
    future._gate = gate
    return gate


def test_an_answer_within_the_first_slice_ends_the_wait_with_true(monkeypatch):
    """The common case: the answer comes during the first slice (taken before the clock is read);
    ``wait_settled`` returns True after that one slice. Found by mutation testing (docs/testing.md)."""
    table = PendingRequests()
    future = table.register(1, "m")
    gate = _clocked(monkeypatch, future, settle_on=1, settle=lambda: table.resolve(1, {"ok": 1}))
    assert future.wait_settled(30.0) is True
    assert gate.slices == [WAIT_SLICE]
    assert future.settled_result() == {"ok": 1}


@pytest.mark.parametrize(
    ("timeout", "expected"),
    [
        (0.12, [WAIT_SLICE, WAIT_SLICE, 0.02]),  # whole slices, then the rest cut to the deadline
        (0.03, [0.03]),  # shorter than a slice: one slice of the timeout itself
        (-0.5, [0.0]),  # a deadline already passed (a channel's ``deadline - now``): one look, no wait
    ],
)
def test_a_wait_that_is_never_answered_lasts_exactly_its_timeout(monkeypatch, timeout, expected):
    """A request never answered: the wait's slices add up to its timeout exactly (on a test clock that
    each timed-out slice moves on), none is negative or longer than WAIT_SLICE, and it returns False.
    A deadline counted from the wrong end, a wait that never ends, a last slice dropped or cut to 0:
    each survived mutation testing (docs/testing.md)."""
    table = PendingRequests()
    future = table.register(1, "m")
    gate = _clocked(monkeypatch, future)
    assert future.wait_settled(timeout) is False
    assert gate.slices == pytest.approx(expected)


def test_a_slice_that_overran_the_deadline_ends_the_wait_at_once(monkeypatch):
    """On a loaded machine a slice can end after the deadline: the wait then takes one last look
    (a slice of 0 s, never a negative one or a full one) and returns False. Found by mutation testing."""
    table = PendingRequests()
    future = table.register(1, "m")
    gate = _clocked(monkeypatch, future, overrun={2: 0.03})
    assert future.wait_settled(0.12) is False
    assert gate.slices == pytest.approx([WAIT_SLICE, WAIT_SLICE, 0.0])


def test_a_future_refused_by_a_closed_table_is_not_left_in_it():
    """``register`` on a table that ``fail_all`` closed raises the close error, and the future it had
    stored is taken back: nothing is left waiting in the table. Found by mutation testing."""
    table = PendingRequests()
    table.fail_all(lambda: TransportClosed("gone"))
    with pytest.raises(TransportClosed, match="gone"):
        table.register(9, "late")
    assert len(table) == 0 and table.waiting(9) is None and table.in_flight() == []


def test_a_table_closed_while_a_request_is_being_registered_fails_it_with_the_close_error():
    """``fail_all`` runs between ``register`` storing the future and looking for the closing (the race
    its comment describes): the future is failed by ``fail_all``, and ``register`` raises the close
    error too, not a ``KeyError`` for the future ``fail_all`` took. Found by mutation testing."""
    table = PendingRequests()
    stored: list = []

    class _ClosingOnStore(dict):
        def __setitem__(self, key, value) -> None:
            super().__setitem__(key, value)
            stored.append(value)
            table.fail_all(lambda: TransportClosed("closed meanwhile"))

    table._futures = _ClosingOnStore()
    with pytest.raises(TransportClosed, match="closed meanwhile"):
        table.register(1, "m")
    assert len(table) == 0
    assert isinstance(stored[0].exception(0), TransportClosed), "fail_all failed the future it found"


def test_an_error_tells_the_waiters_of_concurrent_futures_wait_and_runs_the_callbacks():
    """``concurrent.futures.wait(..., FIRST_EXCEPTION)`` blocked on a request that then fails on
    another thread: the waiter is told of that error (the future is in ``done``), and a callback added
    before runs once. Not telling them (or telling them of ``None``) survived mutation testing."""
    table = PendingRequests()
    future = table.register(1, "m")
    calls: list = []
    future.add_done_callback(calls.append)
    installed = threading.Event()

    class _Signalling(list):
        def append(self, waiter) -> None:
            super().append(waiter)
            installed.set()

    future.__dict__["_made_waiters"] = _Signalling()

    def fail() -> None:
        assert installed.wait(10)
        table.reject(1, ValueError("bad"))

    thread = threading.Thread(target=fail)
    thread.start()
    done, not_done = concurrent.futures.wait([future], timeout=10, return_when=concurrent.futures.FIRST_EXCEPTION)
    thread.join(10)
    assert done == {future} and not not_done
    assert calls == [future]


def test_first_exception_returns_at_the_error_while_another_request_still_waits():
    """``concurrent.futures.wait(..., FIRST_EXCEPTION)`` over two requests, one failed on another thread
    and one never answered: the wait ends at the error, with the other request not done (a mutant that
    told the waiters of a result instead waited for the other, forever with ``send_request`` futures;
    the test above has one future, where both read alike)."""
    table = PendingRequests()
    failing, waiting = table.register(1, "m"), table.register(2, "m")
    timer = threading.Timer(0.2, table.reject, (1, ValueError("bad")))
    timer.start()
    started = time.monotonic()
    try:
        done, not_done = concurrent.futures.wait(
            [failing, waiting], timeout=20, return_when=concurrent.futures.FIRST_EXCEPTION
        )
    finally:
        timer.join(10)
    assert done == {failing} and not_done == {waiting}
    assert time.monotonic() - started < 10, "the wait ran to its timeout: the error did not end it"
    assert table.discard(2)


def test_abandoned_memory_keeps_the_last_16384_ids_as_documented():
    """The number docs/faults.md promises, not the constant's name (a lowered constant passed every test
    that reads it): 16,384 abandoned ids are remembered, so an answer that late is late, not stray."""
    table = PendingRequests()
    for n in range(16384):
        table.register(n, "m")
        table.discard(n)
    assert table.was_abandoned(0) and table.was_abandoned(16383)
    table.register(16384, "m")
    table.discard(16384)
    assert not table.was_abandoned(0) and table.was_abandoned(1)


def test_cancel_runs_the_callbacks_added_before_it():
    """A request cancelled after a done callback was added (its Condition made): the callback runs at
    the cancel, and sees a cancelled future. Found by mutation testing (docs/testing.md)."""
    table = PendingRequests()
    future = table.register(1, "m")
    seen: list = []
    future.add_done_callback(lambda f: seen.append(f.cancelled()))
    assert future.cancel()
    assert seen == [True]


def test_a_running_request_cannot_be_cancelled():
    """As any ``Future``: once ``set_running_or_notify_cancel()`` marked it running, ``cancel()`` says
    False and leaves it waiting for its answer. Found by mutation testing (docs/testing.md)."""
    table = PendingRequests()
    hooks: list = []
    future = table.register(1, "m", on_cancel=hooks.append)
    assert future.set_running_or_notify_cancel() is True and future.running()
    assert future.cancel() is False
    assert not future.cancelled() and not future.done() and hooks == []
    assert table.resolve(1, {"ok": 1}) and future.result(0) == {"ok": 1}


@pytest.mark.parametrize("ask", ["result", "exception"])
def test_result_and_exception_of_a_request_not_answered_keep_their_timeout(ask):
    """``result(0)`` and ``exception(0)`` of a request not answered raise ``TimeoutError`` at once,
    as any ``Future``; a timeout ignored survived mutation testing. (A timer answers the request after
    10 s, so that such a slip fails the test instead of hanging it.)"""
    table = PendingRequests()
    future = table.register(1, "m")
    rescue = threading.Timer(10, table.resolve, (1, "rescued"))
    rescue.start()
    try:
        with pytest.raises(concurrent.futures.TimeoutError):
            getattr(future, ask)(0)
    finally:
        rescue.cancel()
        rescue.join(10)


def test_exception_of_an_answered_request_is_none_and_needs_no_condition():
    """``exception()`` of an answered request is ``None`` (not its result), of a failed one its error,
    read at once without making the Future's ``Condition``. Found by mutation testing."""
    table = PendingRequests()
    answered, failed = table.register(1, "m"), table.register(2, "m")
    table.resolve(1, {"ok": 1})
    table.reject(2, ValueError("bad"))
    assert answered.exception(0) is None
    assert str(failed.exception(0)) == "bad"
    assert not made_a_condition(answered) and not made_a_condition(failed)


@pytest.mark.parametrize("settle", ["set_result", "set_exception"])
def test_settling_twice_says_which_request_and_its_state(settle):
    """A second ``set_result`` / ``set_exception`` raises ``InvalidStateError`` naming the state and the
    future, as ``Future`` does. An error without its text survived mutation testing."""
    table = PendingRequests()
    future = table.register(1, "m")
    table.resolve(1, {})
    with pytest.raises(concurrent.futures.InvalidStateError, match=r"FINISHED: <RequestFuture"):
        getattr(future, settle)(ValueError("again"))


def made_a_condition(future: object) -> bool:
    """Whether the future made a ``threading.Condition`` (settled without the Future API, it never does)."""
    return any(isinstance(value, threading.Condition) for value in vars(future).values())


def test_as_completed_and_wait_racing_the_settlement_see_each_future_once() -> None:
    """The race that made ``as_completed`` yield a future twice under load (KeyError in the standard
    library): the settlement's state written while a waiter made the Condition and read the state.
    Here every future is settled by another thread at the moment ``as_completed`` and ``wait`` install
    their waiters, 50 rounds of 200, the interpreter switching threads every microsecond (as a busy
    machine does at random): each is reported exactly once, none lost."""
    switching = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        _race_as_completed_and_wait(50)
    finally:
        sys.setswitchinterval(switching)


def _race_as_completed_and_wait(rounds: int) -> None:
    for _ in range(rounds):
        table = PendingRequests()
        futures = [table.register(n, "m") for n in range(200)]
        start = threading.Event()
        thread = _settle_all_later(futures, start)
        start.set()
        seen = [f.result() for f in concurrent.futures.as_completed(futures, timeout=10)]
        assert sorted(seen) == list(range(200))
        thread.join(10)
        more = [table.register(n, "m") for n in range(200, 400)]
        start = threading.Event()
        thread = _settle_all_later(more, start)
        start.set()
        done, not_done = concurrent.futures.wait(more, timeout=10, return_when=concurrent.futures.ALL_COMPLETED)
        assert len(done) == 200 and not not_done
        thread.join(10)
