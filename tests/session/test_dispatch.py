"""mcpsync._session.dispatch: one thread runs queued callbacks in order, survives their failures, stops bounded."""

import threading
import time

import pytest

from mcpsync._session.dispatch import Dispatcher


def test_runs_in_order_on_its_own_thread_and_survives_failures(caplog):
    dispatcher = Dispatcher("unit")
    seen = []
    done = threading.Event()

    def boom():
        raise RuntimeError("callback bug")

    for n in range(5):
        dispatcher.submit(seen.append, (n, threading.current_thread().name))
        if n == 2:
            dispatcher.submit(boom)
    dispatcher.submit(lambda: (seen.append(threading.current_thread().name), done.set()))
    assert done.wait(10)
    dispatcher.close()
    assert [item[0] for item in seen[:5]] == [0, 1, 2, 3, 4]
    assert seen[5] == "mcpsync-dispatch-unit"
    assert any("callback bug" in str(r.exc_info[1]) for r in caplog.records if r.exc_info)


def test_close_waits_bounded_and_later_work_is_dropped():
    dispatcher = Dispatcher("slow")
    started, release = threading.Event(), threading.Event()
    dispatcher.submit(lambda: (started.set(), release.wait(10)))
    assert started.wait(10)
    dispatcher.close(timeout=0.1)  # the callback is still running: close returns anyway
    assert dispatcher.thread.is_alive()
    ran = []
    dispatcher.submit(ran.append, 1)
    release.set()
    dispatcher.thread.join(10)
    assert not dispatcher.thread.is_alive() and ran == []


@pytest.mark.slow("close runs the 1 ms callbacks for its full CLOSE_DRAIN (1 s)")
def test_close_runs_what_is_queued_for_a_moment_then_drops_the_rest():
    """Callbacks for what arrived before close() still run, but not for ever: CLOSE_DRAIN bounds them."""
    from mcpsync._session.dispatch import CLOSE_DRAIN

    dispatcher = Dispatcher("drain-at-close")
    ran = []
    for n in range(10_000):
        dispatcher.submit(lambda n=n: (ran.append(n), time.sleep(0.001)))
    started = time.monotonic()
    dispatcher.close(timeout=10)
    assert time.monotonic() - started < CLOSE_DRAIN + 1.5
    assert not dispatcher.thread.is_alive()
    assert 0 < len(ran) < 10_000 and ran == list(range(len(ran)))


def test_close_from_its_own_thread_does_not_deadlock():
    dispatcher = Dispatcher("self")
    closed = threading.Event()
    dispatcher.submit(lambda: (dispatcher.close(), closed.set()))
    assert closed.wait(10)
    dispatcher.thread.join(10)
    assert not dispatcher.thread.is_alive()


def test_drain_waits_for_what_was_queued_and_is_bounded():
    dispatcher = Dispatcher("drain")
    seen = []
    release = threading.Event()
    dispatcher.submit(lambda: (release.wait(10), seen.append("slow")))
    assert dispatcher.drain(0.1) is False  # still running: the wait ends at its bound
    release.set()
    assert dispatcher.drain(10) is True and seen == ["slow"]
    inside = []
    dispatcher.submit(lambda: inside.append(dispatcher.drain(10)))  # on its own thread: returns at once
    assert dispatcher.drain(10) is True and inside == [True]
    dispatcher.close()
    assert dispatcher.drain(10) is True


@pytest.mark.slow("200,000 notifications to read, then close drains the full queue for 1 s")
def test_a_flood_of_notifications_is_dropped_beyond_the_bound_and_answers_keep_flowing(caplog):
    """200,000 log messages against a 1 ms on_log: the queue stays bounded, the surplus is counted and
    warned about, the call's answer still arrives, and close() ends the dispatch thread in time."""
    import mcpsync
    from mcpsync.testing import server_config

    seen = []

    def slow_log(level, logger, data):  # type: ignore[no-untyped-def]
        seen.append(data)
        time.sleep(0.001)

    client = mcpsync.connect(server_config(timeout=60), on_log=slow_log)
    dispatch = client._dispatcher
    try:
        result = client.call_tool("misbehave", {"kind": "flood", "size": 200_000}, timeout=60)
        assert result.text == "sent 200000 notifications"
        assert dispatch._queue.qsize() <= dispatch._max_queued + 10
        assert client.stats.dropped > 100_000 and client.stats.dropped == dispatch.dropped
        assert "notifications come faster than the callbacks take them" in caplog.text
        assert client.call_tool("echo", {"text": "still answering"}, timeout=10).text == "still answering"
    finally:
        started = time.monotonic()
        client.close()
    assert time.monotonic() - started < 6
    assert not dispatch.thread.is_alive(), "the dispatch thread outlived close()"
    assert 0 < len(seen) < 200_000
