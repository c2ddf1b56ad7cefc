"""A login that does not end with a code: the person declines (``error=``), the redirect carries no
code, the redirect port the user chose is taken. Each is a typed ``AuthorizationError`` that says
what happened, no token request is made, and the page the person sees does not say it worked."""

from __future__ import annotations

import re
import socket
from collections.abc import Iterator
from typing import Any

import pytest
import requests

import mcpsync
from mcpsync import AuthorizationError, MemoryTokenStore
from mcpsync._auth.browser import LoopbackReceiver
from mcpsync._auth.login import code_from
from tests.oauth_server import OAuthTestServer

T = 20


@pytest.fixture
def server() -> Iterator[OAuthTestServer]:
    with OAuthTestServer() as running:
        yield running


@pytest.fixture
def taken_port() -> Iterator[int]:
    """A port on 127.0.0.1 that another program listens on."""
    holder = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    holder.bind(("127.0.0.1", 0))
    holder.listen(1)
    try:
        yield holder.getsockname()[1]
    finally:
        holder.close()


def login(server: OAuthTestServer, **options: Any) -> None:
    options.setdefault("store", MemoryTokenStore())
    options.setdefault("on_authorize", server.approve)
    with mcpsync.connect(server.url, auth=mcpsync.OAuth(**options), timeout=T) as client:
        client.call_tool("echo", {"text": "hi"}, timeout=T)


def test_a_declined_consent_is_an_authorization_error_with_its_code_and_no_token_request(server):
    """The person clicks "deny": the redirect has ``error=access_denied`` (and the right state), and
    the connect raises AuthorizationError(.error="access_denied") quoting the description."""

    def declined(url: str) -> str:
        location = server.approve(url)
        return re.sub(r"code=[^&]*", "error=access_denied&error_description=The+user+said+no", location)

    with pytest.raises(AuthorizationError, match="refused: access_denied: The user said no") as raised:
        login(server, on_authorize=declined)
    assert raised.value.error == "access_denied"
    assert server.requests_to("/token") == []


def test_a_redirect_with_no_code_is_an_authorization_error_and_no_token_request(server):
    """A redirect with the right state and issuer but neither ``code`` nor ``error`` is refused."""

    def codeless(url: str) -> str:
        return re.sub(r"code=[^&]*&?", "", server.approve(url))

    with pytest.raises(AuthorizationError, match="carries no authorization code"):
        login(server, on_authorize=codeless)
    assert server.requests_to("/token") == []


@pytest.mark.parametrize(
    ("query", "page", "error"),
    [
        ("state=st&error=access_denied", "refused (access_denied); nothing was authorized", "refused: access_denied"),
        ("state=st", "carries no authorization code; nothing was authorized", "carries no authorization code"),
    ],
    ids=["declined", "no-code"],
)
def test_the_browsers_page_after_a_refused_redirect_does_not_say_it_worked(query, page, error):
    """The loopback receiver gets the browser's redirect with ``error=`` (or no code): it ends the wait
    (the error is raised at once, not at login_timeout), and the page says nothing was authorized."""
    with LoopbackReceiver("st") as receiver:
        answer = requests.get(f"{receiver.redirect_uri}?{query}", timeout=T)
        assert answer.status_code == 200
        assert page in answer.text and "has the authorization" not in answer.text
        redirected = receiver.wait(T, "srv")
    with pytest.raises(AuthorizationError, match=error):
        code_from("srv", redirected, "st", "https://as", {})


def test_a_taken_redirect_port_is_an_error_naming_it_not_another_port(server, taken_port):
    """``redirect_port`` (a config's ``callbackPort``: the port the client is registered with) is
    held by another program: AuthorizationError names the port and the option, and the person is
    never sent to the authorization server with a redirect URI on another port."""
    with pytest.raises(AuthorizationError, match=rf"redirect port {taken_port} \(redirect_port\) cannot be used"):
        login(server, redirect_port=taken_port)
    assert server.requests_to("/authorize") == []


def test_a_taken_port_of_a_given_redirect_uri_is_an_authorization_error(server, taken_port):
    """``redirect_uri=http://127.0.0.1:<taken>/cb``: a typed AuthorizationError, not an OSError."""
    with pytest.raises(AuthorizationError, match=rf"redirect port {taken_port} \(redirect_uri\)"):
        login(server, redirect_uri=f"http://127.0.0.1:{taken_port}/cb")
    assert server.requests_to("/authorize") == []


def test_a_taken_port_of_a_kept_registration_moves_the_login_to_another_port_and_registers_again(server, taken_port):
    """No port chosen by the user, but the registration kept from an earlier run names a port another
    program holds now: the login runs on a free port and registers again for it (documented in
    ``login._receiver``), and what is kept then is the new registration."""
    first = MemoryTokenStore()
    login(server, store=first)
    [key] = [k for k in first.keys() if k.startswith("client ")]
    kept = first.load(key)
    assert kept is not None
    kept["redirect_uri"] = f"http://127.0.0.1:{taken_port}/callback"
    second = MemoryTokenStore()
    second.save(key, kept)
    login(server, store=second)
    assert len(server.requests_to("/register")) == 2
    again = second.load(key)
    assert again is not None and f":{taken_port}/" not in again["redirect_uri"]
