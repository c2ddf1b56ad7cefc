"""MCP's authorization against the configurable authorization server of ``tests.oauth_server``.

Each test is one rule of the specification (2025-11-25, 2026-07-28, the
2025-03-26 fallbacks): what the client sends, in which order, and what it
refuses. The browser is ``server.approve``: it fetches the authorization URL
without following the redirect and returns its ``Location``.
"""

from __future__ import annotations

import json
import logging
import os
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

import mcpsync
from mcpsync import AuthorizationError, AuthorizationRequired, MemoryTokenStore
from tests.oauth_server import OAuthTestServer

T = 20


@pytest.fixture
def server():
    with OAuthTestServer() as running:
        yield running


def oauth(server: OAuthTestServer, **options: Any) -> mcpsync.OAuth:
    options.setdefault("store", MemoryTokenStore())
    options.setdefault("on_authorize", server.approve)
    return mcpsync.OAuth(**options)


def call(server: OAuthTestServer, auth: Any, tool: str = "echo") -> str:
    arguments = {"text": "hi"} if tool == "echo" else {"a": 1, "b": 2}
    with mcpsync.connect(server.url, auth=auth, timeout=T) as client:
        result = client.call_tool(tool, arguments, timeout=T)
        return result.text


def calls_from_threads(client: mcpsync.Client, threads: int) -> list[BaseException]:
    """``threads`` threads make one call each on ``client`` at once; what they raised."""
    errors: list[BaseException] = []

    def work() -> None:
        try:
            client.call_tool("echo", {"text": "t"}, timeout=T)
        except BaseException as exc:
            errors.append(exc)

    running = [threading.Thread(target=work) for _ in range(threads)]
    for thread in running:
        thread.start()
    for thread in running:
        thread.join(T)
    return errors


def paths(server: OAuthTestServer) -> list[str]:
    return [f"{r['method']} {r['path']}" for r in server.seen]


def only(server: OAuthTestServer, path: str) -> dict[str, Any]:
    found = server.requests_to(path)
    assert len(found) == 1, (path, paths(server))
    return found[0]


# -- the whole flow ----------------------------------------------------------------------------------


def test_a_401_leads_to_discovery_registration_and_a_pkce_login_then_the_call(server):
    assert call(server, oauth(server)) == "hi"
    assert paths(server) == [
        "GET /.well-known/oauth-protected-resource/mcp",  # named in the 401
        "GET /.well-known/oauth-authorization-server",
        "POST /register",
        "GET /authorize",
        "POST /token",
    ]
    authorize = only(server, "/authorize")["query"]
    token = only(server, "/token")["form"]
    assert authorize["resource"] == token["resource"] == server.url  # exactly as the metadata wrote it
    assert authorize["code_challenge_method"] == "S256" and len(authorize["state"]) >= 32
    assert token["grant_type"] == "authorization_code" and 43 <= len(token["code_verifier"]) <= 128
    assert authorize["scope"] == "read offline_access"  # scopes_supported, and offline_access the AS lists
    assert token["redirect_uri"] == authorize["redirect_uri"].replace("localhost", "127.0.0.1")
    assert authorize["redirect_uri"].startswith("http://127.0.0.1:")
    registration = next(iter(server.registered.values()))
    assert registration["redirect_uris"] == [authorize["redirect_uri"]]
    assert "refresh_token" in registration["grant_types"] and registration["application_type"] == "native"
    assert registration["token_endpoint_auth_method"] == "none"


def test_the_challenges_scope_wins_over_scopes_supported():
    with OAuthTestServer(challenge_scope="files:read") as server:
        call(server, oauth(server))
        assert only(server, "/authorize")["query"]["scope"] == "files:read offline_access"


def test_without_any_scope_named_no_scope_is_sent_and_offline_access_only_where_listed():
    with OAuthTestServer(scopes_supported=None, as_scopes_supported=("read",)) as server:
        call(server, oauth(server))
        assert "scope" not in only(server, "/authorize")["query"]
    with OAuthTestServer(as_scopes_supported=("read",)) as server:
        call(server, oauth(server))
        assert only(server, "/authorize")["query"]["scope"] == "read"


@pytest.mark.parametrize(
    "where, tried",
    [
        ("path", ["GET /.well-known/oauth-protected-resource/mcp"]),
        ("root", ["GET /.well-known/oauth-protected-resource/mcp", "GET /.well-known/oauth-protected-resource"]),
    ],
)
def test_resource_metadata_not_named_is_found_at_the_well_known_urls_in_order(where, tried):
    with OAuthTestServer(resource_metadata=where) as server:
        assert call(server, oauth(server)) == "hi"
        assert paths(server)[: len(tried)] == tried


