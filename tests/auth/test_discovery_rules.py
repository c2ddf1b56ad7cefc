"""The pure rules of authorization: challenges, discovery URLs, resource and endpoint checks, token records."""

from __future__ import annotations

import time

import pytest

from mcpsync import AuthorizationError
from mcpsync._auth.challenge import Challenge, bearer_challenge, parse_www_authenticate
from mcpsync._auth.discovery import (
    authorization_server_metadata_urls,
    canonical_resource,
    check_endpoint,
    resource_covers,
    resource_metadata_urls,
)
from mcpsync._auth.tokens import choose_auth_method, expires_soon


def test_a_bearer_challenge_gives_its_parameters():
    header = 'Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource", scope="files:read files:write"'
    challenge = bearer_challenge(header)
    assert challenge is not None and challenge.scheme == "bearer"
    assert challenge.get("resource_metadata") == "https://mcp.example.com/.well-known/oauth-protected-resource"
    assert challenge.scopes == ("files:read", "files:write")


def test_several_challenges_in_one_header_and_dpop_is_preferred():
    header = 'Basic realm="x", Bearer error="insufficient_scope", scope="w", DPoP algs="ES256", error="use_dpop_nonce"'
    schemes = [c.scheme for c in parse_www_authenticate(header)]
    assert schemes == ["basic", "bearer", "dpop"]
    chosen = bearer_challenge(header)
    assert chosen is not None and chosen.scheme == "dpop" and chosen.get("error") == "use_dpop_nonce"


def test_quoted_strings_unescape_and_names_ignore_case():
    challenge = bearer_challenge('Bearer Scope="a \\"b\\"", ERROR=invalid_token')
    assert challenge is not None
    assert challenge.get("scope") == 'a "b"' and challenge.get("error") == "invalid_token"


@pytest.mark.parametrize("header", ["", "Bearer", 'Bearer scope="unclosed', "garbage ===", ",,,", "Negotiate abc=="])
def test_unreadable_or_bare_headers_never_raise(header):
    parse_www_authenticate(header)
    challenge = bearer_challenge(header)
    assert challenge is None or challenge.scheme == "bearer"


def test_a_token68_value_is_kept_and_a_parameter_challenge_has_none():
    """A bare value (token68, RFC 9110 §11.6.1) is kept as such, also when a challenge follows it;
    a challenge with parameters, or with nothing after its scheme, has no token68."""
    assert parse_www_authenticate("Negotiate abc123==") == [Challenge("negotiate", {}, "abc123==")]
    assert parse_www_authenticate("Negotiate abc== , Bearer realm=a") == [
        Challenge("negotiate", {}, "abc=="),
        Challenge("bearer", {"realm": "a"}, None),
    ]
    assert parse_www_authenticate("Bearer") == [Challenge("bearer", {}, None)]
    assert parse_www_authenticate("Basic def456, Bearer") == [
        Challenge("basic", {}, "def456"),
        Challenge("bearer", {}, None),
    ]


def test_what_cannot_be_read_is_skipped_up_to_the_next_comma_only():
    """An unreadable piece (no scheme, a parameter without a value) is skipped to the next comma,
    not further: every challenge and parameter after it is still read, also with no space after a comma."""
    assert parse_www_authenticate("==junk,Basic realm=a, Bearer realm=b") == [
        Challenge("basic", {"realm": "a"}),
        Challenge("bearer", {"realm": "b"}),
    ]
    assert parse_www_authenticate("=junk ,Bearer realm=a") == [Challenge("bearer", {"realm": "a"})]
    assert parse_www_authenticate("Bearer realm=x, error=, scope=a,error=e") == [
        Challenge("bearer", {"realm": "x", "scope": "a", "error": "e"})
    ]


def test_a_header_ending_early_never_raises_and_keeps_what_was_read():
    """A header that ends after a scheme, after ``name=``, or inside a quoted string (a lone
    backslash last, or an escaped last quote) gives the challenges read so far, never an error."""
    assert parse_www_authenticate("Bearer realm=a, Basic") == [Challenge("bearer", {"realm": "a"}), Challenge("basic")]
    assert parse_www_authenticate("Bearer realm=") == [Challenge("bearer")]
    assert parse_www_authenticate('Bearer scope=s, realm="ab\\') == [Challenge("bearer", {"scope": "s"})]
    assert parse_www_authenticate('Bearer scope=s, realm="ab\\"') == [Challenge("bearer", {"scope": "s"})]


