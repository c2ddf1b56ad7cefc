"""The tasks extension (``io.modelcontextprotocol/tasks``) against FastMCP with ``fastmcp-tasks``, a server
we did not write, over stdio and Streamable HTTP (tests/interop/fastmcp_tasks_server.py).

Blocking ``call_tool`` drives a task to its end as if the call had been
synchronous: polls at the server's pace, answers the task's input through
the client's own handlers (``tasks/update``), reads a failure the way the
call would have been read, and cancels the task on the server when the
caller stops waiting (timeout, Ctrl-C).
"""

from __future__ import annotations

import _thread
import json
import logging
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import mcpsync
from mcpsync import RequestTimeout, TaskCancelled, ToolTask
from tests.interop.official import Server, start_server, stop

pytestmark = [
    pytest.mark.official,
    pytest.mark.skipif(sys.version_info < (3, 10), reason="fastmcp needs Python 3.10+"),
]

SCRIPT = Path(__file__).with_name("fastmcp_tasks_server.py")
T = 30


@pytest.fixture(scope="module", params=("stdio", "http"))
def target(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    if request.param == "stdio":
        yield {"command": sys.executable, "args": [str(SCRIPT), "stdio"]}
        return
    running: Server = start_server("http", tmp_path_factory.mktemp("fastmcp-tasks"), script=SCRIPT)
    try:
        yield running.url
    finally:
        stop(running.process, 5)


def sent_requests(caplog: pytest.LogCaptureFixture) -> list[dict[str, Any]]:
    """The requests mcpsync sent, from its traffic log."""
    sent = [json.loads(r.getMessage().split(" --> ", 1)[1]) for r in caplog.records if " --> " in r.getMessage()]
    return [m for m in sent if "id" in m and "method" in m]


def test_a_task_call_returns_its_result_as_if_it_had_been_synchronous(target: Any, caplog) -> None:
    with caplog.at_level(logging.DEBUG, logger="mcpsync.traffic"):
        with mcpsync.connect(target, protocol="auto", timeout=T) as client:
            assert client.era == "modern"
            assert "io.modelcontextprotocol/tasks" in client.server_capabilities["extensions"]
            result = client.call_tool("crunch", {"n": 21, "seconds": 1.5}, timeout=T)
    assert result.structured_content == {"result": 42} and not result.is_error
    requests = sent_requests(caplog)
    call = next(m for m in requests if m["method"] == "tools/call")
    assert call["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"]["extensions"] == {
        "io.modelcontextprotocol/tasks": {}
    }
    polls = [m for m in requests if m["method"] == "tasks/get"]
    # crunch asks to be polled once a second: about 1.5 s of work is a poll or two, never a busy loop.
    assert 1 <= len(polls) <= 3
    assert {m["params"]["taskId"] for m in polls} == {polls[0]["params"]["taskId"]}


def test_a_required_task_tool_works_through_plain_call_tool(target: Any) -> None:
    with mcpsync.connect(target, timeout=T, protocol="modern") as client:
        assert client.call_tool("must_task", {"n": 7}, timeout=T).text == "task 7"
        assert client.call_tool("plain", {"text": "not a task"}, timeout=T).text == "not a task"


def test_input_the_task_asks_for_goes_to_the_clients_handler_once_and_back_by_tasks_update(target: Any, caplog) -> None:
    asked: list[str] = []

    def elicit(params: dict[str, Any]) -> dict[str, Any]:
        asked.append(params["message"])
        return {"action": "accept", "content": {"ok": True}}

    with caplog.at_level(logging.DEBUG, logger="mcpsync.traffic"):
        with mcpsync.connect(target, protocol="modern", timeout=T, elicitation=elicit) as client:
            result = client.call_tool("confirm", {"item": "deploy"}, timeout=T)
    assert result.text == "deploy: accept {'ok': True} (asked about deploy)"
    assert asked == ["Go on with deploy?"]  # polled again while the answer was on its way: asked once
    sent = [r.getMessage() for r in caplog.records if " --> " in r.getMessage()]
    updates = [line for line in sent if '"method":"tasks/update"' in line]
    assert len(updates) == 1 and '{"action":"accept","content":{"ok":true}}' in updates[0]


def test_a_task_whose_tool_raises_completes_as_a_tool_error(target: Any) -> None:
    with mcpsync.connect(target, protocol="modern", timeout=T) as client:
        result = client.call_tool("explode", {"message": "kaput"}, timeout=T)
    assert result.is_error and "kaput" in result.text


def test_start_tool_hands_over_the_task_and_cancel_ends_it_on_the_server(target: Any) -> None:
    with mcpsync.connect(target, protocol="modern", timeout=T) as client:
        before = int(client.call_tool("cancelled_count", timeout=T).text)
        running = int(client.call_tool("started_count", timeout=T).text)
        seen: list[str] = []
        task = client.start_tool("forever", timeout=T, on_status=lambda t: seen.append(t.status))
        assert isinstance(task, ToolTask) and task.id and task.status == "working" and not task.done()
        assert "forever" in repr(task) and task.id in repr(task)
        # A task cancelled before its worker ran it never runs its handler: cancel one that runs.
        deadline = time.monotonic() + T
        while int(client.call_tool("started_count", timeout=T).text) == running and time.monotonic() < deadline:
            time.sleep(0.05)
        task.cancel(timeout=T)
        deadline = time.monotonic() + T
        while task.refresh(timeout=T) != "cancelled" and time.monotonic() < deadline:
            time.sleep(0.1)
        assert task.status == "cancelled" and task.done() and seen[-1] == "cancelled"
        with pytest.raises(TaskCancelled, match=r"forever: task .* was cancelled") as info:
            task.result(timeout=T)
        assert info.value.task_id == task.id
        # The task says cancelled before its worker has run the tool's own CancelledError handler: wait.
        deadline = time.monotonic() + T
        while int(client.call_tool("cancelled_count", timeout=T).text) == before and time.monotonic() < deadline:
            time.sleep(0.1)
        assert int(client.call_tool("cancelled_count", timeout=T).text) == before + 1
        done = client.start_tool("plain", {"text": "at once"}, timeout=T)
        assert done.done() and done.id is None and done.result().text == "at once"


def test_a_timeout_cancels_the_task_on_the_server(target: Any) -> None:
    with mcpsync.connect(target, protocol="modern", timeout=T) as client:
        before = int(client.call_tool("cancelled_count", timeout=T).text)
        started = time.monotonic()
        with pytest.raises(RequestTimeout, match=r"after 1s .*forever: task .* still working"):
            client.call_tool("forever", timeout=1)
        assert time.monotonic() - started < T
        deadline = time.monotonic() + T
        while int(client.call_tool("cancelled_count", timeout=T).text) == before and time.monotonic() < deadline:
            time.sleep(0.1)
        assert int(client.call_tool("cancelled_count", timeout=T).text) == before + 1


def test_ctrl_c_while_waiting_for_a_task_cancels_it_on_the_server(target: Any) -> None:
    with mcpsync.connect(target, protocol="modern", timeout=T) as client:
        before = int(client.call_tool("cancelled_count", timeout=T).text)
        timer = threading.Timer(1.0, _thread.interrupt_main)
        timer.start()
        try:
            with pytest.raises(KeyboardInterrupt):
                client.call_tool("forever", timeout=T)
        finally:
            timer.cancel()
        deadline = time.monotonic() + T
        while int(client.call_tool("cancelled_count", timeout=T).text) == before and time.monotonic() < deadline:
            time.sleep(0.1)
        assert int(client.call_tool("cancelled_count", timeout=T).text) == before + 1
