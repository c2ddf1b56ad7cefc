"""Interoperability with the official MCP SDK's low-level ``Server``, over stdio and Streamable HTTP.

tests/interop/official_lowlevel_server.py declares what the SDK's ``MCPServer`` does
not: resource subscriptions and the logging capability, and a tool whose
structured content breaks its own ``outputSchema``. Each test runs once per
transport; the HTTP server is started once for the module.
"""

from __future__ import annotations

import logging
import sys
import threading
from collections.abc import Iterator
from typing import Any, Callable

import pytest

pytest.importorskip("mcp.server.lowlevel")

import mcpsync
from tests.helpers import wait_for
from tests.http_server import stop
from tests.interop.official import LOWLEVEL_SERVER_SCRIPT, TIMEOUT, client_opener, start_server

pytestmark = pytest.mark.official

COUNTER = "memo://counter"
MCP_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")


@pytest.fixture(scope="module", params=["stdio", "http"])
def target(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Any]]:
    """(label, what to connect to): a command (a fresh server per client), or the URL of one HTTP server."""
    if request.param == "stdio":
        yield "lowlevel-stdio", [sys.executable, str(LOWLEVEL_SERVER_SCRIPT), "stdio"]
        return
    running = start_server("sse-replies", tmp_path_factory.mktemp("official-lowlevel"), LOWLEVEL_SERVER_SCRIPT)
    try:
        yield "lowlevel-http", running.url
    finally:
        stop(running.process, 5)


@pytest.fixture
def open_client(target: tuple[str, Any]) -> Iterator[Callable[..., mcpsync.Client]]:
    """Connect to the target; every client is closed afterwards."""
    label, where = target
    with client_opener(where, label) as open_:
        yield open_


def test_capabilities_declare_subscribe_and_logging(open_client: Callable[..., mcpsync.Client]) -> None:
    client = open_client()
    assert client.server_info is not None and client.server_info.name == "official-lowlevel-test"
    assert client.server_capabilities["resources"]["subscribe"] is True
    assert "logging" in client.server_capabilities


def test_subscription_brings_updates_until_unsubscribed(open_client: Callable[..., mcpsync.Client]) -> None:
    updated: list[tuple[str, str]] = []
    client = open_client(on_resource_updated=lambda uri: updated.append((uri, threading.current_thread().name)))
    before = int(client.read_resource(COUNTER).contents[0].text or "")

    client.subscribe_resource(COUNTER)
    assert client.call_tool("subscriptions", {}).text == COUNTER
    assert client.call_tool("bump", {}).text == str(before + 1)
    assert wait_for(lambda: len(updated) == 1)
    assert updated[0][0] == COUNTER
    assert updated[0][1].startswith("mcpsync-dispatch-")  # the user's callback never runs on a transport thread
    assert client.read_resource(COUNTER).contents[0].text == str(before + 1)

    client.unsubscribe_resource(COUNTER)
    assert client.call_tool("subscriptions", {}).text == ""
    client.call_tool("bump", {})
    client.ping()  # an update the server sent before this answer would have arrived by now
    assert len(updated) == 1


@pytest.mark.parametrize("level", ["debug", "warning", "critical"])
def test_logging_level_and_messages(
    open_client: Callable[..., mcpsync.Client], level: str, caplog: pytest.LogCaptureFixture
) -> None:
    received: list[tuple[Any, Any, Any]] = []
    client = open_client(on_log=lambda *entry: received.append(entry))
    client.set_logging_level(level)
    expected = MCP_LEVELS[MCP_LEVELS.index(level) :]
    with caplog.at_level(logging.DEBUG, logger="mcpsync.server"):
        assert client.call_tool("log_levels", {}).text == ",".join(expected)
        assert wait_for(lambda: len(received) == len(expected))
    assert received == [(name, "levels", {"level": name}) for name in expected]
    python_levels = {  # as the README documents: the levels without a Python name sit between those that have one
        "debug": logging.DEBUG,
        "info": logging.INFO,
        "notice": logging.INFO + 5,
        "warning": logging.WARNING,
        "error": logging.ERROR,
        "critical": logging.CRITICAL,
        "alert": logging.CRITICAL + 5,
        "emergency": logging.CRITICAL + 10,
    }
    logged = [(r.levelno, r.getMessage()) for r in caplog.records if r.name.startswith("mcpsync.server.")]
    assert logged == [(python_levels[name], f'[levels] {{"level": "{name}"}}') for name in expected]


def test_set_logging_level_rejects_an_unknown_level(open_client: Callable[..., mcpsync.Client]) -> None:
    client = open_client()
    with pytest.raises(ValueError, match="verbose"):
        client.set_logging_level("verbose")


def test_output_schema_mismatch(open_client: Callable[..., mcpsync.Client]) -> None:
    client = open_client()
    with pytest.raises(mcpsync.OutputSchemaError, match=r"'wrong_output'.*'three' is not of type 'integer'.*\$\.total"):
        client.call_tool("wrong_output", {})
    lenient = open_client(validate_structured_output=False)
    result = lenient.call_tool("wrong_output", {})
    assert result.structured_content == {"total": "three"}
    assert client.call_tool("bump", {}, timeout=TIMEOUT).is_error is False  # the client is still usable


