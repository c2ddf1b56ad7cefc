"""mcpsync.client: the handshake, typed methods, and what the server asks of us."""

import json
import sys
import threading
import time

import pytest

import mcpsync
from mcpsync.testing import server_command, server_config
from tests.helpers import scripted_server

pytestmark = pytest.mark.usefixtures("server_in_thread")

T = 20  # seconds: the bound on every call in this file


def test_handshake_records_what_the_server_said():
    """The legacy handshake (the test server with --legacy-only, found by the default probe)."""
    with mcpsync.connect(server_config("--legacy-only", timeout=T)) as client:
        assert client.era == "legacy"
        check_what_the_server_said(client)


def check_what_the_server_said(client):
    assert client.server_info == mcpsync.ServerInfo("mcpsync-test-server", mcpsync.__version__, "mcpsync test server")
    assert client.protocol_version == "2025-11-25"
    assert "tools" in client.server_capabilities
    assert client.instructions == "A server for testing MCP clients."
    assert client.is_connected and client.state is mcpsync.ClientState.OPEN
    assert "mcpsync-test-server" in repr(client) and "open" in repr(client)


def test_initialize_sends_our_version_and_info_then_initialized(tmp_path):
    log = tmp_path / "received.jsonl"
    with mcpsync.connect(scripted_server({}, log), capabilities={"roots": {}}, protocol="legacy") as client:
        assert client.server_info.name == "scripted"
    sent = [json.loads(line) for line in log.read_text().splitlines()]
    assert sent[0]["method"] == "initialize"
    assert sent[0]["params"] == {
        "protocolVersion": "2025-11-25",
        "capabilities": {"roots": {}},
        "clientInfo": {"name": "mcpsync", "version": mcpsync.__version__},
    }
    assert sent[1] == {"jsonrpc": "2.0", "method": "notifications/initialized"}


@pytest.mark.parametrize("version", ["2025-06-18", "2025-03-26", "2024-11-05"])
def test_older_supported_versions_are_accepted(version):
    with mcpsync.connect(server_command("--legacy-only", "--protocol-version", version)) as client:
        assert client.protocol_version == version
        assert client.call_tool("echo", {"text": "ok"}, timeout=T).text == "ok"


def test_unsupported_version_is_a_clear_error_and_a_clean_disconnect():
    with pytest.raises(mcpsync.UnsupportedProtocolVersion) as info:
        mcpsync.connect(server_command("--legacy-only", "--protocol-version", "1999-01-01"))
    assert "'1999-01-01'" in str(info.value) and "2025-11-25" in str(info.value)
    assert isinstance(info.value, mcpsync.ProtocolError)
    # no_leaks checks that the server process and threads are gone


def test_initialize_timeout_is_not_cancelled_on_the_wire(tmp_path):
    """The spec forbids cancelling initialize: on timeout we disconnect without notifications/cancelled."""
    log = tmp_path / "received.jsonl"
    with pytest.raises(mcpsync.RequestTimeout):
        mcpsync.connect(scripted_server({"initialize": ["silent"]}, log), timeout=0.3)
    sent = log.read_text()
    assert "initialize" in sent and "notifications/cancelled" not in sent


def test_list_tools_follows_every_page():
    with mcpsync.connect(server_command("--page-size", "2")) as paged, mcpsync.connect(server_command()) as whole:
        assert [t.name for t in paged.list_tools(timeout=T)] == [t.name for t in whole.list_tools(timeout=T)]
        assert paged.transport.stats.sent > whole.transport.stats.sent + 4  # it really paged
    tools = {t.name: t for t in whole_tools()}
    assert tools["add"].output_schema == {
        "type": "object",
        "properties": {"sum": {"type": "number"}},
        "required": ["sum"],
    }
    assert tools["echo"].input_schema["required"] == ["text"]
    assert tools["echo"].description == "Return the text you send."


def whole_tools():
    with mcpsync.connect(server_config()) as client:
        return client.list_tools(timeout=T)


