"""What a failed HTTP exchange means: ``requests`` and urllib3 exceptions, and non-2xx answers, as mcpsync's errors.

``translate`` is the one place that decides what an exception of the HTTP
stack is for us (``ConnectError`` when nothing was sent, ``TransportError``
when the request may have reached the server, ``WriteTimeout`` past the
deadline); ``reason`` says what went wrong in a few words; ``status_error``
makes the ``HTTPStatusError`` of an answer, with the hints a user needs.
"""

from __future__ import annotations

import logging
import socket
import ssl
import time
from collections.abc import Iterator
from typing import Any, Optional
from urllib.parse import urlsplit

import requests
import urllib3

from ..._core.errors import ConnectError, HTTPStatusError, TransportError, WriteTimeout
from ..._core.text import excerpt
from .urls import public_url

__all__ = [
    "BODY_EXCERPT",
    "MCP_AUTH_SERVER",
    "USUAL_ENDPOINTS",
    "WWW_AUTHENTICATE",
    "past_deadline",
    "reason",
    "short_chain",
    "status_error",
    "translate",
]

logger = logging.getLogger("mcpsync.transport")

WWW_AUTHENTICATE = "WWW-Authenticate"
MCP_AUTH_SERVER = "Mcp-Auth-Server"
#: Characters of an error body kept in ``HTTPStatusError`` (and bytes read of it, decompressed).
BODY_EXCERPT = 2048
#: The paths MCP endpoints usually have: Streamable HTTP's, HTTP+SSE's event stream.
USUAL_ENDPOINTS = ("/mcp", "/sse")


def past_deadline(name: str) -> WriteTimeout:
    """The error of an exchange of the server ``name`` whose deadline passed."""
    return WriteTimeout(f"{name}: no answer within the time given to it")


def translate(exc: BaseException, method: str, url: str, name: str, deadline: float, read_timeout: float) -> Exception:
    """What a ``requests`` or urllib3 exception of ``method`` (``"reading"``: a body) to ``url`` means
    for us, in an exchange of the server ``name`` that ends by ``deadline``; the only place that decides it."""
    if isinstance(exc, WriteTimeout):  # from timeouts(): the deadline passed between two steps
        return exc
    if isinstance(exc, (requests.exceptions.ConnectTimeout, urllib3.exceptions.ConnectTimeoutError)) and not (
        isinstance(exc, urllib3.exceptions.NewConnectionError)
    ):
        if time.monotonic() >= deadline:
            return past_deadline(name)
        return ConnectError(f"{_who(name, url)}could not connect to {url} in time")
    if method != "reading" and _never_connected(exc):
        return ConnectError(f"{_who(name, url)}cannot connect to {url}: {reason(exc)}")
    if isinstance(exc, (requests.exceptions.ReadTimeout, urllib3.exceptions.ReadTimeoutError)):
        if time.monotonic() >= deadline:
            return past_deadline(name)
        return TransportError(f"{name}: {url} sent nothing for {read_timeout:g}s")
    if isinstance(exc, (requests.exceptions.RequestException, urllib3.exceptions.HTTPError, OSError)):
        if method == "reading":
            return TransportError(f"{name}: reading the answer failed: {reason(exc)}")
        # The request may well have reached the server: say so, lest a caller retry a tool blindly.
        return TransportError(
            f"{name}: the connection to {url} broke before the answer ({reason(exc)}); "
            "the server may have received the request"
        )
    if isinstance(exc, Exception):
        logger.exception("server %r: unexpected failure of %s %s", name, method, url)
        return TransportError(f"{name}: {method} {url} failed unexpectedly: {exc!r}")
    raise exc  # KeyboardInterrupt and the like: not ours to translate


