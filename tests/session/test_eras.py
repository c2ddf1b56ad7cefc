"""The modern era's wire over HTTP, checked header by header against a mocked server (``responses``);
how the probe tells a legacy server; and the default, ``protocol="auto"``, against legacy servers."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
import requests
import responses

import mcpsync
from mcpsync import UnsupportedProtocolVersion
from mcpsync.testing import server_config
from tests.helpers import scripted_server
from tests.http_server import running_http_server

pytestmark = pytest.mark.usefixtures("server_in_thread")

URL = "http://mcp.test/mcp"
T = 10
DISCOVER = {
    "resultType": "complete",
    "supportedVersions": ["2026-07-28"],
    "capabilities": {"tools": {}, "prompts": {}, "resources": {}},  # what the mocks below serve
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


@responses.activate
def test_a_legacy_server_answering_the_probe_with_an_empty_result_gets_the_handshake():
    """A legacy server that answers whatever it is asked (``{}`` to server/discover) sent no DiscoverResult:
    "auto" runs the handshake, with no modern header left over, and "modern" says why it refuses (both used
    to fail with an UnsupportedProtocolVersion that named no version)."""
    seen: list[tuple[dict[str, str], dict[str, Any]]] = []
    responses.add_callback(responses.POST, URL, callback=modern_server(seen, discover={}))
    responses.add(responses.GET, URL, status=405)
    responses.add(responses.DELETE, URL, status=204)
    with mcpsync.connect(URL, protocol="auto", auth=False, timeout=T) as client:
        assert client.era == "legacy" and client.server_info.name == "old" and client.supported_versions == ()
    assert [m.get("method") for _, m in seen] == ["server/discover", "initialize", "notifications/initialized"]
    for headers, _ in seen[1:]:
        assert "Mcp-Method" not in headers and headers.get("MCP-Protocol-Version") in (None, "2025-11-25")
    with pytest.raises(mcpsync.ProtocolError) as info:
        mcpsync.connect(URL, protocol="modern", auth=False, timeout=T)
    assert type(info.value) is mcpsync.ProtocolError
    assert "does not speak the 2026-07-28 revision (server/discover: an answer without supportedVersions)" in str(
        info.value
    )


def test_a_legacy_stdio_server_answering_the_probe_with_an_empty_result_gets_the_handshake(tmp_path):
    """The same over stdio: ``{}`` to server/discover, then the handshake; no request carries the modern ``_meta``."""
    log = tmp_path / "received.jsonl"
    with mcpsync.connect(
        scripted_server({"server/discover": [{}], "ping": [{}]}, log), protocol="auto", timeout=T
    ) as c:
        assert c.era == "legacy" and c.protocol_version == "2025-11-25"
        c.ping(timeout=T)
    sent = [json.loads(line) for line in log.read_text().splitlines()]
    assert [m.get("method") for m in sent] == ["server/discover", "initialize", "notifications/initialized", "ping"]
    assert all("_meta" not in (m.get("params") or {}) for m in sent[1:])


def scripted(seen: list[tuple[dict[str, str], dict[str, Any]]], answers: dict[str, Any]):
    """A modern server answering each method with ``answers[method]``: a result, or ("error", object)."""

    def answer(request):
        message = json.loads(request.body)
        seen.append((dict(request.headers), message))
        if "id" not in message:
            return (202, {}, "")
        reply = answers.get(message["method"], {"resultType": "complete"})
        if message["method"] == "server/discover":
            reply = DISCOVER
        if isinstance(reply, tuple):
            body = {"error": reply[1]}
        else:
            body = {"result": reply}
        return (200, {"Content-Type": "application/json"}, json.dumps({"jsonrpc": "2.0", "id": message["id"], **body}))

    return answer


def tool(name: str, properties: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "inputSchema": {"type": "object", "properties": properties}}


@responses.activate
def test_x_mcp_header_arguments_go_as_headers_and_tools_breaking_the_rules_are_left_out(caplog):
    tools = [
        tool(
            "good",
            {
                "region": {"type": "string", "x-mcp-header": "Region"},
                "n": {"type": "integer", "x-mcp-header": "N"},
                "on": {"type": "boolean", "x-mcp-header": "On"},
            },
        ),
        tool("on_an_object", {"filter": {"type": "object", "x-mcp-header": "Filter"}}),
        tool("twice", {"a": {"type": "string", "x-mcp-header": "Key"}, "b": {"type": "string", "x-mcp-header": "key"}}),
        tool("bad_name", {"a": {"type": "string", "x-mcp-header": "Not A Token"}}),
        tool("empty", {"a": {"type": "string", "x-mcp-header": ""}}),
    ]
    seen: list[tuple[dict[str, str], dict[str, Any]]] = []
    answers = {
        "tools/list": {"tools": tools, "resultType": "complete"},
        "tools/call": {"content": [], "resultType": "complete"},
    }
    responses.add_callback(responses.POST, URL, callback=scripted(seen, answers))
    with mcpsync.connect(URL, protocol="modern", auth=False, timeout=T) as client:
        assert [t.name for t in client.list_tools(timeout=T)] == ["good"]
        client.call_tool("good", {"region": "Zürich", "n": 42, "on": False}, timeout=T)
        client.call_tool("good", {"region": "us-west1", "n": None}, timeout=T)
    first, second = [h for h, m in seen if m.get("method") == "tools/call"]
    assert (first["Mcp-Param-Region"], first["Mcp-Param-N"], first["Mcp-Param-On"]) == (
        "=?base64?WsO8cmljaA==?=",
        "42",
        "false",
    )
    assert second["Mcp-Param-Region"] == "us-west1" and "Mcp-Param-N" not in second and "Mcp-Param-On" not in second
    for name, rule in [
        ("on_an_object", "of type 'object'"),
        ("twice", "names both"),
        ("bad_name", "characters"),
        ("empty", "empty"),
    ]:
        assert any(f"tool {name!r} left out" in r.getMessage() and rule in r.getMessage() for r in caplog.records), name


@responses.activate
def test_typed_modern_errors_say_what_to_change():
    answers = {
        "tools/call": (
            "error",
            {"code": -32021, "message": "Missing capability", "data": {"requiredCapabilities": {"elicitation": {}}}},
        ),
        "prompts/get": ("error", {"code": -32020, "message": "Header mismatch"}),
        "resources/read": ("error", {"code": -32022, "message": "Unsupported", "data": {"supported": ["2099-01-01"]}}),
    }
    responses.add_callback(responses.POST, URL, callback=scripted([], answers))
    with mcpsync.connect(URL, protocol="modern", auth=False, timeout=T) as client:
        with pytest.raises(mcpsync.MissingClientCapability) as missing:
            client.call_tool("t", {}, timeout=T)
        assert missing.value.required == {"elicitation": {}} and "pass elicitation= to Client" in str(missing.value)
        with pytest.raises(mcpsync.HeaderMismatch, match="differs from the request body"):
            client.get_prompt("p", timeout=T)
        with pytest.raises(UnsupportedProtocolVersion, match="2099-01-01"):
            client.read_resource("x://y", timeout=T)


@responses.activate
def test_a_broken_answer_stream_is_not_resumed_but_the_request_goes_again_under_a_new_id():
    calls: list[dict[str, Any]] = []

    def answer(request):
        message = json.loads(request.body)
        if "id" not in message:
            return (202, {}, "")
        if message["method"] == "server/discover":
            return (
                200,
                {"Content-Type": "application/json"},
                json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": DISCOVER}),
            )
        calls.append(message)
        if message["method"] == "tools/list":
            return (
                200,
                {"Content-Type": "application/json"},
                json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": {"tools": []}}),
            )
        if len([c for c in calls if c["method"] == "tools/call"]) == 1:  # an event stream that ends before its answer
            progress = {
                "jsonrpc": "2.0",
                "method": "notifications/progress",
                "params": {"progressToken": "x", "progress": 1},
            }
            return (200, {"Content-Type": "text/event-stream"}, f"id: e1\ndata: {json.dumps(progress)}\n\n")
        result = {"content": [{"type": "text", "text": "second time"}], "resultType": "complete"}
        return (
            200,
            {"Content-Type": "application/json"},
            json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}),
        )

    responses.add_callback(responses.POST, URL, callback=answer)
    with mcpsync.connect(URL, protocol="modern", auth=False, timeout=T) as client:
        assert client.call_tool("t", {}, timeout=T).text == "second time"
    tool_calls = [c for c in calls if c["method"] == "tools/call"]
    assert len(tool_calls) == 2 and tool_calls[0]["id"] != tool_calls[1]["id"]
    assert not any(call.request.method == "GET" for call in responses.calls)  # no resumption in the modern era


@responses.activate
def test_ttl_ms_keeps_lists_and_reads_fresh_until_a_change_says_otherwise():
    from mcpsync._core.jsonrpc import Kind

    seen: list[tuple[dict[str, str], dict[str, Any]]] = []
    answers = {
        "tools/list": {"tools": [tool("t", {})], "ttlMs": 60000, "cacheScope": "private", "resultType": "complete"},
        "prompts/list": {"prompts": [], "ttlMs": 0, "resultType": "complete"},
        "resources/read": {"contents": [{"uri": "r://x", "text": "v"}], "ttlMs": 60000, "resultType": "complete"},
    }
    responses.add_callback(responses.POST, URL, callback=scripted(seen, answers))

    def asked(method: str) -> int:
        return sum(1 for _, m in seen if m.get("method") == method)

    with mcpsync.connect(URL, protocol="modern", auth=False, timeout=T) as client:
        client.list_tools(timeout=T)
        client.list_tools(timeout=T)
        assert asked("tools/list") == 1  # fresh for 60 s: served from the cache
        client.list_tools(timeout=T, cache=False)
        assert asked("tools/list") == 2  # asked for: the server is asked
        client._inbox.incoming({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}, Kind.NOTIFICATION)
        client.list_tools(timeout=T)
        assert asked("tools/list") == 3  # a list change ends the freshness
        client.list_prompts(timeout=T)
        client.list_prompts(timeout=T)
        assert asked("prompts/list") == 2  # ttlMs 0: never cached
        assert client.read_resource("r://x", timeout=T).text == "v"
        client.read_resource("r://x", timeout=T)
        assert asked("resources/read") == 1
        updated = {"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": "r://x"}}
        client._inbox.incoming(updated, Kind.NOTIFICATION)
        client.read_resource("r://x", timeout=T)
        assert asked("resources/read") == 2


@responses.activate
def test_a_modern_request_declares_the_authorization_extension_its_grant_uses():
    seen: list[tuple[dict[str, str], dict[str, Any]]] = []
    responses.add_callback(responses.POST, URL, callback=scripted(seen, {}))
    auth = mcpsync.ClientCredentials("svc", "secret")  # idle: the mocked server asks for no token
    with mcpsync.connect(URL, protocol="modern", auth=auth, timeout=T) as client:
        client.list_prompts(timeout=T)
    for _, message in seen:
        if "id" in message:
            extensions = message["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"]["extensions"]
            assert extensions == {
                "io.modelcontextprotocol/oauth-client-credentials": {},
                "io.modelcontextprotocol/tasks": {},
            }


# -- the default: protocol="auto" ------------------------------------------------------------------------


def test_the_default_is_auto_and_the_legacy_test_server_gets_the_handshake_over_stdio():
    """No protocol= given: the client probes, mcpsync's own test server with --legacy-only refuses, the handshake runs."""
    client = mcpsync.Client(mcpsync.create_transport(server_config("--legacy-only")))
    assert client.protocol == "auto"
    with client:
        assert client.era == "legacy" and client.protocol_version == "2025-11-25"
        assert client.supported_versions == ()
        assert client.call_tool("echo", {"text": "old"}, timeout=T).text == "old"
    with mcpsync.connect(server_config("--legacy-only"), timeout=T) as connected:
        assert connected.protocol == "auto" and connected.era == "legacy"


