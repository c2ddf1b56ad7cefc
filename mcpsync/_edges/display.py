"""How mcpsync's values show in Jupyter: the HTML view of each type (``to_html``).

``to_html`` dispatches on the type of a value (``functools.singledispatch``)
and reads only public attributes: a client, the manager's status table, a
tool, resource, template or prompt (managed or not), a result, a content
block; a list of values of one kind becomes a table. Every view is built from
the pieces of ``safe_html``, which escape what a server sent and check links
and media. ``register(shell)`` tells an IPython shell to use it for mcpsync's
types, which ``import mcpsync`` does when it runs inside one. Nothing below
knows this module.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Optional, Union

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
from .safe_html import (
    CELL_LIMIT,
    ERROR_BOX,
    RED,
    ROW_LIMIT,
    WRAP,
    badge,
    box,
    description_html,
    details_html,
    esc,
    heading,
    json_pre,
    json_text,
    key_table,
    left_out,
    media_html,
    muted,
    name_cell,
    pre,
    required_mark,
    state_badge,
    table_html,
    text_html,
    uri_html,
)

__all__ = ["register", "status_html", "to_html"]

#: How deep nested schema properties are shown.
SCHEMA_DEPTH = 6

# -- entry points ------------------------------------------------------------------------------


@functools.singledispatch
def to_html(value: Any) -> Optional[str]:
    """The HTML view of an mcpsync value (model, result, list, client, manager, status); ``None`` for anything else."""
    return None


def register(shell: Any) -> None:
    """Make an IPython shell show mcpsync's values with ``to_html`` (lists only when all items have a view),
    and a tool result with an MCP App view as its widget (``apps.notebook.app_bundle``)."""
    formatter = shell.display_formatter.formatters["text/html"]
    for kind in to_html.registry:
        if kind is not object:
            formatter.for_type(kind, to_html)
    # A tool result with an MCP App view shows the view (a widget); its HTML stays the fallback.
    from .apps.notebook import app_bundle

    shell.display_formatter.mimebundle_formatter.for_type(CallToolResult, app_bundle)


@to_html.register
def _client_html(client: Client) -> str:
    """A client: server name, version and title, protocol, transport, state, the lists it holds."""
    info = client.server_info
    lists = client.cached_lists
    fetched = ", ".join(f"{len(items)} {kind}" for kind, items in lists.items()) or muted("not listed yet")
    transport = client.transport
    rows = [
        ("Server", esc(_server_text(client)) if info is not None else muted("not connected yet")),
        ("Title", esc(info.title) if info is not None and info.title else muted("none")),
        ("Protocol", esc(client.protocol_version or "") or muted("not negotiated")),
        ("Transport", f"{esc(transport.kind)} <code>{text_html(transport.address, CELL_LIMIT)}</code>"),
        ("State", state_badge(_client_state(client))),
        ("Lists", fetched),
    ]
    body = key_table(rows)
    if client.instructions:
        body += details_html("Instructions", pre(client.instructions))
    return box(heading("MCP client", client.name), body)


@to_html.register
def _manager_html(manager: Manager) -> str:
    """The status table of every configured server."""
    return status_html(manager.status().values())


@to_html.register
def _status_html(status: ServerStatus) -> str:
    return status_html([status])


@to_html.register
def _dict_html(items: dict) -> Optional[str]:  # type: ignore[type-arg]
    """``manager.status()`` (``{name: ServerStatus}``) as the status table; any other dict has no view."""
    statuses = list(items.values())
    if statuses and all(isinstance(status, ServerStatus) for status in statuses):
        return status_html(statuses)
    return None


def status_html(statuses: Iterable[ServerStatus]) -> str:
    """The manager's status table: server, state, transport, tools, server info, source, error."""
    rows = []
    for status in statuses:
        state = state_badge(status.state.value)
        if status.retry_in is not None:
            state += f"<br>{muted(f'next attempt in {status.retry_in:.0f}s ({status.attempts} failed)')}"
        if status.not_idle:
            state += f"<br>{muted(esc(cut(status.not_idle, CELL_LIMIT)))}"
        tools = str(status.tools) + (f" {muted('(cached)')}" if status.tools_from_cache else "")
        info = status.server_info
        error = esc(first_line(status.error, CELL_LIMIT)) if status.error else ""
        if status.stderr_tail:
            error += f"<br>{muted('stderr: ' + esc(first_line(status.stderr_tail[-1], CELL_LIMIT)))}"
        rows.append(
            (
                f"<b>{esc(status.name)}</b>",
                state,
                esc(status.transport),
                tools,
                esc(str(info)) if info is not None else "",
                esc(status.source),
                f'<span style="color:{RED}">{error}</span>' if error else "",
            )
        )
    headers = ("Server", "State", "Transport", "Tools", "Server info", "Source", "Error")
    return box(heading("MCP servers", f"{len(rows)}"), table_html(headers, rows))


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
    return "".join(view or "" for view in views) + left_out(len(items) - ROW_LIMIT, "items")


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
            name_cell(t.name, t.title),
            f"<code>{esc(t.uri_template)}</code>",
            esc(t.mime_type or ""),
            description_html(t.description),
        )
        for t in items
    ]
    return box(
        heading("Resource templates", str(len(items))),
        table_html(("Name", "URI template", "MIME type", "Description"), rows),
    )


