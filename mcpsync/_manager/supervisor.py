"""The manager's supervisors: one thread per server that connects it, watches it, and connects it again.

``Supervision`` is the part of ``Manager`` that runs on those threads (and the
callbacks clients make from theirs): one attempt (start, handshake, list the
tools), what a failed attempt or a lost connection changes in the server's
``ServerRecord``, and the sleep until the next attempt as
``ReconnectPolicy`` says. Everything it changes is under the manager's lock,
and every change wakes the callers waiting for one (``Changes``).
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from typing import Any, Optional

from .._core.errors import MCPError, RequestTimeout, TransportClosed
from .._core.timeouts import USE_DEFAULT, Deadline, Timeout, resolve_timeout
from .._session.client import Client
from .._session.connect import handshake, transport_auth
from .._session.models import Tool
from .._session.server_capabilities import items_served
from .._wire import create_transport
from .._wire.config import HTTPServerConfig, ServerConfig, StdioServerConfig
from .._threads.latches import Changes
from .config_files import ServerEntry
from .reconnect import ReconnectPolicy
from .records import ServerState

__all__ = ["POLL", "ServerRecord", "Supervision"]

logger = logging.getLogger("mcpsync.manager")

#: The longest single wait of a supervisor or caller; they look at the state again after it.
POLL = 1.0


class ServerRecord:
    """The manager's record of one server; guarded by the manager's lock."""

    def __init__(self, entry: ServerEntry, cached: Optional[list[Tool]]) -> None:
        self.entry = entry
        self.name = entry.name
        self.config: Optional[ServerConfig] = entry.config
        self.state = ServerState.CONNECTING if entry.enabled else ServerState.DISABLED
        self.client: Optional[Client] = None  # connected (or just lost)
        self.connecting: Optional[Client] = None  # being connected; close() closes it
        self.tools: Optional[list[Tool]] = None  # live, or last known while reconnecting
        #: A client whose tools changed before it was taken as connected: list them again then.
        self.tools_outdated: Optional[Client] = None
        #: Re-listings begun, and the newest one applied: an older one that ends later is dropped.
        self.relists_begun = 0
        self.relist_applied = 0
        self.cached_tools = cached
        self.error: Optional[BaseException] = None
        self.attempts = 0
        self.quick_deaths = 0
        self.retry_at: Optional[float] = None
        self.wake = threading.Event()  # set when its connection is lost, or the manager closes
        self.thread: Optional[threading.Thread] = None

    @property
    def transport(self) -> str:
        """``"stdio"``, ``"http"`` or ``"sse"``: the connected client's (an entry without ``type`` may
        have fallen back to HTTP+SSE), else the configured one."""
        if self.config is None:
            return ""
        if self.client is not None and self.client.transport.kind:
            return self.client.transport.kind
        return self.config.type if isinstance(self.config, HTTPServerConfig) else "stdio"

    def visible_tools(self) -> tuple[list[Tool], bool]:
        """The tools offered now, and whether they are deferred (calls wait for the server)."""
        if self.state is ServerState.CONNECTED and self.tools is not None:
            return self.tools, False
        if self.state is ServerState.RECONNECTING and self.tools is not None:
            return self.tools, True
        if self.state is ServerState.CONNECTING and self.cached_tools is not None:
            return self.cached_tools, True
        return [], False


class Supervision:
    """The supervisor threads' part of ``Manager`` (which sets the attributes below and the tool helpers)."""

    _lock: threading.RLock
    _changes: Changes
    _closing: bool
    _connect_slots: threading.BoundedSemaphore
    _client_options: dict[str, Any]
    connect_timeout: Timeout
    stderr: Optional[str]
    policy: ReconnectPolicy

    def _rename_tools(self) -> None:
        raise NotImplementedError

    def _announce_tools(self) -> None:
        raise NotImplementedError

    def _save_tools(self, server: ServerRecord, tools: list[Tool], scope: Optional[str] = None) -> None:
        raise NotImplementedError

    def _supervise(self, server: ServerRecord) -> None:
        was_connected = False
        while not self._closing:
            client: Optional[Client] = None
            failure: Optional[BaseException] = None
            if not self._take_connect_slot():
                break
            try:
                client = self._connect(server)
            except Exception as exc:
                failure = exc
            finally:
                self._connect_slots.release()
            if self._closing:
                if client is not None:
                    client.close()
                break
            if client is None:
                assert failure is not None
                if not self._failed_attempt(server, failure, was_connected):
                    break
                continue
            was_connected = True
            connected_at = time.monotonic()
            while not self._closing and client.is_connected:
                server.wake.wait(POLL)
            if self._closing:
                break
            lost = client.transport.closed_error()
            client.close()
            if not self._lost(server, lost, time.monotonic() - connected_at):
                break

    def _take_connect_slot(self) -> bool:
        while not self._closing:
            if self._connect_slots.acquire(timeout=POLL):
                return True
        return False

    def _connect(self, server: ServerRecord) -> Client:
        """One attempt: start the server, handshake, list its tools. Returns the connected client."""
        assert server.config is not None
        options = dict(self._client_options)
        user_list_changed = options.pop("on_list_changed", None)
        holder: list[Client] = []

        def on_list_changed(kind: str) -> None:
            if kind == "tools" and holder:
                self._tools_changed(server, holder[0])
            if user_list_changed is not None:
                user_list_changed(kind)

        def on_close(error: Optional[BaseException]) -> None:
            if error is not None and holder:
                self._connection_lost(server, holder[0])

        server.wake.clear()

        def make(config: ServerConfig) -> Client:
            if self.stderr is not None and isinstance(config, StdioServerConfig):
                config = dataclasses.replace(config, stderr=self.stderr)
            client = Client(
                create_transport(config, **_transport_options(server.entry)),
                on_list_changed=on_list_changed,
                on_close=on_close,
                **options,
            )
            holder[:] = [client]
            with self._lock:
                closing = self._closing
                if not closing:
                    server.connecting = client
            if closing:  # closed outside the lock: closing waits for the server and the client's threads
                client.close()
                raise TransportClosed("the manager is closing")
            return client

        # The manager's bound for connecting, else the entry's ("connectTimeout"), else its timeout.
        timeout = self.connect_timeout if self.connect_timeout is not USE_DEFAULT else server.config.connect_timeout
        started = time.monotonic()
        try:
            # A server of an entry without "type" may be an HTTP+SSE one, as with mcpsync.connect.
            client = handshake(make(server.config), server.config, timeout, make)
            try:
                # One bound for the whole attempt: the tool list gets what the handshake left of it
                # (a person's login during the handshake not counted: that was not the caller's time).
                seconds = resolve_timeout(timeout, client.transport.default_timeout)
                left = Deadline(seconds, client._channel, start=started).left(floor=0.001)
                try:
                    # A server that does not declare tools is asked anyway (many under-declare), unless strict.
                    tools = items_served(
                        lambda: client.list_tools(timeout=left),
                        client.server_capabilities,
                        "tools/list",
                        strict=client.strict_capabilities,
                    )
                except RequestTimeout:
                    raise RequestTimeout("tools/list", seconds or 0.0) from None  # the bound given, not what was left
            except BaseException:
                client.close()
                raise
        finally:
            with self._lock:
                server.connecting = None
        with self._lock:
            closing = self._closing
            if not closing:
                server.client = client
                server.tools = sorted(tools, key=lambda t: t.name)
                server.state = ServerState.CONNECTED
                server.error = None
                server.attempts = 0
                server.retry_at = None
                outdated, server.tools_outdated = server.tools_outdated is client, None
                self._rename_tools()
                self._changes.notify_all()
        if closing:
            client.close()
            raise TransportClosed("the manager is closing")
        logger.info("manager: server %r connected (%d tools)", server.name, len(tools))
        if outdated and self._tools_changed(server, client):
            return client  # list_changed came while we connected: the list above may predate it
        self._save_tools(server, tools, client.cache_scope("tools"))
        self._announce_tools()
        return client

    def _failed_attempt(self, server: ServerRecord, failure: BaseException, was_connected: bool) -> bool:
        """Record a failed attempt and sleep until the next one; ``False``: no next one."""
        with self._lock:
            server.attempts += 1
            server.error = failure
            delay = self.policy.after_failed_attempt(server.attempts)
            backing_off = delay is not None and server.attempts <= self.policy.max_attempts
            server.state = ServerState.RECONNECTING if was_connected and backing_off else ServerState.FAILED
            server.retry_at = None if delay is None else time.monotonic() + delay
            self._rename_tools()
            self._changes.notify_all()
        later = "no further attempt" if delay is None else f"next attempt in {delay:.1f}s"
        # The first failure is news; the retries that follow are routine.
        level = logging.WARNING if server.attempts == 1 else logging.INFO
        logger.log(level, "manager: server %r: %s (%s)", server.name, failure, later)
        self._announce_tools()
        return delay is not None and self._sleep(server, delay)

    def _lost(self, server: ServerRecord, lost: BaseException, lived: float) -> bool:
        """Record a lost connection and sleep until the next attempt; ``False``: no next one."""
        with self._lock:
            server.error = lost
            server.client = None
            server.quick_deaths = server.quick_deaths + 1 if lived < self.policy.crash_loop_window else 0
            delay = self.policy.after_loss(server.quick_deaths)
            crash_loop = delay is not None and self.policy.is_crash_loop(server.quick_deaths)
            server.state = ServerState.RECONNECTING if delay is not None and not crash_loop else ServerState.FAILED
            if crash_loop:
                server.error = TransportClosed(
                    f"{server.name}: crash loop: died {server.quick_deaths} times within "
                    f"{self.policy.crash_loop_window:g}s of connecting; next attempt in {delay:.0f}s",
                    exit_code=getattr(lost, "exit_code", None),
                    stderr_tail=getattr(lost, "stderr_tail", ()),
                )
            server.retry_at = None if delay is None else time.monotonic() + delay
            self._rename_tools()
            self._changes.notify_all()
        logger.warning("manager: server %r lost: %s", server.name, lost)
        self._announce_tools()
        return delay is not None and self._sleep(server, delay)

    def _sleep(self, server: ServerRecord, delay: float) -> bool:
        """Wait ``delay`` seconds; ``False`` if the manager closed meanwhile."""
        # The loss that ended the last connection set it; left set, every wait below would return at once
        # (a busy spin). close() sets _closing before it sets wake, and each wait is at most POLL.
        server.wake.clear()
        deadline = time.monotonic() + delay
        while not self._closing:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return True
            server.wake.wait(min(POLL, remaining))
        return False

    # -- callbacks from clients (reader and dispatch threads) ----------------------------------

    def _connection_lost(self, server: ServerRecord, client: Client) -> None:
        # A transport thread: only note it and wake the supervisor.
        with self._lock:
            if server.client is client and not self._closing and server.state is ServerState.CONNECTED:
                server.state = ServerState.RECONNECTING if self.policy.enabled else ServerState.FAILED
                self._changes.notify_all()
        server.wake.set()

    def _tools_changed(self, server: ServerRecord, client: Client) -> bool:
        """List a server's tools again (after ``list_changed``); ``True`` if that took effect."""
        # The client's dispatch thread, after notifications/tools/list_changed; or the supervisor.
        with self._lock:
            server.relists_begun += 1
            number = server.relists_begun
        try:
            tools = client.list_tools()
        except MCPError as exc:
            logger.warning("manager: server %r: could not list its changed tools: %s", server.name, exc)
            return False
        with self._lock:
            if server.client is not client:
                if not self._closing:
                    server.tools_outdated = client  # still connecting: it lists again once connected
                return False
            if number < server.relist_applied:
                return True  # a re-listing begun after this one has been applied already
            server.relist_applied = number
            server.tools = sorted(tools, key=lambda t: t.name)
            self._rename_tools()
            self._changes.notify_all()
        self._save_tools(server, tools, client.cache_scope("tools"))
        self._announce_tools()
        return True


def _transport_options(entry: ServerEntry) -> dict[str, Any]:
    """An HTTP server's auth from its ``oauth`` settings, and, for a server of a file, the login
    command that names it (``mcpsync login NAME``; else the default, ``--url``)."""
    config = entry.config
    if not isinstance(config, HTTPServerConfig):
        return {}
    options: dict[str, Any] = {}
    if not entry.source.startswith("<"):  # "<dict>", "<command line>": no file to find the name in
        options["login_command"] = f"mcpsync login {entry.name}"
    auth = transport_auth(config)
    if auth is not None:
        options["auth"] = auth
    return options
