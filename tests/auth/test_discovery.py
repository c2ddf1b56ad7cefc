"""Discovery as it fetches (``discover``, ``discover_authorization_server``): which URLs are asked, in
which order, what is taken from their answers and what is refused, against a scripted metadata host.

The pure rules (URL lists, ``resource_covers``) are in ``test_discovery_rules.py``; the whole flows
in ``test_oauth_flows.py``. These pin what the flows do not look at: the exact order of the fetches,
the exact ``Discovered``, and the text and ``server`` of each refusal.
"""

from __future__ import annotations

import http.server
import json
import re
import time
from collections.abc import Iterator
from typing import Any, Optional

import pytest

from mcpsync import AuthorizationError
from mcpsync._auth.challenge import Challenge
from mcpsync._auth.discovery import AuthServer, Discovered, discover, discover_authorization_server
from mcpsync._auth.http import AuthHTTP
from tests.helpers import served

T = 10.0


class MetadataHost(http.server.ThreadingHTTPServer):
    """A host on 127.0.0.1 that answers a GET of a path in ``routes`` with that JSON object (200) and
    anything else with 404; every path asked is recorded in ``asked``, in order."""

    daemon_threads = True

    def __init__(self) -> None:
        self.routes: dict[str, dict[str, Any]] = {}
        self.asked: list[str] = []
        host = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                host.asked.append(self.path)
                document = host.routes.get(self.path)
                body = json.dumps(document).encode() if document is not None else b'{"error": "not_found"}'
                self.send_response(200 if document is not None else 404)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:
                pass

        super().__init__(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.server_address[1]}"

    def metadata(self, issuer: str, **extra: Any) -> dict[str, Any]:
        """Authorization server metadata for ``issuer``, its endpoints on this host."""
        return {
            "issuer": issuer,
            "authorization_endpoint": self.base + "/authorize",
            "token_endpoint": self.base + "/token",
            **extra,
        }


@pytest.fixture
def host() -> Iterator[MetadataHost]:
    with served(MetadataHost()) as server:
        yield server


def _discover(host: MetadataHost, path: str = "/mcp", challenge: Optional[Challenge] = None) -> Discovered:
    with AuthHTTP("srv", host.base + path, deadline=time.monotonic() + T) as http_:
        return discover(http_, host.base + path, challenge)


def _refusal(host: MetadataHost, path: str = "/mcp", challenge: Optional[Challenge] = None) -> AuthorizationError:
    with pytest.raises(AuthorizationError) as raised:
        _discover(host, path, challenge)
    assert raised.value.server == "srv"
    return raised.value


RM = "/.well-known/oauth-protected-resource"
AS = "/.well-known/oauth-authorization-server"
OIDC = "/.well-known/openid-configuration"


def test_resource_metadata_is_looked_for_under_the_path_then_at_the_root_and_issuers_in_the_specs_order(host):
    """Neither the server's path nor the first two issuer URLs have metadata: the root's resource
    metadata is used, and the issuer's three URLs are tried in the spec's order, each once; the result
    is exactly the resource as written, the issuer's metadata, and the resource metadata."""
    issuer = host.base + "/issuer"
    resource_metadata = {"resource": host.base + "/mcp", "authorization_servers": [issuer]}
    host.routes[RM] = resource_metadata
    host.routes["/issuer" + OIDC] = host.metadata(issuer)
    found = _discover(host)
    assert host.asked == [RM + "/mcp", RM, AS + "/issuer", OIDC + "/issuer", "/issuer" + OIDC]
    assert found == Discovered(host.base + "/mcp", AuthServer(issuer, host.metadata(issuer)), resource_metadata)
    assert found.server.assumed is False


def test_the_challenges_resource_metadata_url_is_read_first_relative_to_the_server(host):
    """The 401's ``resource_metadata`` (a relative URL here) is joined to the server's URL and asked
    before the well-known ones, which are then not asked at all."""
    host.routes["/meta"] = {"resource": host.base + "/mcp", "authorization_servers": [host.base]}
    host.routes[AS] = host.metadata(host.base)
    found = _discover(host, challenge=Challenge("bearer", {"resource_metadata": "/meta"}))
    assert host.asked == ["/meta", AS]
    assert found.resource == host.base + "/mcp" and found.server.issuer == host.base


