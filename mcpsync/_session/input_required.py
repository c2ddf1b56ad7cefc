"""The 2026-07-28 revision's multi-round-trip requests: answering ``input_required`` results.

A modern server that needs something from the client (an elicitation, a
sampling, the roots) answers a request with ``resultType: "input_required"``
and its ``inputRequests``, instead of sending requests of its own. Each one
goes to the client's handlers (``elicitation=``, ``sampling=``, ``roots=``),
and the request is sent again, under a new id, with ``inputResponses`` and the
``requestState`` as it came (none when none came), at most
``MAX_INPUT_ROUNDS`` times, all within the caller's timeout. Tasks answer
their input requests the same way through ``tasks/update`` (tasks.py).
"""

from __future__ import annotations

import math
import time
from typing import Any, Callable, Optional

from .._core.eras import result_type
from .._core.errors import ProtocolError, RequestTimeout

__all__ = ["MAX_INPUT_ROUNDS", "answer_input_required"]

#: ``input_required`` rounds one request may take.
MAX_INPUT_ROUNDS = 10


def answer_input_required(
    method: str,
    params: Optional[dict[str, Any]],
    result: dict[str, Any],
    *,
    send: Callable[[Optional[dict[str, Any]], Optional[float]], dict[str, Any]],
    answer: Callable[[str, Optional[dict[str, Any]]], dict[str, Any]],
    timeout: Optional[float],
    started: float,
    name: str,
) -> dict[str, Any]:
    """The final result of a request after its ``input_required`` rounds (see the module docstring).

    ``send(params, timeout)`` sends the request again; ``answer(method, params)`` answers one input request.

    Raises:
        ProtocolError: more than ``MAX_INPUT_ROUNDS`` rounds, or a malformed input request.
        RequestTimeout: the rounds took longer than ``timeout`` in all.
    """
    deadline = math.inf if timeout is None else started + timeout
    for _ in range(MAX_INPUT_ROUNDS):
        if result_type(result) != "input_required":
            return result
        requests = result.get("inputRequests") or {}
        if not isinstance(requests, dict):
            raise ProtocolError(f"{name}: {method}: 'inputRequests' must be an object, got {type(requests).__name__}")
        responses: dict[str, Any] = {}
        for key, request in requests.items():
            if not isinstance(request, dict) or not isinstance(request.get("method"), str):
                raise ProtocolError(f"{name}: {method}: input request {key!r} has no method")
            responses[key] = answer(request["method"], request.get("params"))
        again = {k: v for k, v in (params or {}).items() if k not in ("inputResponses", "requestState")}
        if responses:
            again["inputResponses"] = responses
        if "requestState" in result:
            again["requestState"] = result["requestState"]  # as it came, byte for byte
        left = None if deadline == math.inf else deadline - time.monotonic()
        if left is not None and left <= 0:
            raise RequestTimeout(method, timeout or 0.0)
        result = send(again, left)
    if result_type(result) != "input_required":
        return result
    raise ProtocolError(f"{name}: {method}: the server asked for input {MAX_INPUT_ROUNDS} times; given up")
