"""Interoperability over HTTP with the official MCP Python SDK's ``MCPServer``.

tests/interop/official_server.py runs as a child process on 127.0.0.1, once per
module for each of four modes:

- ``sse-replies``: Streamable HTTP, each POST answered with an SSE stream;
- ``json-replies``: Streamable HTTP with ``json_response=True``;
- ``stateless``: Streamable HTTP with ``stateless_http=True`` (no session);
- ``http+sse``: the 2024-11-05 HTTP+SSE transport (stream at /sse).

The tests talk to it through mcpsync's public API; a few use ``requests``
directly to see what the server did (a session deleted, an answer sent). The
module is skipped where the ``mcp`` package is absent.

Behaviour of the SDK (mcp 2.3.0) these tests pin, and which one might not
expect from the MCP spec, is called out in the docstrings marked "SDK:".
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Callable, Optional

import pytest

pytest.importorskip("mcp.server.mcpserver")

import requests

import mcpsync
from tests.helpers import wait_for
from tests.http_server import stop
from tests.interop.official import (
    HTTP_SSE,
    SERVER_NAME,
    SERVER_VERSION,
    TIMEOUT,
    TOOLS,
    Server,
    client_opener,
    echo_from_threads,
    five_slow_calls_at_once,
    start_server,
)

pytestmark = pytest.mark.official

#: The name mcpsync gives the server (logs, thread names); not the server's own name.
LABEL = "official-http"

SSE_REPLIES = "sse-replies"
JSON_REPLIES = "json-replies"
STATELESS = "stateless"
MODES = (SSE_REPLIES, JSON_REPLIES, STATELESS, HTTP_SSE)
STREAMABLE = (SSE_REPLIES, JSON_REPLIES, STATELESS)
#: The Streamable HTTP modes that keep a session (an Mcp-Session-Id and a GET stream).
STATEFUL = (SSE_REPLIES, JSON_REPLIES)

DISPATCH_THREAD = f"mcpsync-dispatch-{LABEL}"
LISTENER_THREAD = f"mcpsync-listener-{LABEL}"  # Streamable HTTP: the GET stream
READER_THREAD = f"mcpsync-reader-{LABEL}"  # HTTP+SSE: the one event stream
CALLER_THREAD = "MainThread"  # Streamable HTTP: a blocking call reads its own answer stream

#: The error the SDK answers a server-to-client request with when the call has no way to send it.
NO_BACK_CHANNEL = "this transport context has no back-channel for server-initiated requests"


# -- the server process ----------------------------------------------------------------


@pytest.fixture(scope="module", params=MODES)
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """The official server in one mode, started once for the module."""
    running = start_server(request.param, tmp_path_factory.mktemp("official-http"))
    try:
        yield running
    finally:
        stop(running.process, 5)


@pytest.fixture
def own_server(tmp_path: Path) -> Iterator[Callable[[str], Server]]:
    """Start a server of one's own (a test that ends it); every one is stopped afterwards."""
    started: list[Server] = []

    def start(mode: str) -> Server:
        started.append(start_server(mode, tmp_path))
        return started[-1]

    yield start
    for running in started:
        stop(running.process, 5)


# -- clients ----------------------------------------------------------------------------


@pytest.fixture
def open_client(server: Server) -> Iterator[Callable[..., mcpsync.Client]]:
    """Connect to the module's server (``name=LABEL`` unless given); every client is closed afterwards."""
    with client_opener(server.target, LABEL) as open_:
        yield open_


@pytest.fixture
def client(open_client: Callable[..., mcpsync.Client]) -> mcpsync.Client:
    """A connected client on the module's server."""
    return open_client()