def test_a_challenges_resource_metadata_url_that_may_not_be_fetched_is_refused_not_skipped(host):
    """A ``resource_metadata`` pointing where authorization may not go (not http(s)) ends discovery
    with an error naming it: the well-known URLs are not tried instead."""
    error = _refusal(host, challenge=Challenge("bearer", {"resource_metadata": "ftp://127.0.0.1/meta"}))
    assert "resource metadata URL 'ftp://127.0.0.1/meta'" in str(error)
    assert host.asked == []


def test_a_server_without_resource_metadata_is_its_own_authorization_server(host):
    """A 2025-03-26 server: no resource metadata anywhere; the authorization server metadata at the
    server's origin is used (only RFC 8414's URL is asked), and the resource is the server's URL."""
    host.routes[AS] = host.metadata(host.base)
    found = _discover(host, "/mcp/")
    assert host.asked == [RM + "/mcp", RM, AS]
    assert found == Discovered(host.base + "/mcp/", AuthServer(host.base, host.metadata(host.base)), None)


def test_a_server_without_any_metadata_gets_the_2025_03_26_default_endpoints(host):
    """No metadata at all: the default endpoints at the server's origin, marked as assumed, with
    PKCE's S256; OpenID discovery is not tried for such a server."""
    found = _discover(host)
    assert host.asked == [RM + "/mcp", RM, AS]
    assert found == Discovered(
        host.base + "/mcp",
        AuthServer(
            host.base,
            {
                "issuer": host.base,
                "authorization_endpoint": host.base + "/authorize",
                "token_endpoint": host.base + "/token",
                "registration_endpoint": host.base + "/register",
                "code_challenge_methods_supported": ["S256"],
            },
            assumed=True,
        ),
    )


@pytest.mark.parametrize("resource", [None, 42, "http://127.0.0.1:1/mcp", "/mcp"])
def test_resource_metadata_for_another_resource_is_refused_before_any_authorization_server(host, resource):
    """The resource metadata names another resource (another port), a relative one, or none: refused,
    with what it named and the server's URL, and no authorization server is asked anything."""
    host.routes[RM + "/mcp"] = {"resource": resource, "authorization_servers": [host.base]}
    host.routes[AS] = host.metadata(host.base)
    error = _refusal(host)
    assert f"the protected resource metadata is for {resource!r}, not for {host.base}/mcp" in str(error)
    assert "refused before any authorization request" in str(error)
    assert host.asked == [RM + "/mcp"]


@pytest.mark.parametrize("servers", [None, "http://127.0.0.1:1", [], ["", 3, None]])
def test_resource_metadata_naming_no_usable_authorization_server_is_refused(host, servers):
    """``authorization_servers`` missing, not a list, empty, or holding no non-empty string: refused."""
    host.routes[RM + "/mcp"] = {"resource": host.base + "/mcp", "authorization_servers": servers}
    error = _refusal(host)
    assert str(error) == "srv: the protected resource metadata names no authorization server"
    assert host.asked == [RM + "/mcp"]


def test_the_first_authorization_server_that_passes_is_used_and_when_none_does_every_reason_is_said(host):
    """Two issuers: the first's metadata names another issuer, so the second is used (non-strings in
    the list are skipped). When both fail, the error holds both reasons, in order."""
    first, second = host.base + "/one", host.base + "/two"
    host.routes[RM + "/mcp"] = {"resource": host.base + "/mcp", "authorization_servers": [7, first, second]}
    host.routes[AS + "/one"] = host.metadata(host.base + "/other")
    host.routes[AS + "/two"] = host.metadata(second)
    found = _discover(host)
    assert found.server == AuthServer(second, host.metadata(second))
    del host.routes[AS + "/two"]
    error = _refusal(host)
    one, two = str(error).rsplit("; ", 1)
    assert one.startswith("srv: the authorization server metadata at") and "'" + host.base + "/other'" in one
    assert two.startswith(f"srv: no authorization server metadata for {second} (tried ")


