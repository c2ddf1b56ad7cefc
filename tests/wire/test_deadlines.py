"""A call's deadline holds for the whole HTTP exchange, and Ctrl-C cuts it short: the one mechanism.

The server sends a status line, then one header line every 0.2 s, and never
the end of its headers: every socket read is short, so only a deadline for
the whole exchange (the watchdog) or a cut (Ctrl-C, close) ends it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest
import requests

import mcpsync
from tests.helpers import ctrl_c_after
from tests.http_server import running_http_server

T = 10.0
#: How far past its timeout a call may return (a loaded CI machine).
SLACK = 1.5


@pytest.fixture(params=["http-sse", "http-json"])
def base(request: pytest.FixtureRequest) -> Iterator[str]:
    with running_http_server(*(("--json",) if request.param == "http-json" else ())) as url:
        yield url


def control(base: str, what: str) -> None:
    with requests.post(f"{base}/control/{what}", timeout=T) as response:
        response.raise_for_status()


@pytest.mark.slow("waits out the 1 s call timeout")
def test_headers_trickled_forever_end_a_blocking_call_at_its_timeout(base):
    """Every read is short, so socket timeouts never fire: the watchdog ends the call at 1 s."""
    with mcpsync.connect(f"{base}/mcp", timeout=T) as client:
        control(base, "trickle-headers-next?interval=0.2")
        started = time.monotonic()
        with pytest.raises(mcpsync.RequestTimeout, match=r"after 1s"):
            client.call_tool("echo", {"text": "x"}, timeout=1)
        assert time.monotonic() - started < 1 + SLACK
        assert client.call_tool("echo", {"text": "after"}, timeout=T).text == "after"


@pytest.mark.slow("waits out the 1 s write timeout")
def test_headers_trickled_forever_end_a_notification_at_the_write_timeout(base):
    """A notification's POST has the write timeout as its deadline: WriteTimeout then, not a hang."""
    transport = mcpsync.StreamableHTTPTransport(f"{base}/mcp", write_timeout=1)
    with mcpsync.Client(transport) as client:
        control(base, "trickle-headers-next?interval=0.2")
        started = time.monotonic()
        with pytest.raises(mcpsync.WriteTimeout):
            client.notify("notifications/roots/list_changed")
        assert time.monotonic() - started < 1 + SLACK
        assert client.call_tool("echo", {"text": "after"}, timeout=T).text == "after"


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="needs the main thread")
def test_ctrl_c_during_an_exchange_on_the_callers_thread_ends_it_at_once(base):
    """The exchange runs on the main thread with SIGINT held back; the handler cuts the socket, the
    exchange ends through urllib3's own error handling, and KeyboardInterrupt is raised right after."""
    with mcpsync.connect(f"{base}/mcp", timeout=T) as client:
        control(base, "trickle-headers-next?interval=0.2")
        started = time.monotonic()
        with ctrl_c_after(0.5):
            client.call_tool("echo", {"text": "x"}, timeout=30)
        assert time.monotonic() - started < 0.5 + SLACK
        assert client.call_tool("echo", {"text": "after"}, timeout=T).text == "after"
        assert len(client.transport.endpoint.pending) == 0


def test_close_from_another_thread_ends_a_trickled_exchange(base):
    """close() cuts every exchange: the caller gets TransportClosed at once, not at its timeout."""
    client = mcpsync.connect(f"{base}/mcp", timeout=T)
    control(base, "trickle-headers-next?interval=0.2")
    closer = threading.Timer(0.5, client.close)
    closer.start()
    started = time.monotonic()
    try:
        with pytest.raises(mcpsync.TransportClosed):
            client.call_tool("echo", {"text": "x"}, timeout=30)
        assert time.monotonic() - started < 0.5 + SLACK
    finally:
        closer.join(T)
        client.close()


@pytest.mark.slow("two 1 s tool calls hold both connections while a third waits")
def test_callers_threads_and_workers_share_the_max_connections_bound(base):
    """Two blocking calls on their own threads take both places; a send_request waits for one."""
    transport = mcpsync.StreamableHTTPTransport(f"{base}/mcp", max_connections=2)
    with mcpsync.Client(transport) as client:
        sleepers = [
            threading.Thread(target=client.call_tool, args=("sleep", {"seconds": 1.0}), kwargs={"timeout": T})
            for _ in range(2)
        ]
        for sleeper in sleepers:
            sleeper.start()
        time.sleep(0.3)  # both are in their exchanges now
        started = time.monotonic()
        future = client.send_request("tools/call", {"name": "echo", "arguments": {"text": "queued"}})
        assert future.result(T)["content"][0]["text"] == "queued"
        waited = time.monotonic() - started
        for sleeper in sleepers:
            sleeper.join(T)
        assert waited > 0.4, f"the third exchange ran beside the two (after {waited:.2f}s)"
