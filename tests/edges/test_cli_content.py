"""How ``mcpsync call`` shows what is not text: image, audio, resource links, embedded blobs and
content types it does not know, each as one summary line (never raw bytes on a terminal); content
that is not what it says (base64 that is not) as a one-line error, not a traceback; and the
progress line on a terminal: rewritten in place, cut to that terminal's width, cleared at the end.

The CLI runs in a subprocess against a scripted server (``tests/scripted_server.py``) that answers
``tools/call`` with the content of each case, or against the test server's ``progress`` tool.
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import shlex
import struct
import subprocess
import sys
import termios
from pathlib import Path
from typing import Any

import pytest

from mcpsync.testing import server_command
from tests.helpers import scripted_server

T = 60
SERVER_ENV = {"PYTHONPATH": str(Path(__file__).resolve().parents[2])}
ECHO_TOOL = {"name": "show", "inputSchema": {"type": "object"}}


def cli(home: Path, command: list[str], *args: str, **options: Any) -> subprocess.CompletedProcess:  # type: ignore[type-arg]
    """``python -m mcpsync --stdio COMMAND ARGS`` in ``home``, isolated from the user's files."""
    env = {k: v for k, v in os.environ.items() if k not in ("MCPSYNC_CONFIG", "COLUMNS", "LINES")}
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / "c"), XDG_DATA_HOME=str(home / "d"))
    stdio = ["--stdio", shlex.join(command), *(f"--env={k}={v}" for k, v in SERVER_ENV.items())]
    options.setdefault("capture_output", True)
    return subprocess.run(
        [sys.executable, "-m", "mcpsync", *stdio, *args],
        cwd=home,
        env=env,
        stdin=subprocess.DEVNULL,
        timeout=T,
        **options,
    )


def answering(*content: dict[str, Any]) -> list[str]:
    return scripted_server({"tools/list": [{"tools": [ECHO_TOOL]}], "tools/call": [{"content": list(content)}]})


@pytest.mark.parametrize(
    ("content", "shown"),
    [
        ({"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}, "[image image/png, 8 bytes]"),
        ({"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"}, "[audio audio/wav, 4 bytes]"),
        (
            {"type": "resource_link", "uri": "file:///r/a.csv", "name": "a", "mimeType": "text/csv"},
            "[resource link file:///r/a.csv (text/csv)]",
        ),
        ({"type": "resource_link", "uri": "file:///r/a", "name": "a"}, "[resource link file:///r/a]"),
        (
            {"type": "resource", "resource": {"uri": "blob://x", "blob": "AAEC", "mimeType": "application/zip"}},
            "[resource blob://x: binary application/zip, 3 bytes]",
        ),
        (
            {"type": "resource", "resource": {"uri": "blob://y", "blob": "AAEC"}},
            "[resource blob://y: binary data, 3 bytes]",
        ),
        ({"type": "resource", "resource": {"uri": "text://t", "text": "hello"}}, "hello"),
        ({"type": "widget", "size": 2}, '[widget content: {"type": "widget", "size": 2}]'),
    ],
    ids=["image", "audio", "link", "link-no-type", "blob", "blob-no-type", "embedded-text", "unknown"],
)
def test_call_shows_each_kind_of_content_as_one_line(tmp_path: Path, content, shown) -> None:
    """A tool answers with one content block of each kind: one line on stdout says what it is (the
    bytes' count, the MIME type, the URI), exit 0, nothing on stderr."""
    done = cli(tmp_path, answering(content), "call", "show", text=True)
    assert (done.returncode, done.stdout, done.stderr) == (0, shown + "\n", "")


def test_call_shows_mixed_content_in_order_and_json_keeps_the_bytes(tmp_path: Path) -> None:
    """Text, then an image, then a link: three lines in the server's order; ``--json`` prints the
    result as sent (the base64 as it came)."""
    blocks = [
        {"type": "text", "text": "a chart:"},
        {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
        {"type": "resource_link", "uri": "file:///r/data.csv", "name": "data"},
    ]
    done = cli(tmp_path, answering(*blocks), "call", "show", text=True)
    assert done.stdout == "a chart:\n[image image/png, 8 bytes]\n[resource link file:///r/data.csv]\n", done.stderr
    done = cli(tmp_path, answering(*blocks), "--json", "call", "show", text=True)
    assert json.loads(done.stdout)["content"] == blocks


@pytest.mark.parametrize(
    ("content", "said"),
    [
        ({"type": "image", "data": "not base64!", "mimeType": "image/png"}, "image content: not valid base64"),
        (
            {"type": "resource", "resource": {"uri": "blob://x", "blob": "%%%"}},
            "resource 'blob://x' blob: not valid base64",
        ),
    ],
    ids=["image", "blob"],
)
def test_content_whose_base64_is_broken_is_a_one_line_error(tmp_path: Path, content, said) -> None:
    """An image (or blob) whose data is not base64: exit 1, ``mcpsync: error: ...`` says which block
    and why, and no traceback."""
    done = cli(tmp_path, answering(content), "call", "show", text=True)
    assert done.returncode == 1
    assert done.stderr.startswith("mcpsync: error: ") and said in done.stderr
    assert "Traceback" not in done.stderr


def set_columns(fd: int, columns: int) -> None:
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))


def test_the_progress_line_on_a_terminal_is_rewritten_in_place_cut_to_its_width_and_cleared(tmp_path: Path) -> None:
    """stderr is a 15-column terminal, stdout a pipe (``mcpsync call ... > out``): each update is
    ``\\r`` + the line cut to 14 characters + erase-to-end; the end clears it; the result goes to
    stdout alone, and nothing else is drawn there. (Before: the width was stdout's, 80 when stdout is
    a pipe, so the line wrapped; and a tqdm bar was drawn on the same line between the updates.)"""
    leader, follower = pty.openpty()
    set_columns(follower, 15)
    try:
        done = cli(
            tmp_path,
            server_command(),
            "call",
            "progress",
            "steps=2",
            "delay=0",
            stdout=subprocess.PIPE,
            stderr=follower,
            capture_output=False,
        )
        os.close(follower)
        follower = -1
        written = b""
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # EIO: the terminal's other end is closed and drained
                break
            if not chunk:
                break
            written += chunk
    finally:
        if follower != -1:
            os.close(follower)
        os.close(leader)
    assert done.returncode == 0, written
    assert done.stdout == b"done\n"
    # nothing else on the terminal: no progress bar of the library's beside the command's own line
    assert written == b"\rprogress 1/2 s\x1b[K\rprogress 2/2 s\x1b[K\r\x1b[K"