def test_a_repeated_cursor_is_refused_instead_of_paging_forever():
    page = {"tools": [], "nextCursor": "same"}
    with mcpsync.connect(scripted_server({"tools/list": [page]})) as client:
        with pytest.raises(mcpsync.ProtocolError, match="repeated nextCursor 'same'"):
            client.list_tools(timeout=T)


def test_a_malformed_tool_names_its_place():
    bad = {"tools": [{"name": "ok", "inputSchema": {}}, {"inputSchema": {}}]}
    with mcpsync.connect(scripted_server({"tools/list": [bad]})) as client:
        with pytest.raises(mcpsync.ProtocolError, match=r"tools/list item #1: 'name' must be a str"):
            client.list_tools(timeout=T)


def test_call_tool_results(client):
    added = client.call_tool("add", {"a": 2, "b": 40}, timeout=T)
    assert added.structured_content == {"sum": 42} and not added.is_error
    assert json.loads(added.text) == {"sum": 42}
    assert added.raise_for_error() is added
    failed = client.call_tool("fail", {"message": "nope"}, timeout=T)
    assert failed.is_error and failed.text == "nope"
    with pytest.raises(mcpsync.ToolError, match="tool 'fail' failed: nope") as info:
        failed.raise_for_error()
    assert info.value.result is failed


def test_unknown_tool_is_an_unknown_name_from_the_servers_error_with_code(client):
    """The tools are listed (a modern call lists them first): the server's -32602 is the cause."""
    with pytest.raises(mcpsync.UnknownNameError) as info:
        client.call_tool("no_such_tool", timeout=T)
    cause = info.value.__cause__
    assert isinstance(cause, mcpsync.ServerError) and cause.code == -32602
    assert str(cause) == "MCP error -32602: Unknown tool: no_such_tool"


def test_call_tool_checks_its_arguments(client):
    with pytest.raises(TypeError, match="arguments must be a mapping"):
        client.call_tool("echo", ["x"], timeout=T)  # type: ignore[arg-type]


def test_meta_is_passed_through(client):
    """A progress token in _meta reaches the server, which then reports progress."""
    seen = []
    done = threading.Event()

    def on_notification(method, params):
        seen.append((method, params))
        if params and params.get("progress") == 3:
            done.set()

    client.on_notification = on_notification
    client.call_tool("progress", {"steps": 3, "delay": 0}, meta={"progressToken": "tok"}, timeout=T)
    assert done.wait(T)
    assert [p["progress"] for m, p in seen if m == "notifications/progress"] == [1, 2, 3]
    assert all(p["progressToken"] == "tok" for _, p in seen)


def test_raw_request_send_request_and_notify(client):
    assert "tools" in client.request("tools/list", timeout=T)
    future = client.send_request("tools/call", {"name": "echo", "arguments": {"text": "f"}})
    assert future.result(timeout=T)["content"][0]["text"] == "f"
    client.notify("notifications/roots/list_changed")
    client.ping(timeout=T)


def test_the_servers_ping_is_answered_and_unknown_requests_get_method_not_found(client):
    answer = client.call_tool("ask_client", {"method": "ping"}, timeout=T).structured_content
    assert answer["result"] == {}
    answer = client.call_tool("ask_client", {"method": "sampling/createMessage"}, timeout=T).structured_content
    assert answer["error"]["code"] == -32601


def test_request_handlers_run_on_the_dispatch_thread_and_may_call_back():
    threads = []

    def roots(params):
        threads.append(threading.current_thread().name)
        # Calling back into the client from a handler must not deadlock.
        echoed = client.call_tool("echo", {"text": "from handler"}, timeout=T).text
        return {"roots": [{"uri": "file:///tmp", "name": echoed}]}

    def broken(params):
        raise RuntimeError("handler bug")

    def refuses(params):
        raise mcpsync.ServerError(-32002, "no such thing")

    handlers = {"roots/list": roots, "x/broken": broken, "x/refuses": refuses}
    with mcpsync.connect(server_config(), request_handlers=handlers) as client:
        answer = client.call_tool("ask_client", {"method": "roots/list"}, timeout=T).structured_content
        assert answer["result"] == {"roots": [{"uri": "file:///tmp", "name": "from handler"}]}
        assert threads == ["mcpsync-dispatch-test-server"]
        answer = client.call_tool("ask_client", {"method": "x/broken"}, timeout=T).structured_content
        assert answer["error"] == {"code": -32603, "message": "the client's x/broken handler failed"}
        answer = client.call_tool("ask_client", {"method": "x/refuses"}, timeout=T).structured_content
        assert answer["error"] == {"code": -32002, "message": "no such thing"}


