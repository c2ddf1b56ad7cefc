"""What tests/interop/test_official_stdio.py (stdio) and tests/interop/test_official_http.py (HTTP) share.

Both run tests/interop/official_server.py, the official MCP SDK's ``MCPServer``, as a
child process and talk to it through mcpsync's public API;
tests/interop/test_official_lowlevel.py does the same with the SDK's low-level ``Server``.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional

import pytest

import mcpsync
from tests.http_server import stop

#: Every wait in these modules is bounded by this many seconds.
TIMEOUT = 20.0
#: The server script: ``python official_server.py stdio`` or ``python official_server.py MODE PORT``.
SERVER_SCRIPT = Path(__file__).with_name("official_server.py")
#: The SDK's low-level ``Server``, for what ``MCPServer`` cannot do (same command line).
LOWLEVEL_SERVER_SCRIPT = Path(__file__).with_name("official_lowlevel_server.py")
#: The HTTP+SSE mode of the server scripts (the others are Streamable HTTP, endpoint /mcp).
HTTP_SSE = "http+sse"
#: The name and version the server reports in ``serverInfo`` (as official_server.py sets them).
SERVER_NAME = "official-sdk-test"
SERVER_VERSION = "1.2.3"
#: Every tool official_server.py defines.
TOOLS = {
    "add",
    "echo",
    "crash",
    "refuse",
    "progress",
    "to_stderr",
    "to_stdout",
    "slow",
    "slow_state",
    "die",
    "ask_name",
    "ask_in_rounds",
    "publish_changes",
    "ping_client",
    "tools_changed",
    "ask_sampling",
    "client_roots",
    "trace_context",
}


@contextmanager
def client_opener(target: Any, label: str) -> Iterator[Callable[..., mcpsync.Client]]:
    """Yield a function that connects to ``target`` (``name=label`` unless given); every client is closed after.

    The clients speak the legacy era unless ``protocol=`` says otherwise: the modules using this
    test the handshake, sessions, the GET stream and the server's own requests, which the SDK's
    dual-era servers serve only after ``initialize`` (``"auto"`` would pick the modern era;
    test_official_modern.py tests that one).
    """
    clients: list[mcpsync.Client] = []

    def open_(**kwargs: Any) -> mcpsync.Client:
        kwargs.setdefault("name", label)
        kwargs.setdefault("protocol", "legacy")
        client = mcpsync.connect(target, timeout=TIMEOUT, **kwargs)
        clients.append(client)
        return client

    yield open_
    for client in clients:
        client.close()


def echo_from_threads(
    client: mcpsync.Client, threads: int, calls: int
) -> list[list[tuple[str, str, Optional[dict[str, Any]]]]]:
    """``threads`` threads each make ``calls`` echo calls on ``client``, each with a text of its own.

    Returns, for each thread, (text sent, result text, structured content) for every call.
    """

    def worker(thread_index: int) -> list[tuple[str, str, Optional[dict[str, Any]]]]:
        seen = []
        for call_index in range(calls):
            text = f"thread-{thread_index}-call-{call_index}"
            result = client.call_tool("echo", {"text": text}, timeout=TIMEOUT)
            seen.append((text, result.text, result.structured_content))
        return seen

    with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="echo-worker") as pool:
        futures = [pool.submit(worker, i) for i in range(threads)]
        return [f.result(timeout=TIMEOUT * 3) for f in futures]


def five_slow_calls_at_once(client: mcpsync.Client) -> float:
    """Send five 1-second calls at once; return the seconds until all five answered."""
    started = time.monotonic()
    futures = [client.send_request("tools/call", {"name": "slow", "arguments": {"seconds": 1.0}}) for _ in range(5)]
    results = [f.result(timeout=TIMEOUT) for f in futures]
    assert [r["structuredContent"] for r in results] == [{"result": "slept"}] * 5
    return time.monotonic() - started


@dataclass
class Server:
    """A running official SDK server: its mode, port, MCP URL and process."""

    mode: str
    port: int
    process: subprocess.Popen  # type: ignore[type-arg]
    stderr_path: Path

    @property
    def url(self) -> str:
        """The URL a client is given: the MCP endpoint, or the SSE stream for HTTP+SSE."""
        return f"http://127.0.0.1:{self.port}/{'sse' if self.mode == HTTP_SSE else 'mcp'}"

    @property
    def target(self) -> Any:
        """What to pass to ``mcpsync.connect``: a bare URL, or an explicit HTTP+SSE config."""
        return {"type": "sse", "url": self.url} if self.mode == HTTP_SSE else self.url

    def stderr(self) -> str:
        """What the server wrote to stderr so far."""
        return self.stderr_path.read_text(encoding="utf-8", errors="replace")


def free_port() -> int:
    """A TCP port nobody listens on right now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def start_server(mode: str, directory: Path, script: Path = SERVER_SCRIPT) -> Server:
    """Start ``script`` in ``mode`` and wait (bounded) until its port accepts connections."""
    port = free_port()
    stderr_path = directory / f"server-{mode.replace('+', '-')}-{port}.log"
    with open(stderr_path, "wb") as stderr:  # the child keeps its own copy of the descriptor
        process = subprocess.Popen(
            [sys.executable, str(script), mode, str(port)], stdout=subprocess.DEVNULL, stderr=stderr
        )
    server = Server(mode, port, process, stderr_path)
    deadline = time.monotonic() + TIMEOUT
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1.0).close()
            return server
        except OSError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            stop(process, 5)
            pytest.fail(f"the {mode} server did not start (exit code {process.returncode}):\n{server.stderr()}")
        time.sleep(0.05)
