"""What a server sends never drives the user's terminal (issue 36, point 7): a server whose every
text carries escape sequences (tests/edges/terminal_server.py: window title, clipboard write,
hyperlink, cleared screen, moved cursor, 8-bit CSI, conceal, a bidirectional override, a CR and an
erase forging another server's ``[name]`` prefix), run by ``mcpsync`` in a real pseudo-terminal.
Promise: every server-controlled text mcpsync writes there shows those bytes escaped (``\\x1b``);
``--json`` and the Python objects keep them as they came."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

import mcpsync
from mcpsync._core.text import for_terminal

SERVER = [sys.executable, str(Path(__file__).with_name("terminal_server.py"))]
T = 30
#: What a terminal acts on, as bytes in UTF-8: ESC, BEL, the other C0 controls but TAB and LF (a CR is
#: checked apart: the pty itself writes one before each LF), DEL, C1 (U+0080-U+009F), U+202A-E, U+2066-9.
RAW = [bytes([c]) for c in range(0x20) if c not in (0x09, 0x0A, 0x0D)] + [b"\x7f"]
RAW += [chr(c).encode() for c in range(0x80, 0xA0)] + [
    chr(c).encode() for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))
]


def in_a_terminal(*argv: str) -> tuple[int, bytes]:
    """``python -m mcpsync ARGV`` with its stdout and stderr on a pseudo-terminal: exit code, and what
    the terminal got (bounded: killed after ``T`` seconds)."""
    main, side = pty.openpty()
    env = {**os.environ, "COLUMNS": "200", "TERM": "xterm-256color"}
    command = [sys.executable, "-m", "mcpsync", "--stdio", subprocess.list2cmdline(SERVER), *argv]
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=side, stderr=side, env=env)
    os.close(side)
    got = bytearray()
    deadline = time.monotonic() + T
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([main], [], [], 0.1)
            if ready:
                try:
                    chunk = os.read(main, 65536)
                except OSError:  # EIO: the other side is closed, all is read
                    break
                if not chunk:
                    break
                got += chunk
            elif process.poll() is not None and not select.select([main], [], [], 0)[0]:
                break
        return process.wait(timeout=T), bytes(got)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(T)
        os.close(main)


def assert_nothing_raw(screen: bytes) -> None:
    found = [raw for raw in RAW if raw in screen]
    assert not found, f"reached the terminal raw: {found}\n{screen!r}"
    assert screen.count(b"\r") == screen.count(b"\r\n"), f"a carriage return not ending a line: {screen!r}"


def test_every_control_a_terminal_acts_on_is_shown_and_the_rest_kept() -> None:
    for code in [*range(0x20), 0x7F, *range(0x80, 0xA0), *range(0x202A, 0x202F), *range(0x2066, 0x206A)]:
        if chr(code) in "\t\n":
            continue
        shown = for_terminal(f"a{chr(code)}b")
        assert chr(code) not in shown and shown.startswith("a\\") and shown.endswith("b"), (code, shown)
    assert for_terminal("\x1b]0;t\x07") == "\\x1b]0;t\\x07"
    assert for_terminal("lone\rcr, line\r\n") == "lone\\rcr, line\r\n"
    kept = "tabs\tand\nlines, é, 日本, ✓"
    assert for_terminal(kept) is kept


def test_the_python_apis_stderr_passthrough_shows_the_servers_escapes(capsys: pytest.CaptureFixture[str]) -> None:
    """The server's stderr lines, passed to ours as ``[name] line``, escaped; the result object raw."""
    with mcpsync.connect(SERVER, timeout=T) as client:
        result = client.call_tool("show", timeout=T)
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\u202e" not in err and "\x9b" not in err
    assert "[terminal_server.py] starting \\x1b]0;pwned title\\x07" in err
    assert "\\r\\x1b[K[other-server] forged" in err
    assert "\x1b]0;pwned title\x07" in result.text  # the Python object itself: as the server sent it


@pytest.mark.parametrize(
    ("argv", "code", "shown"),
    [
        (["tools"], 0, b"Shows. \\x1b]0;pwned title\\x07"),
        (["call", "show"], 0, b"result \\x1b]0;pwned title\\x07\\x1b]52;c;cm0gLXJmIH4=\\x07"),
        (["-v", "call", "show"], 0, b"\\x9b31m"),
        (["call", "nope"], 2, b"mcpsync: error:"),
        (["task", "status", "abc"], 0, b"\\u202eevil\\u202c"),
    ],
    ids=["tools", "call", "verbose", "error", "task-status"],
)
def test_the_command_line_shows_a_hostile_servers_texts_escaped_in_a_terminal(
    argv: list[str], code: int, shown: bytes
) -> None:
    exit_code, screen = in_a_terminal(*argv)
    assert exit_code == code, screen
    assert_nothing_raw(screen)
    assert shown in screen, screen
    assert b"starting \\x1b]0;pwned title" in screen  # the server's stderr, passed through


def test_json_output_keeps_the_texts_as_they_came() -> None:
    """``--json`` is the value as asked for: JSON's own escapes (``\\u001b``), the text unchanged."""
    exit_code, screen = in_a_terminal("call", "show", "--json")
    assert exit_code == 0, screen
    start = screen.index(b"{")
    value = json.loads(screen[start : screen.rindex(b"}") + 1].replace(b"\r\n", b"\n"))
    assert "\x1b]0;pwned title\x07" in value["content"][0]["text"]