class Inbox:
    """What the server sent us: each message with the thread it arrived on, and each notification dispatched.

    Pass ``inbox.on_notification`` to ``mcpsync.connect``, then ``inbox.watch(client)``.
    """

    def __init__(self) -> None:
        self.arrived: list[tuple[str, str]] = []  # (transport thread, method)
        self.dispatched: list[tuple[str, str, Optional[dict[str, Any]]]] = []  # (thread, method, params)
        self._changed = threading.Condition()

    def on_notification(self, method: str, params: Optional[dict[str, Any]]) -> None:
        with self._changed:
            self.dispatched.append((threading.current_thread().name, method, params))
            self._changed.notify_all()

    def watch(self, client: mcpsync.Client) -> None:
        """Record which transport thread each notification and request from the server arrives on."""
        inbox = client._inbox
        inner = inbox.incoming

        def record(message: dict[str, Any], kind: Any) -> None:
            with self._changed:
                self.arrived.append((threading.current_thread().name, message["method"]))
            inner(message, kind)

        inbox.incoming = record  # type: ignore[method-assign]

    def wait(self, predicate: Callable[[], bool], timeout: float = TIMEOUT) -> bool:
        with self._changed:
            return self._changed.wait_for(predicate, timeout)

    def methods(self) -> list[str]:
        with self._changed:
            return [method for _, method, _ in self.dispatched]

    def clear(self) -> None:
        with self._changed:
            self.arrived.clear()
            self.dispatched.clear()


@pytest.fixture
def inbox() -> Inbox:
    """A fresh record of what the server sends."""
    return Inbox()


def wait_for_get_stream(client: mcpsync.Client, inbox: Inbox) -> None:
    """Wait until the client's GET stream is open: the server drops what it sends while none is.

    mcpsync opens the stream on its listener thread after the handshake, so the
    first moments of a session have none; a notification that belongs to no
    request (tools/list_changed) shows when it is there.
    """
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        client.call_tool("tools_changed", timeout=TIMEOUT)
        if inbox.wait(lambda: "notifications/tools/list_changed" in inbox.methods(), timeout=0.5):
            inbox.clear()
            return
    pytest.fail("the GET stream never delivered a notification")


def slow_state(client: mcpsync.Client, key: str) -> str:
    """What the server's ``slow`` call with this key did: "running", "finished", "cancelled" or ""."""
    return client.call_tool("slow_state", {"key": key}, timeout=TIMEOUT).text


def unique(name: str) -> str:
    """A key no other test (or mode: the server outlives a test) has used."""
    return f"{name}-{time.monotonic_ns()}"


def raw_post(server: Server, message: dict[str, Any], session_id: Optional[str]) -> requests.Response:
    """POST one message to the Streamable HTTP endpoint with ``requests``, as a client holding ``session_id``."""
    headers = {
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
        "MCP-Protocol-Version": "2025-11-25",
        **({"Mcp-Session-Id": session_id} if session_id else {}),
    }
    return requests.post(server.url, data=json.dumps(message), headers=headers, timeout=TIMEOUT)


# -- handshake ---------------------------------------------------------------------------


def test_handshake(server: Server, client: mcpsync.Client) -> None:
    """initialize: serverInfo, protocol 2025-11-25, the transport class, and the session id (stateful modes only)."""
    assert client.is_connected
    assert client.server_info is not None
    assert client.server_info.name == SERVER_NAME
    assert client.server_info.version == SERVER_VERSION
    assert client.protocol_version == "2025-11-25" == mcpsync.LATEST_PROTOCOL_VERSION
    assert "tools" in client.server_capabilities
    transport = client.transport
    threads = {t.name for t in threading.enumerate()}
    assert DISPATCH_THREAD in threads
    if server.mode == HTTP_SSE:
        assert type(transport) is mcpsync.SSETransport
        assert transport.url == server.url
        # The endpoint event names a path on the same origin, with the SDK's session in the query.
        assert transport.endpoint_url is not None
        assert transport.endpoint_url.startswith(f"http://127.0.0.1:{server.port}/messages/?session_id=")
        assert READER_THREAD in threads
        return
    assert type(transport) is mcpsync.StreamableHTTPTransport
    assert transport.url == server.url
    if server.mode == STATELESS:
        assert transport.session_id is None
    else:
        assert isinstance(transport.session_id, str) and transport.session_id
        assert all(0x21 <= ord(ch) <= 0x7E for ch in transport.session_id)


