"""JSON-RPC 2.0 messages as plain dicts: build, classify, encode, decode.

No I/O happens here, so every rule can be tested with plain values. A message
on the wire is one compact JSON object on one line: ``json.dumps`` escapes
control characters inside strings, so the encoded text never contains a raw
newline and newline framing (stdio) stays sound.
"""

from __future__ import annotations

import enum
import json
from typing import Any, Callable, Optional, Union

__all__ = [
    "JSONRPC_VERSION",
    "LOG_LEVELS",
    "ErrorCode",
    "Kind",
    "Message",
    "RequestId",
    "classify",
    "decode",
    "encode",
    "error_object",
    "error_response",
    "nesting_depth",
    "notification",
    "request",
    "response_key",
    "success_response",
]

JSONRPC_VERSION = "2.0"

#: A message is a JSON object; we keep it as the dict ``json`` gives us.
Message = dict[str, Any]
#: MCP allows string or integer ids (never null, never bool).
RequestId = Union[int, str]

#: MCP's logging levels (``logging/setLevel``, ``notifications/message``), least severe first.
LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")


class ErrorCode(enum.IntEnum):
    """JSON-RPC 2.0 error codes, and the ones MCP adds."""

    PARSE_ERROR = -32700
    INVALID_REQUEST = -32600
    METHOD_NOT_FOUND = -32601
    INVALID_PARAMS = -32602
    INTERNAL_ERROR = -32603
    #: MCP: the server needs the client to complete a URL elicitation first.
    URL_ELICITATION_REQUIRED = -32042
    #: MCP: a resource does not exist.
    RESOURCE_NOT_FOUND = -32002


class Kind(enum.Enum):
    """What a (valid) message is."""

    REQUEST = "request"
    NOTIFICATION = "notification"
    SUCCESS = "success response"
    ERROR = "error response"


def request(request_id: RequestId, method: str, params: Optional[dict[str, Any]] = None) -> Message:
    """Build a request. ``params`` is left out when ``None``."""
    message: Message = {"jsonrpc": JSONRPC_VERSION, "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return message


def notification(method: str, params: Optional[dict[str, Any]] = None) -> Message:
    """Build a notification (a request without id; nobody answers it)."""
    message: Message = {"jsonrpc": JSONRPC_VERSION, "method": method}
    if params is not None:
        message["params"] = params
    return message


def success_response(request_id: RequestId, result: dict[str, Any]) -> Message:
    """Build a success response to the request with ``request_id``."""
    return {"jsonrpc": JSONRPC_VERSION, "id": request_id, "result": result}


def error_object(code: int, message: str, data: Any = None) -> dict[str, Any]:
    """Build the ``error`` member of an error response."""
    error: dict[str, Any] = {"code": int(code), "message": message}
    if data is not None:
        error["data"] = data
    return error


def error_response(request_id: Optional[RequestId], code: int, message: str, data: Any = None) -> Message:
    """Build an error response (``request_id`` is ``None`` when it is unknown)."""
    return {"jsonrpc": JSONRPC_VERSION, "id": request_id, "error": error_object(code, message, data)}


def classify(message: Message) -> Kind:
    """Tell what a message is. The message must already have passed the schema."""
    if "method" in message:
        return Kind.REQUEST if "id" in message else Kind.NOTIFICATION
    return Kind.ERROR if "error" in message else Kind.SUCCESS


_encoder = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)
#: The C encoder ``_encoder.iterencode`` makes for a message in one shot, and what it is made with.
_c_encoder: Optional[Callable[..., Callable[[Any, int], Any]]] = getattr(json.encoder, "c_make_encoder", None)
_default = _encoder.default
_encode_text = json.encoder.encode_basestring


def encode(message: Message) -> bytes:
    """Encode as compact UTF-8 JSON on one line, with the trailing newline.

    Raises:
        ValueError / TypeError: the message holds NaN, infinity or a value JSON
        cannot represent (caught before anything is written).
    """
    # Each step lets go of the one before: the text, its bytes, the bytes with the line end. With a
    # message that holds one large string (a requestState sent back), the string itself, the C
    # encoder's own two copies of it, then these: three at once at most.
    if _c_encoder is None:  # no C accelerator (another Python): what JSONEncoder.encode does
        return "".join(_encoder.iterencode(message, True)).encode("utf-8") + b"\n"
    # What iterencode(message, True) does, without its two Python frames: the C encoder, made per
    # message for its own table of what it is inside (two threads may encode one shared dict at once).
    return (
        "".join(_c_encoder({}, _default, _encode_text, None, ":", ",", False, False, False)(message, 0)).encode("utf-8")
        + b"\n"
    )


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


# JSON has no NaN or Infinity; Python's json module would accept them by default.
_decoder = json.JSONDecoder(parse_constant=_refuse_constant)
#: The decoder's scanner (C), called directly for a text with no white space around it: every
#: message read takes this path, and ``JSONDecoder.decode`` would cost two Python calls more.
_scan: Callable[[str, int], tuple[Any, int]] = _decoder.scan_once  # type: ignore[attr-defined]
#: The same, for the endpoint, which decodes every answer it reads in its own frame.
scan = _scan


def decode(data: Union[bytes, str]) -> Any:
    """Decode one JSON text (bytes must be UTF-8). Returns whatever JSON it holds.

    Raises:
        ValueError: not UTF-8, not JSON, holding NaN/Infinity, or nested so
        deeply that the decoder ran out of stack (``json.JSONDecodeError`` and
        ``UnicodeDecodeError`` are both ``ValueError``).
    """
    if isinstance(data, bytes):
        data = data.decode("utf-8")
    try:
        try:
            value, end = _scan(data, 0)
        except StopIteration:  # white space first, or not JSON: the decoder says which, in its words
            return _decoder.decode(data)
        if end == len(data) or not data[end:].strip(" \t\n\r"):  # JSON's white space only
            return value
        return _decoder.decode(data)  # "Extra data", as the decoder says it
    except RecursionError:
        raise ValueError("nested too deeply to read") from None


def nesting_depth(value: Any, limit: int) -> int:
    """How deeply ``value`` nests arrays and objects, counted up to ``limit + 1`` (no recursion).

    For values that later code walks recursively (a configuration, a cache):
    refuse those deeper than ``limit`` before anything recurses into them.
    """
    deepest = 0
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            if depth > deepest:
                deepest = depth
                if deepest > limit:
                    return deepest
            stack.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
    return deepest


def response_key(raw_id: Any) -> Any:
    """Normalise an id from the wire so it finds the request we sent.

    Our own ids are ints. JSON Schema counts ``1.0`` as an integer, and some
    servers echo an integer id as a digit string, so both map back to the
    int; anything else is returned unchanged (and will not match).
    """
    if type(raw_id) is int:
        return raw_id
    if type(raw_id) is float and raw_id.is_integer():
        return int(raw_id)
    if type(raw_id) is str and raw_id.isascii() and raw_id.isdigit() and len(raw_id) < 20:
        if raw_id == "0" or raw_id[0] != "0":  # "01" is not how anyone writes 1
            return int(raw_id)
    return raw_id
