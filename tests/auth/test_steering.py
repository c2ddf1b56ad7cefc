"""No steering into the user's machine: what a remote server's answers name is checked before it is fetched.

Tests run on 127.0.0.1 only, so the "remote" server is the test server under
the name ``mcp.example.test``, which a test-only resolver (``socket.getaddrinfo``
patched for ``*.example.test``) maps to 127.0.0.1. The client classifies a
host by its URL (``addresses.is_local``): to it, this server is on another
host, and the rule of docs/authorization.md applies in full. A second plain
HTTP server on 127.0.0.1 stands for a service of the user's: it records every
request it gets, and must get none.
"""

from __future__ import annotations

import socket
from typing import Any

import pytest

import mcpsync
from mcpsync import AuthorizationError, ClientCredentials, MemoryTokenStore
from mcpsync._auth.addresses import check_url, is_local, is_loopback
from tests.oauth_server import OAuthTestServer

T = 20
REMOTE = "mcp.example.test"


@pytest.fixture
def remote_names(monkeypatch: pytest.MonkeyPatch) -> None:
    """``*.example.test`` resolves to 127.0.0.1 (in this process), and no proxy is in the way."""
    real = socket.getaddrinfo

    def resolve(host: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(host, str) and host.endswith(".example.test"):
            host = "127.0.0.1"
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", resolve)
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(name, raising=False)


def _login(server: OAuthTestServer) -> mcpsync.OAuth:
    return mcpsync.OAuth(on_authorize=server.approve, store=MemoryTokenStore())


def test_a_remote_server_without_tricks_still_logs_in(remote_names):
    """Scenario: the "remote" server names only URLs on its own origin (plain http, as the tests have
    no TLS). Promise: the login works: the rule refuses only what points elsewhere (and the test
    resolver does reach the server under its name)."""
    with OAuthTestServer(host=REMOTE) as server:
        assert server.url.startswith(f"http://{REMOTE}:")
        with mcpsync.connect(server.url, auth=_login(server), timeout=T) as client:
            assert client.call_tool("echo", {"text": "hi"}, timeout=T).text == "hi"


@pytest.mark.parametrize("grant", ["login", "client_credentials"])
def test_a_remote_servers_resource_metadata_on_loopback_is_never_fetched(remote_names, local_service, grant):
    """Attack: a remote server's 401 names ``resource_metadata="http://127.0.0.1:PORT/admin/flush?x=1"``
    (a service on the user's machine, path and query the attacker's). Promise: the client never
    sends it a request, and the refusal names the URL and the rule."""
    hostile = f"http://127.0.0.1:{local_service.port}/admin/flush?x=1"
    with OAuthTestServer(host=REMOTE, resource_metadata_url=hostile, clients={"svc": {"secret": "s"}}) as server:
        auth = _login(server) if grant == "login" else ClientCredentials("svc", "s", store=MemoryTokenStore())
        with pytest.raises(AuthorizationError) as raised:
            mcpsync.connect(server.url, auth=auth, timeout=T).close()
        message = str(raised.value)
        assert hostile in message and "HTTPS on a public host" in message, message
        assert local_service.seen == []
        assert server.requests_to("/token") == [] and server.requests_to("/register") == []


def test_a_remote_servers_authorization_server_on_loopback_is_refused(remote_names):
    """Attack: the remote server's resource metadata (on its own origin) names
    ``http://127.0.0.1:PORT`` as its authorization server. Promise: no metadata is asked of it, no
    registration, no token request; the error names the issuer."""
    with OAuthTestServer(host=REMOTE) as server:
        loopback = f"http://127.0.0.1:{server.base.rsplit(':', 1)[1]}"
        server.issuer = loopback  # the same test server, under its loopback address
        with pytest.raises(AuthorizationError, match=r"authorization server http://127\.0\.0\.1"):
            mcpsync.connect(server.url, auth=_login(server), timeout=T).close()
        asked = [r["path"] for r in server.seen]
        assert asked == ["/.well-known/oauth-protected-resource/mcp"], asked


def test_a_remote_servers_token_endpoint_on_loopback_is_refused_before_the_code_is_sent(remote_names, local_service):
    """Attack: the authorization server's metadata (on the remote server's origin) names a token
    endpoint on the user's machine, where the code and its verifier would be posted. Promise:
    refused when the metadata is read, before any registration, browser or token request."""
    token_endpoint = f"http://127.0.0.1:{local_service.port}/token"
    with OAuthTestServer(host=REMOTE, token_endpoint=token_endpoint) as server:
        approved: list[str] = []
        auth = mcpsync.OAuth(on_authorize=approved.append, store=MemoryTokenStore())  # type: ignore[arg-type]
        with pytest.raises(AuthorizationError, match=r"token endpoint http://127\.0\.0\.1"):
            mcpsync.connect(server.url, auth=auth, timeout=T).close()
        assert approved == [] and local_service.seen == [] and server.requests_to("/register") == []


@pytest.mark.parametrize(
    ("url", "server", "allowed"),
    [
        ("https://auth.example.com/token", "https://mcp.example.com/mcp", True),
        ("https://mcp.example.com/.well-known/x", "https://mcp.example.com/mcp", True),
        ("http://mcp.example.com:8080/x", "http://mcp.example.com:8080/mcp", True),  # the server's own origin
        ("http://auth.example.com/token", "https://mcp.example.com/mcp", False),
        ("https://127.0.0.1/token", "https://mcp.example.com/mcp", False),
        ("https://localhost/token", "https://mcp.example.com/mcp", False),
        ("https://10.0.0.5/token", "https://mcp.example.com/mcp", False),
        ("https://169.254.169.254/latest", "https://mcp.example.com/mcp", False),  # cloud metadata service
        ("https://[::ffff:127.0.0.1]/t", "https://mcp.example.com/mcp", False),
        # The forms of 127.0.0.1 and 10.0.0.5 the resolver reads without DNS (ipaddress does not).
        ("https://127.1/token", "https://mcp.example.com/mcp", False),
        ("https://2130706433/token", "https://mcp.example.com/mcp", False),
        ("https://0x7f.0.0.1/token", "https://mcp.example.com/mcp", False),
        ("https://0177.0.0.1/token", "https://mcp.example.com/mcp", False),
        ("https://10.5/token", "https://mcp.example.com/mcp", False),
        ("https://deadbeef.example/token", "https://mcp.example.com/mcp", True),
        ("https://printer.local/t", "https://mcp.example.com/mcp", False),
        ("http://127.0.0.1:9/token", "http://127.0.0.1:8000/mcp", True),
        ("http://192.168.1.2/token", "http://localhost:8000/mcp", True),
        ("https://auth.example.com/token", "http://127.0.0.1:8000/mcp", True),
        ("http://auth.example.com/token", "http://127.0.0.1:8000/mcp", False),
        ("https://user:pw@auth.example.com/token", "https://mcp.example.com/mcp", False),
        ("file:///etc/passwd", "http://127.0.0.1:8000/mcp", False),
    ],
)
def test_the_rule_for_urls_from_a_servers_answers(url, server, allowed):
    """The table of docs/authorization.md, URL by URL."""
    if allowed:
        assert check_url(url, "token endpoint", "s", server) == url
    else:
        with pytest.raises(AuthorizationError, match="token endpoint"):
            check_url(url, "token endpoint", "s", server)


def test_hosts_are_classified_by_what_the_url_says():
    """Loopback and private hosts, by name and by address."""
    assert is_loopback("localhost") and is_loopback("[::1]") and is_loopback("127.0.0.2")
    assert not is_loopback("10.0.0.1")
    assert all(is_local(h) for h in ("10.1.2.3", "172.16.0.1", "192.168.0.1", "[fe80::1]", "0.0.0.0", "a.localhost"))
    assert not any(is_local(h) for h in ("mcp.example.com", "8.8.8.8", "[2606:4700::1111]"))
