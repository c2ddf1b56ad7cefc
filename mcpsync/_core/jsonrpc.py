"""JSON-RPC 2.0 messages as plain dicts: build, classify, encode, decode.

No I/O happens here, so every rule can be tested with plain values. A message
on the wire is one compact JSON object on one line: ``json.dumps`` escapes
control characters inside strings, so the encoded text never contains a raw
newline and newline framing (stdio) stays sound.
"""

from __future__ import annotations

import enum
import json
import os
from collections.abc import Iterator
from typing import Any, Optional, Union

__all__ = [
    "JSONRPC_VERSION",
    "LOG_LEVELS",
    "Data",
    "ErrorCode",
    "Kind",
    "LargeString",
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
    "sent_in_slices",
    "success_response",
]

JSONRPC_VERSION = "2.0"

#: A message is a JSON object; we keep it as the dict ``json`` gives us.
Message = dict[str, Any]
#: An encoded message: bytes, or a bytearray for one that holds a :class:`LargeString`.
Data = Union[bytes, bytearray]
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


class LargeString:
    """A string too large to copy whole (a ``requestState`` sent back), for :func:`encode` to put
    into a message in slices; see :func:`sent_in_slices`."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


#: Strings from this size on are worth :class:`LargeString`, and it encodes them this much at a time.
SLICE = 1 << 20


def sent_in_slices(value: Any) -> Any:
    """``value`` itself, or a :class:`LargeString` of it when it is a string of ``SLICE`` characters or more."""
    return LargeString(value) if isinstance(value, str) and len(value) >= SLICE else value


class _Spliced(Exception):
    """The message holds a :class:`LargeString`: it takes :func:`_encode_spliced`."""


def _no_default(value: Any) -> Any:
    if type(value) is LargeString:
        raise _Spliced
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


_options: dict[str, Any] = {"ensure_ascii": False, "separators": (",", ":"), "allow_nan": False}
_encoder = json.JSONEncoder(**_options, default=_no_default)


def encode(message: Message) -> Data:
    """Encode as compact UTF-8 JSON on one line, with the trailing newline.

    A bytearray when the message holds a :class:`LargeString`: its text is
    never copied whole (see :func:`_encode_spliced`).

    Raises:
        ValueError / TypeError: the message holds NaN, infinity or a value JSON
        cannot represent (caught before anything is written).
    """
    try:
        return (_encoder.encode(message) + "\n").encode("utf-8")
    except _Spliced:
        return _encode_spliced(message)


#: What stands for a LargeString while the rest of the message is encoded (no message has it by chance).
_MARK = "\x00mcpsync-large-" + os.urandom(8).hex()


def _encode_spliced(message: Message) -> bytearray:
    """The message's bytes, each :class:`LargeString` escaped and encoded ``SLICE`` characters at a time
    straight into a buffer of the exact size: at its peak the string, the buffer and one slice (the
    usual way holds the string, its escaped text and the text's bytes, three copies at once)."""
    large: list[str] = []

    def mark(value: Any) -> Any:
        if type(value) is LargeString:
            large.append(value.text)
            return _MARK
        return _no_default(value)

    text = json.JSONEncoder(**_options, default=mark).encode(message)
    parts = text.split(json.dumps(_MARK))
    if len(parts) != len(large) + 1:  # cannot happen; if it did, the usual way is still right
        return bytearray((json.JSONEncoder(**_options, default=_large_text).encode(message) + "\n").encode("utf-8"))
    pieces: list[Union[bytes, str]] = []
    for part, string in zip(parts, large):
        pieces.append(part.encode("utf-8"))
        pieces.append(string)
    pieces.append((parts[-1] + "\n").encode("utf-8"))
    size = sum(len(piece) if isinstance(piece, bytes) else _escaped_size(piece) for piece in pieces)
    buffer = bytearray(size)
    at = 0
    for piece in pieces:
        chunks = (piece,) if isinstance(piece, bytes) else _escaped_slices(piece)
        for chunk in chunks:
            buffer[at : at + len(chunk)] = chunk
            at += len(chunk)
    return buffer


def _escaped_slices(text: str) -> Iterator[bytes]:
    """``text`` as a JSON string's UTF-8 bytes, quotes included, ``SLICE`` characters at a time (escaping
    is per character, so slices escape as the whole would)."""
    yield b'"'
    for start in range(0, len(text), SLICE):
        yield json.dumps(text[start : start + SLICE], ensure_ascii=False)[1:-1].encode("utf-8")
    yield b'"'


def _escaped_size(text: str) -> int:
    return sum(len(chunk) for chunk in _escaped_slices(text))


def _large_text(value: Any) -> Any:
    if type(value) is LargeString:
        return value.text
    return _no_default(value)


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


# JSON has no NaN or Infinity; Python's json module would accept them by default.
_decoder = json.JSONDecoder(parse_constant=_refuse_constant)


def decode(data: Union[bytes, str]) -> Any:
    """Decode one JSON text (bytes must be UTF-8). Returns whatever JSON it holds.

    Raises:
        ValueError: not UTF-8, not JSON, holding NaN/Infinity, or nested so
        deeply that the decoder ran out of stack (``json.JSONDecodeError`` and
        ``UnicodeDecodeError`` are both ``ValueError``).
    """
    if isinstance(data, (bytes, bytearray)):
        data = data.decode("utf-8")
    try:
        try:
            value, end = _decoder.raw_decode(data)  # the usual: one JSON text and nothing around it
        except ValueError:  # white space first, or not JSON: the decoder says which, in its words
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