def test_notifications_reach_the_callback_in_order_on_the_dispatch_thread():
    got = []
    done = threading.Event()

    def on_notification(method, params):
        got.append((threading.current_thread().name, method, params["data"]))
        if params["data"] == "n4":
            done.set()

    # Legacy: the server logs without being asked (a modern one only to a request that asks for a level).
    with mcpsync.connect(server_config(), on_notification=on_notification, protocol="legacy") as client:
        for n in range(5):
            client.call_tool("log", {"message": f"n{n}"}, timeout=T)
        assert done.wait(T)
    assert [g[2] for g in got] == ["n0", "n1", "n2", "n3", "n4"]
    assert {g[0] for g in got} == {"mcpsync-dispatch-test-server"}
    assert {g[1] for g in got} == {"notifications/message"}


def test_a_failing_callback_is_logged_and_does_not_stop_the_client(caplog):
    def on_notification(method, params):
        raise ValueError("callback bug")

    with mcpsync.connect(server_config(), on_notification=on_notification, protocol="legacy") as client:
        client.call_tool("log", {"message": "x"}, timeout=T)
        assert client.call_tool("echo", {"text": "alive"}, timeout=T).text == "alive"
        client.close()
    errors = [r for r in caplog.records if r.levelname == "ERROR" and r.exc_info]
    assert [r.exc_info[1].args for r in errors] == [("callback bug",)]


def test_calls_before_initialize_and_after_close_are_refused():
    client = mcpsync.Client(mcpsync.create_transport(server_config()))
    with pytest.raises(mcpsync.ProtocolError, match="call initialize"):
        client.list_tools()
    client.initialize(timeout=T)
    with pytest.raises(mcpsync.ProtocolError, match="may run once"):
        client.initialize()
    client.close()
    client.close()
    with pytest.raises(mcpsync.TransportClosed):
        client.call_tool("echo", {"text": "x"})
    assert client.state is mcpsync.ClientState.CLOSED


def test_connect_accepts_a_dict_config():
    command, *args = server_command()
    with mcpsync.connect({"command": command, "args": args, "timeout": 20000}, name="from-dict") as client:
        assert client.name == "from-dict"
        assert client.transport.default_timeout == 20.0


def test_a_server_that_dies_is_reported_and_close_still_cleans_up():
    """Every call after the server died says why, not just the one that saw it happen."""
    with mcpsync.connect(server_config()) as client:
        with pytest.raises(mcpsync.TransportClosed, match="exited with code 5"):
            client.call_tool("crash", {"code": 5, "message": "last words"}, timeout=T)
        assert not client.is_connected and client.state is mcpsync.ClientState.CLOSED
        for _ in range(2):
            with pytest.raises(mcpsync.TransportClosed, match="exited with code 5") as info:
                client.call_tool("echo", {"text": "x"}, timeout=T)
            assert info.value.exit_code == 5 and "last words" in info.value.stderr_tail


def test_an_invalid_request_from_the_server_is_answered_with_invalid_request(client):
    answer = client.call_tool("misbehave", {"kind": "invalid_request"}, timeout=T).structured_content
    assert answer["error"]["code"] == -32600
    assert "params" in answer["error"]["message"]


