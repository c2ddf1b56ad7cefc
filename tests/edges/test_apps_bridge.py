"""AppBridge, the host's side of an MCP App view: every message the view sends is untrusted input.

Most tests drive it with a stand-in client that records what reaches it (nothing must, for a refused
message); the last ones with the bundled test server, whose view and tools are the real thing."""

from __future__ import annotations

import json
import threading
from typing import Any, Optional

import pytest

import mcpsync
from mcpsync import AppBridge, AppView, UiCsp, UiResourceMeta
from mcpsync._edges.apps import bridge as bridge_module
from mcpsync._edges.apps.messages import MAX_MESSAGE_CHARS
from mcpsync.testing import server_command, server_config

T = 10
INIT = {"appInfo": {"name": "v", "version": "1"}, "appCapabilities": {}, "protocolVersion": "2026-01-26"}


def tool(name: str, visibility: Optional[list[str]] = None) -> mcpsync.Tool:
    meta = {"ui": {"visibility": visibility}} if visibility is not None else {}
    return mcpsync.Tool.from_dict({"name": name, "inputSchema": {"type": "object"}, "_meta": meta})


class StandIn:
    """A client that lists three tools and records every request the bridge makes of it."""

    name = "stand-in"

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []
        self.transport = type("T", (), {"default_timeout": 5.0})()
        self.tools = [tool("both"), tool("app_only", ["app"]), tool("model_only", ["model"])]

    def list_tools(self, timeout: Any = None) -> list[mcpsync.Tool]:
        return self.tools

    def call_tool(self, name: str, arguments: Any, timeout: Any = None) -> mcpsync.CallToolResult:
        self.calls.append(("tools/call", name))
        return mcpsync.CallToolResult.from_dict({"content": [{"type": "text", "text": f"{name} ran"}]}, name)

    def read_resource(self, uri: str, timeout: Any = None) -> mcpsync.ReadResourceResult:
        self.calls.append(("resources/read", uri))
        raise mcpsync.ServerError(-32002, "Resource not found")


def bridge(**options: Any) -> tuple[AppBridge, StandIn]:
    client = StandIn()
    meta = UiResourceMeta(UiCsp(connect_domains=("https://api.example.com",)))
    result = mcpsync.CallToolResult.from_dict({"content": [{"type": "text", "text": "shown"}]}, "both")
    view = AppView("both", {"q": 1}, result, "ui://v", "<p>v</p>", meta, {"name": "both"}, client)
    return AppBridge(client, view, **options), client


def request(method: str, params: Optional[dict[str, Any]] = None, request_id: Any = 1) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return message


def error_of(answer: Optional[dict[str, Any]]) -> dict[str, Any]:
    assert answer is not None and "error" in answer, answer
    return answer["error"]  # type: ignore[no-any-return]


def test_initialize_answers_with_the_host_its_capabilities_and_the_tool():
    """ui/initialize: the dialect's version, mcpsync as host, the approved CSP, the tool in toolInfo."""
    host, _ = bridge(on_open_link=lambda url: None, host_context={"theme": "dark"})
    answer = host.handle(json.dumps(request("ui/initialize", INIT)))
    result = answer["result"]
    assert result["protocolVersion"] == "2026-01-26" and result["hostInfo"]["name"] == "mcpsync"
    assert result["hostCapabilities"]["sandbox"]["csp"]["connectDomains"] == ["https://api.example.com"]
    assert "openLinks" in result["hostCapabilities"] and "message" not in result["hostCapabilities"]
    assert result["hostContext"]["toolInfo"]["tool"]["name"] == "both" and result["hostContext"]["theme"] == "dark"
    assert not host.initialized.is_set()
    assert host.handle({"jsonrpc": "2.0", "method": "ui/notifications/initialized"}) is None
    assert host.initialized.is_set()


