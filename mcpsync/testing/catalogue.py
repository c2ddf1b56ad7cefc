"""What the test server offers, and the answers that read it: its tools (as listed), resources, templates,
prompts and completions; ``resources/read``, ``prompts/get``, ``completion/complete``, the skills
extension's requests, and the paging of every list.

Resources: ``text://greeting`` (text), ``binary://pixel`` (a PNG, as a blob) and the template
``echo://{text}``; a prompt ``greet(name, style?)``; the ``echo`` tool, the greeting, the template and
the prompt have an icon (``ICON``, a 1x1 PNG ``data:`` URI); completion for the prompt's arguments and
the template's ``text``. ``BAD_HEADER_TOOLS`` are the tools ``--bad-header-tools`` adds, ``LATE_TOOL``
the one ``--tools-change-after-list`` adds. The tools' code is in ``mcpsync.testing.tools``.
"""

from __future__ import annotations

from typing import Any, Optional

from .._core.jsonrpc import ErrorCode
from .calls import RequestError
from .dashboard_view import DASHBOARD_URI, dashboard_contents
from .misbehaviour import MISBEHAVIOURS
from .skills import LIES, skill_directory, skill_entries, skill_file

__all__ = [
    "BAD_HEADER_TOOLS",
    "COMPLETIONS",
    "ICON",
    "LATE_TOOL",
    "LISTS",
    "PIXEL_PNG",
    "PROMPTS",
    "RESOURCES",
    "RESOURCE_TEMPLATES",
    "SLOW_TOOLS",
    "TOOLS",
    "WRAPPED_FOR_LEGACY",
    "complete",
    "get_prompt",
    "get_skill",
    "legacy_tool",
    "list_skills",
    "page",
    "read_directory",
    "read_resource",
]

_TEXT = {"type": "string"}
_NUMBER = {"type": "number"}
_INTEGER = {"type": "integer"}


def _schema(properties: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(required)}


# A 1x1 transparent PNG, for the binary resource and the icon.
PIXEL_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
#: The icon of the echo tool, the greeting resource, the echo template and the greet prompt.
ICON: dict[str, Any] = {
    "src": "data:image/png;base64," + PIXEL_PNG,
    "mimeType": "image/png",
    "sizes": ["1x1"],
    "theme": "light",
}

