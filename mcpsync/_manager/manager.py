"""The manager: many named MCP servers as one thread-safe object.

    with mcpsync.Manager.from_config(".mcp.json") as manager:
        manager.list_tools()                              # qualified names: "github__search_issues"
        manager.call_tool("github__search_issues", {"q": "bug"})
        manager.clients["github"]                         # the connected Client
        manager.status()                                  # per server: connected, failed (+ why), ...

Each enabled server has a ``ServerSupervisor`` (in ``supervisor``) whose thread
(``mcpsync-manager-<name>``) connects it, at most ``max_parallel_connects`` at a time, and connects it again
when its connection is lost, when ``mcpsync.reconnect.ReconnectPolicy`` says:
exponential backoff with jitter, then a slow retry, and a crash-loop breaker
for servers that die right after starting.

The constructor waits ``startup_timeout`` seconds at most. Tools of servers
still connecting then come from the tool cache (``mcpsync.tool_cache``) of an
earlier run, marked ``deferred``; calling one waits for its server within the
call's timeout. A call in flight when its server dies fails with
``TransportClosed`` and is not sent again (it may have had effects) unless
``retry_calls=True`` or the call's ``retry=True``.

With ``start="lazy"``, a server whose tool list is in the cache (and fresh) is not started:
its cached tools are offered at once, the server ``idle``, and the first call of one of them
starts it (``supervisor``). The tool filters of the configuration files (``includeTools``,
``excludeTools``, ``disabledTools``) and of ``include_tools=`` / ``exclude_tools=`` decide
which tools are offered at all (``tool_filter``).
"""

from __future__ import annotations

import logging
import os
import threading
import time
import warnings
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Optional, TypeVar, Union

from .._core.errors import (
    ConfigurationError,
    ConfigurationWarning,
    MCPError,
    ServerUnavailable,
    TransportClosed,
    UnknownNameError,
)
from .._core.text import did_you_mean
from .._core.timeouts import USE_DEFAULT, Timeout, resolve_timeout
from .._session import exit_cleanup, server_capabilities
from .._session.client import Client
from .._session.models import CallToolResult, GetPromptResult, ReadResourceResult, Tool
from .._session.tracebacks import short_interrupts
from .._threads.latches import Changes
from .._threads.signals import DEFERRED
from .._wire.config import STDERR_MODES
from .announcer import Announcer
from .attempt import ConnectSettings
from .config_files import LoadedConfig, load_config, parse_config
from .naming import DEFAULT_SEPARATOR, Collision, qualify_all, server_prefix
from .reconnect import ReconnectPolicy
from .records import ManagedPrompt, ManagedResource, ManagedTool, ServerState, ServerStatus
from .supervisor import POLL as _POLL, ManagerLink, ServerSupervisor
from .tool_cache import ToolCache
from .tool_filter import Patterns, filters_for, unmatched_patterns

__all__ = ["ManagedPrompt", "ManagedResource", "ManagedTool", "Manager", "ServerState", "ServerStatus"]

logger = logging.getLogger("mcpsync.manager")

#: Seconds the constructor waits for servers before serving cached tools.
DEFAULT_STARTUP_TIMEOUT = 3.0
#: Seconds ``close()`` waits for the supervisors and clients (each client's own close is bounded too).
CLOSE_WAIT = 15.0
#: ``start=``: every server at once (``"eager"``), or a server with fresh cached tools on its first use.
START_MODES = ("eager", "lazy")

_T = TypeVar("_T")


