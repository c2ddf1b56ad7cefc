"""mcpsync._threads.watchdog: cuts what is still running when its deadline passes; one lazy thread."""

from __future__ import annotations

import math
import threading
import time

from mcpsync._threads.watchdog import Watchdog


def test_a_deadline_that_passes_is_cut_once_and_one_that_is_unwatched_is_not():
    watchdog = Watchdog("w")
    cut, kept = threading.Event(), threading.Event()
    try:
        watchdog.watch(time.monotonic() + 0.1, cut.set)
        token = watchdog.watch(time.monotonic() + 0.2, kept.set)
        watchdog.unwatch(token)
        assert cut.wait(5)
        assert not kept.wait(0.4)
    finally:
        watchdog.close()


def test_an_earlier_deadline_wakes_the_watchdog_that_sleeps_towards_a_later_one():
    watchdog = Watchdog("w")
    early = threading.Event()
    try:
        watchdog.watch(time.monotonic() + 60, lambda: None)
        started = time.monotonic()
        watchdog.watch(time.monotonic() + 0.1, early.set)
        assert early.wait(5) and time.monotonic() - started < 2
    finally:
        watchdog.close()


def test_no_thread_without_a_finite_deadline_and_none_after_close():
    watchdog = Watchdog("lazy")
    assert watchdog.watch(math.inf, lambda: None) is None
    assert not any(t.name == "mcpsync-watchdog-lazy" for t in threading.enumerate())
    watchdog.watch(time.monotonic() + 60, lambda: None)
    assert any(t.name == "mcpsync-watchdog-lazy" for t in threading.enumerate())
    watchdog.close()
    assert not any(t.name == "mcpsync-watchdog-lazy" and t.is_alive() for t in threading.enumerate())
    assert watchdog.watch(time.monotonic() + 1, lambda: None) is None  # closed: nothing is watched


def test_a_cut_that_raises_is_logged_and_the_others_still_run(caplog):
    watchdog = Watchdog("w")
    done = threading.Event()

    def broken() -> None:
        raise RuntimeError("boom")

    try:
        soon = time.monotonic() + 0.05
        watchdog.watch(soon, broken)
        watchdog.watch(soon, done.set)
        assert done.wait(5)
    finally:
        watchdog.close()
    assert "cutting work past its deadline failed" in caplog.text
