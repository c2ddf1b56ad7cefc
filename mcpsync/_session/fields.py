"""What a server's message must have, and the readers that check it.

``REQUIRED_FIELDS`` names the members each schema definition requires in every revision that has
it; reading a message without one (or with one of the wrong type) is a ``ProtocolError`` naming
the member. ``LENIENT_FIELDS`` and ``RESULT_HINTS`` name the required members read with a
default instead. The readers (``required_member``, ``optional_member``, ``read_fields`` over a
``FieldSpec``) are what the typed models build themselves with.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._core.errors import ProtocolError

__all__ = [
    "LENIENT_FIELDS",
    "REQUIRED_FIELDS",
    "RESOURCE_FIELDS",
    "RESULT_HINTS",
    "TEMPLATE_FIELDS",
    "TOOL_FIELDS",
    "FieldSpec",
    "as_object",
    "optional_member",
    "read_fields",
    "required_member",
]


def required_member(data: Mapping[str, Any], key: str, kind: type, where: str) -> Any:
    """``data[key]``, which must be there and a ``kind``; else a ``ProtocolError`` naming it and ``where``."""
    value = data.get(key)
    if not isinstance(value, kind):
        raise ProtocolError(f"{where}: '{key}' must be a {kind.__name__}, got {value!r}")
    return value


def optional_member(data: Mapping[str, Any], key: str, kind: type, where: str) -> Any:
    """``data[key]`` if there and not ``None`` (then it must be a ``kind``), else ``None``."""
    value = data.get(key)
    if value is not None and not isinstance(value, kind):
        raise ProtocolError(f"{where}: '{key}' must be a {kind.__name__}, got {value!r}")
    return value


#: A field read from the wire: (attribute, wire key, type, required).
FieldSpec = tuple[tuple[str, str, type, bool], ...]


def as_object(data: Any, where: str) -> Mapping[str, Any]:
    """``data``, which must be a JSON object; else a ``ProtocolError`` saying ``where``."""
    if not isinstance(data, Mapping):
        raise ProtocolError(f"{where}: expected an object, got {data!r}")
    return data


def read_fields(data: Mapping[str, Any], spec: FieldSpec, where: str) -> dict[str, Any]:
    """Read the fields ``spec`` names, each checked for its type (and presence, if required)."""
    return {
        attr: (required_member if needed else optional_member)(data, key, kind, where)
        for attr, key, kind, needed in spec
    }


_DESCRIBED: FieldSpec = (
    ("name", "name", str, True),
    ("title", "title", str, False),
    ("description", "description", str, False),
)
RESOURCE_FIELDS: FieldSpec = (
    ("uri", "uri", str, True),
    *_DESCRIBED,
    ("mime_type", "mimeType", str, False),
    ("size", "size", int, False),
    ("annotations", "annotations", Mapping, False),
)


TOOL_FIELDS: FieldSpec = (
    *_DESCRIBED,
    ("input_schema", "inputSchema", Mapping, True),
    ("output_schema", "outputSchema", Mapping, False),
    ("annotations", "annotations", Mapping, False),
    ("execution", "execution", Mapping, False),
)


TEMPLATE_FIELDS: FieldSpec = (
    ("uri_template", "uriTemplate", str, True),
    *_DESCRIBED,
    ("mime_type", "mimeType", str, False),
    ("annotations", "annotations", Mapping, False),
)


def _required(spec: FieldSpec, *also: str) -> tuple[str, ...]:
    return (*also, *(key for _, key, _, needed in spec if needed))


#: The members a server's message must have, by the schema definition (``$defs``) that describes it:
#: without one (or with one of the wrong type), reading it is a ``ProtocolError`` naming the member.
#: Each is required by the schema of every revision that has the definition; all else is optional.
REQUIRED_FIELDS: Mapping[str, tuple[str, ...]] = {
    "InitializeResult": ("protocolVersion", "serverInfo"),
    "DiscoverResult": ("supportedVersions",),
    "Implementation": ("name",),
    "Tool": _required(TOOL_FIELDS),
    "ListToolsResult": ("tools",),
    "CallToolResult": (),
    "Resource": _required(RESOURCE_FIELDS),
    "ListResourcesResult": ("resources",),
    "ResourceTemplate": _required(TEMPLATE_FIELDS),
    "ListResourceTemplatesResult": ("resourceTemplates",),
    "ReadResourceResult": ("contents",),
    "TextResourceContents": ("uri", "text"),
    "BlobResourceContents": ("uri", "blob"),
    "Prompt": ("name",),
    "PromptArgument": ("name",),
    "ListPromptsResult": ("prompts",),
    "GetPromptResult": ("messages",),
    "PromptMessage": ("role", "content"),
    "CompleteResult": ("completion",),
    "TextContent": ("type", "text"),
    "ImageContent": ("type", "data", "mimeType"),
    "AudioContent": ("type", "data", "mimeType"),
    "ResourceLink": _required(RESOURCE_FIELDS, "type"),
    "EmbeddedResource": ("type", "resource"),
}
#: The 2026-07-28 revision's members of every result that the schema requires and we do without:
#: an absent ``resultType`` means complete (as from a server of an earlier revision), absent cache
#: hints mean no caching.
RESULT_HINTS = ("resultType", "ttlMs", "cacheScope")
#: Members a schema requires that are read with a default when a server leaves them out (besides
#: ``RESULT_HINTS``), by definition: liberal in what we accept, where the default says no more
#: than the server did.
LENIENT_FIELDS: Mapping[str, tuple[str, ...]] = {
    "InitializeResult": ("capabilities",),  # {}: nothing declared
    "DiscoverResult": ("capabilities",),  # {}: nothing declared
    "Implementation": ("version",),  # "": the server did not say
    "CallToolResult": ("content",),  # []: a result with structuredContent alone
}
