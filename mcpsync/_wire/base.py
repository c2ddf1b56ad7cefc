"""What every transport shares: its life, its endpoint, and handing what it reads to its owner.

A transport moves bytes and nothing else. Its endpoint
(``mcpsync._core.endpoint``) numbers the requests, keeps their futures and
reads what comes in; the transport writes the bytes the endpoint encoded,
feeds it every framed message it reads, and hands the endpoint's events to
its owner, the ``Receiver`` given to ``open``. Waiting for answers, timeouts
and cancellation belong to the owner (``mcpsync._session.channel``).

Subclasses provide the wire (``_open``, ``_write_request``, ``_write``,
``_shutdown``) and call ``_feed`` with each message they read.

Receiver methods run on the transport's reader threads: they must return
quickly and must not block on the transport (the ``Client`` only queues work
for its dispatch thread there); user code never runs on a reader thread.
"""

from __future__ import annotations

import enum
import logging
import math
import threading
import time
import warnings
from typing import Any, ClassVar, Optional, Protocol, Union

from .._core.authorizer import Authorizer
from .._core.endpoint import DEFAULT_MAX_MESSAGE_SIZE, Endpoint, Event, Incoming, Problem, Reply, TransportStats
from .._core.errors import MCPError, ProtocolError, ProtocolWarning, RequestTimeout, TransportClosed
from .._core.jsonrpc import Data, Kind, Message
from .._core.pending import RequestFuture
from .._core.timeouts import DEFAULT_TIMEOUT, USE_DEFAULT, Timeout, check_timeout, resolve_timeout
from .._threads.latches import Latch
from .config import MessageSize, check_max_message_size

__all__ = ["Receiver", "Transport", "TransportState", "TransportStats"]

logger = logging.getLogger("mcpsync.transport")

#: What each kind of skipped message is, in a ``ProtocolWarning``'s words.
_SKIPPED = {
    "malformed": "output that is not JSON-RPC",
    "invalid": "a message that fails the JSON-RPC schema",
    "unmatched_responses": "a response to no request",
    "oversized": "a message over max_message_size",
}
#: Every message sent (``-->``) and received (``<--``), at DEBUG; ``mcpsync -v`` shows it.
traffic_logger = logging.getLogger("mcpsync.traffic")

#: Default seconds a write may wait for a server that is not reading its input.
DEFAULT_WRITE_TIMEOUT = 10.0
#: Seconds close() spends at most telling the server about requests in flight.
CLOSE_NOTICE_BUDGET = 1.0
#: Seconds a notice (a cancellation) may take to go out; it is sent in the background.
NOTICE_TIMEOUT = 2.0
#: Seconds a write from a reader thread may wait (a blocked reader reads no responses).
READER_WRITE_TIMEOUT = 1.0
#: The server's last stderr lines a timeout's text shows (stdio).
TIMEOUT_STDERR_LINES = 5
#: Seconds a second close() waits for the first to finish.
CLOSE_WAIT = 30.0
#: Characters of a message the traffic log shows.
TRAFFIC_LIMIT = 500


class Receiver(Protocol):
    """Who a transport hands what it reads to (the ``Client``); called on reader threads."""

    def incoming(self, message: Message, kind: Kind) -> None:
        """A valid request or notification from the server."""

    def problem(self, error: ProtocolError) -> None:
        """A message was skipped or refused (already logged and counted), and no request failed for it."""

    def closed(self, error: Optional[BaseException]) -> None:
        """The connection ended: ``None`` after ``close()``, else why it was lost. Called once."""


class TransportState(enum.Enum):
    """Where a transport is in its life; it only moves forward."""

    UNOPENED = "unopened"
    OPEN = "open"
    CLOSING = "closing"
    CLOSED = "closed"


class _NoReceiver:
    """Until ``open``: answers nothing, keeps nothing."""

    def incoming(self, message: Message, kind: Kind) -> None:
        pass

    def problem(self, error: ProtocolError) -> None:
        pass

    def closed(self, error: Optional[BaseException]) -> None:
        pass


