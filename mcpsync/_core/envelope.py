"""Validation of incoming JSON-RPC envelopes against the JSON Schema we ship.

The schema document (``jsonrpc.schema.json`` beside this module, Draft 2020-12) is the
source of truth. Checking every message with ``jsonschema`` costs tens of
microseconds, a real share of a stdio round trip, so ``validate`` first runs
``_fast_kind``: a hand-written check of the same rules. It is used only for the
answer "valid, and of this kind"; whenever it says no, the real validator
decides and writes the error text. ``tests/core/test_envelope.py`` checks with
generated messages (hypothesis) that both accept exactly the same messages.

The ``jsonschema`` import and the compiled validator are made lazily, once per
process, on the first message the fast path does not accept; ``import
mcpsync`` stays fast.
"""

from __future__ import annotations

import json
import threading
from typing import Any, Optional

from .errors import InvalidMessage
from .jsonrpc import Kind, classify
from .text import shorten

__all__ = ["envelope_schema", "validate"]

_SCHEMA_FILE = "jsonrpc.schema.json"

_BRANCHES = {
    Kind.REQUEST: "request",
    Kind.NOTIFICATION: "notification",
    Kind.SUCCESS: "successResponse",
    Kind.ERROR: "errorResponse",
}

_lock = threading.Lock()
_validators: dict[Optional[Kind], Any] = {}


def envelope_schema() -> dict[str, Any]:
    """Return the JSON-RPC envelope schema document shipped with the package."""
    from importlib import resources  # lazily: it costs a few ms at import time

    schema: dict[str, Any] = json.loads(resources.files(__package__).joinpath(_SCHEMA_FILE).read_text("utf-8"))
    return schema


def _get_validators() -> dict[Optional[Kind], Any]:
    """Compile (once) the whole schema, keyed ``None``, and one validator per branch.

    The branch validators only serve the error text: a message that plainly
    means to be a response is told what is wrong with it as a response.
    """
    if not _validators:
        with _lock:
            if not _validators:
                from jsonschema import Draft202012Validator

                schema = envelope_schema()
                Draft202012Validator.check_schema(schema)
                compiled: dict[Optional[Kind], Any] = {None: Draft202012Validator(schema)}
                for kind, name in _BRANCHES.items():
                    branch = {"$ref": f"#/$defs/{name}", "$defs": schema["$defs"]}
                    compiled[kind] = Draft202012Validator(branch)
                _validators.update(compiled)
    return _validators


def _is_integer(value: Any) -> bool:
    # JSON Schema's "integer" includes floats with no fractional part (1.0).
    kind = type(value)
    return kind is int or (kind is float and value.is_integer())


def _is_id(value: Any) -> bool:
    return type(value) is str or _is_integer(value)


def _fast_kind(message: Any) -> Optional[Kind]:
    """Return the message's kind if it is certainly valid, else ``None``."""
    if type(message) is not dict or message.get("jsonrpc") != "2.0":
        return None
    if type(message["jsonrpc"]) is not str:
        return None
    if "method" in message:
        if type(message["method"]) is not str or "result" in message or "error" in message:
            return None
        if "params" in message and type(message["params"]) is not dict:
            return None
        if "id" in message:
            return Kind.REQUEST if type(message["id"]) is int or _is_id(message["id"]) else None
        return Kind.NOTIFICATION
    if "result" in message:
        if "error" in message or type(message["result"]) is not dict:
            return None
        # An int id, the common case, without a call: every answer passes here.
        return Kind.SUCCESS if "id" in message and (type(message["id"]) is int or _is_id(message["id"])) else None
    if "error" in message:
        if "id" in message and message["id"] is not None and not _is_id(message["id"]):
            return None
        error = message["error"]
        if type(error) is not dict or type(error.get("message")) is not str:
            return None
        if "code" not in error or not _is_integer(error["code"]):
            return None
        return Kind.ERROR
    return None


def _intended_kind(message: Any) -> Optional[Kind]:
    """Guess what an invalid message meant to be, to explain what is wrong with it."""
    if type(message) is not dict or not message.keys() & {"method", "result", "error"}:
        return None
    return classify(message)


#: The members whose presence breaks a branch's ``not`` clause.
_CONFLICTS = {
    Kind.REQUEST: ("result", "error"),
    Kind.NOTIFICATION: ("result", "error"),
    Kind.SUCCESS: ("error",),
    Kind.ERROR: ("result",),
}


def _describe(error: Any, intended: Optional[Kind], message: Any) -> str:
    if intended is None:
        if type(message) is not dict:
            return f"expected a JSON object, got {type(message).__name__}"
        return "not a request, notification or response: none of 'method', 'result', 'error'"
    if error.validator == "not":
        clash = " and ".join(repr(m) for m in _CONFLICTS[intended] if m in message)
        return f"{intended.value} must not also have {clash}"
    return f"{intended.value}: {error.message} (at {error.json_path})"


def validate(message: Any) -> Kind:
    """Check a decoded message against the envelope schema and say what it is.

    Raises:
        InvalidMessage: the message is not a valid JSON-RPC 2.0 envelope; the
        text says which rule failed and where, and quotes the message (cut).
    """
    kind = _fast_kind(message)
    if kind is not None:
        return kind
    validators = _get_validators()
    if validators[None].is_valid(message):
        # The property test keeps the fast path exact; should it ever miss a
        # valid shape, the schema still wins.
        return classify(message)
    intended = _intended_kind(message)
    error = next(iter(validators[intended].iter_errors(message)))
    try:
        raw = json.dumps(message, ensure_ascii=False)
    except (TypeError, ValueError):
        raw = repr(message)
    raise InvalidMessage(_describe(error, intended, message), shorten(raw))