@pytest.mark.parametrize("server", [STATELESS], indirect=True)
def test_stateless_server_still_offers_a_get_stream(server: Server) -> None:
    """SDK: stateless, GET opens an event stream that can never carry anything (not 405); DELETE gets 405."""
    headers = {"Accept": "text/event-stream", "MCP-Protocol-Version": "2025-11-25"}
    with requests.get(server.url, headers=headers, stream=True, timeout=TIMEOUT) as response:
        assert response.status_code == 200
        assert response.headers["Content-Type"].startswith("text/event-stream")
    with requests.delete(server.url, headers=headers, timeout=TIMEOUT) as response:
        assert response.status_code == 405


# -- tools -------------------------------------------------------------------------------


def test_list_tools(client: mcpsync.Client) -> None:
    """tools/list: every tool, docstrings as descriptions, input and output schemas."""
    tools = {tool.name: tool for tool in client.list_tools(timeout=TIMEOUT)}
    assert set(tools) == TOOLS
    add = tools["add"]
    assert add.description == "Add two integers."
    assert add.input_schema["properties"]["a"]["type"] == "integer"
    assert sorted(add.input_schema["required"]) == ["a", "b"]
    assert add.output_schema is not None
    assert add.output_schema["properties"]["total"]["type"] == "integer"
    # The Context parameter is injected by the server, never part of the schema.
    assert set(tools["progress"].input_schema["properties"]) == {"steps"}


def test_call_tool_structured_and_errors(client: mcpsync.Client) -> None:
    """tools/call: structured output, a ToolError as isError, an unknown tool, and a raw unknown method."""
    result = client.call_tool("add", {"a": 1, "b": 2}, timeout=TIMEOUT)
    assert result.is_error is False
    assert result.structured_content == {"total": 3}
    assert json.loads(result.text) == {"total": 3}

    refused = client.call_tool("refuse", {"reason": "not today"}, timeout=TIMEOUT)
    assert refused.is_error is True
    assert refused.text == "Error executing tool refuse: not today"
    with pytest.raises(mcpsync.ToolError, match="not today"):
        refused.raise_for_error()

    with pytest.raises(mcpsync.UnknownNameError, match="lists no tool named 'no_such_tool'"):
        client.call_tool("no_such_tool", {}, timeout=TIMEOUT)  # the client has listed the tools above

    with pytest.raises(mcpsync.ServerError) as info:
        client.request("no/such/method", timeout=TIMEOUT)
    assert info.value.code == -32601
    assert client.call_tool("echo", {"text": "still here"}, timeout=TIMEOUT).text == "still here"


def test_large_unicode_echo(client: mcpsync.Client) -> None:
    """A ~1 MB text with newlines, CR, U+2028, NEL, NUL and non-BMP characters comes back intact."""
    text = ('é\n\r\u2028\u2029\x85\x00\t"\\ 😀 ✓ ' * 50_000) + "end"
    assert len(text.encode("utf-8")) > 1_000_000
    result = client.call_tool("echo", {"text": text}, timeout=TIMEOUT)
    assert result.structured_content == {"result": text}
    assert result.text == text
    stats = client.transport.stats
    assert stats.malformed == 0 and stats.invalid == 0


# -- notifications from the server -------------------------------------------------------


