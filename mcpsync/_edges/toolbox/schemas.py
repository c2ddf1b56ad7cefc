"""MCP tool names and input schemas as the function-calling APIs of the model vendors take them.

Pure functions, no I/O. Names: every API limits a function's name to 64
characters of a small alphabet (OpenAI and Anthropic: ``[A-Za-z0-9_-]``;
Gemini: also ``.`` and ``:``, and a letter or ``_`` first), so one rule serves
all: other characters become ``_``, a leading digit or dash gets a ``_`` before
it, a name cut to fit ends in a short hash of the whole, and a name that two
tools would share gets a numbered suffix.

Schemas: MCP's are JSON Schema (2020-12 by default). OpenAI (Chat
Completions, Responses) and Anthropic take JSON Schema, but the root must be
``"type": "object"`` without ``anyOf`` / ``oneOf`` / ``allOf`` / ``not`` /
``enum`` beside it, and ``$schema`` / ``$id`` have no business there. Gemini's
``parameters`` are its own subset (OpenAPI 3.0 style): one ``type`` (with
``nullable``), no ``$ref`` (the local ones are inlined), ``anyOf`` only, and
a closed list of keywords. What a format cannot carry is dropped and
reported as a path (``properties.when.format`` ...), so that a caller can see
what the model will not be told. Left out everywhere and not reported, as
they tell the model nothing: ``x-mcp-header`` (how an argument travels in an
HTTP header: the transport's business), and the keywords that only identify
or annotate the schema for its readers (``$schema``, ``$id``, ``$comment``,
``$anchor``...), which every tool's schema may carry: reported, they would
bury the losses that matter.
"""

from __future__ import annotations

import copy
import hashlib
import re
from collections.abc import Iterable, Mapping
from typing import Any, Optional

__all__ = ["FORMATS", "MAX_NAME", "MAX_NODES", "MAX_SCHEMA_DEPTH", "adapt_schema", "over_budget", "safe_names"]

#: The formats: OpenAI Chat Completions, OpenAI Responses, Anthropic Messages, Google Gemini.
FORMATS = ("openai", "openai-responses", "anthropic", "gemini")
MAX_NAME = 64
#: How deep a schema is followed (nesting and inlined $refs); deeper parts are dropped, and said.
MAX_DEPTH = 32
#: The budget of a schema handed on (``over_budget``): containers nested at most this deep, and at
#: most this many values in all, counted with its local ``$ref``s inlined as a framework or Gemini
#: inlines them (a ``$ref`` back into its own chain counts once: it is cut, not followed).
MAX_SCHEMA_DEPTH = 64
MAX_NODES = 20_000
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
_ROOT_COMBINATORS = ("anyOf", "oneOf", "allOf", "not", "enum")
#: Keywords that change nothing of what a model is told: which dialect, the schema's identity,
#: notes for its readers. Left out without a word.
_SILENT = ("$schema", "$id", "$comment", "$anchor", "$dynamicAnchor", "$vocabulary")
#: Annotations for MCP's transport, none of a model's business.
_TRANSPORT_KEYWORDS = ("x-mcp-header",)
#: What Gemini's Schema has (its field names on the wire), beside ``type``.
_GEMINI_KEYWORDS = frozenset(
    {
        "additionalProperties",
        "anyOf",
        "default",
        "description",
        "enum",
        "example",
        "format",
        "items",
        "maxItems",
        "maxLength",
        "maxProperties",
        "maximum",
        "minItems",
        "minLength",
        "minProperties",
        "minimum",
        "nullable",
        "pattern",
        "properties",
        "propertyOrdering",
        "required",
        "title",
    }
)
_GEMINI_TYPES = ("string", "number", "integer", "boolean", "array", "object", "null")


def safe_names(names: Iterable[str]) -> dict[str, str]:
    """``{tool name: function name}``: names every format accepts, unique, stable for the same list."""
    result: dict[str, str] = {}
    taken: set[str] = set()
    for name in names:
        safe = _UNSAFE.sub("_", name) or "tool"
        if not (safe[0].isalpha() or safe[0] == "_"):
            safe = "_" + safe
        if len(safe) > MAX_NAME:
            safe = safe[: MAX_NAME - 9] + "_" + hashlib.sha256(name.encode()).hexdigest()[:8]
        candidate, number = safe, 2
        while candidate in taken:
            suffix = f"_{number}"
            candidate = safe[: MAX_NAME - len(suffix)] + suffix
            number += 1
        taken.add(candidate)
        result[name] = candidate
    return result


def over_budget(schema: Any) -> Optional[str]:
    """Why ``schema`` is too deep or too large to hand to a model or a framework, or ``None``.

    One walk without recursion, stopped as soon as the budget is spent: at most ``MAX_NODES`` steps
    whatever the schema (a 200-byte ``$ref`` fan-out that inlines to billions of nodes costs the same
    as any schema of ``MAX_NODES`` values).
    """
    stack: list[tuple[Any, int, tuple[str, ...]]] = [(schema, 0, ())]
    nodes = 0
    while stack:
        node, depth, chain = stack.pop()
        nodes += 1
        if nodes > MAX_NODES:
            return f"larger than {MAX_NODES} values with its $refs inlined"
        if depth > MAX_SCHEMA_DEPTH:
            return f"nested deeper than {MAX_SCHEMA_DEPTH}"
        if isinstance(node, Mapping):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref not in chain:
                target = _local(schema, ref)
                if target is not None:
                    stack.append((target, depth + 1, (*chain, ref)))
            stack.extend((value, depth + 1, chain) for value in node.values() if isinstance(value, (Mapping, list)))
            nodes += sum(1 for value in node.values() if not isinstance(value, (Mapping, list)))
        elif isinstance(node, list):
            stack.extend((value, depth + 1, chain) for value in node if isinstance(value, (Mapping, list)))
            nodes += sum(1 for value in node if not isinstance(value, (Mapping, list)))
    return None


