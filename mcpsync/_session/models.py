r"""Typed views of the results servers send: server info, the entries of listings, tool results.

``ServerInfo``; the entries of listings (``Tool``, ``Resource``, ``ResourceTemplate``, ``Prompt``,
with their ``Icon``\ s) and a ``Page`` of them; the results of ``tools/call``, ``resources/read``,
``prompts/get`` and ``completion/complete``. Each keeps the dict it came from in ``raw``, so
nothing the server sent is lost when the typed fields do not cover it. ``from_dict`` raises
``ProtocolError`` naming the field when a required member is missing or of the wrong type; what
is required is in ``fields.REQUIRED_FIELDS``, the content blocks results carry in ``content``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Generic, NamedTuple, Optional, TypeVar

from .._core.errors import ProtocolError
from .._core.feature_errors import ToolError
from .._core.text import cut, first_line
from . import result_hooks
from .apps import ToolUi, tool_ui, visibility_of
from .content import ContentBlock, ResourceContents, TextContent, block_gist, content_block, made, plain_text
from .fields import (
    RESOURCE_FIELDS,
    TEMPLATE_FIELDS,
    TOOL_FIELDS,
    FieldSpec,
    as_object,
    optional_member,
    read_fields,
    required_member,
)

if TYPE_CHECKING:
    from .app_view import AppView

__all__ = [
    "CallOrigin",
    "CallToolResult",
    "Completion",
    "GetPromptResult",
    "Icon",
    "Page",
    "Prompt",
    "PromptArgument",
    "PromptMessage",
    "ReadResourceResult",
    "Resource",
    "ResourceTemplate",
    "ServerInfo",
    "Tool",
    "parameters_signature",
]


#: Characters of a failed tool call's first text shown in its repr: enough for what went wrong.
ERROR_GIST = 120


def parameters_signature(schema: Any) -> str:
    """A tool's top-level parameters as ``"a, b, c?"`` (``?`` marks the optional ones)."""
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    if not isinstance(properties, Mapping):
        return ""
    required = schema.get("required")
    needed = set(required) if isinstance(required, list) else set()
    return ", ".join(str(name) + ("" if name in needed else "?") for name in properties)


def _gist(description: Optional[str]) -> str:
    line = first_line(description, 60)
    return f": {line}" if line else ""


_Wire = TypeVar("_Wire", bound="_FromWire")
_Item = TypeVar("_Item")


@dataclass(frozen=True)
class Icon:
    """An icon a server offers for itself, a tool, a resource, a template or a prompt (2025-11-25).

    Attributes:
        src: an ``http(s):`` URL or a ``data:`` URI. Nothing is fetched: whoever shows it should
            trust its origin first, and treat an SVG with care (it may hold scripts).
        mime_type: the image type, when the source does not say it well (``image/png``, say).
        sizes: ``"48x48"``-style sizes, or ``"any"``; empty: any size.
        theme: ``"light"`` or ``"dark"`` (the background it is made for); ``None``: any.
        raw: the dict as the server sent it.
    """

    src: str
    mime_type: Optional[str] = None
    sizes: tuple[str, ...] = ()
    theme: Optional[str] = None
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def __repr__(self) -> str:
        details = " ".join(part for part in (self.mime_type, ",".join(self.sizes), self.theme) if part)
        return f"<Icon {cut(self.src, 60)!r}{' ' + details if details else ''}>"


def _icons(data: Mapping[str, Any]) -> tuple[Icon, ...]:
    """The ``icons`` of a server, tool, resource, template or prompt.

    Icons only decorate: one that is malformed (no string ``src``) is left out, a malformed
    ``sizes`` or ``theme`` read as absent, rather than losing the whole entry they belong to.
    """
    icons = data.get("icons")
    found = []
    for icon in icons if isinstance(icons, list) else ():
        if not isinstance(icon, Mapping) or not isinstance(icon.get("src"), str):
            continue
        mime_type, sizes, theme = icon.get("mimeType"), icon.get("sizes"), icon.get("theme")
        found.append(
            Icon(
                icon["src"],
                mime_type if isinstance(mime_type, str) else None,
                tuple(size for size in sizes if isinstance(size, str)) if isinstance(sizes, list) else (),
                theme if isinstance(theme, str) else None,
                raw=icon,
            )
        )
    return tuple(found)


