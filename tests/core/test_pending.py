"""mcpsync.pending: the id -> future table, without any I/O or threads of its own."""

import threading
from concurrent.futures import CancelledError, Future

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
    # Cancelled without the hook, as when cancel() lands between the reader's lookup and its answer.
    Future.cancel(future)
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
    Future.cancel(future)  # cancelled without the hook, between the reader's lookup and its answer
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
