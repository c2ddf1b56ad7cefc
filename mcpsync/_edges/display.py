"""How mcpsync's values show in Jupyter: ``_repr_html_`` and short ``__repr__`` texts.

Nothing here needs a third-party package. A notebook runs whatever HTML an
output carries, so everything a server sends (names, descriptions, schemas,
tool output, URIs, MIME types, error messages) is escaped with
``html.escape`` before it goes into the page, and it never goes into an
attribute, with two checked exceptions:

- links (``href``) only to ``http://`` and ``https://`` URLs; any other URI
  is shown as text;
- media only as ``data:`` URLs whose type comes from our allow-list (PNG,
  JPEG, GIF and WebP images; WAV, MP3 and Ogg audio; never SVG, which can
  carry script), checked against the bytes themselves, and whose base64 is
  encoded again from the decoded bytes.

No output has ``<script>``, event handler attributes or styles from a server;
very long texts are cut with a visible note.

Nothing below knows this module. ``to_html`` dispatches on the type of a
value (``functools.singledispatch``) and reads only public attributes; a
list of values of one kind becomes a table. ``register(shell)`` tells an
IPython shell to use it for mcpsync's types, which ``import mcpsync`` does
when it runs inside one.
"""

from __future__ import annotations

import base64
import functools
import html
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Optional, Union

from .._core.errors import ProtocolError
from .._core.text import cut, first_line
from .._manager.manager import Manager
from .._manager.records import ManagedPrompt, ManagedResource, ManagedTool, ServerStatus
from .._session.client import Client
from .._session.content import (
    AudioContent,
    EmbeddedResource,
    ImageContent,
    ResourceContents,
    ResourceLink,
    TextContent,
    UnknownContent,
)
from .._session.models import (
    CallToolResult,
    GetPromptResult,
    Prompt,
    PromptMessage,
    ReadResourceResult,
    Resource,
    ResourceTemplate,
    Tool,
)

__all__ = ["AUDIO_TYPES", "IMAGE_TYPES", "register", "status_html", "to_html"]

#: Image types shown inline. Not SVG: an SVG document can carry script.
IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
#: Audio types given a player.
AUDIO_TYPES = frozenset({"audio/wav", "audio/mpeg", "audio/ogg"})
#: Other names servers use for the allowed types.
_MIME_ALIASES = {
    "image/jpg": "image/jpeg",
    "audio/x-wav": "audio/wav",
    "audio/wave": "audio/wav",
    "audio/mp3": "audio/mpeg",
}
#: Longer texts (tool output, resource text, JSON) are cut, with a note saying so.
TEXT_LIMIT = 10_000
#: Longer descriptions in table cells are cut.
CELL_LIMIT = 1_000
#: Tables show at most this many rows, then say how many were left out.
ROW_LIMIT = 500
#: Larger media are described, not embedded (the notebook file would carry them).
MEDIA_LIMIT = 5_000_000
#: How deep nested schema properties are shown.
SCHEMA_DEPTH = 6
#: The only links made clickable; checked on the raw string, before any browser clean-up.
_WEB_URL = re.compile(r"https?://[^\s\"'<>\\`\x00-\x1f\x7f]+", re.IGNORECASE)

_STATE_COLOURS = {
    "connected": "#2e7d32",
    "open": "#2e7d32",
    "connecting": "#ef6c00",
    "reconnecting": "#ef6c00",
    "failed": "#c62828",
    "lost": "#c62828",
    "disabled": "#757575",
    "closed": "#757575",
    "unopened": "#757575",
}

_MUTED = "color:#777"
_RED = "#c62828"
_BOX = "border:1px solid #ccc;border-radius:4px;padding:4px 8px;margin:2px 0"
_ERROR_BOX = f"border:2px solid {_RED};border-radius:4px;padding:4px 8px;margin:2px 0"
_TABLE = "border-collapse:collapse;margin:2px 0"
_CELL = "border:1px solid #ddd;padding:2px 8px;text-align:left;vertical-align:top"
_PRE = "white-space:pre-wrap;word-break:break-word;margin:2px 0;padding:4px;background:rgba(127,127,127,0.08)"
_WRAP = "white-space:pre-wrap"

# -- entry points ------------------------------------------------------------------------------