@dataclass(frozen=True)
class Page(Generic[_Item]):
    """One page of a listing (``Client.list_tools_page`` and its kin).

    Attributes:
        items: the page's items, typed (``Tool``, ``Resource``, ...).
        next_cursor: the cursor to ask for the next page with; ``None`` on the last page.
        raw: the result dict as the server sent it.
    """

    items: list[_Item]
    next_cursor: Optional[str] = None
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def __repr__(self) -> str:
        more = f" next_cursor={self.next_cursor!r}" if self.next_cursor is not None else ""
        return f"<Page {len(self.items)} items{more}>"


class _FromWire:
    """``from_dict`` for the types read straight from a table of fields (``_SPEC``)."""

    _SPEC: ClassVar[FieldSpec]
    _WHAT: ClassVar[str]

    @classmethod
    def from_dict(cls: type[_Wire], data: Any, where: Optional[str] = None) -> _Wire:
        """Build from the dict the server sent; ``ProtocolError`` names the field that is wrong."""
        where = where or cls._WHAT
        data = as_object(data, where)
        return cls(**read_fields(data, cls._SPEC, where), icons=_icons(data), raw=data)  # type: ignore[call-arg]


@dataclass(frozen=True)
class ServerInfo:
    """The server's ``serverInfo``: name, version and optional title.

    From ``initialize`` (where it is required), or from ``server/discover``'s ``_meta``
    (``io.modelcontextprotocol/serverInfo``, optional there): a server that sends none has an
    empty one, ``name`` and ``version`` ``""``. A ``version`` left out is ``""`` too.
    """

    name: str
    version: str
    title: Optional[str] = None
    #: The server's icons (``Icon``); not in its repr.
    icons: tuple[Icon, ...] = field(default=(), repr=False)
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_dict(cls, data: Any) -> ServerInfo:
        """Build from the ``serverInfo`` dict."""
        where = "initialize result serverInfo"
        if not isinstance(data, Mapping):
            raise ProtocolError(f"{where}: expected an object, got {data!r}")
        return cls(
            name=required_member(data, "name", str, where),
            # Some servers leave the version out; an empty string says so honestly.
            version=optional_member(data, "version", str, where) or "",
            title=optional_member(data, "title", str, where),
            icons=_icons(data),
            raw=data,
        )

    def __str__(self) -> str:
        """``name version`` (``name`` alone when the server left its version out)."""
        return " ".join(part for part in (self.name, self.version) if part)


@dataclass(frozen=True)
class Tool(_FromWire):
    """A tool a server offers (from ``tools/list``)."""

    name: str
    description: Optional[str]
    input_schema: Mapping[str, Any]
    output_schema: Optional[Mapping[str, Any]] = None
    title: Optional[str] = None
    annotations: Optional[Mapping[str, Any]] = None
    #: How the tool runs (``{"taskSupport": "required"}``, say); ``task_support`` reads it.
    execution: Optional[Mapping[str, Any]] = None
    #: The tool's icons (``Icon``); not in its repr.
    icons: tuple[Icon, ...] = field(default=(), repr=False)
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    _SPEC: ClassVar[FieldSpec] = TOOL_FIELDS
    _WHAT: ClassVar[str] = "tool"

    @property
    def task_support(self) -> str:
        """``"required"``, ``"optional"`` or ``"forbidden"`` (the default): whether the tool runs as a
        task (2025-11-25 ``execution.taskSupport``)."""
        value = (self.execution or {}).get("taskSupport")
        return value if value in ("required", "optional") else "forbidden"

    @property
    def visibility(self) -> tuple[str, ...]:
        """Who the tool is for, by the MCP Apps extension's ``_meta.ui.visibility``: ``"model"``,
        ``"app"`` (the app's interface alone may call it) or both, the default when it says nothing;
        ``()`` when the value is not a list of strings (no one can tell: a model never gets it)."""
        return visibility_of(self.raw.get("_meta"))

    @property
    def ui(self) -> Optional[ToolUi]:
        """The tool's view and visibility by the MCP Apps extension (``_meta.ui``), read liberally;
        ``None`` when it says nothing of the extension."""
        return tool_ui(self.raw.get("_meta"), f"tool {self.name!r}")

    def __repr__(self) -> str:
        return f"<Tool {self.name!r}({parameters_signature(self.input_schema)}){_gist(self.description)}>"