def status_error(response: requests.Response, body: bytes, endpoint: Optional[str] = None) -> HTTPStatusError:
    """The error for a non-2xx answer: status, request, a hint, a short excerpt of ``body`` (the first
    ``BODY_EXCERPT`` bytes or more of it, decompressed), the auth hints.

    The text reads
    ``HTTP <status> from <method> <url>: <excerpt> [WWW-Authenticate: ...; Mcp-Auth-Server: ...]``,
    the URL without user, password or query, the excerpt on one line (an HTML page's tags left
    out) and short; ``body`` keeps more of it. ``endpoint``: the path the transport's endpoint
    usually has (``"/mcp"``): a 404 or 405 at a path that is none of ``USUAL_ENDPOINTS`` asks
    whether it is the one.
    """
    text = body[:BODY_EXCERPT].decode(response.encoding or "utf-8", "replace").strip()
    method = str(response.request.method or "") if response.request is not None else ""
    url = public_url(str(response.url or ""))
    shown = excerpt(text if len(body) < BODY_EXCERPT else text + "...") or response.reason or ""
    message = f"HTTP {response.status_code} from {method} {url}"
    path = urlsplit(url).path.rstrip("/")
    # At the other transport's usual path, the session layer tells which type to use instead.
    if endpoint is not None and response.status_code in (404, 405) and not path.endswith(USUAL_ENDPOINTS):
        message += f" (is the endpoint {endpoint}?)"
    if shown:
        message += f": {shown}"
    hints = [
        f"{name}: {response.headers[name]}" for name in (WWW_AUTHENTICATE, MCP_AUTH_SERVER) if name in response.headers
    ]
    if hints:
        message += " [" + "; ".join(hints) + "]"
    return HTTPStatusError(
        message,
        status_code=response.status_code,
        body=text,
        www_authenticate=response.headers.get(WWW_AUTHENTICATE),
        auth_server=response.headers.get(MCP_AUTH_SERVER),
        method=method,
        url=url,
    )


def _chain(exc: BaseException) -> Iterator[BaseException]:
    """``exc`` and every exception it wraps (urllib3's ``reason``, causes, contexts, arguments), once each."""
    seen: list[BaseException] = []
    stack: list[Any] = [exc]
    while stack:
        item = stack.pop(0)
        if not isinstance(item, BaseException) or any(item is s for s in seen):
            continue
        seen.append(item)
        yield item
        stack.extend([getattr(item, "reason", None), item.__cause__, item.__context__, *item.args])


def _never_connected(exc: BaseException) -> bool:
    """Whether a connection error happened before any byte could be sent (a failed TLS handshake too)."""
    return any(isinstance(item, _NEVER_CONNECTED) for item in _chain(exc))


_NEVER_CONNECTED = (
    urllib3.exceptions.NewConnectionError,
    urllib3.exceptions.NameResolutionError,
    ConnectionRefusedError,
    socket.gaierror,
    urllib3.exceptions.SSLError,  # a failed TLS handshake: urllib3 wraps it so while connecting
)


def reason(exc: BaseException) -> str:
    """What went wrong, in a few words: ``connection refused``, ``the host name ... does not resolve``,
    ``TLS failed: ...``, ``connection reset``; else the innermost useful text of the exception chain
    (never urllib3's pool and retry wrappers when something shorter says it)."""
    for item in _chain(exc):
        if isinstance(item, ConnectionRefusedError):
            return "connection refused"
        if isinstance(item, urllib3.exceptions.NameResolutionError) or isinstance(item, socket.gaierror):
            host = getattr(getattr(item, "conn", None), "host", None)
            return f"the host name {host} does not resolve" if host else "the host name does not resolve"
        if isinstance(item, ssl.SSLError) and not isinstance(item, urllib3.exceptions.SSLError):
            detail = getattr(item, "verify_message", None) or getattr(item, "reason", None) or str(item)
            return f"TLS failed: {str(detail).lower().replace('_', ' ')}"
        if isinstance(item, ConnectionResetError):
            return "connection reset by the server"
        if isinstance(item, (ConnectionAbortedError, BrokenPipeError)):
            return "connection closed by the server"
    text = str(exc)
    inner = exc.__context__ or exc.__cause__
    while inner is not None and not str(inner):
        inner = inner.__context__ or inner.__cause__
    return text or (str(inner) if inner is not None else type(exc).__name__)


def short_chain(exc: BaseException) -> BaseException:
    """``exc``, kept whole as the ``__cause__`` of our error, but printed without urllib3's chain of
    wrappers behind it (pool, retries, connection, socket: four exceptions and 90 lines of traceback
    for a refused connection); ``exc.__context__`` still holds them for whoever wants them."""
    exc.__suppress_context__ = True
    return exc


def _who(name: str, url: str) -> str:
    """``"name: "`` before an error's text, unless the URL says it already (a bare URL's host)."""
    return "" if name in url else f"{name}: "
