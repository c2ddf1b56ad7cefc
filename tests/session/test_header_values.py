"""Header values built from what a server or a model controls (``Mcp-Name`` from a tool's name,
``Mcp-Param-*`` from arguments), sent over a real 127.0.0.1 socket: the HTTP client skips
``requests``' own header check, so ours is the only one between the data and the wire."""

from __future__ import annotations

import json
import logging
import socketserver
from collections.abc import Iterator
from typing import Any

import pytest

import mcpsync
from tests.helpers import served

T = 10
DISCOVER = {
    "resultType": "complete",
    "supportedVersions": ["2026-07-28"],
    "capabilities": {"tools": {}},
    "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "raw", "version": "1"}},
}
#: The largest request head the raw server reads: past the 100 kB values tried here.
HEAD_LIMIT = 1 << 20


class RawServer(socketserver.ThreadingTCPServer):
    """An HTTP/1.1 server that keeps each request's head as the bytes that came (no parser of
    ours or of the standard library in the way) and answers a modern client from ``answers``."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, answers: dict[str, Any]) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.answers = answers
        self.heads: list[tuple[bytes, dict[str, Any]]] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/mcp"

    def calls(self) -> list[bytes]:
        return [head for head, message in self.heads if message.get("method") == "tools/call"]


class _Handler(socketserver.StreamRequestHandler):
    server: RawServer

    def handle(self) -> None:
        while True:
            head = b""
            while not head.endswith(b"\r\n\r\n"):
                line = self.rfile.readline(HEAD_LIMIT)
                if not line or len(head) > HEAD_LIMIT:
                    return
                head += line
            length = 0
            for line in head.split(b"\r\n"):
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value.strip())
            message = json.loads(self.rfile.read(length)) if length else {}
            self.server.heads.append((head, message))
            if "id" not in message:
                self.wfile.write(b"HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n")
                continue
            method = message.get("method")
            result = DISCOVER if method == "server/discover" else self.server.answers.get(method, {})
            body = json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}).encode()
            self.wfile.write(
                b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body) + body
            )


@pytest.fixture
def raw_server() -> Iterator[RawServer]:
    with served(RawServer({})) as server:
        yield server


def header_lines(head: bytes) -> list[bytes]:
    """The head's lines, one per header field: a line that starts with white space (obsolete
    folding) or that has no colon is a line the client should never have written."""
    return head.split(b"\r\n")[1:-2]


def assert_clean(head: bytes) -> None:
    for line in header_lines(head):
        assert line[:1] not in (b" ", b"\t") and b":" in line, line[:80]
        assert all(0x20 <= byte < 0x7F or byte == 0x09 for byte in line), line[:80]
    assert b"x-injected" not in head.lower()


class Evil(int):
    """An argument whose text is not its number (what a model's tool-calling glue may hand over)."""

    def __str__(self) -> str:
        return "1\r\n X-Injected: x"

    __repr__ = int.__repr__


class EvilText(str):
    def __str__(self) -> str:
        return "a\r\n X-Injected: y"


def tool(name: str, **properties: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "inputSchema": {"type": "object", "properties": properties}}


def test_names_and_arguments_with_cr_lf_nul_non_ascii_and_100_kb_never_put_a_line_of_their_own(raw_server, caplog):
    """Tools named with a final newline, CR LF, NUL, non-ASCII text, 100 kB or a lone surrogate,
    and an ``x-mcp-header`` named ``Q\\n``: a name that cannot travel as ``Mcp-Name`` (the 100 kB one,
    the surrogate) and the ``Q\\n`` annotation leave their tool out with a warning naming it; every
    other call goes out with each header on a line of its own, whatever its arguments (an ``int`` or
    ``str`` subclass whose ``__str__`` folds a line, CR LF, NUL, 100 kB), and nothing raises."""
    big = "n" * 100_000
    names = ["e\n", "a\r\nX-Injected: 1", "nul\x00", "größe", big, "lone\ud800"]
    raw_server.answers.update(
        {
            "tools/list": {
                "tools": [tool(name) for name in names]
                + [
                    tool("q", q={"type": "string", "x-mcp-header": "Q\n"}),
                    tool("p", p={"type": "string", "x-mcp-header": "P"}, n={"type": "integer", "x-mcp-header": "N"}),
                ],
                "resultType": "complete",
            },
            "tools/call": {"content": [{"type": "text", "text": "ok"}], "resultType": "complete"},
        }
    )
    caplog.set_level(logging.WARNING, "mcpsync")
    with mcpsync.connect(raw_server.url, protocol="modern", auth=False, timeout=T) as client:
        listed = [t.name for t in client.list_tools(timeout=T)]
        assert listed == ["e\n", "a\r\nX-Injected: 1", "nul\x00", "größe", "p"]
        for left_out in (big[:20], "lone", "'q'"):
            assert any("left out" in r.getMessage() and left_out in r.getMessage() for r in caplog.records), left_out
        for name in listed[:-1]:
            assert client.call_tool(name, {}, timeout=T).text == "ok"
        for value in ["x\r\nX-Injected: 2", "x\ny", "nul\x00", "Zürich", "v" * 100_000, EvilText("a")]:
            assert client.call_tool("p", {"p": value}, timeout=T).text == "ok"
        assert client.call_tool("p", {"n": Evil(1)}, timeout=T).text == "ok"
    calls = raw_server.calls()
    assert len(calls) == 4 + 7
    for head in calls:
        assert_clean(head)
    assert b"\r\nMcp-Param-N: 1\r\n" in calls[-1]  # the number the body holds, not what __str__ says
    assert b"\r\nMcp-Param-P: a\r\n" in calls[-2]  # a str subclass: its own characters
    assert b"Mcp-Name: =?base64?ZQo=?=" in calls[0]