def test_schemes_names_and_values_are_read_whole_whatever_their_first_letter():
    """Schemes, parameter names and values are read from their first character on (one starting with
    ``X`` included): nothing before them is skipped but white space and commas."""
    assert parse_www_authenticate("X-Custom Xname=Xvalue, Bearer error=Xe") == [
        Challenge("x-custom", {"xname": "Xvalue"}),
        Challenge("bearer", {"error": "Xe"}),
    ]


def test_resource_metadata_is_looked_for_in_the_specs_order():
    assert resource_metadata_urls("https://example.com/public/mcp", None) == [
        "https://example.com/.well-known/oauth-protected-resource/public/mcp",
        "https://example.com/.well-known/oauth-protected-resource",
    ]
    assert resource_metadata_urls("https://example.com/mcp", "https://example.com/prm") == [
        "https://example.com/prm",
        "https://example.com/.well-known/oauth-protected-resource/mcp",
        "https://example.com/.well-known/oauth-protected-resource",
    ]
    assert resource_metadata_urls("https://example.com", None) == [
        "https://example.com/.well-known/oauth-protected-resource"
    ]


def test_authorization_server_metadata_is_looked_for_in_the_specs_order():
    assert authorization_server_metadata_urls("https://auth.example.com/tenant1") == [
        "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
        "https://auth.example.com/.well-known/openid-configuration/tenant1",
        "https://auth.example.com/tenant1/.well-known/openid-configuration",
    ]
    assert authorization_server_metadata_urls("https://auth.example.com") == [
        "https://auth.example.com/.well-known/oauth-authorization-server",
        "https://auth.example.com/.well-known/openid-configuration",
    ]


@pytest.mark.parametrize(
    "resource, server, covers",
    [
        ("https://mcp.example.com/mcp", "https://mcp.example.com/mcp", True),
        ("https://mcp.example.com", "https://mcp.example.com/mcp", True),
        ("https://MCP.example.com/", "https://mcp.example.com/mcp", True),
        ("https://mcp.example.com/mcp", "https://mcp.example.com/mcp/", True),
        ("https://mcp.example.com/mc", "https://mcp.example.com/mcp", False),
        ("https://mcp.example.com/other", "https://mcp.example.com/mcp", False),
        ("https://evil.example.com/mcp", "https://mcp.example.com/mcp", False),
        ("http://mcp.example.com/mcp", "https://mcp.example.com/mcp", False),
        ("https://mcp.example.com:8443/mcp", "https://mcp.example.com/mcp", False),
        ("https://mcp.example.com/mcp/", "https://mcp.example.com/mcp", True),
        ("https://mcp.example.com/mcp", "https://mcp.example.com/mcpX", False),
        ("https://mcp.example.com/mcpX", "https://mcp.example.com/mcp", False),
        ("http://[::1", "https://mcp.example.com/mcp", False),
    ],
)
def test_a_resource_covers_its_server_and_its_subpaths_only(resource, server, covers):
    assert resource_covers(resource, server) is covers


def test_the_canonical_resource_drops_what_is_not_the_server():
    assert (
        canonical_resource("HTTPS://MCP.Example.com:8443/Server/MCP?x=1#f") == "https://mcp.example.com:8443/Server/MCP"
    )
    assert canonical_resource("https://mcp.example.com/") == "https://mcp.example.com"


def test_an_ipv6_server_keeps_its_brackets_as_a_resource():
    """The canonical resource of a server on an IPv6 host keeps the host's brackets and port."""
    assert canonical_resource("http://[::1]:8080/mcp") == "http://[::1]:8080/mcp"