def test_notifications_give_the_tools_input_then_its_result_and_teardown_is_a_request():
    """What the host sends the view: the call's input and result, a teardown request with an id of its
    own each time, a cancellation, a change of the host context."""
    host, _ = bridge()
    sent = host.notifications()
    assert [n["method"] for n in sent] == ["ui/notifications/tool-input", "ui/notifications/tool-result"]
    assert sent[0]["params"] == {"arguments": {"q": 1}} and sent[1]["params"]["content"][0]["text"] == "shown"
    first, second = host.teardown(), host.teardown()
    assert first["method"] == "ui/resource-teardown" and first["id"] != second["id"]
    assert host.tool_cancelled("stopped")["params"] == {"reason": "stopped"}
    changed = host.host_context_changed({"theme": "dark"})
    assert changed["method"] == "ui/notifications/host-context-changed" and changed["params"] == {"theme": "dark"}
    init = host.handle(request("ui/initialize", INIT))
    assert init["result"]["hostContext"]["theme"] == "dark"  # kept for a view that initializes again


@pytest.mark.parametrize(
    "raw, code",
    [
        ("not json", -32700),
        ('{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": NaN}', -32700),
        (b"\xff\xfe", -32700),
        ("[1, 2]", -32600),
        ('"a string"', -32600),
        ({"jsonrpc": "1.0", "id": 1, "method": "ping"}, -32600),
        ({"id": 1, "method": "ping"}, -32600),
        ({"jsonrpc": "2.0", "id": 1, "method": 7}, -32600),
        ({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": [1]}, -32600),
        ({"jsonrpc": "2.0", "id": 1}, -32600),
        ({"jsonrpc": "2.0", "id": 1, "method": "x" * 500}, -32600),
    ],
)
def test_a_malformed_message_gets_a_json_rpc_error_and_reaches_no_one(raw, code):
    """Wrong jsonrpc, no JSON, no object, a method that is no string: an error, never an exception."""
    host, client = bridge()
    assert error_of(host.handle(raw))["code"] == code
    assert client.calls == []


@pytest.mark.parametrize("bad_id", [2**60, -(2**60), 1.5, True, "x" * 1000, [1], {"a": 1}])
def test_an_id_that_is_huge_or_of_the_wrong_kind_is_answered_with_a_null_id(bad_id):
    """Only a safe integer or a short string is echoed back (a huge one could not round-trip in JS)."""
    host, _ = bridge()
    answer = host.handle(request("ping", request_id=bad_id))
    assert error_of(answer)["code"] == -32600 and answer["id"] is None


def test_an_unknown_method_is_minus_32601_and_an_unknown_notification_is_dropped():
    """A request for a method a view may not use (sampling, a download we do not offer) is -32601; a notification nobody knows is dropped unanswered."""
    host, _ = bridge()
    assert error_of(host.handle(request("sampling/createMessage", {})))["code"] == -32601
    assert error_of(host.handle(request("ui/download-file", {"contents": []})))["code"] == -32601
    assert host.handle({"jsonrpc": "2.0", "method": "notifications/whatever", "params": {}}) is None


def test_params_are_checked_against_the_extensions_schema():
    """ui/initialize without appInfo, ui/message of a role not 'user', a display mode not in the enum."""
    host, _ = bridge(on_message=lambda params: None)
    assert error_of(host.handle(request("ui/initialize", {"protocolVersion": "x"})))["code"] == -32602
    message = {"role": "assistant", "content": [{"type": "text", "text": "x"}]}
    assert error_of(host.handle(request("ui/message", message)))["code"] == -32602
    assert error_of(host.handle(request("ui/request-display-mode", {"mode": "huge"})))["code"] == -32602
    assert host.handle(request("ui/request-display-mode", {"mode": "fullscreen"}))["result"] == {"mode": "inline"}


def test_only_tools_of_this_server_whose_visibility_includes_the_app_are_called():
    """app-only and default visibility: called; model-only, or a name this server does not list: refused,
    the error naming why, and the server never asked."""
    host, client = bridge()
    assert host.handle(request("tools/call", {"name": "app_only"}))["result"]["content"][0]["text"] == "app_only ran"
    assert host.handle(request("tools/call", {"name": "both", "arguments": {}}))["result"]
    refused = error_of(host.handle(request("tools/call", {"name": "model_only"})))
    assert "not for apps" in refused["message"] and "['model']" in refused["message"]
    other = error_of(host.handle(request("tools/call", {"name": "another_servers_tool"})))
    assert "lists no tool" in other["message"]
    assert client.calls == [("tools/call", "app_only"), ("tools/call", "both")]


def test_a_server_error_on_the_views_behalf_is_the_views_error():
    """The server refuses a read the view asked for: the view gets the server's code and message, nothing more."""
    host, client = bridge()
    assert error_of(host.handle(request("resources/read", {"uri": "ui://nope"}))) == {
        "code": -32002,
        "message": "Resource not found",
    }
    assert client.calls == [("resources/read", "ui://nope")]


@pytest.mark.parametrize(
    "url",
    [
        "javascript:alert(document.cookie)",
        "JAVASCRIPT:alert(1)",
        "data:text/html,<script>alert(1)</script>",
        "file:///etc/passwd",
        "vbscript:x",
        "//example.com/no-scheme",
        "https://",
        "about:blank",
    ],
)
def test_only_http_links_are_handed_to_the_host(url):
    """A javascript:, data:, file: or schemeless link is refused before on_open_link hears of it."""
    opened: list[str] = []
    host, _ = bridge(on_open_link=opened.append)
    assert error_of(host.handle(request("ui/open-link", {"url": url})))["code"] == -32602
    assert opened == []


def test_a_link_goes_to_on_open_link_and_without_one_the_host_says_it_cannot_open_links():
    """An https link reaches on_open_link as sent; a host given no on_open_link refuses, saying it cannot open links."""
    opened: list[str] = []
    host, _ = bridge(on_open_link=opened.append)
    assert host.handle(request("ui/open-link", {"url": "https://example.com/a?b=c"}))["result"] == {}
    assert opened == ["https://example.com/a?b=c"]
    bare, _ = bridge()
    assert (
        "cannot open links" in error_of(bare.handle(request("ui/open-link", {"url": "https://example.com"})))["message"]
    )


def test_messages_logs_and_sizes_reach_their_callbacks_sizes_clamped():
    """ui/message, a log line and a size change reach their callbacks; a size out of bounds is clamped, a log of an unknown level dropped."""
    said: list[Any] = []
    host, _ = bridge(
        on_message=said.append,
        on_log=lambda level, name, data: said.append((level, name, data)),
        on_size=lambda width, height: said.append((width, height)),
    )
    text = {"role": "user", "content": [{"type": "text", "text": "hello"}]}
    assert host.handle(request("ui/message", text))["result"] == {}
    log = {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "ready"}}
    size = {"jsonrpc": "2.0", "method": "ui/notifications/size-changed", "params": {"width": -5, "height": 1e9}}
    assert host.handle(log) is None and host.handle(size) is None
    bad_level = {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "loud", "data": 1}}
    assert host.handle(bad_level) is None
    assert said == [text, ("info", None, "ready"), (0.0, float(bridge_module.MAX_SIZE))]


