"""Which URLs authorization may fetch: no server steers the client into the user's own machine.

Every URL fetched during authorization (protected resource metadata, the
``resource_metadata`` of a ``401``, authorization server metadata,
registration, token) and the authorization endpoint the browser is sent to
come from the server's answers: they are untrusted. The rule
(``check_url``):

- a URL on the MCP server's own origin (the one the user gave) is as
  trusted as the server itself;
- any other must be ``https`` on a public host, unless the MCP server itself
  is on a loopback or private address (a server on 127.0.0.1, as in tests
  and the conformance suite, or on a home or office network): then plain
  ``http`` and loopback or private hosts are allowed too.

Without it a remote server could name ``http://127.0.0.1:PORT/admin/...``
and have the client GET it (path and query the attacker's), then post the
authorization code and its verifier there. A host is classified by what the
URL says (``is_local``; an IPv4 address in the short, decimal, octal or hex forms
the resolver also reads as one), never by resolving its name: a name that resolves
to a private address is not caught here (DNS rebinding is beyond this rule).
"""

from __future__ import annotations

import ipaddress
import socket
from typing import Optional
from urllib.parse import urlsplit

from .._core.errors import AuthorizationError

__all__ = ["check_url", "is_local", "is_loopback"]

#: The characters of an IPv4 address in any form ``inet_aton`` reads (decimal, octal, hex; 1 to 4 parts).
_INET_ATON_CHARS = frozenset("0123456789abcdefx.")
#: Host names that never leave the machine or the local network (RFC 6761, RFC 6762).
_LOCAL_SUFFIXES = (".localhost", ".local")
#: IANA's special-purpose address blocks that are not globally reachable, for those the standard
#: library's ``is_global`` still calls global on some Pythons (3.11.7's: all of 192.0.0.0/24 past its
#: /29, the deprecated 6to4 relay block, the local-use NAT64 prefix, and the newer IPv6 documentation
#: and SRv6 blocks). The whole of 192.0.0.0/24 counts: its two global /32s are relays no authorization
#: server lives on.
_NOT_GLOBAL = tuple(
    ipaddress.ip_network(block)
    for block in ("192.0.0.0/24", "192.88.99.0/24", "64:ff9b:1::/48", "3fff::/20", "5f00::/16")
)


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a URL's host, maybe in brackets) names this machine: ``localhost`` or a loopback IP."""
    host = host.strip("[]").lower().rstrip(".")
    if host == "localhost" or host.endswith(".localhost"):
        return True
    address = _address(host)
    return address is not None and address.is_loopback


def is_local(host: str) -> bool:
    """Whether ``host`` is on this machine or a private network: ``localhost``, ``*.local``, or an
    IP address that is not globally routable (loopback, private, link-local, unspecified, reserved)."""
    host = host.strip("[]").lower().rstrip(".")
    if not host or host == "localhost" or host.endswith(_LOCAL_SUFFIXES):
        return True
    address = _address(host)
    return address is not None and (not address.is_global or any(address in block for block in _NOT_GLOBAL))


def _address(host: str) -> Optional[ipaddress.IPv4Address | ipaddress.IPv6Address]:
    try:
        address = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        # The IPv4 forms the resolver reads as an address, without asking DNS, which ipaddress
        # refuses: "127.1", "2130706433", "0x7f.0.0.1", "0177.0.0.1" all reach 127.0.0.1.
        if not host or not all(c in _INET_ATON_CHARS for c in host):
            return None
        try:
            return ipaddress.IPv4Address(socket.inet_aton(host))
        except OSError:
            return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def _origin(url: str) -> tuple[str, str, Optional[int]]:
    parts = urlsplit(url)
    port = parts.port or {"http": 80, "https": 443}.get(parts.scheme.lower())
    return parts.scheme.lower(), (parts.hostname or "").lower(), port


def check_url(url: str, what: str, name: str, server_url: str) -> str:
    """``url`` if authorization for the MCP server at ``server_url`` may fetch it (see the module
    docstring); else an ``AuthorizationError`` that names the URL and the rule.

    ``what``: what the URL is (``"token endpoint"``), for the message; ``name``: the server's name.
    """
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        same = _origin(url) == _origin(server_url)
        server_host = urlsplit(server_url).hostname or ""
    except ValueError:
        raise AuthorizationError(f"{name}: the {what} {url!r} cannot be read; not fetched", server=name) from None
    if parts.scheme not in ("http", "https") or not host:
        raise AuthorizationError(f"{name}: the {what} {url!r} is not an http(s) URL; not used", server=name)
    if parts.username is not None or parts.password is not None:
        raise AuthorizationError(f"{name}: the {what} {url!r} carries a user name; not used", server=name)
    if same:
        return url
    if is_local(server_host):
        if parts.scheme == "https" or is_local(host):
            return url
        raise AuthorizationError(
            f"{name}: the {what} {url} is not HTTPS (plain http is allowed only on a loopback or private "
            "host); not used",
            server=name,
        )
    if parts.scheme != "https" or is_local(host):
        raise AuthorizationError(
            f"{name}: the {what} {url} was refused: the server {server_host} is not on a loopback or private "
            "address, so every URL of its authorization must be HTTPS on a public host (or on the server's "
            "own origin); not fetched",
            server=name,
        )
    return url