class CallOrigin(NamedTuple):
    """Where a ``tools/call`` result came from: what its ``ui`` needs to find the tool's view.

    Attributes:
        client: the key of the client that made the call (``origins.key_of``): data, kept by
            copies and pickles; it finds the client only while that client lives, in this process.
        arguments: the arguments the tool was called with.
    """

    client: str
    arguments: Mapping[str, Any]


def _call_result(tool_name: str) -> str:
    """Where a ``tools/call`` result's error is, in its message."""
    return f"tools/call {tool_name!r} result"


@dataclass(frozen=True)
class CallToolResult:
    """What ``tools/call`` returned.

    A tool that fails reports it as data (``is_error``), not as a JSON-RPC
    error; ``raise_for_error()`` turns that into a ``ToolError`` for callers
    who prefer exceptions.

    Attributes:
        content: the content blocks, typed (``TextContent``, ``ImageContent``,
            ``AudioContent``, ``ResourceLink``, ``EmbeddedResource``; ``UnknownContent``
            for newer types), each with its ``raw`` dict.
        structured_content: the ``structuredContent``, any JSON value (2026-07-28: an object, an
            array, a string, a number, a boolean or null); ``None`` when absent *or* ``null``:
            ``has_structured_content`` tells the two apart.
        is_error: whether the tool reported failure.
        tool_name: the tool that was called.
        meta: the result's ``_meta``, if any.
        origin: the call that made it (``CallOrigin``); ``None`` for a result built with ``from_dict``.
    """

    content: list[ContentBlock]
    structured_content: Any = None
    is_error: bool = False
    tool_name: str = ""
    meta: Optional[dict[str, Any]] = None
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)
    origin: Optional[CallOrigin] = field(default=None, repr=False, compare=False)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], tool_name: str = "") -> CallToolResult:
        """Build from a ``tools/call`` result."""
        return typed_call_result(data, tool_name, None, cls)

    @property
    def has_structured_content(self) -> bool:
        """Whether the result carries ``structuredContent``, ``null`` included (absent: ``False``)."""
        if self.raw:
            return "structuredContent" in self.raw
        return self.structured_content is not None

    @property
    def text(self) -> str:
        """The text of all text content blocks, joined by newlines."""
        content = self.content
        if len(content) == 1 and type(content[0]) is TextContent:  # the usual: one text block, no generator
            return content[0].text
        return "\n".join(block.text for block in self.content if isinstance(block, TextContent))

    @property
    def ui(self) -> Optional[AppView]:
        """The tool's MCP Apps view (an ``AppView``), or ``None`` when the tool has none.

        Lazy, and it does I/O the first time: the client that made the call lists its tools if it
        holds no list, and reads the view's ``ui://`` resource (``resources/read``) unless it has
        read it before (see ``AppView``); while the view is held, the same one is given again. A
        result with no ``origin`` (built with ``from_dict``), or whose client is gone, has no view.

        Raises:
            MCPError: the tool list or the resource could not be read (a ``ServerError``, a timeout).
        """
        find = result_hooks.app_view
        return find(self) if find is not None and self.origin is not None else None

    def raise_for_error(self) -> CallToolResult:
        """Raise ``ToolError`` if the tool reported failure; else return the result itself."""
        if self.is_error:
            detail = self.text or "no text given"
            raise ToolError(f"tool {self.tool_name!r} failed: {detail}", self)
        return self

    def __repr__(self) -> str:
        parts = [block_gist(block) for block in self.content[:5]]
        if self.is_error and self.content and isinstance(self.content[0], TextContent):
            parts[0] = f"text {cut(self.content[0].text, ERROR_GIST)!r}"  # the start of what went wrong
        if len(self.content) > 5:
            parts.append(f"+{len(self.content) - 5} more blocks")
        if self.has_structured_content:
            parts.append("structured " + cut(json.dumps(self.structured_content, ensure_ascii=False), 60))
        outcome = " error" if self.is_error else ""
        return f"<CallToolResult {self.tool_name!r}{outcome}: {', '.join(parts) or 'empty'}>"


