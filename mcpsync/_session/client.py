"""The MCP session on top of one transport: handshake, typed methods, what the server tells us.

    with mcpsync.connect(["python", "server.py"]) as client:
        client.list_tools()
        client.call_tool("add", {"a": 1, "b": 2}).structured_content

Thread-safe: one client may serve many threads at once; each call blocks only
its own thread. Requests go out, are waited for and given up through the
client's ``Channel``; what the server sends on its own arrives at its
``Inbox``. User callbacks (notification and request handlers) run on the
client's dispatch thread, in arrival order, never on the transport's reader.
The server's requests to us (roots, sampling, elicitation) are answered by
``ServerRequests``.
"""

from __future__ import annotations

import enum
import logging
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Callable, Optional, Union

from .._core.eras import LOG_LEVEL, UNSUPPORTED_VERSION, param_headers, result_type
from .._core.errors import (
    ConfigurationError,
    NotSupportedError,
    ProtocolError,
    RequestTimeout,
    ServerError,
    UnsupportedProtocolVersion,
)
from .._core.jsonrpc import LOG_LEVELS
from .._core.pending import RequestFuture
from .._core.timeouts import USE_DEFAULT, Deadline, Timeout, check_timeout, resolve_timeout
from .._threads.signals import deferred_interrupts
from .._version import __version__
from .._wire.base import Transport, TransportStats
from . import exit_cleanup, negotiation, server_capabilities
from .cache import DISCOVER_KEY, ListCache
from .channel import Channel
from .dispatch import Dispatcher
from .era import AUTO, LEGACY, MODERN, check_protocol, era_of
from .inbox import Inbox, LogHandler, NotificationHandler
from .input_required import next_round
from .listings import Listings, usable_tools
from .models import (
    CallToolResult,
    Completion,
    GetPromptResult,
    Page,
    Prompt,
    ReadResourceResult,
    Resource,
    ResourceTemplate,
    ServerInfo,
    Tool,
)
from .paging import with_meta
from .progress import ProgressCallback, ProgressTokens, with_progress_token
from .progress_bars import progress_bar_for
from .server_requests import ELICITATION_MODES, RequestHandler, Roots, ServerRequests
from .skills import LoadedSkill, Skill, Skills
from .structured_output import OutputSchemas
from .subscriptions import Subscriptions
from .tasks import OnStatus, ToolCalls, ToolTask, status_as_progress
from .tracebacks import shorten_interrupts
from .tracing import Tracing

__all__ = ["Client", "ClientState"]

logger = logging.getLogger("mcpsync.client")

#: Seconds a call with ``on_progress`` waits, after its answer, for the progress callbacks queued before it.
PROGRESS_DRAIN_WAIT = 1.0


class ClientState(enum.Enum):
    """A client's life: unopened, open (initialized), closed."""

    UNOPENED = "unopened"
    OPEN = "open"
    CLOSED = "closed"


