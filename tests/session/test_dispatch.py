"""mcpsync.dispatch: one thread runs queued callbacks in order, survives their failures, stops bounded."""

import threading

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
    release = threading.Event()
    dispatcher.submit(release.wait, 10)
    dispatcher.close(timeout=0.1)  # the callback is still running: close returns anyway
    assert dispatcher.thread.is_alive()
    ran = []
    dispatcher.submit(ran.append, 1)
    release.set()
    dispatcher.thread.join(10)
    assert not dispatcher.thread.is_alive() and ran == []


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