def _tools_table(items: Sequence[Any], managed: bool) -> str:
    rows = []
    for item in items:
        tool: Tool = item.tool if managed else item
        name = name_cell(item.name, tool.title)
        if managed and item.deferred:
            name += f" {badge('deferred', '#ef6c00')}"
        cells = [name, description_html(tool.description), _parameters_cell(tool.input_schema)]
        if managed:
            cells.insert(1, esc(item.server))
        rows.append(tuple(cells))
    headers = ("Name", "Server", "Description", "Parameters") if managed else ("Name", "Description", "Parameters")
    legend = muted(f"{required_mark(True)} required")
    return box(heading("Tools", str(len(items))), table_html(headers, rows) + legend)


def _prompts_table(items: Sequence[tuple[Prompt, str, Optional[str]]]) -> str:
    rows = []
    for prompt, name, server in items:
        arguments = "<br>".join(f"<code>{esc(a.name)}</code>{required_mark(a.required)}" for a in prompt.arguments)
        cells = [name_cell(name, prompt.title), description_html(prompt.description), arguments]
        if server is not None:
            cells.insert(1, esc(server))
        rows.append(tuple(cells))
    managed = bool(items) and items[0][2] is not None
    headers = ("Name", "Server", "Description", "Arguments") if managed else ("Name", "Description", "Arguments")
    return box(heading("Prompts", str(len(items))), table_html(headers, rows))


def _resources_table(items: Sequence[tuple[Resource, Optional[str]]]) -> str:
    rows = []
    for resource, server in items:
        cells = [
            name_cell(resource.name, resource.title),
            uri_html(resource.uri),
            esc(resource.mime_type or ""),
            description_html(resource.description),
        ]
        if server is not None:
            cells.insert(1, esc(server))
        rows.append(tuple(cells))
    managed = bool(items) and items[0][1] is not None
    headers: tuple[str, ...] = ("Name", "URI", "MIME type", "Description")
    if managed:
        headers = ("Name", "Server", *headers[1:])
    return box(heading("Resources", str(len(items))), table_html(headers, rows))


# -- single values -----------------------------------------------------------------------------


