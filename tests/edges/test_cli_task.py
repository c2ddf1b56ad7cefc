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