def test_a_legacy_server_refusing_the_probe_with_32601_costs_one_round_trip_and_no_warning(tmp_path, caplog):
    """The default against a legacy stdio server that answers server/discover with -32601: one request
    more than the handshake (answered, not waited out), nothing logged at WARNING, nothing modern left."""
    log = tmp_path / "received.jsonl"
    with caplog.at_level(logging.DEBUG, logger="mcpsync"):
        with mcpsync.connect(scripted_server({"ping": [{}]}, log), timeout=T) as client:
            assert client.era == "legacy"
            client.ping(timeout=T)
    sent = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(m.get("id"), m.get("method")) for m in sent] == [
        (1, "server/discover"),
        (2, "initialize"),
        (None, "notifications/initialized"),
        (3, "ping"),
    ]
    assert all("_meta" not in (m.get("params") or {}) for m in sent[1:])
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []
    assert any("server/discover gave MCP error -32601" in r.getMessage() for r in caplog.records)


def test_a_probe_of_the_legacy_http_test_server_leaves_no_session_and_no_warning(caplog):
    """The default against mcpsync's own HTTP test server with --legacy-only: the probe is refused with 400
    (no session), the handshake opens the one session, and nothing is logged at WARNING."""
    with running_http_server("--legacy-only") as base:
        with caplog.at_level(logging.DEBUG, logger="mcpsync"):
            with mcpsync.connect(f"{base}/mcp", timeout=T) as client:
                assert type(client.transport) is mcpsync.StreamableHTTPTransport  # no HTTP+SSE fallback
                assert client.era == "legacy" and client.transport.session_id is not None
                assert client.call_tool("echo", {"text": "x"}, timeout=T).text == "x"
                headers = client.transport._request_headers()
                assert headers["MCP-Protocol-Version"] == "2025-11-25" and "Mcp-Method" not in headers
        with requests.post(f"{base}/control/seen", timeout=T) as response:
            seen = response.json()
    assert seen[:3] == ["server/discover", "initialize", "notifications/initialized"]
    assert seen.count("server/discover") == 1 and seen.count("initialize") == 1
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []


