"""``CancelScope``: blocking calls cancelled from another thread, over stdio and Streamable HTTP, the
server told each time (the bundled server's ``cancelled_requests`` lists the ids it saw cancelled)."""

from __future__ import annotations

import asyncio
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

import mcpsync
from mcpsync import CancelScope, RequestCancelled
from tests.helpers import cancelled_on_server
from tests.http_server import running_http_server

pytestmark = pytest.mark.usefixtures("server_in_thread")

#: Seconds any wait here may take at most.
T = 20.0
SERVER = [sys.executable, "-m", "mcpsync.testing"]


@pytest.fixture(params=["stdio", "http"])
def served(request: pytest.FixtureRequest) -> Iterator[mcpsync.Client]:
    """A client of the bundled server, over stdio or over Streamable HTTP."""
    if request.param == "stdio":
        with mcpsync.connect(SERVER, timeout=T) as client:
            yield client
        return
    with running_http_server() as base, mcpsync.connect(f"{base}/mcp", timeout=T) as client:
        yield client


def _calling(client: mcpsync.Client) -> bool:
    """Whether a ``tools/call`` is out, waiting for its answer (within ``T``)."""
    deadline = time.monotonic() + T
    while time.monotonic() < deadline:
        if any(future.method == "tools/call" for future in client.transport.endpoint.in_flight()):
            return True
        time.sleep(0.01)
    return False


def _call_in_thread(scope: CancelScope, client: mcpsync.Client, seconds: float) -> tuple[threading.Thread, list[Any]]:
    """``sleep(seconds)`` called inside ``scope`` on a thread of its own; what it raised or returned."""
    outcome: list[Any] = []

    def work() -> None:
        try:
            with scope:
                outcome.append(client.call_tool("sleep", {"seconds": seconds}, timeout=T))
        except BaseException as exc:
            outcome.append(exc)

    thread = threading.Thread(target=work)
    thread.start()
    return thread, outcome


def test_a_call_cancelled_from_another_thread_ends_at_once_and_the_server_is_told(served: mcpsync.Client) -> None:
    """A 30 s call on a worker thread, cancelled from the main thread once the server has it: the
    worker raises ``RequestCancelled`` within a second or so, with the method and the reason, and
    the server lists the request as cancelled; the client stays usable."""
    scope = CancelScope()
    thread, outcome = _call_in_thread(scope, served, 30)
    assert _calling(served), "the call never went out"
    cancelled_at = time.monotonic()
    scope.cancel("the user pressed Stop")
    thread.join(T)
    assert not thread.is_alive()
    assert time.monotonic() - cancelled_at < 5  # not the 30 s of the tool, nor the 20 s timeout
    (error,) = outcome
    assert type(error) is RequestCancelled
    assert error.method == "tools/call" and error.reason == "the user pressed Stop"
    assert "tools/call cancelled: the user pressed Stop" in str(error)
    assert len(cancelled_on_server(served, timeout=T)) == 1
    assert served.call_tool("echo", {"text": "still here"}, timeout=T).text == "still here"
    assert scope.cancelled and "cancelled" in repr(scope)


def test_a_request_inside_a_cancelled_scope_is_never_sent(served: mcpsync.Client) -> None:
    """Once cancelled, a scope refuses at once; nothing goes to the server (its count of messages
    received does not move) and the same call outside the scope works."""
    served.list_tools(timeout=T)  # held: the call below sends tools/call alone, in both eras
    scope = CancelScope()
    scope.cancel("closed")
    scope.cancel("again")  # the first reason stays
    sent = served.stats.sent
    with scope, pytest.raises(RequestCancelled, match="tools/call cancelled: closed"):
        served.call_tool("echo", {"text": "x"}, timeout=T)
    assert served.stats.sent == sent
    assert scope.reason == "closed"
    assert served.call_tool("echo", {"text": "y"}, timeout=T).text == "y"


def test_an_answered_call_is_untouched_by_a_later_cancel(served: mcpsync.Client) -> None:
    """A call that returned before the cancel: its result stands, nothing is cancelled on the server,
    and the scope holds nothing after it (no request kept alive by a scope)."""
    scope = CancelScope()
    with scope:
        assert served.call_tool("echo", {"text": "done"}, timeout=T).text == "done"
    assert "0 waiting" in repr(scope)
    scope.cancel()
    assert served.call_tool("cancelled_requests", timeout=T).structured_content["cancelled"] == []


def test_an_outer_scope_cancels_the_calls_of_an_inner_one() -> None:
    """Scopes nest: cancelling the outer scope ends a call made inside an inner one too; leaving the
    inner scope restores the outer alone."""
    with mcpsync.connect(SERVER, timeout=T) as client:
        outer, inner = CancelScope(), CancelScope()
        outcome: list[Any] = []
        started = threading.Event()

        def work() -> None:
            with outer:
                with inner:
                    started.set()
                    try:
                        client.call_tool("sleep", {"seconds": 30}, timeout=T)
                    except RequestCancelled as exc:
                        outcome.append(exc.reason)

        thread = threading.Thread(target=work)
        thread.start()
        assert started.wait(T)
        assert _calling(client)
        outer.cancel("outer")
        thread.join(T)
        assert not thread.is_alive() and outcome == ["outer"]
        assert not inner.cancelled


def test_to_thread_carries_the_scope_of_the_coroutine() -> None:
    """The asyncio pattern: a scope entered in a coroutine reaches ``asyncio.to_thread``'s worker;
    cancelling the awaiting task cancels the scope, which ends the blocking call on the worker and
    tells the server."""
    with mcpsync.connect(SERVER, timeout=T) as client:

        async def call() -> Any:
            scope = CancelScope()
            with scope:
                worker = asyncio.ensure_future(asyncio.to_thread(client.call_tool, "sleep", {"seconds": 30}, timeout=T))
                try:
                    return await asyncio.shield(worker)
                except asyncio.CancelledError:
                    scope.cancel("task cancelled")
                    with pytest.raises(RequestCancelled):
                        await asyncio.wait_for(worker, T)
                    raise

        async def main() -> None:
            task = asyncio.ensure_future(call())
            assert await asyncio.to_thread(_calling, client)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await asyncio.wait_for(task, T)

        asyncio.run(main())
        assert len(cancelled_on_server(client, timeout=T)) == 1


def test_ctrl_c_leaving_the_scope_cancels_the_calls_it_runs_on_other_threads() -> None:
    """An agent framework's pattern: the main thread waits inside ``with scope:`` while a worker that
    copied its context makes the call; Ctrl-C (a ``KeyboardInterrupt``) leaves the block, which
    cancels the worker's call on the server at once instead of leaving it to its 20 s timeout."""
    import contextvars

    with mcpsync.connect(SERVER, timeout=T) as client:
        scope = CancelScope()
        outcome: list[Any] = []

        def work() -> None:
            try:
                client.call_tool("sleep", {"seconds": 30}, timeout=T)
            except RequestCancelled as exc:
                outcome.append(exc.reason)

        with pytest.raises(KeyboardInterrupt):
            with scope:
                thread = threading.Thread(target=contextvars.copy_context().run, args=(work,))
                thread.start()
                assert _calling(client)
                raise KeyboardInterrupt
        thread.join(5)
        assert not thread.is_alive() and outcome == ["interrupted by the user"]
        assert len(cancelled_on_server(client, timeout=T)) == 1
