"""What every transport shares: the request/response machinery above the wire.

A transport moves JSON-RPC messages and nothing else. Subclasses provide the
wire (``_open``, ``_write``, ``_shutdown``) and feed every line or event they
receive to ``_handle_data``; this class validates it, resolves the pending
futures, and hands requests and notifications to the callbacks.

Callbacks run on the transport's reader thread. They must return quickly and
must not block on the transport (the ``Client`` only queues work for its own
dispatch thread there); user code never runs on a reader thread.
"""

from __future__ import annotations

import concurrent.futures
import enum
import logging
import re
import threading
import time
from dataclasses import dataclass, fields
from typing import Any, Callable, Optional, Union

from .. import messages, peek
from ..config import DEFAULT_TIMEOUT, USE_DEFAULT, check_max_message_size, resolve_timeout
from ..errors import (
    InvalidMessage,
    MCPError,
    MessageTooLarge,
    ProtocolError,
    RequestTimeout,
    ServerError,
    TransportClosed,
)
from ..messages import Kind, Message, RequestId
from ..pending import PendingRequests, RequestFuture
from ..schema import validate

__all__ = ["DEFAULT_MAX_MESSAGE_SIZE", "Transport", "TransportState", "TransportStats"]

logger = logging.getLogger("mcpsync.transport")
#: Every message sent (``-->``) and received (``<--``), at DEBUG; ``mcpsync -v`` shows it.
traffic_logger = logging.getLogger("mcpsync.traffic")

#: Default seconds a write may wait for a server that is not reading its input.
DEFAULT_WRITE_TIMEOUT = 10.0
#: Seconds close() spends at most telling the server about requests in flight.
CLOSE_NOTICE_BUDGET = 1.0
#: Seconds a timed-out caller waits for a response that won the race against its timeout.
RACE_GRACE = 1.0
#: Seconds a write from a reader thread may wait (a blocked reader reads no responses).
READER_WRITE_TIMEOUT = 1.0
#: Seconds a second close() waits for the first to finish.
CLOSE_WAIT = 30.0
#: Characters of a message the traffic log shows.
TRAFFIC_LIMIT = 500
#: Bytes one message from the server may have by default (a stdio line, an SSE event, an HTTP JSON body).
#: Generous: tool results carry base64 images and documents of tens of MB; decoding a message costs
#: a few times its size in memory, so 64 MiB keeps one absurd message from exhausting memory.
DEFAULT_MAX_MESSAGE_SIZE = 64 * 1024 * 1024
#: Bytes at the start and at the end of an oversized message searched for its id.
ID_SCAN_BYTES = 4096

# Where a JSON-RPC response may start after junk on the same line.
_MESSAGE_START = re.compile(rb'\{\s*"(?:jsonrpc|id|result|error)"\s*:')
#: Places in a malformed line tried as the start of a message that follows junk.
SALVAGE_ATTEMPTS = 3

MessageCallback = Callable[[Message], None]
CloseCallback = Callable[[Optional[BaseException]], None]
ErrorCallback = Callable[[BaseException], None]


class TransportState(enum.Enum):
    """Where a transport is in its life; it only moves forward."""

    UNOPENED = "unopened"
    OPEN = "open"
    CLOSING = "closing"
    CLOSED = "closed"