TOOLS: list[dict[str, Any]] = [
    {
        "name": "echo",
        "description": "Return the text you send.",
        "inputSchema": _schema({"text": _TEXT}, ("text",)),
        "icons": [ICON],
    },
    {
        "name": "add",
        "description": "Add two numbers.",
        "inputSchema": _schema({"a": _NUMBER, "b": _NUMBER}, ("a", "b")),
        "outputSchema": _schema({"sum": _NUMBER}, ("sum",)),
    },
    {
        "name": "wrong_output",
        "description": "Structured content that breaks its own outputSchema.",
        "inputSchema": _schema({}),
        "outputSchema": _schema({"sum": _NUMBER}, ("sum",)),
    },
    {
        "name": "fail",
        "description": "Fail with the given message (isError: true).",
        "inputSchema": _schema({"message": _TEXT}),
    },
    {
        "name": "sleep",
        "description": "Wait for the given seconds, then answer.",
        "inputSchema": _schema({"seconds": _NUMBER, "ignore_cancel": {"type": "boolean"}}, ("seconds",)),
    },
    {
        "name": "progress",
        "description": "Report progress in steps, then answer 'done'.",
        "inputSchema": _schema({"steps": _INTEGER, "delay": _NUMBER}),
    },
    {
        "name": "log",
        "description": "Send a log notification to the client, then answer.",
        "inputSchema": _schema({"message": _TEXT, "level": _TEXT}, ("message",)),
    },
    {
        "name": "stderr",
        "description": "Write lines to the server's stderr.",
        "inputSchema": _schema({"text": _TEXT, "lines": _INTEGER}, ("text",)),
    },
    {
        "name": "crash",
        "description": "Exit in the middle of the call.",
        "inputSchema": _schema({"code": _INTEGER, "message": _TEXT}),
    },
    {
        "name": "cancelled_requests",
        "description": "The request ids the client cancelled so far.",
        "inputSchema": _schema({}),
    },
    {
        "name": "environment",
        "description": "The working directory and the named environment variables.",
        "inputSchema": _schema({"names": {"type": "array", "items": _TEXT}}),
    },
    {
        "name": "ask_client",
        "description": "Send a request to the client; return its answer.",
        "inputSchema": _schema({"method": _TEXT, "params": {"type": "object"}}, ("method",)),
    },
    {
        "name": "notify_client",
        "description": "Send the client a notification.",
        "inputSchema": _schema({"method": _TEXT, "params": {"type": "object"}}, ("method",)),
    },
    {
        "name": "ask_then_cancel",
        "description": "Ask the client something, cancel at once; say if it answered.",
        "inputSchema": _schema({"method": _TEXT, "params": {"type": "object"}, "wait": _NUMBER}, ("method",)),
    },
    {
        "name": "misbehave",
        "description": "Write a broken message (for testing clients).",
        "inputSchema": _schema({"kind": {"enum": list(MISBEHAVIOURS)}, "size": _INTEGER}, ("kind",)),
    },
    {
        "name": "region_echo",
        "description": "Return the text; the region goes as a header too (x-mcp-header).",
        "inputSchema": _schema({"text": _TEXT, "region": {"type": "string", "x-mcp-header": "Region"}}, ("text",)),
    },
    {
        "name": "ask_in_rounds",
        "description": "Ask the client for input in rounds (2026-07-28: input_required), then say what it answered.",
        "inputSchema": _schema(
            {
                "rounds": _INTEGER,
                "kinds": {"type": "array", "items": {"enum": ["elicitation", "sampling", "roots"]}},
                "delay": _NUMBER,
            }
        ),
    },
    {
        "name": "no_result_type",
        "description": "Return the text in a result without resultType.",
        "inputSchema": _schema({"text": _TEXT}, ("text",)),
    },
    {
        "name": "skill_lie",
        "description": "Make the skills listing lie (see mcpsync.testing.skills), or stop (on: false).",
        "inputSchema": _schema({"kind": {"enum": list(LIES)}, "on": {"type": "boolean"}}, ("kind",)),
    },
    {
        "name": "resources_read",
        "description": "The URIs of every resources/read so far, in order.",
        "inputSchema": _schema({}),
    },
    {
        "name": "retire_version",
        "description": "Stop accepting a modern protocol version.",
        "inputSchema": _schema({"version": _TEXT}, ("version",)),
    },
]

# Issue 21's tools: structured content that is not an object (2026-07-28; to a 2025-11-25 client,
# whose outputSchema is an object, wrapped as {"result": ...}, as the official SDKs do), and MCP
# Apps tools, one for the app's interface alone.
_USER = _schema({"id": _TEXT, "name": _TEXT}, ("id", "name"))
_APP_UI = DASHBOARD_URI
TOOLS += [
    {
        "name": "users",
        "description": "The users, as a structuredContent array (2026-07-28).",
        "inputSchema": _schema({}),
        "outputSchema": {"type": "array", "items": _USER},
    },
    {
        "name": "word_count",
        "description": "The words of a text, counted: structuredContent is a number (2026-07-28).",
        "inputSchema": _schema({"text": _TEXT}, ("text",)),
        "outputSchema": {"type": "integer", "minimum": 0},
    },
    {
        "name": "show_dashboard",
        "description": "Show the dashboard (an MCP App: for the model and the app).",
        "inputSchema": _schema({}),
        "_meta": {"ui": {"resourceUri": _APP_UI, "visibility": ["model", "app"]}},
    },
    {
        "name": "refresh_dashboard",
        "description": "Refresh the dashboard's data (for the app's interface alone).",
        "inputSchema": _schema({}),
        "_meta": {"ui": {"resourceUri": _APP_UI, "visibility": ["app"]}},
    },
    {
        "name": "dashboard_export",
        "description": "Export the dashboard's data (for the model alone: an app may not call it).",
        "inputSchema": _schema({}),
        "_meta": {"ui": {"visibility": ["model"]}},
    },
]
#: The tools whose structuredContent is not an object: a legacy client gets it as {"result": ...}.
WRAPPED_FOR_LEGACY = frozenset({"users", "word_count"})