@functools.singledispatch
def to_html(value: Any) -> Optional[str]:
    """The HTML view of an mcpsync value (model, result, list, client, manager, status); ``None`` for anything else."""
    return None


def register(shell: Any) -> None:
    """Make an IPython shell show mcpsync's values with ``to_html`` (lists only when all items have a view)."""
    formatter = shell.display_formatter.formatters["text/html"]
    for kind in to_html.registry:
        if kind is not object:
            formatter.for_type(kind, to_html)


@to_html.register
def _client_html(client: Client) -> str:
    """A client: server name, version and title, protocol, transport, state, the lists it holds."""
    info = client.server_info
    lists = client.cached_lists
    fetched = ", ".join(f"{len(items)} {kind}" for kind, items in lists.items()) or _muted("not listed yet")
    transport = client.transport
    rows = [
        ("Server", _esc(_server_text(client)) if info is not None else _muted("not connected yet")),
        ("Title", _esc(info.title) if info is not None and info.title else _muted("none")),
        ("Protocol", _esc(client.protocol_version or "") or _muted("not negotiated")),
        ("Transport", f"{_esc(transport.kind)} <code>{_text(transport.address, CELL_LIMIT)}</code>"),
        ("State", _state(_client_state(client))),
        ("Lists", fetched),
    ]
    body = _key_table(rows)
    if client.instructions:
        body += _details("Instructions", _pre(client.instructions))
    return _box(_heading("MCP client", client.name), body)


@to_html.register
def _manager_html(manager: Manager) -> str:
    """The status table of every configured server."""
    return status_html(manager.status().values())


@to_html.register
def _status_html(status: ServerStatus) -> str:
    return status_html([status])


def status_html(statuses: Iterable[ServerStatus]) -> str:
    """The manager's status table: server, state, transport, tools, server info, source, error."""
    rows = []
    for status in statuses:
        state = _state(status.state.value)
        if status.retry_in is not None:
            state += f"<br>{_muted(f'next attempt in {status.retry_in:.0f}s ({status.attempts} failed)')}"
        tools = str(status.tools) + (f" {_muted('(cached)')}" if status.tools_from_cache else "")
        info = status.server_info
        error = _esc(first_line(status.error, CELL_LIMIT)) if status.error else ""
        if status.stderr_tail:
            error += f"<br>{_muted('stderr: ' + _esc(first_line(status.stderr_tail[-1], CELL_LIMIT)))}"
        rows.append(
            (
                f"<b>{_esc(status.name)}</b>",
                state,
                _esc(status.transport),
                tools,
                _esc(str(info)) if info is not None else "",
                _esc(status.source),
                f'<span style="color:{_RED}">{error}</span>' if error else "",
            )
        )
    headers = ("Server", "State", "Transport", "Tools", "Server info", "Source", "Error")
    return _box(_heading("MCP servers", f"{len(rows)}"), _table(headers, rows))


# -- lists -------------------------------------------------------------------------------------


@to_html.register
def _list_html(items: list) -> Optional[str]:  # type: ignore[type-arg]
    """Items of one kind as a table; mixed items one after the other, if every one has a view."""
    if not items:
        return None
    first = type(items[0])
    table = _table_of.dispatch(first)
    if table is not _table_of.dispatch(object) and all(isinstance(item, first) for item in items):
        return table(items[0], items)
    views = [to_html(item) for item in items[:ROW_LIMIT]]
    if any(view is None for view in views):
        return None  # some items have no view: the plain repr shows them all
    return "".join(view or "" for view in views) + _left_out(len(items) - ROW_LIMIT, "items")


@functools.singledispatch
def _table_of(sample: Any, items: Sequence[Any]) -> Optional[str]:
    """The table of a list whose items are all of ``sample``'s type (``None``: no table for it)."""
    return None


@_table_of.register
def _(sample: Tool, items: Sequence[Tool]) -> str:
    return _tools_table(items, managed=False)


@_table_of.register
def _(sample: ManagedTool, items: Sequence[ManagedTool]) -> str:
    return _tools_table(items, managed=True)


@_table_of.register
def _(sample: Prompt, items: Sequence[Prompt]) -> str:
    return _prompts_table([(p, p.name, None) for p in items])


