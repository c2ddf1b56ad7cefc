"""The 2026-07-28 revision against the official MCP Python SDK 2.3.0, a dual-era server we did not write.

tests/interop/official_server.py serves both eras on the same endpoint: a
request with the modern ``_meta`` is served statelessly, ``initialize``
opens a legacy session. Over stdio and each Streamable HTTP mode, the same
script gives the same answers in both eras; the modern era has no session,
answers ``input_required`` with the client's handlers (``ask_in_rounds``),
and falls back to the handshake against a legacy server.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import mcpsync
from mcpsync import NotSupportedError, ProtocolError
from mcpsync.testing import server_config
from tests.interop.official import SERVER_SCRIPT, Server, start_server, stop

pytestmark = pytest.mark.official

T = 30
STDIO = "stdio"
HTTP_MODES = ("json-replies", "sse-replies", "stateless")


@pytest.fixture(scope="module", params=(STDIO, *HTTP_MODES))
def target(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    if request.param == STDIO:
        yield [sys.executable, str(SERVER_SCRIPT), "stdio"]
        return
    running: Server = start_server(request.param, tmp_path_factory.mktemp("modern"))
    try:
        yield running.url
    finally:
        stop(running.process, 5)


def script(client: mcpsync.Client) -> dict[str, Any]:
    """What a user script does, whatever the era."""
    tools = sorted(tool.name for tool in client.list_tools(timeout=T))
    return {
        "tools": tools,
        "add": client.call_tool("add", {"a": 20, "b": 22}, timeout=T).structured_content,
        "echo": client.call_tool("echo", {"text": "héllo"}, timeout=T).text,
        "refused": client.call_tool("refuse", {"reason": "no"}, timeout=T).is_error,
        "prompt": client.get_prompt("review", {"code": "x = 1"}, timeout=T).messages[0].text,
        "resource": client.read_resource("data://greeting", timeout=T).text,
        "server": client.server_info.name if client.server_info else None,
        "instructions": client.instructions,
    }


def test_the_same_script_runs_unchanged_in_both_eras(target: Any) -> None:
    with mcpsync.connect(target, protocol="legacy", timeout=T) as legacy:
        old = script(legacy)
        assert legacy.era == "legacy" and legacy.protocol_version == "2025-11-25"
    with mcpsync.connect(target, protocol="auto", timeout=T) as modern:
        new = script(modern)
        assert modern.era == "modern" and modern.protocol_version == "2026-07-28"
        assert modern.supported_versions == ("2026-07-28",)
        assert getattr(modern.transport, "session_id", None) is None  # stateless: no session
        modern.ping(timeout=T)  # no ping in the revision: server/discover stands in
    assert new == old


def test_the_default_finds_the_modern_era_of_a_dual_era_server(target: Any) -> None:
    """No protocol= given ("auto"): the SDK's server answers server/discover, so no handshake and no session."""
    with mcpsync.connect(target, timeout=T) as client:
        assert client.protocol == "auto"
        assert client.era == "modern" and client.protocol_version == "2026-07-28"
        assert getattr(client.transport, "session_id", None) is None
        assert client.call_tool("add", {"a": 1, "b": 2}, timeout=T).structured_content == {"total": 3}


def test_every_modern_request_carries_its_version_capabilities_and_identity(target: Any, caplog) -> None:
    with caplog.at_level(logging.DEBUG, logger="mcpsync.traffic"):
        with mcpsync.connect(target, protocol="modern", timeout=T, roots=["file:///r"]) as client:
            client.list_tools(timeout=T)
            client.call_tool("echo", {"text": "x"}, timeout=T)
    sent = [json.loads(r.getMessage().split(" --> ", 1)[1]) for r in caplog.records if " --> " in r.getMessage()]
    requests = [m for m in sent if "id" in m and "method" in m]
    methods = [m["method"] for m in requests]
    assert methods[0] == "server/discover" and {"subscriptions/listen", "tools/list", "tools/call"} <= set(methods)
    assert "initialize" not in [m.get("method") for m in sent]
    for message in requests:
        meta = message["params"]["_meta"]
        assert meta["io.modelcontextprotocol/protocolVersion"] == "2026-07-28"
        assert meta["io.modelcontextprotocol/clientCapabilities"] == {
            "roots": {"listChanged": True},
            "extensions": {"io.modelcontextprotocol/tasks": {}},  # call_tool waits for a task, if one comes
        }
        assert meta["io.modelcontextprotocol/clientInfo"]["name"] == "mcpsync"


