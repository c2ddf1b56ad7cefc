"""A ``subscriptions/listen`` that breaks at once, forever (issue 22, "not yet tried"): the reopenings
stay bounded in count and paced by ``RETRY_DELAYS``, and ``close()`` stays bounded with one pending."""

from __future__ import annotations

import threading
import time
from concurrent.futures import Future
from typing import Any

from mcpsync import TransportError
from mcpsync._session import subscriptions
from mcpsync._session.subscriptions import Subscriptions
from tests.helpers import wait_for


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