@_table_of.register
def _(sample: ManagedPrompt, items: Sequence[ManagedPrompt]) -> str:
    return _prompts_table([(p.prompt, p.name, p.server) for p in items])


@_table_of.register
def _(sample: Resource, items: Sequence[Resource]) -> str:
    return _resources_table([(r, None) for r in items])


@_table_of.register
def _(sample: ManagedResource, items: Sequence[ManagedResource]) -> str:
    return _resources_table([(r.resource, r.server) for r in items])


@_table_of.register
def _(sample: ServerStatus, items: Sequence[ServerStatus]) -> str:
    return status_html(items)


@_table_of.register
def _(sample: ResourceTemplate, items: Sequence[ResourceTemplate]) -> str:
    rows = [
        (
            _name_cell(t.name, t.title),
            f"<code>{_esc(t.uri_template)}</code>",
            _esc(t.mime_type or ""),
            _description(t.description),
        )
        for t in items
    ]
    return _box(
        _heading("Resource templates", str(len(items))),
        _table(("Name", "URI template", "MIME type", "Description"), rows),
    )


def _tools_table(items: Sequence[Any], managed: bool) -> str:
    rows = []
    for item in items:
        tool: Tool = item.tool if managed else item
        name = _name_cell(item.name, tool.title)
        if managed and item.deferred:
            name += f" {_badge('deferred', '#ef6c00')}"
        cells = [name, _description(tool.description), _parameters_cell(tool.input_schema)]
        if managed:
            cells.insert(1, _esc(item.server))
        rows.append(tuple(cells))
    headers = ("Name", "Server", "Description", "Parameters") if managed else ("Name", "Description", "Parameters")
    legend = _muted(f"{_required(True)} required")
    return _box(_heading("Tools", str(len(items))), _table(headers, rows) + legend)


def _prompts_table(items: Sequence[tuple[Prompt, str, Optional[str]]]) -> str:
    rows = []
    for prompt, name, server in items:
        arguments = "<br>".join(f"<code>{_esc(a.name)}</code>{_required(a.required)}" for a in prompt.arguments)
        cells = [_name_cell(name, prompt.title), _description(prompt.description), arguments]
        if server is not None:
            cells.insert(1, _esc(server))
        rows.append(tuple(cells))
    managed = bool(items) and items[0][2] is not None
    headers = ("Name", "Server", "Description", "Arguments") if managed else ("Name", "Description", "Arguments")
    return _box(_heading("Prompts", str(len(items))), _table(headers, rows))


def _resources_table(items: Sequence[tuple[Resource, Optional[str]]]) -> str:
    rows = []
    for resource, server in items:
        cells = [
            _name_cell(resource.name, resource.title),
            _uri(resource.uri),
            _esc(resource.mime_type or ""),
            _description(resource.description),
        ]
        if server is not None:
            cells.insert(1, _esc(server))
        rows.append(tuple(cells))
    managed = bool(items) and items[0][1] is not None
    headers: tuple[str, ...] = ("Name", "URI", "MIME type", "Description")
    if managed:
        headers = ("Name", "Server", *headers[1:])
    return _box(_heading("Resources", str(len(items))), _table(headers, rows))


# -- single values -----------------------------------------------------------------------------


def _tool_html(tool: Tool, qualified: Optional[ManagedTool] = None) -> str:
    title = _heading("Tool", qualified.name if qualified is not None else tool.name, tool.title)
    body = ""
    if qualified is not None:
        body += _muted(f"on server {_esc(qualified.server)} as {_esc(tool.name)}")
        if qualified.deferred:
            body += " " + _badge("deferred", "#ef6c00")
    if tool.description:
        body += f'<div style="{_WRAP}">{_text(tool.description)}</div>'
    body += _schema_section("Parameters", tool.input_schema)
    if tool.output_schema is not None:
        body += _schema_section("Output", tool.output_schema)
    if tool.annotations:
        hints = ", ".join(f"{_esc(k)}={_esc(json.dumps(v))}" for k, v in tool.annotations.items())
        body += f"<div>{_muted('annotations:')} {hints}</div>"
    return _box(title, body)