def _tool_html(tool: Tool, qualified: Optional[ManagedTool] = None) -> str:
    title = heading("Tool", qualified.name if qualified is not None else tool.name, tool.title)
    body = ""
    if qualified is not None:
        body += muted(f"on server {esc(qualified.server)} as {esc(tool.name)}")
        if qualified.deferred:
            body += " " + badge("deferred", "#ef6c00")
    if tool.description:
        body += f'<div style="{WRAP}">{text_html(tool.description)}</div>'
    body += _schema_section("Parameters", tool.input_schema)
    if tool.output_schema is not None:
        body += _schema_section("Output", tool.output_schema)
    if tool.annotations:
        hints = ", ".join(f"{esc(k)}={esc(json.dumps(v))}" for k, v in tool.annotations.items())
        body += f"<div>{muted('annotations:')} {hints}</div>"
    return box(title, body)


def _schema_section(label: str, schema: Mapping[str, Any]) -> str:
    rows = [
        (
            f'<div style="padding-left:{depth * 1.5:g}em"><code>{esc(name)}</code></div>',
            esc(kind),
            "yes" if required else "",
            description_html(description),
        )
        for depth, name, kind, required, description in _schema_rows(schema, 0)
    ]
    table = table_html(("Name", "Type", "Required", "Description"), rows) if rows else muted("none")
    return f"<div><b>{esc(label)}</b></div>{table}{details_html('JSON schema', json_pre(schema))}"


def _result_html(result: CallToolResult) -> str:
    title = heading("Result of", result.tool_name) if result.tool_name else heading("Tool result", "")
    duplicate = json_text(result.structured_content) if result.has_structured_content else None
    parts = []
    for block in result.content:
        if duplicate is not None and isinstance(block, TextContent) and _same_json(block.text, duplicate):
            parts.append(details_html("Text (the structured content as JSON)", pre(block.text)))
        else:
            parts.append(_block_html(block))
    if result.has_structured_content:
        parts.append(f"<div><b>Structured content</b></div>{_structured_html(result.structured_content)}")
    body = "".join(parts) or muted("no content")
    if result.is_error:
        label = f'<b style="color:{RED}">Error</b> '
        return f'<div style="{ERROR_BOX}">{label}{title}{body}</div>'
    return box(title, body)


@functools.singledispatch
def _block_html(block: Any) -> str:
    """A content block of a type we have no view for: its type, and what was sent."""
    kind = getattr(block, "type", "?")
    raw = dict(getattr(block, "raw", {}))
    return f"<div>{muted('content of an unknown type')} <code>{esc(kind)}</code></div>" + details_html(
        "as sent", json_pre(raw)
    )


@_block_html.register
def _(block: TextContent) -> str:
    return pre(block.text)


@_block_html.register(ImageContent)
@_block_html.register(AudioContent)
def _(block: Union[ImageContent, AudioContent]) -> str:
    return media_html(block.type, block.mime_type, block)


@_block_html.register
def _(block: ResourceLink) -> str:
    return f"<div>{muted('resource link')} {_resource_summary(block)}</div>"


@_block_html.register
def _(block: EmbeddedResource) -> str:
    return f"<div>{muted('embedded resource')}</div>{_contents_html(block.resource)}"


def _resource_html(resource: Resource, server: Optional[str] = None) -> str:
    body = _resource_summary(resource)
    if server is not None:
        body = f"{muted('server')} {esc(server)}<br>{body}"
    return box(heading("Resource", resource.name, resource.title), body)


def _resource_summary(item: Union[Resource, ResourceLink]) -> str:
    details = [uri_html(item.uri)]
    if item.mime_type:
        details.append(esc(item.mime_type))
    if item.size is not None:
        details.append(f"{item.size} bytes")
    description = f'<div style="{WRAP}">{text_html(item.description, CELL_LIMIT)}</div>' if item.description else ""
    name = f"<b>{esc(item.title or item.name)}</b> " if isinstance(item, ResourceLink) else ""
    return name + ", ".join(details) + description


def _template_html(template: ResourceTemplate) -> str:
    body = f"<code>{esc(template.uri_template)}</code>"
    if template.mime_type:
        body += f", {esc(template.mime_type)}"
    if template.description:
        body += f'<div style="{WRAP}">{text_html(template.description)}</div>'
    return box(heading("Resource template", template.name, template.title), body)


