"""The 2026-07-28 revision's multi-round-trip requests: answering ``input_required`` results.

A modern server that needs something from the client (an elicitation, a
sampling, the roots) answers a request with ``resultType: "input_required"``
and its ``inputRequests``, instead of sending requests of its own. Each one
goes to the client's handlers (``elicitation=``, ``sampling=``, ``roots=``),
and the request is sent again, under a new id, with ``inputResponses`` and the
``requestState`` as it came (none when none came), at most
``MAX_INPUT_ROUNDS`` times, all within the caller's timeout. The client's
request loop sends each round; ``next_round`` says what it sends. Tasks answer
their input requests the same way through ``tasks/update`` (tasks.py).
"""

from __future__ import annotations

from typing import Any, Callable, Optional

from .._core import jsonrpc
from .._core.errors import ProtocolError, RequestTimeout
from .._core.timeouts import Deadline

__all__ = ["MAX_INPUTS_PER_ROUND", "MAX_INPUT_ROUNDS", "next_round", "too_many_inputs"]

#: ``input_required`` rounds one request may take.
MAX_INPUT_ROUNDS = 10
#: Input requests one round (or one task's ``input_required``) may carry: a server asking for more is
#: refused before any is answered (a real one asks for a few at a time).
MAX_INPUTS_PER_ROUND = 64


def too_many_inputs(requests: dict[str, Any], where: str) -> Optional[ProtocolError]:
    """The error for a round of more than ``MAX_INPUTS_PER_ROUND`` input requests, else ``None``."""
    if len(requests) <= MAX_INPUTS_PER_ROUND:
        return None
    return ProtocolError(
        f"{where}: the server asked for {len(requests)} inputs at once; at most {MAX_INPUTS_PER_ROUND} are answered"
    )


def next_round(
    method: str,
    params: Optional[dict[str, Any]],
    result: dict[str, Any],
    *,
    answer: Callable[[str, Optional[dict[str, Any]]], dict[str, Any]],
    done: int,
    deadline: Deadline,
    name: str,
) -> tuple[dict[str, Any], Optional[float]]:
    """The request to send again after an ``input_required`` ``result`` (see the module docstring): its
    params, with the input requests answered (``answer(method, params)`` answers one) and the
    ``requestState`` echoed, and the seconds of ``deadline`` left for it. ``done``: the rounds sent so far.

    Raises:
        ProtocolError: past ``MAX_INPUT_ROUNDS`` rounds, more than ``MAX_INPUTS_PER_ROUND`` input
            requests in the round, or a malformed input request.
        RequestTimeout: the rounds took longer than ``deadline`` gives.
    """
    if done >= MAX_INPUT_ROUNDS:
        raise ProtocolError(f"{name}: {method}: the server asked for input {MAX_INPUT_ROUNDS} times; given up")
    requests = result.get("inputRequests") or {}
    if not isinstance(requests, dict):
        raise ProtocolError(f"{name}: {method}: 'inputRequests' must be an object, got {type(requests).__name__}")
    refused = too_many_inputs(requests, f"{name}: {method}")
    if refused is not None:
        raise refused
    responses: dict[str, Any] = {}
    for key, request in requests.items():
        if not isinstance(request, dict) or not isinstance(request.get("method"), str):
            raise ProtocolError(f"{name}: {method}: input request {key!r} has no method")
        left = deadline.left()
        if left is not None and left <= 0:  # between answers too: a handler may take its time
            raise RequestTimeout(method, deadline.seconds or 0.0)
        responses[key] = answer(request["method"], request.get("params"))
    again = {k: v for k, v in (params or {}).items() if k not in ("inputResponses", "requestState")}
    if responses:
        again["inputResponses"] = responses
    if "requestState" in result:
        again["requestState"] = jsonrpc.sent_in_slices(result["requestState"])  # as it came, byte for byte
    left = deadline.left()
    if left is not None and left <= 0:
        raise RequestTimeout(method, deadline.seconds or 0.0)
    return again, left
