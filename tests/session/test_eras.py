"""The modern era's wire over HTTP, checked header by header against a mocked server (``responses``)."""

from __future__ import annotations

import json
from typing import Any

import pytest
import responses

import mcpsync
from mcpsync import UnsupportedProtocolVersion

URL = "http://mcp.test/mcp"
T = 10
DISCOVER = {
    "resultType": "complete",
    "supportedVersions": ["2026-07-28"],
    "capabilities": {"tools": {}},
    "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "mock", "version": "9"}},
}


def modern_server(seen: list[tuple[dict[str, str], dict[str, Any]]], discover: Any = DISCOVER):
    def answer(request):
        message = json.loads(request.body)
        seen.append((dict(request.headers), message))
        if "id" not in message:
            return (202, {}, "")
        if message["method"] == "server/discover":
            status, body = discover if isinstance(discover, tuple) else (200, {"result": discover})
            return (
                status,
                {"Content-Type": "application/json"},
                json.dumps({"jsonrpc": "2.0", "id": message["id"], **body}),
            )
        if message["method"] == "initialize":
            result = {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "serverInfo": {"name": "old", "version": "1"},
            }
            return (
                200,
                {"Content-Type": "application/json"},
                json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}),
            )
        result = {"content": [{"type": "text", "text": "ok"}], "resultType": "complete"}
        return (
            200,
            {"Content-Type": "application/json"},
            json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}),
        )

    return answer


@responses.activate
def test_every_post_carries_the_version_header_equal_to_the_meta_and_names_its_method_and_tool():
    seen: list[tuple[dict[str, str], dict[str, Any]]] = []
    responses.add_callback(responses.POST, URL, callback=modern_server(seen))
    with mcpsync.connect(URL, protocol="modern", auth=False, timeout=T) as client:
        assert client.call_tool("größe", {"x": 1}, timeout=T).text == "ok"
        assert client.server_info is not None and client.server_info.name == "mock"
    for headers, message in seen:
        assert headers["MCP-Protocol-Version"] == message["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"]
        assert headers["Mcp-Method"] == message["method"]
        assert "Mcp-Session-Id" not in headers
    call_headers = seen[-1][0]
    assert call_headers["Mcp-Name"] == "=?base64?Z3LDtsOfZQ==?="  # not ASCII: base64 of its UTF-8


@responses.activate
def test_a_modern_server_that_shares_no_version_is_an_error_naming_what_it_supports():
    refusal = (
        400,
        {"error": {"code": -32022, "message": "Unsupported protocol version", "data": {"supported": ["2099-01-01"]}}},
    )
    responses.add_callback(responses.POST, URL, callback=modern_server([], discover=refusal))
    with pytest.raises(UnsupportedProtocolVersion) as info:
        mcpsync.connect(URL, protocol="auto", auth=False, timeout=T)
    assert "2099-01-01" in str(info.value)


@responses.activate
def test_a_dual_era_server_without_our_modern_version_gets_the_handshake():
    refusal = (
        400,
        {"error": {"code": -32022, "message": "Unsupported protocol version", "data": {"supported": ["2025-11-25"]}}},
    )
    seen: list[tuple[dict[str, str], dict[str, Any]]] = []
    responses.add_callback(responses.POST, URL, callback=modern_server(seen, discover=refusal))
    responses.add(responses.GET, URL, status=405)
    responses.add(responses.DELETE, URL, status=204)
    with mcpsync.connect(URL, protocol="auto", auth=False, timeout=T) as client:
        assert client.era == "legacy"
    assert [m.get("method") for _, m in seen][:2] == ["server/discover", "initialize"]


@responses.activate
def test_a_legacy_server_refusing_the_probe_with_a_plain_400_gets_the_handshake():
    seen: list[tuple[dict[str, str], dict[str, Any]]] = []
    responses.add_callback(
        responses.POST,
        URL,
        callback=modern_server(seen, discover=(400, {"error": {"code": -32600, "message": "no session"}})),
    )
    responses.add(responses.GET, URL, status=405)
    responses.add(responses.DELETE, URL, status=204)
    with mcpsync.connect(URL, protocol="auto", auth=False, timeout=T) as client:
        assert client.era == "legacy" and client.server_info.name == "old"
    initialize_headers = next(h for h, m in seen if m.get("method") == "initialize")
    assert "Mcp-Method" not in initialize_headers and "MCP-Protocol-Version" not in initialize_headers
