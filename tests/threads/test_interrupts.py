"""mcpsync._threads.signals and latches: SIGINT held back over the main thread's locked work, delivered right after."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

from mcpsync._threads.latches import Changes, Latch
from mcpsync._threads.signals import DEFERRED, acquire_deferred, deferred_interrupts, interrupted

main_only = pytest.mark.skipif(
    threading.current_thread() is not threading.main_thread(), reason="needs the main thread"
)


@main_only
def test_a_sigint_in_a_deferred_section_is_raised_when_the_section_ends():
    reached_the_end = False
    with pytest.raises(KeyboardInterrupt):
        with deferred_interrupts():
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)  # the handler has run by now: it only noted the interrupt
            assert interrupted()
            reached_the_end = True
    assert reached_the_end
    assert not interrupted()


@main_only
def test_nested_sections_deliver_once_at_the_outermost_end_and_run_every_callback():
    cut = []
    with pytest.raises(KeyboardInterrupt):
        with deferred_interrupts(lambda: cut.append("outer")):
            with deferred_interrupts(lambda: cut.append("inner")):
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(0.05)
            assert cut == ["outer", "inner"] or cut == ["inner", "outer"] or sorted(cut) == ["inner", "outer"]
            # A callback registered after the interrupt arrived runs at once: its work is cut before it starts.
            late = []
            with deferred_interrupts(lambda: late.append("late")):
                assert late == ["late"]


@main_only
def test_outside_a_section_ctrl_c_is_what_it_was():
    """Our handler stays in front once installed, and hands a SIGINT outside a section to the one it replaced."""
    with deferred_interrupts():
        assert not interrupted()
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(5)
    assert time.monotonic() - started < 2


@main_only
def test_a_handler_installed_later_is_wrapped_in_turn():
    """Someone replaces our handler (ipykernel does, around each cell): the next section wraps theirs."""
    seen = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: seen.append(signum))
    try:
        with deferred_interrupts():
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)
            assert seen == [], "held back during the section"
        assert seen == [signal.SIGINT], "delivered to their handler after it"
    finally:
        signal.signal(signal.SIGINT, previous)


def test_other_threads_are_left_alone():
    """Only the main thread receives SIGINT; elsewhere a section is a no-op (and may not touch signals)."""
    seen = []

    def work() -> None:
        with deferred_interrupts(lambda: seen.append("cut")):
            seen.append(interrupted())

    thread = threading.Thread(target=work)
    thread.start()
    thread.join(5)
    assert seen == [False]


@main_only
def test_the_shared_section_holds_ctrl_c_back_nested_and_beside_a_callers_own():
    """``DEFERRED`` (one object for every request's section) defers as ``deferred_interrupts()`` does,
    nested in itself and around a section with a callback: delivered once, at the outermost end."""
    cut = []
    with pytest.raises(KeyboardInterrupt):
        with DEFERRED:
            with deferred_interrupts(lambda: cut.append("cut")):
                with DEFERRED:
                    os.kill(os.getpid(), signal.SIGINT)
                    time.sleep(0.05)
                    assert interrupted()
                assert interrupted(), "still held: the outer sections are open"
            assert cut == ["cut"]
            assert interrupted()
    assert not interrupted()
    with DEFERRED:  # and again, afterwards: nothing left over
        assert not interrupted()


@main_only
def test_the_shared_section_defers_nothing_where_sigint_is_ignored_and_leaves_no_count_behind():
    """With SIGINT ignored there is nothing to defer: the section is a no-op that still keeps its books,
    so a later section defers as usual."""
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with DEFERRED:
            with DEFERRED:
                os.kill(os.getpid(), signal.SIGINT)  # ignored
                time.sleep(0.05)
                assert not interrupted()
    finally:
        signal.signal(signal.SIGINT, previous)
    with pytest.raises(KeyboardInterrupt):
        with DEFERRED:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)
            assert interrupted()


def test_the_shared_section_is_a_no_op_on_other_threads_while_the_main_thread_holds_one():
    """One object, two threads: a worker entering and leaving ``DEFERRED`` leaves the main thread's
    section as it was."""
    seen = []

    def work() -> None:
        with DEFERRED:
            seen.append(interrupted())

    with DEFERRED:
        thread = threading.Thread(target=work)
        thread.start()
        thread.join(5)
        assert seen == [False]
        if threading.current_thread() is threading.main_thread():
            from mcpsync._threads import signals

            assert signals._main.depth >= 1, "the worker's exit did not close the main thread's section"


@main_only
def test_acquire_deferred_gives_up_early_on_a_sigint():
    lock = threading.Lock()
    lock.acquire()
    try:
        with pytest.raises(KeyboardInterrupt):
            with deferred_interrupts():
                threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGINT)).start()
                started = time.monotonic()
                assert acquire_deferred(lock.acquire, 10) is False
                assert time.monotonic() - started < 2
    finally:
        lock.release()


def test_acquire_deferred_without_a_section_is_a_plain_bounded_acquire():
    lock = threading.Lock()
    assert acquire_deferred(lock.acquire, 1)
    assert not acquire_deferred(lock.acquire, 0.05)
    lock.release()
    assert acquire_deferred(lock.acquire, float("inf"))
    lock.release()


def test_a_latch_opens_once_and_its_wait_is_bounded():
    latch = Latch()
    assert latch.wait(0.05) is False and not latch.is_set()
    threading.Timer(0.05, latch.set).start()
    assert latch.wait(5) is True
    latch.set()  # a second set does nothing
    assert latch.wait(0) and latch.is_set()


def test_concurrent_sets_of_a_latch_release_it_once():
    """Two threads setting it together must not release its lock twice (which would fail a waiter)."""
    for _ in range(200):
        latch = Latch()
        threads = [threading.Thread(target=latch.set) for _ in range(4)]
        for thread in threads:
            thread.start()
        assert latch.wait(5)
        for thread in threads:
            thread.join(5)


def test_changes_wake_every_waiter_of_the_latch_they_took():
    lock = threading.Lock()
    changes = Changes()
    woken: list[int] = []

    def waiter(n: int) -> None:
        with lock:
            latch = changes.current()
        if latch.wait(5):
            woken.append(n)

    threads = [threading.Thread(target=waiter, args=(n,)) for n in range(5)]
    for thread in threads:
        thread.start()
    time.sleep(0.1)
    with lock:
        before = changes.current()
        changes.notify_all()
        assert changes.current() is not before  # later waiters wait for the next change
    for thread in threads:
        thread.join(5)
    assert sorted(woken) == list(range(5))
    assert changes.current().wait(0.01) is False


@main_only
def test_an_interrupted_wait_on_changes_leaves_nothing_held():
    """A Condition interrupted while re-taking its lock leaves it in the wrong hands; this cannot."""
    lock = threading.Lock()
    changes = Changes()
    for _ in range(20):
        with lock:
            latch = changes.current()
        timer = threading.Timer(0.01, os.kill, (os.getpid(), signal.SIGINT))
        with pytest.raises(KeyboardInterrupt):
            timer.start()
            latch.wait(5)
        timer.join(5)
    # Nothing is held: the owner's lock is free, a notify wakes the next waiter.
    assert lock.acquire(timeout=1)
    latch = changes.current()
    changes.notify_all()
    lock.release()
    assert latch.wait(1)