# -- log messages: on 2026-07-28 a server logs only to requests that ask ----------------------------------


def test_a_modern_client_given_on_log_asks_for_info_and_set_logging_level_changes_it():
    logs: list[tuple[str, Any]] = []
    with mcpsync.connect(
        server_config(), timeout=T, on_log=lambda level, _, data: logs.append((level, data))
    ) as client:
        assert client.era == "modern"
        client.call_tool("log", {"message": "chatty", "level": "debug"}, timeout=T)
        client.call_tool("log", {"message": "said", "level": "info"}, timeout=T)
        client.set_logging_level("error")
        client.call_tool("log", {"message": "ignored", "level": "warning"}, timeout=T)
        client.call_tool("log", {"message": "bad", "level": "error"}, timeout=T)
    assert logs == [("info", "said"), ("error", "bad")]


def test_a_modern_client_without_on_log_asks_for_no_log_messages_until_set_logging_level():
    with mcpsync.connect(server_config(), timeout=T) as client:
        assert client.call_tool("log", {"message": "m"}, timeout=T).text == "no log level asked for: not sent"
        client.set_logging_level("debug")
        assert client.call_tool("log", {"message": "m"}, timeout=T).text != "no log level asked for: not sent"


# -- ttlMs on resources/templates/list and server/discover -----------------------------------------------


