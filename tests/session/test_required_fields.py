"""What mcpsync requires of a server's message is what the published MCP schemas require, no more.

The schemas are those the pinned conformance suite ships (tests/conformance, installed by
``npm ci``), read by tests/published_schemas.py: nothing is copied into the project by hand.
For every definition mcpsync reads (``REQUIRED_FIELDS``) and every revision that has it:

- each member we require is required by the schema (optional means optional);
- each member the schema requires is one we require, or one we read with a default
  (``LENIENT_FIELDS``, ``RESULT_HINTS``): the list is complete;
- a message with only what the schema requires, plus a member nobody knows, is read;
- a message without one of the members we require is a ``ProtocolError`` naming it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Callable

import pytest

from mcpsync import ProtocolError
from mcpsync._session.content import ResourceContents, content_block
from mcpsync._session.fields import LENIENT_FIELDS, REQUIRED_FIELDS, RESULT_HINTS
from mcpsync._session.models import (
    CallToolResult,
    Completion,
    GetPromptResult,
    Prompt,
    ReadResourceResult,
    Resource,
    ResourceTemplate,
    ServerInfo,
    Tool,
)
from tests.published_schemas import BUNDLE, NODE, definitions, resolve

#: The revisions mcpsync speaks.
REVISIONS = ("2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")


def required(revision: str, name: str) -> set[str]:
    return set(definitions(revision)[name].get("required", ()))


def minimal(revision: str, node: Mapping[str, Any]) -> Any:
    """The smallest value the schema ``node`` allows: an object has only its required members."""
    node = resolve(revision, node)
    if "const" in node:
        return node["const"]
    if "enum" in node:
        return node["enum"][0]
    for choice in ("anyOf", "oneOf"):
        if choice in node:
            return minimal(revision, node[choice][0])
    kind = node.get("type", "object")
    kind = kind[0] if isinstance(kind, list) else kind
    if kind == "object":
        properties = node.get("properties", {})
        return {key: minimal(revision, properties.get(key, {"type": "string"})) for key in node.get("required", ())}
    return {"string": "x", "integer": 0, "number": 0, "boolean": False, "array": [], "null": None}[kind]


#: How mcpsync reads each definition it reads on its own (the listings and the two handshakes are
#: read by the client and are proved against tests/session/test_minimal_server.py's server).
READERS: dict[str, Callable[[Any], Any]] = {
    "Implementation": ServerInfo.from_dict,
    "Tool": Tool.from_dict,
    "CallToolResult": CallToolResult.from_dict,
    "Resource": Resource.from_dict,
    "ResourceTemplate": ResourceTemplate.from_dict,
    "ReadResourceResult": ReadResourceResult.from_dict,
    "TextResourceContents": ResourceContents.from_dict,
    "BlobResourceContents": ResourceContents.from_dict,
    "Prompt": Prompt.from_dict,
    "PromptArgument": lambda data: Prompt.from_dict({"name": "p", "arguments": [data]}),
    "GetPromptResult": GetPromptResult.from_dict,
    "PromptMessage": lambda data: GetPromptResult.from_dict({"messages": [data]}),
    "CompleteResult": Completion.from_dict,
    "TextContent": content_block,
    "ImageContent": content_block,
    "AudioContent": content_block,
    "ResourceLink": content_block,
    "EmbeddedResource": content_block,
}


def _cases(names: Iterable[str]) -> list[tuple[str, str]]:
    """Each revision with each of ``names`` it defines (every pair, to be skipped, when the schemas cannot be read)."""
    pairs = [(revision, name) for revision in REVISIONS for name in names]
    if not (NODE.exists() and BUNDLE.exists()):
        return pairs
    return [(revision, name) for revision, name in pairs if name in definitions(revision)]


CASES = _cases(REQUIRED_FIELDS)


def known(revision: str, name: str) -> None:
    if name not in definitions(revision):
        pytest.skip(f"{revision} has no {name}")


@pytest.mark.parametrize(("revision", "name"), CASES)
def test_we_require_only_what_the_schema_requires(revision: str, name: str) -> None:
    """Every member REQUIRED_FIELDS names is required by the published schema of the revision."""
    known(revision, name)
    assert set(REQUIRED_FIELDS[name]) <= required(revision, name)


@pytest.mark.parametrize(("revision", "name"), CASES)
def test_every_member_the_schema_requires_is_required_or_defaulted(revision: str, name: str) -> None:
    """What the schema requires is in REQUIRED_FIELDS, or read with a default (LENIENT_FIELDS, and the
    2026-07-28 result hints): nothing the schema requires goes unaccounted for."""
    known(revision, name)
    accounted = set(REQUIRED_FIELDS[name]) | set(LENIENT_FIELDS.get(name, ()))
    if name.endswith("Result"):
        accounted |= set(RESULT_HINTS)
    assert required(revision, name) <= accounted


def test_the_lenient_fields_are_required_somewhere() -> None:
    """LENIENT_FIELDS names only members some revision requires (else they are plain optional ones)."""
    for name, fields in LENIENT_FIELDS.items():
        assert set(fields) <= set().union(*(required(r, name) for r in REVISIONS if name in definitions(r)))


READ_CASES = _cases(READERS)


@pytest.mark.parametrize(("revision", "name"), READ_CASES)
def test_a_message_with_only_the_required_members_and_an_unknown_one_is_read(revision: str, name: str) -> None:
    """The smallest message the schema allows, with an extra member of a later revision, is read, and
    the extra member is kept in ``raw``."""
    known(revision, name)
    message = {**minimal(revision, definitions(revision)[name]), "fromTheFuture": {"x": 1}}
    read = READERS[name](message)
    assert read is not None


@pytest.mark.parametrize(("revision", "name"), READ_CASES)
def test_a_message_without_a_required_member_names_it(revision: str, name: str) -> None:
    """Each member we require, left out of the smallest message, is a ProtocolError that names it."""
    known(revision, name)
    message = minimal(revision, definitions(revision)[name])
    for key in REQUIRED_FIELDS[name]:
        broken = {k: v for k, v in message.items() if k != key}
        with pytest.raises(ProtocolError, match=f"'{key}'"):
            READERS[name](broken)
