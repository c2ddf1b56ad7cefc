"""mcpsync against its own test server in both eras (``python -m mcpsync.testing``), over stdio and
Streamable HTTP (event-stream and JSON answers).

The test server is dual-era, as a 2026-07-28 server that still serves older
clients is: ``server/discover`` and stateless requests with the modern
``_meta``, ``initialize`` for the legacy era. Each of its controls is
checked to do what it says, and the client to handle it: -32022 and the
renegotiation it leads to, ``input_required`` rounds through the client's
handlers, a result without ``resultType``, tools whose ``x-mcp-header``
breaks the rules, the HTTP headers the server checks, and ``--legacy-only``
for the fallback of ``protocol="auto"``.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
import requests

import mcpsync
from mcpsync import HTTPStatusError, MissingClientCapability, ProtocolError, ServerError, UnsupportedProtocolVersion
from mcpsync._session import era as era_module, negotiation as negotiation_module
from mcpsync.testing import server_command
from tests.helpers import wait_for
from tests.http_server import KINDS, server_target as serving

pytestmark = pytest.mark.usefixtures("server_in_thread")

T = 20
MODERN = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
}


def handlers(seen: list[tuple[str, Any]]) -> dict[str, Any]:
    """The client's input handlers, recording what they were asked."""

    def elicitation(params: dict[str, Any]) -> dict[str, Any]:
        seen.append(("elicitation", params))
        return {"action": "accept", "content": {"name": "Ada"}}

    def sampling(params: dict[str, Any]) -> dict[str, Any]:
        seen.append(("sampling", params))
        return {"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "test"}

    return {"elicitation": elicitation, "sampling": sampling, "roots": ["file:///work"]}


def post(url: str, message: dict[str, Any], **headers: str) -> requests.Response:
    """A raw modern POST with the headers given (none added)."""
    return requests.post(
        url,
        data=json.dumps(message),
        headers={"Content-Type": "application/json", "Accept": "application/json, text/event-stream", **headers},
        timeout=T,
    )


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("protocol", ["modern", "auto", "legacy"])
def test_each_protocol_gets_its_era_and_the_same_answers(kind: str, protocol: str) -> None:
    """The same calls give the same answers whichever era the client picks; auto picks modern here."""
    with serving(kind) as target, mcpsync.connect(target, protocol=protocol, timeout=T) as client:
        assert client.era == ("legacy" if protocol == "legacy" else "modern")
        assert client.protocol_version == ("2025-11-25" if protocol == "legacy" else MODERN)
        assert client.server_info is not None and client.server_info.name == "mcpsync-test-server"
        assert client.instructions == "A server for testing MCP clients."
        assert client.call_tool("add", {"a": 2, "b": 3}, timeout=T).structured_content == {"sum": 5}
        assert client.read_resource("text://greeting", timeout=T).text == "Hello from a resource"
        assert client.get_prompt("greet", {"name": "Ada"}, timeout=T).messages[0].text.endswith("Ada.")
        assert client.call_tool("region_echo", {"text": "x", "region": "Zürich"}, timeout=T).structured_content == {
            "text": "x",
            "region": "Zürich",
        }
        client.ping(timeout=T)
        if protocol != "legacy":
            assert client.supported_versions == (MODERN, "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")


@pytest.mark.parametrize("kind", KINDS)
def test_discover_and_every_modern_result_carry_result_type_and_lists_and_reads_the_cache_hints(kind: str) -> None:
    """server/discover answers as the revision says; lists and reads carry ttlMs (--ttl-ms) and cacheScope."""
    with serving(kind, "--ttl-ms", "60000") as target, mcpsync.connect(target, protocol="modern", timeout=T) as client:
        discovered = client.request("server/discover", timeout=T)
        assert discovered["resultType"] == "complete"
        assert discovered["supportedVersions"][0] == MODERN
        assert discovered["ttlMs"] == 60000 and discovered["cacheScope"] == "public"
        assert "tools" in discovered["capabilities"] and "logging" not in discovered["capabilities"]
        assert discovered["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "mcpsync-test-server"
        listed = client.request("tools/list", timeout=T)
        assert (listed["resultType"], listed["ttlMs"], listed["cacheScope"]) == ("complete", 60000, "public")
        called = client.request("tools/call", {"name": "echo", "arguments": {"text": "a"}}, timeout=T)
        assert called["resultType"] == "complete" and "ttlMs" not in called
        read = client.request("resources/read", {"uri": "text://greeting"}, timeout=T)
        assert read["ttlMs"] == 60000


@pytest.mark.parametrize("kind", KINDS)
def test_the_methods_the_revision_removed_are_not_found_on_modern_requests_but_served_on_legacy_ones(
    kind: str,
) -> None:
    """ping, logging/setLevel, resources/subscribe: a ``ServerError`` -32601 (over HTTP in a 404) in the modern era only."""
    with serving(kind) as target:
        with mcpsync.connect(target, protocol="modern", timeout=T) as client:
            for method, params in (
                ("ping", None),
                ("logging/setLevel", {"level": "info"}),
                ("resources/subscribe", {"uri": "text://greeting"}),
            ):
                # One outcome on every transport: over HTTP the 404's body is the JSON-RPC error, read as such.
                with pytest.raises(ServerError) as error:
                    client.request(method, params, timeout=T)
                assert error.value.code == -32601
        with mcpsync.connect(target, protocol="legacy", timeout=T) as client:
            assert client.request("ping", timeout=T) == {}
            client.set_logging_level("info", timeout=T)


@pytest.mark.parametrize("kind", KINDS)
def test_log_messages_go_only_to_modern_requests_that_ask_for_a_level(kind: str) -> None:
    """2026-07-28: no notifications/message without the logLevel of the request; set_logging_level sets it
    (and a client given on_log asks for info)."""
    logs: list[Any] = []
    with serving(kind) as target:
        with mcpsync.connect(target, protocol="modern", timeout=T) as client:
            assert client.call_tool("log", {"message": "unasked"}, timeout=T).text == "no log level asked for: not sent"
        with mcpsync.connect(
            target, protocol="modern", timeout=T, on_log=lambda level, logger, data: logs.append(data)
        ) as client:
            assert client.call_tool("log", {"message": "asked by on_log"}, timeout=T).text == "logged"
            client.set_logging_level("warning")
            assert client.call_tool("log", {"message": "too low"}, timeout=T).text.startswith("below")
            assert client.call_tool("log", {"message": "high", "level": "error"}, timeout=T).text == "logged"
    if kind != "http-json":  # a JSON body carries the answer alone
        assert "asked by on_log" in logs and "high" in logs and "too low" not in logs


@pytest.mark.parametrize("kind", KINDS)
def test_a_version_the_server_does_not_accept_gets_32022_naming_what_it_supports(kind: str) -> None:
    """--modern-versions: modern refuses with the supported versions; auto takes the handshake they offer."""
    with serving(kind, "--modern-versions", "2099-01-01") as target:
        with pytest.raises(UnsupportedProtocolVersion) as info:
            mcpsync.connect(target, protocol="modern", timeout=T)
        assert "2099-01-01" in info.value.supported and "2025-11-25" in info.value.supported
        with mcpsync.connect(target, protocol="auto", timeout=T) as client:
            assert client.era == "legacy" and client.protocol_version == "2025-11-25"


@pytest.mark.parametrize("kind", KINDS)
def test_the_client_renegotiates_when_its_first_choice_is_refused_at_discovery(
    kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A client that prefers a version the server does not take gets -32022 and picks one they share."""
    monkeypatch.setattr(era_module, "MODERN_VERSIONS", ("2099-01-01", MODERN))
    monkeypatch.setattr(negotiation_module, "MODERN_VERSIONS", ("2099-01-01", MODERN))
    with serving(kind) as target, mcpsync.connect(target, protocol="modern", timeout=T) as client:
        assert client.protocol_version == MODERN
        assert client.call_tool("echo", {"text": "after"}, timeout=T).text == "after"


@pytest.mark.parametrize("kind", KINDS)
def test_a_version_retired_mid_session_is_renegotiated_on_the_next_request(
    kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """retire_version: the next request gets -32022 with what is left; the client moves to it and resends."""
    monkeypatch.setattr(era_module, "MODERN_VERSIONS", (MODERN, "2099-01-01"))
    monkeypatch.setattr(negotiation_module, "MODERN_VERSIONS", (MODERN, "2099-01-01"))
    with serving(kind, "--modern-versions", f"{MODERN},2099-01-01") as target:
        with mcpsync.connect(target, protocol="modern", timeout=T) as client:
            assert client.protocol_version == MODERN
            retired = client.call_tool("retire_version", {"version": MODERN}, timeout=T)
            assert retired.structured_content == {"accepted": ["2099-01-01"]}
            assert client.call_tool("echo", {"text": "again"}, timeout=T).text == "again"
            assert client.protocol_version == "2099-01-01"
            client.call_tool("retire_version", {"version": "2099-01-01"}, timeout=T)
            with pytest.raises(UnsupportedProtocolVersion):
                client.call_tool("echo", {"text": "none left"}, timeout=T)


@pytest.mark.parametrize("kind", KINDS)
def test_an_input_required_chain_goes_through_the_clients_handlers_with_the_state_echoed(kind: str) -> None:
    """ask_in_rounds: three rounds of elicitation, sampling and roots; the server checks each requestState."""
    seen: list[tuple[str, Any]] = []
    with serving(kind) as target, mcpsync.connect(target, protocol="modern", timeout=T, **handlers(seen)) as client:
        result = client.call_tool("ask_in_rounds", {"rounds": 3}, timeout=T)
        assert result.structured_content is not None
        answers = result.structured_content["answers"]
        assert result.structured_content["rounds"] == 3 and len(answers) == 3
        for number, answer in enumerate(answers, 1):
            assert answer[f"elicitation-{number}"] == {"action": "accept", "content": {"name": "Ada"}}
            assert answer[f"sampling-{number}"]["model"] == "test"
            assert answer[f"roots-{number}"] == {"roots": [{"uri": "file:///work"}]}
        assert [what for what, _ in seen] == ["elicitation", "sampling"] * 3
        slow = client.call_tool("ask_in_rounds", {"rounds": 2, "kinds": ["roots"], "delay": 0.3}, timeout=T)
        assert slow.structured_content == {
            "rounds": 2,
            "answers": [
                {"roots-1": {"roots": [{"uri": "file:///work"}]}},
                {"roots-2": {"roots": [{"uri": "file:///work"}]}},
            ],
        }


@pytest.mark.parametrize("kind", KINDS)
def test_the_server_refuses_a_request_state_that_did_not_come_back_as_sent(kind: str) -> None:
    """A requestState changed by one character, or input responses without a state, are -32602."""
    seen: list[tuple[str, Any]] = []
    with serving(kind) as target, mcpsync.connect(target, protocol="modern", timeout=T, **handlers(seen)) as client:
        ask = {"name": "ask_in_rounds", "arguments": {"kinds": ["roots"]}}
        first = client.send_request("tools/call", ask).result(timeout=T)  # one round, not the client's rounds
        assert first["resultType"] == "input_required" and "ttlMs" not in first
        state = first["requestState"]
        tampered = state[:-1] + ("0" if state[-1] != "0" else "1")
        answer = {"roots-1": {"roots": []}}
        for params in ({"requestState": tampered, "inputResponses": answer}, {"inputResponses": answer}):
            with pytest.raises(ServerError) as info:
                client.send_request("tools/call", {**ask, **params}).result(timeout=T)
            assert info.value.code == -32602
        done = client.request(
            "tools/call",
            {
                "name": "ask_in_rounds",
                "arguments": {"kinds": ["roots"]},
                "requestState": state,
                "inputResponses": answer,
            },
            timeout=T,
        )
        assert done["resultType"] == "complete" and done["structuredContent"]["rounds"] == 1


def test_input_without_the_capability_it_needs_is_32021_naming_it() -> None:
    """A client with no elicitation handler declares no elicitation: the tool wants it, -32021 says so."""
    with mcpsync.connect(server_command(), protocol="modern", timeout=T) as client:
        with pytest.raises(MissingClientCapability) as info:
            client.call_tool("ask_in_rounds", {"kinds": ["elicitation"]}, timeout=T)
        assert info.value.required == {"elicitation": {}}
    with mcpsync.connect(server_command(), protocol="legacy", timeout=T) as client:
        assert client.call_tool("ask_in_rounds", {}, timeout=T).is_error  # no input_required in that era


@pytest.mark.parametrize("kind", KINDS)
def test_a_result_without_result_type_counts_as_complete(kind: str) -> None:
    """no_result_type and --omit-result-type: results with no resultType read as complete ones."""
    with serving(kind) as target, mcpsync.connect(target, protocol="modern", timeout=T) as client:
        raw = client.request("tools/call", {"name": "no_result_type", "arguments": {"text": "bare"}}, timeout=T)
        assert "resultType" not in raw
        assert client.call_tool("no_result_type", {"text": "bare"}, timeout=T).text == "bare"
    with serving(kind, "--omit-result-type") as target, mcpsync.connect(target, protocol="modern", timeout=T) as c:
        assert "resultType" not in c.request("server/discover", timeout=T)
        assert "echo" in [tool.name for tool in c.list_tools(timeout=T)]
        assert c.call_tool("echo", {"text": "plain"}, timeout=T).text == "plain"


@pytest.mark.parametrize("kind", KINDS)
def test_tools_breaking_the_x_mcp_header_rules_are_left_out_with_a_warning_and_good_ones_stay(
    kind: str, caplog: pytest.LogCaptureFixture
) -> None:
    """--bad-header-tools: empty, non-token, duplicate (without case), on an object: each named with its rule."""
    with serving(kind, "--bad-header-tools") as target:
        with caplog.at_level(logging.WARNING, logger="mcpsync.client"):
            with mcpsync.connect(target, protocol="modern", timeout=T) as client:
                names = {tool.name for tool in client.list_tools(timeout=T)}
        assert "region_echo" in names and "echo" in names
        assert not names & {"bad_header_empty", "bad_header_chars", "bad_header_duplicate", "bad_header_object"}
        warnings = [record.getMessage() for record in caplog.records if record.levelno == logging.WARNING]
        for tool, rule in (
            ("bad_header_empty", "empty"),
            ("bad_header_chars", "characters a header name cannot have"),
            ("bad_header_duplicate", "names both"),
            ("bad_header_object", "not string, integer or boolean"),
        ):
            assert any(f"tool {tool!r} left out" in text and rule in text for text in warnings), (tool, warnings)
        with mcpsync.connect(target, protocol="legacy", timeout=T) as client:
            assert "bad_header_object" in {tool.name for tool in client.list_tools(timeout=T)}  # no headers there


@pytest.mark.parametrize("kind", ["http", "http-json"])
def test_the_server_checks_the_modern_headers_against_the_body(kind: str) -> None:
    """MCP-Protocol-Version, Mcp-Method, Mcp-Name (base64 decoded) and Mcp-Param-*: a mismatch is 400 -32020."""
    with serving(kind) as url:
        call = {
            "jsonrpc": "2.0",
            "id": 7,
            "method": "tools/call",
            "params": {"name": "region_echo", "arguments": {"text": "t", "region": "eu"}, "_meta": META},
        }
        good = {"MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call", "Mcp-Name": "region_echo"}
        good["Mcp-Param-Region"] = "eu"
        for change in (
            {"MCP-Protocol-Version": "2025-11-25"},
            {"Mcp-Method": "tools/list"},
            {"Mcp-Name": "echo"},
            {"Mcp-Param-Region": "us"},
        ):
            answer = post(url, call, **{**good, **change})
            assert answer.status_code == 400, change
            assert answer.json()["error"]["code"] == -32020 and answer.json()["id"] == 7
        missing = {key: value for key, value in good.items() if key != "Mcp-Name"}
        assert post(url, call, **missing).status_code == 400
        encoded = {**good, "Mcp-Name": "=?base64?cmVnaW9uX2VjaG8=?="}  # "region_echo", base64
        answer = post(url, call, **encoded)
        assert answer.status_code == 200 and "Mcp-Session-Id" not in answer.headers
        assert '"region": "eu"' in answer.text or '\\"region\\": \\"eu\\"' in answer.text
        discover = {"jsonrpc": "2.0", "id": 8, "method": "server/discover", "params": {"_meta": META}}
        refused = post(
            url,
            {**discover, "params": {"_meta": {**META, META_VERSION: "1999-01-01"}}},
            **{
                "MCP-Protocol-Version": "1999-01-01",
                "Mcp-Method": "server/discover",
            },
        )
        assert refused.status_code == 400 and refused.json()["error"]["code"] == -32022
        assert MODERN in refused.json()["error"]["data"]["supported"]
        unknown = post(url, {**discover, "method": "ping"}, **{"MCP-Protocol-Version": MODERN, "Mcp-Method": "ping"})
        assert unknown.status_code == 404 and unknown.json()["error"]["code"] == -32601


META_VERSION = "io.modelcontextprotocol/protocolVersion"


@pytest.mark.parametrize("kind", KINDS)
def test_legacy_only_keeps_the_handshake_alone_so_auto_falls_back_and_modern_refuses(kind: str) -> None:
    """--legacy-only: server/discover is -32601 (over HTTP: no session, 400); auto takes the handshake."""
    with serving(kind, "--legacy-only") as target:
        with mcpsync.connect(target, protocol="auto", timeout=T) as client:
            assert client.era == "legacy" and client.protocol_version == "2025-11-25"
            assert client.call_tool("echo", {"text": "old"}, timeout=T).text == "old"
        # Per transport, one outcome: over stdio the -32601 is read as "not a 2026-07-28 server"; over
        # HTTP the probe is refused with 400 (no session), which says nothing of the era.
        expected: tuple[type[Exception], str] = (
            (ProtocolError, r"does not speak the 2026-07-28 revision \(server/discover: .*-32601")
            if kind == "stdio"
            else (HTTPStatusError, r"^HTTP 400 from POST .*: unknown or missing session")
        )
        with pytest.raises(expected[0], match=expected[1]) as refused:
            mcpsync.connect(target, protocol="modern", timeout=T)
        assert type(refused.value) is expected[0]


@pytest.mark.parametrize("kind", KINDS)
def test_list_changes_reach_a_modern_client_by_its_subscription(kind: str) -> None:
    """--tools-change-after-list: subscriptions/listen is acknowledged, and the change comes tagged on it."""
    changed: list[str] = []
    with (
        serving(kind, "--tools-change-after-list") as target,
        mcpsync.connect(target, protocol="modern", timeout=T, on_list_changed=changed.append) as client,
    ):
        assert "late" not in {tool.name for tool in client.list_tools(timeout=T)}
        assert wait_for(lambda: changed == ["tools"])
        # list_tools, not client.tools: the change can come before list_tools has stored the list it
        # answers (a race of the client's cache, in either era), and ttlMs 0 asks the server anyway.
        assert "late" in {tool.name for tool in client.list_tools(timeout=T)}