class Transport:
    """Base class of the transports; see the module docstring for the division of labour.

    Args:
        name: the server's name, used in logs, errors and thread names.
        timeout: the default timeout of this server's requests, in seconds
            (``None``: no limit; ``USE_DEFAULT``: 30 s); read by the client.
        write_timeout: seconds a write may wait for a server that does not read
            its input; then ``WriteTimeout`` (default 10 s; ``None``: no limit).
        max_message_size: bytes one message from the server may have (a stdio
            line, an SSE event, an HTTP JSON body; ``USE_DEFAULT``: 64 MiB;
            ``None``: no limit). A larger one is discarded without being held
            in memory, and the request it answers fails at once with ``MessageTooLarge``.
    """

    #: What kind of wire this is: ``"stdio"``, ``"http"`` or ``"sse"``.
    kind: ClassVar[str] = ""

    def __init__(
        self,
        *,
        name: str,
        timeout: Timeout = USE_DEFAULT,
        write_timeout: Timeout = DEFAULT_WRITE_TIMEOUT,
        max_message_size: MessageSize = USE_DEFAULT,
    ) -> None:
        check_max_message_size(max_message_size, name)
        timeout = check_timeout(timeout, name)
        writes = resolve_timeout(write_timeout, DEFAULT_WRITE_TIMEOUT)
        self.name = name
        #: Seconds a write may wait for a server that does not read (``math.inf``: no limit).
        self.write_timeout = math.inf if writes is None else writes
        #: The server's requests' default timeout in seconds (``None``: no limit).
        self.default_timeout: Optional[float] = DEFAULT_TIMEOUT if timeout is USE_DEFAULT else timeout
        #: Where ``default_timeout`` came from, said by a request that times out after it (a file's
        #: ``"timeout": 30``, in milliseconds); ``""``: nothing to say.
        self.timeout_note = ""
        size = DEFAULT_MAX_MESSAGE_SIZE if max_message_size is USE_DEFAULT else max_message_size
        #: This connection's JSON-RPC endpoint: ids, pending requests, what comes in.
        self.endpoint = Endpoint(name, size)
        #: Where what the server itself says goes: its stderr (stdio) and its log messages.
        self.server_logger = logging.getLogger("mcpsync.server." + name.replace(".", "_"))
        #: The negotiated protocol version (``negotiated`` sets it; HTTP sends it as a header).
        self.protocol_version: Optional[str] = None
        self._receiver: Receiver = _NoReceiver()
        self._warned: set[str] = set()  # the kinds of skipped messages a ProtocolWarning told of
        self._state = TransportState.UNOPENED
        self._state_lock = threading.Lock()
        self._start_lock = threading.Lock()
        self._close_notified = False
        # close() must still reap and join after the connection was lost on its own.
        self._shutdown_started = False
        self._opening = False  # open() is starting the wire: a close() meanwhile leaves the shutdown to it
        #: The ``time.monotonic()`` by which ``close`` must be done (``math.inf``: none but each wait's own bound).
        self._close_deadline = math.inf
        # Set when the connection was lost: the error that says why (and the latch, once it is known).
        self._lost_error: Optional[TransportClosed] = None
        self._lost = Latch()
        self._open_deadline = math.inf  # the handshake's (see open)
        self._closed_event = threading.Event()

    # -- what the owner sees ----------------------------------------------------------

    @property
    def stats(self) -> TransportStats:
        """The connection's counters (messages sent, received, malformed, ...)."""
        return self.endpoint.stats

    @property
    def max_message_size(self) -> Optional[int]:
        """Bytes one message from the server may have (``None``: no limit)."""
        return self.endpoint.max_message_size

    @property
    def state(self) -> TransportState:
        """The transport's life stage."""
        return self._state

    @property
    def is_connected(self) -> bool:
        """Whether messages can be sent now."""
        return self._state is TransportState.OPEN

    @property
    def address(self) -> str:
        """Where the server is: its command line (stdio) or its URL without credentials or query."""
        return ""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r} {self.address} {self._state.value}>"

    # -- life ---------------------------------------------------------------------------

    def open(self, receiver: Receiver, *, deadline: float = math.inf) -> None:
        """Open the connection (start the process, the reader threads); ``receiver`` gets what comes in.

        ``deadline`` (a ``time.monotonic()``): the handshake's, by which opening
        ends too (if ``connect_timeout`` does not end it first).

        Raises:
            ConnectError: the server could not be started or reached.
            TransportClosed: the transport was closed already.
        """
        # Not under _state_lock: a reader thread started by _open() may need it (to report a
        # connection lost while opening) before _open() returns.
        with self._start_lock:
            with self._state_lock:
                if self._state is TransportState.OPEN:
                    return
                if self._state is not TransportState.UNOPENED or self._shutdown_started:
                    raise TransportClosed(f"{self.name}: cannot open a closed transport")
                self._opening = True
            self._receiver = receiver
            self._open_deadline = deadline
            try:
                self._open()
            finally:
                with self._state_lock:
                    self._opening = False
                    closed_meanwhile = self._shutdown_started
                if closed_meanwhile:
                    # A close() from another thread came while the wire was being started, and left
                    # its shutdown to us: what _open() started (a process, its readers) must not outlive it.
                    self._finish_close(self._close_deadline)
            if closed_meanwhile:
                raise TransportClosed(f"{self.name}: closed by the client while it was being opened")
            with self._state_lock:
                if self._lost_error is not None:
                    raise self._lost_error.copy()
                self._state = TransportState.OPEN

    def negotiated(self, protocol_version: str) -> None:
        """The protocol version is agreed: later messages carry it (HTTP sends it as a header)."""
        self.protocol_version = protocol_version

    def handshake_complete(self, *, deadline: float = math.inf) -> None:
        """The session is ready (after ``notifications/initialized``): HTTP opens its GET stream
        (waiting for its answer no later than ``deadline``, the handshake's, a ``time.monotonic()``)."""

    def close(self, *, deadline: float = math.inf) -> None:
        """Close the connection, fail what is pending, and join every thread (bounded).

        Idempotent and safe from any thread, including a callback. A second
        caller waits (bounded) until the first has finished, except on the
        transport's own threads, which the first caller may be joining.

        Args:
            deadline: a ``time.monotonic()`` by which the caller must be done (a handshake's, when
                it failed): the polite waits of the shutdown (a server given time to exit after
                its stdin closes, or after SIGTERM) are cut to what is left of it.
        """
        with self._state_lock:
            first = not self._shutdown_started
            self._shutdown_started = True
            opening = self._opening
            if opening:
                self._close_deadline = deadline  # for open(), which shuts down what it is starting
        if opening:
            # open() is starting the wire on another thread: it shuts it down as soon as it is started,
            # and a wait of its own (an HTTP stream's first event) is cut short.
            self.endpoint.fail_all(lambda: TransportClosed(f"{self.name}: closed by the client"))
            self._stop_opening()
            first = False
        if not first:
            if threading.current_thread() not in self._threads():
                self._closed_event.wait(CLOSE_WAIT if deadline == math.inf else max(0.0, deadline - time.monotonic()))
            return
        self._finish_close(deadline)

    def _stop_opening(self) -> None:
        """``close()`` came while ``_open()`` runs on another thread: end what ``_open()`` waits for, at
        once (a transport whose ``_open`` only starts things needs nothing here)."""

    def _finish_close(self, deadline: float) -> None:
        """``close``'s work, once: fail what is pending, tell the server, shut the wire down."""
        in_flight = self.endpoint.in_flight() if self._state is TransportState.OPEN else []
        # Fail the callers first: the server's answer to a cancellation must not reach them instead.
        self.endpoint.fail_all(lambda: TransportClosed(f"{self.name}: closed by the client"))
        self._cancel_in_flight(in_flight)
        with self._state_lock:
            if self._state is not TransportState.CLOSED:  # not already lost
                self._state = TransportState.CLOSING
        self._close_deadline = deadline
        try:
            self._shutdown()
        finally:
            self._state = TransportState.CLOSED
            self._closed_event.set()
            self._notify_closed(None)

    def closed_error(self) -> TransportClosed:
        """The error for a request that cannot be sent now.

        After the server went away on its own, it says why (exit code, last
        stderr lines), for every later call as for the ones that were waiting.
        """
        if self._lost_error is not None:
            return self._lost_error.copy()
        if self._state is TransportState.UNOPENED:
            return TransportClosed(f"{self.name}: not started")
        return TransportClosed(f"{self.name}: closed by the client")

    #: How a timeout's text names what the server sends: the unit, the verb, where to.
    _units: ClassVar[tuple[str, str, str]] = ("message", "sent", "")

    @property
    def authorizer(self) -> Optional[Authorizer]:
        """The auth of this server's requests, once open (an HTTP transport's); ``None``: none."""
        return None

    def authorization_context(self) -> str:
        """Whose requests these are, as a fingerprint of the credentials sent (``""``: none; a stdio
        server's process is started once, with one environment). A result a server marks
        ``cacheScope: "private"`` is served again only while this stays the same."""
        return ""

    def context_in_config(self) -> bool:
        """Whether the configuration is the whole authorization context (a stdio server: its command,
        arguments, environment and directory), so that a private result may be kept under it."""
        return True

    @property
    def stderr_tail(self) -> tuple[str, ...]:
        """The last lines the server wrote to stderr (stdio; ``()`` for the others)."""
        return ()

    def timeout_error(self, error: RequestTimeout) -> RequestTimeout:
        """``error`` telling what the server sent instead of an answer, when that says something: the
        messages that were not JSON-RPC (how many, the first), and (stdio) its last stderr lines; and
        where the timeout came from, when ``timeout_note`` says (a file's ``"timeout": 30``)."""
        note = self.timeout_note if error.timeout == self.default_timeout else ""
        if error.detail or error.stderr_tail:
            if not note or note in error.detail:
                return error
            detail, tail = error.detail, error.stderr_tail
        else:
            stats, (unit, verb, where) = self.endpoint.stats, self._units
            detail = ""
            if stats.malformed:
                count = stats.malformed
                are = f"{count} {unit}s that are" if count > 1 else f"1 {unit} that is"
                detail = f"the server {verb} {are} not JSON-RPC{where}, for example {self.endpoint.first_malformed}"
            elif not stats.received and where:
                detail = f"the server {verb} nothing{where}"
            tail = self.stderr_tail[-TIMEOUT_STDERR_LINES:]
        detail = "; ".join(part for part in (detail, note) if part)
        if not detail and not tail:
            return error
        return RequestTimeout(error.method, error.timeout, detail=detail, stderr_tail=tail)

    def _cancel_in_flight(self, in_flight: list[RequestFuture]) -> None:
        """Tell the server about requests that were in flight, so it can stop working on them.

        All of it within ``CLOSE_NOTICE_BUDGET``: a server that does not read
        must not hold up ``close()``. They are failed already (so no
        ``abandon``); ``initialize`` is never cancelled.
        """
        deadline = time.monotonic() + CLOSE_NOTICE_BUDGET
        for future in in_flight:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return
            if future.method == "initialize":
                continue
            notice = Endpoint.notification(
                "notifications/cancelled", {"requestId": future.request_id, "reason": "the client is closing"}
            )
            try:
                self._write(notice, remaining)
            except MCPError as exc:
                logger.debug("server %r: could not send cancellation: %s", self.name, exc)
                return  # the wire is gone or stuck: nothing more to tell
            self.stats.cancelled += 1

    def __enter__(self) -> Transport:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _notify_closed(self, error: Optional[BaseException]) -> None:
        with self._state_lock:
            if self._close_notified:
                return
            self._close_notified = True
        try:
            self._receiver.closed(error)
        except Exception:
            logger.exception("server %r: the close callback failed", self.name)

    def _connection_lost(self, error: TransportClosed) -> None:
        """Called by a reader when the connection ends without ``close()``.

        Pending requests fail at once with copies of ``error``, and so does
        every later call. The wire's resources stay until the owner calls
        ``close()``, which is still required.
        """
        with self._state_lock:
            if self._shutdown_started or self._lost_error is not None:
                return  # close() is at work and reports the closing itself, or it was reported
            self._state = TransportState.CLOSED
            self._lost_error = error
        self._lost.set()
        logger.warning("server %r: connection lost: %s", self.name, error)
        self.endpoint.fail_all(error.copy)
        self._notify_closed(error)

    def _is_lost(self) -> bool:
        """Whether the connection was lost, or ``close()`` has begun (a reader describing the loss may stop)."""
        return self._shutdown_started or self._lost_error is not None

    # -- sending ----------------------------------------------------------------------

    def send_request(self, future: RequestFuture, data: Data, *, deadline: float, wait: bool) -> None:
        """Send a request the endpoint registered; its answer will settle ``future``.

        Args:
            deadline: the ``time.monotonic()`` by which its caller gives it up
                (``math.inf``: never): nothing the wire does for it lasts longer.
            wait: whether the calling thread will wait for the answer next. A
                wire may then read the answer on this thread (HTTP does)
                instead of handing the work to one of its own.

        Raises:
            TransportClosed: the connection is closed.
            WriteTimeout: nothing could be written in time (the connection is still sound).
        """
        self._check_open()
        self._log_out(data)
        self._write_request(future, data, deadline, wait)

    def send_message(self, data: Data, timeout: Timeout = USE_DEFAULT) -> None:
        """Send a notification or an answer to the server, within ``timeout`` seconds (default ``write_timeout``).

        Raises:
            TransportClosed: the connection is closed.
            WriteTimeout: the server took nothing in time.
            HTTPStatusError: an HTTP server refused it.
        """
        self._check_open()
        self._log_out(data)
        seconds = resolve_timeout(timeout, self.write_timeout)
        self._write(data, math.inf if seconds is None else seconds)

    def stop_request(self, future: RequestFuture, notice: Optional[Data]) -> None:
        """The owner gave ``future`` up: stop working for it, and send ``notice`` (its cancellation) if any.

        Returns at once: the notice goes out in the background, bounded by
        ``NOTICE_TIMEOUT``, and a failure to send it is only logged.
        """
        self._stop_working_for(future)
        if notice is not None and self.is_connected:
            self._log_out(notice)
            self._send_notice(notice)

    def held_up_by(self, future: RequestFuture) -> Optional[str]:
        """What the wire is doing for ``future`` instead of waiting for its answer (a token being got
        after a 401, say), for its timeout to say; ``None``: nothing but waiting."""
        return None

    def _check_open(self) -> None:
        if self._state is not TransportState.OPEN:
            raise self.closed_error()

    def _log_out(self, data: Data) -> None:
        if traffic_logger.isEnabledFor(logging.DEBUG):
            self._log_traffic("-->", data)

    # -- receiving ----------------------------------------------------------------------

    def _feed(self, data: Union[bytes, str]) -> None:
        """Hand one framed message (a line, an SSE event's data, a body) to the endpoint, and on."""
        if traffic_logger.isEnabledFor(logging.DEBUG):
            self._log_traffic("<--", data)
        events = self.endpoint.receive(data)
        if events:
            self._deliver(events)

    def _deliver(self, events: list[Event]) -> None:
        """Pass the endpoint's events on: to the receiver, to the log, or (its own answers) to the server."""
        for event in events:
            if type(event) is Incoming:
                try:
                    self._receiver.incoming(event.message, event.kind)
                except Exception:
                    logger.exception("server %r: handling a %s failed", self.name, event.kind.value)
            elif type(event) is Problem:
                if event.request_id is not None:
                    # Its caller hears of it: the request failed with this error.
                    logger.warning("server %r: request %r failed: %s", self.name, event.request_id, event.error)
                    continue
                logger.warning("server %r: skipped %s", self.name, event.error)
                if event.kind and event.kind not in self._warned:
                    self._warned.add(event.kind)
                    self._warn(event)
                try:
                    self._receiver.problem(event.error)
                except Exception:
                    logger.exception("server %r: the problem callback failed", self.name)
            elif type(event) is Reply:
                try:
                    self.send_message(event.data, READER_WRITE_TIMEOUT)
                except MCPError as exc:
                    logger.debug("server %r: could not answer: %s", self.name, exc)

    def _warn(self, problem: Problem) -> None:
        """The first skipped message of its kind on this connection, as a ``ProtocolWarning``.

        "Never silent" must hold with no logging set up, and a library may not configure logging:
        Python's warnings are shown by default, once here per kind and connection (the rest are
        counted in ``stats`` and logged), and can be filtered by category or turned into errors.
        They come from a reader thread: an error there would reach nobody but end the reader, so a
        warning the filters turned into an exception is dropped (it was logged above).
        """
        text = (
            f"server {self.name!r} sent {_SKIPPED.get(problem.kind, problem.kind)}, which was skipped: "
            f"{problem.error} (the first on this connection; the next are counted in stats.{problem.kind})"
        )
        try:
            # No source line to show: the cause is the server, not a line of anybody's code.
            warnings.warn_explicit(text, ProtocolWarning, "mcpsync", 0, module="mcpsync")
        except Warning:
            pass

    def _log_traffic(self, direction: str, data: Union[bytes, bytearray, str]) -> None:
        """Log one message of the traffic, cut to ``TRAFFIC_LIMIT`` characters (a huge one is not decoded whole)."""
        piece = data[: TRAFFIC_LIMIT * 4 + 2]
        text = (piece if isinstance(piece, str) else piece.decode("utf-8", "replace")).rstrip("\r\n")
        if len(text) > TRAFFIC_LIMIT:
            unit = "characters" if isinstance(data, str) else "bytes"
            text = f"{text[:TRAFFIC_LIMIT]}... ({len(data)} {unit} in all)"
        traffic_logger.debug("%s %s %s", self.name, direction, text)

    def _oversized(self, head: bytes, **details: Any) -> bool:
        """An incoming message is over ``max_message_size`` (see ``Endpoint.oversized``); returns whether
        it failed a request."""
        if not details.get("complete"):
            size = details.get("size")
            logger.warning(
                "server %r: discarding a message over max_message_size (%s bytes)%s%s",
                self.name,
                self.max_message_size,
                f", {size} bytes in all" if size is not None else "",
                f": {head[:120]!r}" if head else "",
            )
        events = self.endpoint.oversized(head, **details)
        self._deliver(events)
        return any(type(e) is Problem and e.request_id is not None for e in events)

    # -- the wire (subclasses) ----------------------------------------------------------

    def _open(self) -> None:
        """Open the wire and start the reader thread(s)."""
        raise NotImplementedError

    def _write_request(self, future: RequestFuture, data: Data, deadline: float, wait: bool) -> None:
        """Write a request (see ``send_request``); by default as any message, within ``write_timeout``."""
        self._write(data, max(0.0, min(self.write_timeout, deadline - time.monotonic())))

    def _write(self, data: Data, timeout: float) -> None:
        """Write one encoded message, thread-safe, within ``timeout`` seconds.

        Raises:
            WriteTimeout: nothing could be written in time (the connection is still sound).
            TransportClosed: the wire is gone, or broke mid-message.
        """
        raise NotImplementedError

    def _send_notice(self, data: Data) -> None:
        """Send a cancellation without making the caller wait (best effort, bounded by ``NOTICE_TIMEOUT``);
        ``stats.cancelled`` counts it once it is out."""
        try:
            self._write(data, NOTICE_TIMEOUT)
        except MCPError as exc:
            logger.debug("server %r: could not send a notice: %s", self.name, exc)
        else:
            self.stats.cancelled += 1

    def _stop_working_for(self, future: RequestFuture) -> None:
        """Hook: a request was given up on (HTTP transports cut its exchange)."""

    def _polite_wait(self, seconds: float, floor: float = 0.0) -> float:
        """``seconds`` of a shutdown's polite wait, cut to what is left of ``close``'s deadline (at least ``floor``)."""
        return max(floor, min(seconds, self._close_deadline - time.monotonic()))

    def _shutdown(self) -> None:
        """Close the wire and join every thread, each wait bounded."""
        raise NotImplementedError

    def _threads(self) -> tuple[Optional[threading.Thread], ...]:
        """The transport's own threads."""
        return ()