@pytest.mark.parametrize(
    "as_metadata, issuer_path, tried",
    [
        ("oauth", "/tenant1", ["/.well-known/oauth-authorization-server/tenant1"]),
        (
            "openid",
            "/tenant1",
            ["/.well-known/oauth-authorization-server/tenant1", "/.well-known/openid-configuration/tenant1"],
        ),
        ("openid", "", ["/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"]),
    ],
)
def test_authorization_server_metadata_is_found_in_the_specs_order(as_metadata, issuer_path, tried):
    with OAuthTestServer(as_metadata=as_metadata, issuer_path=issuer_path) as server:
        assert call(server, oauth(server)) == "hi"
        metadata = [p.split(" ", 1)[1] for p in paths(server) if "/.well-known/o" in p and "protected" not in p]
        assert metadata == tried
        assert only(server, f"{issuer_path}/token")["form"]["resource"] == server.url


def test_a_2025_03_26_server_without_resource_metadata_uses_its_origins_metadata():
    with OAuthTestServer(resource_metadata="none") as server:
        assert call(server, oauth(server)) == "hi"
        assert paths(server)[:3] == [
            "GET /.well-known/oauth-protected-resource/mcp",
            "GET /.well-known/oauth-protected-resource",
            "GET /.well-known/oauth-authorization-server",
        ]
        assert only(server, "/authorize")["query"]["resource"] == server.url


def test_a_2025_03_26_server_without_any_metadata_gets_the_default_endpoints():
    with OAuthTestServer(resource_metadata="none", as_metadata="none") as server:
        assert call(server, oauth(server)) == "hi"
        assert paths(server)[-3:] == ["POST /register", "GET /authorize", "POST /token"]


# -- refusals ----------------------------------------------------------------------------------------


def test_resource_metadata_for_another_resource_is_refused_before_any_authorization_request():
    with OAuthTestServer(resource="https://elsewhere.example/mcp") as server:
        with pytest.raises(AuthorizationError) as info:
            call(server, oauth(server))
        assert "https://elsewhere.example/mcp" in str(info.value) and server.url in str(info.value)
        assert not any(p.endswith(("/register", "/authorize", "/token")) for p in paths(server))


def test_metadata_naming_another_issuer_is_refused_and_none_of_its_endpoints_used():
    with OAuthTestServer(metadata_issuer="https://evil.example") as server:
        with pytest.raises(AuthorizationError, match=r"names the issuer 'https://evil\.example'"):
            call(server, oauth(server))
        assert not any(p.endswith(("/register", "/authorize", "/token")) for p in paths(server))


@pytest.mark.parametrize(
    "iss, supported, accepted",
    [
        ("right", True, True),
        ("right", False, True),
        ("absent", False, True),
        ("absent", True, False),
        ("wrong", True, False),
        ("wrong", False, False),
        ("slash", True, False),  # a trailing slash is a mismatch: no normalisation
    ],
)
def test_the_redirects_iss_is_checked_before_the_code_is_redeemed(iss, supported, accepted):
    with OAuthTestServer(iss=iss, iss_supported=supported) as server:
        if accepted:
            assert call(server, oauth(server)) == "hi"
            return
        with pytest.raises(AuthorizationError, match="refused before the token request"):
            call(server, oauth(server))
        assert server.requests_to("/token") == []


@pytest.mark.parametrize("methods", [None, ("plain",)])
def test_an_authorization_server_without_pkce_s256_is_refused(methods):
    with OAuthTestServer(code_challenge_methods=methods) as server:
        with pytest.raises(AuthorizationError, match="PKCE with S256"):
            call(server, oauth(server))
        assert server.requests_to("/authorize") == []


def test_an_endpoint_that_is_not_https_off_loopback_is_refused():
    with OAuthTestServer(token_endpoint="http://auth.example.com/token") as server:
        with pytest.raises(AuthorizationError, match="not HTTPS"):
            call(server, oauth(server))
        assert server.requests_to("/authorize") == []


def test_a_redirect_with_another_state_is_refused(server):
    def forged(url: str) -> str:
        location = server.approve(url)
        return location.replace("state=", "state=x")

    with pytest.raises(AuthorizationError, match="state does not match"):
        call(server, oauth(server, on_authorize=forged))
    assert server.requests_to("/token") == []


# -- registration ------------------------------------------------------------------------------------


