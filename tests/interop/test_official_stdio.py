"""Interoperability with a server we did not write: the official MCP Python SDK's ``MCPServer``.

Every test starts tests/interop/official_server.py as a child process over stdio and
talks to it through mcpsync's public API only. The whole module is skipped
where the ``mcp`` package is absent (it needs Python 3.10+; mcpsync supports
3.9).

Behaviour of the SDK (mcp 2.3.0) these tests pin, and which differs from what
one might expect from the MCP spec, is called out in the docstrings marked
"SDK:".
"""

from __future__ import annotations

import json
import logging
import sys
import threading
import time
from typing import Any, Callable, Iterator, Optional

import pytest

pytest.importorskip("mcp.server.mcpserver")

import mcpsync
from tests.helpers import wait_for
from tests.interop.official import (
    SERVER_NAME,
    SERVER_SCRIPT,
    TIMEOUT,
    TOOLS,
    client_opener,
    echo_from_threads,
    five_slow_calls_at_once,
)

#: The name mcpsync gives the server (logs, thread names); not the server's own name.
LABEL = "official-sdk"


@pytest.fixture
def server_command() -> list[str]:
    """The command line of the SDK server over stdio."""
    return [sys.executable, str(SERVER_SCRIPT), "stdio"]


@pytest.fixture
def open_client(server_command: list[str]) -> Iterator[Callable[..., mcpsync.Client]]:
    """Connect to a fresh SDK server (``name=LABEL`` unless given); every client is closed afterwards."""
    with client_opener(server_command, LABEL) as open_:
        yield open_


@pytest.fixture
def client(open_client: Callable[..., mcpsync.Client]) -> mcpsync.Client:
    """A connected client on a fresh SDK server."""
    return open_client()


def stdio_of(client: mcpsync.Client) -> mcpsync.StdioTransport:
    """The client's transport, typed as the stdio transport a command line gives."""
    assert isinstance(client.transport, mcpsync.StdioTransport)
    return client.transport


# -- handshake -----------------------------------------------------------------


def test_handshake(client: mcpsync.Client) -> None:
    """initialize: serverInfo, the negotiated protocol version, capabilities and instructions."""
    assert client.state is mcpsync.ClientState.OPEN
    assert client.is_connected
    assert client.server_info is not None
    assert client.server_info.name == SERVER_NAME
    assert client.server_info.version == "1.2.3"
    assert client.server_info.title == "Official SDK test server"
    assert client.protocol_version == "2025-11-25" == mcpsync.LATEST_PROTOCOL_VERSION
    assert "tools" in client.server_capabilities
    # The server registers resources and prompts, so it advertises them too.
    assert "resources" in client.server_capabilities
    assert "prompts" in client.server_capabilities
    assert client.instructions == "A server for mcpsync's interoperability tests."
    assert SERVER_NAME in repr(client)


def test_default_name_comes_from_the_script(
    open_client: Callable[..., mcpsync.Client], caplog: pytest.LogCaptureFixture
) -> None:
    """Without name=, mcpsync names the server after the script: threads, and a dot-free logger name."""
    caplog.set_level(logging.INFO, logger="mcpsync.server.official_server_py")
    client = open_client(name=None, stderr="log")
    assert client.name == "official_server.py"
    thread_names = {t.name for t in threading.enumerate()}
    assert "mcpsync-dispatch-official_server.py" in thread_names
    assert "mcpsync-reader-official_server.py" in thread_names
    client.call_tool("to_stderr", {"line": "named-by-script"}, timeout=TIMEOUT)
    assert wait_for(
        lambda: any(
            r.name == "mcpsync.server.official_server_py" and r.getMessage() == "named-by-script"
            for r in caplog.records
        )
    )


# -- tools/list ----------------------------------------------------------------