def _schema_section(label: str, schema: Mapping[str, Any]) -> str:
    rows = [
        (
            f'<div style="padding-left:{depth * 1.5:g}em"><code>{_esc(name)}</code></div>',
            _esc(kind),
            "yes" if required else "",
            _description(description),
        )
        for depth, name, kind, required, description in _schema_rows(schema, 0)
    ]
    table = _table(("Name", "Type", "Required", "Description"), rows) if rows else _muted("none")
    return f"<div><b>{_esc(label)}</b></div>{table}{_details('JSON schema', _json_pre(schema))}"


def _result_html(result: CallToolResult) -> str:
    title = _heading("Result of", result.tool_name) if result.tool_name else _heading("Tool result", "")
    duplicate = _json_text(result.structured_content) if result.has_structured_content else None
    parts = []
    for block in result.content:
        if duplicate is not None and isinstance(block, TextContent) and _same_json(block.text, duplicate):
            parts.append(_details("Text (the structured content as JSON)", _pre(block.text)))
        else:
            parts.append(_block_html(block))
    if result.has_structured_content:
        parts.append(f"<div><b>Structured content</b></div>{_structured_html(result.structured_content)}")
    body = "".join(parts) or _muted("no content")
    if result.is_error:
        label = f'<b style="color:{_RED}">Error</b> '
        return f'<div style="{_ERROR_BOX}">{label}{title}{body}</div>'
    return _box(title, body)


@functools.singledispatch
def _block_html(block: Any) -> str:
    """A content block of a type we have no view for: its type, and what was sent."""
    kind = getattr(block, "type", "?")
    raw = dict(getattr(block, "raw", {}))
    return f"<div>{_muted('content of an unknown type')} <code>{_esc(kind)}</code></div>" + _details(
        "as sent", _json_pre(raw)
    )


@_block_html.register
def _(block: TextContent) -> str:
    return _pre(block.text)


@_block_html.register(ImageContent)
@_block_html.register(AudioContent)
def _(block: Union[ImageContent, AudioContent]) -> str:
    return _media_html(block.type, block.mime_type, block)


@_block_html.register
def _(block: ResourceLink) -> str:
    return f"<div>{_muted('resource link')} {_resource_summary(block)}</div>"


@_block_html.register
def _(block: EmbeddedResource) -> str:
    return f"<div>{_muted('embedded resource')}</div>{_contents_html(block.resource)}"


def _resource_html(resource: Resource, server: Optional[str] = None) -> str:
    body = _resource_summary(resource)
    if server is not None:
        body = f"{_muted('server')} {_esc(server)}<br>{body}"
    return _box(_heading("Resource", resource.name, resource.title), body)


def _resource_summary(item: Union[Resource, ResourceLink]) -> str:
    details = [_uri(item.uri)]
    if item.mime_type:
        details.append(_esc(item.mime_type))
    if item.size is not None:
        details.append(f"{item.size} bytes")
    description = f'<div style="{_WRAP}">{_text(item.description, CELL_LIMIT)}</div>' if item.description else ""
    name = f"<b>{_esc(item.title or item.name)}</b> " if isinstance(item, ResourceLink) else ""
    return name + ", ".join(details) + description


def _template_html(template: ResourceTemplate) -> str:
    body = f"<code>{_esc(template.uri_template)}</code>"
    if template.mime_type:
        body += f", {_esc(template.mime_type)}"
    if template.description:
        body += f'<div style="{_WRAP}">{_text(template.description)}</div>'
    return _box(_heading("Resource template", template.name, template.title), body)


def _read_html(result: ReadResourceResult) -> str:
    body = "".join(_contents_html(item) for item in result.contents) or _muted("no contents")
    return _box(_heading("Resource contents", str(len(result.contents))), body)


def _contents_html(item: ResourceContents) -> str:
    head = f"<div><code>{_esc(item.uri)}</code> {_muted(_esc(item.mime_type or ''))}</div>"
    if item.text is not None:
        return head + _pre(item.text)
    return head + _media_html("binary", item.mime_type or "", item)