def test_input_required_is_answered_with_the_clients_handlers_and_the_state_echoed(target: Any) -> None:
    asked: list[str] = []

    def elicit(params: dict[str, Any]) -> dict[str, Any]:
        asked.append(params["message"])
        return {"action": "accept", "content": {"name": "Ada"}}

    with mcpsync.connect(target, protocol="auto", timeout=T, elicitation=elicit, roots=["file:///work"]) as client:
        result = client.call_tool("ask_in_rounds", {}, timeout=T)
    assert result.text == "hello Ada (file:///work) state=round-1" and not result.is_error
    assert asked == ["Your name?"]


def test_input_required_without_a_handler_says_which_argument_gives_one(target: Any) -> None:
    with mcpsync.connect(target, protocol="auto", timeout=T, roots=["file:///work"]) as client:
        with pytest.raises(NotSupportedError, match=r"wants input by elicitation/create.*pass elicitation= to Client"):
            client.call_tool("ask_in_rounds", {}, timeout=T)
        assert client.call_tool("echo", {"text": "still fine"}, timeout=T).text == "still fine"


def test_auto_falls_back_to_the_handshake_with_a_legacy_server_and_modern_refuses_it() -> None:
    legacy = server_config("--legacy-only")  # mcpsync's test server, without the 2026-07-28 revision
    with mcpsync.connect(legacy, protocol="auto", timeout=T) as client:
        assert client.era == "legacy" and client.protocol_version == "2025-11-25"
        assert client.call_tool("echo", {"text": "old"}, timeout=T).text == "old"
    with pytest.raises(ProtocolError, match=r"does not speak the 2026-07-28 revision.*protocol='auto' or 'legacy'"):
        mcpsync.connect(legacy, protocol="modern", timeout=T)


def test_a_slow_start_past_the_probe_timeout_still_finds_the_modern_era(monkeypatch) -> None:
    """Issue 37, point 1: the SDK's server started after the probe gave up waiting (``sh -c "sleep ...;
    exec ..."`` as ``uvx`` or ``npx -y`` on a first run): it answers the discover late and refuses the
    ``initialize`` that followed (-32022); the late answer is taken. PROBE_TIMEOUT cut to 0.3 s here."""
    from mcpsync._session import negotiation

    monkeypatch.setattr(negotiation, "PROBE_TIMEOUT", 0.3)
    command = ["sh", "-c", f'sleep 1; exec "{sys.executable}" "{SERVER_SCRIPT}" stdio']
    with mcpsync.connect(command, timeout=T) as client:
        assert client.era == "modern" and client.protocol_version == "2026-07-28"
        assert client.call_tool("add", {"a": 20, "b": 22}, timeout=T).structured_content == {"total": 42}


def test_a_bad_protocol_is_refused_at_once(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="protocol must be"):
        mcpsync.Client(mcpsync.create_transport(server_config()), protocol="2099-01-01")


def test_list_changes_and_resource_updates_come_by_subscriptions_listen(target: Any) -> None:
    import time

    changes: list[str] = []
    updates: list[str] = []
    with mcpsync.connect(
        target, protocol="auto", timeout=T, on_list_changed=changes.append, on_resource_updated=updates.append
    ) as client:
        client.subscribe_resource("data://greeting", timeout=T)
        assert client._subscriptions.wanted["resourceSubscriptions"] == ["data://greeting"]
        deadline = time.monotonic() + T
        while not (changes and updates) and time.monotonic() < deadline:
            # Published again until heard: the new subscription may not be acknowledged yet.
            client.call_tool("publish_changes", {"uri": "data://greeting"}, timeout=T)
            time.sleep(0.2)
        client.unsubscribe_resource("data://greeting", timeout=T)
        assert "resourceSubscriptions" not in client._subscriptions.wanted
    assert "tools" in changes and "data://greeting" in updates