def test_list_tools(client: mcpsync.Client) -> None:
    """tools/list: names, descriptions from docstrings, input schemas, output schemas, title and annotations."""
    tools = {tool.name: tool for tool in client.list_tools(timeout=TIMEOUT)}
    assert set(tools) == TOOLS

    add = tools["add"]
    assert add.description == "Add two integers."
    assert add.title == "Adder"
    assert add.annotations == {"readOnlyHint": True}
    assert add.input_schema["type"] == "object"
    assert add.input_schema["properties"]["a"]["type"] == "integer"
    assert add.input_schema["properties"]["b"]["type"] == "integer"
    assert sorted(add.input_schema["required"]) == ["a", "b"]
    # A pydantic return type becomes the outputSchema.
    assert add.output_schema is not None
    assert add.output_schema["type"] == "object"
    assert add.output_schema["properties"]["total"]["type"] == "integer"
    assert add.output_schema["required"] == ["total"]

    echo = tools["echo"]
    assert echo.description == "Return the text unchanged."
    assert echo.input_schema["properties"]["text"]["type"] == "string"
    assert echo.input_schema["required"] == ["text"]
    # SDK: a plain `-> str` is structured output too, wrapped as {"result": ...}.
    assert echo.output_schema is not None
    assert echo.output_schema["properties"]["result"]["type"] == "string"

    # The Context parameter is injected by the server, never part of the schema.
    assert set(tools["progress"].input_schema["properties"]) == {"steps"}
    assert set(tools["ask_name"].input_schema.get("properties", {})) == set()
    # A parameter with a default is optional.
    slow = tools["slow"]
    assert slow.input_schema["required"] == ["seconds"]
    assert slow.input_schema["properties"]["marker"]["default"] == ""


# -- tools/call ----------------------------------------------------------------


def test_call_echo(client: mcpsync.Client) -> None:
    """tools/call echo: the text comes back as a text block and as structured {"result": text}."""
    result = client.call_tool("echo", {"text": "hello"}, timeout=TIMEOUT)
    assert result.is_error is False
    assert result.tool_name == "echo"
    assert result.content == [mcpsync.TextContent("hello")]
    assert result.text == "hello"
    assert result.structured_content == {"result": "hello"}
    assert result.raise_for_error() is result


def test_call_add_structured(client: mcpsync.Client) -> None:
    """tools/call add: structuredContent {"total": 3}, and the text block is that object as JSON."""
    result = client.call_tool("add", {"a": 1, "b": 2}, timeout=TIMEOUT)
    assert result.is_error is False
    assert result.structured_content == {"total": 3}
    assert "3" in result.text
    assert json.loads(result.text) == {"total": 3}


def test_call_crashing_tool(client: mcpsync.Client) -> None:
    """A tool raising ValueError: isError true; SDK: the exception text stays on the server."""
    result = client.call_tool("crash", {"message": "secret detail"}, timeout=TIMEOUT)
    assert result.is_error is True
    assert result.text == "Error executing tool crash"
    assert "secret detail" not in result.text
    with pytest.raises(mcpsync.ToolError, match="tool 'crash' failed: Error executing tool crash") as info:
        result.raise_for_error()
    assert info.value.result is result
    # The traceback went to the server's stderr, which mcpsync keeps.
    assert wait_for(lambda: any("ValueError: secret detail" in line for line in stdio_of(client).stderr_tail))


def test_call_tool_raising_tool_error(client: mcpsync.Client) -> None:
    """A tool raising the SDK's ToolError: isError true with its message; raise_for_error raises mcpsync.ToolError."""
    result = client.call_tool("refuse", {"reason": "not today"}, timeout=TIMEOUT)
    assert result.is_error is True
    assert result.text == "Error executing tool refuse: not today"
    with pytest.raises(mcpsync.ToolError, match="not today"):
        result.raise_for_error()