def test_an_oversize_message_is_refused_unread():
    """A message over MAX_MESSAGE_CHARS, as text or as an object, is refused before its tool call is looked at."""
    host, client = bridge()
    huge = json.dumps(request("tools/call", {"name": "both", "arguments": {"x": "a" * MAX_MESSAGE_CHARS}}))
    assert "too large" in error_of(host.handle(huge))["message"]
    assert "too large" in error_of(host.handle(json.loads(huge)))["message"]
    assert client.calls == []


def test_a_flood_of_user_facing_messages_is_cut_to_the_burst(monkeypatch):
    """A view that sends 100 ui/message at once: the first BURST are shown, the rest refused (no refill
    meanwhile: the count does not depend on the machine's speed)."""
    monkeypatch.setattr(bridge_module, "PER_SECOND", 0.0)
    shown: list[Any] = []
    host, _ = bridge(on_message=shown.append)
    text = {"role": "user", "content": [{"type": "text", "text": "spam"}]}
    answers = [host.handle(request("ui/message", text, n)) for n in range(100)]
    refused = [a for a in answers if "error" in a]
    assert len(shown) == bridge_module.BURST and len(refused) == 100 - bridge_module.BURST
    assert "too many messages" in refused[0]["error"]["message"]


def test_requests_beyond_the_bound_in_flight_are_refused_not_queued(monkeypatch):
    """MAX_IN_FLIGHT tool calls blocked in the server: the next one is refused at once."""
    host, client = bridge()
    release = threading.Event()
    entered = threading.Semaphore(0)

    def slow(name: str, arguments: Any, timeout: Any = None) -> mcpsync.CallToolResult:
        entered.release()
        assert release.wait(T)
        return mcpsync.CallToolResult.from_dict({"content": []}, name)

    monkeypatch.setattr(client, "call_tool", slow)
    threads = [
        threading.Thread(target=host.handle, args=(request("tools/call", {"name": "both"}, n),))
        for n in range(bridge_module.MAX_IN_FLIGHT)
    ]
    for thread in threads:
        thread.start()
    try:
        for _ in threads:
            assert entered.acquire(timeout=T)
        assert "too many requests" in error_of(host.handle(request("tools/call", {"name": "both"}, 99)))["message"]
    finally:
        release.set()
        for thread in threads:
            thread.join(T)
    assert host.handle(request("ping", request_id=100))["result"] == {}


