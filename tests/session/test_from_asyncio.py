"""A client used from asyncio code, as docs/api.md ("From asyncio") shows: a blocking call in a worker
thread (``asyncio.to_thread``), a request's future awaited (``asyncio.wrap_future``), and a wait that
asyncio gives up cancelling the request on the server."""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

#: Seconds any wait here may take at most.
T = 20
API = Path(__file__).resolve().parent.parent.parent / "docs" / "api.md"


def test_to_thread_and_wrap_future_leave_the_loop_free(client: Any) -> None:
    """Two calls awaited at once, one each way, while the loop keeps ticking: neither blocks it."""

    async def main() -> tuple[str, dict[str, Any], int]:
        ticks = 0
        stop = asyncio.Event()

        async def tick() -> None:
            nonlocal ticks
            while not stop.is_set():
                ticks += 1
                await asyncio.sleep(0.01)

        ticker = asyncio.ensure_future(tick())
        called = asyncio.to_thread(client.call_tool, "sleep", {"seconds": 0.3}, timeout=T)
        future = client.send_request("tools/call", {"name": "echo", "arguments": {"text": "awaited"}})
        result, answer = await asyncio.wait_for(asyncio.gather(called, asyncio.wrap_future(future)), T)
        stop.set()
        await ticker
        return result.text, answer, ticks

    text, answer, ticks = asyncio.run(main())
    assert text == "slept 0.3s"
    assert answer["content"][0]["text"] == "awaited"
    assert ticks > 1  # the loop ran while both waited


def test_asyncio_giving_up_on_a_wrapped_future_cancels_the_request_on_the_server(client: Any) -> None:
    """``wait_for`` times out an awaited request: asyncio cancels the future, which sends
    ``notifications/cancelled``; the bundled server lists the id it saw cancelled."""

    async def main() -> Any:
        future = client.send_request("tools/call", {"name": "sleep", "arguments": {"seconds": 30}})
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(asyncio.wrap_future(future), 0.3)
        return future

    future = asyncio.run(main())
    assert future.cancelled()
    deadline = time.monotonic() + T
    seen: list[Any] = []
    while not seen and time.monotonic() < deadline:
        seen = client.call_tool("cancelled_requests").structured_content["cancelled"]
        time.sleep(0.05)
    assert seen == [future.request_id]


def test_the_docs_example_runs_as_pasted() -> None:
    """docs/api.md's "From asyncio" example, run as a script against the bundled server."""
    section = API.read_text(encoding="utf-8").split("### From asyncio\n", 1)[1].split("\n#", 1)[0]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    assert code is not None
    done = subprocess.run([sys.executable, "-c", code.group(1)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines() == ["hello", "42", "cancelled: True"]