def test_call_unknown_tool(client: mcpsync.Client) -> None:
    """SDK: an unknown tool is an isError result, not the -32602 protocol error the spec's example shows;
    ``call_tool`` makes it ``UnknownNameError`` (listing the tools once if it must), with the SDK's words."""
    raw = client.request("tools/call", {"name": "no_such_tool", "arguments": {}}, timeout=TIMEOUT)
    result = mcpsync.CallToolResult.from_dict(raw, "no_such_tool")
    assert result.is_error is True
    assert result.text == "Unknown tool: no_such_tool"
    assert "error: text 'Unknown tool: no_such_tool'" in repr(result)
    with pytest.raises(mcpsync.ToolError, match="Unknown tool: no_such_tool"):
        result.raise_for_error()
    with pytest.raises(mcpsync.UnknownNameError, match=r"no tool named 'no_such_tool'.*Unknown tool: no_such_tool"):
        client.call_tool("no_such_tool", {}, timeout=TIMEOUT)


def test_a_mistyped_tool_raises_once_the_tools_are_listed(client: mcpsync.Client) -> None:
    """The same isError answer, for a name the client's held list lacks: ``UnknownNameError``, the closest
    names and the server's words (a typo is not a result to overlook)."""
    assert "add" in [tool.name for tool in client.list_tools(timeout=TIMEOUT)]
    with pytest.raises(mcpsync.UnknownNameError) as info:
        client.call_tool("ad", {"a": 1, "b": 2}, timeout=TIMEOUT)
    assert "lists no tool named 'ad'; did you mean 'add'" in str(info.value)
    assert "(it answered: 'Unknown tool: ad')" in str(info.value)


def test_call_with_invalid_arguments(client: mcpsync.Client) -> None:
    """Arguments failing the input schema: an isError result naming the field (spec 2025-11-25: a tool execution error)."""
    result = client.call_tool("add", {"a": "not a number", "b": 2}, timeout=TIMEOUT)
    assert result.is_error is True
    assert result.text.startswith("Error executing tool add:")
    assert "validation error" in result.text
    missing = client.call_tool("echo", {}, timeout=TIMEOUT)
    assert missing.is_error is True
    assert "Field required" in missing.text


def test_malformed_tools_call_is_a_server_error(client: mcpsync.Client) -> None:
    """tools/call without a name fails its schema: JSON-RPC error -32602, raised as ServerError."""
    with pytest.raises(mcpsync.ServerError) as info:
        client.request("tools/call", {"arguments": {}}, timeout=TIMEOUT)
    assert info.value.code == -32602
    assert info.value.message == "Invalid request parameters"
    # The session survives.
    assert client.call_tool("echo", {"text": "still here"}, timeout=TIMEOUT).text == "still here"


def test_unknown_method_is_method_not_found(client: mcpsync.Client) -> None:
    """An unknown method, and logging/setLevel (MCPServer registers no handler): -32601."""
    with pytest.raises(mcpsync.ServerError) as info:
        client.request("no/such/method", timeout=TIMEOUT)
    assert info.value.code == -32601
    assert info.value.message == "Method not found"
    with pytest.raises(mcpsync.ServerError) as info:
        client.request("logging/setLevel", {"level": "debug"}, timeout=TIMEOUT)
    assert info.value.code == -32601


def test_large_unicode_payload_round_trips(client: mcpsync.Client) -> None:
    """A ~1 MB string with newlines, U+2028, NUL and non-BMP characters survives the line framing both ways."""
    text = ('é\n\u2028\u2029\x00\t"\\ 😀 ' * 60_000) + "end"
    result = client.call_tool("echo", {"text": text}, timeout=TIMEOUT)
    assert result.structured_content == {"result": text}
    assert result.text == text
    assert client.transport.stats.malformed == 0
    assert client.transport.stats.invalid == 0


# -- raw requests ----------------------------------------------------------------


