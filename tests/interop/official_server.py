"""The official MCP SDK's ``MCPServer``, for tests/interop/test_official_stdio.py and tests/interop/test_official_http.py.

    python official_server.py stdio
    python official_server.py MODE PORT

``stdio`` serves over stdin and stdout. An HTTP MODE listens on 127.0.0.1:PORT
only: ``sse-replies`` (Streamable HTTP answering each POST with an SSE
stream), ``json-replies`` (Streamable HTTP, ``json_response=True``),
``stateless`` (Streamable HTTP, ``stateless_http=True``) or ``http+sse`` (the
2024-11-05 HTTP+SSE transport, stream at /sse).

Both test modules know the server's name, version and tools from tests/interop/official.py.
"""

from __future__ import annotations

import logging
import os
import sys
import warnings

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from mcp_types import ElicitRequest, ElicitRequestFormParams, InputRequiredResult, ListRootsRequest
from pydantic import BaseModel

# ctx.info() warns that logging is deprecated as of 2026-07-28; keep stderr to what tests write.
warnings.filterwarnings("ignore", message="The logging capability is deprecated")

app = MCPServer(
    "official-sdk-test",
    title="Official SDK test server",
    version="1.2.3",
    instructions="A server for mcpsync's interoperability tests.",
    log_level="WARNING",
)
# The SDK's server spans record (a TracerProvider of the OpenTelemetry SDK, a test dependency, without an
# exporter): ``trace_context`` shows which trace and parent a call's span has.
try:
    from opentelemetry import trace as _trace
    from opentelemetry.sdk.trace import TracerProvider as _TracerProvider
except ImportError:  # without the SDK the server's spans do not record, but still carry the client's trace
    pass
else:
    _trace.set_tracer_provider(_TracerProvider())
# Plain tracebacks on stderr, as without rich (fastmcp, another test peer, installs it; MCPServer then boxes them).
logging.basicConfig(level=logging.WARNING, format="%(message)s", handlers=[logging.StreamHandler()], force=True)

#: What the ``slow`` calls did, by key: "running", "finished" or "cancelled" (one process, all sessions).
SLOW: dict[str, str] = {}


class Sum(BaseModel):
    total: int


class Person(BaseModel):
    name: str


@app.tool(title="Adder", annotations=ToolAnnotations(read_only_hint=True))
def add(a: int, b: int) -> Sum:
    """Add two integers."""
    return Sum(total=a + b)


@app.tool()
def echo(text: str) -> str:
    """Return the text unchanged."""
    return text


@app.tool()
def crash(message: str) -> str:
    """Raise an unexpected exception."""
    raise ValueError(message)


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
def to_stderr(line: str) -> str:
    """Write a line to stderr."""
    print(line, file=sys.stderr, flush=True)
    return "written"


@app.tool()
def to_stdout(line: str) -> str:
    """Print a line to stdout (over stdio, the protocol stream)."""
    print(line, flush=True)
    return "printed"


@app.tool()
async def slow(seconds: float, key: str = "", marker: str = "") -> str:
    """Sleep; first write the marker to stderr, if given. Record under ``key`` whether the sleep finished."""
    if marker:
        print(marker, file=sys.stderr, flush=True)
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
def die(code: int) -> str:
    """Exit the server process at once."""
    print("about to die", file=sys.stderr, flush=True)
    os._exit(code)


@app.tool()
async def ask_name(ctx: Context) -> str:
    """Elicit a name from the client (a server-to-client request on this call's stream)."""
    result = await ctx.elicit("What is your name?", Person)
    if result.action == "accept":
        return f"hello {result.data.name}"
    return result.action


@app.tool()
async def ping_client(ctx: Context) -> str:
    """Ping the client (a server-to-client request outside any request's stream)."""
    await ctx.session.send_ping()
    return "client answered"


@app.tool()
async def tools_changed(ctx: Context) -> str:
    """Send notifications/tools/list_changed, which belongs to no request."""
    await ctx.session.send_tool_list_changed()
    return "sent"


