"""A stdio server that answers ``server/discover`` after ``PROBE_TIMEOUT`` (issue 37, point 1).

With no answer by then ``initialize`` goes out while the discover still waits, and the first success
decides: a slow dual-era server (the official SDK's, started by ``uvx`` or ``npx -y`` on a first run)
answers the discover late, commits its connection to 2026-07-28 and refuses the handshake; an old
legacy server never answers the discover and takes the handshake. The servers are
tests/scripted_server.py with ``{"after": s}`` answers; PROBE_TIMEOUT is cut to 0.2 s for them.
"""

from __future__ import annotations

import json
import logging
import time
from typing import Any

import pytest

import mcpsync
from mcpsync._session import negotiation
from tests.helpers import scripted_server

T = 10
PROBE = 0.2
LATE = 0.6  # the server's first answer: past PROBE
DISCOVER = {
    "supportedVersions": ["2026-07-28"],
    "capabilities": {"tools": {}},
    "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "slow", "version": "2.3"}},
}
#: What the official SDK 2.3 answers an ``initialize`` on a connection a discover committed.
SERVING_MODERN = {"error": {"code": -32022, "message": "connection is serving the 2026-07-28 protocol"}}


@pytest.fixture(autouse=True)
def short_probe(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(negotiation, "PROBE_TIMEOUT", PROBE)


def sent(log: Any) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines()]


def test_a_discover_answered_after_the_probe_timeout_is_an_answer(tmp_path, caplog):
    """The discover answered late, initialize refused with -32022: the modern era, whose requests carry
    ``_meta``; the refused initialize is given up, never cancelled (the spec forbids it)."""
    log = tmp_path / "received.jsonl"
    script = {
        "server/discover": [{"after": LATE, "answer": DISCOVER}],
        "initialize": [SERVING_MODERN],
        "tools/list": [{"tools": [{"name": "now", "inputSchema": {"type": "object"}}]}],
    }
    with caplog.at_level(logging.INFO, logger="mcpsync"):
        with mcpsync.connect(scripted_server(script, log), timeout=T) as client:
            assert client.era == "modern" and client.protocol_version == "2026-07-28"
            assert client.server_info.name == "slow"
            assert [tool.name for tool in client.list_tools(timeout=T)] == ["now"]
    messages = sent(log)
    assert [m.get("method") for m in messages][:3] == ["server/discover", "initialize", "tools/list"]
    assert "io.modelcontextprotocol/protocolVersion" in messages[2]["params"]["_meta"]
    assert all(m.get("method") != "notifications/cancelled" for m in messages)
    assert any("answered server/discover after 0.2s" in r.getMessage() for r in caplog.records)


def test_the_official_sdks_refusal_after_a_late_discover_is_not_an_error(tmp_path):
    """Without the fix this is what a user saw: ``MCP error -32022: connection is serving the
    2026-07-28 protocol``. Both answers at once (the server answers them in one go) decide the same."""
    script = {
        "server/discover": [{"after": LATE, "answer": DISCOVER}],
        "initialize": [SERVING_MODERN],
        "tools/list": [{"tools": []}],
    }
    with mcpsync.connect(scripted_server(script), timeout=T) as client:
        assert client.era == "modern"
        # The refusal of the initialize given up: dropped, if it came after, and never taken for a
        # stray answer (the server answers in order: it came before the tools/list's answer).
        assert client.list_tools(timeout=T) == []
        assert client.stats.unmatched_responses == 0 and client.stats.late_responses <= 1


def test_a_legacy_server_that_never_answers_the_discover_takes_the_handshake_at_once(tmp_path):
    """An old SDK's server that ignores requests before ``initialize``: the handshake, without waiting
    for the discover any more; its ``notifications/cancelled`` follows ``notifications/initialized``."""
    log = tmp_path / "received.jsonl"
    started = time.monotonic()
    with mcpsync.connect(scripted_server({"server/discover": ["silent"], "ping": [{}]}, log), timeout=T) as client:
        assert client.era == "legacy" and client.protocol_version == "2025-11-25"
        client.ping(timeout=T)
    assert time.monotonic() - started < T / 2  # never the whole timeout
    messages = sent(log)
    assert [m.get("method") for m in messages] == [
        "server/discover",
        "initialize",
        "notifications/initialized",
        "notifications/cancelled",
        "ping",
    ]
    assert messages[3]["params"]["requestId"] == messages[0]["id"]
    assert all("_meta" not in (m.get("params") or {}) for m in messages[1:])


def test_a_late_method_not_found_leaves_the_handshake_to_decide(tmp_path):
    """A legacy server slow to start, which answers the discover with -32601 and then takes the
    handshake: the legacy era; nothing to cancel (the discover was answered)."""
    log = tmp_path / "received.jsonl"
    not_found = {"error": {"code": -32601, "message": "Method not found"}}
    script = {"server/discover": [{"after": LATE, "answer": not_found}]}
    with mcpsync.connect(scripted_server(script, log), timeout=T) as client:
        assert client.era == "legacy"
    assert [m.get("method") for m in sent(log)] == ["server/discover", "initialize", "notifications/initialized"]


def test_a_legacy_servers_refusal_of_the_handshake_is_the_answer_at_once():
    """``initialize`` refused with a legacy error while the discover is unanswered: that error, now;
    not the caller's whole timeout waiting for a discover that never comes."""
    script = {"server/discover": ["silent"], "initialize": [{"error": {"code": -32602, "message": "bad version"}}]}
    started = time.monotonic()
    with pytest.raises(mcpsync.ServerError, match="bad version"):
        mcpsync.connect(scripted_server(script), timeout=T)
    assert time.monotonic() - started < T / 2


def test_a_refusal_as_modern_waits_for_the_discover_within_the_timeout():
    """-32022 to ``initialize`` and a discover that never comes: a timeout, at the caller's timeout."""
    script = {"server/discover": ["silent"], "initialize": [SERVING_MODERN]}
    started = time.monotonic()
    with pytest.raises(mcpsync.RequestTimeout) as info:
        mcpsync.connect(scripted_server(script), timeout=0.6)
    assert info.value.timeout == 0.6
    assert 0.55 < time.monotonic() - started < T / 2


def test_a_server_that_answers_nothing_times_out_at_the_callers_timeout():
    """Neither answered: ``RequestTimeout`` for ``initialize`` with the timeout given, nothing left behind."""
    script = {"server/discover": ["silent"], "initialize": ["silent"]}
    with pytest.raises(mcpsync.RequestTimeout) as info:
        mcpsync.connect(scripted_server(script), timeout=0.6)
    assert info.value.method == "initialize" and info.value.timeout == 0.6


def test_the_era_forced_modern_waits_for_the_discover_alone(tmp_path):
    """``protocol="2026-07-28"`` never races: the discover has the caller's whole timeout."""
    log = tmp_path / "received.jsonl"
    script = {"server/discover": [{"after": LATE, "answer": DISCOVER}]}
    with mcpsync.connect(scripted_server(script, log), protocol="2026-07-28", timeout=T) as client:
        assert client.era == "modern"
    assert [m.get("method") for m in sent(log)] == ["server/discover"]