def test_ping_raw_request_and_future(client: mcpsync.Client) -> None:
    """ping, a raw tools/list, and send_request's Future."""
    client.ping(timeout=TIMEOUT)
    assert client.request("ping", timeout=TIMEOUT) == {}

    raw = client.request("tools/list", timeout=TIMEOUT)
    assert isinstance(raw, dict)
    assert "echo" in {tool["name"] for tool in raw["tools"]}

    future = client.send_request("tools/call", {"name": "add", "arguments": {"a": 20, "b": 22}})
    result = future.result(timeout=TIMEOUT)
    assert result["structuredContent"] == {"total": 42}
    assert result["isError"] is False
    assert future.method == "tools/call"

    failing = client.send_request("no/such/method")
    with pytest.raises(mcpsync.ServerError) as info:
        failing.result(timeout=TIMEOUT)
    assert info.value.code == -32601


def test_resources_and_prompts_through_raw_requests(client: mcpsync.Client) -> None:
    """resources/list, resources/read (and a missing resource: -32602 with data.uri), prompts/get."""
    listed = client.request("resources/list", timeout=TIMEOUT)
    assert [r["uri"] for r in listed["resources"]] == ["data://greeting", "data://pixel"]

    read = client.request("resources/read", {"uri": "data://greeting"}, timeout=TIMEOUT)
    assert read["contents"] == [{"uri": "data://greeting", "mimeType": "text/plain", "text": "hello from a resource"}]

    with pytest.raises(mcpsync.ServerError) as info:
        client.request("resources/read", {"uri": "data://missing"}, timeout=TIMEOUT)
    assert info.value.code == -32602
    assert info.value.data == {"uri": "data://missing"}

    prompt = client.request("prompts/get", {"name": "review", "arguments": {"code": "x = 1"}}, timeout=TIMEOUT)
    assert prompt["messages"] == [{"role": "user", "content": {"type": "text", "text": "Please review: x = 1"}}]


# -- concurrency -----------------------------------------------------------------


def test_concurrent_calls_from_many_threads(client: mcpsync.Client) -> None:
    """8 threads x 25 echo calls on one client: every caller gets its own text back."""
    outcomes = echo_from_threads(client, threads=8, calls=25)
    assert sum(len(seen) for seen in outcomes) == 200
    for seen in outcomes:
        for sent, text, structured in seen:
            assert text == sent
            assert structured == {"result": sent}
    stats = client.transport.stats
    assert stats.unmatched_responses == 0 and stats.invalid == 0 and stats.malformed == 0


def test_requests_are_pipelined(client: mcpsync.Client) -> None:
    """Five 1-second calls sent at once finish together: mcpsync does not serialise requests."""
    elapsed = five_slow_calls_at_once(client)
    assert elapsed < 4.5, f"5 concurrent 1 s calls took {elapsed:.1f}s"  # one after another: 5 s


# -- the server's stderr and stdout ------------------------------------------------


def test_server_stderr_reaches_our_stderr_by_default(
    client: mcpsync.Client, capsys: pytest.CaptureFixture[str]
) -> None:
    """By default a line the SDK server's tool writes to stderr appears on ours, ``[name] `` in front."""
    assert client.call_tool("to_stderr", {"line": "a line for people"}, timeout=TIMEOUT).text == "written"
    assert wait_for(lambda: "a line for people" in stdio_of(client).stderr_tail)
    assert f"[{LABEL}] a line for people\n" in capsys.readouterr().err


def test_server_stderr_reaches_tail_and_logging(
    open_client: Callable[..., mcpsync.Client], caplog: pytest.LogCaptureFixture
) -> None:
    """With stderr="log", a line the tool writes to stderr lands in transport.stderr_tail and in logger
    mcpsync.server.<name> at INFO."""
    client = open_client(stderr="log")
    logger_name = f"mcpsync.server.{LABEL}"
    caplog.set_level(logging.INFO, logger=logger_name)
    result = client.call_tool("to_stderr", {"line": "a line on stderr"}, timeout=TIMEOUT)
    assert result.text == "written"
    assert wait_for(lambda: "a line on stderr" in stdio_of(client).stderr_tail)
    assert wait_for(lambda: any(r.name == logger_name and r.getMessage() == "a line on stderr" for r in caplog.records))
    record = next(r for r in caplog.records if r.getMessage() == "a line on stderr")
    assert record.levelno == logging.INFO
    assert record.threadName == f"mcpsync-stderr-{LABEL}"