@dataclass
class TransportStats:
    """Counters a user can read (``transport.stats``) to see what a connection went through.

    Attributes:
        sent: messages written.
        received: messages read (each element of a batch counts).
        malformed: lines or events that were not JSON (logged and skipped).
        invalid: messages that failed the envelope schema (logged and skipped,
            or failing their request when their id matched one).
        unmatched_responses: responses whose id matches no request (logged and skipped).
        late_responses: responses to requests their caller had given up on (dropped).
        cancelled: requests we gave up on and told the server about.
        oversized: messages over ``max_message_size``, discarded unread (failing
            their request when it could be told which).
    """

    sent: int = 0
    received: int = 0
    malformed: int = 0
    invalid: int = 0
    unmatched_responses: int = 0
    late_responses: int = 0
    cancelled: int = 0
    oversized: int = 0

    def as_dict(self) -> dict[str, int]:
        """The counters as a plain dict."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


class Transport:
    """Base class of the transports; see the module docstring for the division of labour.

    Args:
        name: the server's name, used in logs, errors and thread names.
        timeout: default seconds for ``request`` (``None``: 30 s; ``math.inf``: no limit).
        on_notification: called with each notification from the server.
        on_request: called with each request from the server; answer with ``respond``.
        on_close: called once when the transport closes, with the error that
            closed it, or ``None`` after ``close()``.
        on_error: called with each non-fatal problem (an invalid message, say).
        write_timeout: seconds a write may wait for a server that does not read
            its input; then ``WriteTimeout`` (default 10 s).
        max_message_size: bytes one message from the server may have (a stdio
            line, an SSE event, an HTTP JSON body; default 64 MiB; ``None``: no
            limit). A larger one is discarded without being held in memory, and
            the request it answers fails at once with ``MessageTooLarge``.
    """

    def __init__(
        self,
        *,
        name: str,
        timeout: Optional[float] = None,
        on_notification: Optional[MessageCallback] = None,
        on_request: Optional[MessageCallback] = None,
        on_close: Optional[CloseCallback] = None,
        on_error: Optional[ErrorCallback] = None,
        write_timeout: float = DEFAULT_WRITE_TIMEOUT,
        max_message_size: Optional[int] = DEFAULT_MAX_MESSAGE_SIZE,
    ) -> None:
        check_max_message_size(max_message_size, name)
        self.name = name
        self.write_timeout = write_timeout
        self.max_message_size = max_message_size
        #: Where what the server itself says goes: its stderr (stdio) and its log messages.
        self.server_logger = logging.getLogger("mcpsync.server." + name.replace(".", "_"))
        self.default_timeout = DEFAULT_TIMEOUT if timeout is None else timeout
        self.on_notification = on_notification
        self.on_request = on_request
        self.on_close = on_close
        self.on_error = on_error
        self.stats = TransportStats()
        #: The negotiated protocol version, set by the client (HTTP sends it as a header).
        self.protocol_version: Optional[str] = None
        self.pending = PendingRequests()
        self._state = TransportState.UNOPENED
        self._state_lock = threading.Lock()
        self._start_lock = threading.Lock()
        self._close_notified = False
        # close() must still reap and join after the connection was lost on its own.
        self._shutdown_started = False
        # Set when the connection was lost: builds the error that says why.
        self._lost_error: Optional[TransportClosed] = None
        self._closed_event = threading.Event()

    # -- life -------------------------------------------------------------

    @property
    def state(self) -> TransportState:
        """The transport's life stage."""
        return self._state

    @property
    def is_connected(self) -> bool:
        """Whether messages can be sent now."""
        return self._state is TransportState.OPEN

    def start(self) -> None:
        """Open the connection (start the process, the reader threads).

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
                    raise TransportClosed(f"{self.name}: cannot start a closed transport")
            self._open()
            with self._state_lock:
                if self._lost_error is not None:
                    raise self._lost_error.copy()
                self._state = TransportState.OPEN

    def close(self) -> None:
        """Close the connection, fail what is pending, and join every thread (bounded).

        Idempotent and safe from any thread, including a callback. A second
        caller waits (bounded) until the first has finished, except on the
        transport's own threads, which the first caller may be joining.
        """
        with self._state_lock:
            first = not self._shutdown_started
            self._shutdown_started = True
        if not first:
            if threading.current_thread() not in self._threads():
                self._closed_event.wait(CLOSE_WAIT)
            return
        in_flight = self.pending.in_flight() if self._state is TransportState.OPEN else []
        # Fail the callers first: the server's answer to a cancellation must not reach them instead.
        self.pending.fail_all(lambda: TransportClosed(f"{self.name}: closed by the client"))
        self._cancel_in_flight(in_flight, "the client is closing")
        with self._state_lock:
            if self._state is not TransportState.CLOSED:  # not already lost
                self._state = TransportState.CLOSING
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

    def _cancel_in_flight(self, in_flight: list[RequestFuture], reason: str) -> None:
        """Tell the server about requests that were in flight, so it can stop working on them.

        All of it within ``CLOSE_NOTICE_BUDGET``: a server that does not read
        must not hold up ``close()``.
        """
        deadline = time.monotonic() + CLOSE_NOTICE_BUDGET
        for future in in_flight:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not self._tell_cancelled(future, reason, remaining):
                return  # out of time, or the wire is gone: nothing more to tell

    def _tell_cancelled(self, future: RequestFuture, reason: str, write_timeout: Optional[float] = None) -> bool:
        """Send ``notifications/cancelled`` for a request; ``False`` if it could not be sent.

        Never for ``initialize``: the spec forbids it (the client disconnects instead).
        """
        if future.method == "initialize" or not self.is_connected:
            return True
        try:
            self._send(
                messages.notification("notifications/cancelled", {"requestId": future.request_id, "reason": reason}),
                write_timeout,
            )
        except MCPError as exc:
            logger.debug("server %r: could not send cancellation: %s", self.name, exc)
            return False
        self.stats.cancelled += 1
        return True

    def __enter__(self) -> Transport:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _notify_closed(self, error: Optional[BaseException]) -> None:
        with self._state_lock:
            if self._close_notified:
                return
            self._close_notified = True
        if self.on_close is not None:
            try:
                self.on_close(error)
            except Exception:
                logger.exception("server %r: on_close callback failed", self.name)

    def _connection_lost(self, describe: Callable[[], TransportClosed]) -> None:
        """Called by the reader when the connection ends without ``close()``.

        ``describe`` builds the error that says why (it may wait briefly for
        the exit code); it runs once. Pending requests fail at once with
        copies of it, and so does every later call. The wire's resources stay
        until the owner calls ``close()``, which is still required.
        """
        with self._state_lock:
            if self._shutdown_started or self._lost_error is not None:
                return  # close() is at work and reports the closing itself, or it was reported
        error = describe()
        with self._state_lock:
            if self._shutdown_started or self._lost_error is not None:
                return
            self._state = TransportState.CLOSED
            self._lost_error = error
        logger.warning("server %r: connection lost: %s", self.name, error)
        self.pending.fail_all(error.copy)
        self._notify_closed(error)

    # -- sending ------------------------------------------------------------

    def _send(self, message: Message, write_timeout: Optional[float] = None) -> None:
        data = messages.encode(message)
        if self._state is not TransportState.OPEN:
            raise self.closed_error()
        if traffic_logger.isEnabledFor(logging.DEBUG):
            self._log_traffic("-->", data)
        self._write(data, self.write_timeout if write_timeout is None else write_timeout)

    def send_request(self, method: str, params: Optional[dict[str, Any]] = None) -> RequestFuture:
        """Send a request and return at once with a ``concurrent.futures.Future``.

        The future's result is the response's ``result`` dict; it fails with
        ``ServerError`` for an error response and ``TransportClosed`` when the
        connection goes. ``future.cancel()`` forgets the request and sends
        ``notifications/cancelled`` (except for ``initialize``). No timeout
        applies: bound your own wait, as in ``future.result(timeout=...)``.

        Raises:
            TypeError: ``params`` is not a dict (or not JSON-serialisable).
            TransportClosed: the connection is closed.
            WriteTimeout: the server took nothing within ``write_timeout``.
        """
        return self._send_request(method, params, self.write_timeout)

    def _send_request(self, method: str, params: Optional[dict[str, Any]], write_timeout: float) -> RequestFuture:
        future, data = self._new_request(method, params)
        try:
            self._write(data, write_timeout, future)
        except BaseException as exc:
            self.pending.reject(future.request_id, exc)
            raise
        return future

    def _new_request(self, method: str, params: Optional[dict[str, Any]]) -> tuple[RequestFuture, bytes]:
        """A request's future, registered so that its answer finds it, and its bytes, yet to be written."""
        if params is not None and not isinstance(params, dict):
            raise TypeError(f"params must be a dict or None, not {type(params).__name__}")
        request_id = self.pending.next_id()
        data = messages.encode(messages.request(request_id, method, params))
        if self._state is not TransportState.OPEN:
            raise self.closed_error()
        future = self.pending.register(request_id, method, self._future_cancelled)
        if traffic_logger.isEnabledFor(logging.DEBUG):
            self._log_traffic("-->", data)
        return future, data

    def request(
        self, method: str, params: Optional[dict[str, Any]] = None, *, timeout: Any = USE_DEFAULT
    ) -> dict[str, Any]:
        """Send a request and block until its result arrives.

        Args:
            timeout: seconds; ``None`` waits without limit; default: the transport's.

        Returns:
            the response's ``result`` dict.

        Raises:
            RequestTimeout: no answer in time (the server is told with
                ``notifications/cancelled``).
            ServerError: the server answered with an error.
            TransportClosed: the connection closed first.
            KeyboardInterrupt: as usual; the request is cancelled first.
        """
        seconds = resolve_timeout(timeout, self.default_timeout)
        write_timeout = self.write_timeout if seconds is None else min(seconds, self.write_timeout)
        return self.wait(self._send_request(method, params, write_timeout), seconds)

    def wait(
        self,
        future: RequestFuture,
        timeout: Optional[float],
        *,
        max_total: Optional[float] = None,
        last_activity: Optional[Callable[[], float]] = None,
    ) -> dict[str, Any]:
        """Wait for a request's result; on timeout or Ctrl-C give the request up (and tell the server).

        Args:
            timeout: seconds without an answer (``None``: no limit). With
                ``last_activity``, counted from the latest activity it reports
                (a ``time.monotonic()`` value, e.g. of the last progress
                notification), so activity keeps the request alive.
            max_total: seconds in all, whatever the activity (``None``: no cap).

        Raises:
            RequestTimeout, ServerError, TransportClosed, KeyboardInterrupt: as ``request``.
        """
        started = time.monotonic()
        while True:
            idle_since = last_activity() if last_activity is not None else started
            limits = []
            if timeout is not None:
                limits.append(idle_since + timeout)
            if max_total is not None:
                limits.append(started + max_total)
            deadline = min(limits) if limits else None
            try:
                result: dict[str, Any] = future.result(
                    None if deadline is None else max(0.0, deadline - time.monotonic())
                )
                return result
            except concurrent.futures.TimeoutError:
                now = time.monotonic()
                capped = max_total is not None and now >= started + max_total
                kept_alive = timeout is not None and last_activity is not None and last_activity() + timeout > now
                if not capped and kept_alive:
                    continue  # activity moved the deadline on
                return self._timed_out(future, (max_total if capped else timeout) or 0.0)
            except KeyboardInterrupt:
                self.abandon(future, "interrupted by the user")
                raise

    def _timed_out(self, future: RequestFuture, limit: float) -> dict[str, Any]:
        """Give a request up after ``limit`` seconds: raise ``RequestTimeout``, unless its answer won the race."""
        if not self.abandon(future, f"timed out after {limit:g}s"):
            # The response won the race: the reader took it from the table and is
            # setting it on the future right now, so this wait is short.
            try:
                return future.result(RACE_GRACE)  # type: ignore[no-any-return]
            except concurrent.futures.TimeoutError:
                pass
        raise RequestTimeout(future.method, limit) from None

    def _future_cancelled(self, future: RequestFuture) -> None:
        self.abandon(future, "cancelled by the caller")

    def abandon(self, future: RequestFuture, reason: str) -> bool:
        """Give up on a request: forget it and tell the server, unless it is ``initialize``.

        Returns ``True`` if the request was still waiting; its late response
        will be dropped (counted in ``stats.late_responses``).
        """
        if not self.pending.discard(future.request_id):
            return False
        try:
            future.set_exception(TransportClosed(f"{self.name}: request abandoned: {reason}"))
            future.exception()  # nobody waits for this exception: mark it retrieved
        except concurrent.futures.InvalidStateError:
            pass  # already cancelled by its caller
        self._tell_cancelled(future, reason)
        self._request_abandoned(future)
        return True

    def _request_abandoned(self, future: RequestFuture) -> None:
        """Hook: a request was given up on (HTTP transports stop reading its stream)."""

    def handshake_complete(self) -> None:
        """Hook the client calls after ``notifications/initialized`` (HTTP starts its GET listener)."""

    def notify(self, method: str, params: Optional[dict[str, Any]] = None) -> None:
        """Send a notification.

        Raises:
            TransportClosed: the connection is closed.
        """
        self._send(messages.notification(method, params))

    def respond(
        self,
        request_id: RequestId,
        result: Optional[dict[str, Any]] = None,
        *,
        error: Union[ServerError, dict[str, Any], None] = None,
    ) -> None:
        """Answer a request the server sent: with ``result``, or with ``error``.

        ``error`` may be a ``ServerError`` or a JSON-RPC error object dict.
        """
        if error is not None:
            if isinstance(error, ServerError):
                error = messages.error_object(error.code, error.message, error.data)
            self._send({"jsonrpc": messages.JSONRPC_VERSION, "id": request_id, "error": error})
        else:
            self._send(messages.success_response(request_id, result if result is not None else {}))

    # -- receiving ----------------------------------------------------------

    def _problem(self, error: ProtocolError) -> None:
        logger.warning("server %r: skipped %s", self.name, error)
        self._report(error)

    def _report(self, error: ProtocolError) -> None:
        if self.on_error is not None:
            try:
                self.on_error(error)
            except Exception:
                logger.exception("server %r: on_error callback failed", self.name)

    def _handle_data(self, data: Union[bytes, str]) -> None:
        """Handle one framed message (a line, an SSE event's data) from the wire."""
        if traffic_logger.isEnabledFor(logging.DEBUG):
            self._log_traffic("<--", data)
        try:
            decoded = messages.decode(data)
        except ValueError as exc:
            if isinstance(data, bytes) and self._salvage(data):
                return
            self.stats.malformed += 1
            self._problem(InvalidMessage(f"not JSON ({exc})", messages.shorten(data)))
            return
        if type(decoded) is list and decoded:
            # JSON-RPC batches existed only in 2025-03-26; accepting one is cheap.
            for item in decoded:
                self._handle_message(item)
        else:
            self._handle_message(decoded)

    def _salvage(self, line: bytes) -> bool:
        """Read a response that follows junk on the same line; ``False`` if there is none.

        Half a line the server never finished (it crashed or stalled mid-write
        in a worker), or output printed without a newline, runs into the next
        message on the line: that message is still read, lest its caller wait
        for nothing. Only responses are taken so, nothing that would make us act.
        """
        match = _MESSAGE_START.search(line, 1)
        for _ in range(SALVAGE_ATTEMPTS):
            if match is None:
                return False
            try:
                message = messages.decode(line[match.start() :])
            except ValueError:
                match = _MESSAGE_START.search(line, match.start() + 1)
                continue
            if type(message) is not dict or "method" in message:
                return False
            self.stats.malformed += 1
            self._problem(
                InvalidMessage(
                    "not JSON (junk before a response, which was read)", messages.shorten(line[: match.start()])
                )
            )
            self._handle_message(message)
            return True
        return False

    def _handle_message(self, message: Any) -> None:
        self.stats.received += 1
        try:
            kind = validate(message)
        except InvalidMessage as exc:
            # It goes to a caller, or to on_error: its traceback would pin this thread's frames
            # (and what they hold: a response, its connection, a 50 MB line) for as long as it is kept.
            exc = exc.with_traceback(None)
            self.stats.invalid += 1
            if type(message) is dict and "method" in message:
                self._refuse_invalid_request(message, exc)
            raw_id = message.get("id") if type(message) is dict and "method" not in message else None
            if isinstance(raw_id, (int, float, str)) and self.pending.reject(messages.response_key(raw_id), exc):
                # The request it answers fails now instead of timing out.
                logger.warning("server %r: request %r failed: %s", self.name, raw_id, exc)
                return
            self._problem(exc)
            return
        if kind is Kind.SUCCESS:
            key = messages.response_key(message["id"])
            if not self.pending.resolve(key, message["result"]):
                self._unmatched(key, message)
        elif kind is Kind.ERROR:
            raw_id = message.get("id")
            key = messages.response_key(raw_id)
            if raw_id is None or not self.pending.reject(key, ServerError.from_error_object(message["error"])):
                self._unmatched(key, message)
        else:
            callback = self.on_request if kind is Kind.REQUEST else self.on_notification
            if callback is None:
                if kind is Kind.REQUEST:
                    # Nobody handles requests here: the spec wants an answer anyway.
                    self._answer_unhandled(message)
                return
            try:
                callback(message)
            except Exception:
                logger.exception("server %r: %s callback failed", self.name, kind.value)

    def _log_traffic(self, direction: str, data: Union[bytes, str]) -> None:
        """Log one message of the traffic, cut to ``TRAFFIC_LIMIT`` characters (a huge one is not decoded whole)."""
        piece = data[: TRAFFIC_LIMIT * 4 + 2]
        text = (piece.decode("utf-8", "replace") if isinstance(piece, bytes) else piece).rstrip("\r\n")
        if len(text) > TRAFFIC_LIMIT:
            unit = "bytes" if isinstance(data, bytes) else "characters"
            text = f"{text[:TRAFFIC_LIMIT]}... ({len(data)} {unit} in all)"
        traffic_logger.debug("%s %s %s", self.name, direction, text)

    def _refuse_invalid_request(self, message: Message, error: InvalidMessage) -> None:
        """JSON-RPC wants -32600 for an invalid request whose id we can read."""
        request_id = message.get("id")
        if isinstance(request_id, (int, str)) and not isinstance(request_id, bool):
            self._refuse(request_id, messages.ErrorCode.INVALID_REQUEST, f"Invalid Request: {error.reason}")

    def _answer_unhandled(self, message: Message) -> None:
        self._refuse(message["id"], messages.ErrorCode.METHOD_NOT_FOUND, f"Method not found: {message['method']}")

    def _refuse(self, request_id: RequestId, code: int, text: str) -> None:
        """Answer a server's request with an error; a connection already gone is only logged (nobody waits)."""
        try:
            self.respond(request_id, error=messages.error_object(code, text))
        except MCPError as exc:
            logger.debug("server %r: could not answer request %r: %s", self.name, request_id, exc)

    def _unmatched(self, key: Any, message: Message) -> None:
        if key is not None and self.pending.was_abandoned(key):
            self.stats.late_responses += 1
            logger.debug("server %r: dropped late response to abandoned request %r", self.name, key)
            return
        self.stats.unmatched_responses += 1
        self._problem(
            InvalidMessage(
                "response to no request we sent or still wait for (a wrong or repeated id)"
                if key is not None
                else "error response without id",
                messages.shorten(messages.encode(message).decode("utf-8").rstrip("\n")),
            )
        )

    # -- messages over max_message_size --------------------------------------------

    def _oversized_begins(
        self,
        head: bytes,
        *,
        size: Optional[int] = None,
        stream_of: Optional[RequestFuture] = None,
        answer_to: Optional[RequestFuture] = None,
    ) -> bool:
        """A message crossed ``max_message_size``: count it, warn, and fail its request at once if known.

        The caller discards the rest without keeping it. Whose answer it is:
        ``answer_to``, when the message can only be that request's answer (an
        HTTP JSON body); else the id that ``head``, the message's first bytes,
        shows; else ``stream_of``, the request whose answer the stream it came
        on carries, if ``head`` shows a response. ``size``: the whole
        message's size, when known in advance.

        Returns whether a request was failed.
        """
        self.stats.oversized += 1
        logger.warning(
            "server %r: discarding a message over max_message_size (%s bytes)%s%s",
            self.name,
            self.max_message_size,
            f", {size} bytes in all" if size is not None else "",
            f": {messages.shorten(head, 120)}" if head else "",
        )
        key = answer_to.request_id if answer_to is not None else self._oversized_owner(head, b"", stream_of)
        return key is not None and self._fail_oversized(key, size)

    def _oversized_ends(
        self, size: int, head: bytes, tail: bytes, failed: bool, *, stream_of: Optional[RequestFuture] = None
    ) -> None:
        """The whole of an oversized message has gone by (``size`` bytes, ending in ``tail``).

        If no request failed when it began, its last bytes may say whose
        answer it is now (TypeScript servers write the id last); if they do
        not either, ``on_error`` hears of it.
        """
        logger.debug("server %r: discarded a message of %d bytes", self.name, size)
        if failed:
            return
        key = self._oversized_owner(head, tail, stream_of)
        if key is None or not self._fail_oversized(key, size):
            self._report(MessageTooLarge(f"{self.name}: a message", size, self.max_message_size or 0))

    @staticmethod
    def _oversized_owner(head: bytes, tail: bytes, stream_of: Optional[RequestFuture]) -> Any:
        """The id of the request an oversized response answers, as far as its first and last bytes tell.

        ``None`` for anything but a response: a server's request or
        notification, or bytes that are not JSON-RPC at all.
        """
        names, found = peek.top_level_members(head)
        if "method" in names or not names & {"result", "error"}:
            return None
        if found is None and tail:
            found = peek.trailing_id(tail)
        if found is None and stream_of is not None:
            return stream_of.request_id
        return None if found is None else messages.response_key(found)

    def _fail_oversized(self, key: Any, size: Optional[int]) -> bool:
        error = MessageTooLarge(f"{self.name}: the answer to request {key}", size, self.max_message_size or 0)
        if self.pending.reject(key, error):
            logger.warning("server %r: request %r failed: %s", self.name, key, error)
            return True
        return False

    # -- the wire (subclasses) -----------------------------------------------

    def _open(self) -> None:
        """Open the wire and start the reader thread(s)."""
        raise NotImplementedError

    def _write(self, data: bytes, timeout: float, request: Optional[RequestFuture] = None) -> None:
        """Write one encoded message, thread-safe, within ``timeout`` seconds.

        ``request`` is the future when the message is a request (HTTP
        transports tie the exchange that carries its answer to it).

        Raises:
            WriteTimeout: nothing could be written in time (the connection is still sound).
            TransportClosed: the wire is gone, or broke mid-message.
        """
        raise NotImplementedError

    def _shutdown(self) -> None:
        """Close the wire and join every thread, each wait bounded."""
        raise NotImplementedError

    def _threads(self) -> tuple[Optional[threading.Thread], ...]:
        """The transport's own threads (readers)."""
        return ()