def test_log_and_progress_notifications(
    server: Server, open_client: Callable[..., mcpsync.Client], inbox: Inbox
) -> None:
    """ctx.info and ctx.report_progress reach on_notification in order on the dispatch thread (SDK: not in JSON mode).

    They belong to the call, so they come on the stream that carries its
    answer: the POST's SSE reply (read by a worker thread) in Streamable HTTP, the one
    event stream in HTTP+SSE. SDK: in JSON mode a request's notifications have
    no wire and are dropped, progress included, even though we asked for it.
    """
    client = open_client(on_notification=inbox.on_notification)
    inbox.watch(client)
    result = client.call_tool("progress", {"steps": 3}, timeout=TIMEOUT, meta={"progressToken": "p"})
    assert result.text == "did 3 steps"

    if server.mode == JSON_REPLIES:
        client.ping(timeout=TIMEOUT)
        client.close()  # runs every queued callback before returning
        assert inbox.arrived == []
        assert inbox.dispatched == []
        return

    assert inbox.wait(lambda: len(inbox.dispatched) == 4)
    assert inbox.dispatched == [
        (DISPATCH_THREAD, "notifications/message", {"level": "info", "data": "starting 3 steps"}),
        (
            DISPATCH_THREAD,
            "notifications/progress",
            {"progressToken": "p", "progress": 1, "total": 3, "message": "step 1"},
        ),
        (
            DISPATCH_THREAD,
            "notifications/progress",
            {"progressToken": "p", "progress": 2, "total": 3, "message": "step 2"},
        ),
        (
            DISPATCH_THREAD,
            "notifications/progress",
            {"progressToken": "p", "progress": 3, "total": 3, "message": "step 3"},
        ),
    ]
    arrival_threads = {thread for thread, _ in inbox.arrived}
    if server.mode == HTTP_SSE:
        assert arrival_threads == {READER_THREAD}
    else:  # on the request's own answer stream, which the blocking caller's own thread reads
        assert arrival_threads == {CALLER_THREAD}


def test_notification_outside_any_request(
    server: Server, open_client: Callable[..., mcpsync.Client], inbox: Inbox
) -> None:
    """A notification that belongs to no request comes on the GET stream (SSE stream); SDK: stateless drops it."""
    client = open_client(on_notification=inbox.on_notification)
    inbox.watch(client)
    if server.mode == STATELESS:
        for _ in range(3):
            assert client.call_tool("tools_changed", timeout=TIMEOUT).text == "sent"
        time.sleep(0.5)
        client.close()
        assert inbox.arrived == [] and inbox.dispatched == []
        return
    wait_for_get_stream(client, inbox)  # itself proves delivery; now look at one closely
    assert client.call_tool("tools_changed", timeout=TIMEOUT).text == "sent"
    assert inbox.wait(lambda: len(inbox.dispatched) >= 1)
    # (set: a probe of wait_for_get_stream may still be on its way)
    assert set(inbox.dispatched) == {(DISPATCH_THREAD, "notifications/tools/list_changed", None)}
    stream_thread = READER_THREAD if server.mode == HTTP_SSE else LISTENER_THREAD
    assert set(inbox.arrived) == {(stream_thread, "notifications/tools/list_changed")}


# -- requests from the server ----------------------------------------------------------------


def test_server_pings_the_client(server: Server, open_client: Callable[..., mcpsync.Client], inbox: Inbox) -> None:
    """A ping the server sends mid-call (on the GET or SSE stream) is answered; SDK: stateless cannot send one."""
    client = open_client(on_notification=inbox.on_notification)
    inbox.watch(client)
    if server.mode == STATELESS:
        with pytest.raises(mcpsync.ServerError) as info:
            client.call_tool("ping_client", timeout=TIMEOUT)
        assert info.value.code == -32600
        assert NO_BACK_CHANNEL in info.value.message
        assert inbox.arrived == []
        return
    if server.mode in STATEFUL:
        wait_for_get_stream(client, inbox)
    result = client.call_tool("ping_client", timeout=TIMEOUT)
    assert result.is_error is False
    assert result.text == "client answered"
    pings = [arrival for arrival in inbox.arrived if arrival[1] == "ping"]
    assert pings == [(READER_THREAD if server.mode == HTTP_SSE else LISTENER_THREAD, "ping")]


