"""The official MCP SDK's ``MCPServer`` served over HTTP, for tests/test_official_sdk_http.py.

    python official_http_server.py PORT MODE

MODE is ``sse-replies`` (Streamable HTTP answering each POST with an SSE
stream), ``json-replies`` (Streamable HTTP, ``json_response=True``),
``stateless`` (Streamable HTTP, ``stateless_http=True``) or ``http+sse`` (the
2024-11-05 HTTP+SSE transport, stream at /sse). Listens on 127.0.0.1 only.
"""

from __future__ import annotations

import sys
import warnings

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel

# ctx.info() warns that logging is deprecated as of 2026-07-28; keep stderr to what matters.
warnings.filterwarnings("ignore", message="The logging capability is deprecated")

app = MCPServer("official-http-test", version="4.5.6", log_level="WARNING")

#: What the ``slow`` calls did, by key: "running", "finished" or "cancelled" (one process, all sessions).
SLOW: dict[str, str] = {}


class Sum(BaseModel):
    total: int


class Person(BaseModel):
    name: str


@app.tool()
def add(a: int, b: int) -> Sum:
    """Add two integers."""
    return Sum(total=a + b)


@app.tool()
def echo(text: str) -> str:
    """Return the text unchanged."""
    return text


@app.tool()
def refuse(reason: str) -> str:
    """Fail on purpose with a ToolError."""
    raise ToolError(reason)


@app.tool()
async def progress(steps: int, ctx: Context) -> str:
    """Log a message, then report progress once per step."""
    await ctx.info(f"starting {steps} steps")
    for step in range(1, steps + 1):
        await ctx.report_progress(step, steps, f"step {step}")
    return f"did {steps} steps"


@app.tool()
async def slow(seconds: float, key: str = "") -> str:
    """Sleep; record under ``key`` whether the sleep finished or was cancelled."""
    SLOW[key] = "running"
    try:
        await anyio.sleep(seconds)
    except anyio.get_cancelled_exc_class():
        SLOW[key] = "cancelled"
        raise
    SLOW[key] = "finished"
    return "slept"


@app.tool()
def slow_state(key: str) -> str:
    """What the ``slow`` call with this key did so far ("" if it never started)."""
    return SLOW.get(key, "")


@app.tool()
async def ping_client(ctx: Context) -> str:
    """Ping the client (a server-to-client request outside any request's stream)."""
    await ctx.session.send_ping()
    return "client answered"


@app.tool()
async def ask_name(ctx: Context) -> str:
    """Elicit a name from the client (a server-to-client request on this call's stream)."""
    result = await ctx.elicit("What is your name?", Person)
    if result.action == "accept":
        return f"hello {result.data.name}"
    return result.action


@app.tool()
async def tools_changed(ctx: Context) -> str:
    """Send notifications/tools/list_changed, which belongs to no request."""
    await ctx.session.send_tool_list_changed()
    return "sent"


def main() -> None:
    port, mode = int(sys.argv[1]), sys.argv[2]
    if mode == "http+sse":
        app.run(transport="sse", host="127.0.0.1", port=port)
    elif mode in ("sse-replies", "json-replies", "stateless"):
        app.run(
            transport="streamable-http",
            host="127.0.0.1",
            port=port,
            json_response=mode == "json-replies",
            stateless_http=mode == "stateless",
        )
    else:
        sys.exit(f"unknown mode {mode!r}")


if __name__ == "__main__":
    main()