def test_print_to_stdout_in_a_tool_does_not_corrupt_the_stream(client: mcpsync.Client) -> None:
    """SDK: the stdio server moves fd 1 to stderr while it runs, so a tool's print() shows up as stderr."""
    result = client.call_tool("to_stdout", {"line": "printed, not protocol"}, timeout=TIMEOUT)
    assert result.text == "printed"
    assert wait_for(lambda: "printed, not protocol" in stdio_of(client).stderr_tail)
    assert client.transport.stats.malformed == 0
    assert client.call_tool("echo", {"text": "fine"}, timeout=TIMEOUT).text == "fine"


# -- notifications and requests from the server --------------------------------------


def test_log_and_progress_notifications(open_client: Callable[..., mcpsync.Client]) -> None:
    """ctx.info and ctx.report_progress reach on_notification, in order, on the dispatch thread."""
    received: list[tuple[str, str, Optional[dict[str, Any]]]] = []
    last_progress = threading.Event()

    def on_notification(method: str, params: Optional[dict[str, Any]]) -> None:
        received.append((threading.current_thread().name, method, params))
        if method == "notifications/progress" and params and params.get("progress") == 3:
            last_progress.set()

    client = open_client(on_notification=on_notification)
    result = client.call_tool("progress", {"steps": 3}, timeout=TIMEOUT, meta={"progressToken": "tok-1"})
    assert result.text == "did 3 steps"
    assert last_progress.wait(TIMEOUT)

    assert {name for name, _, _ in received} == {f"mcpsync-dispatch-{LABEL}"}
    assert [(method, params) for _, method, params in received] == [
        ("notifications/message", {"level": "info", "data": "starting 3 steps"}),
        ("notifications/progress", {"progressToken": "tok-1", "progress": 1, "total": 3, "message": "step 1"}),
        ("notifications/progress", {"progressToken": "tok-1", "progress": 2, "total": 3, "message": "step 2"}),
        ("notifications/progress", {"progressToken": "tok-1", "progress": 3, "total": 3, "message": "step 3"}),
    ]


def test_no_progress_without_a_progress_token(open_client: Callable[..., mcpsync.Client]) -> None:
    """Without _meta.progressToken the server sends the log message but no progress notifications."""
    received: list[str] = []
    got_log = threading.Event()

    def on_notification(method: str, params: Optional[dict[str, Any]]) -> None:
        received.append(method)
        if method == "notifications/message":
            got_log.set()

    client = open_client(on_notification=on_notification)
    assert client.call_tool("progress", {"steps": 2}, timeout=TIMEOUT).text == "did 2 steps"
    assert got_log.wait(TIMEOUT)
    client.ping(timeout=TIMEOUT)  # anything else the server sent is queued before this answer
    client.close()  # runs every queued callback before returning
    assert received == ["notifications/message"]


def test_server_pings_the_client(client: mcpsync.Client) -> None:
    """A ping the server sends mid-call is answered by mcpsync (on its reader thread)."""
    result = client.call_tool("ping_client", timeout=TIMEOUT)
    assert result.is_error is False
    assert result.text == "client answered"


