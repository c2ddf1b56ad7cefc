"""A login is bounded by the caller's deadline: only the person's own wait is not (``login_timeout`` is).

The authorization server trickles one of its answers (headers at once, then a
byte every half second, never the end: ``Options.trickle``), on 127.0.0.1.
Before, discovery, registration and the token request each had 30 s of their
own whatever the caller's timeout, and the path without a person ended a
second late (a cancellation notice met the 401 and ran a grant of its own,
which ``close`` waited for).
"""

from __future__ import annotations

import time

import pytest

import mcpsync
from mcpsync import ClientCredentials, MemoryTokenStore
from tests.oauth_server import OAuthTestServer

TIMEOUT = 3.0
#: How far past the caller's timeout a call may end (thread switches on a loaded machine).
SLACK = 1.0
#: Why the tests whose endpoint trickles are slow.
TRICKLES_TO_THE_TIMEOUT = "an endpoint trickles its answer: the call ends at the caller's 3 s timeout"
#: Why the tests of a person who takes long are slow.
THE_PERSON_TAKES_LONG = "the person takes 2.5 s to log in"


def slow_person(server: OAuthTestServer, seconds: float) -> mcpsync.OAuth:
    """A login whose person approves, then takes ``seconds`` more (reading the consent page, say)."""

    def person(url: str) -> str:
        redirected = server.approve(url)
        time.sleep(seconds)  # the person's own time (not an ordering wait)
        return redirected

    return mcpsync.OAuth(on_authorize=person, store=MemoryTokenStore())


@pytest.mark.slow(TRICKLES_TO_THE_TIMEOUT)
@pytest.mark.parametrize("trickling", ["/register", "/.well-known/oauth-authorization-server"])
def test_a_login_whose_authorization_server_trickles_ends_at_the_callers_timeout(trickling):
    """Attack: a person can log in (``on_authorize``), and the registration endpoint (or the
    authorization server's metadata) trickles its answer. Promise: ``connect(timeout=3)`` ends
    within about 3 s with an error (it took 30 s), and nobody was asked to log in."""
    with OAuthTestServer(trickle=(trickling,)) as server:
        asked: list[str] = []

        def person(url: str) -> str:
            asked.append(url)
            return server.approve(url)

        auth = mcpsync.OAuth(on_authorize=person, store=MemoryTokenStore())
        started = time.monotonic()
        with pytest.raises(mcpsync.MCPError):
            mcpsync.connect(server.url, auth=auth, timeout=TIMEOUT).close()
        assert time.monotonic() - started < TIMEOUT + SLACK
        assert asked == []


@pytest.mark.slow("the person takes 1.5 s, then the trickling token endpoint ends the call at its 3 s timeout")
def test_the_token_request_after_the_person_ends_at_the_callers_timeout_moved_on_by_the_persons_time():
    """Attack: the person takes 1.5 s to log in, then the token endpoint trickles. Promise: the call
    ends by its timeout plus the person's time, not 30 s later."""
    with OAuthTestServer(trickle=("/token",)) as server:
        person_time = 1.5
        auth = slow_person(server, person_time)
        started = time.monotonic()
        with pytest.raises(mcpsync.MCPError):
            mcpsync.connect(server.url, auth=auth, timeout=TIMEOUT).close()
        assert time.monotonic() - started < TIMEOUT + person_time + SLACK
        assert len(server.requests_to("/token")) == 1


@pytest.mark.slow(THE_PERSON_TAKES_LONG)
def test_the_persons_time_does_not_count_against_the_callers_timeout():
    """Scenario: ``connect(timeout=2)``; the person takes 2.5 s to log in. Promise: the call goes
    through: the caller's clock stops while the person logs in (``login_timeout`` bounds that)."""
    with OAuthTestServer() as server:
        auth = slow_person(server, 2.5)  # longer than the caller's whole timeout
        with mcpsync.connect(server.url, auth=auth, timeout=2) as client:
            assert client.call_tool("echo", {"text": "late"}, timeout=2).text == "late"


@pytest.mark.slow(TRICKLES_TO_THE_TIMEOUT)
def test_without_a_person_a_trickling_token_endpoint_ends_the_call_at_its_timeout_exactly():
    """Attack: client credentials (no person), and the token endpoint trickles. Promise: ``connect``
    ends at its timeout (it ended a second late: the cancellation notice met the 401, ran a grant of
    its own, and ``close`` waited for it); the notice runs no grant."""
    with OAuthTestServer(trickle=("/token",), clients={"svc": {"secret": "s"}}) as server:
        auth = ClientCredentials("svc", "s", store=MemoryTokenStore())
        started = time.monotonic()
        with pytest.raises(mcpsync.RequestTimeout):
            mcpsync.connect(server.url, auth=auth, timeout=TIMEOUT).close()
        assert time.monotonic() - started < TIMEOUT + 0.5
        assert len(server.requests_to("/token")) == 1  # the grant of the request only


@pytest.mark.slow(THE_PERSON_TAKES_LONG)
def test_a_legacy_handshake_after_a_long_login_still_has_the_callers_time():
    """Scenario: ``connect(timeout=2)`` to a server of the legacy handshake; the person takes 2.5 s to
    log in during ``initialize``. Promise: ``notifications/initialized`` still has what was left of
    the 2 s (it had a negative time left, and the handshake failed with "timeout must be positive")."""
    with OAuthTestServer() as server:
        auth = slow_person(server, 2.5)  # longer than the caller's whole timeout
        with mcpsync.connect(server.url, auth=auth, timeout=2, protocol="legacy") as client:
            assert client.call_tool("echo", {"text": "late"}, timeout=2).text == "late"


@pytest.mark.slow("the second login waits out the first person's 2.5 s")
def test_a_login_that_waits_for_another_logins_turn_does_not_lose_the_callers_time():
    """Scenario: two clients of one ``OAuth`` connect with ``timeout=2``; the first one's person
    takes 2.5 s, and the second waits that long for its turn to log in. Promise: the second connects
    too: waiting for another login is a person's time, not the caller's (it ended in an error: the
    caller's deadline had passed before the second login's discovery began)."""
    import threading

    with OAuthTestServer() as server:
        first_asked = threading.Event()
        asked: list[str] = []

        def person(url: str) -> str:
            asked.append(url)
            if len(asked) == 1:
                first_asked.set()
                time.sleep(2.5)  # the first person's own time (not an ordering wait)
            return server.approve(url)

        auth = mcpsync.OAuth(on_authorize=person, store=MemoryTokenStore())
        outcome: list[object] = []

        def first() -> None:
            try:
                with mcpsync.connect(server.url, auth=auth, timeout=2) as client:
                    outcome.append(client.call_tool("echo", {"text": "first"}, timeout=2).text)
            except BaseException as exc:  # reported below, on the test's thread
                outcome.append(exc)

        thread = threading.Thread(target=first)
        thread.start()
        try:
            assert first_asked.wait(20)
            with mcpsync.connect(server.url, auth=auth, timeout=2) as client:
                assert client.call_tool("echo", {"text": "second"}, timeout=2).text == "second"
        finally:
            thread.join(20)
        assert outcome == ["first"]
