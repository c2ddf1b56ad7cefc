"""mcpsync's OAuth against the official MCP SDK's authorization server support (``mcp.server.auth``).

tests/interop/official_auth_server.py runs the SDK's ``MCPServer`` with its
authorization routes and an in-memory provider, on 127.0.0.1, as a child
process. Everything mcpsync does here meets code we did not write: the
SDK's metadata documents, its registration and token handlers (PKCE,
``resource``, client authentication), its bearer-token middleware.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

import mcpsync
from tests.interop.official import Server, start_server, stop

pytestmark = pytest.mark.official

SCRIPT = Path(__file__).with_name("official_auth_server.py")
T = 30


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    running = start_server("authorization-code", tmp_path, SCRIPT)
    try:
        yield running
    finally:
        stop(running.process, 5)


def approve(url: str) -> str:
    """The browser: the SDK's /authorize redirects at once; its Location is where the browser goes."""
    response = requests.get(url, allow_redirects=False, timeout=10)
    assert response.status_code in (302, 303), response.text
    return response.headers["Location"]


def test_a_login_against_the_official_authorization_server(server: Server, tmp_path: Path) -> None:
    store = mcpsync.FileTokenStore(tmp_path / "tokens")
    auth = mcpsync.OAuth(on_authorize=approve, store=store)
    with mcpsync.connect(server.url, auth=auth, timeout=T) as client:
        client_id, *scopes = client.call_tool("whoami", {}, timeout=T).text.split()
        assert client_id != "None"  # the id the SDK gave at registration
        assert "read" in scopes
    # The next run needs no login: the stored token is sent at once.
    again = mcpsync.OAuth(store=store, interactive=False)
    with mcpsync.connect(server.url, auth=again, timeout=T) as client:
        assert client.call_tool("whoami", {}, timeout=T).text.split()[0] == client_id


def test_without_a_login_the_official_server_gives_authorization_required(server: Server) -> None:
    auth = mcpsync.OAuth(store=mcpsync.MemoryTokenStore(), interactive=False)
    with pytest.raises(mcpsync.AuthorizationRequired) as info:
        mcpsync.connect(server.url, auth=auth, timeout=T)
    assert info.value.status_code == 401 and "mcpsync login --url" in str(info.value)


def test_a_refresh_against_the_official_authorization_server(server: Server) -> None:
    store = mcpsync.MemoryTokenStore()
    auth = mcpsync.OAuth(on_authorize=approve, store=store)
    with mcpsync.connect(server.url, auth=auth, timeout=T) as client:
        (key,) = [k for k in store.keys() if k.startswith("token ")]
        record = store.load(key)
        assert record is not None and record["refresh_token"]
        record["expires_at"] = 0  # as if it expired: refreshed before the next request goes out
        store.save(key, record)
        client.transport.authorizer._token = record
        assert client.call_tool("whoami", {}, timeout=T).text.split()[0] != "None"
        refreshed = store.load(key)
        assert refreshed is not None and refreshed["access_token"] != record["access_token"]
        assert refreshed["refresh_token"] != record["refresh_token"]  # the SDK's provider rotates it


def test_enterprise_managed_authorization_against_the_official_id_jag_grant(tmp_path: Path) -> None:
    from tests.oauth_server import OAuthTestServer

    with OAuthTestServer(idp_id_tokens=("alice-id-token",)) as idp:
        os.environ["IDJAG_PUBLIC_KEY"] = idp.id_jag_public_key()
        try:
            running = start_server("identity-assertion", tmp_path, SCRIPT)
        finally:
            del os.environ["IDJAG_PUBLIC_KEY"]
        try:
            auth = mcpsync.EnterpriseAuth(
                id_token="alice-id-token",
                idp_token_endpoint=idp.base + "/idp/token",
                idp_client_id="mcpsync",
                client_id="corp",
                client_secret="corp-secret",
            )
            with mcpsync.connect(running.url, auth=auth, timeout=T) as client:
                assert client.call_tool("whoami", {}, timeout=T).text.split()[0] == "corp"
            exchange = idp.requests_to("/idp/token")[0]["form"]
            assert exchange["audience"] == f"http://127.0.0.1:{running.port}/"  # the issuer, as the SDK writes it
            assert exchange["resource"] == running.url
        finally:
            stop(running.process, 5)
