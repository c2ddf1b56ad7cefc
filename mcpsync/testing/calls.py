"""What the test server's handlers and tools work with: the call a tool serves, the server as a tool sees it
(``ToolHost``), the errors they raise and the results they build."""

from __future__ import annotations

import json
import threading
from typing import Any, Optional, Protocol, Union

from .protocol import PROTOCOL_VERSION_KEY

__all__ = [
    "NoResultType",
    "RequestError",
    "ToolCall",
    "ToolFailure",
    "ToolHost",
    "any_json_result",
    "ask",
    "structured_result",
    "text_result",
]


class ToolCall:
    """What a tool knows about the call it serves."""

    def __init__(self, request_id: Any, meta: dict[str, Any], params: Optional[dict[str, Any]] = None) -> None:
        self.request_id = request_id
        self.meta = meta
        #: The request's params (a modern retry's ``inputResponses`` and ``requestState`` are there).
        self.params = params or {}
        #: The modern protocol version the request names; ``None`` in the legacy era.
        self.modern = meta.get(PROTOCOL_VERSION_KEY) if isinstance(meta.get(PROTOCOL_VERSION_KEY), str) else None
        #: Set when the client cancels the request.
        self.cancel = threading.Event()


class ToolHost(Protocol):
    """The server a tool runs in: what it may read, change (under ``lock``) and send."""

    name: str
    #: The level ``logging/setLevel`` set (legacy era).
    log_level: str
    #: Set when the input ends: stalled tools give up then, so the server can exit.
    stopping: threading.Event
    #: Set when the server ends at once (``exit``: a crash, or a signal to a server in a thread).
    exited: threading.Event
    lock: threading.Lock
    #: The request ids the client cancelled so far.
    cancelled: list[Any]
    #: The URI of every ``resources/read``, in order.
    reads: list[str]
    skill_lies: set[str]
    #: The capabilities the client declared at ``initialize`` (legacy era; ``None`` before it).
    client_capabilities: Optional[dict[str, Any]]
    #: The modern versions accepted now.
    modern_versions: list[str]

    def send(self, message: dict[str, Any]) -> None: ...

    def send_raw(self, *pieces: Union[bytes, bytearray]) -> None: ...

    @property
    def stderr(self) -> Any:
        """Where the server's own words go, as bytes."""
        ...

    def exit(self, code: int) -> None:
        """End the server at once, as a crash does."""
        ...

    def next_request_id(self) -> str:
        """A fresh id for a request to the client."""
        ...

    def send_and_wait(self, request: dict[str, Any], wait: float, cancel: bool = False) -> Optional[dict[str, Any]]:
        """Send a request to the client (then cancel it, if asked); its answer, or None after ``wait`` seconds."""
        ...


class RequestError(Exception):
    """Raised by a request handler to answer with a JSON-RPC error."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.data = data


class ToolFailure(Exception):
    """Raised by a tool to answer with ``isError: true``."""


class NoResultType(dict):  # type: ignore[type-arg]
    """A result to send without ``resultType``, whatever the era (``no_result_type``)."""


def text_result(content: str) -> dict[str, Any]:
    """A tool result of one text block."""
    return {"content": [{"type": "text", "text": content}], "isError": False}


def structured_result(data: dict[str, Any]) -> dict[str, Any]:
    """Structured content, and the same as JSON text for clients that read only text."""
    return {"content": [{"type": "text", "text": json.dumps(data)}], "structuredContent": data, "isError": False}


def any_json_result(call: ToolCall, value: Any) -> dict[str, Any]:
    """Structured content of any JSON value (2026-07-28); ``{"result": value}`` in the legacy era."""
    content = value if call.modern is not None else {"result": value}
    return {"content": [{"type": "text", "text": json.dumps(value)}], "structuredContent": content}


def ask(host: ToolHost, request: dict[str, Any]) -> dict[str, Any]:
    """Send a request to the client and return its answer as the tool's result."""
    answer = host.send_and_wait(request, 10.0)
    if answer is None:
        raise ToolFailure(f"the client did not answer {request['method']!r} within 10s")
    return structured_result(answer)