def test_elicitation_handler_may_call_back_into_the_client(open_client: Callable[..., mcpsync.Client]) -> None:
    """elicitation/create goes to request_handlers; the handler may call the server again before answering."""
    seen: list[tuple[str, Optional[dict[str, Any]]]] = []
    holder: dict[str, mcpsync.Client] = {}

    def on_elicit(params: Optional[dict[str, Any]]) -> dict[str, Any]:
        seen.append((threading.current_thread().name, params))
        # The server is waiting for our answer; a nested call must not deadlock.
        name = holder["client"].call_tool("echo", {"text": "Ada"}, timeout=TIMEOUT).text
        return {"action": "accept", "content": {"name": name}}

    client = open_client(capabilities={"elicitation": {}}, request_handlers={"elicitation/create": on_elicit})
    holder["client"] = client
    result = client.call_tool("ask_name", timeout=TIMEOUT)
    assert result.is_error is False
    assert result.text == "hello Ada"
    assert len(seen) == 1
    thread_name, params = seen[0]
    assert thread_name == f"mcpsync-dispatch-{LABEL}"
    assert params is not None
    assert params["message"] == "What is your name?"
    assert params["mode"] == "form"
    assert params["requestedSchema"]["properties"]["name"]["type"] == "string"

    client.request_handlers["elicitation/create"] = lambda params: {"action": "decline"}
    assert client.call_tool("ask_name", timeout=TIMEOUT).text == "decline"


def test_request_handler_error_becomes_the_tool_calls_error(open_client: Callable[..., mcpsync.Client]) -> None:
    """SDK: an error we answer to elicitation/create fails the whole tools/call with our code, message and data."""

    def refuse(params: Optional[dict[str, Any]]) -> dict[str, Any]:
        raise mcpsync.ServerError(-32001, "the user walked away", {"why": "lunch"})

    client = open_client(capabilities={"elicitation": {}}, request_handlers={"elicitation/create": refuse})
    with pytest.raises(mcpsync.ServerError) as info:
        client.call_tool("ask_name", timeout=TIMEOUT)
    assert info.value.code == -32001
    assert info.value.message == "the user walked away"
    assert info.value.data == {"why": "lunch"}
    assert client.call_tool("echo", {"text": "ok"}, timeout=TIMEOUT).text == "ok"


def test_elicitation_without_a_handler_gets_method_not_found(client: mcpsync.Client) -> None:
    """SDK: it elicits even from a client that declared no elicitation capability; mcpsync answers -32601."""
    assert "elicitation" not in client.capabilities
    with pytest.raises(mcpsync.ServerError) as info:
        client.call_tool("ask_name", timeout=TIMEOUT)
    assert info.value.code == -32601
    assert info.value.message == "Method not found: elicitation/create"


# -- timeouts and cancellation -------------------------------------------------------


def test_timeout_cancels_on_the_server(client: mcpsync.Client) -> None:
    """RequestTimeout sends notifications/cancelled; the SDK honours it (no late response) and the session goes on."""
    started = time.monotonic()
    with pytest.raises(mcpsync.RequestTimeout) as info:
        client.call_tool("slow", {"seconds": 5.0}, timeout=0.2)
    assert time.monotonic() - started < 4.0  # well before the tool would have answered
    assert info.value.method == "tools/call"
    assert wait_for(lambda: client.transport.stats.cancelled == 1)  # counted once the notice is out
    time.sleep(1.5)  # past the tool's end: a server ignoring the cancellation would have answered by now
    assert client.call_tool("echo", {"text": "after"}, timeout=TIMEOUT).text == "after"
    stats = client.transport.stats
    assert stats.late_responses == 0
    assert stats.unmatched_responses == 0


def test_future_cancel(client: mcpsync.Client) -> None:
    """Future.cancel() on a running call tells the server, which then sends nothing for it."""
    future = client.send_request("tools/call", {"name": "slow", "arguments": {"seconds": 0.5, "marker": "slow-a"}})
    assert wait_for(lambda: "slow-a" in stdio_of(client).stderr_tail)
    assert future.cancel() is True
    assert future.cancelled()
    assert wait_for(lambda: client.transport.stats.cancelled == 1)  # counted once the notice is out
    time.sleep(1.0)
    client.ping(timeout=TIMEOUT)
    assert client.transport.stats.late_responses == 0
    assert client.transport.stats.unmatched_responses == 0


# -- the end of the session ------------------------------------------------------------


