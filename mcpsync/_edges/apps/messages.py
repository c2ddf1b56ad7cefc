"""The MCP Apps messages a view may send, and their check as untrusted input: one JSON-RPC 2.0 message
read (``parsed``) and its params checked against the schema of its method (``params_problem``).

The ``ui/*`` methods are checked against the extension's own JSON Schema, vendored unchanged as
``ext_apps_schema.json`` (from the npm package ``@modelcontextprotocol/ext-apps`` 2.0.4,
``dist/src/generated/schema.json``; MIT licence, its text in ``ext_apps_schema.LICENSE``). The MCP
methods a view may use (``tools/call``, ``resources/read``, ``resources/list``, ``notifications/message``,
``ping``) are checked against the small schemas below, which take what MCP's schema says of their params.
"""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Any, Optional, Union

from ..._core.jsonrpc import LOG_LEVELS

__all__ = [
    "MAX_CHARS_OF",
    "MAX_MESSAGE_CHARS",
    "NOTIFICATIONS",
    "REQUESTS",
    "Invalid",
    "params_problem",
    "parsed",
    "parsed_sized",
]

#: The most characters one message from a view may have (its JSON text): 4 MB, room for a tool's
#: arguments or a message with an image, and a bound on what a view can make the kernel parse.
MAX_MESSAGE_CHARS = 4_000_000
#: Tighter bounds for the methods whose params are text for a person or a log, checked before their
#: schema (whose check costs kernel time by the byte: a 1.2 MB ``ui/message`` took 1.5-2.5 s): a
#: notebook shows 10,000 characters of a ``ui/message``.
MAX_CHARS_OF = {
    "ui/message": 65_536,
    "notifications/message": 65_536,
    "ui/open-link": 8_192,
    "ui/request-display-mode": 4_096,
    "ui/notifications/size-changed": 4_096,
    "ui/notifications/initialized": 4_096,
    "ui/notifications/request-teardown": 4_096,
    "ping": 4_096,
}
#: The most characters of a request id (a string); a number id must be a safe JSON integer.
MAX_ID_CHARS = 128
MAX_SAFE_INTEGER = 2**53 - 1
#: The most characters of a method name.
MAX_METHOD_CHARS = 128

#: The requests a view may send, each with the name of its schema in ``ext_apps_schema.json`` (``None``:
#: an MCP method, checked against ``_MCP_PARAMS``).
REQUESTS: dict[str, Optional[str]] = {
    "ui/initialize": "McpUiInitializeRequest",
    "ui/open-link": "McpUiOpenLinkRequest",
    "ui/message": "McpUiMessageRequest",
    "ui/update-model-context": "McpUiUpdateModelContextRequest",
    "ui/request-display-mode": "McpUiRequestDisplayModeRequest",
    "ui/download-file": "McpUiDownloadFileRequest",
    "tools/call": None,
    "resources/read": None,
    "resources/list": None,
    "ping": None,
}
#: The notifications a view may send, likewise.
NOTIFICATIONS: dict[str, Optional[str]] = {
    "ui/notifications/initialized": "McpUiInitializedNotification",
    "ui/notifications/size-changed": "McpUiSizeChangedNotification",
    "ui/notifications/request-teardown": "McpUiRequestTeardownNotification",
    "notifications/message": None,
}

_OBJECT: dict[str, Any] = {"type": "object"}
#: The params of the MCP methods a view may use, as MCP's schema has them (``_meta`` allowed in each).
_MCP_PARAMS: dict[str, dict[str, Any]] = {
    "tools/call": {
        "type": "object",
        "properties": {
            "name": {"type": "string", "minLength": 1, "maxLength": 256},
            "arguments": _OBJECT,
            "_meta": _OBJECT,
        },
        "required": ["name"],
    },
    "resources/read": {
        "type": "object",
        "properties": {"uri": {"type": "string", "minLength": 1, "maxLength": 4096}, "_meta": _OBJECT},
        "required": ["uri"],
    },
    "resources/list": {
        "type": "object",
        "properties": {"cursor": {"type": "string", "maxLength": 4096}, "_meta": _OBJECT},
    },
    "ping": {"type": "object", "properties": {"_meta": _OBJECT}},
    "notifications/message": {
        "type": "object",
        "properties": {
            "level": {"enum": list(LOG_LEVELS)},
            "logger": {"type": "string", "maxLength": 256},
            "data": {},
            "_meta": _OBJECT,
        },
        "required": ["level", "data"],
    },
}


