"""One JSON-RPC request over HTTP, with no session and no handshake.

For quick calls to servers that allow it (stateless Streamable HTTP servers,
search APIs that speak MCP): ``call_mcp(url, "tools/call", {...})`` POSTs one
request and returns the raw JSON-RPC envelope of its answer, whether the
server answered with JSON or with an event stream. For anything more, use
``mcpsync.connect``.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from typing import Any, Optional

from . import messages
from .errors import InvalidMessage, NoResponseError
from .sse import parse_sse_text

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
            return messages.decode(text)
        except ValueError as exc:
            raise InvalidMessage(f"not JSON and not an event stream ({exc})", messages.shorten(text)) from exc
    for event in events:
        try:
            message = messages.decode(event.data)
        except ValueError as exc:
            raise InvalidMessage(f"an event is not JSON ({exc})", messages.shorten(event.data)) from exc
        if request_id is None or (isinstance(message, dict) and message.get("id") == request_id):
            return message
    raise NoResponseError(request_id)


def call_mcp(
    url: str,
    method: str,
    params: Optional[dict[str, Any]] = None,
    *,
    headers: Optional[Mapping[str, str]] = None,
    auth: Any = None,
    timeout: float = 30.0,
    request_id: int = 1,
    session: Any = None,
) -> dict[str, Any]:
    """POST one request and return the raw JSON-RPC envelope of the answer.

    The envelope may hold ``result`` or ``error``: nothing is raised for a
    JSON-RPC error (this is the raw layer); HTTP failures do raise.

    Args:
        url: the MCP endpoint.
        method, params: the request.
        headers: extra headers (e.g. ``Authorization``).
        auth: any ``requests`` auth object.
        timeout: seconds for connecting and for the answer.
        request_id: the JSON-RPC id to use.
        session: a ``requests.Session`` to use (else a fresh one, closed after).

    Raises:
        HTTPStatusError: a non-2xx answer (with body and auth hints).
        ConnectError, TransportError: the server could not be reached.
        InvalidMessage, NoResponseError: the answer is not a JSON-RPC envelope for this request.
    """
    from .transports.http import ACCEPT, JSON, status_error
    from .transports.http_wire import close_session, finished, http_call, new_session

    http = session if session is not None else new_session(url, 1)
    body = json.dumps(messages.request(request_id, method, params), ensure_ascii=False).encode("utf-8")
    try:
        response = http_call(
            http,
            "POST",
            url,
            url,
            threading.Event(),
            data=body,
            auth=auth,
            timeout=(timeout, timeout),
            headers={"Accept": ACCEPT, "Content-Type": JSON, **(headers or {})},
        )
        with finished(response):
            if not response.ok:
                raise status_error(response)
            text = response.content.decode("utf-8", "replace")
    finally:
        if session is None:
            close_session(http)  # its pooled connections too, not only the session
    envelope = parse_sse(text, request_id)
    if not isinstance(envelope, dict):
        raise InvalidMessage("the answer is not a JSON object", messages.shorten(text))
    return envelope