def _read_html(result: ReadResourceResult) -> str:
    body = "".join(_contents_html(item) for item in result.contents) or muted("no contents")
    return box(heading("Resource contents", str(len(result.contents))), body)


def _contents_html(item: ResourceContents) -> str:
    head = f"<div><code>{esc(item.uri)}</code> {muted(esc(item.mime_type or ''))}</div>"
    if item.text is not None:
        return head + pre(item.text)
    return head + media_html("binary", item.mime_type or "", item)


def _prompt_html(prompt: Prompt, server: Optional[str] = None, name: Optional[str] = None) -> str:
    body = muted(f"server {esc(server)}") if server is not None else ""
    if prompt.description:
        body += f'<div style="{WRAP}">{text_html(prompt.description)}</div>'
    rows = [
        (f"<code>{esc(a.name)}</code>", "yes" if a.required else "", description_html(a.description))
        for a in prompt.arguments
    ]
    body += table_html(("Argument", "Required", "Description"), rows) if rows else muted("no arguments")
    return box(heading("Prompt", name or prompt.name, prompt.title), body)


def _message_html(message: PromptMessage) -> str:
    return f"<div><b>{esc(message.role)}</b></div>{_block_html(message.content)}"


def _prompt_result_html(result: GetPromptResult) -> str:
    body = f'<div style="{WRAP}">{text_html(result.description)}</div>' if result.description else ""
    body += "".join(_message_html(m) for m in result.messages[:ROW_LIMIT])
    body += left_out(len(result.messages) - ROW_LIMIT, "messages")
    count = len(result.messages)
    return box(heading("Prompt", f"{count} message{'' if count == 1 else 's'}"), body)


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


# -- schemas and JSON --------------------------------------------------------------------------


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
        f"<code>{esc(name)}</code>{required_mark(req)} {muted(esc(kind))}" for _, name, kind, req, _ in rows
    )


_SCALARS = (str, int, float, bool, type(None))


def _cell(value: Any) -> str:
    return text_html(value if isinstance(value, str) else json.dumps(value), CELL_LIMIT)


def _structured_html(value: Any) -> str:
    """Structured content, any JSON value: a flat object as a two-column table, an array of flat
    objects as a table with a column per key, a scalar as itself; anything else as JSON."""
    if isinstance(value, _SCALARS):
        return f"<div><code>{text_html(json.dumps(value), CELL_LIMIT)}</code></div>"
    if isinstance(value, dict) and value and len(value) <= ROW_LIMIT:
        if all(isinstance(v, _SCALARS) for v in value.values()):
            return table_html(("Key", "Value"), [(f"<code>{esc(k)}</code>", _cell(v)) for k, v in value.items()])
    rows = value if isinstance(value, list) and value else None
    if rows and all(isinstance(row, dict) and all(isinstance(v, _SCALARS) for v in row.values()) for row in rows):
        keys = list(dict.fromkeys(k for row in rows for k in row))
        if len(keys) <= ROW_LIMIT:
            return table_html(keys, [[_cell(row[k]) if k in row else "" for k in keys] for row in rows])
    return f"<details open><summary>{muted('JSON')}</summary>{json_pre(value)}</details>"


def _same_json(text: str, expected: str) -> bool:
    """Whether ``text`` is JSON that ``json_text`` writes as ``expected`` (a text repeating the structured content)."""
    try:
        return json_text(json.loads(text)) == expected
    except ValueError:
        return False


# -- the client --------------------------------------------------------------------------------


def _client_state(client: Client) -> str:
    state = client.state.value
    if state == "open" and not client.transport.is_connected:
        return "lost"
    return str(state)


def _server_text(client: Client) -> str:
    info = client.server_info
    return " ".join(part for part in (info.name, info.version) if part) if info is not None else "?"