class Invalid(Exception):
    """A message that is no valid JSON-RPC 2.0 message: its error ``code``, what was wrong, and its id
    when one could be read (else ``None``, as JSON-RPC answers such a message)."""

    def __init__(self, code: int, message: str, request_id: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.request_id = request_id


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is no JSON")  # NaN, Infinity: Python reads them, JSON has none


def _valid_id(value: Any) -> bool:
    if isinstance(value, str):
        return len(value) <= MAX_ID_CHARS
    return type(value) is int and -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER


def parsed(raw: Union[str, bytes, Any]) -> dict[str, Any]:
    """One message from a view as a dict, its envelope checked: JSON-RPC 2.0, a usable id (a string of
    at most ``MAX_ID_CHARS`` or a safe integer), a method name of at most ``MAX_METHOD_CHARS``, params
    an object when there, within ``MAX_MESSAGE_CHARS``.

    Raises:
        Invalid: -32700 (not JSON, or too large) or -32600 (no valid JSON-RPC 2.0 message).
    """
    return parsed_sized(raw)[0]


def parsed_sized(raw: Union[str, bytes, Any]) -> tuple[dict[str, Any], int]:
    """``parsed``, and the message's size in characters (of its text, or of the JSON of an object):
    what the method's bound (``MAX_CHARS_OF``) is checked against before its params' schema."""
    size = len(raw) if isinstance(raw, (str, bytes, bytearray)) else 0
    if isinstance(raw, (bytes, bytearray)):
        if len(raw) > MAX_MESSAGE_CHARS:
            raise Invalid(-32600, f"message too large: {len(raw)} bytes, at most {MAX_MESSAGE_CHARS}")
        try:
            raw = bytes(raw).decode("utf-8")
        except UnicodeDecodeError:
            raise Invalid(-32700, "message is not UTF-8") from None
    if isinstance(raw, str):
        if len(raw) > MAX_MESSAGE_CHARS:
            raise Invalid(-32600, f"message too large: {len(raw)} characters, at most {MAX_MESSAGE_CHARS}")
        try:
            message = json.loads(raw, parse_constant=_no_constant)
        except (ValueError, RecursionError):
            raise Invalid(-32700, "message is not JSON") from None
    else:
        message = raw
        try:
            size = len(json.dumps(message))
        except (TypeError, ValueError, RecursionError):
            raise Invalid(-32600, "message is no JSON value") from None
        if size > MAX_MESSAGE_CHARS:
            raise Invalid(-32600, f"message too large: {size} characters, at most {MAX_MESSAGE_CHARS}")
    if not isinstance(message, dict):
        raise Invalid(-32600, f"message must be a JSON object, not {type(message).__name__}")
    has_id = "id" in message
    request_id = message.get("id")
    if has_id and not _valid_id(request_id):
        raise Invalid(-32600, "id must be a string of at most 128 characters or a safe integer")
    answer_id = request_id if has_id else None
    if message.get("jsonrpc") != "2.0":
        raise Invalid(-32600, 'jsonrpc must be "2.0"', answer_id)
    if "method" in message:
        method = message["method"]
        if not isinstance(method, str) or not method or len(method) > MAX_METHOD_CHARS:
            raise Invalid(-32600, "method must be a non-empty string of at most 128 characters", answer_id)
        if "params" in message and not isinstance(message["params"], dict):
            raise Invalid(-32600, "params must be an object", answer_id)
    elif not has_id or ("result" in message) == ("error" in message):
        raise Invalid(-32600, "a message needs a method, or an id with a result or an error", answer_id)
    return message, size


@functools.cache
def _schema_document() -> dict[str, Any]:
    text = resources.files("mcpsync._edges.apps").joinpath("ext_apps_schema.json").read_text(encoding="utf-8")
    return json.loads(text)  # type: ignore[no-any-return]


@functools.cache
def _validator(method: str) -> Any:
    from jsonschema import Draft202012Validator

    name = REQUESTS.get(method) or NOTIFICATIONS.get(method)
    if name is not None:
        return Draft202012Validator(_schema_document()["$defs"][name])
    return Draft202012Validator(_MCP_PARAMS[method])


def params_problem(method: str, params: Optional[dict[str, Any]]) -> Optional[str]:
    """What is wrong with the ``params`` of a message of ``method`` (a method of ``REQUESTS`` or
    ``NOTIFICATIONS``), by its schema; ``None``: nothing."""
    validator = _validator(method)
    if REQUESTS.get(method) or NOTIFICATIONS.get(method):
        instance: Any = {"method": method} if params is None else {"method": method, "params": params}
    else:
        instance = params if params is not None else {}
    error = next(iter(validator.iter_errors(instance)), None)
    if error is None:
        return None
    where = "/".join(str(part) for part in error.absolute_path) or "params"
    return f"{where}: {error.message[:200]}"
