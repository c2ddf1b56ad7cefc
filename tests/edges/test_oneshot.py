"""mcpsync.oneshot: one request, no session, the raw envelope back."""

import json

import pytest
import responses

import mcpsync

URL = "http://mcp.test/mcp"


@responses.activate
def test_json_answer_is_returned_raw_including_errors():
    responses.add(responses.POST, URL, json={"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "nope"}})
    envelope = mcpsync.call_mcp(URL, "tools/list", headers={"X-Key": "k"})
    assert envelope["error"]["code"] == -32601
    sent = responses.calls[0].request
    assert json.loads(sent.body) == {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    assert sent.headers["Accept"] == "application/json, text/event-stream"
    assert sent.headers["X-Key"] == "k"


@responses.activate
def test_sse_answer_skips_other_events():
    note = {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "x"}}
    answer = {"jsonrpc": "2.0", "id": 7, "result": {"tools": []}}
    body = f"id: 1\ndata:\n\ndata: {json.dumps(note)}\n\ndata: {json.dumps(answer)}\n\n"
    responses.add(responses.POST, URL, body=body, content_type="text/event-stream")
    assert mcpsync.call_mcp(URL, "tools/list", request_id=7) == answer


@responses.activate
def test_http_errors_raise_with_hints():
    responses.add(responses.POST, URL, status=401, body="login first", headers={"WWW-Authenticate": "Bearer"})
    with pytest.raises(
        mcpsync.HTTPStatusError,
        match=r"HTTP 401 from POST http://mcp.test/mcp: login first \[WWW-Authenticate: Bearer\]",
    ):
        mcpsync.call_mcp(URL, "ping")


@pytest.mark.parametrize(
    "body, error, words",
    [
        ("<html>", mcpsync.InvalidMessage, "not JSON and not an event stream"),
        ("data: {oops\n\n", mcpsync.InvalidMessage, "an event is not JSON"),
        ('data: {"jsonrpc": "2.0", "id": 99, "result": {}}\n\n', mcpsync.NoResponseError, "request ID 1"),
    ],
)
def test_bad_answers_are_typed(body, error, words):
    assert mcpsync.parse_sse('{"a": 1}') == {"a": 1}
    with pytest.raises(error, match=words):
        mcpsync.parse_sse(body, 1)


def test_call_mcp_under_the_modern_version_is_answered_by_the_bundled_server() -> None:
    """``call_mcp(url, method, protocol_version="2026-07-28")`` against the bundled test server over
    HTTP: the listing, a tool call (which needs ``Mcp-Name``) and a resource read are answered, where
    the bare request is refused (no session, no version): the docs' one-shot example."""
    from tests.http_server import running_http_server

    with running_http_server() as base:
        url = f"{base}/mcp"
        with pytest.raises(mcpsync.HTTPStatusError, match="HTTP 400"):
            mcpsync.call_mcp(url, "tools/list", timeout=10)
        listed = mcpsync.call_mcp(url, "tools/list", protocol_version="2026-07-28", timeout=10)
        assert "echo" in [tool["name"] for tool in listed["result"]["tools"]]
        echoed = mcpsync.call_mcp(
            url, "tools/call", {"name": "echo", "arguments": {"text": "hi"}}, protocol_version="2026-07-28", timeout=10
        )
        assert echoed["result"]["content"] == [{"type": "text", "text": "hi"}]
        read = mcpsync.call_mcp(
            url, "resources/read", {"uri": "text://greeting"}, protocol_version="2026-07-28", timeout=10
        )
        assert read["result"]["contents"][0]["text"] == "Hello from a resource"


@responses.activate
def test_call_mcp_under_a_version_sends_what_that_era_wants() -> None:
    """What goes out: a modern version adds the era's ``_meta`` (the caller's own keys kept) and the
    version, method and name headers; a handshake-era version only its ``MCP-Protocol-Version``."""
    responses.add(responses.POST, URL, json={"jsonrpc": "2.0", "id": 1, "result": {}})
    responses.add(responses.POST, URL, json={"jsonrpc": "2.0", "id": 1, "result": {}})
    params = {"name": "echo", "arguments": {}, "_meta": {"mine": 1}}
    mcpsync.call_mcp(URL, "tools/call", params, headers={"X-Key": "k"}, protocol_version="2026-07-28")
    modern = responses.calls[0].request
    meta = json.loads(modern.body)["params"]["_meta"]
    assert meta["mine"] == 1
    assert meta["io.modelcontextprotocol/protocolVersion"] == "2026-07-28"
    assert meta["io.modelcontextprotocol/clientInfo"]["name"] == "mcpsync"
    assert meta["io.modelcontextprotocol/clientCapabilities"] == {}
    assert (modern.headers["MCP-Protocol-Version"], modern.headers["Mcp-Method"], modern.headers["Mcp-Name"]) == (
        "2026-07-28",
        "tools/call",
        "echo",
    )
    assert modern.headers["X-Key"] == "k"
    assert params["_meta"] == {"mine": 1}  # the caller's dict is not changed
    mcpsync.call_mcp(URL, "ping", protocol_version="2025-11-25")
    legacy = responses.calls[1].request
    assert json.loads(legacy.body) == {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    assert legacy.headers["MCP-Protocol-Version"] == "2025-11-25"
    assert "Mcp-Method" not in legacy.headers


def test_call_mcp_refuses_a_version_it_does_not_speak() -> None:
    """An unknown ``protocol_version`` is a ``ConfigurationError`` naming it, before anything is sent."""
    with pytest.raises(mcpsync.ConfigurationError, match=r"protocol_version='2099-01-01' is not one mcpsync speaks"):
        mcpsync.call_mcp("http://127.0.0.1:9/mcp", "ping", protocol_version="2099-01-01")
