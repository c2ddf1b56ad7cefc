"""``mcpsync task [SERVER] status|wait|cancel ID``: what is refused before any server starts (the
commands themselves run against a server in tests/interop/test_durable_tasks.py)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from tests.edges.test_cli import assert_usage_error
from tests.helpers import scripted_server


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--stdio", "x", "task"], "the following arguments are required: SERVER"),
        (["--stdio", "x", "task", "status"], "the following arguments are required: WORD"),
        (["--stdio", "x", "task", "finish", "abc"], "task 'finish': expected one of status, wait, cancel"),
        (["--stdio", "x", "task", "inline", "status", "a", "b"], "task takes [SERVER] {status,wait,cancel} ID"),
        (["--stdio", "x", "task", "other", "status", "abc"], "no server named 'other'"),
    ],
)
def test_task_usage_errors_exit_2(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    """A task command that cannot be right (no action, an unknown one, extra words, an unknown
    server) exits 2 and says what was wrong."""
    assert_usage_error(argv, message, capsys)


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--stdio", "x", "task", "wait", "-TEcSI8"], ["--stdio", "x", "task", "wait", "--", "-TEcSI8"]),
        (["task", "inline", "cancel", "-a=b"], ["task", "inline", "cancel", "--", "-a=b"]),
        (["task", "wait", "abc"], ["task", "wait", "abc"]),
        (["task", "wait", "--", "-x"], ["task", "wait", "--", "-x"]),
        (["task", "wait", "--json"], ["task", "wait", "--json"]),
        (["task", "wait", "-v"], ["task", "wait", "-v"]),
        (["call", "wait", "-x"], ["call", "wait", "-x"]),
    ],
)
def test_a_task_id_that_starts_with_a_dash_is_the_id_not_an_option(argv: list[str], expected: list[str]) -> None:
    """Task ids are opaque and may start with ``-`` (the official SDK's do, one time in 64): as the
    last word after the action it is read as the ID; an option of mcpsync there stays an option."""
    from mcpsync._edges.cli.args import build_parser, task_id_as_word

    assert task_id_as_word(argv, build_parser()) == expected


def test_a_dashed_task_id_reaches_the_task_lookup(capsys: pytest.CaptureFixture[str]) -> None:
    """``mcpsync task inline status -abc`` parses (no "unrecognized arguments"): the id goes to the
    server; with no server to reach, the error is about the server, exit 1, not a usage error."""
    from mcpsync._edges.cli import main

    code = main(["--stdio", "/nonexistent/mcp-server", "task", "status", "-abc"])
    err = capsys.readouterr().err
    assert "unrecognized arguments" not in err
    assert code == 1, err


@pytest.mark.parametrize("action", ["status", "cancel"])
def test_a_server_that_describes_another_task_is_an_error_and_that_task_is_not_cancelled(
    action: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``mcpsync task status|cancel A`` where the server's ``tasks/get`` answers about task B: exit 1,
    the error names both, B's status is not printed, and no ``tasks/cancel`` is sent."""
    from mcpsync._edges.cli import main

    other = {"taskId": "B", "status": "working", "createdAt": "2026-12-04T00:00:00Z", "ttl": 60000}
    log = tmp_path / "seen.jsonl"
    script = {"tools/list": [{"tools": []}], "tasks/get": [other], "tasks/cancel": [other]}
    command = scripted_server(script, log_file=log)
    code = main(["--stdio", shlex.join(command), "task", action, "A"])
    captured = capsys.readouterr()
    assert code == 1, captured.err
    assert "tasks/get 'A': the server described task 'B' instead" in captured.err
    assert captured.out == ""
    methods = [json.loads(line).get("method") for line in log.read_text().splitlines()]
    assert "tasks/get" in methods and "tasks/cancel" not in methods
