"""Where and how to authorize for an MCP server: protected resource and authorization server metadata.

The order is the MCP specification's (2025-11-25 and 2026-07-28):

1. Protected resource metadata (RFC 9728): the URL in the ``401``'s
   ``resource_metadata``; else ``/.well-known/oauth-protected-resource/<path>``;
   else the root ``/.well-known/oauth-protected-resource``.
2. Its ``resource`` must name the server the user asked for (same origin, and
   a path that is the server's or a parent of it), or nothing is asked of
   any authorization server.
3. Authorization server metadata for the first of its
   ``authorization_servers`` that has some: RFC 8414 and OpenID discovery,
   in the order the spec gives for issuers with and without a path. Its
   ``issuer`` must equal the issuer it was fetched for, exactly (RFC 8414
   §3.3); else none of its endpoints is used.
4. Servers of 2025-03-26 have no resource metadata: the authorization
   server's metadata is at the MCP server's origin, and without any, the
   endpoints are ``/authorize``, ``/token`` and ``/register`` there.

Every URL from the server's answers is checked before it is fetched or
shown (``addresses``): HTTPS on a public host, unless the MCP server itself is
on a loopback or private address, or the URL is on the server's own origin.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any, Optional
from urllib.parse import urljoin, urlsplit, urlunsplit

from .._core.errors import AuthorizationError
from .addresses import is_loopback
from .challenge import Challenge
from .http import AuthHTTP

__all__ = [
    "AuthServer",
    "Discovered",
    "authorization_server_metadata_urls",
    "canonical_resource",
    "check_endpoint",
    "discover",
    "discover_authorization_server",
    "is_loopback",
    "resource_covers",
    "resource_metadata_urls",
]

logger = logging.getLogger("mcpsync.auth")

_ENDPOINTS = ("authorization_endpoint", "token_endpoint", "registration_endpoint")


@dataclass(frozen=True)
class AuthServer:
    """An authorization server: its issuer and its metadata (validated)."""

    issuer: str
    metadata: dict[str, Any] = field(default_factory=dict)
    #: Whether the metadata was made up from the 2025-03-26 default endpoints (none was published).
    assumed: bool = False

    def endpoint(self, name: str) -> Optional[str]:
        value = self.metadata.get(name)
        return value if isinstance(value, str) and value else None

    def supports(self, field_name: str, value: str) -> bool:
        listed = self.metadata.get(field_name)
        return isinstance(listed, list) and value in listed


@dataclass(frozen=True)
class Discovered:
    """What discovery found for one MCP server."""

    #: The ``resource`` to ask tokens for (RFC 8707), exactly as the resource metadata wrote it.
    resource: str
    server: AuthServer
    #: The protected resource metadata, ``None`` for a 2025-03-26 server.
    resource_metadata: Optional[dict[str, Any]] = None

    @property
    def scopes_supported(self) -> tuple[str, ...]:
        listed = (self.resource_metadata or {}).get("scopes_supported")
        return tuple(s for s in listed if isinstance(s, str)) if isinstance(listed, list) else ()


def check_endpoint(url: str, what: str, server: str) -> str:
    """``url`` if it may be used for ``what``: HTTPS, or HTTP on a loopback host; else an error.

    For URLs the user configured (an identity provider's); what a server's answers name goes through
    ``AuthHTTP.check`` (``addresses.check_url``), which also looks at the MCP server's host."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
    except ValueError:
        raise AuthorizationError(f"{server}: the {what} {url!r} cannot be read", server=server) from None
    if parts.scheme == "https" and host:
        return url
    if parts.scheme == "http" and is_loopback(host):
        return url
    raise AuthorizationError(
        f"{server}: the {what} {url!r} is not HTTPS (allowed only on a loopback host); not used", server=server
    )


def canonical_resource(server_url: str) -> str:
    """The server's URL as a resource indicator (RFC 8707): lower-case scheme and host, no fragment or
    query; the path as given (no slash added or taken away but a lone ``/``)."""
    parts = urlsplit(server_url)
    netloc = (parts.hostname or "").lower()
    if ":" in netloc:
        netloc = f"[{netloc}]"
    if parts.port is not None:
        netloc += f":{parts.port}"
    path = "" if parts.path == "/" else parts.path
    return urlunsplit((parts.scheme.lower(), netloc, path, "", ""))


def resource_covers(resource: str, server_url: str) -> bool:
    """Whether a resource metadata's ``resource`` names the server at ``server_url``: the same origin,
    and a path that is the server's or one of its parents (``/`` covers ``/mcp``; ``/mc`` does not)."""
    try:
        ours, theirs = urlsplit(canonical_resource(server_url)), urlsplit(canonical_resource(resource))
    except ValueError:
        return False
    if (ours.scheme, ours.netloc) != (theirs.scheme, theirs.netloc):
        return False
    want, have = ours.path.rstrip("/"), theirs.path.rstrip("/")
    return want == have or want.startswith(have + "/")


def resource_metadata_urls(server_url: str, header_url: Optional[str]) -> list[str]:
    """Where to look for the protected resource metadata, in order."""
    parts = urlsplit(server_url)
    root = urlunsplit((parts.scheme, parts.netloc, "/.well-known/oauth-protected-resource", "", ""))
    urls = [header_url] if header_url else []
    path = parts.path.rstrip("/")
    if path:
        urls.append(root + path)
    urls.append(root)
    return list(dict.fromkeys(urls))


def authorization_server_metadata_urls(issuer: str) -> list[str]:
    """Where to look for an authorization server's metadata, in the spec's order."""
    parts = urlsplit(issuer)
    path = parts.path.rstrip("/")

    def at(p: str) -> str:
        return urlunsplit((parts.scheme, parts.netloc, p, "", ""))

    if path:
        return [
            at(f"/.well-known/oauth-authorization-server{path}"),
            at(f"/.well-known/openid-configuration{path}"),
            at(f"{path}/.well-known/openid-configuration"),
        ]
    return [at("/.well-known/oauth-authorization-server"), at("/.well-known/openid-configuration")]


def discover(http: AuthHTTP, server_url: str, challenge: Optional[Challenge]) -> Discovered:
    """Find how to authorize for the MCP server at ``server_url`` (see the module docstring).

    Raises:
        AuthorizationError: a refusal (the resource or the issuer does not match, an endpoint is
            not HTTPS), or no authorization server could be found.
    """
    name = http.name
    header_url = challenge.get("resource_metadata") if challenge is not None else None
    if header_url:
        header_url = urljoin(server_url, header_url)
    metadata = None
    for url in resource_metadata_urls(server_url, header_url):
        # The header's URL first: refused (not skipped) when it points where the server may not send us.
        answer = http.get(http.check(url, "resource metadata URL"))
        if answer.ok:
            metadata = answer.data
            logger.debug("server %r: protected resource metadata from %s", name, url)
            break
    if metadata is None:
        # A 2025-03-26 server: its own origin is the authorization server.
        parts = urlsplit(server_url)
        origin = urlunsplit((parts.scheme, parts.netloc, "", "", ""))
        logger.info("server %r: no protected resource metadata; trying %s as its authorization server", name, origin)
        server = discover_authorization_server(http, origin, legacy=True)
        return Discovered(canonical_resource(server_url), server)
    assert metadata is not None
    resource = metadata.get("resource")
    if not isinstance(resource, str) or not resource_covers(resource, server_url):
        raise AuthorizationError(
            f"{name}: the protected resource metadata is for {resource!r}, not for {server_url}; "
            "refused before any authorization request",
            server=name,
        )
    servers = metadata.get("authorization_servers")
    issuers = [s for s in servers if isinstance(s, str) and s] if isinstance(servers, list) else []
    if not issuers:
        raise AuthorizationError(f"{name}: the protected resource metadata names no authorization server", server=name)
    failures: list[str] = []
    for issuer in issuers:
        try:
            return Discovered(resource, discover_authorization_server(http, issuer), metadata)
        except AuthorizationError as exc:
            failures.append(str(exc))
    raise AuthorizationError("; ".join(failures), server=name)


def discover_authorization_server(http: AuthHTTP, issuer: str, *, legacy: bool = False) -> AuthServer:
    """The metadata of the authorization server ``issuer``, validated (see the module docstring).

    ``legacy``: for a 2025-03-26 server at ``issuer``; without any metadata, its default endpoints.
    """
    name = http.name
    http.check(issuer, "authorization server")
    urls = authorization_server_metadata_urls(issuer)
    for url in urls[:1] if legacy else urls:
        answer = http.get(url)
        if not answer.ok:
            continue
        metadata = answer.data
        assert metadata is not None
        if metadata.get("issuer") != issuer:
            raise AuthorizationError(
                f"{name}: the authorization server metadata at {url} names the issuer "
                f"{metadata.get('issuer')!r}, not {issuer!r}; none of its endpoints is used",
                server=name,
            )
        for endpoint in _ENDPOINTS:
            value = metadata.get(endpoint)
            if value is not None:
                if not isinstance(value, str):
                    raise AuthorizationError(f"{name}: the {endpoint} in {url} is not a URL", server=name)
                http.check(value, endpoint.replace("_", " "))
        return AuthServer(issuer, metadata)
    if legacy:
        base = issuer.rstrip("/")
        return AuthServer(
            issuer,
            {
                "issuer": issuer,
                "authorization_endpoint": base + "/authorize",
                "token_endpoint": base + "/token",
                "registration_endpoint": base + "/register",
                "code_challenge_methods_supported": ["S256"],
            },
            assumed=True,
        )
    raise AuthorizationError(
        f"{name}: no authorization server metadata for {issuer} (tried {', '.join(urls)})", server=name
    )
