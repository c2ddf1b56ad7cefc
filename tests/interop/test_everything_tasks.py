"""The 2025-11-25 experimental tasks against the reference server ``server-everything`` (npm), a server we
did not write, over stdio and Streamable HTTP.

Its ``simulate-research-query`` tool declares ``execution.taskSupport:
"required"``: a plain ``tools/call`` is refused ("requires task
augmentation"). mcpsync's blocking ``call_tool`` asks for a task, polls
``tasks/get`` at the server's pace, and reads the result with
``tasks/result``, through which the server sends the elicitation an
ambiguous query needs. ``make test`` installs the package (``npm ci`` in
tests/interop/node); without Node the tests are skipped, saying so.
"""

from __future__ import annotations

import logging
import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import mcpsync
from mcpsync import RequestTimeout, TaskCancelled, TaskNotFound
from tests.interop.official import free_port, stop

NODE_DIR = Path(__file__).with_name("node")
EVERYTHING = NODE_DIR / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
T = 60
TOOL = "simulate-research-query"

pytestmark = pytest.mark.skipif(
    shutil.which("node") is None or not EVERYTHING.is_file(),
    reason="server-everything is not installed (make test runs npm ci in tests/interop/node; it needs Node 20+)",
)


#: Why the tests that wait for a research task to finish are slow.
RUNS_THE_RESEARCH = "server-everything's simulated research task runs through its stages for about 5 s"


@pytest.fixture(scope="module", params=("stdio", "streamableHttp"))
def target(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    if request.param == "stdio":
        yield {"command": "node", "args": [str(EVERYTHING), "stdio"]}
        return
    port = free_port()
    log = tmp_path_factory.mktemp("everything") / "server.log"
    with open(log, "wb") as stderr:
        process = subprocess.Popen(
            ["node", str(EVERYTHING), "streamableHttp"],
            env={**os.environ, "PORT": str(port)},
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )
    try:
        deadline = time.monotonic() + T
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1.0).close()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"server-everything did not start:\n{log.read_text(errors='replace')}")
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        stop(process, 5)


def methods_sent(caplog: pytest.LogCaptureFixture) -> list[str]:
    """The methods of the requests mcpsync sent, in order, from its traffic log."""
    methods = []
    for record in caplog.records:
        line = record.getMessage()
        if " --> " in line and '"method":"' in line and '"id":' in line:
            methods.append(line.split('"method":"', 1)[1].split('"', 1)[0])
    return methods


@pytest.mark.slow(RUNS_THE_RESEARCH)
def test_a_tool_that_requires_a_task_works_through_plain_call_tool(target: Any, caplog) -> None:
    steps: list[str] = []
    with caplog.at_level(logging.DEBUG, logger="mcpsync.traffic"):
        with mcpsync.connect(target, protocol="legacy", timeout=T) as client:
            assert client.server_capabilities["tasks"]["requests"]["tools"] == {"call": {}}
            result = client.call_tool(TOOL, {"topic": "otters"}, timeout=T, on_progress=lambda p, t, m: steps.append(m))
    assert "# Research Report: otters" in result.text and not result.is_error
    task_id = result.meta["io.modelcontextprotocol/related-task"]["taskId"]
    assert task_id
    # Not listed by the caller: a server that runs tools as tasks is asked once which ones need a task.
    methods = methods_sent(caplog)
    assert methods[methods.index("tools/list") :][:2] == ["tools/list", "tools/call"]
    assert "tasks/get" in methods and methods[-1] == "tasks/result"
    # The task's status messages are the call's progress; its pollInterval (1 s) keeps polls few.
    assert steps[0] == "Gathering sources..." and len(steps) >= 2
    assert methods.count("tasks/get") <= 8


@pytest.mark.slow(RUNS_THE_RESEARCH)
def test_the_elicitation_a_task_needs_reaches_the_clients_handler(target: Any) -> None:
    asked: list[str] = []

    def elicit(params: dict[str, Any]) -> dict[str, Any]:
        asked.append(params["message"])
        return {"action": "accept", "content": {"interpretation": "marine biology"}}

    with mcpsync.connect(target, protocol="legacy", timeout=T, elicitation=elicit) as client:
        client.list_tools(timeout=T)
        result = client.call_tool(TOOL, {"topic": "otters", "ambiguous": True}, timeout=T)
    assert len(asked) == 1 and "otters" in asked[0]
    assert "**Clarification**: marine biology" in result.text


def test_start_tool_gives_the_task_and_cancel_ends_it(target: Any) -> None:
    with mcpsync.connect(target, protocol="legacy", timeout=T) as client:
        client.list_tools(timeout=T)
        task = client.start_tool(TOOL, {"topic": "otters"}, timeout=T)
        assert task.id and task.status == "working" and task.poll_interval == 1.0 and task.ttl == 300.0
        with pytest.raises(RequestTimeout):
            task.result(timeout=0.5)  # the wait's own bound: the task runs on
        assert task.refresh(timeout=T) == "working"
        task.cancel(timeout=T)
        assert task.status == "cancelled"  # 2025-11-25 answers tasks/cancel with the task
        with pytest.raises(TaskCancelled):
            task.result(timeout=T)


def test_a_timeout_cancels_the_task_on_the_server(target: Any, caplog) -> None:
    with caplog.at_level(logging.DEBUG, logger="mcpsync.traffic"):
        with mcpsync.connect(target, protocol="legacy", timeout=T) as client:
            client.list_tools(timeout=T)
            with pytest.raises(RequestTimeout, match=r"after 1\.5s"):
                client.call_tool(TOOL, {"topic": "otters"}, timeout=1.5)
            assert client.call_tool("echo", {"message": "still fine"}, timeout=T).text == "Echo: still fine"
    assert "tasks/cancel" in methods_sent(caplog)


@pytest.mark.slow(RUNS_THE_RESEARCH)
def test_a_task_is_re_attached_by_its_id_with_tasks_get_and_tasks_result(target: Any) -> None:
    """2025-11-25: ``Client.task(id)`` makes a second handle on a running task from its id alone
    (``tasks/get``), whose ``result`` comes by ``tasks/result``; an id the server never gave is
    ``TaskNotFound`` (its -32602). server-everything keeps a task to the session that made it."""
    with mcpsync.connect(target, protocol="legacy", timeout=T) as client:
        client.list_tools(timeout=T)
        started = client.start_tool(TOOL, {"topic": "otters"}, timeout=T)
        again = client.task(started.id or "", tool=TOOL)
        assert again.id == started.id and again.status == "working" and again.tool == TOOL
        assert "# Research Report: otters" in again.result(timeout=T).text
        with pytest.raises(TaskNotFound) as caught:
            client.task("no-such-task")
    assert caught.value.code == -32602 and caught.value.task_id == "no-such-task"