UNDECLARED = [sys.executable, str(LOWLEVEL_SERVER_SCRIPT), "stdio-undeclared"]


@pytest.mark.parametrize("protocol", ["legacy", "modern"])
def test_a_server_that_declares_nothing_is_still_asked(protocol: str) -> None:
    """The SDK's server declaring ``capabilities: {}`` while serving tools and resources: the typed
    methods send their requests and get answers; prompts/list, which it does not serve, gets a
    CapabilityNotServed (also a ServerError with the server's -32601) naming ``prompts``."""
    with mcpsync.connect(UNDECLARED, protocol=protocol, timeout=TIMEOUT) as client:
        assert client.era == protocol and client.server_capabilities == {}
        assert [tool.name for tool in client.list_tools()][:2] == ["bump", "subscriptions"]
        assert client.call_tool("bump", {}).text == "1"
        assert client.read_resource(COUNTER).text == "1"
        with pytest.raises(mcpsync.CapabilityNotServed) as caught:
            client.list_prompts()
    error = caught.value
    assert isinstance(error, mcpsync.CapabilityNotDeclared) and isinstance(error, mcpsync.ServerError)
    assert (error.code, error.method, error.capability) == (-32601, "prompts/list", "prompts")
    assert "does not declare the 'prompts' capability" in str(error)


def test_strict_capabilities_refuse_before_sending() -> None:
    """``strict_capabilities=True`` keeps the old rule: nothing is sent for an undeclared capability."""
    with mcpsync.connect(UNDECLARED, protocol="legacy", strict_capabilities=True, timeout=TIMEOUT) as client:
        sent = client.stats.sent
        with pytest.raises(mcpsync.CapabilityNotDeclared) as caught:
            client.list_tools()
        assert client.stats.sent == sent
        assert not isinstance(caught.value, mcpsync.ServerError) and caught.value.capability == "tools"


def test_a_manager_lists_the_tools_of_a_server_that_declares_nothing() -> None:
    """The Manager asks an under-declaring server for its tools (and none of its prompts, -32601, is an error);
    passed ``strict_capabilities`` through ``client_options``, it asks nothing."""
    config = {"mcpServers": {"bare": {"command": UNDECLARED[0], "args": UNDECLARED[1:]}}}
    with mcpsync.Manager(config, startup_timeout=TIMEOUT) as manager:
        assert "bare__bump" in [tool.name for tool in manager.list_tools()]
        assert manager.list_prompts(timeout=TIMEOUT) == []
    with mcpsync.Manager(config, startup_timeout=TIMEOUT, client_options={"strict_capabilities": True}) as manager:
        assert manager.list_tools() == []


def test_structured_content_that_is_an_array(open_client: Callable[..., mcpsync.Client]) -> None:
    """The SDK's server answers ``users`` with an array (its types take any JSON value): typed and checked
    against the tool's array outputSchema, in the 2026-07-28 era (the unfixed client refused it with a
    ProtocolError)."""
    client = open_client(protocol="modern")
    result = client.call_tool("users", {}, timeout=TIMEOUT)
    assert result.structured_content == [{"name": "Alice"}, {"name": "Bob"}]
    assert result.has_structured_content and result.text == "Alice, Bob"


def test_a_private_read_is_served_again_only_in_its_authorization_context(
    open_client: Callable[..., mcpsync.Client],
) -> None:
    """The SDK's server reads ``memo://counter`` with ``ttlMs`` ten minutes and ``cacheScope`` private,
    then public (2026-07-28). Private: served from the cache while the credentials stay the same, asked
    again once they are another's (here, the transport's fingerprint changes). Public: served to any.
    The unfixed client served a private read to another authorization context."""
    client = open_client(protocol="modern")
    client.call_tool("cache_scope", {"scope": "private"}, timeout=TIMEOUT)
    first = int(client.read_resource(COUNTER, cache=False, timeout=TIMEOUT).text)
    client.call_tool("bump", {}, timeout=TIMEOUT)
    assert int(client.read_resource(COUNTER, timeout=TIMEOUT).text) == first, "fresh, the same context"
    client.transport.authorization_context = lambda: "another user"  # type: ignore[method-assign]
    assert int(client.read_resource(COUNTER, timeout=TIMEOUT).text) == first + 1
    client.call_tool("cache_scope", {"scope": "public"}, timeout=TIMEOUT)
    public = int(client.read_resource(COUNTER, cache=False, timeout=TIMEOUT).text)
    client.call_tool("bump", {}, timeout=TIMEOUT)
    client.transport.authorization_context = lambda: "a third user"  # type: ignore[method-assign]
    assert int(client.read_resource(COUNTER, timeout=TIMEOUT).text) == public, "public: any context"
    client.call_tool("cache_scope", {"scope": "private"}, timeout=TIMEOUT)