def test_a_preregistered_client_with_a_secret_uses_basic_auth_and_registers_nothing():
    clients = {"pre": {"secret": "s3cret", "redirect_uris": []}}
    with OAuthTestServer(clients=clients) as server:
        clients["pre"].pop("redirect_uris")
        assert call(server, oauth(server, client_id="pre", client_secret="s3cret")) == "hi"
        token = only(server, "/token")
        assert token["authorization"].startswith("Basic ") and "client_secret" not in token["form"]
        assert server.requests_to("/register") == []


def test_client_secret_post_when_the_server_takes_only_that():
    with OAuthTestServer(
        clients={"pre": {"secret": "s3cret"}}, token_endpoint_auth_methods=("client_secret_post",)
    ) as server:
        assert call(server, oauth(server, client_id="pre", client_secret="s3cret")) == "hi"
        token = only(server, "/token")
        assert token["authorization"] is None and token["form"]["client_secret"] == "s3cret"


@pytest.mark.parametrize("kind", ["EC", "RSA"])
def test_private_key_jwt_signs_a_client_assertion(kind):
    from joserfc.jwk import ECKey, RSAKey

    key = ECKey.generate_key("P-256") if kind == "EC" else RSAKey.generate_key(2048)
    private = key.as_pem(private=True).decode()
    public = key.as_pem(private=False).decode()
    with OAuthTestServer(clients={"keyed": {"public_key": public}}) as server:
        assert call(server, oauth(server, client_id="keyed", private_key=private)) == "hi"
        form = only(server, "/token")["form"]
        assert form["client_assertion_type"] == "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
        assert "client_secret" not in form


def test_a_client_id_metadata_document_is_the_client_id_exactly_where_supported():
    document = "https://app.example.com/oauth/client.json"
    with OAuthTestServer(client_id_metadata_documents=True) as server:
        assert call(server, oauth(server, client_metadata_url=document)) == "hi"
        assert only(server, "/authorize")["query"]["client_id"] == document
        assert only(server, "/token")["form"]["client_id"] == document
        assert server.requests_to("/register") == []
    with OAuthTestServer() as server:  # not supported: dynamic registration instead
        call(server, oauth(server, client_metadata_url=document))
        assert len(server.requests_to("/register")) == 1


def test_a_move_to_another_authorization_server_registers_again_and_never_shows_it_the_first_client_id(server):
    auth = oauth(server)
    assert call(server, auth) == "hi"
    first_client = only(server, "/token")["form"]["client_id"]
    server.migrate()
    assert call(server, auth) == "hi"
    second = [r for r in server.seen if r["path"].startswith("/second/")]
    assert [f"{r['method']} {r['path']}" for r in second] == [
        "POST /second/register",
        "GET /second/authorize",
        "POST /second/token",
    ]
    assert all(first_client not in json.dumps(r) for r in second)


def test_preregistered_credentials_pinned_to_an_issuer_are_not_sent_to_another():
    with OAuthTestServer(clients={"pre": {"secret": "s"}}) as server:
        auth = oauth(server, client_id="pre", client_secret="s", issuer="https://auth.example.com")
        with pytest.raises(AuthorizationError, match=r"registered at https://auth\.example\.com"):
            call(server, auth)
        assert server.requests_to("/authorize") == [] and server.requests_to("/token") == []


# -- step-up and refresh -----------------------------------------------------------------------------


def test_a_403_for_more_scopes_logs_in_again_with_the_union_of_the_scopes(server):
    auth = oauth(server)
    with mcpsync.connect(server.url, auth=auth, timeout=T) as client:
        assert client.call_tool("add", {"a": 1, "b": 2}, timeout=T).structured_content == {"sum": 3}
    first, second = server.requests_to("/authorize")
    assert first["query"]["scope"] == "read offline_access"
    assert set(second["query"]["scope"].split()) == {"read", "offline_access", "write"}


def test_a_server_that_keeps_asking_for_a_scope_it_never_grants_is_an_error_not_a_loop():
    with OAuthTestServer(granted_scopes=("read", "offline_access")) as server:
        with pytest.raises(AuthorizationError, match="still refuses with insufficient_scope"):
            call(server, oauth(server), tool="add")
        assert len(server.requests_to("/authorize")) <= 4


