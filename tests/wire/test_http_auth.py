"""What ``auth=`` takes (``_wire/http/auth.py``): an object of the ``Authorizer`` protocol of the user's
own goes through the wire as ``OAuth`` does (its headers on each request, each 401 handed to it);
anything that is no auth is a ``TypeError`` that names its type, never its value."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any, Optional

import pytest
import responses

import mcpsync
from mcpsync import StreamableHTTPTransport, call_mcp
from mcpsync._core.authorizer import Authorizer, Refusal
from mcpsync._core.errors import AuthorizationRequired
from mcpsync._wire.http.auth import RequestsAuth, as_authorizer
from tests.wire.test_stdio_faults import T

URL = "http://mcp.test/mcp"
INIT = {"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "f", "version": "1"}}


class RotatingToken:
    """A plain object of the protocol (no base class, not OAuth): a token, and a new one after a 401."""

    extension: Optional[str] = None

    def __init__(self) -> None:
        self.token = "one"
        self.asked: list[tuple[str, str]] = []
        self.challenges: list[tuple[int, Optional[str], Optional[str]]] = []
        self.bound: list[str] = []

    def for_server(self, url: str, name: str, *, session: Any = None, login_command: Optional[str] = None) -> Any:
        self.bound.append(url)
        return self

    def headers(self, method: str, url: str, deadline: float = math.inf) -> Mapping[str, str]:
        self.asked.append((method, url))
        return {"Authorization": f"Bearer {self.token}", "X-Proof": f"{method} {url}"}

    def answer_challenge(self, refusal: Refusal) -> bool:
        self.challenges.append((refusal.status, refusal.www_authenticate, refusal.sent))
        if self.token == "one":
            self.token = "two"
            return True
        return False

    def can_login(self) -> bool:
        return False

    def login(self, reason: Optional[AuthorizationRequired] = None, *, deadline: float = math.inf) -> float:
        raise AssertionError("no login here")

    def authorization_context(self) -> str:
        return self.token


def serve(seen: list[dict[str, str]]) -> Any:
    """A server that wants ``Bearer two``: ``Bearer one`` gets a 401 with a challenge."""

    def answer(request: Any) -> tuple[int, dict[str, str], str]:
        seen.append(dict(request.headers))
        if request.headers.get("Authorization") != "Bearer two":
            return (401, {"WWW-Authenticate": 'Bearer error="invalid_token"'}, "no")
        message = json.loads(request.body)
        if "id" not in message:
            return (202, {}, "")
        result = INIT if message["method"] == "initialize" else {}
        body = json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result})
        return (200, {"Content-Type": "application/json"}, body)

    return answer


def test_a_plain_authorizer_of_the_users_own_puts_its_headers_on_and_answers_a_401() -> None:
    """Through a transport and a Client: the object is bound to the server, its headers (made for the
    method and URL) go on every request, the first 401 goes to it with the challenge and the
    credentials sent, and the request goes again with its new token; its context is the transport's."""
    auth = RotatingToken()
    assert isinstance(auth, Authorizer) and as_authorizer(auth) is auth
    seen: list[dict[str, str]] = []
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        mock.add_callback(responses.POST, URL, callback=serve(seen))
        mock.add(responses.DELETE, URL, status=204)
        transport = StreamableHTTPTransport(URL, auth=auth, listen=False)
        with mcpsync.Client(transport, protocol="legacy") as client:
            client.ping(timeout=T)
            assert transport.authorizer is auth
            two = transport.authorization_context()
            auth.token = "three"
            assert transport.authorization_context() != two
            # Whose account this is, the configuration does not say: a private tool list is not cached.
            assert not transport.context_in_config()
    assert auth.bound == [URL]
    assert auth.challenges == [(401, 'Bearer error="invalid_token"', "Bearer one")]
    assert [h["Authorization"] for h in seen[:2]] == ["Bearer one", "Bearer two"]
    assert {h["Authorization"] for h in seen[2:]} == {"Bearer two"}
    assert seen[0]["X-Proof"] == f"POST {URL}" and auth.asked[0] == ("POST", URL)


