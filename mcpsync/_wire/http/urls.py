"""URLs as the HTTP wire compares and shows them: their origin, whether two share it, and a URL fit for logs.

Redirects are followed only within one origin (``same_origin``), and the
authorization layer checks its endpoints with ``origin`` too; ``public_url``
is what an error or a log shows of a URL (no user, password or query).
"""

from __future__ import annotations

from typing import Optional
from urllib.parse import urlsplit, urlunsplit

import urllib3

__all__ = ["origin", "public_url", "same_origin"]

_DEFAULT_PORTS = {"http": 80, "https": 443}


def origin(url: str) -> tuple[str, str, Optional[int]]:
    """Scheme, host and port as browsers compare them (case-insensitive host, default ports filled in).

    Only for a URL that every reader sees the same: one with a backslash,
    white space or a control character is refused, and so is one that the
    standard library and urllib3 (which connects) read differently.
    ``http://127.0.0.2:9\\@127.0.0.1:80/`` is such a URL: ``urlsplit`` sees
    127.0.0.1, urllib3 connects to 127.0.0.2.

    Raises:
        ValueError: the URL is refused, or cannot be read.
    """
    if "\\" in url or any(ord(ch) <= 0x20 or ord(ch) == 0x7F for ch in url):
        raise ValueError("it holds a backslash, white space or a control character")
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    ours = (scheme, (parts.hostname or "").lower(), parts.port or _DEFAULT_PORTS.get(scheme))
    theirs = urllib3.util.parse_url(url)
    host = (theirs.host or "").lower().strip("[]")
    if (str(theirs.scheme).lower(), host, theirs.port or _DEFAULT_PORTS.get(scheme)) != ours:
        raise ValueError("the HTTP library reads its host differently")
    return ours


def public_url(url: str) -> str:
    """The URL without user, password or query: logs and notebooks get shared, and tokens hide there."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        return "(unreadable URL)"
    host = f"[{host}]" if ":" in host else host
    return urlunsplit((parts.scheme, host + port, parts.path, "..." if parts.query else "", ""))


def same_origin(url: str, other: str) -> bool:
    """Whether two URLs share scheme, host and port; a URL ``origin`` refuses shares nothing."""
    try:
        return origin(url) == origin(other)
    except ValueError:
        return False