def test_a_revoked_token_is_refreshed_and_a_rotated_refresh_token_replaces_the_old(server):
    store = MemoryTokenStore()
    auth = oauth(server, store=store)
    with mcpsync.connect(server.url, auth=auth, timeout=T) as client:
        before = _token(store)
        server.revoke_access_tokens()
        assert client.call_tool("echo", {"text": "again"}, timeout=T).text == "again"
        after = _token(store)
    refresh = [r for r in server.requests_to("/token") if r["form"]["grant_type"] == "refresh_token"]
    assert len(refresh) == 1 and refresh[0]["form"]["resource"] == server.url
    assert after["refresh_token"] != before["refresh_token"] and after["access_token"] != before["access_token"]
    assert len(server.requests_to("/authorize")) == 1


def test_a_refresh_token_the_server_does_not_rotate_is_kept():
    with OAuthTestServer(rotate_refresh_tokens=False) as server:
        store = MemoryTokenStore()
        with mcpsync.connect(server.url, auth=oauth(server, store=store), timeout=T) as client:
            before = _token(store)
            server.revoke_access_tokens()
            client.list_tools(timeout=T)
        assert _token(store)["refresh_token"] == before["refresh_token"]


def test_a_token_near_its_expiry_is_refreshed_before_it_is_sent():
    """A token the client believes near its expiry is refreshed before the next request goes out.

    The server would take the old token for another hour, so it answers no 401 that could cause a
    refresh: a refresh seen is the client's own, made before sending. No sleep: the client's record
    of the token is made near-expiry (obtained an hour ago, 30 s left: within ``REFRESH_LEEWAY``).
    """
    with OAuthTestServer(token_lifetime=3600.0) as server:
        with mcpsync.connect(server.url, auth=oauth(server), timeout=T) as client:
            authorizer = client.transport.authorizer
            old = dict(authorizer._token)
            authorizer._token = {**old, "obtained_at": time.time() - 3600, "expires_at": time.time() + 30}
            mark = len(server.seen)
            assert client.list_tools(timeout=T)
            after = server.seen[mark:]
            assert server.access_tokens[old["access_token"]]["expires"] > time.time() + 3000  # no 401 for it
            assert authorizer._token["access_token"] != old["access_token"]
        assert [(r["method"], r["path"], r["form"].get("grant_type")) for r in after] == [
            ("POST", "/token", "refresh_token")
        ], paths(server)


def test_many_threads_meeting_a_revoked_token_refresh_it_once(server):
    auth = oauth(server)
    with mcpsync.connect(server.url, auth=auth, timeout=T) as client:
        server.revoke_access_tokens()
        assert calls_from_threads(client, 8) == []
    refreshes = [r for r in server.requests_to("/token") if r["form"]["grant_type"] == "refresh_token"]
    assert len(refreshes) == 1


# -- nobody there ------------------------------------------------------------------------------------


def test_with_nobody_there_a_401_is_authorization_required_at_once_naming_the_command(server):
    auth = mcpsync.OAuth(store=MemoryTokenStore(), interactive=False)
    with pytest.raises(AuthorizationRequired) as info:
        mcpsync.connect(server.url, auth=auth, timeout=T)
    error = info.value
    assert error.status_code == 401 and isinstance(error, mcpsync.HTTPStatusError)
    assert error.login_command == f"mcpsync login --url {server.url}"
    assert f"log in once with: mcpsync login --url {server.url}" in str(error)
    assert server.seen == []  # nothing asked of the authorization server: nobody could finish it


def test_the_default_auth_of_a_script_without_a_terminal_never_waits(server):
    code = f"import mcpsync\ntry:\n    mcpsync.connect({server.url!r}, timeout=10)\nexcept mcpsync.AuthorizationRequired as e:\n    print(e.login_command)\n"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL
    )
    assert out.stdout.strip() == f"mcpsync login --url {server.url}", out.stderr


def test_a_stored_token_survives_a_restart_of_the_process(server, tmp_path):
    store = mcpsync.FileTokenStore(tmp_path / "auth")
    assert call(server, oauth(server, store=store)) == "hi"
    assert stat.S_IMODE(os.stat(tmp_path / "auth").st_mode) == 0o700
    files = list((tmp_path / "auth").iterdir())
    assert files and all(stat.S_IMODE(f.stat().st_mode) == 0o600 for f in files)
    code = (
        "import mcpsync\n"
        f"auth = mcpsync.OAuth(store=mcpsync.FileTokenStore({str(tmp_path / 'auth')!r}), interactive=False)\n"
        f"with mcpsync.connect({server.url!r}, auth=auth, timeout=10) as c:\n"
        "    print(c.call_tool('echo', {'text': 'back'}).text)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL
    )
    assert out.stdout.strip() == "back", out.stderr
    assert len(server.requests_to("/authorize")) == 1  # the second process needed no login


