"""Durable tasks: a task id outlives the process that started the task (the tasks extension, "persist
task ids"), against FastMCP with ``fastmcp-tasks`` over Streamable HTTP (a server we did not write,
which keeps running when the first client dies; tests/interop/fastmcp_tasks_server.py).

A child process starts the tasks, prints their ids and is killed with SIGKILL; a fresh client
re-attaches by id, with ``Client.task`` and with ``mcpsync task status|wait|cancel ID``.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

import mcpsync
from mcpsync import TaskNotFound
from tests.interop.official import start_server, stop

pytestmark = [
    pytest.mark.official,
    pytest.mark.skipif(sys.version_info < (3, 10), reason="fastmcp needs Python 3.10+"),
]

SCRIPT = Path(__file__).with_name("fastmcp_tasks_server.py")
T = 30

#: The first process: starts two tasks, prints their ids, and waits (for its SIGKILL).
STARTER = textwrap.dedent(
    """
    import sys
    import mcpsync

    client = mcpsync.connect(sys.argv[1], timeout=30)
    crunch = client.start_tool("crunch", {"n": 21, "seconds": 1.0})
    forever = client.start_tool("forever", {})
    print(crunch.id, forever.id, flush=True)
    sys.stdin.read()
    """
)


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    running = start_server("http", tmp_path_factory.mktemp("durable-tasks"), script=SCRIPT)
    try:
        yield running.url
    finally:
        stop(running.process, 5)


def started_then_killed(url: str) -> tuple[str, str]:
    """Run the starter, read the ids it prints, SIGKILL it; the ids of its ``crunch`` and ``forever`` tasks."""
    starter = subprocess.Popen(
        [sys.executable, "-c", STARTER, url], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        ready, _, _ = select.select([starter.stdout], [], [], T)
        assert ready, "the starter printed no task ids in time"
        assert starter.stdout is not None
        line = starter.stdout.readline().split()
    finally:
        os.kill(starter.pid, signal.SIGKILL)
        starter.wait(T)
        assert starter.stdin is not None and starter.stdout is not None
        starter.stdin.close()
        starter.stdout.close()
    assert starter.returncode == -signal.SIGKILL
    crunch, forever = line
    return crunch, forever


def cli(url: str, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mcpsync", "--url", url, "--timeout", str(T), *argv],
        capture_output=True,
        text=True,
        timeout=2 * T,
    )


def test_a_fresh_process_gets_the_result_of_a_task_whose_starter_was_killed(url: str) -> None:
    """The starter dies by SIGKILL; a new client re-attaches by id (``Client.task``) and gets the
    tool's result; the task that never ends is still working, and is cancelled from here."""
    crunch_id, forever_id = started_then_killed(url)
    with mcpsync.connect(url, timeout=T) as client:
        crunch = client.task(crunch_id, tool="crunch")
        assert crunch.id == crunch_id and crunch.status in ("working", "completed")
        result = crunch.result(timeout=T)
        assert result.structured_content == {"result": 42} and not result.is_error
        forever = client.task(forever_id)
        assert forever.status == "working" and forever.tool == ""
        forever.cancel(timeout=T)
        assert forever.refresh(timeout=T) == "cancelled"


def test_the_cli_waits_for_a_task_of_a_killed_process_and_reports_and_cancels_by_id(url: str) -> None:
    """``mcpsync task wait ID`` prints the result as ``call`` would (``--json``: as the server sent it);
    ``status`` says where a task is; ``cancel`` ends one."""
    crunch_id, forever_id = started_then_killed(url)
    waited = cli(url, "--json", "task", "wait", crunch_id)
    assert waited.returncode == 0, waited.stderr
    assert json.loads(waited.stdout)["structuredContent"] == {"result": 42}
    assert cli(url, "task", "wait", crunch_id).stdout.splitlines()[0] == "42"
    status = cli(url, "task", "inline", "status", forever_id)  # SERVER named (the inline one), or left out
    assert (status.returncode, status.stdout) == (0, "working\n"), status.stderr
    cancelled = cli(url, "task", "cancel", forever_id)
    assert (cancelled.returncode, cancelled.stdout) == (0, "cancelled\n"), cancelled.stderr


def test_an_unknown_task_id_is_task_not_found(url: str) -> None:
    """An id the server never gave: the server's -32602 (sent with HTTP 400) as ``TaskNotFound``, which
    names the id and the server; the CLI says so and exits 1."""
    with mcpsync.connect(url, timeout=T) as client:
        with pytest.raises(TaskNotFound) as caught:
            client.task("no-such-task")
    assert caught.value.code == -32602 and caught.value.task_id == "no-such-task"
    assert "no task 'no-such-task'" in str(caught.value) and isinstance(caught.value, LookupError)
    done = cli(url, "task", "status", "no-such-task")
    assert done.returncode == 1
    assert "no task 'no-such-task'" in done.stderr


@pytest.mark.slow("six command-line runs, each a process of its own (0.5-1 s a run), and a task of 0.5 s")
def test_from_the_shell_alone_call_no_wait_prints_the_task_id_and_task_wait_gets_the_result(url: str) -> None:
    """``mcpsync call --no-wait`` returns once the server has made the task, printing its id (``--json``:
    the task); ``mcpsync task wait ID``, another process, prints the result; a call the server answers
    at once prints its result as ``call`` does."""
    started = cli(url, "call", "--no-wait", "crunch", "n=21", "seconds=0.5")
    assert started.returncode == 0, started.stderr
    (task_id,) = started.stdout.split()
    described = cli(url, "--json", "call", "forever", "--no-wait")
    assert described.returncode == 0, described.stderr
    forever = json.loads(described.stdout)
    assert forever["status"] == "working" and forever["taskId"] != task_id
    assert cli(url, "task", "cancel", forever["taskId"]).stdout == "cancelled\n"
    waited = cli(url, "task", "wait", task_id)
    assert (waited.returncode, waited.stdout.splitlines()[0]) == (0, "42"), waited.stderr
    plain = cli(url, "call", "--no-wait", "plain", "text=at once")
    assert plain.returncode == 0, plain.stderr
    assert plain.stdout == cli(url, "call", "plain", "text=at once").stdout and "at once" in plain.stdout