def _prompt_html(prompt: Prompt, server: Optional[str] = None, name: Optional[str] = None) -> str:
    body = _muted(f"server {_esc(server)}") if server is not None else ""
    if prompt.description:
        body += f'<div style="{_WRAP}">{_text(prompt.description)}</div>'
    rows = [
        (f"<code>{_esc(a.name)}</code>", "yes" if a.required else "", _description(a.description))
        for a in prompt.arguments
    ]
    body += _table(("Argument", "Required", "Description"), rows) if rows else _muted("no arguments")
    return _box(_heading("Prompt", name or prompt.name, prompt.title), body)


def _message_html(message: PromptMessage) -> str:
    return f"<div><b>{_esc(message.role)}</b></div>{_block_html(message.content)}"


def _prompt_result_html(result: GetPromptResult) -> str:
    body = f'<div style="{_WRAP}">{_text(result.description)}</div>' if result.description else ""
    body += "".join(_message_html(m) for m in result.messages[:ROW_LIMIT])
    body += _left_out(len(result.messages) - ROW_LIMIT, "messages")
    count = len(result.messages)
    return _box(_heading("Prompt", f"{count} message{'' if count == 1 else 's'}"), body)


for _kind, _render in (
    (Tool, _tool_html),
    (CallToolResult, _result_html),
    (Resource, _resource_html),
    (ResourceTemplate, _template_html),
    (ReadResourceResult, _read_html),
    (ResourceContents, _contents_html),
    (Prompt, _prompt_html),
    (GetPromptResult, _prompt_result_html),
    (PromptMessage, _message_html),
    (TextContent, _block_html),
    (ImageContent, _block_html),
    (AudioContent, _block_html),
    (ResourceLink, _block_html),
    (EmbeddedResource, _block_html),
    (UnknownContent, _block_html),
):
    to_html.register(_kind, _render)


@to_html.register
def _managed_tool_html(item: ManagedTool) -> str:
    return _tool_html(item.tool, qualified=item)


@to_html.register
def _managed_prompt_html(item: ManagedPrompt) -> str:
    return _prompt_html(item.prompt, server=item.server, name=item.name)


@to_html.register
def _managed_resource_html(item: ManagedResource) -> str:
    return _resource_html(item.resource, server=item.server)


# -- media -------------------------------------------------------------------------------------


def _media_html(kind: str, declared: str, holder: Union[ImageContent, AudioContent, ResourceContents]) -> str:
    """An image or audio player for allowed types whose bytes match, else a line with type and size."""
    label = _esc(" ".join(filter(None, (kind, declared))))
    try:
        data = holder.data
    except ProtocolError:
        return f"<div>{_muted(label + ': not valid base64')}</div>"
    summary = _muted(f"{label}, {len(data)} bytes")
    mime = declared.split(";")[0].strip().lower()
    mime = _MIME_ALIASES.get(mime, mime)
    actual = _sniff(data) if len(data) <= MEDIA_LIMIT else None
    # The type in the URL comes from our allow-list (what the bytes are), the base64 from the bytes: no server text.
    if mime in IMAGE_TYPES and actual in IMAGE_TYPES:
        return f'<div><img src="{_data_url(actual, data)}" alt="image" style="max-width:100%"><br>{summary}</div>'
    if mime in AUDIO_TYPES and actual in AUDIO_TYPES:
        return f'<div><audio controls src="{_data_url(actual, data)}"></audio><br>{summary}</div>'
    if mime.startswith("image/"):
        summary += " " + _muted("(not shown: only PNG, JPEG, GIF and WebP images are)")
    elif mime.startswith("audio/"):
        summary += " " + _muted("(no player: only WAV, MP3 and Ogg audio get one)")
    return f"<div>{summary}</div>"


def _data_url(mime: Optional[str], data: bytes) -> str:
    return _esc(f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}")


