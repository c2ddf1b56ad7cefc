"""Attacks on the authorization flows that already hold (issue 22's "not yet tried" list): kept holding.
(The token endpoint's redirect to another origin: ``test_hostile_token_endpoint.py``.)

- a 403 ``insufficient_scope`` asks for one more scope on every attempt;
- the MCP server answers 401 to every request, however fresh the token.

Each must end in a bounded number of requests with an error that says why.
"""

from __future__ import annotations

from typing import Any

import pytest

import mcpsync
from mcpsync import AuthorizationError, AuthorizationRequired, ClientCredentials, MemoryTokenStore
from mcpsync._auth.server_auth import MAX_STEP_UPS
from mcpsync._session.channel import MAX_LOGINS
from tests.oauth_server import OAuthTestServer

T = 20


def _login(server: OAuthTestServer, asked: list[str]) -> mcpsync.OAuth:
    def person(url: str) -> str:
        asked.append(url)
        return server.approve(url)

    return mcpsync.OAuth(on_authorize=person, store=MemoryTokenStore())


@pytest.mark.parametrize("who", ["person", "client_credentials"])
def test_a_server_asking_for_one_more_scope_on_every_attempt_is_an_error_not_a_loop(who):
    """Attack: every call is refused with 403 ``insufficient_scope`` naming a scope the token does not
    hold, whatever it holds. Promise: a few step-ups at most (``MAX_STEP_UPS`` without a person,
    ``MAX_LOGINS`` logins with one), then an error that says so."""
    with OAuthTestServer(endless_step_up=True, clients={"svc": {"secret": "s"}}) as server:
        asked: list[str] = []
        auth: Any = _login(server, asked) if who == "person" else ClientCredentials("svc", "s")
        with mcpsync.connect(server.url, auth=auth, timeout=T) as client:
            # Without a person: the step-up's own error, or the server's last 403 once the request's
            # challenges are spent (MAX_CHALLENGES); with one: after MAX_LOGINS logins.
            with pytest.raises(mcpsync.MCPError, match="insufficient_scope"):
                client.call_tool("echo", {"text": "x"}, timeout=T)
        if who == "person":
            assert 1 <= len(asked) <= 1 + MAX_LOGINS
        assert len(server.requests_to("/token")) <= 1 + MAX_STEP_UPS + MAX_LOGINS


@pytest.mark.parametrize("who", ["person", "client_credentials"])
def test_a_server_refusing_every_fresh_token_is_an_error_not_a_loop(who):
    """Attack: the MCP server answers 401 ``invalid_token`` to every request, however fresh the token.
    Promise: a bounded number of logins or grants, then an error naming the server."""
    with OAuthTestServer(refuse_every_token=True, clients={"svc": {"secret": "s"}}) as server:
        asked: list[str] = []
        auth: Any = _login(server, asked) if who == "person" else ClientCredentials("svc", "s")
        with pytest.raises((AuthorizationError, AuthorizationRequired)) as raised:
            mcpsync.connect(server.url, auth=auth, timeout=T).close()
        assert "127.0.0.1" in str(raised.value)
        if who == "person":
            assert f"refused again after {MAX_LOGINS} logins" in str(raised.value)
        assert len(asked) <= MAX_LOGINS
        # each login's token, then its refresh (refused as well), at most
        assert len(server.requests_to("/token")) <= 2 * MAX_LOGINS
