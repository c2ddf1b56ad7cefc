"""ServerSupervisor on its own: one server's states, its thread, its reconnects, through its ManagerLink.

No Manager here: the link's callback records what a supervisor tells its manager (and
whether it holds the shared lock when it does), so each test sees the interface itself. The servers are real (mcpsync's test server over stdio, or a command that exits).
"""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path
from typing import Any, Optional

import pytest

import mcpsync
from mcpsync._manager.attempt import ConnectSettings
from mcpsync._manager.config_files import parse_config
from mcpsync._manager.reconnect import ReconnectPolicy
from mcpsync._manager.records import ServerState
from mcpsync._manager.supervisor import ManagerLink, ServerSupervisor
from mcpsync._manager.tool_cache import ToolCache
from mcpsync._threads.latches import Changes
from tests.helpers import wait_for

T = 20.0


class Host:
    """A stand-in manager: the link's shared objects, and a record of every callback."""

    def __init__(self, tmp_path: Path, **policy: Any) -> None:
        self.lock = threading.RLock()
        self.cache = ToolCache(tmp_path / "tools.json")
        #: At each announce_tools: (state, tools deferred, the lock held, tools_revision).
        self.announced: list[tuple[ServerState, bool, bool, int]] = []
        self.supervisor: Optional[ServerSupervisor] = None
        policy.setdefault("backoff", (0.05, 0.5))
        self.link = ManagerLink(
            lock=self.lock,
            changes=Changes(),
            connect_slots=threading.BoundedSemaphore(1),
            policy=ReconnectPolicy(**policy),
            settings=ConnectSettings({}, stderr="quiet"),
            cache=self.cache,
            announce_tools=self.announce_tools,
        )

    def supervise(self, entry: dict[str, Any], name: str = "s") -> ServerSupervisor:
        self.supervisor = ServerSupervisor(parse_config({"mcpServers": {name: entry}}).servers[name], None, self.link)
        return self.supervisor

    def held(self) -> bool:
        """Whether the calling thread holds the lock (another thread cannot take it then)."""
        taken: list[bool] = []

        def attempt() -> None:
            taken.append(self.lock.acquire(blocking=False))
            if taken[0]:
                self.lock.release()

        probe = threading.Thread(target=attempt)
        probe.start()
        probe.join(T)
        return not taken[0]

    def announce_tools(self) -> None:
        supervisor = self.supervisor
        assert supervisor is not None
        self.announced.append((supervisor.state, supervisor.visible_tools()[1], self.held(), supervisor.tools_revision))


def ours(*options: str) -> dict[str, Any]:
    return {"command": sys.executable, "args": ["-m", "mcpsync.testing", *options]}


def stop(supervisor: ServerSupervisor) -> list[mcpsync.Client]:
    clients = supervisor.stop()
    for client in clients:
        client.close()
    supervisor.join(time.monotonic() + T)
    return clients


def test_a_reconnect_driven_through_the_supervisor(tmp_path: Path) -> None:
    """Scenario: a connected server crashes. Promise: the supervisor goes CONNECTED, RECONNECTING (its last
    tools offered deferred), CONNECTED with a new client, and announces each outside the shared lock; it writes the tool cache; started twice it runs one thread; stop() hands back the
    live client and join() leaves it CLOSED; every change moves ``tools_revision``, which the manager names by."""
    host = Host(tmp_path)
    supervisor = host.supervise(ours())
    assert supervisor.state is ServerState.CONNECTING
    supervisor.start()
    supervisor.start()
    try:
        first = supervisor.client_within(time.monotonic() + T)
        assert [t.name for t in threading.enumerate()].count("mcpsync-manager-s") == 1
        assert supervisor.connected_client is first and supervisor.visible_tools()[1] is False
        assert supervisor.config is not None and host.cache.get("s", supervisor.config)
        with pytest.raises(mcpsync.TransportClosed):
            first.call_tool("crash", {"code": 5}, timeout=T)
        assert wait_for(lambda: supervisor.connected_client not in (None, first), T)
        status = supervisor.status(time.monotonic())
        assert status.state is ServerState.CONNECTED and status.tools > 0 and status.error is None
        # The state changes under the lock; its announcement follows outside it, a moment later.
        assert wait_for(lambda: len(host.announced) >= 3, T)
        assert [entry[:3] for entry in host.announced] == [
            (ServerState.CONNECTED, False, False),
            (ServerState.RECONNECTING, True, False),
            (ServerState.CONNECTED, False, False),
        ]
        revisions = [entry[3] for entry in host.announced]
        assert revisions == sorted(set(revisions)) and revisions[0] > 0
        second = supervisor.connected_client
        before_close = supervisor.tools_revision
    finally:
        clients = stop(supervisor)
    assert clients == [second] and supervisor.tools_revision > before_close
    assert supervisor.state is ServerState.CLOSED and supervisor.connected_client is None
    with pytest.raises(mcpsync.ServerUnavailable, match="closed"):
        supervisor.client_within(time.monotonic() + T)


def test_a_server_that_cannot_start_fails_and_waits_for_its_next_attempt(tmp_path: Path) -> None:
    """Scenario: the command exits at once; backoff 3 s. Promise: CONNECTING, then FAILED with one attempt
    counted, the exit in its error and the next try in ``retry_in``; a caller is refused, not kept
    waiting for the retry."""
    host = Host(tmp_path, backoff=(3.0, 3.0))
    supervisor = host.supervise({"command": sys.executable, "args": ["-c", "import sys; sys.exit(3)"]})
    supervisor.start()
    try:
        assert wait_for(lambda: supervisor.state is ServerState.FAILED, T)
        status = supervisor.status(time.monotonic())
        assert status.attempts == 1 and status.error is not None and "code 3" in status.error
        assert status.retry_in is not None and 0 < status.retry_in <= 3.0
        # The state changes under the lock; its announcement follows outside it, a moment later.
        assert wait_for(lambda: len(host.announced) >= 1, T)
        assert host.announced == [(ServerState.FAILED, False, False, 1)]
        # Refused as failed, not waited for until the deadline ("is still failed; the call's time ran out").
        with pytest.raises(mcpsync.ServerUnavailable, match=r"unavailable \(failed\)"):
            supervisor.client_within(time.monotonic() + T)
    finally:
        assert stop(supervisor) == []
    assert supervisor.state is ServerState.CLOSED


def test_a_disabled_server_is_never_started(tmp_path: Path) -> None:
    """Scenario: an entry switched off. Promise: DISABLED, ``start()`` runs no thread, a caller is told it is
    disabled, and closing leaves it DISABLED."""
    host = Host(tmp_path)
    supervisor = host.supervise({**ours(), "disabled": True}, name="off")
    supervisor.start()
    assert supervisor.state is ServerState.DISABLED
    assert "mcpsync-manager-off" not in [t.name for t in threading.enumerate()]
    assert supervisor.status(time.monotonic()).transport == ""
    with pytest.raises(mcpsync.ServerUnavailable, match="disabled"):
        supervisor.client_within(time.monotonic() + T)
    stop(supervisor)
    assert supervisor.state is ServerState.DISABLED and host.announced == []
