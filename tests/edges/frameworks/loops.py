"""Event loops for the frameworks' tests: the thread's default loop, which some frameworks' ``run_sync``
use and leave open on purpose, closed after each test; ``run``, a coroutine run on a loop of its own;
``check_a_cancelled_run_cancels``, the cancellation check of the async runs; and ``run_example``, an example run in a subprocess."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.edges.frameworks.conftest import T, Target

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


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


def run_example(name: str) -> subprocess.CompletedProcess[str]:
    """Run ``examples/<name>`` (bounded; no API key in its environment) and check that it succeeded."""
    env = {"PATH": "/usr/bin:/bin", **{k: v for k, v in os.environ.items() if k == "PYTHONPATH"}}
    done = subprocess.run([sys.executable, str(EXAMPLES / name)], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    return done


def check_a_cancelled_run_cancels(target: Target, start: Callable[[], Awaitable[Any]], asked: asyncio.Event) -> None:
    """The task of ``start()`` (an agent's run, whose model sets ``asked`` when it calls a tool) is
    cancelled once the call is out: ``CancelledError``, and the server sees the call cancelled."""

    async def run_then_cancel() -> None:
        task = asyncio.ensure_future(start())
        await asyncio.wait_for(asked.wait(), T)
        await target.until_in_flight()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, T)

    run(run_then_cancel())
    assert len(target.cancelled_on_server(1)) == 1
