"""How a ``subscriptions/listen`` ends, and which ends are retried (``mcpsync._session.subscriptions``):
a connection that closed, a graceful end by the server, a refusal (-32601, -32602), a request that
cannot be sent are not reopened (and say so in the log); a break is, and a subscription that had
lasted ``STEADY`` seconds gets its retries anew. The channel here hands out futures that the test
ends itself; the clock of the steady rule is a fake one."""

from __future__ import annotations

import logging
import threading
from concurrent.futures import Future
from typing import Any, Optional

import pytest

from mcpsync import ServerError, TransportClosed, TransportError
from mcpsync._session import subscriptions
from mcpsync._session.subscriptions import Subscriptions
from tests.helpers import wait_for
from tests.session.test_result_cache import Clock

TOOLS = {"tools": {"listChanged": True}}


class Channel:
    """Each ``subscriptions/listen`` sent gets a pending future, kept in ``futures`` (or ``refuse``
    is raised at sending)."""

    def __init__(self) -> None:
        self.futures: list[Future[Any]] = []
        self.params: list[Any] = []
        self.lock = threading.Lock()
        self.refuse: Optional[Exception] = None

    def send_request(self, method: str, params: Any) -> Future[Any]:
        assert method == "subscriptions/listen"
        if self.refuse is not None:
            raise self.refuse
        future: Future[Any] = Future()
        with self.lock:
            self.futures.append(future)
            self.params.append(params)
        return future

    def abandon(self, future: Future[Any], reason: str) -> None:
        future.cancel()

    def sent(self) -> int:
        with self.lock:
            return len(self.futures)


@pytest.fixture
def quick(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(subscriptions, "RETRY_DELAYS", (0.01,))


def started(channel: Channel) -> Subscriptions:
    subs = Subscriptions(channel, "s", lambda: True)  # type: ignore[arg-type]
    subs.start(TOOLS)
    assert channel.sent() == 1
    return subs


@pytest.mark.parametrize(
    ("end", "logged"),
    [
        (lambda f: f.set_exception(TransportClosed("the server exited")), "the subscription ended"),
        (lambda f: f.set_exception(ServerError(-32601, "Method not found")), "the subscription ended"),
        (lambda f: f.set_exception(ServerError(-32602, "unknown filter")), "the subscription ended"),
        (lambda f: f.set_result({}), "the server ended its subscription"),
    ],
    ids=["transport-closed", "method-not-found", "invalid-params", "graceful"],
)
def test_an_end_that_asking_again_cannot_change_is_not_reopened(quick, caplog, end, logged) -> None:
    """The listen ends by a closed connection, a -32601 or -32602 refusal, or a result: no reopening
    is scheduled, nothing more is sent, and the log says how it ended. (A refusal was retried
    ``len(RETRY_DELAYS)`` times.)"""
    channel = Channel()
    subs = started(channel)
    with caplog.at_level(logging.INFO, logger="mcpsync.client"):
        end(channel.futures[0])
    assert subs._timer is None, "a reopening was scheduled"
    assert channel.sent() == 1
    assert any(logged in r.getMessage() for r in caplog.records), caplog.text
    subs.close()


def test_a_break_is_reopened_with_the_same_filter(quick, caplog) -> None:
    """A stream that breaks (a TransportError that is not a closed connection, or another server
    error) is reopened after its pause, asking for the same notifications."""
    channel = Channel()
    subs = started(channel)
    subs.subscribe("file:///a")
    assert channel.sent() == 2
    with caplog.at_level(logging.INFO, logger="mcpsync.client"):
        channel.futures[1].set_exception(TransportError("stream cut"))
        assert wait_for(lambda: channel.sent() == 3, timeout=10)
    assert (
        channel.params[2]
        == channel.params[1]
        == {"notifications": {"toolsListChanged": True, "resourceSubscriptions": ["file:///a"]}}
    )
    assert any("the subscription broke (stream cut); reopening in" in r.getMessage() for r in caplog.records)
    subs.close()


def test_a_subscription_that_lasted_gets_its_retries_anew(quick, monkeypatch, caplog) -> None:
    """With one retry allowed: a break at once is reopened, and that one breaking at once too is
    given up. But when the reopened one had lasted past STEADY (a fake clock), its break starts
    the count again and it is reopened."""
    clock = Clock()
    monkeypatch.setattr(subscriptions, "time", clock)
    channel = Channel()
    subs = started(channel)
    channel.futures[0].set_exception(TransportError("cut 1"))
    assert wait_for(lambda: channel.sent() == 2, timeout=10)
    clock.now += subscriptions.STEADY + 1
    channel.futures[1].set_exception(TransportError("cut 2"))
    assert wait_for(lambda: channel.sent() == 3, timeout=10), "the count was not started anew"
    with caplog.at_level(logging.WARNING, logger="mcpsync.client"):
        channel.futures[2].set_exception(TransportError("cut 3"))  # at once: the one retry is spent
    assert subs._timer is not None
    subs._timer.join(5)
    assert channel.sent() == 3
    assert any("the subscription ended (cut 3); not reopened" in r.getMessage() for r in caplog.records)
    subs.close()


def test_a_listen_that_cannot_be_sent_is_logged_and_a_later_change_sends_it(caplog) -> None:
    """Sending fails (the transport is closing): nothing raises on the caller's thread, the log says
    so, and the next change of what is wanted sends a listen again."""
    channel = Channel()
    channel.refuse = TransportClosed("closing")
    subs = Subscriptions(channel, "s", lambda: True)  # type: ignore[arg-type]
    with caplog.at_level(logging.INFO, logger="mcpsync.client"):
        subs.start(TOOLS)
    assert channel.sent() == 0
    assert any("subscriptions/listen could not be sent" in r.getMessage() for r in caplog.records)
    channel.refuse = None
    subs.subscribe("file:///a")
    assert channel.sent() == 1
    subs.close()


def test_close_gives_up_the_open_listen_and_its_end_reopens_nothing(quick) -> None:
    """``close()`` cancels the pending listen; the end that follows schedules nothing."""
    channel = Channel()
    subs = started(channel)
    subs.close()
    assert channel.futures[0].cancelled()
    assert subs._timer is None and channel.sent() == 1