def test_a_static_header_authorizer_needs_only_headers() -> None:
    """A subclass of the protocol inherits the defaults: it sets ``headers`` alone, and a 401 it does
    not answer is the caller's ``HTTPStatusError`` (call_mcp binds it too)."""

    class StaticHeader(Authorizer):
        def headers(self, method: str, url: str, deadline: float = math.inf) -> Mapping[str, str]:
            return {"Authorization": "Bearer two"}

    seen: list[dict[str, str]] = []
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        mock.add_callback(responses.POST, URL, callback=serve(seen))
        assert call_mcp(URL, "ping", auth=StaticHeader(), timeout=T)["result"] == {}
    assert seen[0]["Authorization"] == "Bearer two"

    class Wrong(Authorizer):
        def headers(self, method: str, url: str, deadline: float = math.inf) -> Mapping[str, str]:
            return {"Authorization": "Bearer one"}

    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        mock.add_callback(responses.POST, URL, callback=serve([]))
        with pytest.raises(mcpsync.HTTPStatusError) as info:
            call_mcp(URL, "ping", auth=Wrong(), timeout=T)
    assert info.value.status_code == 401


@pytest.mark.parametrize(
    ("value", "named"),
    [("Bearer s3cret-token", "str"), (42, "int"), (("user",), "tuple"), ({"token": "s3cret-token"}, "dict")],
)
def test_an_unsupported_auth_is_a_type_error_that_names_its_type_not_its_value(value: Any, named: str) -> None:
    """At the entry points (a transport, ``connect``, ``call_mcp``), before anything is sent: the text
    says what auth= takes and the type it got, and never the value (it may be a secret)."""
    for make in (
        lambda: StreamableHTTPTransport(URL, auth=value, listen=False),
        lambda: mcpsync.connect(URL, auth=value, timeout=T),
        lambda: call_mcp(URL, "ping", auth=value, timeout=T),
    ):
        with pytest.raises(TypeError, match=rf"auth= takes mcpsync\.OAuth .* got {named}\b") as info:
            make()
        assert "s3cret" not in str(info.value)
    if isinstance(value, str):
        assert "headers={'Authorization'" in str(as_authorizer_error(value))


def as_authorizer_error(value: Any) -> TypeError:
    with pytest.raises(TypeError) as info:
        as_authorizer(value)
    return info.value


def test_a_requests_auth_object_or_pair_is_wrapped_and_applied_by_requests() -> None:
    """A callable or a ``(user, password)`` pair becomes a ``RequestsAuth`` (it answers no challenge, and
    no login); ``None`` stays ``None``; ``mcpsync.OAuth`` is taken as it is."""
    pair = as_authorizer(("u", "p"))
    assert isinstance(pair, RequestsAuth) and pair.requests_auth == ("u", "p")
    refusal = Refusal(status=401, www_authenticate=None, sent=None, url=URL, dpop_nonce=None, deadline=math.inf)
    assert not pair.answer_challenge(refusal) and not pair.can_login()
    assert as_authorizer(None) is None
    oauth = mcpsync.OAuth(store=mcpsync.MemoryTokenStore())
    assert as_authorizer(oauth) is oauth
    seen: list[dict[str, str]] = []
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        mock.add_callback(responses.POST, URL, callback=serve(seen))
        with pytest.raises(mcpsync.HTTPStatusError):
            call_mcp(URL, "ping", auth=("u", "p"), timeout=T)
    assert seen[0]["Authorization"].startswith("Basic ")


def test_credentials_in_the_configuration_are_the_whole_authorization_context() -> None:
    """An ``Authorization`` header of the configuration (and nothing else) authorizes the requests: a
    private tool list may be kept under the configuration (issue 37, point 2); OAuth bound but with no
    token sent (a server that never asked) keeps that true."""
    seen: list[dict[str, str]] = []
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        mock.add_callback(responses.POST, URL, callback=serve(seen))
        mock.add(responses.DELETE, URL, status=204)
        transport = StreamableHTTPTransport(URL, headers={"Authorization": "Bearer two"}, listen=False)
        with mcpsync.Client(transport, protocol="legacy") as client:
            client.ping(timeout=T)
            assert transport.authorizer is None and transport.context_in_config()

    def open_server(request: Any) -> tuple[int, dict[str, str], str]:
        message = json.loads(request.body)
        if "id" not in message:
            return (202, {}, "")
        result = INIT if message["method"] == "initialize" else {}
        return (
            200,
            {"Content-Type": "application/json"},
            json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}),
        )

    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        mock.add_callback(responses.POST, URL, callback=open_server)
        mock.add(responses.DELETE, URL, status=204)
        transport = StreamableHTTPTransport(URL, listen=False)
        with mcpsync.Client(transport, protocol="legacy") as client:
            client.ping(timeout=T)
            assert transport.authorizer is not None  # the default OAuth, ready for a 401 that never came
            assert transport.context_in_config()