class Manager:
    """Many named MCP servers, connected in parallel, behind one thread-safe object.

    Args:
        config: a ``LoadedConfig`` (``mcpsync.load_config``), an ``mcpServers``
            / VS Code style dict (or a bare ``{name: entry}`` dict), or the path
            of a configuration file.
        startup_timeout: seconds the constructor waits for servers to connect (and ``list_tools``, by
            default, for those still connecting with no tools cached).
        connect_timeout: seconds one connection attempt may take (``USE_DEFAULT``: the server's
            configured ``connectTimeout``, else its ``timeout``, else 30 s; ``None``: no limit).
        stderr: what every stdio server's stderr does, in place of each entry's own ``stderr``:
            ``"inherit"`` (each line on ``sys.stderr`` with the server's name in front, the
            default of an entry), ``"log"`` (the logger ``mcpsync.server.<name>``) or ``"quiet"``.
        separator: between server and tool in qualified names.
        tool_cache: ``True`` (the default file in the user cache directory), a
            path, a ``ToolCache``, or ``False`` for none.
        reconnect: connect again when a connection is lost.
        max_reconnect_attempts: attempts with backoff before the slow retry.
        backoff: (first delay, longest delay) in seconds; each delay gets jitter.
        slow_retry_interval: seconds between attempts once the others failed.
        crash_loop_window, crash_loop_limit: a server that dies within the
            window after connecting this many times in a row goes to the slow retry.
        max_parallel_connects: connection attempts at the same time.
        retry_calls: send a tool call again after its server came back, when the
            connection was lost while it was in flight (it may then run twice).
        on_tools_changed: ``fn(tools)`` with the new ``list_tools()`` whenever it
            changes (a server connected or was lost, or sent list_changed); runs
            on a manager or dispatch thread.
        client_options: keyword arguments for every ``Client`` (``sampling=``,
            ``roots=``, ``on_log=``...).
        start: ``"eager"`` (the default): every enabled server is started now. ``"lazy"``: a
            server whose tool list the tool cache holds, fresh, is not: its cached tools are offered
            (``deferred``), ``status()`` says ``idle``, and the first call of one of its tools (or
            ``client(name)``) starts it within that call's timeout. A server without such a list
            is started now, as with ``"eager"``.
        include_tools, exclude_tools: which tools are offered, besides the configuration files'
            ``includeTools`` / ``excludeTools`` / ``disabledTools``: a list of tool names or glob
            patterns (``fnmatch``) for every server, or ``{server: [patterns]}``; a pattern is
            matched against a tool's own name (``search_*``, not ``github__search_*``). A tool is
            offered when every include list that applies matches it and no exclude list does.
            A filtered-out tool is neither listed nor callable (``UnknownNameError`` says which
            rule took it out); a pattern that matches none of its server's tools is a
            ``ConfigurationWarning``.
    """

    def __init__(
        self,
        config: Union[LoadedConfig, Mapping[str, Any], str, os.PathLike[str]],
        *,
        startup_timeout: float = DEFAULT_STARTUP_TIMEOUT,
        connect_timeout: Timeout = USE_DEFAULT,
        stderr: Optional[str] = None,
        separator: str = DEFAULT_SEPARATOR,
        tool_cache: Union[bool, str, os.PathLike[str], ToolCache] = True,
        reconnect: bool = True,
        max_reconnect_attempts: int = 5,
        backoff: tuple[float, float] = (0.5, 30.0),
        slow_retry_interval: float = 60.0,
        crash_loop_window: float = 10.0,
        crash_loop_limit: int = 3,
        max_parallel_connects: int = 8,
        retry_calls: bool = False,
        on_tools_changed: Optional[Callable[[list[ManagedTool]], None]] = None,
        client_options: Optional[Mapping[str, Any]] = None,
        start: str = "eager",
        include_tools: Patterns = None,
        exclude_tools: Patterns = None,
    ) -> None:
        if start not in START_MODES:
            raise ConfigurationError(f"Manager: start must be one of {START_MODES}, not {start!r}")
        if isinstance(config, LoadedConfig):
            self.config = config
        elif isinstance(config, Mapping):
            self.config = parse_config(config)
        else:
            self.config = load_config(config)
        self.separator = separator
        server_prefix("", separator)  # a bad separator fails here, not at the first list
        self.connect_timeout = connect_timeout
        self.startup_timeout = startup_timeout
        if stderr is not None and stderr not in STDERR_MODES:
            raise ConfigurationError(f"Manager: stderr must be one of {STDERR_MODES}, not {stderr!r}")
        self.stderr = stderr
        self.policy = ReconnectPolicy(
            enabled=reconnect,
            max_attempts=max_reconnect_attempts,
            backoff=backoff,
            slow_retry_interval=slow_retry_interval,
            crash_loop_window=crash_loop_window,
            crash_loop_limit=crash_loop_limit,
        )
        self.retry_calls = retry_calls
        self.on_tools_changed = on_tools_changed
        self._client_options = dict(client_options or {})
        for reserved in ("on_close",):
            if reserved in self._client_options:
                raise ValueError(f"client_options may not set {reserved!r}: the manager needs it")
        if tool_cache is True:
            self._cache: Optional[ToolCache] = ToolCache()
        elif tool_cache is False:
            self._cache = None
        elif isinstance(tool_cache, ToolCache):
            self._cache = tool_cache
        else:
            self._cache = ToolCache(tool_cache)
        self._lock = threading.RLock()
        self._changes = Changes()  # notified under _lock; waited on without it (see Changes)
        self._closing = False
        self._announcer = Announcer(
            self._lock, self._managed_tools, lambda: self._closing, lambda: self.on_tools_changed
        )
        self._tool_names: dict[str, tuple[str, str]] = {}  # see _names()
        self._named_revisions: Optional[tuple[int, ...]] = None
        self._collisions: list[Collision] = []
        self._prompt_names: dict[str, tuple[str, str]] = {}
        self._warned: set[tuple[str, str, str]] = set()  # (server or "", rule, pattern) warned about
        filters = filters_for(
            {name: (entry.raw, entry.source) for name, entry in self.config.servers.items()},
            include_tools,
            exclude_tools,
        )
        link = ManagerLink(
            lock=self._lock,
            changes=self._changes,
            connect_slots=threading.BoundedSemaphore(max(1, max_parallel_connects)),
            policy=self.policy,
            settings=ConnectSettings(self._client_options, connect_timeout, stderr),
            cache=self._cache,
            announce_tools=self._announcer.announce,
        )
        self._servers: dict[str, ServerSupervisor] = {}
        with DEFERRED:
            exit_cleanup.track(self)
        cached, missing = self._cache.lookup(self.config.enabled()) if self._cache is not None else ({}, {})
        for name, entry in self.config.servers.items():
            raw_tools = cached.get(name)
            tools = self._tools_from(raw_tools, name) if raw_tools is not None else None
            why = missing.get(name) if self._cache is not None else "the manager has no tool cache (tool_cache=False)"
            self._servers[name] = ServerSupervisor(
                entry, tools, link, tool_filter=filters[name], idle=start == "lazy", not_cached=why
            )
        for server in self._servers.values():
            if server.state is not ServerState.IDLE:
                server.start()
        try:
            self.wait_until_ready(startup_timeout)
            self._warn_unmatched()
        except BaseException:  # Ctrl-C while waiting (or warnings made errors): leave nothing running
            self.close()
            raise

    @classmethod
    def from_config(
        cls,
        path: Union[str, os.PathLike[str], None] = None,
        *,
        environ: Optional[Mapping[str, str]] = None,
        **options: Any,
    ) -> Manager:
        """A manager for the servers of a configuration file (found as ``mcpsync.load_config`` does when no path)."""
        return cls(load_config(path, environ=environ), **options)

    # -- state ----------------------------------------------------------------------------

    def status(self) -> dict[str, ServerStatus]:
        """Each configured server's state, in configuration order."""
        now = time.monotonic()
        with self._lock:
            return {server.name: server.status(now) for server in self._servers.values()}

    @property
    def clients(self) -> dict[str, Client]:
        """The connected clients by server name (a snapshot)."""
        with self._lock:
            clients = {s.name: s.connected_client for s in self._servers.values()}
            return {name: client for name, client in clients.items() if client is not None}

    @property
    def collisions(self) -> list[Collision]:
        """The tool names of different servers that came out the same, and how they were told apart
        (``naming.Collision``); each is logged once, when it is first seen."""
        with self._lock:
            self._names()
            return self._collisions

    @short_interrupts
    def client(self, server: str, *, timeout: Timeout = USE_DEFAULT) -> Client:
        """The client of ``server``, waiting (within ``timeout``) while it connects.

        Raises:
            UnknownNameError: no such server in the configuration.
            ServerUnavailable: it is disabled or failed, or did not connect in time.
        """
        record = self._server(server)
        return record.client_within(record.deadline(timeout))

    def start_server(self, server: str) -> None:
        """Start ``server`` now if it is idle (``start="lazy"``), without waiting for it; else do nothing.

        For code that knows a server's tools will be wanted soon (a tool search that found some): the
        start then overlaps what comes before the call, which finds the server starting or up.

        Raises:
            UnknownNameError: no such server in the configuration.
        """
        self._server(server).start()

    @short_interrupts
    def wait_until_ready(self, timeout: Optional[float] = None) -> bool:
        """Wait until no server is connecting or reconnecting; ``False`` if ``timeout`` passed first."""
        busy = (ServerState.CONNECTING, ServerState.RECONNECTING)
        return self._wait_until(lambda: not any(s.state in busy for s in self._servers.values()), timeout)

    def _wait_until(self, done: Callable[[], bool], timeout: Optional[float]) -> bool:
        """Wait until ``done()`` (asked under the lock) holds, woken by each change; ``False`` if
        ``timeout`` passed first (``None``: no limit)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            with self._lock:
                if done():
                    return True
                changed = self._changes.current()
            remaining = _POLL if deadline is None else min(_POLL, deadline - time.monotonic())
            if remaining <= 0:
                return False
            changed.wait(remaining)

    # -- tools ----------------------------------------------------------------------------

    @short_interrupts
    def list_tools(self, *, timeout: Timeout = USE_DEFAULT) -> list[ManagedTool]:
        """Every tool offered: of the connected servers (and cached ones of servers idle or still
        connecting), qualified, those the tool filters take out left out.

        A server still connecting with no cached tools to offer (``not_listed()``) is waited for,
        within ``timeout`` (default: the manager's ``startup_timeout``; ``0``: no wait; ``None``: until
        each has connected or failed): a slow server holds up a listing no longer than the
        constructor. What is still missing after it is logged, and ``not_listed()`` names it.
        """
        self._wait_until(
            lambda: not self._not_listed(), 0.0 if timeout == 0 else resolve_timeout(timeout, self.startup_timeout)
        )
        with self._lock:
            tools = self._managed_tools()
            missing = self._not_listed()
        if missing:
            logger.info("manager: tools of %s not listed: still connecting", ", ".join(map(repr, missing)))
        self._warn_unmatched()
        return tools

    def not_listed(self) -> list[str]:
        """The servers whose tools ``list_tools()`` lacks now: still connecting, no cached tools to offer."""
        with self._lock:
            return self._not_listed()

    def _not_listed(self) -> list[str]:
        return [
            s.name for s in self._servers.values() if s.state is ServerState.CONNECTING and not s.visible_tools()[0]
        ]

    def filtered_out(self, name: str, server: Optional[str] = None) -> Optional[str]:
        """Why the tool ``name`` is not offered, when a tool filter took it out; else ``None``.

        ``name`` is a qualified name (``github__delete_repo``), or with ``server`` the tool's own name.
        """
        with self._lock:
            for record in self._servers.values():
                if server is not None and record.name != server:
                    continue
                own = name
                if server is None:
                    prefix = server_prefix(record.name, self.separator)
                    if not name.startswith(prefix):
                        continue
                    own = name[len(prefix) :]
                if any(t.name == own for t in record.all_tools()[0]):
                    why = record.tool_filter.why_not(own)
                    if why is not None:
                        return f"server {record.name!r} has the tool {own!r}, but it is {why}"
        return None

    @short_interrupts
    def call_tool(
        self,
        name: str,
        arguments: Optional[Mapping[str, Any]] = None,
        *,
        timeout: Timeout = USE_DEFAULT,
        retry: Optional[bool] = None,
        **options: Any,
    ) -> CallToolResult:
        """Call a tool by its qualified name; waits (within ``timeout``) for a server that is connecting.

        Args:
            name: the qualified name (see ``list_tools``).
            timeout: seconds for the whole call, the wait for the server included
                (default: the server's configured timeout, else 30 s).
            retry: send the call again if its server's connection was lost while it
                was in flight (default: the manager's ``retry_calls``).
            **options: passed to ``Client.call_tool`` (``on_progress``, ``meta``...).

        Raises:
            UnknownNameError: no server offers a tool of that name.
            ServerUnavailable: its server is failed or disabled, or did not come back in time.
            TransportClosed: the server died during the call (not retried).
            and whatever ``Client.call_tool`` raises.
        """
        started = time.monotonic()
        server, tool = self._resolve(name, timeout, started)
        with self._lock:
            known, deferred = server.all_tools()
        # Named from a list that is not the server's word of now (the tool cache, or the last one
        # before a reconnection): checked against the live list once the server is up.
        unconfirmed = next((t for t in known if t.name == tool), None) if deferred else None
        deadline = server.deadline(timeout, started)
        retry = self.retry_calls if retry is None else retry
        while True:
            client = server.client_within(deadline)
            if unconfirmed is not None:
                self._confirm_listed(server, unconfirmed)
                unconfirmed = None
            try:
                return client.call_tool(tool, arguments, timeout=_remaining(deadline), **options)
            except TransportClosed:
                if not retry or self._closing:
                    raise
                logger.info("server %r: connection lost during %r; calling again once it is back", server.name, name)
                retry = False

    # -- prompts and resources --------------------------------------------------------------

    @short_interrupts
    def list_prompts(self, *, timeout: Timeout = USE_DEFAULT) -> list[ManagedPrompt]:
        """The prompts of every connected server, under qualified names."""
        found = self._each_connected("prompts/list", lambda client: client.list_prompts(timeout=timeout))
        names, _ = qualify_all(((server, p.name) for server, prompts in found for p in prompts), self.separator)
        by_pair = {pair: name for name, pair in names.items()}
        with self._lock:
            self._prompt_names = names
        return [ManagedPrompt(by_pair[(server, p.name)], server, p) for server, prompts in found for p in prompts]

    @short_interrupts
    def get_prompt(
        self, name: str, arguments: Optional[Mapping[str, str]] = None, *, timeout: Timeout = USE_DEFAULT
    ) -> GetPromptResult:
        """Fill in a prompt by its qualified name (from ``list_prompts``)."""
        with self._lock:
            known = self._prompt_names.get(name)
        if known is None:
            self.list_prompts(timeout=timeout)
            with self._lock:
                known = self._prompt_names.get(name)
        if known is None:
            raise UnknownNameError(self._unknown("prompt", name, list(self._prompt_names)))
        server = self._server(known[0])
        return server.client_within(server.deadline(timeout)).get_prompt(known[1], arguments, timeout=timeout)

    @short_interrupts
    def list_resources(self, *, timeout: Timeout = USE_DEFAULT) -> list[ManagedResource]:
        """The resources of every connected server, each with its server's name."""
        found = self._each_connected("resources/list", lambda client: client.list_resources(timeout=timeout))
        return [ManagedResource(server, r) for server, resources in found for r in resources]

    @short_interrupts
    def read_resource(self, server: str, uri: str, *, timeout: Timeout = USE_DEFAULT) -> ReadResourceResult:
        """Read a resource of ``server``."""
        return self.client(server, timeout=timeout).read_resource(uri, timeout=timeout)

    # -- life -----------------------------------------------------------------------------

    def close(self) -> None:
        """Close every client in parallel and stop the supervisors; bounded, idempotent."""
        with self._lock:
            if self._closing:
                return
            self._closing = True
            clients = [client for server in self._servers.values() for client in server.stop()]
            self._changes.notify_all()
        # Plain threads, not a pool: close() may run at interpreter exit, when pools take no new work.
        closers = [threading.Thread(target=c.close, name="mcpsync-close", daemon=True) for c in clients]
        for closer in closers:
            closer.start()
        deadline = time.monotonic() + CLOSE_WAIT
        for closer in closers:
            closer.join(max(0.0, deadline - time.monotonic()))
        for server in self._servers.values():
            server.join(deadline)

    def __enter__(self) -> Manager:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        counts: dict[str, int] = {}
        for status in self.status().values():
            counts[status.state.value] = counts.get(status.state.value, 0) + 1
        summary = ", ".join(f"{n} {state}" for state, n in counts.items())
        return f"<mcpsync.Manager {len(self._servers)} servers: {summary or 'none'}>"

    # -- helpers ----------------------------------------------------------------------------

    def _server(self, name: str) -> ServerSupervisor:
        server = self._servers.get(name)
        if server is None:
            raise UnknownNameError(self._unknown("server", name, list(self._servers)))
        return server

    def _resolve(self, name: str, timeout: Timeout, started: float) -> tuple[ServerSupervisor, str]:
        """(server, the server's own tool name) for a qualified tool name.

        A name that starts with the prefix of a server still connecting (or idle) whose
        known tools lack it waits for (or starts) that server, and looks at its live list.
        A tool that a filter takes out is refused before any of that.
        """
        with self._lock:
            known = self._names().get(name)
            if known is not None:
                return self._servers[known[0]], known[1]
            owners = [s for s in self._servers.values() if name.startswith(server_prefix(s.name, self.separator))]
        if owners:
            self._refuse_filtered(name)  # before an idle server is started for it
        for server in owners:
            if server.state in (ServerState.IDLE, ServerState.CONNECTING, ServerState.RECONNECTING):
                # Its tools are not known yet (or only from the cache): wait for the server, then look again.
                server.client_within(server.deadline(timeout, started))
            with self._lock:
                known = self._names().get(name)
            if known is not None:
                return self._servers[known[0]], known[1]
        self._refuse_filtered(name)
        with self._lock:
            names = list(self._names())
            unavailable = [s for s in owners if s.state not in (ServerState.CONNECTED, ServerState.RECONNECTING)]
        if unavailable:
            server = unavailable[0]
            why = f": {server.error}" if server.error is not None else ""
            raise ServerUnavailable(
                f"no tool {name!r} now: server {server.name!r} is unavailable ({server.state.value}){why}",
                state=server.state,
            )
        raise UnknownNameError(self._unknown("tool", name, names))

    def _confirm_listed(self, server: ServerSupervisor, named: Tool) -> None:
        """Raise ``UnknownNameError`` if the server, now up, does not list ``named`` (a tool offered from
        the cache or an earlier list) as it was offered: not at all, or for others (its MCP Apps
        visibility changed). A planted or outdated list never gets a call through."""
        with self._lock:
            live, deferred = server.all_tools()
        if deferred:
            return  # not up after all: client_within would have raised
        found = next((t for t in live if t.name == named.name), None)
        if found is None:
            raise UnknownNameError(
                f"server {server.name!r} does not list the tool {named.name!r} now (an earlier or cached list "
                "did); it was not called"
            )
        if found.visibility != named.visibility:
            raise UnknownNameError(
                f"server {server.name!r} lists the tool {named.name!r} now for {list(found.visibility)}, not for "
                f"{list(named.visibility)} as the earlier or cached list said; it was not called"
            )

    def _refuse_filtered(self, name: str) -> None:
        """Raise ``UnknownNameError`` saying why, if a tool filter took the tool ``name`` out."""
        filtered = self.filtered_out(name)
        if filtered is not None:
            raise UnknownNameError(f"no tool {name!r} is offered: {filtered}")

    def _warn_unmatched(self) -> None:
        """A ``ConfigurationWarning`` (once each) for every filter pattern that matches none of its server's tools.

        A server's tools count once they are known (listed, or cached); a pattern of a list for every
        server is warned about once every enabled server's tools are known and none matched it.
        """
        with self._lock:
            enabled = [s for s in self._servers.values() if s.state is not ServerState.DISABLED]
            known = {}
            for record in enabled:
                tools, _ = record.all_tools()
                if tools or record.state is ServerState.CONNECTED:
                    known[record.name] = [t.name for t in tools]
            filters = {name: self._servers[name].tool_filter for name in known}
            news = unmatched_patterns(known, filters, every_server_known=len(known) == len(enabled))
            news = [(key, text) for key, text in news if key not in self._warned]
            self._warned.update(key for key, _ in news)
        for _, text in news:
            logger.warning("manager: %s", text)
            warnings.warn(text, ConfigurationWarning, stacklevel=3)

    @staticmethod
    def _unknown(kind: str, name: str, known: list[str]) -> str:
        hint = did_you_mean(name, known) or f" ({len(known)} known)"
        return f"no {kind} named {name!r}{hint}"

    def _names(self) -> dict[str, tuple[str, str]]:
        """``{qualified name: (server, tool)}`` of the tools on offer; the caller holds the lock.

        Named again when a supervisor's ``tools_revision`` moved since the last naming (each change
        of a server's state or tools moves it), so a name is never older than the lock hold reading it.
        """
        revisions = tuple(s.tools_revision for s in self._servers.values())
        if revisions != self._named_revisions:
            pairs = [(s.name, t.name) for s in self._servers.values() for t in s.visible_tools()[0]]
            self._tool_names, collisions = qualify_all(pairs, self.separator)
            for collision in collisions:
                if collision not in self._collisions:
                    logger.warning("manager: tool names collide: %s", collision)
            self._collisions, self._named_revisions = collisions, revisions
        return self._tool_names

    def _managed_tools(self) -> list[ManagedTool]:
        # Caller holds the lock.
        by_pair = {pair: name for name, pair in self._names().items()}
        result: list[ManagedTool] = []
        for server in self._servers.values():
            tools, deferred = server.visible_tools()
            result.extend(ManagedTool(by_pair[(server.name, t.name)], server.name, t, deferred) for t in tools)
        return result

    @staticmethod
    def _tools_from(raw_tools: list[dict[str, Any]], server: str) -> Optional[list[Tool]]:
        try:
            return sorted((Tool.from_dict(raw) for raw in raw_tools), key=lambda t: t.name)
        except MCPError as exc:
            logger.warning("manager: cached tools of %r unusable: %s", server, exc)
            return None

    def _each_connected(self, method: str, fetch: Callable[[Client], list[_T]]) -> list[tuple[str, list[_T]]]:
        """``fetch(client)``, the listing ``method``, for every connected server that serves it, in parallel
        (one that does not declare it is asked too, unless its client is strict; -32601 means none).

        Servers that fail are logged and left out.
        """
        clients = list(self.clients.items())
        if not clients:
            return []

        def served(client: Client) -> list[_T]:
            return server_capabilities.items_served(
                lambda: fetch(client), client.server_capabilities, method, strict=client.strict_capabilities
            )

        with ThreadPoolExecutor(max_workers=min(8, len(clients)), thread_name_prefix="mcpsync-manager-list") as pool:
            futures = [(name, pool.submit(served, client)) for name, client in clients]
            found = []
            for name, future in futures:
                try:
                    found.append((name, future.result()))
                except MCPError as exc:
                    logger.warning("manager: server %r: %s", name, exc)
            return found


def _remaining(deadline: Optional[float]) -> Optional[float]:
    return None if deadline is None else max(0.001, deadline - time.monotonic())
