"""A ``subscriptions/listen`` stream that breaks at once, for ever (a hostile or broken modern server).

The bundled test server serves Streamable HTTP in this process; its answer
to every ``subscriptions/listen`` is an event stream that ends at once,
without a response. Promise: the client reopens it a few times, each after a
longer pause (``RETRY_DELAYS``), then gives up; ``close`` stays bounded and
stops the reopening.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

import mcpsync
from mcpsync._session import subscriptions
from mcpsync.testing.http import _Handler, _HTTPServer
from tests.helpers import served, wait_for

T = 10
DELAYS = (0.05, 0.1, 0.2, 0.4, 0.8)


class _BreakingListens(_Handler):
    def _modern_post(self, message: dict[str, Any]) -> bool:
        if message.get("method") != "subscriptions/listen":
            return super()._modern_post(message)
        server: Any = self.server
        with server.lock:
            server.listens.append(time.monotonic())
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True  # the stream ends before any event
        return True


@pytest.fixture
def breaking_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    monkeypatch.setattr(subscriptions, "RETRY_DELAYS", DELAYS)
    httpd: Any = _HTTPServer(0, "breaking", False)
    httpd.RequestHandlerClass = _BreakingListens
    httpd.listens = []
    with served(httpd):
        yield httpd


def _count(httpd: Any) -> int:
    with httpd.lock:
        return len(httpd.listens)


def test_a_listen_stream_that_breaks_at_once_is_reopened_a_bounded_number_of_times_at_a_bounded_rate(
    breaking_server,
):
    """Attack: every subscriptions/listen stream ends at once. Promise: one listen, then one more per
    pause of ``RETRY_DELAYS`` (each at least that long after the last), then none."""
    url = f"http://127.0.0.1:{breaking_server.server_address[1]}/mcp"
    with mcpsync.connect(url, protocol="modern", timeout=T) as client:
        client.subscribe_resource("test://static/hello")
        assert wait_for(lambda: _count(breaking_server) >= 1 + len(DELAYS))
        time.sleep(2 * DELAYS[-1])  # long enough for one more reopening, were there one
        times = list(breaking_server.listens)
    assert len(times) == 1 + len(DELAYS), times
    gaps = [later - earlier for earlier, later in zip(times, times[1:])]
    assert all(gap >= delay * 0.9 for gap, delay in zip(gaps, DELAYS)), gaps


def test_close_during_the_reopening_is_bounded_and_stops_it(breaking_server):
    """Attack: as above, and the client closes while a reopening is pending. Promise: ``close``
    returns within its bound, and no listen is sent after it."""
    url = f"http://127.0.0.1:{breaking_server.server_address[1]}/mcp"
    client = mcpsync.connect(url, protocol="modern", timeout=T)
    try:
        client.subscribe_resource("test://static/hello")
        assert wait_for(lambda: _count(breaking_server) >= 3)
    finally:
        closer = threading.Thread(target=client.close)
        closer.start()
        closer.join(5)
    assert not closer.is_alive()
    after = _count(breaking_server)
    time.sleep(2 * DELAYS[-1])  # a reopening still pending would have come by now
    assert _count(breaking_server) == after
