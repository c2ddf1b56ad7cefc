"""What a handler of the server's requests returns, checked before it is sent.

A sampling handler that returns ``{"text": "hi"}`` would otherwise go to the
server as it is, and the server's validation error come back inside a tool's
text, far from the handler that was wrong. So every answer a handler gives
(``sampling=``, ``elicitation=``, ``roots=``, ``request_handlers=``), in
either era (a 2025-11-25 response, or a 2026-07-28 ``inputResponses`` entry),
is checked here first: a JSON object, JSON-serialisable, and for the methods
the specification defines, the members its result definition requires, with
their types.

Why a subset kept here and not the published schema: the schema is not
available at run time (it ships inside the conformance package, an npm
package the tests install), and copying the specification's text into the
package is not ours to do. What is checked is what the definitions
(``CreateMessageResult``, ``ElicitResult``, ``ListRootsResult`` and the
content blocks they use) require, identical in 2025-06-18, 2025-11-25 and
2026-07-28 but for the content arrays and tool blocks 2025-11-25 added,
which are accepted (a server only sees them when it sent tools). Members the
schema leaves open stay open. ``tests/session/test_handler_results.py`` holds
it to the published definitions of both eras, answer by answer.
"""

from __future__ import annotations

import threading
from typing import Any, Callable, Optional

from .._core import jsonrpc
from .._core.feature_errors import HandlerResultError
from .._core.text import cut

__all__ = ["RESULT_SCHEMAS", "checked_answer", "handler_name"]

#: How many of an answer's problems a message names.
MAX_PROBLEMS = 3
_STRING = {"type": "string"}
_OBJECT = {"type": "object"}
_TEXT = {"type": "object", "required": ["type", "text"], "properties": {"type": {"const": "text"}, "text": _STRING}}
_MEDIA = {
    "type": "object",
    "required": ["type", "data", "mimeType"],
    "properties": {"type": {"enum": ["image", "audio"]}, "data": _STRING, "mimeType": _STRING},
}
_TOOL_USE = {
    "type": "object",
    "required": ["type", "id", "name", "input"],
    "properties": {"type": {"const": "tool_use"}, "id": _STRING, "name": _STRING, "input": _OBJECT},
}
_TOOL_RESULT = {
    "type": "object",
    "required": ["type", "toolUseId", "content"],
    "properties": {"type": {"const": "tool_result"}, "toolUseId": _STRING, "content": {"type": "array"}},
}
#: One content block of a sampled message, told apart by its ``type`` so that an error names the right one.
_BLOCK = {
    "type": "object",
    "required": ["type"],
    "properties": {"type": {"enum": ["text", "image", "audio", "tool_use", "tool_result"]}},
    "allOf": [
        {"if": {"required": ["type"], "properties": {"type": {"const": kind}}}, "then": schema}
        for kind, schema in (
            ("text", _TEXT),
            ("image", _MEDIA),
            ("audio", _MEDIA),
            ("tool_use", _TOOL_USE),
            ("tool_result", _TOOL_RESULT),
        )
    ],
}
_META = {"type": "object"}

#: The result of each method the specification defines for a client to answer (JSON Schema 2020-12).
RESULT_SCHEMAS: dict[str, dict[str, Any]] = {
    "sampling/createMessage": {
        "type": "object",
        "required": ["role", "content", "model"],
        "properties": {
            "role": {"enum": ["user", "assistant"]},
            "content": {"anyOf": [_BLOCK, {"type": "array", "items": _BLOCK}]},
            "model": _STRING,
            "stopReason": _STRING,
            "_meta": _META,
        },
    },
    "elicitation/create": {
        "type": "object",
        "required": ["action"],
        "properties": {
            "action": {"enum": ["accept", "decline", "cancel"]},
            "content": {
                "type": "object",
                # Any number, where the published JSON says integer: a form's "number" field (NumberSchema)
                # takes 95.5, and a legal answer to the form must never be refused.
                "additionalProperties": {
                    "anyOf": [{"type": ["string", "number", "boolean"]}, {"type": "array", "items": _STRING}]
                },
            },
            "_meta": _META,
        },
    },
    "roots/list": {
        "type": "object",
        "required": ["roots"],
        "properties": {
            "roots": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["uri"],
                    "properties": {"uri": _STRING, "name": _STRING, "_meta": _META},
                },
            },
            "_meta": _META,
        },
    },
}

_lock = threading.Lock()
_validators: dict[str, Any] = {}


def _validator(method: str) -> Any:
    """The compiled validator of ``method``'s result (made once, lazily: ``import mcpsync`` stays fast)."""
    found = _validators.get(method)
    if found is None:
        with _lock:
            from jsonschema import Draft202012Validator

            found = _validators.setdefault(method, Draft202012Validator(RESULT_SCHEMAS[method]))
    return found


def handler_name(handler: Callable[..., Any]) -> str:
    """A handler as its author knows it: its qualified name, else its repr."""
    return getattr(handler, "__qualname__", None) or repr(handler)


def _problem(method: str, result: Any) -> Optional[str]:
    """What is wrong with ``result`` as the answer to ``method`` (``None``: nothing)."""
    if not isinstance(result, dict):
        return f"it must be a dict (a JSON object), not {type(result).__name__}"
    try:
        jsonrpc.encode(result)
    except (TypeError, ValueError) as exc:
        return f"it is not JSON: {exc}"
    if method not in RESULT_SCHEMAS:
        return None
    from jsonschema.exceptions import best_match

    problems = []
    for found in list(_validator(method).iter_errors(result))[:MAX_PROBLEMS]:
        error = best_match([found])  # into an anyOf, to the branch that came closest
        assert error is not None
        where = ".".join(str(part) for part in error.absolute_path)
        problems.append(f"{where + ': ' if where else ''}{cut(error.message, 200)}")
    return "; ".join(problems) or None


def checked_answer(method: str, result: Any, handler: str) -> dict[str, Any]:
    """``result`` if it may answer ``method``; else ``HandlerResultError`` naming ``handler`` and the problem."""
    problem = _problem(method, result)
    if problem is not None:
        raise HandlerResultError(method, handler, problem)
    answer: dict[str, Any] = result
    return answer