def test_elicitation(server: Server, open_client: Callable[..., mcpsync.Client], inbox: Inbox) -> None:
    """elicitation/create goes to request_handlers, whose handler may call the server again; SDK: JSON/stateless refuse.

    The request belongs to the call, so it comes on the call's answer stream:
    the POST's SSE reply, or the HTTP+SSE stream. SDK: with JSON replies or no
    session there is no such stream, and the whole tools/call fails with
    -32600 (Invalid Request, though our request was valid).
    """
    seen: list[tuple[str, Optional[dict[str, Any]]]] = []
    holder: dict[str, mcpsync.Client] = {}

    def on_elicit(params: Optional[dict[str, Any]]) -> dict[str, Any]:
        seen.append((threading.current_thread().name, params))
        # The server is waiting for our answer; a nested call must not deadlock.
        name = holder["client"].call_tool("echo", {"text": "Ada"}, timeout=TIMEOUT).text
        return {"action": "accept", "content": {"name": name}}

    client = open_client(capabilities={"elicitation": {}}, request_handlers={"elicitation/create": on_elicit})
    holder["client"] = client
    inbox.watch(client)
    if server.mode in (JSON_REPLIES, STATELESS):
        with pytest.raises(mcpsync.ServerError) as info:
            client.call_tool("ask_name", timeout=TIMEOUT)
        assert info.value.code == -32600
        assert info.value.message == f"Cannot send 'elicitation/create': {NO_BACK_CHANNEL}."
        assert seen == [] and inbox.arrived == []
        return

    result = client.call_tool("ask_name", timeout=TIMEOUT)
    assert result.is_error is False
    assert result.text == "hello Ada"
    assert len(seen) == 1
    thread_name, params = seen[0]
    assert thread_name == DISPATCH_THREAD
    assert params is not None and params["message"] == "What is your name?"
    assert params["requestedSchema"]["properties"]["name"]["type"] == "string"
    [(arrival_thread, method)] = inbox.arrived
    assert method == "elicitation/create"
    if server.mode == HTTP_SSE:
        assert arrival_thread == READER_THREAD
    else:  # on the POST's answer stream, which the blocking caller's own thread reads
        assert arrival_thread == CALLER_THREAD

    client.request_handlers["elicitation/create"] = lambda params: {"action": "decline"}
    assert client.call_tool("ask_name", timeout=TIMEOUT).text == "decline"


# -- concurrency -------------------------------------------------------------------------------


def test_concurrent_calls_from_many_threads(client: mcpsync.Client) -> None:
    """8 threads x 20 echo calls on one client: every caller gets its own text back."""
    outcomes = echo_from_threads(client, threads=8, calls=20)
    assert sum(len(seen) for seen in outcomes) == 160
    for seen in outcomes:
        for sent, text, structured in seen:
            assert text == sent
            assert structured == {"result": sent}
    stats = client.transport.stats
    assert stats.unmatched_responses == 0 and stats.invalid == 0 and stats.malformed == 0


@pytest.mark.parametrize("server", [HTTP_SSE], indirect=True)
def test_requests_are_pipelined(client: mcpsync.Client) -> None:
    """Five 1-second calls sent at once finish together: neither mcpsync nor the server serialises them."""
    elapsed = five_slow_calls_at_once(client)
    assert elapsed < 4.5, f"5 concurrent 1 s calls took {elapsed:.1f}s"  # one after another: 5 s


@pytest.mark.parametrize("server", STREAMABLE, indirect=True)
def test_requests_are_pipelined_over_streamable_http(client: mcpsync.Client) -> None:
    """Five 1-second calls sent at once over Streamable HTTP should finish together (the server runs them at once)."""
    threads_before = {t.name for t in threading.enumerate()}
    elapsed = five_slow_calls_at_once(client)
    workers = {t.name for t in threading.enumerate()} - threads_before
    assert elapsed < 4.5, f"5 concurrent 1 s calls took {elapsed:.1f}s; new worker threads: {sorted(workers)}"


# -- timeouts and cancellation --------------------------------------------------------------------