def legacy_tool(tool: dict[str, Any]) -> dict[str, Any]:
    """A tool as a 2025-11-25 client is told of it: an outputSchema that is not an object, wrapped."""
    if tool["name"] not in WRAPPED_FOR_LEGACY:
        return tool
    return {**tool, "outputSchema": _schema({"result": tool["outputSchema"]}, ("result",))}


#: The tools ``--bad-header-tools`` adds: each breaks one rule of ``x-mcp-header``.
BAD_HEADER_TOOLS: list[dict[str, Any]] = [
    {
        "name": "bad_header_empty",
        "description": "An empty x-mcp-header.",
        "inputSchema": _schema({"a": {"type": "string", "x-mcp-header": ""}}),
    },
    {
        "name": "bad_header_chars",
        "description": "An x-mcp-header with characters a header name cannot have.",
        "inputSchema": _schema({"a": {"type": "string", "x-mcp-header": "Bad Header:"}}),
    },
    {
        "name": "bad_header_duplicate",
        "description": "Two properties with the same x-mcp-header, but for case.",
        "inputSchema": _schema(
            {"a": {"type": "string", "x-mcp-header": "Tenant"}, "b": {"type": "string", "x-mcp-header": "tenant"}}
        ),
    },
    {
        "name": "bad_header_object",
        "description": "An x-mcp-header on an object property.",
        "inputSchema": _schema({"a": {"type": "object", "x-mcp-header": "Thing"}}),
    },
]

RESOURCES: list[dict[str, Any]] = [
    {
        "uri": "text://greeting",
        "name": "greeting",
        "title": "A greeting",
        "mimeType": "text/plain",
        "description": "A short text resource.",
        "icons": [ICON],
    },
    {"uri": "binary://pixel", "name": "pixel", "mimeType": "image/png", "description": "A 1x1 PNG (binary)."},
]
RESOURCE_TEMPLATES: list[dict[str, Any]] = [
    {
        "uriTemplate": "echo://{text}",
        "name": "echo",
        "mimeType": "text/plain",
        "description": "A resource whose text is the text in its URI.",
        "icons": [ICON],
    },
]
PROMPTS: list[dict[str, Any]] = [
    {
        "name": "greet",
        "title": "Greet someone",
        "description": "Ask for a greeting.",
        "arguments": [
            {"name": "name", "description": "Who to greet", "required": True},
            {"name": "style", "description": "formal or casual", "required": False},
        ],
        "icons": [ICON],
    },
]
#: What completion/complete offers, by (reference, argument).
COMPLETIONS: dict[tuple[str, str], list[str]] = {
    ("ref/prompt:greet", "name"): ["Ada", "Alan", "Alonzo", "Barbara", "Grace"],
    ("ref/prompt:greet", "style"): ["casual", "formal"],
    ("ref/resource:echo://{text}", "text"): ["hello", "help", "world"],
}

#: The tool ``--tools-change-after-list`` adds (listed only: calling it is an unknown tool).
LATE_TOOL: dict[str, Any] = {
    "name": "late",
    "description": "Added after the first tools/list.",
    "inputSchema": {"type": "object"},
}

#: The list methods: the key of their items, and the items (paged with --page-size).
LISTS: dict[str, tuple[str, list[dict[str, Any]]]] = {
    "tools/list": ("tools", TOOLS),
    "resources/list": ("resources", RESOURCES),
    "resources/templates/list": ("resourceTemplates", RESOURCE_TEMPLATES),
    "prompts/list": ("prompts", PROMPTS),
}

SLOW_TOOLS = frozenset({"sleep", "progress", "ask_client", "ask_then_cancel", "misbehave", "ask_in_rounds"})