def typed_call_result(
    data: Mapping[str, Any],
    tool_name: str = "",
    origin: Optional[CallOrigin] = None,
    cls: type[CallToolResult] = CallToolResult,
) -> CallToolResult:
    """``CallToolResult.from_dict`` (of ``cls``, default ``CallToolResult``), with the call's ``origin``
    (``None``: no client made it). A client's ``call_tool`` builds its results here."""
    # Every call passes here: where the result is wrong is said only when it is.
    content = data.get("content", [])
    # A plain text block is read at once; any other with all it may have, its place said if it is wrong.
    if type(content) is list and len(content) == 1 and (text := plain_text(content[0])) is not None:
        blocks: list[ContentBlock] = [text]  # the usual: one plain text block
    else:
        if not isinstance(content, list) or not all(isinstance(c, dict) for c in content):
            raise ProtocolError(f"{_call_result(tool_name)}: 'content' must be a list of objects, got {content!r}")
        blocks = [
            plain_text(block) or content_block(block, f"{_call_result(tool_name)} content #{n}")
            for n, block in enumerate(content)
        ]
    is_error = data.get("isError", False)
    if is_error is not False and is_error is not True:
        raise ProtocolError(f"{_call_result(tool_name)}: 'isError' must be a boolean, got {is_error!r}")
    meta = data.get("_meta")
    if meta is not None and not isinstance(meta, dict):
        optional_member(data, "_meta", dict, _call_result(tool_name))  # raises, saying what it is
    fields: dict[str, Any] = {
        "content": blocks,
        # Any JSON value, in both eras: 2025-11-25's schema says an object, but an array from
        # such a server is still unambiguous, and refusing it would help no one.
        "structured_content": data.get("structuredContent"),
        "is_error": is_error,
        "tool_name": tool_name,
        "meta": meta,
        "raw": data,
        "origin": origin,
    }
    return made(cls, fields) if cls is CallToolResult else cls(**fields)  # a subclass: by its own __init__


@dataclass(frozen=True)
class Resource(_FromWire):
    """A resource a server offers (from ``resources/list``)."""

    uri: str
    name: str
    title: Optional[str] = None
    description: Optional[str] = None
    mime_type: Optional[str] = None
    size: Optional[int] = None
    annotations: Optional[Mapping[str, Any]] = None
    #: The resource's icons (``Icon``); not in its repr.
    icons: tuple[Icon, ...] = field(default=(), repr=False)
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    _SPEC: ClassVar[FieldSpec] = RESOURCE_FIELDS
    _WHAT: ClassVar[str] = "resource"

    def __repr__(self) -> str:
        kind = f" {self.mime_type}" if self.mime_type else ""
        return f"<Resource {self.uri!r}{kind}{_gist(self.description or self.title)}>"


@dataclass(frozen=True)
class ResourceTemplate(_FromWire):
    """A parametrised resource (from ``resources/templates/list``), e.g. ``file:///{path}``."""

    uri_template: str
    name: str
    title: Optional[str] = None
    description: Optional[str] = None
    mime_type: Optional[str] = None
    annotations: Optional[Mapping[str, Any]] = None
    #: The template's icons (``Icon``); not in its repr.
    icons: tuple[Icon, ...] = field(default=(), repr=False)
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    _SPEC: ClassVar[FieldSpec] = TEMPLATE_FIELDS
    _WHAT: ClassVar[str] = "resource template"

    def __repr__(self) -> str:
        kind = f" {self.mime_type}" if self.mime_type else ""
        return f"<ResourceTemplate {self.uri_template!r}{kind}{_gist(self.description or self.title)}>"


@dataclass(frozen=True)
class ReadResourceResult:
    """What ``resources/read`` returned: one or more contents."""

    contents: list[ResourceContents]
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], uri: str = "") -> ReadResourceResult:
        """Build from a ``resources/read`` result."""
        items = data.get("contents")
        if not isinstance(items, list):
            raise ProtocolError(f"resources/read {uri!r} result: 'contents' must be a list, got {items!r}")
        where = f"resources/read {uri!r} contents"
        return cls([ResourceContents.from_dict(item, f"{where} #{n}") for n, item in enumerate(items)], raw=data)

    def __repr__(self) -> str:
        if len(self.contents) == 1:
            return f"<ReadResourceResult {repr(self.contents[0])[len('<ResourceContents ') : -1]}>"
        uris = ", ".join(repr(c.uri) for c in self.contents[:3])
        return f"<ReadResourceResult {len(self.contents)} contents: {uris}>"

    @property
    def text(self) -> str:
        """The text of all text contents, joined by newlines."""
        return "\n".join(item.text for item in self.contents if item.text is not None)


