"""Event loops for the frameworks' tests: the thread's default loop, which some frameworks' ``run_sync``
use and leave open on purpose, closed after each test; ``run``, a coroutine run on a loop of its own;
and ``in_flight``, a wait inside a loop for a client's request to be out."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

import mcpsync
from tests.edges.frameworks.conftest import T


@pytest.fixture(autouse=True)
def default_loop() -> Iterator[asyncio.AbstractEventLoop]:
    """The thread's default event loop, closed after the test. ``Runner.run_sync`` (OpenAI Agents) and
    ``agent.run_sync`` (Pydantic AI) run on it and leave it open on purpose (they keep loop-bound locks
    between calls): unclosed, it would count as a leak of the test's."""
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    yield loop
    asyncio.set_event_loop(None)
    loop.close()


def run(awaitable: Any) -> Any:
    """Run a coroutine on a loop of its own (``asyncio.run`` would unset the default loop ``run_sync`` uses)."""
    loop = asyncio.new_event_loop()
    try:
        return loop.run_until_complete(awaitable)
    finally:
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.run_until_complete(loop.shutdown_default_executor())
        loop.close()


async def in_flight(client: mcpsync.Client) -> None:
    """Wait (bounded, without blocking the loop) until the client has a request waiting for its answer."""
    pending = client.transport.endpoint.pending
    for _ in range(int(T / 0.01)):
        if pending.in_flight():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("no request went out")
