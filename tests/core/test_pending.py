"""mcpsync.pending: the id -> future table, without any I/O or threads of its own."""

import threading
from concurrent.futures import Future

import pytest

from mcpsync import TransportClosed
from mcpsync._core.pending import ABANDONED_MEMORY, PendingRequests


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