def page(key: str, items: list[dict[str, Any]], cursor: Optional[str], page_size: Optional[int]) -> dict[str, Any]:
    """A list result: the items from ``cursor`` on, ``page_size`` of them (``None``: all) and the next cursor."""
    if page_size is None:
        return {key: items}
    start = int(cursor or 0)
    end = start + page_size
    result: dict[str, Any] = {key: items[start:end]}
    if end < len(items):
        result["nextCursor"] = str(end)
    return result


def read_resource(uri: Any, skills: bool, lies: frozenset[str], times_read: int) -> dict[str, Any]:
    """The ``resources/read`` result of ``uri`` (read ``times_read`` times before; skill files change with it)."""
    if skills and isinstance(uri, str) and uri.startswith("skill://"):
        contents = skill_file(uri, lies, times_read)
        if contents is not None:
            return {"contents": [contents]}
    if uri == DASHBOARD_URI:
        return {"contents": [dashboard_contents()]}
    if uri == "text://greeting":
        return {"contents": [{"uri": uri, "mimeType": "text/plain", "text": "Hello from a resource"}]}
    if uri == "binary://pixel":
        return {"contents": [{"uri": uri, "mimeType": "image/png", "blob": PIXEL_PNG}]}
    if isinstance(uri, str) and uri.startswith("echo://"):
        return {"contents": [{"uri": uri, "mimeType": "text/plain", "text": uri[len("echo://") :]}]}
    raise RequestError(ErrorCode.RESOURCE_NOT_FOUND, "Resource not found", {"uri": uri})


def get_prompt(params: dict[str, Any]) -> dict[str, Any]:
    """The ``prompts/get`` result."""
    if params.get("name") != "greet":
        raise RequestError(ErrorCode.INVALID_PARAMS, f"Unknown prompt: {params.get('name')}")
    arguments = params.get("arguments") or {}
    if "name" not in arguments:
        raise RequestError(ErrorCode.INVALID_PARAMS, "Missing required argument: name")
    style = arguments.get("style", "casual")
    text = f"Write a {style} greeting for {arguments['name']}."
    return {
        "description": "A greeting request",
        "messages": [{"role": "user", "content": {"type": "text", "text": text}}],
    }


def complete(params: dict[str, Any]) -> dict[str, Any]:
    """The ``completion/complete`` result: the values of ``COMPLETIONS`` that start with what was typed."""
    ref = params.get("ref") or {}
    argument = params.get("argument") or {}
    key = (f"{ref.get('type')}:{ref.get('name') or ref.get('uri')}", argument.get("name", ""))
    prefix = str(argument.get("value", ""))
    values = [v for v in COMPLETIONS.get(key, []) if v.lower().startswith(prefix.lower())]
    return {"completion": {"values": values, "total": len(values), "hasMore": False}}


def list_skills(params: dict[str, Any], lies: frozenset[str], page_size: Optional[int], ttl_ms: int) -> dict[str, Any]:
    """The ``skills/list`` result (the caching hints in both eras)."""
    result = page("skills", skill_entries(lies), params.get("cursor"), page_size)
    result.setdefault("ttlMs", ttl_ms)
    result.setdefault("cacheScope", "public")
    return result


def get_skill(params: dict[str, Any], lies: frozenset[str]) -> dict[str, Any]:
    """The ``skills/get`` result."""
    for entry in skill_entries(lies):
        if entry["uri"] == params.get("uri"):
            return {"skill": entry}
    raise RequestError(ErrorCode.INVALID_PARAMS, f"Unknown skill: {params.get('uri')}", {"uri": params.get("uri")})


def read_directory(params: dict[str, Any], lies: frozenset[str], page_size: Optional[int]) -> dict[str, Any]:
    """The ``resources/directory/read`` result: the children of a directory of the skill namespace."""
    uri = params.get("uri")
    children = skill_directory(uri, lies) if isinstance(uri, str) else None
    if children is None:
        raise RequestError(ErrorCode.INVALID_PARAMS, f"Not a directory: {uri}", {"uri": uri})
    return page("resources", children, params.get("cursor"), page_size)