def test_no_token_code_verifier_or_secret_reaches_the_logs(server, caplog):
    clients = {"pre": {"secret": "very-secret-value"}}
    server.options.clients = clients
    with caplog.at_level(logging.DEBUG, logger="mcpsync"):
        with mcpsync.connect(
            server.url, auth=oauth(server, client_id="pre", client_secret="very-secret-value"), timeout=T
        ) as client:
            client.list_tools(timeout=T)
            server.revoke_access_tokens()
            client.list_tools(timeout=T)
    secrets = [*server.access_tokens, *server.refresh_tokens, "very-secret-value"]
    secrets += [r["form"].get("code_verifier", "") for r in server.requests_to("/token")]
    secrets += [r["form"].get("code", "") for r in server.requests_to("/token")]
    text = caplog.text
    assert all(s and s not in text for s in secrets if s)


def test_a_refused_grant_says_why_without_the_secret(server):
    server.options.clients = {"pre": {"secret": "right"}}
    with pytest.raises(AuthorizationError) as info:
        call(server, oauth(server, client_id="pre", client_secret="wrong-secret"))
    assert "invalid_client" in str(info.value) and "wrong-secret" not in str(info.value)
    assert info.value.error == "invalid_client"


def _token(store: MemoryTokenStore) -> dict[str, Any]:
    (key,) = [k for k in store.keys() if k.startswith("token ")]
    value = store.load(key)
    assert value is not None
    return value


def test_logout_forgets_the_servers_token(server, tmp_path: Path):
    store = mcpsync.FileTokenStore(tmp_path)
    auth = oauth(server, store=store)
    call(server, auth)
    assert any(k.startswith("token ") for k in store.keys())
    assert auth.for_server(server.url, "s").logout() is True
    assert not any(k.startswith(("token ", "server ")) for k in store.keys())


def test_the_resource_is_sent_exactly_as_the_metadata_writes_it_no_slash_added():
    with OAuthTestServer() as server:
        server.options.resource = server.base  # the root, without a trailing slash: covers /mcp
        assert call(server, oauth(server)) == "hi"
        assert only(server, "/authorize")["query"]["resource"] == server.base
        assert only(server, "/token")["form"]["resource"] == server.base


def test_without_dynamic_registration_and_without_a_client_id_the_error_says_what_to_pass():
    with OAuthTestServer(registration=False) as server:
        with pytest.raises(AuthorizationError, match=r"takes no dynamic registration; pass the client_id"):
            call(server, oauth(server))
        assert server.requests_to("/authorize") == []


# -- bounds ------------------------------------------------------------------------------------------


@pytest.mark.slow("waits out the call's 1 s timeout while the token refresh hangs")
def test_a_call_whose_token_refresh_hangs_ends_at_its_timeout():
    """The token endpoint holds the refresh for 30 s: the call is a ``RequestTimeout`` of 1 s, not an auth error."""
    with OAuthTestServer() as server:
        with mcpsync.connect(server.url, auth=oauth(server), timeout=T) as client:
            server.revoke_access_tokens()
            server.options.token_delay = 30
            started = time.monotonic()
            with pytest.raises(mcpsync.RequestTimeout, match=r"after 1s"):
                client.call_tool("echo", {"text": "x"}, timeout=1)
            assert time.monotonic() - started < 5


def test_ctrl_c_during_a_token_refresh_returns_at_once():
    from tests.helpers import ctrl_c_after

    with OAuthTestServer() as server:
        with mcpsync.connect(server.url, auth=oauth(server), timeout=T) as client:
            server.revoke_access_tokens()
            server.options.token_delay = 30
            asked = len(server.requests_to("/token"))
            started = time.monotonic()
            with ctrl_c_after(0.2, when=lambda: len(server.requests_to("/token")) > asked):  # the refresh waits
                client.call_tool("echo", {"text": "x"}, timeout=T)
            assert time.monotonic() - started < 5
            server.options.token_delay = 0
            assert client.call_tool("echo", {"text": "after"}, timeout=T).text == "after"


def test_threads_that_need_a_login_at_once_get_one_login(server):
    auth = oauth(server)
    with mcpsync.connect(server.url, auth=auth, timeout=T) as client:
        auth.for_server(server.url, "x").logout()
        client.transport.authorizer._token = None  # as if the token had been revoked for good
        server.revoke_access_tokens()
        server.refresh_tokens.clear()
        assert calls_from_threads(client, 4) == []
    assert len(server.requests_to("/authorize")) == 2  # the first login, and one for all four threads
