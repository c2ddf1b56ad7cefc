"""``mcpsync task [SERVER] status|wait|cancel ID``: what is refused before any server starts (the
commands themselves run against a server in tests/interop/test_durable_tasks.py)."""

from __future__ import annotations

import pytest

from tests.edges.test_cli import assert_usage_error


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
    from mcpsync._edges.cli_args import build_parser, task_id_as_word

    assert task_id_as_word(argv, build_parser()) == expected


def test_a_dashed_task_id_reaches_the_task_lookup(capsys: pytest.CaptureFixture[str]) -> None:
    """``mcpsync task inline status -abc`` parses (no "unrecognized arguments"): the id goes to the
    server; with no server to reach, the error is about the server, exit 1, not a usage error."""
    from mcpsync._edges.cli import main

    code = main(["--stdio", "/nonexistent/mcp-server", "task", "status", "-abc"])
    err = capsys.readouterr().err
    assert "unrecognized arguments" not in err
    assert code == 1, err