def test_timeout(server: Server, client: mcpsync.Client) -> None:
    """RequestTimeout after 0.5 s of a 5 s tool; the server stops the tool, and the client goes on."""
    key = unique("timeout")
    started = time.monotonic()
    with pytest.raises(mcpsync.RequestTimeout) as info:
        client.call_tool("slow", {"seconds": 5, "key": key}, timeout=0.5)
    assert time.monotonic() - started < 4.0  # well before the tool would have answered
    assert info.value.method == "tools/call"
    assert wait_for(lambda: client.transport.stats.cancelled == 1)  # counted once the notice is out
    # SDK: stateless, notifications/cancelled reaches no running request (it is a POST of its
    # own); the tool stops because mcpsync also drops the call's connection.
    assert wait_for(lambda: slow_state(client, key) == "cancelled")
    assert client.call_tool("echo", {"text": "after"}, timeout=TIMEOUT).text == "after"
    assert client.transport.stats.unmatched_responses == 0


def test_future_cancel(server: Server, open_client: Callable[..., mcpsync.Client]) -> None:
    """Future.cancel() on a running call tells the server, which stops the tool; the client goes on."""
    client = open_client()
    observer = open_client(name="observer")  # watches the tool from a session of its own
    key = unique("cancel")
    future = client.send_request("tools/call", {"name": "slow", "arguments": {"seconds": 5, "key": key}})
    assert wait_for(lambda: slow_state(observer, key) == "running")
    assert future.cancel() is True
    assert future.cancelled()
    assert wait_for(lambda: client.transport.stats.cancelled == 1)  # counted once the notice is out
    assert wait_for(lambda: slow_state(observer, key) == "cancelled")
    client.ping(timeout=TIMEOUT)
    assert client.call_tool("echo", {"text": "after"}, timeout=TIMEOUT).text == "after"
    stats = client.transport.stats
    assert stats.unmatched_responses == 0
    if server.mode == HTTP_SSE:
        # The one stream stays open, so an answer to the cancelled call would have shown up here.
        assert stats.late_responses == 0


@pytest.mark.parametrize("server", STATEFUL, indirect=True)
def test_sdk_answers_a_cancelled_request(server: Server) -> None:
    """SDK: stateful Streamable HTTP answers a cancelled request with error -32800 (the spec says it SHOULD NOT)."""
    init = raw_post(
        server,
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "1"},
            },
        },
        None,
    )
    assert init.status_code == 200
    session_id = init.headers["Mcp-Session-Id"]
    assert raw_post(server, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session_id).status_code == 202
    answer: dict[str, requests.Response] = {}
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "slow", "arguments": {"seconds": 5}}}
    caller = threading.Thread(target=lambda: answer.update(response=raw_post(server, call, session_id)))
    caller.start()
    try:
        time.sleep(0.5)
        cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2, "reason": "x"}}
        assert raw_post(server, cancel, session_id).status_code == 202
    finally:
        caller.join(TIMEOUT)
    assert not caller.is_alive()
    response = answer["response"]
    body = response.text
    if server.mode == SSE_REPLIES:
        assert response.headers["Content-Type"].startswith("text/event-stream")
        body = body.split("data: ", 1)[1]
    assert json.loads(body) == {"jsonrpc": "2.0", "id": 2, "error": {"code": -32800, "message": "Request cancelled"}}
    with requests.delete(server.url, headers={"Mcp-Session-Id": session_id}, timeout=TIMEOUT) as deleted:
        assert deleted.status_code == 200


# -- connecting ---------------------------------------------------------------------------------


@pytest.mark.parametrize("server", [HTTP_SSE], indirect=True)
def test_bare_url_falls_back_to_http_sse(server: Server) -> None:
    """A bare URL of an HTTP+SSE server: the POST gets 405, mcpsync falls back to HTTP+SSE, and it works."""
    with mcpsync.connect(server.url, name=LABEL, timeout=TIMEOUT) as client:
        assert type(client.transport) is mcpsync.SSETransport
        assert client.server_info is not None and client.server_info.name == SERVER_NAME
        assert client.call_tool("add", {"a": 2, "b": 3}, timeout=TIMEOUT).structured_content == {"total": 5}
    # The Streamable HTTP attempt left no thread behind (the autouse fixture checks).


