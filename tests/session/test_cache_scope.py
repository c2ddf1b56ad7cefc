"""``cacheScope`` (2026-07-28 server/utilities/caching.mdx): a result a server marks ``"private"`` (or
leaves unmarked, as servers of older eras do) is served again only in the authorization context it was
fetched in; ``"public"`` may be served to any. The context is the transport's fingerprint of the
credentials it sends (``Transport.authorization_context``): an ``Authorization`` header, OAuth's current
access token, another auth object by identity or by its own ``authorization_context()``."""

from __future__ import annotations

from typing import Any

import pytest
import requests

import mcpsync
from mcpsync._session.cache import ListCache, cache_scope
from mcpsync._wire.http.streamable import StreamableHTTPTransport
from tests.helpers import scripted_server

T = 20.0
URL = "http://127.0.0.1:1/mcp"


def listing(tool: str, scope: Any) -> dict[str, Any]:
    result: dict[str, Any] = {"tools": [{"name": tool, "inputSchema": {"type": "object"}}], "ttlMs": 600_000}
    if scope is not None:
        result["cacheScope"] = scope
    return result


def names(tools: list[mcpsync.Tool]) -> list[str]:
    return [tool.name for tool in tools]


@pytest.mark.parametrize("scope", ["private", None])
def test_a_private_list_is_not_served_to_another_authorization_context(scope):
    """A list fresh for ten minutes (``ttlMs``) is served from the cache while the context stays; once the
    token is another (here: the transport's fingerprint changes), the held list is dropped and the server
    asked again, ``client.tools`` included. The unfixed client served the first user's list to the second."""
    script = {"tools/list": [listing("alice_tool", scope), listing("bob_tool", scope)]}
    with mcpsync.connect(scripted_server(script), timeout=T) as client:
        who = ["alice"]
        client.transport.authorization_context = lambda: who[0]  # type: ignore[method-assign]
        assert names(client.list_tools(timeout=T)) == ["alice_tool"]
        assert names(client.list_tools(timeout=T)) == ["alice_tool"], "fresh: served from the cache"
        assert client.cache_scope("tools") == scope
        who[0] = "bob"
        assert client.cached_lists == {}, "another context: nothing of alice's is held for it"
        assert names(client.tools) == ["bob_tool"]
        assert names(client.list_tools(timeout=T)) == ["bob_tool"]


def test_a_public_list_may_be_served_to_any_authorization_context():
    """``cacheScope: "public"``: the same list for every caller, so a changed token does not drop it."""
    script = {"tools/list": [listing("shared", "public"), listing("never_asked", "public")]}
    with mcpsync.connect(scripted_server(script), timeout=T) as client:
        who = ["alice"]
        client.transport.authorization_context = lambda: who[0]  # type: ignore[method-assign]
        assert names(client.list_tools(timeout=T)) == ["shared"]
        who[0] = "bob"
        assert names(client.list_tools(timeout=T)) == ["shared"]
        assert client.cache_scope("tools") == "public"


def test_a_private_read_is_not_served_to_another_authorization_context():
    """``resources/read`` answered ``private`` with a long ``ttlMs``: served again to the same context only."""

    def read(text: str) -> dict[str, Any]:
        contents = [{"uri": "memo://me", "mimeType": "text/plain", "text": text}]
        return {"contents": contents, "ttlMs": 600_000, "cacheScope": "private"}

    script = {"resources/read": [read("alice's"), read("bob's")]}
    with mcpsync.connect(scripted_server(script), timeout=T) as client:
        client.server_capabilities = {**client.server_capabilities, "resources": {}}  # the script serves reads
        who = ["alice"]
        client.transport.authorization_context = lambda: who[0]  # type: ignore[method-assign]
        assert client.read_resource("memo://me", timeout=T).text == "alice's"
        assert client.read_resource("memo://me", timeout=T).text == "alice's"
        who[0] = "bob"
        assert client.read_resource("memo://me", timeout=T).text == "bob's"


def test_a_list_fetched_while_the_context_changed_is_kept_for_no_one():
    """The token changed between the request and its answer: the answer may be either user's, so a
    private one is not kept (a public one is)."""
    cache = ListCache(lambda kind: None, context=lambda: "bob")
    cache.put("tools", ["t"], 60.0, scope="private", context="alice")
    assert cache.get("tools") is None and cache.scope("tools") == "private"
    cache.put("tools", ["t"], 60.0, scope="public", context="alice")
    assert cache.fresh("tools") == ["t"]


def test_the_scope_of_a_listing_is_public_only_when_every_page_says_so():
    assert cache_scope([{"cacheScope": "public"}, {"cacheScope": "public"}]) == "public"
    assert cache_scope([{"cacheScope": "public"}, {"cacheScope": "private"}]) == "private"
    assert cache_scope([{"cacheScope": "public"}, {}]) is None
    assert cache_scope([{"cacheScope": "shared"}]) is None


class TokenAuth(requests.auth.AuthBase):
    """A requests auth object that says which credentials it sends (``authorization_context``)."""

    def __init__(self, token: str) -> None:
        self.token = token

    def __call__(self, request: Any) -> Any:
        request.headers["Authorization"] = f"Bearer {self.token}"
        return request

    def authorization_context(self) -> str:
        return self.token


def test_the_http_transports_authorization_context_follows_the_credentials():
    """An ``Authorization`` header (the same value, the same context; another, another), an auth object's
    own ``authorization_context()`` (it changes with its token), any other auth object by identity, none:
    ``""``. The context is a digest: no credential is kept in it."""

    def context(**options: Any) -> str:
        transport = StreamableHTTPTransport(URL, listen=False, **options)
        transport._http = transport._open_http(1)  # what open() does, without connecting
        try:
            return transport.authorization_context()
        finally:
            transport._http.close()

    assert context(auth=False) == ""
    alice = context(headers={"Authorization": "Bearer alice"}, auth=False)
    assert alice == context(headers={"Authorization": "Bearer alice"}, auth=False)
    assert alice != context(headers={"authorization": "Bearer bob"}, auth=False) and "alice" not in alice
    token = TokenAuth("one")
    transport = StreamableHTTPTransport(URL, listen=False, auth=token)
    transport._http = transport._open_http(1)
    try:
        first = transport.authorization_context()
        token.token = "two"
        assert transport.authorization_context() != first
    finally:
        transport._http.close()
    basic = requests.auth.HTTPBasicAuth("u", "p")
    assert context(auth=basic) == context(auth=basic) != context(auth=requests.auth.HTTPBasicAuth("u", "p"))


def test_oauth_says_which_access_token_it_sends():
    """``OAuth`` bound to a server: its context is a digest of the access token held (a refresh or a login
    as someone else changes it), ``""`` before it has one."""
    oauth = mcpsync.OAuth(store=mcpsync.MemoryTokenStore())
    bound = oauth.for_server(URL, "s", session=None, login_command=None)
    assert bound.authorization_context() == ""
    bound._token = {"access_token": "alice-token", "token_type": "Bearer"}
    alice = bound.authorization_context()
    bound._token = {"access_token": "bob-token", "token_type": "Bearer"}
    assert alice and bound.authorization_context() != alice and "alice" not in alice
