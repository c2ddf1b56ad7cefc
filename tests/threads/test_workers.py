"""mcpsync._threads.workers: the bounded pool of named threads a transport runs its background work on."""

import threading
import time

from mcpsync._threads.workers import Workers

T = 10


def test_the_worker_pool_runs_calls_side_by_side_up_to_its_size():
    """Calls submitted back to back each get a worker (not one after another), never more than the size."""
    workers = Workers("pool", 3)
    release, lock = threading.Event(), threading.Lock()
    state = {"running": 0, "peak": 0, "done": 0}

    def job():
        with lock:
            state["running"] += 1
            state["peak"] = max(state["peak"], state["running"])
        release.wait(T)
        with lock:
            state["running"] -= 1
            state["done"] += 1

    for _ in range(5):
        workers.submit(job)
    deadline = time.monotonic() + T
    while state["peak"] < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert state["peak"] == 3
    release.set()
    left = workers.close(T)
    assert state["done"] + len(left) == 5
    assert len(workers.threads) == 3 and not any(t.is_alive() for t in workers.threads)


def test_jobs_never_started_are_handed_back_on_close_and_later_submits_are_refused():
    """close() returns the queued jobs, so that their owner can fail them; nothing runs after it."""
    import pytest

    from mcpsync import TransportClosed

    workers = Workers("pool", 1)
    running, gate = threading.Event(), threading.Event()
    workers.submit(lambda: (running.set(), gate.wait(T)))
    assert running.wait(T)
    queued = [lambda: None, lambda: None]
    for job in queued:
        workers.submit(job)
    opener = threading.Timer(0.2, gate.set)  # the running job ends while close() waits for it
    opener.start()
    left = workers.close(T)
    opener.join(T)
    assert left == queued
    with pytest.raises(TransportClosed):
        workers.submit(lambda: None)