def test_a_view_never_waits_without_end():
    """A bridge given timeout=None, or a client with no default timeout, still bounds each request."""
    host, client = bridge(timeout=None)
    assert host.timeout == bridge_module.FALLBACK_TIMEOUT
    client.transport.default_timeout = None
    assert mcpsync.AppBridge(client, host.view).timeout == bridge_module.FALLBACK_TIMEOUT
    assert mcpsync.AppBridge(client, host.view, timeout=3).timeout == 3


def test_a_failing_callback_is_an_internal_error_not_an_exception():
    """A host callback that raises: the view gets -32603, handle() does not raise."""

    def broken(params: Any) -> None:
        raise RuntimeError("bug")

    host, _ = bridge(on_message=broken)
    text = {"role": "user", "content": [{"type": "text", "text": "x"}]}
    assert error_of(host.handle(request("ui/message", text)))["code"] == -32603


def test_the_view_of_the_bundled_server_calls_its_app_only_tool_and_not_its_model_only_one():
    """Against the test server: refresh_dashboard (app-only) runs; dashboard_export (model-only) is refused;
    resources/read reads the view itself; a view's answer to our teardown is taken quietly."""
    with mcpsync.connect(server_config(), timeout=T) as client:
        view = client.call_tool("show_dashboard", timeout=T).ui
        host = AppBridge(client, view)
        answer = host.handle(request("tools/call", {"name": "refresh_dashboard", "arguments": {}}))
        assert answer["result"]["content"][0]["text"] == "the dashboard's data is refreshed"
        assert "not for apps" in error_of(host.handle(request("tools/call", {"name": "dashboard_export"})))["message"]
        read = host.handle(request("resources/read", {"uri": "ui://dashboard/view.html"}))
        assert read["result"]["contents"][0]["mimeType"] == "text/html;profile=mcp-app"
        assert host.handle({"jsonrpc": "2.0", "id": host.teardown()["id"], "result": {}}) is None


def test_a_tool_the_managers_filter_takes_out_is_refused_to_the_view_and_never_called(monkeypatch):
    """``excludeTools`` in a Manager's configuration: ``manager.call_tool`` refuses the tool, and so
    does the bridge of a view of that server (the same rule); the server never sees the call. A tool
    the filter lets through is still called."""
    command, *args = server_command()
    entry = {"command": command, "args": args, "excludeTools": ["refresh_dashboard"]}
    with mcpsync.Manager({"mcpServers": {"a": entry}}, tool_cache=False) as manager:
        with pytest.raises(mcpsync.UnknownNameError):
            manager.call_tool("a__refresh_dashboard", timeout=T)
        client = manager.client("a", timeout=T)
        view = manager.call_tool("a__show_dashboard", timeout=T).ui
        called: list[str] = []
        call_tool = client.call_tool
        monkeypatch.setattr(client, "call_tool", lambda name, *a, **k: called.append(name) or call_tool(name, *a, **k))
        host = AppBridge(client, view)
        refused = error_of(host.handle(request("tools/call", {"name": "refresh_dashboard", "arguments": {}})))
        assert refused["code"] == -32602
        assert "'refresh_dashboard' of server 'a' is excluded by" in refused["message"]
        assert called == []
        assert host.handle(request("tools/call", {"name": "echo", "arguments": {"text": "x"}}))["result"]
        assert called == ["echo"]


def test_a_second_ui_initialize_is_refused():
    """One bridge, one view, one initialize: a page the view's frame navigated to that starts again is
    refused (the first answer is the view's)."""
    host, _ = bridge()
    assert "result" in host.handle(request("ui/initialize", INIT))
    again = error_of(host.handle(request("ui/initialize", INIT, request_id=2)))
    assert again == {"code": -32600, "message": "the view has initialized already"}
