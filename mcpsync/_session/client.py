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
import functools
import logging
import math
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any, Callable, Optional

from .._core.eras import LOG_LEVEL, UNSUPPORTED_VERSION, result_type
from .._core.errors import ConfigurationError, ProtocolError, RequestTimeout, ServerError
from .._core.pending import RequestFuture
from .._core.timeouts import USE_DEFAULT, Deadline, Timeout, check_timeout, resolve_timeout
from .._threads.signals import DEFERRED
from .._version import __version__
from .._wire.base import Transport, TransportStats
from . import apps as ui_extension, exit_cleanup, negotiation, server_capabilities
from .cache import DISCOVER_KEY, ListCache
from .channel import Channel
from .dispatch import Dispatcher
from .era import AUTO, MODERN, check_protocol, era_of
from .inbox import Inbox, LogHandler, NotificationHandler
from .input_required import next_round
from .listings import ListingMethods, Listings, usable_tools
from .models import ReadResourceResult, ServerInfo
from .paging import with_meta
from .progress import ProgressCallback, ProgressTokens, request_with_progress
from .server_requests import ELICITATION_MODES, RequestHandler, Roots, ServerRequests
from .skills import Skills
from .structured_output import OutputSchemas
from .subscriptions import Subscriptions
from .tool_calls import ToolCalls, ToolMethods
from .tracebacks import short_interrupts
from .tracing import Tracing
from .typed_methods import TypedMethods

__all__ = ["Client", "ClientState"]

logger = logging.getLogger("mcpsync.client")


class ClientState(enum.Enum):
    """A client's life: unopened, open (initialized), closed."""

    UNOPENED = "unopened"
    OPEN = "open"
    CLOSED = "closed"


class Client(ListingMethods, ToolMethods, TypedMethods):
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
        apps: declare the MCP Apps extension (``io.modelcontextprotocol/ui``, HTML views): ``True``,
            ``False``, or ``None`` (the default) for "when a notebook host is in use" (an IPython
            kernel with anywidget). ``result.ui`` reads a tool's view either way.
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
        apps: Optional[bool] = None,
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
        # A request with progress, or with a cap on its time (no frame of its own: a partial).
        self._with_progress = functools.partial(request_with_progress, self._channel, self._progress, self._dispatcher)
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
                capabilities=ui_extension.declared(capabilities, apps),
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
        with DEFERRED:
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

    @short_interrupts
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
        with DEFERRED, self._lock:
            if self._state is not ClientState.UNOPENED or self._initializing:
                raise ProtocolError(f"{self.name}: initialize() may run once; the client is {self._state.value}")
            self._initializing = True
        # The lock is not held while we wait, so close() from another thread can cut the handshake short.
        seconds = resolve_timeout(timeout, resolve_timeout(self.connect_timeout, self.transport.default_timeout))
        # Opening counts too; a person who logs in meanwhile (the probe's, initialize's) is not the caller's time.
        deadline = Deadline(seconds, self._channel)
        try:
            with DEFERRED:  # starting threads and processes: not to be cut in half
                self.transport.open(self._inbox, deadline=deadline.at())
            result, agreement = negotiation.negotiate(
                self._channel, self.protocol, self.capabilities, self._modern_capabilities(), self.client_info, deadline
            )
            self._agree(agreement)
            if agreement.supported_versions:  # a modern server's discover answer: served again while fresh
                self._lists.store(DISCOVER_KEY, result, [result], context=None)
        except BaseException as exc:
            # First: the stderr reader has drained the pipe then. Within the caller's deadline: a server
            # that neither answered nor exits when its stdin closes is not waited for past it.
            self._close(deadline.at())
            if isinstance(exc, RequestTimeout):
                # Whichever request it was (the probe, initialize): the timeout given, not what was
                # left of it, and what the server sent instead.
                given = RequestTimeout(exc.method, exc.timeout if seconds is None else seconds)
                raise self.transport.timeout_error(given) from None
            raise
        with DEFERRED, self._lock:
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
            self._channel.header_hook = lambda method, params: negotiation.call_headers(
                self._lists.get("tools"), method, params
            )
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

    def _modern_capabilities(self) -> dict[str, Any]:
        """The capabilities a modern request declares (``negotiation.modern_capabilities``)."""
        return negotiation.modern_capabilities(self.capabilities, self.transport.authorizer)

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
        self._close(math.inf)

    def _close(self, deadline: float) -> None:
        """``close``, its polite waits cut to end by ``deadline`` (a ``time.monotonic()``)."""
        with DEFERRED:
            with self._lock:
                self._state = ClientState.CLOSED
            self._subscriptions.close()
            # Outside the lock: a handler calling close() while another thread closes must not deadlock.
            try:
                self.transport.close(deadline=deadline)
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
        """Before a typed method's request: the client is open, and (strict) ``method``'s capability declared."""
        if self._state is not ClientState.OPEN:
            self._check_open()
        if self.strict_capabilities:
            server_capabilities.require(self.name, self.server_capabilities, method)

    def _check_open(self) -> None:
        if self._state is not ClientState.OPEN:
            if self._state is ClientState.UNOPENED:
                raise ProtocolError(f"{self.name}: call initialize() (or use 'with') before sending requests")
            raise self.transport.closed_error()

    @short_interrupts
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
        seconds = resolve_timeout(timeout, self.transport.default_timeout)
        return self._exchange(method, params, seconds, on_progress, max_total_timeout, progress_resets_timeout)

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
        try:
            if on_progress is None and max_total_timeout is None and self._channel.meta is None:
                # The legacy era's usual request: its answer is final (no resultType, no renegotiation).
                return self._channel.request(method, params, timeout=seconds)
            began = time.monotonic()
            deadline: Optional[Deadline] = None  # made when a second round needs what is left
            sent, rounds = self.protocol_version, 0
            resent: Optional[str] = None  # the version the request went again with, after a -32022
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
                    resent = negotiation.version_after_refusal(exc, sent, self.name, resent)
                    self._use_modern(resent)
                    deadline = deadline or Deadline(seconds, start=began)
                    seconds = deadline.left()
                    if seconds is not None and seconds <= 0:
                        raise RequestTimeout(method, deadline.seconds or 0.0) from None  # no time left to send it again
                    continue
                kind = result_type(result)
                if kind != "input_required":
                    break
                deadline = deadline or Deadline(seconds, start=began)
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
        if kind == "task" and method != "tools/call":
            raise ProtocolError(f"{self.name}: {method}: the server answered with a task, which only tools/call may")
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

    @short_interrupts
    def ping(self, *, timeout: Timeout = USE_DEFAULT, meta: Optional[Mapping[str, Any]] = None) -> None:
        """Check the server answers; raises like ``request`` if it does not.

        The 2026-07-28 revision has no ``ping``: a modern server is asked ``server/discover`` instead.
        ``meta`` is sent as the request's ``_meta`` (as for every typed method).
        """
        self.request("server/discover" if self.era == MODERN else "ping", with_meta(None, meta), timeout=timeout)

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

    def _list_changed(self, kind: str) -> None:
        # Reader thread: the list is forgotten; the tool schemas go with the tools.
        if kind == "tools":
            self._output_schemas.forget()