def test_an_issuer_mismatch_names_the_url_both_issuers_and_uses_no_endpoint(host):
    """RFC 8414 §3.3: metadata naming another issuer is refused at once (OpenID's URLs are not tried
    after it), with the URL, what it named and what was expected."""
    issuer = host.base + "/as"
    host.routes[AS + "/as"] = host.metadata(host.base + "/evil")
    with AuthHTTP("srv", host.base + "/mcp", deadline=time.monotonic() + T) as http_:
        with pytest.raises(AuthorizationError) as raised:
            discover_authorization_server(http_, issuer)
    assert str(raised.value) == (
        f"srv: the authorization server metadata at {host.base}{AS}/as names the issuer "
        f"'{host.base}/evil', not '{issuer}'; none of its endpoints is used"
    )
    assert raised.value.server == "srv"
    assert host.asked == [AS + "/as"]


@pytest.mark.parametrize("endpoint", ["authorization_endpoint", "token_endpoint", "registration_endpoint"])
def test_each_endpoint_of_the_metadata_is_checked_before_it_is_used(host, endpoint):
    """An endpoint that is not a string, or one that may not be fetched (not http(s)), is refused,
    naming which endpoint; an endpoint left out is no error."""
    with AuthHTTP("srv", host.base + "/mcp", deadline=time.monotonic() + T) as http_:
        host.routes[AS] = {"issuer": host.base, endpoint: 5}
        with pytest.raises(AuthorizationError) as raised:
            discover_authorization_server(http_, host.base)
        assert str(raised.value) == f"srv: the {endpoint} in {host.base}{AS} is not a URL"
        assert raised.value.server == "srv"
        host.routes[AS] = {"issuer": host.base, endpoint: "ftp://127.0.0.1/x"}
        with pytest.raises(
            AuthorizationError, match=re.escape(f"the {endpoint.replace('_', ' ')} 'ftp://127.0.0.1/x'")
        ):
            discover_authorization_server(http_, host.base)
        host.routes[AS] = {"issuer": host.base}
        assert discover_authorization_server(http_, host.base) == AuthServer(host.base, {"issuer": host.base})


def test_no_metadata_for_an_issuer_says_every_url_tried(host):
    """Not a 2025-03-26 server and no metadata at any of the issuer's URLs: an error listing them."""
    with AuthHTTP("srv", host.base + "/mcp", deadline=time.monotonic() + T) as http_:
        with pytest.raises(AuthorizationError) as raised:
            discover_authorization_server(http_, host.base)
    assert str(raised.value) == (
        f"srv: no authorization server metadata for {host.base} (tried {host.base}{AS}, {host.base}{OIDC})"
    )
    assert raised.value.server == "srv"


def test_an_issuer_that_may_not_be_fetched_is_refused_before_any_request(host):
    """An issuer that is not an http(s) URL is refused as "authorization server" before anything is asked."""
    with AuthHTTP("srv", host.base + "/mcp", deadline=time.monotonic() + T) as http_:
        with pytest.raises(AuthorizationError, match=re.escape("the authorization server 'ftp://127.0.0.1/as'")):
            discover_authorization_server(http_, "ftp://127.0.0.1/as")
    assert host.asked == []


def test_an_endpoint_is_a_non_empty_string_and_supports_reads_a_list():
    """``AuthServer.endpoint``: a non-empty string, else ``None``; ``supports``: membership in a listed
    array only (a string holding the value is not a list of it)."""
    server = AuthServer(
        "https://as",
        {
            "token_endpoint": "https://as/token",
            "registration_endpoint": "",
            "authorization_endpoint": 3,
            "grant_types_supported": ["client_credentials"],
            "scopes_supported": "client_credentials",
        },
    )
    assert server.endpoint("token_endpoint") == "https://as/token"
    assert server.endpoint("registration_endpoint") is None
    assert server.endpoint("authorization_endpoint") is None
    assert server.endpoint("jwks_uri") is None
    assert server.supports("grant_types_supported", "client_credentials") is True
    assert server.supports("grant_types_supported", "authorization_code") is False
    assert server.supports("scopes_supported", "client_credentials") is False
    assert server.supports("response_types_supported", "code") is False


def test_scopes_supported_keeps_the_strings_of_a_list_only():
    """``Discovered.scopes_supported``: the strings of the resource metadata's list, in order; none
    for a missing list, a non-list, or a 2025-03-26 server."""
    server = AuthServer("https://as")
    assert Discovered("r", server, {"scopes_supported": ["a", 1, "b"]}).scopes_supported == ("a", "b")
    assert Discovered("r", server, {"scopes_supported": "a b"}).scopes_supported == ()
    assert Discovered("r", server, {}).scopes_supported == ()
    assert Discovered("r", server).scopes_supported == ()