@pytest.mark.parametrize("server", [SSE_REPLIES], indirect=True)
def test_bare_url_nobody_serves(server: Server) -> None:
    """A bare URL the server does not serve: POST 404, the HTTP+SSE attempt's GET 404 too, raised as HTTPStatusError."""
    url = f"http://127.0.0.1:{server.port}/nowhere"
    with pytest.raises(mcpsync.HTTPStatusError) as info:
        mcpsync.connect(url, name=LABEL, timeout=TIMEOUT)
    assert info.value.status_code == 404


# -- the end of the session ---------------------------------------------------------------------


def test_close(server: Server, client: mcpsync.Client) -> None:
    """close() ends the session on the server: DELETE for stateful Streamable HTTP, the stream's end for HTTP+SSE."""
    transport = client.transport
    assert client.call_tool("echo", {"text": "x"}, timeout=TIMEOUT).text == "x"
    ping = {"jsonrpc": "2.0", "id": 99, "method": "ping"}
    if server.mode in STATEFUL:
        session_id = transport.session_id
        assert raw_post(server, ping, session_id).status_code == 200  # the session is alive
    client.close()
    assert client.state is mcpsync.ClientState.CLOSED
    assert not client.is_connected
    with pytest.raises(mcpsync.TransportClosed):
        client.call_tool("echo", {"text": "x"}, timeout=TIMEOUT)
    if server.mode in STATEFUL:
        gone = raw_post(server, ping, session_id)
        assert gone.status_code == 404
        assert gone.json()["error"]["message"] == "Session not found"
    elif server.mode == HTTP_SSE:
        # The server forgets the session once it sees the stream close.
        endpoint = transport.endpoint_url
        assert endpoint is not None

        def forgotten() -> bool:
            headers = {"Content-Type": "application/json"}
            with requests.post(endpoint, data=json.dumps(ping), headers=headers, timeout=TIMEOUT) as response:
                return response.status_code == 404 and response.text == "Could not find session"

        assert wait_for(forgotten)
    else:  # stateless: nothing to end, and the server serves anyone
        assert raw_post(server, ping, None).status_code == 200


def test_close_with_a_call_in_flight(server: Server, client: mcpsync.Client) -> None:
    """close() while another thread waits on a long call: that caller gets TransportClosed at once; close is bounded."""
    outcome: dict[str, BaseException] = {}
    key = unique("in-flight")

    def long_call() -> None:
        try:
            client.call_tool("slow", {"seconds": 60, "key": key}, timeout=TIMEOUT * 3)
        except BaseException as exc:
            outcome["error"] = exc

    caller = threading.Thread(target=long_call, name="long-caller")
    caller.start()
    try:
        with mcpsync.connect(server.target, name="observer", timeout=TIMEOUT) as observer:
            assert wait_for(lambda: slow_state(observer, key) == "running")
            started = time.monotonic()
            client.close()
            closing = time.monotonic() - started
            assert wait_for(lambda: slow_state(observer, key) == "cancelled")
    finally:
        caller.join(TIMEOUT)
    assert not caller.is_alive()
    assert isinstance(outcome.get("error"), mcpsync.TransportClosed)
    assert "closed by the client" in str(outcome["error"])
    assert closing < 3.0
    assert client.transport.stats.unmatched_responses == 0