def _sniff(data: bytes) -> Optional[str]:
    """The allowed media type the bytes are, by their signature; ``None`` for anything else."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    if data[:4] == b"RIFF" and data[8:12] == b"WAVE":
        return "audio/wav"
    if data[:4] == b"OggS":
        return "audio/ogg"
    if data[:3] == b"ID3" or (len(data) > 1 and data[0] == 0xFF and data[1] & 0xE0 == 0xE0):
        return "audio/mpeg"
    return None


# -- schemas -----------------------------------------------------------------------------------


def _schema_rows(schema: Any, depth: int, prefix: str = "") -> list[tuple[int, str, str, bool, Optional[str]]]:
    """(depth, name, type, required, description) for each property, nested objects after their parent."""
    if not isinstance(schema, Mapping) or depth > SCHEMA_DEPTH:
        return []
    properties = schema.get("properties")
    if not isinstance(properties, Mapping):
        return []
    required = schema.get("required")
    required = set(required) if isinstance(required, list) and all(isinstance(r, str) for r in required) else set()
    rows: list[tuple[int, str, str, bool, Optional[str]]] = []
    for name, prop in properties.items():
        prop = prop if isinstance(prop, Mapping) else {}
        description = prop.get("description") if isinstance(prop.get("description"), str) else None
        if "default" in prop:
            default = f"default: {cut(json.dumps(prop['default'], ensure_ascii=False, default=str), 80)}"
            description = f"{description}\n{default}" if description else default
        rows.append((depth, prefix + str(name), _schema_type(prop), name in required, description))
        items = prop.get("items")
        if isinstance(items, Mapping) and isinstance(items.get("properties"), Mapping):
            rows.extend(_schema_rows(items, depth + 1, f"{name}[]."))
        else:
            rows.extend(_schema_rows(prop, depth + 1, f"{name}."))
        if len(rows) > ROW_LIMIT:
            break
    return rows


def _schema_type(schema: Mapping[str, Any]) -> str:
    """A schema's type in a few words: ``string``, ``integer | null``, ``array of string``, ``one of: "a", "b"``."""
    if "const" in schema:
        return "const " + cut(json.dumps(schema["const"], ensure_ascii=False, default=str), 60)
    if isinstance(schema.get("enum"), list):
        values = [json.dumps(v, ensure_ascii=False, default=str) for v in schema["enum"][:10]]
        return "one of: " + ", ".join(values) + (", ..." if len(schema["enum"]) > 10 else "")
    kind = schema.get("type")
    if isinstance(kind, list):
        text = " | ".join(str(k) for k in kind)
    elif isinstance(kind, str):
        text = kind
    elif isinstance(schema.get("$ref"), str):
        text = schema["$ref"].rsplit("/", 1)[-1]
    else:
        for key, joiner in (("anyOf", " | "), ("oneOf", " | "), ("allOf", " & ")):
            options = schema.get(key)
            if isinstance(options, list):
                text = joiner.join(_schema_type(o) if isinstance(o, Mapping) else "?" for o in options)
                break
        else:
            text = "any"
    items = schema.get("items")
    if kind == "array" and isinstance(items, Mapping):
        text = f"array of {_schema_type(items)}"
    if isinstance(schema.get("format"), str):
        text += f" ({schema['format']})"
    return text


def _parameters_cell(schema: Any) -> str:
    rows = [row for row in _schema_rows(schema, 0) if row[0] == 0]
    return "<br>".join(
        f"<code>{_esc(name)}</code>{_required(req)} {_muted(_esc(kind))}" for _, name, kind, req, _ in rows
    )


_SCALARS = (str, int, float, bool, type(None))


def _cell(value: Any) -> str:
    return _text(value if isinstance(value, str) else json.dumps(value), CELL_LIMIT)


def _structured_html(value: Any) -> str:
    """Structured content, any JSON value: a flat object as a two-column table, an array of flat
    objects as a table with a column per key, a scalar as itself; anything else as JSON."""
    if isinstance(value, _SCALARS):
        return f"<div><code>{_text(json.dumps(value), CELL_LIMIT)}</code></div>"
    if isinstance(value, dict) and value and len(value) <= ROW_LIMIT:
        if all(isinstance(v, _SCALARS) for v in value.values()):
            return _table(("Key", "Value"), [(f"<code>{_esc(k)}</code>", _cell(v)) for k, v in value.items()])
    rows = value if isinstance(value, list) and value else None
    if rows and all(isinstance(row, dict) and all(isinstance(v, _SCALARS) for v in row.values()) for row in rows):
        keys = list(dict.fromkeys(k for row in rows for k in row))
        if len(keys) <= ROW_LIMIT:
            return _table(keys, [[_cell(row[k]) if k in row else "" for k in keys] for row in rows])
    return f"<details open><summary>{_muted('JSON')}</summary>{_json_pre(value)}</details>"