def test_close_ends_the_server(server_command: list[str]) -> None:
    """After the with block the server has exited (cleanly, on stdin EOF) and the client refuses work."""
    with mcpsync.connect(server_command, name=LABEL, timeout=TIMEOUT) as client:
        assert stdio_of(client).returncode is None
        assert client.call_tool("echo", {"text": "x"}, timeout=TIMEOUT).text == "x"
    assert stdio_of(client).returncode == 0
    assert client.state is mcpsync.ClientState.CLOSED
    assert not client.is_connected
    with pytest.raises(mcpsync.TransportClosed):
        client.call_tool("echo", {"text": "x"}, timeout=TIMEOUT)
    client.close()  # idempotent


def test_close_with_a_call_in_flight(client: mcpsync.Client) -> None:
    """close() while another thread waits on a long call: that caller gets TransportClosed at once; close is bounded."""
    outcome: dict[str, BaseException] = {}

    def long_call() -> None:
        try:
            client.call_tool("slow", {"seconds": 60, "marker": "long-call-started"}, timeout=TIMEOUT * 3)
        except BaseException as exc:
            outcome["error"] = exc

    caller = threading.Thread(target=long_call, name="long-caller")
    caller.start()
    try:
        assert wait_for(lambda: "long-call-started" in stdio_of(client).stderr_tail)
        started = time.monotonic()
        client.close()
        closing = time.monotonic() - started
    finally:
        caller.join(TIMEOUT)
    assert not caller.is_alive()
    assert isinstance(outcome.get("error"), mcpsync.TransportClosed)
    assert "closed by the client" in str(outcome["error"])
    # The SDK cancels its running handlers on stdin EOF and exits: no SIGTERM needed.
    assert closing < 2.0
    assert stdio_of(client).returncode == 0


def test_close_with_a_call_in_flight_is_quiet(client: mcpsync.Client, caplog: pytest.LogCaptureFixture) -> None:
    """close() cancels in-flight calls on the server; an answer to them is late, never a stray-response warning."""
    caplog.set_level(logging.WARNING, logger="mcpsync.transport")
    problems: list[BaseException] = []
    client.transport.on_error = problems.append
    future = client.send_request("tools/call", {"name": "slow", "arguments": {"seconds": 60, "marker": "quiet"}})
    assert wait_for(lambda: "quiet" in stdio_of(client).stderr_tail)
    client.close()
    with pytest.raises(mcpsync.TransportClosed):
        future.result(timeout=TIMEOUT)
    warnings = [r.getMessage() for r in caplog.records if r.name == "mcpsync.transport"]
    assert warnings == []
    assert problems == []
    stats = client.transport.stats
    assert stats.cancelled == 1  # the server was told before its stdin closed
    assert stats.unmatched_responses == 0
    assert stats.invalid == 0


def test_server_dying_mid_call(client: mcpsync.Client) -> None:
    """The server exits during a call: the caller gets TransportClosed with the exit code and stderr tail."""
    with pytest.raises(mcpsync.TransportClosed) as info:
        client.call_tool("die", {"code": 3}, timeout=TIMEOUT)
    error = info.value
    assert error.exit_code == 3
    assert "about to die" in error.stderr_tail
    assert "exited with code 3" in str(error)
    assert "about to die" in str(error)
    assert not client.is_connected
    assert stdio_of(client).returncode == 3
    with pytest.raises(mcpsync.TransportClosed):
        client.call_tool("echo", {"text": "x"}, timeout=TIMEOUT)


def test_calls_after_the_server_died_still_say_why(client: mcpsync.Client) -> None:
    """A call made after the server exited says how it exited, like the call that saw it die."""
    with pytest.raises(mcpsync.TransportClosed):
        client.call_tool("die", {"code": 3}, timeout=TIMEOUT)
    assert stdio_of(client).returncode == 3
    with pytest.raises(mcpsync.TransportClosed) as info:
        client.call_tool("echo", {"text": "x"}, timeout=TIMEOUT)
    assert info.value.exit_code == 3
    assert "about to die" in info.value.stderr_tail
