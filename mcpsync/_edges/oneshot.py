"""One JSON-RPC request over HTTP, with no session and no handshake.

For quick calls to servers that allow it (stateless Streamable HTTP servers,
search APIs that speak MCP): ``call_mcp(url, "tools/call", {...})`` POSTs one
request and returns the raw JSON-RPC envelope of its answer, whether the
server answered with JSON or with an event stream. For anything more, use
``mcpsync.connect``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Optional

from .._core import eras, jsonrpc
from .._core.endpoint import DEFAULT_MAX_MESSAGE_SIZE
from .._core.errors import ConfigurationError, InvalidMessage, MessageTooLarge, NoResponseError
from .._core.sse import parse_sse_text
from .._core.text import shorten
from .._core.timeouts import deadline
from .._version import __version__

__all__ = ["call_mcp", "parse_sse"]


def parse_sse(text: str, request_id: Any = None) -> Any:
    """Find the JSON-RPC answer in a response body: an SSE stream, or plain JSON.

    With ``request_id``, the event answering that request is returned; without
    it, the first event with data. A body that is not an event stream is
    parsed as JSON.

    Raises:
        InvalidMessage: the body (or the chosen event) is not JSON.
        NoResponseError: a stream without the answer to ``request_id``.
    """
    events = [event for event in parse_sse_text(text) if event.data]
    if not events and not text.lstrip().startswith(("data:", "event:", "id:", ":", "retry:")):
        try:
            return jsonrpc.decode(text)
        except ValueError as exc:
            raise InvalidMessage(f"not JSON and not an event stream ({exc})", shorten(text)) from exc
    for event in events:
        try:
            message = jsonrpc.decode(event.data)
        except ValueError as exc:
            raise InvalidMessage(f"an event is not JSON ({exc})", shorten(event.data)) from exc
        if request_id is None or (isinstance(message, dict) and message.get("id") == request_id):
            return message
    raise NoResponseError(request_id)


def _for_version(
    version: Optional[str], method: str, params: Optional[dict[str, Any]], headers: Optional[Mapping[str, str]]
) -> tuple[Optional[dict[str, Any]], Optional[Mapping[str, str]]]:
    """The params and headers of a request sent under ``version`` (both as given for ``None``)."""
    if version is None:
        return params, headers
    if version in eras.MODERN_VERSIONS:
        meta = eras.request_meta(version, {}, {"name": "mcpsync", "version": __version__})
        params = eras.with_meta(params, meta)
        return params, {**(headers or {}), **eras.http_headers(version, method, params)}
    if version in eras.LEGACY_VERSIONS:
        return params, {**(headers or {}), "MCP-Protocol-Version": version}
    known = ", ".join(eras.MODERN_VERSIONS + eras.LEGACY_VERSIONS)
    raise ConfigurationError(f"call_mcp: protocol_version={version!r} is not one mcpsync speaks ({known})")


def call_mcp(
    url: str,
    method: str,
    params: Optional[dict[str, Any]] = None,
    *,
    headers: Optional[Mapping[str, str]] = None,
    auth: object = None,
    timeout: Optional[float] = 30.0,
    request_id: int = 1,
    session: Any = None,
    max_message_size: Optional[int] = DEFAULT_MAX_MESSAGE_SIZE,
    protocol_version: Optional[str] = None,
) -> dict[str, Any]:
    """POST one request and return the raw JSON-RPC envelope of the answer.

    The envelope may hold ``result`` or ``error``: nothing is raised for a
    JSON-RPC error (this is the raw layer); HTTP failures do raise.

    Without ``protocol_version`` the request goes as it is given. With a modern version
    (``"2026-07-28"``) it goes as that era wants a request with no handshake: its ``_meta`` says
    the version, mcpsync's identity and no capabilities, and the ``MCP-Protocol-Version``,
    ``Mcp-Method`` and (for a named tool, prompt or resource) ``Mcp-Name`` headers go with it. With
    a handshake-era version only the ``MCP-Protocol-Version`` header is added (a stateless server's
    way; one that keeps sessions wants a handshake first: use ``mcpsync.connect``).

    Args:
        url: the MCP endpoint.
        method, params: the request.
        headers: extra headers (e.g. ``Authorization``).
        auth: any ``requests`` auth object.
        timeout: seconds for the whole exchange, connecting to the end of the answer (``None``: no limit).
        request_id: the JSON-RPC id to use.
        session: a ``requests.Session`` to use (else a fresh one, closed after).
        max_message_size: bytes the answer may have, decompressed (``None``: no limit).
        protocol_version: the protocol version to send the request under (``None``: as it is).

    Raises:
        ConfigurationError: ``protocol_version`` is not one mcpsync speaks.
        HTTPStatusError: a non-2xx answer (with an excerpt of the body and the auth hints).
        ConnectError, TransportError: the server could not be reached.
        WriteTimeout: the answer did not arrive within ``timeout``.
        MessageTooLarge: the answer is over ``max_message_size``.
        InvalidMessage, NoResponseError: the answer is not a JSON-RPC envelope for this request.
    """
    from .._threads.signals import DEFERRED, deferred_interrupts
    from .._wire.http.auth import as_authorizer
    from .._wire.http.client import ACCEPT, JSON, HTTPClient, released_after

    params, headers = _for_version(protocol_version, method, params, headers)
    seconds = math.inf if timeout is None else timeout
    authorizer = None if auth is False else as_authorizer(auth)
    http = HTTPClient(
        url,
        url,
        headers=headers,
        auth=None if authorizer is None else authorizer.for_server(url, url, session=session),
        session=session,
        max_connections=1,
        connect_timeout=seconds,
        read_timeout=seconds,
    )
    body = jsonrpc.encode(jsonrpc.request(request_id, method, params))
    end = deadline(timeout)

    def exchange() -> jsonrpc.Data:
        with http.exchange(end) as exchange, deferred_interrupts(lambda: exchange.cut("interrupted")):
            response = exchange.send("POST", url, {"Accept": ACCEPT, "Content-Type": JSON}, body)
            with released_after(response):
                if not response.ok:
                    raise exchange.status_error(response, "/mcp")
                data = bytearray()
                for chunk in exchange.chunks(response):
                    data += chunk
                    if max_message_size is not None and len(data) > max_message_size:
                        raise MessageTooLarge(f"{url}: the answer to {method}", None, max_message_size)
                return bytes(data)

    try:
        data = exchange() if http.can_cut else http.run_bounded(exchange, end)  # a session of yours cannot be cut
    finally:
        with DEFERRED:  # the pools' locks: not to be left held
            http.close()  # our session's pooled connections too; a session of yours stays open
    text = data.decode("utf-8", "replace")
    envelope = parse_sse(text, request_id)
    if not isinstance(envelope, dict):
        raise InvalidMessage("the answer is not a JSON object", shorten(text))
    return envelope