def test_only_a_trailing_slash_is_dropped_from_where_metadata_is_looked_for():
    """A server URL or issuer written with a trailing slash gives the same metadata URLs as without;
    the rest of the path is kept whole, whatever its last letter."""
    assert resource_metadata_urls("https://example.com/mcp/", None) == resource_metadata_urls(
        "https://example.com/mcp", None
    )
    assert authorization_server_metadata_urls("https://auth.example.com/tenant1/") == (
        authorization_server_metadata_urls("https://auth.example.com/tenant1")
    )
    assert resource_metadata_urls("https://example.com/mcpX", None)[0] == (
        "https://example.com/.well-known/oauth-protected-resource/mcpX"
    )
    assert authorization_server_metadata_urls("https://auth.example.com/tenantX")[0] == (
        "https://auth.example.com/.well-known/oauth-authorization-server/tenantX"
    )


@pytest.mark.parametrize(
    "url, why", [("http://[::1/token", "cannot be read"), ("http://auth.example.com/token", "is not HTTPS")]
)
def test_a_refused_endpoint_names_its_server_and_the_url(url, why):
    """Refusing an endpoint, the error says which server, which endpoint and URL, and why."""
    with pytest.raises(AuthorizationError) as caught:
        check_endpoint(url, "token endpoint", "srv")
    assert caught.value.server == "srv"
    assert str(caught.value) == f"srv: the token endpoint {url!r} {why}" + (
        " (allowed only on a loopback host); not used" if why == "is not HTTPS" else ""
    )


@pytest.mark.parametrize(
    "url", ["https://auth.example.com/token", "http://127.0.0.1:9/token", "http://localhost/t", "http://[::1]:80/t"]
)
def test_https_or_loopback_endpoints_are_accepted(url):
    assert check_endpoint(url, "token endpoint", "s") == url


@pytest.mark.parametrize(
    "url", ["http://auth.example.com/token", "ftp://127.0.0.1/token", "https:///token", "javascript:alert(1)"]
)
def test_other_endpoints_are_refused(url):
    with pytest.raises(AuthorizationError, match="not HTTPS"):
        check_endpoint(url, "token endpoint", "s")


def test_the_token_endpoint_auth_method_follows_the_server_and_what_the_client_holds():
    both = ["client_secret_basic", "client_secret_post", "none", "private_key_jwt"]
    assert choose_auth_method(both, secret=True, key=False) == "client_secret_basic"
    assert choose_auth_method(["client_secret_post"], secret=True, key=False) == "client_secret_post"
    assert choose_auth_method(None, secret=True, key=False) == "client_secret_basic"  # RFC 8414's default
    assert choose_auth_method(both, secret=False, key=False) == "none"
    assert choose_auth_method(both, secret=False, key=True) == "private_key_jwt"
    with pytest.raises(AuthorizationError, match="private_key_jwt"):
        choose_auth_method(["client_secret_basic"], secret=False, key=True)


def test_a_token_is_refreshed_near_its_expiry_and_a_short_one_at_half_its_life():
    now = time.time()
    assert not expires_soon({"expires_at": now + 3600, "obtained_at": now})
    assert expires_soon({"expires_at": now + 30, "obtained_at": now - 3570})
    assert not expires_soon({"expires_at": now + 20, "obtained_at": now - 5})  # 25 s life: at half of it
    assert expires_soon({"expires_at": now + 10, "obtained_at": now - 15})
    assert not expires_soon({"expires_at": None})


def test_a_token_without_its_obtained_time_is_refreshed_a_full_leeway_before_expiry():
    """A stored token with no (or an unreadable) ``obtained_at`` is refreshed ``REFRESH_LEEWAY``
    (60 s) before it expires, never raising: 50 s before is soon, an hour before is not."""
    now = time.time()
    assert not expires_soon({"expires_at": now + 3600})
    assert expires_soon({"expires_at": now + 50})
    assert expires_soon({"expires_at": now + 50, "obtained_at": "yesterday"})


def test_a_client_with_a_secret_falls_back_to_client_secret_basic():
    """A client holding a secret uses ``client_secret_basic`` when the server lists neither secret
    method (only ``private_key_jwt``, or nothing it can read)."""
    assert choose_auth_method(["private_key_jwt"], secret=True, key=False) == "client_secret_basic"
    assert choose_auth_method("not a list", secret=True, key=False) == "client_secret_basic"
    assert choose_auth_method(["client_secret_post"], secret=True, key=False) == "client_secret_post"