def test_templates_and_discovery_are_served_again_while_their_ttl_says_so():
    with mcpsync.connect(server_config("--ttl-ms", "60000"), timeout=T) as client:
        assert client.era == "modern"
        sent = client.transport.stats.sent
        first = client.list_resource_templates(timeout=T)
        assert client.list_resource_templates(timeout=T) == first and [t.uri_template for t in first] == [
            "echo://{text}"
        ]
        assert client.transport.stats.sent == sent + 1, "the second listing came from the cache"
        assert client.list_resource_templates(timeout=T, cache=False) == first
        assert client.transport.stats.sent == sent + 2
        discovered = client.discover(timeout=T)
        assert discovered["capabilities"] == client.server_capabilities
        assert client.transport.stats.sent == sent + 2, "server/discover's answer at connecting is still fresh"
        client.discover(timeout=T, cache=False)
        assert client.transport.stats.sent == sent + 3


def test_without_a_ttl_templates_and_discovery_are_asked_each_time():
    with mcpsync.connect(server_config(), timeout=T) as client:
        sent = client.transport.stats.sent
        client.list_resource_templates(timeout=T)
        client.list_resource_templates(timeout=T)
        client.discover(timeout=T)
        assert client.transport.stats.sent == sent + 3


def test_discover_on_a_handshake_server_says_which_revision_it_belongs_to():
    with mcpsync.connect(server_config("--legacy-only"), timeout=T) as client:
        with pytest.raises(
            mcpsync.NotSupportedError, match=r"server/discover is of the 2026-07-28 revision.*2025-11-25"
        ):
            client.discover(timeout=T)