@app.tool()
async def publish_changes(uri: str = "", ctx: Context = None) -> str:  # type: ignore[assignment]
    """2026-07-28: tell subscriptions/listen streams that the tools changed, and that ``uri`` was updated."""
    await ctx.notify_tools_changed()
    if uri:
        await ctx.notify_resource_updated(uri)
    return "published"


@app.resource("data://greeting", mime_type="text/plain")
def greeting() -> str:
    return "hello from a resource"


@app.prompt()
def review(code: str) -> str:
    """Ask for a code review."""
    return f"Please review: {code}"


@app.tool()
async def ask_sampling(question: str, ctx: Context) -> str:
    """Ask the client's LLM (sampling/createMessage) and return its text."""
    from mcp.types import SamplingMessage, TextContent

    message = SamplingMessage(role="user", content=TextContent(type="text", text=question))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # sampling is deprecated as of 2026-07-28; still legacy-era MCP
        result = await ctx.session.create_message([message], max_tokens=10, related_request_id=ctx.request_id)
    return f"{result.model}: {result.content.text}"


@app.tool()
async def ask_in_rounds(ctx: Context) -> str | InputRequiredResult:
    """2026-07-28 only: ask for a name (elicitation) and the roots by input_required, then greet."""
    responses = ctx.input_responses
    if not responses:
        return InputRequiredResult(
            input_requests={
                "name": ElicitRequest(
                    params=ElicitRequestFormParams(
                        message="Your name?",
                        requested_schema={"type": "object", "properties": {"name": {"type": "string"}}},
                    )
                ),
                "roots": ListRootsRequest(),
            },
            request_state="round-1",
        )
    answers = {key: value.model_dump(mode="json", exclude_none=True) for key, value in responses.items()}
    name = answers["name"]["content"]["name"]
    roots = " ".join(root["uri"] for root in answers["roots"]["roots"])
    return f"hello {name} ({roots}) state={ctx.request_state}"


@app.tool()
async def client_roots(ctx: Context) -> str:
    """List the client's roots (roots/list)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = await ctx.session.list_roots()
    return " ".join(str(root.uri) for root in result.roots)


@app.tool()
def trace_context() -> dict[str, object]:
    """The OpenTelemetry span this call runs in (the SDK's own server span, made from the ``traceparent``
    in the request's ``_meta``): its trace id, span id and parent span id, in hex."""
    from opentelemetry import trace

    span = trace.get_current_span()
    ctx = span.get_span_context()
    parent = getattr(span, "parent", None)
    return {
        "trace_id": f"{ctx.trace_id:032x}",
        "span_id": f"{ctx.span_id:016x}",
        "parent_span_id": f"{parent.span_id:016x}" if parent is not None else None,
        "recording": span.is_recording(),
        "name": getattr(span, "name", None),
    }


@app.resource("data://pixel", mime_type="image/png")
def pixel() -> bytes:
    """A binary resource."""
    return bytes([137, 80, 78, 71, 13, 10, 26, 10])


@app.resource("greet://{name}", mime_type="text/plain")
def greet(name: str) -> str:
    """A templated resource."""
    return f"hello, {name}"


@app.completion()
async def complete(ref, argument, context):  # type: ignore[no-untyped-def]
    from mcp.types import Completion

    names = ["Ada", "Alan", "Grace"]
    return Completion(values=[n for n in names if n.startswith(argument.value)])


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode == "stdio" and len(sys.argv) == 2:
        app.run()
    elif mode == "http+sse" and len(sys.argv) == 3:
        app.run(transport="sse", host="127.0.0.1", port=int(sys.argv[2]))
    elif mode in ("sse-replies", "json-replies", "stateless") and len(sys.argv) == 3:
        app.run(
            transport="streamable-http",
            host="127.0.0.1",
            port=int(sys.argv[2]),
            json_response=mode == "json-replies",
            stateless_http=mode == "stateless",
        )
    else:
        sys.exit(f"usage: {sys.argv[0]} stdio | {{sse-replies,json-replies,stateless,http+sse}} PORT")


if __name__ == "__main__":
    main()
