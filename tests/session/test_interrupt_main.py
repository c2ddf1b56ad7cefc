"""``_thread.interrupt_main()`` (a notebook's timer, a watchdog) stops a blocking call as Ctrl-C does.

It only sets the interpreter's interrupt flag; unlike a real SIGINT it wakes no
thread blocked in a C-level wait. The client's wait for an answer is sliced so
that the flag is looked at within a slice.
"""

from __future__ import annotations

import _thread
import threading
import time
from typing import Any

import pytest

main_only = pytest.mark.skipif(
    threading.current_thread() is not threading.main_thread(), reason="needs the main thread"
)

#: Seconds any wait here may take at most.
T = 20


def cancelled(client: Any) -> list[Any]:
    """The request ids the bundled server saw cancelled, once it has seen one (bounded wait)."""
    deadline = time.monotonic() + T
    while True:
        seen: list[Any] = client.call_tool("cancelled_requests").structured_content["cancelled"]
        if seen or time.monotonic() > deadline:
            return seen
        time.sleep(0.05)


@main_only
def test_interrupt_main_ends_a_waiting_call_and_cancels_it_on_the_server(client: Any) -> None:
    """A timer calls ``interrupt_main`` half a second into a 30 s call: the call ends long before the
    server would answer, the message says the request was cancelled, and the server saw the cancellation."""
    timer = threading.Timer(0.5, _thread.interrupt_main)
    started = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt, match=r"tools/call interrupted: cancelled on the server") as info:
            client.call_tool("sleep", {"seconds": 30}, timeout=60)
    finally:
        timer.cancel()
        timer.join(T)
    assert time.monotonic() - started < 10, "the call ran to its end"
    assert "client is still usable" in str(info.value)
    assert len(cancelled(client)) == 1
    assert client.call_tool("echo", {"text": "after"}).text == "after"


@main_only
def test_an_interrupt_after_the_answer_came_does_not_claim_a_cancellation(
    client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The request was no longer waiting when the interrupt was handled (its answer won the race): nothing
    is cancelled, and the message says the answer is dropped, not that the server cancelled anything."""
    channel = client._channel
    real = channel.abandon
    monkeypatch.setattr(channel, "abandon", lambda future, reason: real(future, reason) and False)
    timer = threading.Timer(0.3, _thread.interrupt_main)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt) as info:
            client.call_tool("sleep", {"seconds": 5}, timeout=T)
    finally:
        timer.cancel()
        timer.join(T)
    assert "cancelled on the server" not in str(info.value)
    assert "tools/call interrupted: its answer had already come and is dropped" in str(info.value)


def mcpsync_frames(tb: Any) -> list[str]:
    """The functions of mcpsync's own that a traceback runs through."""
    names = []
    while tb is not None:
        if "/mcpsync/" in tb.tb_frame.f_code.co_filename:
            names.append(tb.tb_frame.f_code.co_name)
        tb = tb.tb_next
    return names


@main_only
def test_an_interrupted_call_leaves_with_one_frame_of_ours(client: Any) -> None:
    """What a notebook shows for one keypress: the method called, nothing of mcpsync's inside, no chain."""
    timer = threading.Timer(0.3, _thread.interrupt_main)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt) as info:
            client.call_tool("sleep", {"seconds": 30}, timeout=60)
    finally:
        timer.cancel()
        timer.join(T)
    assert mcpsync_frames(info.tb) == ["public"], mcpsync_frames(info.tb)
    assert info.value.__suppress_context__ and info.value.__cause__ is None


def test_every_public_method_that_waits_is_shortened() -> None:
    """Shortening is a property of each method (the decorator), not a list of names to keep up."""
    import inspect

    import mcpsync

    for cls in (mcpsync.Client, mcpsync.ToolTask, mcpsync.Manager):
        for name, member in inspect.getmembers(cls, inspect.isfunction):
            if name.startswith("_") or "timeout" not in inspect.signature(member).parameters:
                continue
            if name.startswith("iter_"):
                continue  # they return an iterator at once: the Ctrl-C comes out of the caller's own loop
            if name in ("send_request", "close", "notify", "respond", "open", "refresh_tools"):
                continue  # return at once, or end the connection: a Ctrl-C there is Python's own
            assert hasattr(member, "__wrapped__"), f"{cls.__name__}.{name} leaves a Ctrl-C with every frame"
