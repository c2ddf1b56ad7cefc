"""The Streamable HTTP transport (MCP 2025-03-26 onward).

Every client message is a POST to one endpoint. A request's answer comes
back as a JSON body or as an SSE stream that may carry the server's
notifications and requests first.

Threads: a blocking call (``send_request(..., wait=True)``) runs its
exchange on the caller's own thread, which waits for the answer anyway:
that saves two thread wake-ups per call. Everything else (``send_request``
futures, calls with a user's own ``requests.Session``, which cannot be cut)
runs on the worker threads (``mcpsync-http-<server>-<n>``). Both count
against ``max_connections``; more wait their turn. Notifications and answers
are POSTed from the thread that sends them, ``MESSAGE_CONNECTIONS`` at a
time; cancellations go out in the background (``mcpsync-notice-<server>``).
Every exchange ends by its deadline (``mcpsync._wire.http.client``).

Sessions: the ``Mcp-Session-Id`` the server gives on ``initialize`` goes on
every later request, with ``MCP-Protocol-Version`` once negotiated. A 404 on
a request that carried a session id means the session expired: the transport
runs the handshake again (the same ``initialize``, no session id) and retries
the request once. A stream that breaks before the answer is resumed with
``Last-Event-ID`` after the server's ``retry`` interval (capped at
``max_retry_delay``). After the handshake a GET stream
(``mcpsync-listener-<server>``) receives what the server sends on its own;
405 means the server offers none. ``close()`` DELETEs the session.
"""

from __future__ import annotations

import enum
import json
import math
import threading
import time
from collections.abc import Iterator, Mapping
from typing import Any, Optional

import requests

from ..._core import jsonrpc
from ..._core.eras import MODERN_VERSIONS, is_modern_error
from ..._core.errors import (
    HTTPStatusError,
    MCPError,
    MessageTooLarge,
    NoResponseError,
    ProtocolError,
    SessionExpired,
    TransportError,
)
from ..._core.jsonrpc import Data
from ..._core.pending import RequestFuture
from ..._core.sse import events
from ..._core.timeouts import USE_DEFAULT, Timeout
from ..._threads.latches import Latch
from ..._threads.signals import acquire_deferred, deferred_interrupts, interrupted
from ..._threads.workers import Workers
from ..base import CLOSE_NOTICE_BUDGET, NOTICE_TIMEOUT, logger
from .base import HTTPTransportBase, StreamPosition
from .client import ACCEPT, EVENT_STREAM, JSON, Exchange, content_type, released_after

__all__ = ["LAST_EVENT_ID", "MCP_PROTOCOL_VERSION", "MCP_SESSION_ID", "StreamableHTTPTransport"]

MCP_SESSION_ID = "Mcp-Session-Id"
MCP_PROTOCOL_VERSION = "MCP-Protocol-Version"
LAST_EVENT_ID = "Last-Event-ID"
#: The path a Streamable HTTP endpoint usually has (a 404 or 405 elsewhere asks whether it is the one).
ENDPOINT = "/mcp"

#: Seconds close() gives the DELETE that ends the session.
DELETE_TIMEOUT = 2.0
#: Seconds to wait before reconnecting a broken GET listener, doubled per failure up to the cap.
LISTENER_BACKOFF = (0.5, 30.0)
#: Seconds connect() waits at most for the server to answer the GET stream.
LISTENER_START_WAIT = 5.0
#: Failed GET listener connections in a row before it gives up (with a warning).
LISTENER_MAX_FAILURES = 8
#: Connections for notifications and answers to the server, posted from any thread, at once.
MESSAGE_CONNECTIONS = 2
#: Seconds between looks at a waiting worker's request while all connections are busy.
SLOT_POLL = 0.25


class _Outcome(enum.Enum):
    """How the answer to a POSTed request came, for the thread that ran the exchange."""

    READ = "read"  # the answer was read here (or the request is settled)
    ON_GET_STREAM = "on the GET stream"  # 202: the answer comes on the GET stream


def check_session_id(value: str) -> str:
    """The spec allows only visible ASCII (0x21-0x7E) in a session id; refuse anything else."""
    if not value or not all(0x21 <= ord(ch) <= 0x7E for ch in value):
        raise ProtocolError(f"the server sent an invalid {MCP_SESSION_ID}: {value!r} (visible ASCII only)")
    return value


