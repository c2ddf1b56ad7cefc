"""What tests/test_official_sdk.py (stdio) and tests/test_official_sdk_http.py (HTTP) share.

Both run tests/official_server.py, the official MCP SDK's ``MCPServer``, as a
child process and talk to it through mcpsync's public API.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Optional

import mcpsync

#: Every wait in these modules is bounded by this many seconds.
TIMEOUT = 20.0
#: The server script: ``python official_server.py stdio`` or ``python official_server.py MODE PORT``.
SERVER_SCRIPT = Path(__file__).with_name("official_server.py")
#: The name and version the server reports in ``serverInfo`` (as official_server.py sets them).
SERVER_NAME = "official-sdk-test"
SERVER_VERSION = "1.2.3"
#: Every tool official_server.py defines.
TOOLS = {
    "add", "echo", "crash", "refuse", "progress", "to_stderr", "to_stdout", "slow", "slow_state", "die",
    "ask_name", "ping_client", "tools_changed", "ask_sampling", "client_roots",
}  # fmt: skip


def wait_for(predicate: Callable[[], bool], timeout: float = TIMEOUT) -> bool:
    """Poll ``predicate`` until it is true or ``timeout`` seconds pass; return its last value."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return predicate()
        time.sleep(0.02)
    return True


@contextmanager
def client_opener(target: Any, label: str) -> Iterator[Callable[..., mcpsync.Client]]:
    """Yield a function that connects to ``target`` (``name=label`` unless given); every client is closed after."""
    clients: list[mcpsync.Client] = []

    def open_(**kwargs: Any) -> mcpsync.Client:
        kwargs.setdefault("name", label)
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