def test_a_handler_returning_something_unsendable_still_answers():
    """Not JSON, not a dict: the server gets -32603 saying so, the author a warning."""
    handlers = {"roots/list": lambda params: {"roots": {1, 2}}, "x/list": lambda params: ["not", "a", "dict"]}
    wrong = {"roots/list": "it is not JSON: ", "x/list": "it must be a dict (a JSON object), not list"}
    with mcpsync.connect(server_config(), request_handlers=handlers) as client:
        for method in handlers:
            with pytest.warns(RuntimeWarning, match=method):
                answer = client.call_tool("ask_client", {"method": method}, timeout=T).structured_content
            assert answer["error"]["code"] == -32603
            said = f"the client's {method} handler returned an answer the schema does not allow: {wrong[method]}"
            assert answer["error"]["message"].startswith(said)


def test_close_from_another_thread_cuts_a_hanging_handshake_short():
    client = mcpsync.Client(mcpsync.create_transport(scripted_server({"initialize": ["silent"]})))
    errors = []
    thread = threading.Thread(target=lambda: _capture(errors, lambda: client.initialize(timeout=None)))
    thread.start()
    deadline = time.monotonic() + T
    while not client.transport.endpoint.pending.in_flight() and time.monotonic() < deadline:
        time.sleep(0.01)
    client.close()
    thread.join(T)
    assert not thread.is_alive()
    assert isinstance(errors[0], mcpsync.TransportClosed)
    assert client.state is mcpsync.ClientState.CLOSED


def _capture(errors, fn):
    try:
        fn()
    except BaseException as exc:
        errors.append(exc)


@pytest.mark.slow("close waits out the 2 s exit_timeout: the server's tool still awaits the handler's answer")
def test_close_from_a_handler_while_another_thread_closes():
    closed_in_handler = threading.Event()

    def handler(params):
        client.close()
        closed_in_handler.set()
        return {}

    client = mcpsync.connect(server_config(), request_handlers={"x/close": handler})
    client.send_request("tools/call", {"name": "ask_client", "arguments": {"method": "x/close"}})
    assert closed_in_handler.wait(T)
    client.close()
    assert client.state is mcpsync.ClientState.CLOSED


ENDLESS_PAGES = """
import json, sys, time
delay = float(sys.argv[1])
for n, line in enumerate(sys.stdin):
    message = json.loads(line)
    if 'id' not in message:
        continue
    if message['method'] == 'initialize':
        result = {'protocolVersion': '2025-11-25', 'capabilities': {'tools': {}}, 'serverInfo': {'name': 'pager', 'version': '1'}}
    elif message['method'] == 'ping':
        result = {}
    else:
        time.sleep(delay)
        result = {'tools': [{'name': 't%d' % n, 'inputSchema': {'type': 'object'}}], 'nextCursor': 'c%d' % n}
    sys.stdout.write(json.dumps({'jsonrpc': '2.0', 'id': message['id'], 'result': result}) + '\\n')
    sys.stdout.flush()
"""


def test_a_server_that_pages_for_ever_is_stopped_at_the_page_cap():
    """A fresh cursor on every page: a clear ProtocolError after MAX_PAGES, not a listing without end."""
    from mcpsync._session.paging import MAX_PAGES

    with mcpsync.connect([sys.executable, "-c", ENDLESS_PAGES, "0"], timeout=60) as client:
        with pytest.raises(mcpsync.ProtocolError, match=f"sent {MAX_PAGES} pages and a cursor for more"):
            client.list_tools(timeout=60)
        client.ping(timeout=5)


@pytest.mark.slow("waits out the listing's 1 s timeout, a page every 0.05 s")
def test_a_listing_ends_at_its_timeout_however_many_pages_it_takes():
    """The timeout bounds the whole listing (it used to bound each page): 0.05 s a page, 1 s in all."""
    with mcpsync.connect([sys.executable, "-c", ENDLESS_PAGES, "0.05"], timeout=60) as client:
        started = time.monotonic()
        with pytest.raises(mcpsync.RequestTimeout, match=r"after 1s \(tools/list\)"):
            client.list_tools(timeout=1)
        assert time.monotonic() - started < 2.5