@pytest.mark.parametrize("server", STATEFUL, indirect=True)
def test_expired_session_is_renewed(server: Server, open_client: Callable[..., mcpsync.Client], inbox: Inbox) -> None:
    """The server forgets the session (a DELETE behind our back): the next call gets 404, renews it, and succeeds.

    The GET stream, which the server ended with the session, comes back on the new one.
    """
    client = open_client(on_notification=inbox.on_notification)
    transport = client.transport
    old = transport.session_id
    assert old is not None
    with requests.delete(server.url, headers={"Mcp-Session-Id": old}, timeout=TIMEOUT) as deleted:
        assert deleted.status_code == 200
    assert client.call_tool("echo", {"text": "renewed"}, timeout=TIMEOUT).text == "renewed"
    assert transport.session_id is not None and transport.session_id != old
    assert client.is_connected
    wait_for_get_stream(client, inbox)
    assert client.call_tool("add", {"a": 1, "b": 1}, timeout=TIMEOUT).structured_content == {"total": 2}


@pytest.mark.parametrize("mode", MODES)
def test_server_dies_mid_call(mode: str, own_server: Callable[[str], Server]) -> None:
    """The server is killed during a call: the caller fails at once, later calls fail, close() is quick.

    How it fails differs by transport: HTTP+SSE loses its one stream
    (TransportClosed, and the client is closed); Streamable HTTP loses the
    POST (NoResponseError for an SSE reply, TransportError for a JSON one) and
    then cannot connect, but the client stays open: a server may come back.
    """
    server = own_server(mode)
    # The legacy era: its broken SSE answer is resumed (and fails so); the modern era sends the request again.
    client = mcpsync.connect(server.target, name=LABEL, timeout=TIMEOUT, protocol="legacy")
    try:
        key = unique("dying")
        future = client.send_request("tools/call", {"name": "slow", "arguments": {"seconds": 60, "key": key}})
        with mcpsync.connect(server.target, name="observer", timeout=TIMEOUT) as observer:
            assert wait_for(lambda: slow_state(observer, key) == "running")
        started = time.monotonic()
        server.process.kill()
        server.process.wait(TIMEOUT)
        with pytest.raises(mcpsync.MCPError) as info:
            future.result(timeout=TIMEOUT)
        assert time.monotonic() - started < 5.0  # the call itself would have taken 60 s
        with pytest.raises(mcpsync.MCPError) as later:
            client.call_tool("echo", {"text": "x"}, timeout=TIMEOUT)
        if mode == HTTP_SSE:
            assert type(info.value) is mcpsync.TransportClosed
            assert "the event stream broke" in str(info.value)
            assert type(later.value) is mcpsync.TransportClosed
            assert client.state is mcpsync.ClientState.CLOSED
        else:
            expected = mcpsync.TransportError if mode == JSON_REPLIES else mcpsync.NoResponseError
            assert type(info.value) is expected
            if mode == JSON_REPLIES:  # delivered, then the connection broke: not "cannot reach"
                assert "the server may have received the request" in str(info.value)
            assert type(later.value) is mcpsync.ConnectError
            assert client.state is mcpsync.ClientState.OPEN
    finally:
        started = time.monotonic()
        client.close()
        assert time.monotonic() - started < 10.0


def test_resources_prompts_and_completion(client: mcpsync.Client) -> None:
    """Resources (static, binary, templated), a prompt with arguments, and completion, over every HTTP mode."""
    assert {"data://greeting", "data://pixel"} <= {r.uri for r in client.list_resources(timeout=TIMEOUT)}
    assert [t.uri_template for t in client.list_resource_templates(timeout=TIMEOUT)] == ["greet://{name}"]
    assert client.read_resource("data://greeting", timeout=TIMEOUT).text == "hello from a resource"
    pixel = client.read_resource("data://pixel", timeout=TIMEOUT).contents[0]
    assert pixel.is_binary and pixel.data == bytes([137, 80, 78, 71, 13, 10, 26, 10])
    assert client.read_resource("greet://Grace", timeout=TIMEOUT).text == "hello, Grace"
    assert client.get_prompt("review", {"code": "y"}, timeout=TIMEOUT).messages[0].text == "Please review: y"
    assert client.complete({"type": "ref/prompt", "name": "review"}, ("code", "G"), timeout=TIMEOUT).values == ["Grace"]