@dataclass(frozen=True)
class PromptArgument:
    """One argument a prompt takes."""

    name: str
    description: Optional[str] = None
    required: bool = False


@dataclass(frozen=True)
class Prompt:
    """A prompt a server offers (from ``prompts/list``)."""

    name: str
    title: Optional[str] = None
    description: Optional[str] = None
    arguments: tuple[PromptArgument, ...] = ()
    #: The prompt's icons (``Icon``); not in its repr.
    icons: tuple[Icon, ...] = field(default=(), repr=False)
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_dict(cls, data: Any, where: str = "prompt") -> Prompt:
        """Build from one entry of ``prompts/list``'s ``prompts``."""
        if not isinstance(data, Mapping):
            raise ProtocolError(f"{where}: expected an object, got {data!r}")
        arguments = data.get("arguments") or []
        if not isinstance(arguments, list):
            raise ProtocolError(f"{where}: 'arguments' must be a list, got {arguments!r}")
        parsed = []
        for n, item in enumerate(arguments):
            spot = f"{where} argument #{n}"
            if not isinstance(item, Mapping):
                raise ProtocolError(f"{spot}: expected an object, got {item!r}")
            parsed.append(
                PromptArgument(
                    name=required_member(item, "name", str, spot),
                    description=optional_member(item, "description", str, spot),
                    required=bool(optional_member(item, "required", bool, spot)),
                )
            )
        return cls(
            name=required_member(data, "name", str, where),
            title=optional_member(data, "title", str, where),
            description=optional_member(data, "description", str, where),
            arguments=tuple(parsed),
            icons=_icons(data),
            raw=data,
        )

    def __repr__(self) -> str:
        arguments = ", ".join(a.name + ("" if a.required else "?") for a in self.arguments)
        return f"<Prompt {self.name!r}({arguments}){_gist(self.description)}>"


@dataclass(frozen=True)
class PromptMessage:
    """One message of a prompt: ``role`` (user or assistant) and a typed content block."""

    role: str
    content: ContentBlock

    @property
    def text(self) -> Optional[str]:
        """The text, when the content is a text block."""
        return self.content.text if isinstance(self.content, TextContent) else None

    def __repr__(self) -> str:
        shown = repr(cut(self.text, 50)) if self.text is not None else f"<{getattr(self.content, 'type', 'content')}>"
        return f"<PromptMessage {self.role}: {shown}>"


@dataclass(frozen=True)
class GetPromptResult:
    """What ``prompts/get`` returned: an optional description and the messages."""

    messages: list[PromptMessage]
    description: Optional[str] = None
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], name: str = "") -> GetPromptResult:
        """Build from a ``prompts/get`` result."""
        where = f"prompts/get {name!r} result"
        items = data.get("messages")
        if not isinstance(items, list):
            raise ProtocolError(f"{where}: 'messages' must be a list, got {items!r}")
        parsed = []
        for n, item in enumerate(items):
            spot = f"{where} message #{n}"
            if not isinstance(item, Mapping):
                raise ProtocolError(f"{spot}: expected an object, got {item!r}")
            content = content_block(required_member(item, "content", Mapping, spot), f"{spot} content")
            parsed.append(PromptMessage(required_member(item, "role", str, spot), content))
        return cls(parsed, optional_member(data, "description", str, where), raw=data)

    def __repr__(self) -> str:
        count = f"{len(self.messages)} message{'' if len(self.messages) == 1 else 's'}"
        first = f": {repr(self.messages[0])[len('<PromptMessage ') : -1]}" if self.messages else ""
        more = ", ..." if len(self.messages) > 1 else ""
        return f"<GetPromptResult {count}{first}{more}>"


@dataclass(frozen=True)
class Completion:
    """What ``completion/complete`` offered for an argument."""

    values: list[str]
    total: Optional[int] = None
    has_more: bool = False
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Completion:
        """Build from a ``completion/complete`` result."""
        where = "completion/complete result"
        completion = data.get("completion")
        if not isinstance(completion, Mapping):
            raise ProtocolError(f"{where}: 'completion' must be an object, got {completion!r}")
        values = completion.get("values")
        if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
            raise ProtocolError(f"{where}: 'values' must be a list of strings, got {values!r}")
        return cls(
            values=values,
            total=optional_member(completion, "total", int, where),
            has_more=bool(optional_member(completion, "hasMore", bool, where)),
            raw=data,
        )