# -- small pieces ------------------------------------------------------------------------------


def _esc(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _text(value: Any, limit: int = TEXT_LIMIT) -> str:
    """``value`` escaped, cut at ``limit`` characters with a note saying how much is left out."""
    text = str(value)
    if len(text) <= limit:
        return _esc(text)
    return _esc(text[:limit]) + f"\n{_muted(f'... ({len(text) - limit} more characters not shown)')}"


def _muted(inner_html: str) -> str:
    return f'<span style="{_MUTED}">{inner_html}</span>'


def _pre(text: str) -> str:
    return f'<pre style="{_PRE}">{_text(text)}</pre>'


def _json_text(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


def _json_pre(value: Any) -> str:
    return _pre(_json_text(value))


def _same_json(text: str, expected: str) -> bool:
    try:
        return _json_text(json.loads(text)) == expected
    except ValueError:
        return False


def _details(summary: str, inner_html: str) -> str:
    return f"<details><summary>{_muted(_esc(summary))}</summary>{inner_html}</details>"


def _box(title_html: str, body_html: str) -> str:
    return f'<div style="{_BOX}">{title_html}{body_html}</div>'


def _heading(kind: str, name: str, title: Optional[str] = None) -> str:
    extra = f" {_muted(_esc(title))}" if title else ""
    return f"<div>{_muted(_esc(kind))} <b>{_esc(name)}</b>{extra}</div>"


def _badge(text: str, colour: str) -> str:
    # ``colour`` is one of our constants, never server text.
    return f'<span style="color:{colour};border:1px solid {colour};border-radius:3px;padding:0 3px">{_esc(text)}</span>'


def _state(state: str) -> str:
    return _badge(state, _STATE_COLOURS.get(state, "#757575"))


def _required(required: bool) -> str:
    """The mark of a required parameter in a list (the tables of one tool say "yes")."""
    return f'<b style="color:{_RED}">*</b>' if required else ""


def _name_cell(name: str, title: Optional[str]) -> str:
    return f"<b>{_esc(name)}</b>" + (f"<br>{_muted(_esc(title))}" if title and title != name else "")


def _description(text: Optional[str]) -> str:
    return f'<div style="{_WRAP}">{_text(text, CELL_LIMIT)}</div>' if text else ""


def _uri(uri: str) -> str:
    """A link for ``http(s)`` URLs (checked on the raw text); any other URI as plain text."""
    if _WEB_URL.fullmatch(uri):
        return f'<a href="{_esc(uri)}" target="_blank" rel="noopener noreferrer"><code>{_esc(uri)}</code></a>'
    return f"<code>{_text(uri, CELL_LIMIT)}</code>"


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A table of HTML cells (already escaped); at most ``ROW_LIMIT`` rows, then a note."""
    head = "".join(f'<th style="{_CELL}">{_esc(h)}</th>' for h in headers)
    body = "".join(
        "<tr>" + "".join(f'<td style="{_CELL}">{cell}</td>' for cell in row) + "</tr>" for row in rows[:ROW_LIMIT]
    )
    table = f'<table style="{_TABLE}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'
    return table + _left_out(len(rows) - ROW_LIMIT, "rows")


def _key_table(rows: Sequence[tuple[str, str]]) -> str:
    body = "".join(f'<tr><th style="{_CELL}">{_esc(k)}</th><td style="{_CELL}">{v}</td></tr>' for k, v in rows)
    return f'<table style="{_TABLE}"><tbody>{body}</tbody></table>'


def _left_out(count: int, what: str) -> str:
    return f"<div>{_muted(f'... and {count} more {what}')}</div>" if count > 0 else ""


def _size(holder: Union[ImageContent, AudioContent, ResourceContents]) -> str:
    try:
        return f"{len(holder.data)} bytes"
    except ProtocolError:
        return "invalid base64"


# -- the client --------------------------------------------------------------------------------


def _client_state(client: Client) -> str:
    state = client.state.value
    if state == "open" and not client.transport.is_connected:
        return "lost"
    return str(state)


def _server_text(client: Client) -> str:
    info = client.server_info
    return " ".join(part for part in (info.name, info.version) if part) if info is not None else "?"
