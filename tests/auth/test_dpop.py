"""DPoP (RFC 9449) against the test authorization server: key-bound tokens, a fresh proof per request,
and the nonce each server may ask for."""

from __future__ import annotations

import base64
import hashlib
from typing import Any

import pytest

import mcpsync
from mcpsync import AuthorizationError, MemoryTokenStore
from tests.oauth_server import OAuthTestServer

T = 20


def proofs(server: OAuthTestServer, where: str) -> list[dict[str, Any]]:
    return [p for p in server.dpop_proofs if p["where"] == where]


def connect(server: OAuthTestServer, **options: Any) -> mcpsync.Client:
    options.setdefault("store", MemoryTokenStore())
    return mcpsync.connect(server.url, auth=mcpsync.OAuth(on_authorize=server.approve, **options), timeout=T)


def test_where_the_server_supports_it_tokens_are_bound_and_every_request_has_a_fresh_proof():
    with OAuthTestServer(dpop=True) as server:
        with connect(server) as client:
            client.call_tool("echo", {"text": "a"}, timeout=T)
            client.list_tools(timeout=T)
        (at_token,) = proofs(server, "token")
        assert at_token["claims"]["htm"] == "POST" and at_token["claims"]["htu"] == server.base + "/token"
        assert "ath" not in at_token["claims"] and "d" not in at_token["header"]["jwk"]
        at_resource = proofs(server, "resource")
        assert len(at_resource) >= 4  # initialize, initialized, the call, the listing (and DELETE)
        (access_token,) = server.access_tokens
        ath = base64.urlsafe_b64encode(hashlib.sha256(access_token.encode()).digest()).rstrip(b"=").decode()
        for proof in at_resource:
            assert proof["claims"]["htu"] == server.url and proof["claims"]["ath"] == ath
            assert proof["header"]["typ"] == "dpop+jwt" and proof["header"]["alg"] == "ES256"
            assert proof["header"]["jwk"] == at_token["header"]["jwk"]  # one key, the token's
        jtis = [p["claims"]["jti"] for p in server.dpop_proofs]
        assert len(set(jtis)) == len(jtis)
        assert {p["claims"]["htm"] for p in at_resource} >= {"POST"}


def test_a_nonce_asked_for_at_the_token_endpoint_and_at_the_server_is_sent_once_asked():
    with OAuthTestServer(dpop=True, dpop_nonce_at_token=True, dpop_nonce_at_resource=True) as server:
        with connect(server) as client:
            assert client.call_tool("echo", {"text": "n"}, timeout=T).text == "n"
        at_token = proofs(server, "token")
        assert "nonce" not in at_token[0]["claims"] and at_token[1]["claims"]["nonce"] == server.dpop_nonce
        at_resource = proofs(server, "resource")
        assert "nonce" not in at_resource[0]["claims"]
        assert all(p["claims"].get("nonce") == server.dpop_nonce for p in at_resource[1:])
        assert len([r for r in server.requests_to("/token")]) == 2  # the refused one, and the one with the nonce


def test_a_dpop_token_is_refreshed_with_a_proof_of_the_same_key():
    with OAuthTestServer(dpop=True) as server:
        with connect(server) as client:
            server.revoke_access_tokens()
            client.list_tools(timeout=T)
        first, refresh = proofs(server, "token")
        assert refresh["header"]["jwk"] == first["header"]["jwk"]  # the refresh token is bound to that key
        assert [r["form"]["grant_type"] for r in server.requests_to("/token")] == [
            "authorization_code",
            "refresh_token",
        ]


def test_a_dpop_token_and_its_key_survive_in_the_store(tmp_path):
    with OAuthTestServer(dpop=True) as server:
        store = mcpsync.FileTokenStore(tmp_path)
        with connect(server, store=store):
            pass
        with mcpsync.connect(server.url, auth=mcpsync.OAuth(store=store, interactive=False), timeout=T) as client:
            client.list_tools(timeout=T)
        assert len(server.requests_to("/authorize")) == 1


def test_dpop_can_be_turned_off_or_required():
    with OAuthTestServer(dpop=True) as server:
        with connect(server, dpop=False) as client:
            client.list_tools(timeout=T)
        assert server.dpop_proofs == []
    with OAuthTestServer() as server:
        with pytest.raises(AuthorizationError, match="DPoP was asked for"):
            connect(server, dpop=True)
        assert server.requests_to("/token") == []


def test_client_credentials_get_dpop_bound_tokens_too():
    with OAuthTestServer(dpop=True, clients={"svc": {"secret": "s"}}) as server:
        with mcpsync.connect(server.url, auth=mcpsync.ClientCredentials("svc", "s"), timeout=T) as client:
            client.list_tools(timeout=T)
        assert len(proofs(server, "token")) == 1 and proofs(server, "resource")


def test_a_proofs_htu_leaves_out_the_query():
    with OAuthTestServer(dpop=True) as server:
        auth = mcpsync.OAuth(on_authorize=server.approve, store=MemoryTokenStore())
        with mcpsync.connect(server.url + "?tenant=7", auth=auth, timeout=T) as client:
            client.list_tools(timeout=T)
        assert {p["claims"]["htu"] for p in proofs(server, "resource")} == {server.url}
