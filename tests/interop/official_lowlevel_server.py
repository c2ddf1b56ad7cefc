"""The official MCP SDK's low-level ``Server``, for tests/interop/test_official_lowlevel.py.

    python official_lowlevel_server.py stdio
    python official_lowlevel_server.py stdio-undeclared
    python official_lowlevel_server.py sse-replies PORT

It covers what the SDK's ``MCPServer`` (tests/interop/official_server.py) cannot: it
declares ``resources.subscribe`` and ``logging`` (``MCPServer`` registers
neither handler), and it can answer with structured content that does not match
the tool's ``outputSchema`` (``MCPServer`` validates its own output first).

- resource ``memo://counter``: its text is a counter that the ``bump`` tool
  raises; ``bump`` then sends ``notifications/resources/updated`` if the client
  subscribed to the URI;
- tool ``subscriptions``: the URIs the client is subscribed to, comma-separated;
- tool ``log_levels``: one ``notifications/message`` per MCP level, skipping
  those below the level the client set with ``logging/setLevel``;
- tool ``wrong_output``: declares ``{"total": integer}`` and answers ``{"total": "three"}``;
- tool ``cache_scope``: the ``cacheScope`` its reads of ``memo://counter`` carry from now on
  (``"private"`` at first), each with a ``ttlMs`` of ten minutes (2026-07-28);
- tool ``users`` (listed in the 2026-07-28 era only): declares an array of users and answers one
  (structured content that is not an object, as 2026-07-28 allows).

``stdio-undeclared`` serves the same while declaring ``capabilities: {}``, as many servers in the
wild do (it has no prompts, so ``prompts/list`` gets -32601).
"""

from __future__ import annotations

import sys
import warnings
from typing import Any

import anyio
from mcp import types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server

# logging/setLevel is deprecated as of 2026-07-28 (SEP-2577) but still part of 2025-11-25, which this server speaks.
warnings.filterwarnings("ignore", message=".*deprecated as of 2026-07-28.*")

COUNTER_URI = "memo://counter"
LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")

state: dict[str, Any] = {"counter": 0, "level": "debug", "subscribed": set(), "scope": "private"}

TOOLS = [
    types.Tool(name="bump", description="Raise the counter resource.", input_schema={"type": "object"}),
    types.Tool(name="subscriptions", description="Subscribed URIs.", input_schema={"type": "object"}),
    types.Tool(name="log_levels", description="Log once per level.", input_schema={"type": "object"}),
    types.Tool(
        name="cache_scope",
        description="The cacheScope of the counter's reads from now on.",
        input_schema={"type": "object", "properties": {"scope": {"enum": ["public", "private"]}}},
    ),
    types.Tool(
        name="wrong_output",
        description="Answer against its own output schema.",
        input_schema={"type": "object"},
        output_schema={"type": "object", "properties": {"total": {"type": "integer"}}, "required": ["total"]},
    ),
    types.Tool(
        name="users",
        description="The users, as an array.",
        input_schema={"type": "object"},
        output_schema={"type": "array", "items": {"type": "object", "required": ["name"]}},
    ),
]
USERS = [{"name": "Alice"}, {"name": "Bob"}]


def text(value: str) -> list[types.TextContent]:
    return [types.TextContent(type="text", text=value)]


async def list_tools(ctx: ServerRequestContext[Any], params: Any) -> types.ListToolsResult:
    # The SDK checks each result against its era's schema: 2025-11-25's outputSchema is an object.
    modern = ctx.protocol_version >= "2026-07-28"
    return types.ListToolsResult(tools=[tool for tool in TOOLS if modern or tool.name != "users"])


async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
    if params.name == "bump":
        state["counter"] += 1
        if COUNTER_URI in state["subscribed"]:
            await ctx.session.send_resource_updated(COUNTER_URI)
        return types.CallToolResult(content=text(str(state["counter"])))
    if params.name == "subscriptions":
        return types.CallToolResult(content=text(",".join(sorted(state["subscribed"]))))
    if params.name == "log_levels":
        sent = [level for level in LEVELS if LEVELS.index(level) >= LEVELS.index(state["level"])]
        for level in sent:
            await ctx.session.send_log_message(
                level, {"level": level}, logger="levels", related_request_id=ctx.request_id
            )
        return types.CallToolResult(content=text(",".join(sent)))
    if params.name == "wrong_output":
        return types.CallToolResult(content=text("three"), structured_content={"total": "three"})
    if params.name == "cache_scope":
        state["scope"] = (params.arguments or {}).get("scope", "private")
        return types.CallToolResult(content=text(state["scope"]))
    if params.name == "users":
        return types.CallToolResult(content=text("Alice, Bob"), structured_content=USERS)
    return types.CallToolResult(content=text(f"unknown tool {params.name}"), is_error=True)


async def list_resources(ctx: ServerRequestContext[Any], params: Any) -> types.ListResourcesResult:
    resource = types.Resource(uri=COUNTER_URI, name="counter", mime_type="text/plain")
    return types.ListResourcesResult(resources=[resource])


async def read_resource(ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams) -> Any:
    if str(params.uri) != COUNTER_URI:
        raise ValueError(f"no resource {params.uri}")
    contents = types.TextResourceContents(uri=COUNTER_URI, mime_type="text/plain", text=str(state["counter"]))
    return types.ReadResourceResult(contents=[contents], ttl_ms=600_000, cache_scope=state["scope"])


async def subscribe(ctx: ServerRequestContext[Any], params: types.SubscribeRequestParams) -> types.EmptyResult:
    state["subscribed"].add(str(params.uri))
    return types.EmptyResult()


async def unsubscribe(ctx: ServerRequestContext[Any], params: types.UnsubscribeRequestParams) -> types.EmptyResult:
    state["subscribed"].discard(str(params.uri))
    return types.EmptyResult()


async def set_level(ctx: ServerRequestContext[Any], params: types.SetLevelRequestParams) -> types.EmptyResult:
    state["level"] = params.level
    return types.EmptyResult()


app = Server(
    "official-lowlevel-test",
    version="4.5.6",
    on_list_tools=list_tools,
    on_call_tool=call_tool,
    on_list_resources=list_resources,
    on_read_resource=read_resource,
    on_subscribe_resource=subscribe,
    on_unsubscribe_resource=unsubscribe,
    on_set_logging_level=set_level,
)


async def discover_undeclared(ctx: ServerRequestContext[Any], params: Any) -> types.DiscoverResult:
    """``server/discover`` declaring no capability (the SDK's own derives them from the handlers)."""
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    return types.DiscoverResult(
        supported_versions=list(MODERN_PROTOCOL_VERSIONS), capabilities=types.ServerCapabilities()
    )


async def serve_stdio(declared: bool = True) -> None:
    from mcp.server.stdio import stdio_server

    options = app.create_initialization_options()
    if not declared:
        options = options.model_copy(update={"capabilities": types.ServerCapabilities()})
        app.add_request_handler("server/discover", types.RequestParams, discover_undeclared)
    async with stdio_server() as (read_stream, write_stream):
        await app.run(read_stream, write_stream, options)


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode in ("stdio", "stdio-undeclared") and len(sys.argv) == 2:
        anyio.run(serve_stdio, mode == "stdio")
    elif mode == "sse-replies" and len(sys.argv) == 3:
        import uvicorn

        uvicorn.run(app.streamable_http_app(), host="127.0.0.1", port=int(sys.argv[2]), log_level="warning")
    else:
        sys.exit(f"usage: {sys.argv[0]} stdio | stdio-undeclared | sse-replies PORT")


if __name__ == "__main__":
    main()
