"""A ``subscriptions/listen`` that breaks at once, forever (issue 22, "not yet tried"): the reopenings
stay bounded in count and paced by ``RETRY_DELAYS``, and ``close()`` stays bounded with one pending."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from concurrent.futures import Future
from typing import Any

import pytest

import mcpsync
from mcpsync import TransportError
from mcpsync._session import subscriptions
from mcpsync._session.subscriptions import Subscriptions
from mcpsync.testing.http import _Handler, _HTTPServer
from tests.helpers import served, wait_for


class BreakingChannel:
    """A channel whose every ``subscriptions/listen`` breaks as soon as it is sent."""

    def __init__(self) -> None:
        self.sent: list[float] = []
        self.lock = threading.Lock()

    def send_request(self, method: str, params: Any) -> Future[Any]:
        with self.lock:
            self.sent.append(time.monotonic())
        future: Future[Any] = Future()
        future.set_exception(TransportError("the stream broke at once"))
        return future

    def abandon(self, future: Any, reason: str) -> None:
        pass


def test_a_subscription_that_always_breaks_is_reopened_a_few_times_paced_then_given_up(monkeypatch):
    """Each break waits its delay before the next try; after ``len(RETRY_DELAYS)`` reopenings the
    subscription is given up: six requests in all, never more, however long one waits."""
    delays = (0.05, 0.05, 0.1, 0.1, 0.1)
    monkeypatch.setattr(subscriptions, "RETRY_DELAYS", delays)
    channel = BreakingChannel()
    subs = Subscriptions(channel, "s", lambda: True)  # type: ignore[arg-type]
    subs.start({"tools": {"listChanged": True}})
    assert wait_for(lambda: len(channel.sent) == 1 + len(delays), timeout=10)
    gaps = [later - earlier for earlier, later in zip(channel.sent, channel.sent[1:])]
    assert all(gap >= delay for gap, delay in zip(gaps, delays)), (gaps, delays)
    assert subs._timer is not None
    subs._timer.join(5)  # the last timer has run: nothing more is pending
    assert len(channel.sent) == 1 + len(delays)
    subs.close()


def test_close_with_a_reopening_pending_ends_it_and_returns_at_once(monkeypatch):
    """A reopening an hour away is cancelled by ``close()``, which does not wait for it."""
    monkeypatch.setattr(subscriptions, "RETRY_DELAYS", (3600.0,))
    channel = BreakingChannel()
    subs = Subscriptions(channel, "s", lambda: True)  # type: ignore[arg-type]
    subs.start({"tools": {"listChanged": True}})
    timer = subs._timer
    assert timer is not None and timer.is_alive()
    subs.close()
    timer.join(5)
    assert not timer.is_alive() and len(channel.sent) == 1


# -- end to end: the bundled test server over Streamable HTTP, every listen stream ending at once -----


T = 10
DELAYS = (0.05, 0.1, 0.2, 0.4, 0.8)  # of the end-to-end tests below


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


@pytest.mark.slow("waits out the five retry delays (1.55 s), then 1.6 s to see that no more reopenings come")
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


@pytest.mark.slow("waits 1.6 s after close to see that no reopening comes")
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