def _local(root: Any, ref: str) -> Any:
    """What the local ``$ref`` (``#/$defs/x``, any JSON pointer into ``root``) points at, or ``None``."""
    if not ref.startswith("#/"):
        return None
    node = root
    for part in ref[2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(node, Mapping) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    return node


def adapt_schema(schema: Mapping[str, Any], format: str) -> tuple[dict[str, Any], list[str]]:
    """``(schema for the format, [paths of what was dropped])``; the tool's own schema is left as it is."""
    if format not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, not {format!r}")
    dropped: list[str] = []
    if format == "gemini":
        found = schema.get("$defs")
        defs: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
        adapted = _gemini(schema, defs, "", dropped, 0, ())
        if adapted.get("type") != "object":
            dropped.append("type" if "type" in adapted else "(root type: object)")
            adapted = {"type": "object", "properties": {}}
        return adapted, dropped
    adapted = _without_transport(copy.deepcopy(dict(schema)))
    for key in _SILENT:
        adapted.pop(key, None)
    for key in _ROOT_COMBINATORS:
        if key in adapted:
            del adapted[key]
            dropped.append(key)
    if adapted.get("type") != "object":
        if "type" in adapted:
            dropped.append("type")
        adapted["type"] = "object"
    adapted.setdefault("properties", {})
    return adapted, dropped


def _gemini(
    schema: Any, defs: Mapping[str, Any], path: str, dropped: list[str], depth: int, chain: tuple[str, ...]
) -> dict[str, Any]:
    """One schema node in Gemini's subset: local ``$ref`` inlined (one that refers back into its own
    ``chain`` of refs cut and said: Gemini has no recursion), the rest kept where Gemini has it."""
    if not isinstance(schema, Mapping):
        return {}
    if depth > MAX_DEPTH:
        dropped.append(f"{path or '(root)'} (deeper than {MAX_DEPTH})")
        return {}
    ref = schema.get("$ref")
    if isinstance(ref, str):
        target = defs.get(ref[len("#/$defs/") :]) if ref.startswith("#/$defs/") else None
        if target is None:
            dropped.append(_at(path, "$ref"))
        elif ref in chain:
            dropped.append(f"{_at(path, '$ref')} (recursive)")
        else:
            merged = {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
            return _gemini(merged, defs, path, dropped, depth + 1, (*chain, ref))
    out: dict[str, Any] = {}
    kind = schema.get("type")
    if isinstance(kind, list):
        kinds = [k for k in kind if k in _GEMINI_TYPES and k != "null"]
        if "null" in kind:
            out["nullable"] = True
        if len(kinds) == 1:
            out["type"] = kinds[0]
        elif kinds:
            out["anyOf"] = [{"type": k} for k in kinds]
    elif kind in _GEMINI_TYPES:
        out["type"] = kind
    elif kind is not None:
        dropped.append(_at(path, "type"))
    for key, value in schema.items():
        where = _at(path, key)
        if key in ("type", "$ref", "$defs") or key in _TRANSPORT_KEYWORDS or key in _SILENT:
            continue
        if key == "properties" and isinstance(value, Mapping):
            out[key] = {
                name: _gemini(sub, defs, _at(where, name), dropped, depth + 1, chain) for name, sub in value.items()
            }
        elif key == "items" and isinstance(value, Mapping):
            out[key] = _gemini(value, defs, where, dropped, depth + 1, chain)
        elif key in ("anyOf", "oneOf") and isinstance(value, list):
            out["anyOf"] = [
                _gemini(sub, defs, f"{where}.{i}", dropped, depth + 1, chain) for i, sub in enumerate(value)
            ]
            if key == "oneOf":
                dropped.append(f"{where} (as anyOf)")
        elif key == "additionalProperties" and isinstance(value, Mapping):
            out[key] = _gemini(value, defs, where, dropped, depth + 1, chain)
        elif key == "const":
            if isinstance(value, str):
                out["enum"] = [value]
            else:
                dropped.append(where)
        elif key == "enum" and isinstance(value, list):
            if all(isinstance(v, str) for v in value):
                out[key] = list(value)
            else:
                dropped.append(where)  # Gemini's enum is of strings
        elif key in _GEMINI_KEYWORDS:
            out[key] = copy.deepcopy(value)
        else:
            dropped.append(where)
    return out


def _without_transport(schema: Any) -> Any:
    """The schema without MCP's transport annotations (``x-mcp-header``), at any depth."""
    if isinstance(schema, dict):
        return {k: _without_transport(v) for k, v in schema.items() if k not in _TRANSPORT_KEYWORDS}
    if isinstance(schema, list):
        return [_without_transport(v) for v in schema]
    return schema


def _at(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key