REFUSED_YET_LISTED = ("error", {"code": -32022, "message": "Unsupported", "data": {"supported": ["2026-07-28"]}})


def in_turn(seen: list[tuple[dict[str, str], dict[str, Any]]], answers: dict[str, list[Any]]):
    """A modern server answering each method with the next of ``answers[method]`` (the last repeats):
    a result, or ("error", object) with HTTP 400; methods not listed get an empty complete result."""

    def answer(request):
        message = json.loads(request.body)
        seen.append((dict(request.headers), message))
        if "id" not in message:
            return (202, {}, "")
        queue = answers.get(message["method"]) or [{"resultType": "complete"}]
        reply = queue.pop(0) if len(queue) > 1 else queue[0]
        status, body = (400, {"error": reply[1]}) if isinstance(reply, tuple) else (200, {"result": reply})
        return (
            status,
            {"Content-Type": "application/json"},
            json.dumps({"jsonrpc": "2.0", "id": message["id"], **body}),
        )

    return answer


@responses.activate
def test_a_discover_answer_without_server_info_connects_with_an_empty_server_info():
    """schema/2026-07-28 leaves ``_meta["io.modelcontextprotocol/serverInfo"]`` optional (the
    conformance suite's servers leave it out): the client connects, and its server_info is empty."""
    bare = {"resultType": "complete", "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}}}
    responses.add_callback(responses.POST, URL, callback=in_turn([], {"server/discover": [bare]}))
    with mcpsync.connect(URL, protocol="modern", auth=False, timeout=T) as client:
        assert client.server_info is not None
        assert (client.server_info.name, client.server_info.version) == ("", "")
        assert client.protocol_version == "2026-07-28"


@responses.activate
def test_a_32022_that_lists_the_version_sent_is_answered_by_sending_it_once_more():
    """A server in the middle of a deploy (or an old instance behind a load balancer) refuses
    2026-07-28 while listing it: the probe asks again once, under a new id, and connects."""
    seen: list[tuple[dict[str, str], dict[str, Any]]] = []
    answers = {"server/discover": [REFUSED_YET_LISTED, DISCOVER]}
    responses.add_callback(responses.POST, URL, callback=in_turn(seen, answers))
    with mcpsync.connect(URL, protocol="auto", auth=False, timeout=T) as client:
        assert client.era == "modern" and client.protocol_version == "2026-07-28"
    probes = [(headers, m) for headers, m in seen if m.get("method") == "server/discover"]
    assert len(probes) == 2 and probes[0][1]["id"] != probes[1][1]["id"]
    assert {headers["MCP-Protocol-Version"] for headers, _ in probes} == {"2026-07-28"}


@responses.activate
def test_a_version_refused_again_after_its_retry_says_what_was_sent_listed_and_retried():
    """Refused twice while listed: an UnsupportedProtocolVersion naming the version sent, the server's
    list and the retry, after exactly one retry (no loop)."""
    seen: list[tuple[dict[str, str], dict[str, Any]]] = []
    responses.add_callback(responses.POST, URL, callback=in_turn(seen, {"server/discover": [REFUSED_YET_LISTED]}))
    with pytest.raises(UnsupportedProtocolVersion) as info:
        mcpsync.connect(URL, protocol="modern", auth=False, timeout=T)
    error = info.value
    assert (error.sent, error.supported, error.retried) == ("2026-07-28", ("2026-07-28",), ("2026-07-28",))
    assert "does not take protocol version '2026-07-28'; it lists 2026-07-28" in str(error)
    assert "retried '2026-07-28' under a new request id, refused again" in str(error)
    assert [m.get("method") for _, m in seen] == ["server/discover", "server/discover"]


@responses.activate
def test_a_request_refused_with_32022_listing_its_version_is_sent_once_more_under_a_new_id():
    """After connecting, a tools/call answered -32022 with the version it carried listed goes again
    once, under a new id; refused again, the error says so rather than looping."""
    seen: list[tuple[dict[str, str], dict[str, Any]]] = []
    ok = {"resultType": "complete", "content": [{"type": "text", "text": "ok"}]}
    answers = {"server/discover": [DISCOVER], "tools/call": [REFUSED_YET_LISTED, ok, REFUSED_YET_LISTED]}
    responses.add_callback(responses.POST, URL, callback=in_turn(seen, answers))
    with mcpsync.connect(URL, protocol="modern", auth=False, timeout=T) as client:
        assert client.call_tool("t", {}, timeout=T).text == "ok"
        calls = [m for _, m in seen if m.get("method") == "tools/call"]
        assert len(calls) == 2 and calls[0]["id"] != calls[1]["id"]
        with pytest.raises(UnsupportedProtocolVersion) as info:
            client.call_tool("t", {}, timeout=T)
        assert info.value.retried == ("2026-07-28",)
        assert len([m for _, m in seen if m.get("method") == "tools/call"]) == 4


@responses.activate
def test_a_32022_that_comes_when_the_time_is_up_is_not_sent_again(monkeypatch):
    """Scenario: a tools/call is answered -32022 (its version listed) only as its timeout runs out.
    Promise: it is not sent again with no time left; a RequestTimeout names the caller's timeout (it
    went again with a timeout of 0 and, answered at once, returned past its deadline)."""
    import types

    import mcpsync._core.timeouts as timeouts_module

    seen: list[tuple[dict[str, str], dict[str, Any]]] = []
    ok = {"resultType": "complete", "content": [{"type": "text", "text": "ok"}]}
    answers = {"server/discover": [DISCOVER], "tools/call": [REFUSED_YET_LISTED, ok]}
    answer = in_turn(seen, answers)
    real = timeouts_module.time.monotonic
    late = [0.0]

    def slow_refusal(request):
        reply = answer(request)
        if json.loads(request.body).get("method") == "tools/call":
            late[0] = T + 1.0  # the client's clock: the refusal came after the call's whole timeout
        return reply

    responses.add_callback(responses.POST, URL, callback=slow_refusal)
    with mcpsync.connect(URL, protocol="modern", auth=False, timeout=T) as client:
        monkeypatch.setattr(timeouts_module, "time", types.SimpleNamespace(monotonic=lambda: real() + late[0]))
        with pytest.raises(mcpsync.RequestTimeout) as info:
            client.call_tool("t", {}, timeout=T)
        monkeypatch.undo()
    assert info.value.timeout == T and info.value.method == "tools/call"
    assert len([m for _, m in seen if m.get("method") == "tools/call"]) == 1