class StreamableHTTPTransport(HTTPTransportBase):
    """Talk to a server at one HTTP endpoint (Streamable HTTP).

    Args:
        url: the MCP endpoint.
        headers: extra headers on every request (e.g. ``Authorization``).
        auth: any ``requests`` auth object (bearer tokens, custom schemes).
        name: the server's name (default: the URL's host).
        timeout: default request timeout in seconds (``None``: no limit; ``USE_DEFAULT``: 30 s).
        connect_timeout: seconds to establish a connection.
        read_timeout: seconds a stream may stay silent before it counts as broken.
        max_connections: requests in flight at once (on callers' threads and on
            worker threads); more wait their turn.
        listen: open the GET stream for server-initiated messages after the handshake.
        max_resumptions: attempts to resume a broken stream with ``Last-Event-ID``.
        retry_delay: seconds before resuming when the server gave no ``retry``
            (doubled each attempt).
        max_retry_delay: the longest wait before resuming, whatever ``retry`` the server sent.
        session: a ``requests.Session`` to use (its adapters, proxies, TLS
            settings); closed with the transport only if we created it.
            mcpsync leaves its adapters alone, so it cannot cut its
            connections: every request then runs on a worker thread, and one
            that is given up frees its worker only when the server answers or
            ``read_timeout`` passes.
        **options: ``write_timeout``, ``max_message_size`` (see ``Transport``).
    """

    kind = "http"

    def __init__(
        self,
        url: str,
        *,
        headers: Optional[Mapping[str, str]] = None,
        auth: object = None,
        name: Optional[str] = None,
        timeout: Timeout = USE_DEFAULT,
        connect_timeout: float = 10.0,
        read_timeout: float = 300.0,
        max_connections: int = 10,
        listen: bool = True,
        max_resumptions: int = 3,
        retry_delay: float = 1.0,
        max_retry_delay: float = 30.0,
        session: Optional[requests.Session] = None,
        **options: Any,
    ) -> None:
        super().__init__(
            url,
            "http",
            headers=headers,
            auth=auth,
            name=name,
            timeout=timeout,
            connect_timeout=connect_timeout,
            read_timeout=read_timeout,
            session=session,
            **options,
        )
        self.max_connections = max_connections
        self.listen = listen
        self.max_resumptions = max_resumptions
        self.retry_delay = retry_delay
        self.max_retry_delay = max_retry_delay
        self.session_id: Optional[str] = None
        self._workers = Workers(f"mcpsync-http-{self.name}", max_connections)
        self._notices = Workers(f"mcpsync-notice-{self.name}", 1)
        self._slots = threading.BoundedSemaphore(max_connections)
        self._posting = threading.BoundedSemaphore(MESSAGE_CONNECTIONS)
        self._exchanges: dict[int, Exchange] = {}  # request id -> the exchange working for it
        self._exchanges_lock = threading.Lock()
        self._renew_lock = threading.Lock()
        self._initialize_body: Optional[Data] = None
        self._listener: Optional[threading.Thread] = None
        self._listener_answered = Latch()
        self._closing = threading.Event()

    # -- plumbing -----------------------------------------------------------------------

    def _open(self) -> None:
        # + the GET stream and the messages posted outside exchanges
        self._open_http(self.max_connections + 1 + MESSAGE_CONNECTIONS)

    def _request_headers(self, *, session: bool = True) -> dict[str, str]:
        headers = {"Accept": ACCEPT, "Content-Type": JSON}
        if session and self.session_id is not None:
            headers[MCP_SESSION_ID] = self.session_id
        if self.protocol_version is not None:
            headers[MCP_PROTOCOL_VERSION] = self.protocol_version
        return headers

    def _get_headers(self, last_event_id: Optional[str] = None) -> dict[str, str]:
        """Headers of a GET for an event stream (no body, so no Content-Type)."""
        headers = self._request_headers()
        headers["Accept"] = EVENT_STREAM
        del headers["Content-Type"]
        if last_event_id:
            headers[LAST_EVENT_ID] = last_event_id
        return headers

    def handshake_complete(self, *, deadline: float = math.inf) -> None:
        if self.listen and self._listener is None and not self._closing.is_set():
            self._listener = threading.Thread(target=self._listen, name=f"mcpsync-listener-{self.name}", daemon=True)
            self._listener.start()
            # Servers drop what they send while no GET stream is open: let connect() return
            # once the server has answered the GET (stream open, or 405), within a bound.
            wait = min(self.connect_timeout, LISTENER_START_WAIT, deadline - time.monotonic())
            self._listener_answered.wait(max(0.0, wait))

    # -- requests -------------------------------------------------------------------------

    def _write_request(self, future: RequestFuture, data: Data, deadline: float, wait: bool) -> None:
        if future.method == "initialize":
            self._initialize_body = data  # kept, to open a new session when this one expires
        self.stats.sent += 1
        assert self._http is not None
        # The handshake goes to a worker, as what cannot be cut does: its connect is the one most likely
        # to hang (a host that drops packets), and only a worker's wait is cut short by Ctrl-C or close().
        if wait and self._http.can_cut and future.method != "initialize":
            self._run_exchange(future, data, deadline)
        else:
            self._workers.submit(lambda: self._run_exchange(future, data, deadline))

    def _run_exchange(self, future: RequestFuture, data: Data, deadline: float) -> None:
        """POST a request and read its answer, within ``deadline``; a failure fails the request.

        Past the deadline or interrupted (the caller gives the request up
        itself then), and once the request is settled, the request is left alone.
        """
        if future.settled or self._closing.is_set():
            return  # given up on (or closed) while it waited for a worker: never send it
        if not self._take_slot(future, deadline):
            return
        assert self._http is not None
        try:
            if future.settled or self._closing.is_set():
                return  # given up on, or closed, while it waited for a connection: never send it
            with self._http.exchange(deadline) as exchange, deferred_interrupts(lambda: exchange.cut("interrupted")):
                with self._exchanges_lock:
                    self._exchanges[future.request_id] = exchange
                try:
                    outcome = self._exchange(exchange, future, data)
                finally:
                    with self._exchanges_lock:
                        self._exchanges.pop(future.request_id, None)
            if outcome is _Outcome.ON_GET_STREAM and not self._listening():
                raise ProtocolError(
                    f"{self.name}: the server accepted request {future.request_id} with 202, "
                    "but there is no GET stream its answer could come on"
                )
            if outcome is _Outcome.READ and not future.settled and not self._closing.is_set():
                raise NoResponseError(future.request_id)
        except Exception as exc:
            if interrupted() or time.monotonic() >= deadline or future.settled:
                if isinstance(exc, MCPError):
                    future.held_up_by = str(exc)  # for the caller's timeout to say
                return  # the caller gives it up (and tells the server), or it is settled already
            if not isinstance(exc, MCPError):  # a bug, or a user's auth object that failed: the caller hears
                logger.exception("server %r: unexpected failure of request %s", self.name, future.request_id)
                exc = TransportError(f"{self.name}: the request failed unexpectedly: {exc!r}")
            self.endpoint.fail(future, exc)
        finally:
            self._slots.release()

    def _take_slot(self, future: RequestFuture, deadline: float) -> bool:
        """A place among ``max_connections``; ``False`` if the request is given up (or times out) first."""
        while True:
            step = min(SLOT_POLL, deadline - time.monotonic())
            if step <= 0:
                return False
            if acquire_deferred(self._slots.acquire, step):
                return True
            if future.settled or self._closing.is_set() or interrupted():
                return False

    def _exchange(self, exchange: Exchange, future: RequestFuture, data: Data, retried: bool = False) -> _Outcome:
        """POST a request and handle what comes back (once more after renewing an expired session)."""
        headers = self._request_headers()
        if future.headers:
            headers.update(future.headers)  # a modern request's own: Mcp-Method, Mcp-Name, its version
        sent_session = headers.get(MCP_SESSION_ID)
        response = exchange.send("POST", self.url, headers, data)
        with released_after(response):
            if future.settled:  # abandoned while we were connecting
                return _Outcome.READ
            expired = response.status_code == 404 and sent_session is not None
            if expired and retried:
                raise SessionExpired(f"{self.name}: the server refused the renewed session too (404)")
            if not expired:
                if not response.ok:
                    error = exchange.status_error(response, ENDPOINT)
                    if future.headers and self._modern_error_answer(error, future):
                        return _Outcome.READ
                    raise error
                return self._take_answer(exchange, response, future)
        assert sent_session is not None
        self._renew_session(exchange, sent_session)
        if future.settled:
            return _Outcome.READ
        return self._exchange(exchange, future, data, retried=True)

    def _modern_error_answer(self, error: HTTPStatusError, future: RequestFuture) -> bool:
        """Whether a modern request's 4xx carries a JSON-RPC error for it; if so, that error answers
        the request. The revision's own errors (-32020, -32021, -32022) always; after the era probe,
        any code (a modern server answers -32602 with 400, as for an unknown task id). The probe
        itself keeps reading other errors' 4xx as the sign of a legacy server."""
        try:
            body = json.loads(error.body)
        except ValueError:
            return False
        failure = body.get("error") if isinstance(body, dict) else None
        if not isinstance(failure, dict) or not isinstance(failure.get("code"), int):
            return False
        if not is_modern_error(failure.get("code")) and future.method == "server/discover":
            return False
        if body.get("id") != future.request_id:
            return False
        self._feed(error.body.encode("utf-8"))
        return True

    def _take_answer(self, exchange: Exchange, response: requests.Response, future: RequestFuture) -> _Outcome:
        """Handle the answer to a request: 202, a JSON body, or an event stream."""
        if future.method == "initialize":
            self._take_session_id(response)
        if response.status_code == 202:
            return _Outcome.ON_GET_STREAM
        kind = content_type(response)
        if kind == JSON:
            body = self._json_body(exchange, response, future)
            if body and not body.isspace():  # (a test that copies nothing, unlike strip)
                self._feed(body)
        elif kind == EVENT_STREAM:
            self._read_answer_stream(exchange, response, future)
        else:
            raise ProtocolError(f"{self.name}: unexpected Content-Type {kind or 'none'!r} in the answer to a request")
        return _Outcome.READ

    def _read_answer_stream(self, exchange: Exchange, response: requests.Response, future: RequestFuture) -> None:
        """Read a request's answer stream; resume it (``Last-Event-ID``) if it breaks before the answer."""
        position = self._read_stream_once(exchange, response, future, StreamPosition())
        attempt = 0
        while not future.settled and not self._closing.is_set():
            if position.last_id is None or attempt >= self.max_resumptions or self.protocol_version in MODERN_VERSIONS:
                # The 2026-07-28 revision resumes nothing: the request is lost (its caller sends it anew).
                raise NoResponseError(future.request_id)
            attempt += 1
            retry = position.retry
            delay = retry / 1000.0 if retry is not None else self.retry_delay * 2 ** (attempt - 1)
            delay = min(delay, self.max_retry_delay, max(0.0, exchange.deadline - time.monotonic()))
            logger.info(
                "server %r: resuming the stream of request %s after event %s in %.2fs",
                self.name,
                future.request_id,
                position.last_id,
                delay,
            )
            if self._wait_to_resume(future, exchange, delay):
                return  # answered (on the GET stream), given up, cut, interrupted, or closed meanwhile
            before = position.last_id
            resumed = exchange.send("GET", self.url, self._get_headers(before))
            with released_after(resumed):
                if not resumed.ok:  # 405: no resumption offered; 404: the stream or session is gone
                    logger.info("server %r: cannot resume (HTTP %d)", self.name, resumed.status_code)
                    raise NoResponseError(future.request_id)
                self._read_stream_once(exchange, resumed, future, position)
            if position.last_id != before:
                attempt = 0  # it made progress: servers may answer by polling, one event per GET

    def _wait_to_resume(self, future: RequestFuture, exchange: Exchange, delay: float) -> bool:
        """Wait the server's ``retry`` before resuming; ``True`` if there is no need to resume any more."""
        end = time.monotonic() + delay
        while True:
            if future.settled or self._closing.is_set() or exchange.cut_reason is not None or interrupted():
                return True
            left = end - time.monotonic()
            if left <= 0:
                return False
            future.wait_settled(min(left, SLOT_POLL))

    def _read_stream_once(
        self, exchange: Exchange, response: requests.Response, future: RequestFuture, position: StreamPosition
    ) -> StreamPosition:
        """One stream's events; a break ends it quietly, so that the caller may resume."""
        try:
            self._read_events(exchange, response, future, position)
        except MCPError as exc:
            if future.settled or self._closing.is_set():
                return position  # cut after the answer, or closing: nothing was lost
            if exchange.cut_reason is not None or time.monotonic() >= exchange.deadline:
                raise
            self._log_broken("an answer stream", exc)
        return position

    def held_up_by(self, future: RequestFuture) -> Optional[str]:
        with self._exchanges_lock:
            exchange = self._exchanges.get(future.request_id)
        stage = exchange.stage if exchange is not None else None
        return stage or future.held_up_by

    def _stop_working_for(self, future: RequestFuture) -> None:
        # Free its thread at once, whether it reads the answer or still waits for it.
        with self._exchanges_lock:
            exchange = self._exchanges.get(future.request_id)
        if exchange is not None:
            exchange.cut("given up")

    def _listen_again(self) -> None:
        """A new session: a GET listener that gave up on the old one (a run of refusals) starts again."""
        listener = self._listener
        if self.listen and listener is not None and not listener.is_alive() and not self._closing.is_set():
            self._listener = None
            self.handshake_complete()

    def _listening(self) -> bool:
        return self._listener is not None and self._listener.is_alive() and not self._closing.is_set()

    def _take_session_id(self, response: requests.Response) -> None:
        value = response.headers.get(MCP_SESSION_ID)
        self.session_id = check_session_id(value) if value is not None else None

    # -- messages --------------------------------------------------------------------------

    def _write(self, data: Data, timeout: float) -> None:
        """POST a notification or an answer; the server acknowledges it with 202 at once."""
        deadline = time.monotonic() + timeout
        self._bounded(lambda: self._post_message(data, deadline), deadline)

    def _post_message(self, data: Data, deadline: float, retried: bool = False, *, notice: bool = False) -> None:
        assert self._http is not None
        headers = self._request_headers()
        sent_session = headers.get(MCP_SESSION_ID)
        # Any thread may post: a few connections at a time, so that these and the exchanges
        # together never need more connections than the pool keeps.
        if not acquire_deferred(self._posting.acquire, deadline - time.monotonic()):
            raise TransportError(f"{self.name}: no connection was free to send a message in time")
        try:
            with self._http.exchange(deadline) as exchange, deferred_interrupts(lambda: exchange.cut("interrupted")):
                exchange.answers_challenges = not notice
                response = exchange.send("POST", self.url, headers, data)
                with released_after(response):
                    expired = response.status_code == 404 and sent_session is not None and not retried
                    if not expired and not response.ok:
                        raise exchange.status_error(response, ENDPOINT)
                if expired:
                    assert sent_session is not None
                    self._renew_session(exchange, sent_session)
        finally:
            self._posting.release()
        if expired:
            self._post_message(data, deadline, retried=True, notice=notice)
            return
        self.stats.sent += 1

    def _send_notice(self, data: Data) -> None:
        def post() -> None:
            try:
                # A cancellation is not worth a token grant: one refused with 401 is dropped (the
                # request it cancels was refused the same way, or got through with the token in use).
                self._post_message(data, time.monotonic() + NOTICE_TIMEOUT, notice=True)
            except MCPError as exc:
                logger.debug("server %r: could not send a notice: %s", self.name, exc)
            else:
                self.stats.cancelled += 1

        try:
            self._notices.submit(post)
        except MCPError:
            pass  # closing: the notice no longer matters

    # -- the session ----------------------------------------------------------------------

    def _renew_session(self, exchange: Exchange, expired: str) -> None:
        """The server forgot our session: run the handshake again, once for all threads that noticed."""
        left = exchange.deadline - time.monotonic()
        if not acquire_deferred(self._renew_lock.acquire, left):  # another thread is renewing
            raise SessionExpired(f"{self.name}: the session expired, and renewing it did not finish in time")
        try:
            if self.session_id != expired:
                return  # another thread has renewed it already
            logger.warning("server %r: session %s expired (404); starting a new one", self.name, expired)
            # session_id keeps the old value until the new one is known: other threads sending
            # meanwhile get 404 and wait here, rather than going out with no session at all.
            body = self._initialize_body
            if body is None:
                raise SessionExpired(f"{self.name}: the session expired before initialize was sent")
            request_id = json.loads(body)["id"]
            response = exchange.send("POST", self.url, self._request_headers(session=False), body)
            with released_after(response):
                if not response.ok:
                    error = exchange.status_error(response)
                    raise SessionExpired(f"{self.name}: session expired, and renewing it failed: {error}")
                answer = self._find_answer(exchange, response, request_id)
            if "error" in answer:
                raise SessionExpired(f"{self.name}: session expired, and renewing it failed: {answer['error']}")
            version = answer.get("result", {}).get("protocolVersion")
            if version != self.protocol_version:
                raise SessionExpired(
                    f"{self.name}: the new session speaks protocol {version!r}, not {self.protocol_version!r}"
                )
            # Only now: other threads take a changed id for a renewed session.
            self._take_session_id(response)
            self._listen_again()
            initialized = jsonrpc.encode(jsonrpc.notification("notifications/initialized"))
            response = exchange.send("POST", self.url, self._request_headers(), initialized)
            with released_after(response):
                if not response.ok:
                    raise exchange.status_error(response)
        finally:
            self._renew_lock.release()

    def _find_answer(self, exchange: Exchange, response: requests.Response, request_id: Any) -> dict[str, Any]:
        """Read a JSON or SSE answer and return the response to ``request_id``; other messages are handled."""
        if content_type(response) == JSON:
            body = self._json_body(exchange, response, None)
            if body is None:
                raise MessageTooLarge(f"{self.name}: the answer to initialize", None, self.max_message_size or 0)
            items: Iterator[Any] = iter([body])
        else:
            items = (e.data for e in events(exchange.chunks(response), self.max_message_size) if e.data)
        for data in items:
            try:
                message = jsonrpc.decode(data)
            except ValueError:
                message = None
            if isinstance(message, dict) and "method" not in message and message.get("id") == request_id:
                return message
            self._feed(data)  # not the answer: whatever it is, it is handled as usual
        raise NoResponseError(request_id)

    # -- the GET stream ---------------------------------------------------------------------

    def _listen(self) -> None:
        """The GET stream for what the server sends on its own; reconnects with backoff."""
        assert self._http is not None
        last_id: Optional[str] = None
        failures = 0
        while not self._closing.is_set():
            try:
                with self._http.exchange(math.inf) as exchange:
                    response = exchange.send("GET", self.url, self._get_headers(last_id))
                    self._listener_answered.set()
                    with released_after(response):
                        if response.status_code == 405:
                            logger.debug("server %r: offers no GET stream (405)", self.name)
                            return
                        if not response.ok:
                            failures += 1
                            error = exchange.status_error(response)
                            logger.info("server %r: GET stream refused: %s", self.name, error)
                        else:
                            failures = 0
                            position = StreamPosition()
                            try:
                                self._read_events(exchange, response, position=position)
                            except MCPError as exc:
                                if not self._closing.is_set():
                                    self._log_broken("the GET stream", exc)
                            last_id = position.last_id or last_id
            except MCPError as exc:
                failures += 1
                if not self._closing.is_set():
                    logger.info("server %r: GET stream failed: %s", self.name, exc)
                self._listener_answered.set()
            if failures >= LISTENER_MAX_FAILURES:
                logger.warning("server %r: GET stream failed %d times in a row; giving up on it", self.name, failures)
                return
            self._closing.wait(
                min(LISTENER_BACKOFF[1], LISTENER_BACKOFF[0] * 2**failures) if failures else LISTENER_BACKOFF[0]
            )

    # -- closing --------------------------------------------------------------------------------

    def _threads(self) -> tuple[Optional[threading.Thread], ...]:
        return (self._listener, *self._workers.threads, *self._notices.threads)

    def _shutdown(self) -> None:
        self._closing.set()
        http = self._http
        if http is None:
            return
        # The cancellations still on their way go out first (bounded): a script that timed out and closes
        # must still tell the server. Then no exchange starts but the DELETE.
        self._notices.close(CLOSE_NOTICE_BUDGET, drain=True)
        http.refuse_new()
        http.cut_all("the client is closing")
        if self._listener is not None and self._listener is not threading.current_thread():
            self._listener.join(self._join_budget(self.connect_timeout))
        # What never started: its request was failed by close().
        self._workers.close(self._join_budget(self.connect_timeout + 2))
        if self.session_id is not None:
            deadline = time.monotonic() + DELETE_TIMEOUT
            try:
                self._bounded(self._delete_session, deadline)
            except MCPError as exc:
                logger.debug("server %r: DELETE of the session failed: %s", self.name, exc)
        self._close_http()

    def _delete_session(self) -> None:
        """End the session on the server (``DELETE``), within ``DELETE_TIMEOUT``; any failure is only logged."""
        assert self._http is not None
        headers = self._request_headers()
        del headers["Content-Type"]
        try:
            with self._http.exchange(time.monotonic() + DELETE_TIMEOUT, closing=True) as exchange:
                with deferred_interrupts(lambda: exchange.cut("interrupted")):
                    with released_after(exchange.send("DELETE", self.url, headers)) as response:
                        if response.status_code not in (200, 202, 204, 404, 405):
                            logger.debug(
                                "server %r: DELETE of the session answered %d", self.name, response.status_code
                            )
        except MCPError as exc:
            logger.debug("server %r: DELETE of the session failed: %s", self.name, exc)