class Client:
    """An MCP client session over one transport.

    Args:
        transport: a ``Transport`` (see ``mcpsync.create_transport``); the
            client takes it over: closing the client closes it.
        client_info: ``clientInfo`` sent in ``initialize`` (default: mcpsync and its version).
        capabilities: client ``capabilities`` sent in ``initialize`` (default: none).
        on_notification: ``fn(method, params)`` for every notification the
            server sends, run on the dispatch thread.
        request_handlers: ``{method: fn(params) -> result}`` for requests the
            server sends; run on the dispatch thread. A handler raising
            ``ServerError`` answers with that error; any other exception
            answers -32603. Methods without a handler get -32601.
        on_log: ``fn(level, logger, data)`` for every log message the server
            sends (``notifications/message``), on the dispatch thread; they also
            go to the Python logger ``mcpsync.server.<name>``. On 2026-07-28,
            where a server logs only to requests that ask, a client given
            ``on_log`` asks for ``info`` and up (``set_logging_level`` changes it).
        validate_structured_output: check each tool result's ``structuredContent``
            against the tool's ``outputSchema`` (from ``tools/list``, fetched once
            if needed); ``False`` turns the check off.
        roots: the roots offered to the server (URIs, or ``{"uri", "name"}``
            dicts), or a callable returning them; declares the ``roots``
            capability. ``set_roots()`` changes them later.
        sampling: ``fn(params) -> result`` for ``sampling/createMessage``
            (tools in the request are passed through); declares ``sampling``.
        elicitation: ``fn(params) -> result`` for ``elicitation/create``, form
            and URL mode (see ``mcpsync.elicitation_defaults``); declares
            ``elicitation``.
        sampling_tools: declare ``sampling.tools``: ``sampling=`` handles requests that offer
            the model tools (2025-11-25). Default: not declared.
        sampling_context: declare ``sampling.context``: ``sampling=`` honours
            ``includeContext`` (soft-deprecated in 2025-11-25). Default: not declared.
        elicitation_modes: the modes ``elicitation=`` handles, ``"form"`` and/or ``"url"``
            (default both): each is declared as ``elicitation.<mode>``.
        roots_list_changed: declare ``roots.listChanged`` (default ``True``: ``set_roots``
            tells the server); ``False`` declares plain ``roots``.
            These four need their handler (a ``ConfigurationError`` otherwise); an entry of
            ``capabilities=`` for the same capability wins over them, whole.
        on_elicitation_complete: ``fn(params)`` for ``notifications/elicitation/complete``.
        on_list_changed: ``fn(kind)`` with ``"tools"``, ``"prompts"`` or
            ``"resources"`` when the server says that list changed.
        on_resource_updated: ``fn(uri)`` for a subscribed resource that changed.
        refresh_on_list_changed: re-fetch a list at once (on the dispatch thread)
            when the server says it changed, rather than on next use of
            ``tools`` / ``prompts`` / ``resources``.
        on_close: ``fn(error)`` once the connection ends: ``error`` is ``None``
            when the client closed it, else why it was lost (a
            ``TransportClosed`` with the exit code and stderr). Runs on the
            thread that saw the end (a transport thread); keep it short.
        on_error: ``fn(error)`` for each message from the server that was
            skipped or refused (a ``ProtocolError``; it is logged too), on
            the dispatch thread.
        protocol: the era: ``"auto"`` (the default: ``server/discover`` first, as the
            2026-07-28 revision says; a legacy server falls back to the ``initialize``
            handshake), ``"legacy"`` (the handshake only, which dual-era servers serve in
            full), ``"modern"`` or ``"2026-07-28"`` (no fallback). In the modern era every
            request carries its version, capabilities and identity in ``_meta`` (and its
            headers over HTTP), a server's ``input_required`` results are answered with the
            handlers above and the request sent again, ``ping`` asks ``server/discover``, and
            ``set_logging_level`` sets the level each request asks for.
        connect_timeout: seconds ``initialize`` may take when it is given no ``timeout`` (default:
            the transport's timeout, which every request has by default).
        stderr: for a stdio server, what its stderr does: ``"inherit"`` (the transport's default:
            each line on ``sys.stderr`` with the server's name in front), ``"log"`` (the logger
            ``mcpsync.server.<name>`` at INFO) or ``"quiet"``.
        strict_capabilities: refuse, before sending, a typed method whose capability the server did
            not declare (``CapabilityNotDeclared``). Default ``False``: send it anyway, as servers
            that under-declare are common; a -32601 answer then raises ``CapabilityNotServed``.
        tracing: OpenTelemetry for every request, where the program uses it (``opentelemetry-api``
            is no dependency of mcpsync): ``True`` (the default) sends the caller's trace context
            in each request's ``_meta`` (``traceparent``, ``tracestate``, ``baggage``) and records
            a client span per request with the global tracer provider (semantic conventions for
            MCP, version 1.41.0); a ``TracerProvider`` records with that one instead; ``False``
            does neither. See "Tracing" in docs/api.md.
        A handler's answer to a request the server has meanwhile cancelled is not sent.

    The typed methods need a server capability each (``tools``, ``resources``,
    ``resources.subscribe``, ``prompts``, ``completions``, ``logging``). They send their request
    whatever the server declared, and a -32601 answer to a method it did not declare raises
    ``CapabilityNotServed`` (a ``CapabilityNotDeclared`` and a ``ServerError``) naming the
    capability; with ``strict_capabilities=True`` they raise ``CapabilityNotDeclared`` and send
    nothing. ``request()`` never checks before sending.
    """

    def __init__(
        self,
        transport: Transport,
        *,
        client_info: Optional[Mapping[str, Any]] = None,
        capabilities: Optional[Mapping[str, Any]] = None,
        on_notification: Optional[NotificationHandler] = None,
        request_handlers: Optional[Mapping[str, RequestHandler]] = None,
        on_log: Optional[LogHandler] = None,
        validate_structured_output: bool = True,
        roots: Optional[Roots] = None,
        sampling: Optional[RequestHandler] = None,
        elicitation: Optional[RequestHandler] = None,
        sampling_tools: bool = False,
        sampling_context: bool = False,
        elicitation_modes: Sequence[str] = ELICITATION_MODES,
        roots_list_changed: bool = True,
        on_elicitation_complete: Optional[Callable[[dict[str, Any]], None]] = None,
        on_list_changed: Optional[Callable[[str], None]] = None,
        on_resource_updated: Optional[Callable[[str], None]] = None,
        refresh_on_list_changed: bool = False,
        on_close: Optional[Callable[[Optional[BaseException]], None]] = None,
        on_error: Optional[Callable[[BaseException], None]] = None,
        protocol: str = AUTO,
        strict_capabilities: bool = False,
        tracing: Any = True,
        connect_timeout: Timeout = USE_DEFAULT,
        stderr: Optional[str] = None,
    ) -> None:
        if stderr is not None:
            if not hasattr(transport, "stderr_mode"):
                raise ConfigurationError(
                    f"{transport.name}: stderr= is for a stdio server; this one is {transport.kind}"
                )
            transport.stderr_mode = stderr
        self.transport = transport
        #: ``initialize``'s default timeout (``USE_DEFAULT``: the transport's, every request's default).
        self.connect_timeout = check_timeout(connect_timeout, f"server {transport.name!r}")
        #: Whether typed methods refuse, before sending, a request whose capability the server did not declare.
        self.strict_capabilities = strict_capabilities
        #: ``"auto"`` (the default: probe with ``server/discover``, fall back to the ``initialize``
        #: handshake), ``"legacy"`` (the handshake only), or ``"modern"`` / a modern version.
        self.protocol = check_protocol(protocol)
        #: The versions a modern server said it supports (``server/discover``); ``()`` for a legacy one.
        self.supported_versions: tuple[str, ...] = ()
        self.client_info = dict(client_info or {"name": "mcpsync", "version": __version__})
        self.on_notification = on_notification
        self.on_elicitation_complete = on_elicitation_complete
        self.on_list_changed = on_list_changed
        self.on_resource_updated = on_resource_updated
        self.on_close = on_close
        self.on_error = on_error
        self.on_log = on_log
        self._log_level: Optional[str] = None  # set_logging_level's, for the 2026-07-28 era's requests
        self.validate_structured_output = validate_structured_output
        self.refresh_on_list_changed = refresh_on_list_changed
        self.server_info: Optional[ServerInfo] = None
        self.server_capabilities: dict[str, Any] = {}
        self.protocol_version: Optional[str] = None
        self.instructions: Optional[str] = None
        self._channel = Channel(transport)
        if tracing is False:
            self._channel.tracing = None
        elif tracing is not True:
            self._channel.tracing = Tracing(transport, tracing)
        self._progress = ProgressTokens()
        self._output_schemas = OutputSchemas()
        self._lists = ListCache(self._list_changed, lambda: self.transport.authorization_context())
        self._state = ClientState.UNOPENED
        self._initializing = False
        self._lock = threading.Lock()
        self._dispatcher = Dispatcher(transport.name, on_drop=self._dropped)
        self._subscriptions = Subscriptions(self._channel, transport.name, lambda: self._state is ClientState.OPEN)
        self._skills = Skills(
            transport.name,
            lambda: self.server_capabilities,
            lambda method, params, timeout: self.request(method, params, timeout=timeout),
            # Unchecked, uncached: the extension reads its files as resources whatever else is declared.
            lambda uri, timeout: ReadResourceResult.from_dict(
                self.request("resources/read", {"uri": uri}, timeout=timeout), uri
            ),
        )
        self._listings = Listings(
            lambda method, params, timeout: self.request(method, params, timeout=timeout),
            self._require,
            self._lists,
            lambda: self.transport.default_timeout,
            filters={
                "tools": lambda tools, start: usable_tools(tools, self.era == MODERN, self.name),
                "skills": self._skills.valid,
            },
            on_fetched={"tools": self._output_schemas.remember},
            checks={"skills": self._skills.check_declared},
        )
        try:
            self._server_requests = ServerRequests(
                self._channel,
                self._dispatcher,
                capabilities=capabilities,
                request_handlers=request_handlers,
                roots=roots,
                sampling=sampling,
                elicitation=elicitation,
                sampling_tools=sampling_tools,
                sampling_context=sampling_context,
                elicitation_modes=elicitation_modes,
                roots_list_changed=roots_list_changed,
            )
        except BaseException:
            self._dispatcher.close()  # bad arguments must not leave the dispatch thread behind
            raise
        self.capabilities = self._server_requests.capabilities
        self._tool_calls = ToolCalls(
            self,
            self._exchange,
            self._require,
            lambda: self._lists.get("tools"),
            self._output_schemas,
            self._server_requests.answer_input_request,
            lambda: self.transport.default_timeout,
        )
        self._inbox = Inbox(
            transport.name,
            transport.server_logger,
            self._dispatcher,
            self._progress,
            self._server_requests,
            self._lists,
            self,
            self._on_transport_closed,
        )
        with deferred_interrupts():
            exit_cleanup.track(self)  # closed at interpreter exit if the program forgets

    @property
    def request_handlers(self) -> dict[str, RequestHandler]:
        """``{method: fn(params) -> result}`` for the server's requests (see ``__init__``); may be changed."""
        return self._server_requests.handlers

    @request_handlers.setter
    def request_handlers(self, handlers: dict[str, RequestHandler]) -> None:
        self._server_requests.handlers = handlers

    # -- life ---------------------------------------------------------------

    @property
    def name(self) -> str:
        """The server's name as configured (logs, threads), not its ``serverInfo`` name."""
        return self.transport.name

    @property
    def state(self) -> ClientState:
        """The client's life stage."""
        return self._state

    @property
    def is_connected(self) -> bool:
        """Whether the session is initialized and its transport still connected."""
        return self._state is ClientState.OPEN and self.transport.is_connected

    @property
    def stats(self) -> TransportStats:
        """The connection's counters: messages sent, received, malformed, invalid, unmatched, cancelled, ..."""
        return self.transport.stats

    @property
    def cached_lists(self) -> dict[str, list[Any]]:
        """The tools, prompts and resources lists the client holds now (fetched, and not changed since), by kind.

        Reading it never asks the server.
        """
        return self._lists.held()

    def initialize(self, *, timeout: Timeout = USE_DEFAULT) -> dict[str, Any]:
        """Open the transport and run the MCP handshake.

        Sends ``initialize`` with our latest protocol version, checks the
        version the server chose, then sends ``notifications/initialized``.

        Returns:
            the raw ``initialize`` result.

        Raises:
            UnsupportedProtocolVersion: the server chose a version we do not
                speak; the client is closed.
            ConnectError, TransportClosed, RequestTimeout, ServerError,
            ProtocolError: the handshake failed; the client is closed.
        """
        with deferred_interrupts(), self._lock:
            if self._state is not ClientState.UNOPENED or self._initializing:
                raise ProtocolError(f"{self.name}: initialize() may run once; the client is {self._state.value}")
            self._initializing = True
        # The lock is not held while we wait, so close() from another thread can cut the handshake short.
        seconds = resolve_timeout(timeout, resolve_timeout(self.connect_timeout, self.transport.default_timeout))
        # Opening counts too; a person who logs in meanwhile (the probe's, initialize's) is not the caller's time.
        deadline = Deadline(seconds, self._channel)
        try:
            with deferred_interrupts():  # starting threads and processes: not to be cut in half
                self.transport.open(self._inbox, deadline=deadline.at())
            discovered = None
            if self.protocol != LEGACY and self.transport.kind != "sse":  # HTTP+SSE is legacy only
                discovered = negotiation.probe(
                    self._channel,
                    protocol=self.protocol,
                    capabilities=self._modern_capabilities(),
                    client_info=self.client_info,
                    timeout=deadline.left(),
                    stdio=self.transport.kind == "stdio",
                )
            if discovered is not None:
                result = discovered
                self._agree(negotiation.from_discover(discovered, self._channel.version))
                self._lists.store(DISCOVER_KEY, discovered, [discovered], context=None)
            else:
                result, agreement = negotiation.legacy_handshake(
                    self._channel, self.capabilities, self.client_info, deadline
                )
                self._agree(agreement)
        except BaseException as exc:
            self.close()  # first: the stderr reader has drained the pipe then
            if isinstance(exc, RequestTimeout):
                # Whichever request it was (the probe, initialize): the timeout given, not what was
                # left of it, and what the server sent instead.
                given = RequestTimeout(exc.method, exc.timeout if seconds is None else seconds)
                raise self.transport.timeout_error(given) from None
            raise
        with deferred_interrupts(), self._lock:
            if self._state is not ClientState.UNOPENED:  # close() ran meanwhile
                raise self.transport.closed_error()
            self._state = ClientState.OPEN
        if self.era == MODERN:
            self._subscriptions.start(self.server_capabilities)  # the list changes, as the GET stream had them
        logger.info(
            "server %r: connected to %s (protocol %s)",
            self.name,
            str(self.server_info or "") or "?",  # a server may not say who it is (server/discover)
            self.protocol_version,
        )
        return result

    def _agree(self, agreement: negotiation.Agreement) -> None:
        """Take what a ``server/discover`` or ``initialize`` answer settled; a modern version carries
        its ``_meta`` on every request from now on."""
        self.server_info = agreement.server_info
        self.server_capabilities = agreement.capabilities
        self.supported_versions = agreement.supported_versions
        self.instructions = agreement.instructions
        if era_of(agreement.version) == MODERN:
            self._use_modern(agreement.version)
            self._channel.header_hook = self._param_headers
        else:
            self.protocol_version = agreement.version

    def _use_modern(self, version: str) -> None:
        """Speak the modern ``version`` from now on (its ``_meta`` on every request, and over HTTP its headers)."""
        if version != self._channel.version:
            self._channel.use_version(version, self._modern_capabilities(), self.client_info)
        if version != self.protocol_version:
            self.protocol_version = version
            self.transport.negotiated(version)
        self._ask_for_logs()

    def discover(self, *, timeout: Timeout = USE_DEFAULT, cache: bool = True) -> dict[str, Any]:
        """The server's ``server/discover`` answer (2026-07-28): its versions, capabilities, identity and
        instructions, which ``server_info``, ``server_capabilities`` and ``instructions`` are taken from.

        ``cache``: the answer of the connection (or of the last call) is served again while its
        ``ttlMs`` says it is fresh; after that, or with ``cache=False``, the server is asked, and what
        it says now becomes ``server_capabilities`` (and the rest).

        Raises:
            NotSupportedError: a server of the handshake era (its ``initialize`` answer said it all).
        """
        if self.era != MODERN:
            raise NotSupportedError(
                f"{self.name}: server/discover is of the 2026-07-28 revision, and this server speaks "
                f"{self.protocol_version or 'nothing yet'}; its initialize answer is in server_info, "
                "server_capabilities and instructions"
            )
        held = self._lists.fresh(DISCOVER_KEY) if cache else None
        if held is not None:
            return dict(held)
        context = self._lists.context()
        result = self.request("server/discover", timeout=timeout)
        self._agree(negotiation.from_discover(result, self._channel.version))
        self._lists.store(DISCOVER_KEY, result, [result], context=context)
        return result

    def _param_headers(self, method: str, params: Optional[dict[str, Any]]) -> dict[str, str]:
        """A modern ``tools/call``'s ``Mcp-Param-*`` headers, from the tool's ``x-mcp-header`` annotations."""
        if method != "tools/call" or not params:
            return {}
        for tool in self._lists.get("tools") or ():
            if tool.name == params.get("name"):
                return param_headers(tool.input_schema, params.get("arguments"))
        return {}

    def _modern_capabilities(self) -> dict[str, Any]:
        """The capabilities a modern request declares (``negotiation.modern_capabilities``)."""
        return negotiation.modern_capabilities(self.capabilities, getattr(self.transport, "auth", None))

    def _ask_for_logs(self) -> None:
        """On 2026-07-28, the log level each request asks for: ``set_logging_level``'s, else ``info`` for a
        client given ``on_log`` (the revision's servers log only to requests that ask), else none."""
        level = self._log_level or ("info" if self.on_log is not None else None)
        meta = self._channel.meta
        if level is not None and meta is not None:
            self._channel.meta = {**meta, LOG_LEVEL: level}

    @property
    def era(self) -> Optional[str]:
        """``"modern"`` (2026-07-28: no handshake, every request carries its version) or ``"legacy"``
        (the ``initialize`` handshake); ``None`` before ``initialize``."""
        return era_of(self.protocol_version)

    def close(self) -> None:
        """End the session: close the transport (and its process) and stop the dispatch thread.

        Idempotent; every wait inside is bounded.
        """
        with deferred_interrupts():
            with self._lock:
                self._state = ClientState.CLOSED
            self._subscriptions.close()
            # Outside the lock: a handler calling close() while another thread closes must not deadlock.
            try:
                self.transport.close()
            finally:
                self._dispatcher.close()

    def __enter__(self) -> Client:
        if self._state is ClientState.UNOPENED:
            self.initialize()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        info = self.server_info
        server = str(info or "") or "?"
        state = self._state.value
        if state == "open" and not self.transport.is_connected:
            state = "lost"
        tools = self._lists.get("tools")
        listed = f" {len(tools)} tools" if tools is not None else ""
        return (
            f"<mcpsync.Client {self.name!r} server={server!r} protocol={self.protocol_version} "
            f"{self.transport.kind} {state}{listed}>"
        )

    # -- raw messages -------------------------------------------------------

    def _on_transport_closed(self, error: Optional[BaseException]) -> None:
        # Reader thread (or close()). No lock: initialize() may hold it while
        # it waits for the response this very closing has just failed.
        if error is not None and self._state is ClientState.OPEN:
            self._state = ClientState.CLOSED
        if self.on_close is not None:
            self.on_close(error)  # the transport calls us once, and logs what this raises

    def _require(self, method: str) -> None:
        """Before a typed method's request: the client is open and, with ``strict_capabilities``, the
        server declared what ``method`` needs (``CapabilityNotDeclared`` otherwise)."""
        self._check_open()
        if self.strict_capabilities:
            server_capabilities.require(self.name, self.server_capabilities, method)

    def _check_open(self) -> None:
        if self._state is not ClientState.OPEN:
            if self._state is ClientState.UNOPENED:
                raise ProtocolError(f"{self.name}: call initialize() (or use 'with') before sending requests")
            raise self.transport.closed_error()

    def request(
        self,
        method: str,
        params: Optional[dict[str, Any]] = None,
        *,
        timeout: Timeout = USE_DEFAULT,
        on_progress: Optional[ProgressCallback] = None,
        max_total_timeout: Optional[float] = None,
        progress_resets_timeout: Optional[bool] = None,
    ) -> dict[str, Any]:
        """Send any request and block for its ``result`` dict.

        Args:
            timeout: seconds without an answer; ``None``: no limit; default:
                the server config's timeout, else 30 s.
            on_progress: ``fn(progress, total, message)``, called on the dispatch
                thread for each ``notifications/progress`` (a unique
                ``progressToken`` is added to the request's ``_meta``). The
                callbacks for progress sent before the answer have run when
                this returns (unless one takes longer than a second).
            max_total_timeout: a hard cap in seconds that progress never extends.
            progress_resets_timeout: whether each progress notification starts
                ``timeout`` afresh. Default (``None``): yes when you pass
                ``on_progress`` or ``max_total_timeout``, else no. Whoever is
                watching (a progress bar) never changes it.

        Raises:
            RequestTimeout: no answer in time (the server is told with ``notifications/cancelled``).
            ServerError: the server answered with an error; ``CapabilityNotServed`` for -32601 to a
                method whose capability the server did not declare.
            TransportClosed: the connection closed first.
            KeyboardInterrupt: as usual; the request is cancelled on the server first.
        """
        return self._exchange(
            method,
            params,
            resolve_timeout(timeout, self.transport.default_timeout),
            on_progress,
            max_total_timeout,
            progress_resets_timeout,
        )

    def _exchange(
        self,
        method: str,
        params: Optional[dict[str, Any]],
        seconds: Optional[float],
        on_progress: Optional[ProgressCallback] = None,
        max_total_timeout: Optional[float] = None,
        progress_resets_timeout: Optional[bool] = None,
    ) -> dict[str, Any]:
        """A request to its final answer (see ``request``), in one loop: a version the server stopped
        taking is renegotiated and the request sent again once; ``input_required`` rounds are answered."""
        if self._state is not ClientState.OPEN:
            self._check_open()
        deadline = Deadline(seconds)
        sent, rounds = self.protocol_version, 0
        resent: Optional[str] = None  # the version the request went again with, after a -32022
        try:
            while True:
                try:
                    if on_progress is None and max_total_timeout is None:
                        result = self._channel.request(method, params, timeout=seconds)  # the common case
                    else:
                        result = self._with_progress(
                            method, params, seconds, on_progress, max_total_timeout, progress_resets_timeout
                        )
                except ServerError as exc:
                    if exc.code != UNSUPPORTED_VERSION or self.era != MODERN or rounds:
                        raise
                    # The server stopped taking our version: the same once more if it still lists it, else
                    # another we share; once, within the caller's timeout.
                    if resent is not None:
                        if resent != sent:
                            raise
                        listed = negotiation.listed_versions(exc)
                        raise UnsupportedProtocolVersion(sent, listed, sent=sent, retried=(sent,)) from exc
                    resent = negotiation.version_after_refusal(exc, sent, self.name)
                    self._use_modern(resent)
                    seconds = deadline.left()
                    if seconds is not None and seconds <= 0:
                        raise RequestTimeout(method, deadline.seconds or 0.0) from None  # no time left to send it again
                    continue
                if result_type(result) != "input_required":
                    break
                params, seconds = next_round(
                    method,
                    params,
                    result,
                    answer=self._server_requests.answer_input_request,
                    done=rounds,
                    deadline=deadline,
                    name=self.name,
                )
                rounds += 1
        except ServerError as exc:
            undeclared = server_capabilities.not_served(self.name, self.server_capabilities, method, exc)
            if undeclared is None:
                raise
            raise undeclared from exc
        if result_type(result) == "task" and method != "tools/call":
            raise ProtocolError(f"{self.name}: {method}: the server answered with a task, which only tools/call may")
        return result

    def _with_progress(
        self,
        method: str,
        params: Optional[dict[str, Any]],
        seconds: Optional[float],
        on_progress: Optional[ProgressCallback],
        max_total_timeout: Optional[float],
        progress_resets_timeout: Optional[bool],
    ) -> dict[str, Any]:
        """One request with a progress token (``on_progress``), or a cap on its time whatever its activity."""
        if progress_resets_timeout is None:
            progress_resets_timeout = True  # the caller asked for progress, or for a cap on it
        with deferred_interrupts():
            token, watch = self._progress.open(on_progress)
        try:
            result = self._channel.request(
                method,
                with_progress_token(params, token),
                timeout=seconds,
                max_total=max_total_timeout,
                last_activity=(lambda: watch.last) if progress_resets_timeout else None,
            )
        finally:
            with deferred_interrupts():
                self._progress.close(token)
        if on_progress is not None and watch.notified:
            # The server sent its progress before the answer; let the callbacks see all of it before we return.
            self._dispatcher.drain(PROGRESS_DRAIN_WAIT)
        return result

    def send_request(self, method: str, params: Optional[dict[str, Any]] = None) -> RequestFuture:
        """Send any request and return at once with a ``concurrent.futures.Future`` of its ``result`` dict.

        The future fails with ``ServerError`` for an error response and
        ``TransportClosed`` when the connection goes. ``future.cancel()``
        forgets the request and sends ``notifications/cancelled``. No timeout
        applies: bound your own wait, as in ``future.result(timeout=...)``.

        Raises:
            TypeError: ``params`` is not a dict (or not JSON-serialisable).
            TransportClosed: the connection is closed.
            WriteTimeout: the server took nothing within ``write_timeout``.
        """
        self._check_open()
        return self._channel.send_request(method, params)

    def notify(self, method: str, params: Optional[dict[str, Any]] = None) -> None:
        """Send a notification."""
        self._check_open()
        self._channel.notify(method, params)

    # -- typed methods ------------------------------------------------------

    def ping(self, *, timeout: Timeout = USE_DEFAULT, meta: Optional[Mapping[str, Any]] = None) -> None:
        """Check the server answers; raises like ``request`` if it does not.

        The 2026-07-28 revision has no ``ping``: a modern server is asked ``server/discover`` instead.
        ``meta`` is sent as the request's ``_meta`` (as for every typed method).
        """
        self.request("server/discover" if self.era == MODERN else "ping", with_meta(None, meta), timeout=timeout)

    def list_tools(
        self,
        *,
        timeout: Timeout = USE_DEFAULT,
        cache: bool = True,
        meta: Optional[Mapping[str, Any]] = None,
        max_pages: Optional[int] = None,
    ) -> list[Tool]:
        """All the server's tools, across every page (``timeout`` bounds the whole listing).

        Args:
            cache: serve the list fetched last while the server's ``ttlMs`` says it is fresh
                (2026-07-28; a list change ends that); ``False`` always asks the server.
            meta: sent as each page request's ``_meta`` (the modern era's own keys win over
                yours). A listing with ``meta`` always asks the server and is not kept: what the
                server answers may depend on it, and the cached list must not.
            max_pages: the most pages to read (default ``MAX_PAGES``, 1000).

        Raises:
            CapabilityNotServed: the server does not declare ``tools`` and answered -32601 (with
                ``strict_capabilities``, ``CapabilityNotDeclared`` and nothing is sent; every typed
                method treats the capability its request needs in the same way).
            PageLimitExceeded: the server still had a cursor after ``max_pages`` pages.
            ProtocolError: the server repeated a cursor (it would page forever)
                or sent a malformed tool.
        """
        return self._listings.all("tools", timeout, cache, meta, max_pages)

    def cache_scope(self, kind: str) -> Optional[str]:
        """The ``cacheScope`` of the ``"tools"``, ``"prompts"`` or ``"resources"`` list fetched last:
        ``"public"`` (any caller may be served it), ``"private"`` (only this authorization context),
        or ``None`` (the server said nothing, as servers before 2026-07-28 do; or none was fetched)."""
        return self._lists.scope(kind)

    def list_tools_page(
        self, cursor: Optional[str] = None, *, timeout: Timeout = USE_DEFAULT, meta: Optional[Mapping[str, Any]] = None
    ) -> Page[Tool]:
        """One page of ``tools/list``: ``page.items`` and ``page.next_cursor`` (``None`` on the last).

        Asks the server every time; the cached list of ``list_tools`` is neither read nor changed.
        """
        return self._listings.page("tools", cursor, timeout, meta)

    def iter_tools(
        self,
        *,
        timeout: Timeout = USE_DEFAULT,
        meta: Optional[Mapping[str, Any]] = None,
        max_pages: Optional[int] = None,
    ) -> Iterator[Tool]:
        """The server's tools, a page asked for only when the one before is used up.

        ``timeout`` bounds each page; ``max_pages`` and the repeated-cursor check as for ``list_tools``.
        """
        return self._listings.iterate("tools", timeout, meta, max_pages)

    @property
    def tools(self) -> list[Tool]:
        """The server's tools, fetched once and again after ``notifications/tools/list_changed``."""
        cached = self._lists.get("tools")
        return cached if cached is not None else self.list_tools()

    @property
    def prompts(self) -> list[Prompt]:
        """The server's prompts, fetched once and again after ``notifications/prompts/list_changed``."""
        cached = self._lists.get("prompts")
        return cached if cached is not None else self.list_prompts()

    @property
    def resources(self) -> list[Resource]:
        """The server's resources, fetched once and again after ``notifications/resources/list_changed``."""
        cached = self._lists.get("resources")
        return cached if cached is not None else self.list_resources()

    def call_tool(
        self,
        name: str,
        arguments: Optional[Mapping[str, Any]] = None,
        *,
        timeout: Timeout = USE_DEFAULT,
        meta: Optional[Mapping[str, Any]] = None,
        on_progress: Optional[ProgressCallback] = None,
        max_total_timeout: Optional[float] = None,
        progress_resets_timeout: Optional[bool] = None,
        progress_bar: Optional[bool] = None,
    ) -> CallToolResult:
        """Call a tool and block for its result.

        A tool's own failure comes back as ``result.is_error`` (call
        ``result.raise_for_error()`` to raise ``ToolError``); a JSON-RPC error
        (bad arguments, say) raises ``ServerError``. A name the server does not
        list, once the client holds its tool list (``list_tools``, or a
        Manager's), raises ``UnknownNameError`` with the closest names, whether
        the server answered with an error or with an ``is_error`` result (most
        do): a typo is never a result to overlook.

        A call the server runs as a task (the tasks extension on 2026-07-28, or
        a 2025-11-25 tool whose ``execution.taskSupport`` asks for one) is
        waited for here: the task is polled at the server's pace, the input it
        asks for goes to the same handlers, and its result comes back as if the
        call had been synchronous. Its status messages are progress (a bar,
        ``on_progress(step, None, message)``). A timeout or Ctrl-C cancels the
        task on the server. ``start_tool`` gives you the task instead.

        Args:
            arguments: the tool's arguments (a JSON object).
            timeout: seconds; ``None`` for no limit; default: the transport's. It
                covers the whole call, a task's too.
            meta: passed through as the request's ``_meta``.
            on_progress, max_total_timeout, progress_resets_timeout: as for ``request``.
            progress_bar: show the server's progress as a bar (tqdm): ``True``,
                ``False``, or ``None`` for the global setting, which by default
                shows bars only when someone watches (``mcpsync.set_progress_bars``).
                A bar never changes the timeout: the same call times out the
                same way in a terminal, a notebook, and under cron.

        Raises:
            UnknownNameError: the server's tool list has no tool ``name``, and the call failed.
            ServerError: the server answered with a JSON-RPC error.
            OutputSchemaError: the tool declared an ``outputSchema`` that its
                ``structuredContent`` does not match (``validate_structured_output``
                turns the check off). The result is on the error's ``result``.
            TaskCancelled: the call's task was cancelled on the server.
        """
        seconds = resolve_timeout(timeout, self.transport.default_timeout)
        started = time.monotonic()
        if progress_resets_timeout is None:
            # Decided by the caller's own arguments, before a bar (there only when someone watches) joins in.
            progress_resets_timeout = on_progress is not None or max_total_timeout is not None
        bar = progress_bar_for(progress_bar, name, on_progress)
        progress = bar.update if bar else on_progress
        try:
            done = self._tool_calls.start(
                name,
                arguments,
                meta,
                seconds,
                on_progress=progress,
                max_total_timeout=max_total_timeout,
                progress_resets_timeout=progress_resets_timeout,
                on_status=status_as_progress(progress) if progress else None,
            )
            if isinstance(done, CallToolResult):
                return done  # answered at once: the usual case
            return self._tool_calls.wait(done, seconds, started)
        finally:
            if bar is not None:
                bar.close()

    def start_tool(
        self,
        name: str,
        arguments: Optional[Mapping[str, Any]] = None,
        *,
        timeout: Timeout = USE_DEFAULT,
        meta: Optional[Mapping[str, Any]] = None,
        on_status: Optional[OnStatus] = None,
    ) -> ToolTask:
        """Call a tool and return its task (a ``ToolTask``) as soon as the server has taken the call.

        A server that answers at once gives a task that is done already. On
        2025-11-25, a task is asked for when the server runs tools as tasks and
        the tool allows it (``execution.taskSupport``); on 2026-07-28 the server
        decides. ``task.result(timeout=)`` waits for the end (the input the task
        asks for goes to the client's handlers), ``task.cancel()`` ends it,
        ``task.status`` / ``task.status_message`` say where it is, and
        ``on_status(task)`` hears each change. ``timeout`` bounds this call only.
        """
        seconds = resolve_timeout(timeout, self.transport.default_timeout)
        started = self._tool_calls.start(name, arguments, meta, seconds, on_status=on_status, ask_for_task=True)
        return started if isinstance(started, ToolTask) else self._tool_calls.task(name, None, on_status, done=started)

    def task(
        self,
        task_id: str,
        *,
        tool: Optional[str] = None,
        timeout: Timeout = USE_DEFAULT,
        on_status: Optional[OnStatus] = None,
    ) -> ToolTask:
        """Re-attach to a task by its id: the ``ToolTask`` that ``start_tool`` gave, from any client of the
        same server (another connection, another process, after a crash), as the tasks extension means
        task ids to be kept.

        The task is asked for at once (``tasks/get``), so ``task.status`` is the server's word of now;
        ``task.refresh()``, ``task.result(timeout=)`` and ``task.cancel()`` work as on a task just
        started. Works with the tasks extension (2026-07-28) and the 2025-11-25 tasks (``tasks/get``,
        ``tasks/result``), where the server keeps tasks beyond the session that made them.

        Args:
            task_id: the server's task id (``ToolTask.id``).
            tool: the tool's name, if known: its result is then checked against the tool's
                ``outputSchema``, as ``call_tool`` does (the server does not say which tool a task runs).
            timeout: seconds for the ``tasks/get``; default: the transport's.
            on_status: ``fn(task)`` on each change of status, as for ``start_tool``.

        Raises:
            TaskNotFound: the server knows no task of that id (-32602: never made, another
                server's or user's, or expired).
            ServerError: the server refused otherwise (-32601: it runs no tasks).
        """
        seconds = resolve_timeout(timeout, self.transport.default_timeout)
        return self._tool_calls.attach(task_id, tool, seconds, on_status)

    def list_resources(
        self,
        *,
        timeout: Timeout = USE_DEFAULT,
        cache: bool = True,
        meta: Optional[Mapping[str, Any]] = None,
        max_pages: Optional[int] = None,
    ) -> list[Resource]:
        """All the server's resources, across every page (``timeout`` bounds the whole listing;
        ``cache``, ``meta`` and ``max_pages`` as for ``list_tools``)."""
        return self._listings.all("resources", timeout, cache, meta, max_pages)

    def list_resources_page(
        self, cursor: Optional[str] = None, *, timeout: Timeout = USE_DEFAULT, meta: Optional[Mapping[str, Any]] = None
    ) -> Page[Resource]:
        """One page of ``resources/list`` (as ``list_tools_page``)."""
        return self._listings.page("resources", cursor, timeout, meta)

    def iter_resources(
        self,
        *,
        timeout: Timeout = USE_DEFAULT,
        meta: Optional[Mapping[str, Any]] = None,
        max_pages: Optional[int] = None,
    ) -> Iterator[Resource]:
        """The server's resources, page by page as they are used (as ``iter_tools``)."""
        return self._listings.iterate("resources", timeout, meta, max_pages)

    def list_resource_templates(
        self,
        *,
        timeout: Timeout = USE_DEFAULT,
        cache: bool = True,
        meta: Optional[Mapping[str, Any]] = None,
        max_pages: Optional[int] = None,
    ) -> list[ResourceTemplate]:
        """All the server's resource templates (``uriTemplate`` in RFC 6570 form), across every page
        (``meta`` and ``max_pages`` as for ``list_tools``). ``cache``: served again while the server's
        ``ttlMs`` says the listing is fresh (2026-07-28; a resource list change ends that)."""
        return self._listings.all("resource_templates", timeout, cache, meta, max_pages)

    def list_resource_templates_page(
        self, cursor: Optional[str] = None, *, timeout: Timeout = USE_DEFAULT, meta: Optional[Mapping[str, Any]] = None
    ) -> Page[ResourceTemplate]:
        """One page of ``resources/templates/list`` (as ``list_tools_page``)."""
        return self._listings.page("resource_templates", cursor, timeout, meta)

    def iter_resource_templates(
        self,
        *,
        timeout: Timeout = USE_DEFAULT,
        meta: Optional[Mapping[str, Any]] = None,
        max_pages: Optional[int] = None,
    ) -> Iterator[ResourceTemplate]:
        """The server's resource templates, page by page as they are used (as ``iter_tools``)."""
        return self._listings.iterate("resource_templates", timeout, meta, max_pages)

    def read_resource(
        self,
        uri: str,
        *,
        timeout: Timeout = USE_DEFAULT,
        cache: bool = True,
        meta: Optional[Mapping[str, Any]] = None,
    ) -> ReadResourceResult:
        """Read a resource: ``result.contents`` (text, or binary as ``.data`` bytes), ``result.text``.

        ``cache``: serve the contents read last while the server's ``ttlMs`` says they are fresh
        (2026-07-28; ``resources/updated`` for it, or a resource list change, ends that). A read
        with ``meta`` (the request's ``_meta``) always asks the server and is not kept.

        Raises:
            ServerError: e.g. -32002, the resource does not exist.
        """
        held = self._lists.fresh(uri) if cache and meta is None else None
        if held is not None:
            return held  # type: ignore[no-any-return]
        self._require("resources/read")
        context = self._lists.context()
        raw = self.request("resources/read", with_meta({"uri": uri}, meta), timeout=timeout)
        result = ReadResourceResult.from_dict(raw, uri)
        if meta is None:
            self._lists.store(uri, result, [raw], context=context)
        return result

    def subscribe_resource(
        self, uri: str, *, timeout: Timeout = USE_DEFAULT, meta: Optional[Mapping[str, Any]] = None
    ) -> None:
        """Ask for ``notifications/resources/updated`` when the resource changes (see ``on_notification``).

        In the modern era the resource joins the client's ``subscriptions/listen``, a request shared
        by every subscription, so ``meta`` (the legacy request's ``_meta``) has nothing to go with.
        """
        if self.era == MODERN:
            self._check_open()
            self._subscriptions.subscribe(uri)
            return
        self._require("resources/subscribe")
        self.request("resources/subscribe", with_meta({"uri": uri}, meta), timeout=timeout)

    def unsubscribe_resource(
        self, uri: str, *, timeout: Timeout = USE_DEFAULT, meta: Optional[Mapping[str, Any]] = None
    ) -> None:
        """Stop the updates ``subscribe_resource`` asked for (``meta`` as there)."""
        if self.era == MODERN:
            self._check_open()
            self._subscriptions.unsubscribe(uri)
            return
        self._require("resources/unsubscribe")
        self.request("resources/unsubscribe", with_meta({"uri": uri}, meta), timeout=timeout)

    def list_prompts(
        self,
        *,
        timeout: Timeout = USE_DEFAULT,
        cache: bool = True,
        meta: Optional[Mapping[str, Any]] = None,
        max_pages: Optional[int] = None,
    ) -> list[Prompt]:
        """All the server's prompts, across every page (``cache``, ``meta``, ``max_pages`` as for ``list_tools``)."""
        return self._listings.all("prompts", timeout, cache, meta, max_pages)

    def list_prompts_page(
        self, cursor: Optional[str] = None, *, timeout: Timeout = USE_DEFAULT, meta: Optional[Mapping[str, Any]] = None
    ) -> Page[Prompt]:
        """One page of ``prompts/list`` (as ``list_tools_page``)."""
        return self._listings.page("prompts", cursor, timeout, meta)

    def iter_prompts(
        self,
        *,
        timeout: Timeout = USE_DEFAULT,
        meta: Optional[Mapping[str, Any]] = None,
        max_pages: Optional[int] = None,
    ) -> Iterator[Prompt]:
        """The server's prompts, page by page as they are used (as ``iter_tools``)."""
        return self._listings.iterate("prompts", timeout, meta, max_pages)

    def get_prompt(
        self,
        name: str,
        arguments: Optional[Mapping[str, str]] = None,
        *,
        timeout: Timeout = USE_DEFAULT,
        meta: Optional[Mapping[str, Any]] = None,
    ) -> GetPromptResult:
        """Get a prompt filled in with ``arguments`` (strings, as the spec has them); ``meta`` is the
        request's ``_meta``.

        Raises:
            TypeError: an argument value is not a string.
            ServerError: e.g. -32602, an unknown prompt or a missing required argument.
        """
        self._require("prompts/get")
        params: dict[str, Any] = {"name": name}
        if arguments is not None:
            bad = {key: value for key, value in arguments.items() if not isinstance(value, str)}
            if bad:
                raise TypeError(f"prompt arguments must be strings; not: {bad!r}")
            params["arguments"] = dict(arguments)
        return GetPromptResult.from_dict(self.request("prompts/get", with_meta(params, meta), timeout=timeout), name)

    def complete(
        self,
        ref: Mapping[str, Any],
        argument: Union[Mapping[str, str], tuple[str, str]],
        context: Optional[Mapping[str, str]] = None,
        *,
        timeout: Timeout = USE_DEFAULT,
        meta: Optional[Mapping[str, Any]] = None,
    ) -> Completion:
        """Ask for completions of an argument of a prompt or a resource template.

        Args:
            ref: ``{"type": "ref/prompt", "name": ...}`` or ``{"type": "ref/resource", "uri": <template>}``.
            argument: ``{"name": ..., "value": <typed so far>}``, or the pair ``(name, value)``.
            context: values of other arguments already chosen (sent as ``context.arguments``).
            meta: the request's ``_meta``.
        """
        self._require("completion/complete")
        if isinstance(argument, tuple):
            argument = {"name": argument[0], "value": argument[1]}
        params: dict[str, Any] = {"ref": dict(ref), "argument": dict(argument)}
        if context is not None:
            params["context"] = {"arguments": dict(context)}
        return Completion.from_dict(self.request("completion/complete", with_meta(params, meta), timeout=timeout))

    # -- skills (the io.modelcontextprotocol/skills extension) -------------------------------

    def list_skills(
        self,
        *,
        timeout: Timeout = USE_DEFAULT,
        cache: bool = True,
        meta: Optional[Mapping[str, Any]] = None,
        max_pages: Optional[int] = None,
    ) -> list[Skill]:
        """The server's skills, across every page; reads none of their files.

        An entry that breaks the extension's rules (its name not the last segment of its path, its
        files not all listed, over 512 files or 16 MiB) is left out, with a warning naming it and
        the rule. ``cache``, ``meta`` and ``max_pages`` as for ``list_tools`` (the listing's ``ttlMs``).

        Raises:
            ExtensionNotDeclared: the server does not declare ``io.modelcontextprotocol/skills``.
            PageLimitExceeded: the server still had a cursor after ``max_pages`` pages.
            ProtocolError: a malformed page, or a repeated cursor.
        """
        return self._listings.all("skills", timeout, cache, meta, max_pages)

    def list_skills_page(
        self, cursor: Optional[str] = None, *, timeout: Timeout = USE_DEFAULT, meta: Optional[Mapping[str, Any]] = None
    ) -> Page[Skill]:
        """One page of ``skills/list`` (as ``list_tools_page``; entries that break the rules left out,
        as ``list_skills`` leaves them out)."""
        return self._listings.page("skills", cursor, timeout, meta)

    def get_skill(self, uri: str, *, timeout: Timeout = USE_DEFAULT) -> Skill:
        """One skill's entry (``skills/get``), by its SKILL.md URI; reads none of its files.

        Raises:
            ExtensionNotDeclared: the server does not declare the skills extension.
            ServerError: -32602, the server has no such skill.
        """
        return self._skills.get(uri, timeout=timeout)

    def load_skill(
        self, skill: Union[Skill, str], *, allow_dynamic: bool = False, timeout: Timeout = USE_DEFAULT
    ) -> LoadedSkill:
        """Read a skill's SKILL.md, verify it, and nothing else: ``.text``, ``.frontmatter``, ``.read(path)``.

        ``skill``: an entry this client listed, or a SKILL.md URI (its entry is asked for with
        ``skills/get``). The entry's rules and limits are checked before anything is read; the
        file's size and SHA-256 must be the listed ones, and its YAML frontmatter equal, field by
        field, to the entry's. ``LoadedSkill.read`` reads the other files one by one, each only if
        the entry lists it, verified the same way. A dynamic skill (``resources: "dynamic"``) has
        nothing to verify its files by, and loads only with ``allow_dynamic=True``.

        Raises:
            SkillVerificationError: the entry or its SKILL.md is not what it must be (what was read is
                not used); the message names the skill, the file, and what was expected and got.
            ExtensionNotDeclared: the server does not declare the skills extension.
            ValueError: a ``Skill`` listed by another client (identity is server and URI).
        """
        return self._skills.load(skill, allow_dynamic=allow_dynamic, timeout=timeout)

    def read_directory(
        self, uri: str, *, timeout: Timeout = USE_DEFAULT, max_pages: Optional[int] = None
    ) -> list[Resource]:
        """The direct children of a directory resource (``resources/directory/read`` of the skills
        extension, every page): files as ``Resource`` (``size``, ``mime_type``), subdirectories with
        ``mime_type`` ``"inode/directory"``. Only where the server declares ``directoryRead: true``.
        Nothing is verified here: ``LoadedSkill.list_directory`` lists a skill's directory against its entry.

        Raises:
            ExtensionNotDeclared: the server does not declare the extension or ``directoryRead``
                (the extension forbids sending it then: nothing is sent).
            ServerError: -32602, ``uri`` is no directory the server serves.
            PageLimitExceeded, ProtocolError: as for ``list_tools``.
        """
        found: list[Resource] = []
        for page in self._skills.read_directory(uri, timeout, max_pages):
            for item in page:
                found.append(Resource.from_dict(item, f"resources/directory/read {uri!r} item #{len(found)}"))
        return found

    def set_logging_level(
        self, level: str, *, timeout: Timeout = USE_DEFAULT, meta: Optional[Mapping[str, Any]] = None
    ) -> None:
        """Ask the server to send log messages at ``level`` and above (debug ... emergency).

        They go to the logger ``mcpsync.server.<name>`` and to ``on_log``. On 2026-07-28 every
        request asks for the level in its ``_meta`` (a server of that revision logs to no request
        that does not; a client given ``on_log`` asks for ``info`` until told otherwise), and no
        request of its own is sent; ``meta`` is the ``logging/setLevel`` request's ``_meta``.
        """
        if level not in LOG_LEVELS:
            raise ValueError(f"unknown logging level {level!r}; one of {', '.join(LOG_LEVELS)}")
        if self.era == MODERN and self._channel.meta is not None:
            # The 2026-07-28 revision has no logging/setLevel: each request carries the level it wants.
            self._log_level = level
            self._ask_for_logs()
            return
        self._require("logging/setLevel")
        self.request("logging/setLevel", with_meta({"level": level}, meta), timeout=timeout)

    def set_roots(self, roots: Roots) -> None:
        """Replace the roots offered to the server, and tell it (``notifications/roots/list_changed``).

        Only for a client made with ``roots=`` (the capability is declared at ``initialize``). The
        server is told only when ``roots.listChanged`` was declared (``roots_list_changed``); else it
        sees the new roots when it next asks.

        Raises:
            ProtocolError: the client was made without ``roots=``.
        """
        self._server_requests.set_roots(roots)
        declared = self.capabilities.get("roots")
        if self.is_connected and isinstance(declared, Mapping) and declared.get("listChanged"):
            self.notify("notifications/roots/list_changed")

    def _dropped(self) -> None:
        # Reader thread: the dispatch queue was full and a notification's callback was left out.
        self.transport.stats.dropped += 1

    # -- what the server says changed -------------------------------------------------

    def _list_changed(self, kind: str) -> None:
        # Reader thread: the list is forgotten; the tool schemas go with the tools.
        if kind == "tools":
            self._output_schemas.forget()

    def refresh(self, kind: str) -> None:
        """Fetch the ``"tools"``, ``"prompts"`` or ``"resources"`` list again (as ``refresh_on_list_changed`` does)."""
        {"tools": self.list_tools, "prompts": self.list_prompts, "resources": self.list_resources}[kind]()


# A Ctrl-C leaves these with a short KeyboardInterrupt (see interrupts.py).
shorten_interrupts(
    Client,
    (
        "initialize",
        "request",
        "ping",
        "discover",
        "list_tools",
        "list_tools_page",
        "call_tool",
        "start_tool",
        "list_resources",
        "list_resources_page",
        "list_resource_templates",
        "list_resource_templates_page",
        "read_resource",
        "subscribe_resource",
        "unsubscribe_resource",
        "list_prompts",
        "list_prompts_page",
        "get_prompt",
        "complete",
        "set_logging_level",
        "list_skills",
        "list_skills_page",
        "get_skill",
        "load_skill",
    ),
)
