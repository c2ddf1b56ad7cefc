"""Typed views of what servers send: server info, tools, tool results.

Each keeps the dict it came from in ``raw``, so nothing the server sent is
lost when the typed fields do not cover it. ``from_dict`` raises
``ProtocolError`` naming the field when a required member is missing or of
the wrong type.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Optional

from .errors import ProtocolError, ToolError

__all__ = ["CallToolResult", "ServerInfo", "Tool"]


def _require(data: Mapping[str, Any], key: str, kind: type, where: str) -> Any:
    value = data.get(key)
    if not isinstance(value, kind):
        raise ProtocolError(f"{where}: '{key}' must be a {kind.__name__}, got {value!r}")
    return value


def _optional(data: Mapping[str, Any], key: str, kind: type, where: str) -> Any:
    value = data.get(key)
    if value is not None and not isinstance(value, kind):
        raise ProtocolError(f"{where}: '{key}' must be a {kind.__name__}, got {value!r}")
    return value


@dataclass(frozen=True)
class ServerInfo:
    """The server's ``serverInfo`` from ``initialize``: name, version and optional title."""

    name: str
    version: str
    title: Optional[str] = None
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_dict(cls, data: Any) -> ServerInfo:
        """Build from the ``serverInfo`` dict."""
        where = "initialize result serverInfo"
        if not isinstance(data, Mapping):
            raise ProtocolError(f"{where}: expected an object, got {data!r}")
        return cls(
            name=_require(data, "name", str, where),
            # Some servers leave the version out; an empty string says so honestly.
            version=_optional(data, "version", str, where) or "",
            title=_optional(data, "title", str, where),
            raw=data,
        )


@dataclass(frozen=True)
class Tool:
    """A tool a server offers (from ``tools/list``)."""

    name: str
    description: Optional[str]
    input_schema: Mapping[str, Any]
    output_schema: Optional[Mapping[str, Any]] = None
    title: Optional[str] = None
    annotations: Optional[Mapping[str, Any]] = None
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_dict(cls, data: Any, where: str = "tool") -> Tool:
        """Build from one entry of ``tools/list``'s ``tools``."""
        if not isinstance(data, Mapping):
            raise ProtocolError(f"{where}: expected an object, got {data!r}")
        return cls(
            name=_require(data, "name", str, where),
            description=_optional(data, "description", str, where),
            input_schema=_require(data, "inputSchema", Mapping, where),
            output_schema=_optional(data, "outputSchema", Mapping, where),
            title=_optional(data, "title", str, where),
            annotations=_optional(data, "annotations", Mapping, where),
            raw=data,
        )


@dataclass(frozen=True)
class CallToolResult:
    """What ``tools/call`` returned.

    A tool that fails reports it as data (``is_error``), not as a JSON-RPC
    error; ``raise_for_error()`` turns that into a ``ToolError`` for callers
    who prefer exceptions.

    Attributes:
        content: the content blocks (dicts with ``type``: text, image, audio,
            resource_link, resource).
        structured_content: the ``structuredContent`` object, if any.
        is_error: whether the tool reported failure.
        tool_name: the tool that was called.
        meta: the result's ``_meta``, if any.
    """

    content: list[dict[str, Any]]
    structured_content: Optional[dict[str, Any]] = None
    is_error: bool = False
    tool_name: str = ""
    meta: Optional[dict[str, Any]] = None
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], tool_name: str = "") -> CallToolResult:
        """Build from a ``tools/call`` result."""
        where = f"tools/call {tool_name!r} result"
        content = data.get("content", [])
        if not isinstance(content, list) or not all(isinstance(c, dict) for c in content):
            raise ProtocolError(f"{where}: 'content' must be a list of objects, got {content!r}")
        is_error = data.get("isError", False)
        if not isinstance(is_error, bool):
            raise ProtocolError(f"{where}: 'isError' must be a boolean, got {is_error!r}")
        return cls(
            content=content,
            structured_content=_optional(data, "structuredContent", dict, where),
            is_error=is_error,
            tool_name=tool_name,
            meta=_optional(data, "_meta", dict, where),
            raw=data,
        )

    @property
    def text(self) -> str:
        """The text of all text content blocks, joined by newlines."""
        return "\n".join(
            block["text"]
            for block in self.content
            if block.get("type") == "text" and isinstance(block.get("text"), str)
        )

    def raise_for_error(self) -> CallToolResult:
        """Raise ``ToolError`` if the tool reported failure; else return the result itself."""
        if self.is_error:
            detail = self.text or "no text given"
            raise ToolError(f"tool {self.tool_name!r} failed: {detail}", self)
        return self
