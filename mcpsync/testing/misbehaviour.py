"""The ``misbehave`` tool: every broken thing the test server can write, for testing how clients take it.

    garbage, invalid          a line that is not JSON; JSON that is no JSON-RPC message
    unknown_id                an answer to a request the client never sent
    bad_response              an invalid answer to this very call
    invalid_request           a request with array params (the tool returns the client's answer)

Chaos, for the call itself:

    sigkill                   the server kills itself
    half_line                 half of the answer, no newline, then a stall
    stall                     never answers, whatever the client says
    wrong_id                  the answer carries another id
    duplicate_id              the answer twice
    result_and_error          an answer with both

``size`` bytes (default ``HUGE_SIZE``, 50 MB) on one line:

    huge                      a valid answer, its text that long
    huge_id_last              the same with the id written last, as TypeScript servers do
    huge_notification         a log notification that long
    huge_garbage              a line that long that is not JSON
    flood                     ``size`` log notifications (pass a size: the default is 50 MB of them)
                              as fast as the pipe takes them, then the answer
"""

from __future__ import annotations

import json
import os
import signal
from typing import Any, Callable, Optional

from .._core import jsonrpc as messages
from .._core.jsonrpc import ErrorCode
from .calls import ToolCall, ToolFailure, ToolHost, ask, text_result

__all__ = ["HUGE_SIZE", "MISBEHAVIOURS", "misbehave"]

#: What ``misbehave`` can do (see the module docstring).
MISBEHAVIOURS = (
    "garbage",
    "invalid",
    "unknown_id",
    "bad_response",
    "invalid_request",
    "sigkill",
    "half_line",
    "stall",
    "wrong_id",
    "duplicate_id",
    "result_and_error",
    "huge",
    "huge_id_last",
    "huge_notification",
    "huge_garbage",
    "flood",
)
#: Bytes of the line the "huge" kinds of ``misbehave`` write, unless told otherwise.
HUGE_SIZE = 50_000_000


def misbehave(host: ToolHost, call: ToolCall, kind: str, size: int = HUGE_SIZE) -> Optional[dict[str, Any]]:
    """Write the broken thing ``kind`` names; the tool's result (``None``: the call is answered, or never is)."""
    if kind in _CHAOS:
        return _CHAOS[kind](host, call, size)
    if kind == "garbage":
        host.send_raw(b"this is not json {\n")
    elif kind == "invalid":
        host.send_raw(b'{"jsonrpc":"2.0","method":42}\n')
    elif kind == "unknown_id":
        host.send(messages.success_response(987654321, {}))
    elif kind == "bad_response":
        host.send_raw(messages.encode({"jsonrpc": "2.0", "id": call.request_id, "result": "not an object"}))
        return None  # that was the answer
    elif kind == "invalid_request":
        # params must be an object: a client should answer -32600
        return ask(host, {"jsonrpc": "2.0", "id": host.next_request_id(), "method": "roots/list", "params": [1]})
    else:
        raise ToolFailure(f"unknown kind {kind!r}")
    return text_result(f"sent {kind}")


# -- chaos: misbehave kinds that break the call they serve ------------------------------


def _sigkill(host: ToolHost, call: ToolCall, size: int) -> None:
    os.kill(os.getpid(), getattr(signal, "SIGKILL", signal.SIGTERM))
    host.stopping.wait()  # not reached: the signal cannot be caught


def _half_line(host: ToolHost, call: ToolCall, size: int) -> None:
    answer = messages.encode(messages.success_response(call.request_id, text_result("never finished")))
    host.send_raw(answer[: len(answer) // 2])
    host.stopping.wait()  # stalled mid-line; later messages run into this one


def _stall(host: ToolHost, call: ToolCall, size: int) -> None:
    host.stopping.wait()  # deaf to cancellation; gives up only when the input ends


def _wrong_id(host: ToolHost, call: ToolCall, size: int) -> None:
    wrong = call.request_id + 1_000_000 if isinstance(call.request_id, int) else f"{call.request_id}-wrong"
    host.send(messages.success_response(wrong, text_result("answer with a wrong id")))


def _duplicate_id(host: ToolHost, call: ToolCall, size: int) -> None:
    host.send(messages.success_response(call.request_id, text_result("first answer")))
    host.send(messages.success_response(call.request_id, text_result("second answer")))


def _result_and_error(host: ToolHost, call: ToolCall, size: int) -> None:
    host.send(
        {
            "jsonrpc": "2.0",
            "id": call.request_id,
            "result": text_result("both"),
            "error": {"code": ErrorCode.INTERNAL_ERROR, "message": "both"},
        }
    )


def _huge(host: ToolHost, call: ToolCall, size: int, id_last: bool = False) -> None:
    start, end = b'{"content":[{"type":"text","text":"', b'"}],"isError":false}'
    request_id = json.dumps(call.request_id).encode()
    if id_last:
        before, after = b'{"result":' + start, end + b',"jsonrpc":"2.0","id":' + request_id + b"}\n"
    else:
        before, after = b'{"jsonrpc":"2.0","id":' + request_id + b',"result":' + start, end + b"}\n"
    host.send_raw(before, *_filler(size - len(before) - len(after)), after)


def _huge_id_last(host: ToolHost, call: ToolCall, size: int) -> None:
    _huge(host, call, size, id_last=True)


def _huge_notification(host: ToolHost, call: ToolCall, size: int) -> dict[str, Any]:
    before = b'{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"'
    host.send_raw(before, *_filler(size - len(before) - 4), b'"}}\n')
    return text_result("sent huge_notification")


def _huge_garbage(host: ToolHost, call: ToolCall, size: int) -> dict[str, Any]:
    host.send_raw(b"not json ", *_filler(size - 10), b"\n")
    return text_result("sent huge_garbage")


def _flood(host: ToolHost, call: ToolCall, size: int) -> dict[str, Any]:
    line = b'{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"flood"}}\n'
    batch = line * 1000
    for _ in range(size // 1000):
        host.send_raw(batch)
    host.send_raw(line * (size % 1000))
    return text_result(f"sent {size} notifications")


def _filler(size: int, piece: int = 1 << 20) -> list[bytes]:
    """``size`` bytes of "x" in pieces of at most ``piece`` bytes, all the same object: cheap in memory."""
    block = b"x" * min(max(size, 0), piece)
    pieces = [block] * (max(size, 0) // piece)
    rest = max(size, 0) % piece
    return [*pieces, block[:rest]] if rest else pieces


_CHAOS: dict[str, Callable[[ToolHost, ToolCall, int], Optional[dict[str, Any]]]] = {
    "sigkill": _sigkill,
    "half_line": _half_line,
    "stall": _stall,
    "wrong_id": _wrong_id,
    "duplicate_id": _duplicate_id,
    "result_and_error": _result_and_error,
    "huge": _huge,
    "huge_id_last": _huge_id_last,
    "huge_notification": _huge_notification,
    "huge_garbage": _huge_garbage,
    "flood": _flood,
}
