"""One managed server's supervisor: its state, its client, and the thread that connects it again and again.

A ``ServerSupervisor`` owns everything about one server of a ``Manager``: where it is
(``ServerState``), its client, the tools it offers (live, last known while it reconnects, or
from the tool cache while it first connects), its entry in the tool cache, and the thread
(``mcpsync-manager-<name>``) that runs attempts (``attempt.connect_once``) and sleeps between
them as the ``ReconnectPolicy`` says. Client callbacks (a lost connection, tools/list_changed)
arrive here from the client's threads.

It knows its manager only through a ``ManagerLink``: the lock that guards every supervisor
(the manager reads them all at once to name tools), the latch that wakes callers waiting for
a change, the connect slots, the policy, settings and tool cache, and one callback,
``announce_tools`` (the tools on offer changed: tell the user). The manager, for its part,
reads ``tools_revision`` to know when to name the tools again.

States::

    IDLE          not started (``start="lazy"`` with a fresh cached tool list): its cached tools are
                  offered; the first ``client_within`` (a call of one of them) starts it -> CONNECTING
    CONNECTING    the first attempt; one that fails -> FAILED (the policy's retries go on)
    CONNECTED     -> RECONNECTING when lost; -> FAILED when lost in a crash loop, or with reconnection off
    RECONNECTING  attempts with backoff -> CONNECTED, or -> FAILED once they are used up
    FAILED        slow retries -> CONNECTED when one succeeds
    DISABLED      switched off in the configuration: never started
    CLOSED        after stop() and join()
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Optional

from .._core.errors import MCPError, ServerUnavailable, TransportClosed
from .._core.timeouts import DEFAULT_TIMEOUT, USE_DEFAULT, Timeout, resolve_timeout
from .._session.client import Client
from .._session.models import Tool
from .._threads.latches import Changes
from .._wire.config import HTTPServerConfig, ServerConfig
from .attempt import ConnectSettings, connect_once
from .config_files import ServerEntry
from .reconnect import ReconnectPolicy
from .records import ServerState, ServerStatus
from .tool_cache import ToolCache
from .tool_filter import ToolFilter, bind_filter

__all__ = ["POLL", "ManagerLink", "ServerSupervisor"]

logger = logging.getLogger("mcpsync.manager")

#: The longest single wait of a supervisor or caller; they look at the state again after it.
POLL = 1.0


@dataclass(frozen=True)
class ManagerLink:
    """What the supervisors of one manager share with it, and the one call they make to it."""

    lock: threading.RLock  # guards every supervisor's state, and the manager's names
    changes: Changes  # notified under ``lock`` on every change of a supervisor's state
    connect_slots: threading.BoundedSemaphore  # connection attempts at the same time
    policy: ReconnectPolicy
    settings: ConnectSettings
    cache: Optional[ToolCache]
    announce_tools: Callable[[], None]  # called without ``lock`` after a server's tools or state changed


class ServerSupervisor:
    """One server of a manager: its state and client, and the thread that keeps it connected.

    Every field is guarded by ``link.lock``: the properties and ``visible_tools`` are read with it
    held by the caller; the other methods take it themselves.
    """

    def __init__(
        self,
        entry: ServerEntry,
        cached_tools: Optional[list[Tool]],
        link: ManagerLink,
        *,
        tool_filter: Optional[ToolFilter] = None,
        idle: bool = False,
        not_cached: Optional[str] = None,
    ) -> None:
        """``idle``: wait, not started, until first used (only with ``cached_tools`` to offer meanwhile);
        ``not_cached``: why there are none (the tool cache's word), said by ``status()`` then."""
        self.entry = entry
        self.name = entry.name
        self.config: Optional[ServerConfig] = entry.config
        self._link = link
        self.tool_filter = tool_filter or ToolFilter()
        #: The last list filtered and what passed: visible_tools() runs under the lock on every naming.
        self._filtered: tuple[Optional[list[Tool]], list[Tool]] = (None, [])
        if not entry.enabled:
            self._state = ServerState.DISABLED
        elif idle and cached_tools is not None:
            self._state = ServerState.IDLE
        else:
            self._state = ServerState.CONNECTING
        #: With ``start="lazy"``: why the server is not idle (``None``: it is, or the manager is eager).
        self._not_idle: Optional[str] = None
        if idle and entry.enabled and cached_tools is None:
            self._not_idle = f"started at once: {not_cached or 'no tool list cached'}"
        self._lazy = idle
        self._client: Optional[Client] = None  # connected (or just lost)
        self._connecting: Optional[Client] = None  # being connected; stop() closes it
        self._tools: Optional[list[Tool]] = None  # live, or last known while reconnecting
        self._cached_tools = cached_tools
        #: A client whose tools changed before it was taken as connected: list them again then.
        self._tools_outdated: Optional[Client] = None
        #: Re-listings begun, and the newest one applied: an older one that ends later is dropped.
        self._relists_begun = 0
        self._relist_applied = 0
        self._error: Optional[BaseException] = None
        self._attempts = 0
        self._quick_deaths = 0
        self._retry_at: Optional[float] = None
        self._revision = 0  # see tools_revision
        self._stopping = False
        self._wake = threading.Event()  # set when its connection is lost, or it is stopped
        self._thread: Optional[threading.Thread] = None

    # -- what the manager reads (under link.lock) ------------------------------------------

    @property
    def state(self) -> ServerState:
        """Where the server is (see the module docstring)."""
        return self._state

    @property
    def error(self) -> Optional[BaseException]:
        """Why it failed, or why its last connection was lost."""
        return self._error

    @property
    def tools_revision(self) -> int:
        """A count that moves whenever ``visible_tools()`` may give another answer (state or tools changed)."""
        return self._revision

    @property
    def connected_client(self) -> Optional[Client]:
        """The client, while the server is connected."""
        return self._client if self._state is ServerState.CONNECTED else None

    @property
    def transport(self) -> str:
        """``"stdio"``, ``"http"`` or ``"sse"``: the connected client's (an entry without ``type`` may
        have fallen back to HTTP+SSE), else the configured one."""
        if self.config is None:
            return ""
        if self._client is not None and self._client.transport.kind:
            return self._client.transport.kind
        return self.config.type if isinstance(self.config, HTTPServerConfig) else "stdio"

    def all_tools(self) -> tuple[list[Tool], bool]:
        """The server's tools known now, filtered or not, and whether they are deferred (calls wait for the server)."""
        if self._state is ServerState.CONNECTED and self._tools is not None:
            return self._tools, False
        if self._state is ServerState.RECONNECTING and self._tools is not None:
            return self._tools, True
        if self._state in (ServerState.IDLE, ServerState.CONNECTING) and self._cached_tools is not None:
            return self._cached_tools, True
        return [], False

    def visible_tools(self) -> tuple[list[Tool], bool]:
        """The tools offered now (``all_tools`` that pass the tool filter), and whether they are deferred."""
        tools, deferred = self.all_tools()
        if not self.tool_filter.active:
            return tools, deferred
        if self._filtered[0] is not tools:
            self._filtered = (tools, [t for t in tools if self.tool_filter.allows(t.name)])
        return self._filtered[1], deferred

    def status(self, now: float) -> ServerStatus:
        """Where the server is, as ``Manager.status()`` reports it (``now``: ``time.monotonic()``)."""
        with self._link.lock:
            tools, _ = self.visible_tools()
            client = self.connected_client
            error = self._error
            return ServerStatus(
                name=self.name,
                state=self._state,
                source=self.entry.source,
                transport=self.transport,
                error=str(error) if error is not None else None,
                stderr_tail=tuple(getattr(error, "stderr_tail", ()) or ()),
                tools=len(tools),
                tools_from_cache=self._state in (ServerState.IDLE, ServerState.CONNECTING) and bool(tools),
                attempts=self._attempts,
                retry_in=max(0.0, self._retry_at - now) if self._retry_at is not None else None,
                server_info=client.server_info if client is not None else None,
                not_idle=self._not_idle,
            )

    # -- what the manager does --------------------------------------------------------------

    def start(self) -> None:
        """Start the supervisor thread, if the server is enabled and it is not running yet (an idle one too)."""
        with self._link.lock:
            if self._thread is not None or self._stopping:
                return
            if self._state is ServerState.IDLE:
                logger.info("manager: server %r: first used; starting it", self.name)
                self._not_idle = "first used"
                self._state = ServerState.CONNECTING
                self._changed()
            elif self._state is not ServerState.CONNECTING:
                return
            self._thread = threading.Thread(target=self._supervise, name=f"mcpsync-manager-{self.name}", daemon=True)
            self._thread.start()

    def deadline(self, timeout: Timeout, started: Optional[float] = None) -> Optional[float]:
        """When a call with ``timeout`` (``USE_DEFAULT``: the server's, else 30 s) begun at ``started`` must end."""
        configured = self.config.timeout if self.config is not None else USE_DEFAULT
        seconds = resolve_timeout(timeout, DEFAULT_TIMEOUT if configured is USE_DEFAULT else configured)
        return None if seconds is None else (time.monotonic() if started is None else started) + seconds

    def client_within(self, deadline: Optional[float]) -> Client:
        """The connected client, waiting while the server connects or reconnects; an idle server is started.

        Raises:
            ServerUnavailable: it is disabled, failed or closed, or did not connect by ``deadline``.
        """
        while True:
            with self._link.lock:
                if self._stopping:
                    raise ServerUnavailable(f"server {self.name!r}: the manager is closed", state="closed")
                if self._state is ServerState.IDLE:
                    self.start()  # under the lock: of the threads that find it idle, one starts it
                if self._state is ServerState.CONNECTED and self._client is not None:
                    if self._client.is_connected:
                        return self._client
                    # Lost a moment ago: its callers are failed before the supervisor is told. Wait for the news.
                elif self._state not in (ServerState.CONNECTING, ServerState.RECONNECTING):
                    why = f": {self._error}" if self._error is not None else ""
                    raise ServerUnavailable(
                        f"server {self.name!r} is unavailable ({self._state.value}){why}", state=self._state
                    ) from self._error
                remaining = POLL if deadline is None else min(POLL, deadline - time.monotonic())
                if remaining <= 0:
                    why = f" (last error: {self._error})" if self._error is not None else ""
                    raise ServerUnavailable(
                        f"server {self.name!r} is still {self._state.value}; the call's time ran out{why}",
                        state=self._state,
                    )
                changed = self._link.changes.current()
            changed.wait(remaining)

    def relist(self, client: Client) -> bool:
        """List the server's tools again (after tools/list_changed); ``True`` if that took effect.

        Runs on the client's dispatch thread, or the supervisor's. Of two re-listings that
        overlap, the one begun last is kept; a client not yet taken as connected lists again
        once it is.
        """
        with self._link.lock:
            self._relists_begun += 1
            number = self._relists_begun
        try:
            tools = client.list_tools()
        except MCPError as exc:
            logger.warning("manager: server %r: could not list its changed tools: %s", self.name, exc)
            return False
        with self._link.lock:
            if self._client is not client:
                if not self._stopping:
                    self._tools_outdated = client  # still connecting: it lists again once connected
                return False
            if number < self._relist_applied:
                return True  # a re-listing begun after this one has been applied already
            self._relist_applied = number
            self._tools = sorted(tools, key=lambda t: t.name)
            self._changed()
        self._save_tools(client, tools)
        self._link.announce_tools()
        return True

    def stop(self) -> list[Client]:
        """Tell the thread to stop (it ends within ``POLL``); returns the clients for the caller to close."""
        with self._link.lock:
            self._stopping = True
            self._wake.set()
            return [c for c in (self._client, self._connecting) if c is not None]

    def join(self, deadline: float) -> None:
        """Wait (until ``deadline``, a ``time.monotonic()``) for the stopped thread; the server is then closed."""
        if self._thread is not None:
            self._thread.join(max(0.0, deadline - time.monotonic()))
            if self._thread.is_alive():
                logger.warning("manager: supervisor of %r still running after close", self.name)
        with self._link.lock:
            if self._state is not ServerState.DISABLED:
                self._state = ServerState.CLOSED
            self._client = None
            self._changed()

    # -- the thread ---------------------------------------------------------------------------

    def _supervise(self) -> None:
        was_connected = False
        while not self._stopping:
            client: Optional[Client] = None
            failure: Optional[BaseException] = None
            if not self._take_connect_slot():
                break
            try:
                client = self._attempt()
            except Exception as exc:
                failure = exc
            finally:
                self._link.connect_slots.release()
            if self._stopping:
                if client is not None:
                    client.close()
                break
            if client is None:
                assert failure is not None
                if not self._failed_attempt(failure, was_connected):
                    break
                continue
            was_connected = True
            connected_at = time.monotonic()
            while not self._stopping and client.is_connected:
                self._wake.wait(POLL)
            if self._stopping:
                break
            lost = client.transport.closed_error()
            client.close()
            if not self._lost(lost, time.monotonic() - connected_at):
                break

    def _take_connect_slot(self) -> bool:
        while not self._stopping:
            if self._link.connect_slots.acquire(timeout=POLL):
                return True
        return False

    def _attempt(self) -> Client:
        """One attempt, and what its success changes. Returns the connected client."""
        self._wake.clear()
        try:
            client, tools = connect_once(
                self.entry,
                self._link.settings,
                adopt=self._adopt,
                on_tools_changed=self.relist,
                on_lost=self._connection_lost,
            )
        finally:
            with self._link.lock:
                self._connecting = None
        with self._link.lock:
            stopping = self._stopping
            if not stopping:
                self._client = client
                self._tools = sorted(tools, key=lambda t: t.name)
                self._state = ServerState.CONNECTED
                self._error = None
                self._attempts = 0
                self._retry_at = None
                outdated, self._tools_outdated = self._tools_outdated is client, None
                self._changed()
        if stopping:
            client.close()
            raise TransportClosed("the manager is closing")
        logger.info("manager: server %r connected (%d tools)", self.name, len(tools))
        if outdated and self.relist(client):
            return client  # list_changed came while we connected: the list above may predate it
        self._save_tools(client, tools)
        self._link.announce_tools()
        return client

    def _adopt(self, client: Client) -> bool:
        """Take a client just made as the one being connected; ``False`` if stopping (the caller closes it)."""
        with self._link.lock:
            if self._stopping:
                return False
            self._connecting = client
        bind_filter(client, self)
        return True

    def _failed_attempt(self, failure: BaseException, was_connected: bool) -> bool:
        """Record a failed attempt and sleep until the next one; ``False``: no next one."""
        policy = self._link.policy
        with self._link.lock:
            self._attempts += 1
            self._error = failure
            delay = policy.after_failed_attempt(self._attempts)
            backing_off = delay is not None and self._attempts <= policy.max_attempts
            self._state = ServerState.RECONNECTING if was_connected and backing_off else ServerState.FAILED
            self._retry_at = None if delay is None else time.monotonic() + delay
            self._changed()
        later = "no further attempt" if delay is None else f"next attempt in {delay:.1f}s"
        # The first failure is news; the retries that follow are routine.
        level = logging.WARNING if self._attempts == 1 else logging.INFO
        logger.log(level, "manager: server %r: %s (%s)", self.name, failure, later)
        self._link.announce_tools()
        return delay is not None and self._sleep(delay)

    def _lost(self, lost: BaseException, lived: float) -> bool:
        """Record a lost connection and sleep until the next attempt; ``False``: no next one."""
        policy = self._link.policy
        with self._link.lock:
            self._error = lost
            self._client = None
            self._quick_deaths = self._quick_deaths + 1 if lived < policy.crash_loop_window else 0
            delay = policy.after_loss(self._quick_deaths)
            crash_loop = delay is not None and policy.is_crash_loop(self._quick_deaths)
            self._state = ServerState.RECONNECTING if delay is not None and not crash_loop else ServerState.FAILED
            if crash_loop:
                self._error = TransportClosed(
                    f"{self.name}: crash loop: died {self._quick_deaths} times within "
                    f"{policy.crash_loop_window:g}s of connecting; next attempt in {delay:.0f}s",
                    exit_code=getattr(lost, "exit_code", None),
                    stderr_tail=getattr(lost, "stderr_tail", ()),
                )
            self._retry_at = None if delay is None else time.monotonic() + delay
            self._changed()
        logger.warning("manager: server %r lost: %s", self.name, lost)
        self._link.announce_tools()
        return delay is not None and self._sleep(delay)

    def _sleep(self, delay: float) -> bool:
        """Wait ``delay`` seconds; ``False`` if stopped meanwhile."""
        # The loss that ended the last connection set it; left set, every wait below would return at once
        # (a busy spin). stop() sets _stopping before it sets _wake, and each wait is at most POLL.
        self._wake.clear()
        deadline = time.monotonic() + delay
        while not self._stopping:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return True
            self._wake.wait(min(POLL, remaining))
        return False

    def _connection_lost(self, client: Client) -> None:
        # A transport thread: only note it and wake the supervisor thread.
        with self._link.lock:
            if self._client is client and not self._stopping and self._state is ServerState.CONNECTED:
                self._state = ServerState.RECONNECTING if self._link.policy.enabled else ServerState.FAILED
                self._changed()
        self._wake.set()

    def _changed(self) -> None:
        # Under the lock: the state or tools changed. The manager names the tools again when it next
        # reads them; callers waiting for a change wake.
        self._revision += 1
        self._link.changes.notify_all()

    def _save_tools(self, client: Client, tools: list[Tool]) -> None:
        if self._link.cache is None or self.config is None:
            return
        raw = [dict(t.raw) for t in tools]
        scope, whole = client.cache_scope("tools"), client.transport.context_in_config()
        why = self._link.cache.put(self.name, self.config, raw, scope, context_in_config=whole)
        if why is not None and self._lazy:
            with self._link.lock:
                self._not_idle = f"started on every run: {why}"
