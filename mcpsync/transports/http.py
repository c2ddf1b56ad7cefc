"""HTTP transports' shared parts, and the Streamable HTTP transport (MCP 2025-03-26 onward).

Every client message is a POST to one endpoint. A request's answer comes
back as a JSON body or as an SSE stream that may carry the server's
notifications and requests first. The exchange for a request sent with
``send_request`` runs on a worker thread (``mcpsync-http-<server>``), so that
it returns at once; a blocking ``request`` runs it on the caller's own thread
when a connection is free, which saves two thread wake-ups per call. Both
count against ``max_connections``. Notifications and responses are POSTed
from the caller's thread, ``MESSAGE_CONNECTIONS`` at a time.

Sessions: the ``Mcp-Session-Id`` the server gives on ``initialize`` goes on
every later request, with ``MCP-Protocol-Version`` once negotiated. A 404 on
a request that carried a session id means the session expired: the transport
runs the handshake again (the same ``initialize``, no session id) and retries
the request once. A stream that breaks before the answer is resumed with
``Last-Event-ID`` after the server's ``retry`` interval. After the handshake
a GET stream (``mcpsync-listener-<server>``) receives what the server sends
on its own; 405 means the server offers none.
"""

from __future__ import annotations

import collections
import enum
import json
import logging
import math
import threading
import time
from collections.abc import Iterator, Mapping
from typing import Any, Callable, Optional

import requests

from .. import messages
from ..config import USE_DEFAULT, resolve_timeout
from ..errors import (
    HTTPStatusError,
    MCPError,
    MessageTooLarge,
    NoResponseError,
    ProtocolError,
    RequestTimeout,
    SessionExpired,
    TransportClosed,
    TransportError,
    WriteTimeout,
)
from ..pending import RequestFuture
from ..sse import OversizedEvent, ServerSentEvent, events
from .base import ID_SCAN_BYTES, Transport
from .http_wire import (
    ConnectionRegistry,
    Sender,
    body_chunks,
    close_session,
    finished,
    http_call,
    interrupt,
    new_session,
    reason,
)

__all__ = [
    "ACCEPT",
    "LAST_EVENT_ID",
    "MCP_PROTOCOL_VERSION",
    "MCP_SESSION_ID",
    "HTTPTransportBase",
    "StreamableHTTPTransport",
    "content_type",
    "status_error",
]

logger = logging.getLogger("mcpsync.transport")

MCP_SESSION_ID = "Mcp-Session-Id"
MCP_PROTOCOL_VERSION = "MCP-Protocol-Version"
LAST_EVENT_ID = "Last-Event-ID"
WWW_AUTHENTICATE = "WWW-Authenticate"
MCP_AUTH_SERVER = "Mcp-Auth-Server"
ACCEPT = "application/json, text/event-stream"
JSON = "application/json"
EVENT_STREAM = "text/event-stream"

#: Characters of an error body kept in ``HTTPStatusError``.
BODY_LIMIT = 2000
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
#: Seconds by which a socket timeout may fire before the deadline it was set from (clock rounding).
CLOCK_SLACK = 0.01


class _PastDeadline(Exception):
    """An exchange on the caller's thread ran past the caller's timeout."""


class _Outcome(enum.Enum):
    """How an exchange ended, for the thread that ran it."""

    READ = "read"  # the answer was read here (or the request is settled)
    ON_GET_STREAM = "on the GET stream"  # 202: the answer comes on the GET stream
    HANDED_OVER = "handed over"  # a worker reads the answer stream now


def status_error(response: requests.Response) -> HTTPStatusError:
    """Build the error for a non-2xx answer: status, body text, and the auth hints.

    The text reads ``HTTP <status>: <body> [WWW-Authenticate: ...; Mcp-Auth-Server: ...]``.
    """
    try:
        body = response.text
    except Exception:  # a body that cannot be read must not hide the status
        body = ""
    body = body.strip()
    shown = body if len(body) <= BODY_LIMIT else body[:BODY_LIMIT] + "..."
    text = f"HTTP {response.status_code}: {shown or response.reason or ''}".rstrip()
    hints = [
        f"{name}: {response.headers[name]}" for name in (WWW_AUTHENTICATE, MCP_AUTH_SERVER) if name in response.headers
    ]
    if hints:
        text += " [" + "; ".join(hints) + "]"
    return HTTPStatusError(
        text,
        status_code=response.status_code,
        body=body,
        www_authenticate=response.headers.get(WWW_AUTHENTICATE),
        auth_server=response.headers.get(MCP_AUTH_SERVER),
    )


def content_type(response: requests.Response) -> str:
    """The media type of a response, lower case, without parameters."""
    return response.headers.get("Content-Type", "").split(";", 1)[0].strip().lower()


def check_session_id(value: str) -> str:
    """The spec allows only visible ASCII (0x21-0x7E) in a session id; refuse anything else."""
    if not value or not all(0x21 <= ord(ch) <= 0x7E for ch in value):
        raise ProtocolError(f"the server sent an invalid {MCP_SESSION_ID}: {value!r} (visible ASCII only)")
    return value


class _Workers:
    """A small, bounded pool of named threads that run submitted exchanges; closed with a bound.

    At most ``size`` exchanges run at once, counting those a caller runs on
    its own thread (``try_enter`` / ``leave``), so that the connections in
    use never outnumber the pool's. A submitted call waits its turn when
    every slot is taken.
    """

    def __init__(self, name: str, size: int) -> None:
        self._name = name
        self._size = size
        self._queue: collections.deque[Callable[[], object]] = collections.deque()
        self._lock = threading.Condition()
        self._threads: list[threading.Thread] = []
        self._idle = 0  # workers waiting for work, not yet claimed by a submit
        self._running = 0  # exchanges running: on workers and on callers' threads
        self._handed: collections.deque[Callable[[], object]] = collections.deque()  # hand_over: slot kept
        self._closed = False

    def submit(self, fn: Callable[[], object]) -> None:
        with self._lock:
            if self._closed:
                raise TransportClosed(f"{self._name}: closed")
            self._queue.append(fn)
            self._wake()

    def try_enter(self) -> bool:
        """Take a slot for an exchange on the caller's own thread; ``False`` if none is free now."""
        with self._lock:
            if self._closed or self._queue or self._running + len(self._handed) >= self._size:
                return False
            self._running += 1
            return True

    def leave(self) -> None:
        """Give back a slot ``try_enter`` took."""
        with self._lock:
            self._running -= 1
            if self._queue:
                self._wake()

    def hand_over(self, fn: Callable[[], object], mark: Callable[[], None]) -> None:
        """Run ``fn`` on a worker in the slot the caller took with ``try_enter``.

        ``mark`` runs under the lock once the slot is handed over; from then on the caller must not ``leave``.
        """
        with self._lock:
            if self._closed:
                raise TransportClosed(f"{self._name}: closed")
            self._handed.append(fn)
            self._running -= 1  # the worker counts it again when it takes it
            try:
                self._wake(handed=True)
            except BaseException:  # no thread could be started: the caller keeps its slot
                self._handed.pop()
                self._running += 1
                raise
            mark()

    def _wake(self, handed: bool = False) -> None:
        # Under the lock: get a worker to the queue if a slot is free (a handed-over call has its own).
        if self._running + len(self._handed) >= self._size and not handed:
            return  # the exchange that ends first takes it
        if self._idle:
            # Claim an idle worker now: it counts itself running only once it runs,
            # and a second submit before then must not count on it too.
            self._idle -= 1
            self._lock.notify()
        elif len(self._threads) < self._size:
            thread = threading.Thread(
                target=self._run, name=f"mcpsync-http-{self._name}-{len(self._threads) + 1}", daemon=True
            )
            self._threads.append(thread)
            thread.start()

    def _run(self) -> None:
        while True:
            with self._lock:
                while not self._closed and not (
                    self._handed or (self._queue and self._running + len(self._handed) < self._size)
                ):
                    self._idle += 1  # a submit (or a slot given back) takes it back when it hands us work
                    self._lock.wait()
                if self._closed and not self._handed:
                    return
                fn = self._handed.popleft() if self._handed else self._queue.popleft()
                self._running += 1
            try:
                fn()
            finally:
                with self._lock:
                    self._running -= 1

    def close(self, timeout: float) -> list[Callable[[], object]]:
        """Stop taking work, let running calls finish (bounded); returns the calls never started."""
        with self._lock:
            self._closed = True
            left = list(self._queue)
            self._queue.clear()
            self._lock.notify_all()
        deadline = time.monotonic() + timeout
        for thread in self._threads:
            if thread is not threading.current_thread():
                thread.join(max(0.0, deadline - time.monotonic()))
                if thread.is_alive():
                    logger.warning("thread %s did not stop within %ss", thread.name, timeout)
        return left


class HTTPTransportBase(Transport):
    """What both HTTP transports keep: the URL, headers, auth, timeouts, and the ``requests.Session``.

    The session is ours to close only if we made it; ``_closing`` is set when
    ``close()`` begins, so that errors from connections we cut are not reported.
    """

    def __init__(
        self,
        url: str,
        type: str,
        *,
        headers: Optional[Mapping[str, str]],
        auth: Any,
        name: Optional[str],
        timeout: Optional[float],
        connect_timeout: float,
        read_timeout: float,
        session: Optional[requests.Session],
        **options: Any,
    ) -> None:
        from ..config import HTTPServerConfig  # validates url, headers and timeout

        config = HTTPServerConfig(url=url, headers=headers, type=type, timeout=timeout, name=name)
        super().__init__(name=config.display_name, timeout=timeout, **options)
        self.url = url
        self.headers = dict(headers or {})
        self.auth = auth
        self.connect_timeout = connect_timeout
        self.read_timeout = read_timeout
        self._own_session = session is None
        self._http = session
        #: How our own session sends each method to each URL (see ``Sender``).
        self._senders: dict[tuple[str, str], Sender] = {}
        self._closing = threading.Event()

    def _close_session(self) -> None:
        if self._own_session and self._http is not None:
            close_session(self._http)

    def _http_send(
        self,
        method: str,
        url: str,
        headers: dict[str, str],
        timeout: Any,
        data: Optional[bytes] = None,
        stream: bool = False,
    ) -> requests.Response:
        """One HTTP call with our auth; for our own session, the fast way (``Sender``)."""
        assert self._http is not None
        sender = None
        if self._own_session:
            sender = self._senders.get((method, url))
            if sender is None:
                sender = self._senders[(method, url)] = Sender(self._http, method, url)
        return http_call(
            self._http,
            method,
            url,
            self.name,
            self._closing,
            sender=sender,
            headers=headers,
            data=data,
            auth=self.auth,
            timeout=timeout,
            stream=stream,
        )

    def _oversized_event(self, event: OversizedEvent, failed: bool, request: Optional[RequestFuture] = None) -> bool:
        """An SSE event over ``max_message_size`` began or ended; returns whether a request failed for it."""
        if not event.complete:
            return self._oversized_begins(event.head, stream_of=request)
        self._oversized_ends(event.size, event.head, event.tail, failed, stream_of=request)
        return False

    def _json_body(self, response: requests.Response, request: Optional[RequestFuture]) -> Optional[bytes]:
        """The body of a JSON answer; ``None`` if it is over ``max_message_size`` (it is not read whole then).

        ``request``, the request it answers, fails at once in that case. On a
        caller's thread (``request.deadline``), every read ends by the deadline.
        """
        limit = self.max_message_size
        declared = response.headers.get("Content-Length", "")
        if limit is not None and declared.isdigit() and int(declared) > limit:
            self._oversized_begins(b"", size=int(declared), answer_to=request)
            return None
        deadline = request.deadline if request is not None else None
        parts: list[bytes] = []
        size = 0
        # Decoded as it comes, so a compressed body is bounded too.
        whole = int(declared) if declared.isdigit() and "Content-Encoding" not in response.headers else None
        for chunk in body_chunks(response, deadline if deadline is not None and math.isfinite(deadline) else None):
            size += len(chunk)
            if limit is not None and size > limit:
                self._oversized_begins((b"".join(parts) + chunk)[:ID_SCAN_BYTES], answer_to=request)
                return None
            parts.append(chunk)
            if size == whole:
                break  # all of it (urllib3 has let the connection go): no read for the end
        return b"".join(parts)


class StreamableHTTPTransport(HTTPTransportBase):
    """Talk to a server at one HTTP endpoint (Streamable HTTP).

    Args:
        url: the MCP endpoint.
        headers: extra headers on every request (e.g. ``Authorization``).
        auth: any ``requests`` auth object (bearer tokens, custom schemes).
        name: the server's name (default: the URL's host).
        timeout: default request timeout in seconds (``None``: 30 s).
        connect_timeout: seconds to establish a connection.
        read_timeout: seconds a stream may stay silent before it counts as broken.
        max_connections: requests in flight at once (exchanges on callers' threads and on
            worker threads, and pooled connections); more wait their turn.
        listen: open the GET stream for server-initiated messages after the handshake.
        max_resumptions: attempts to resume a broken stream with ``Last-Event-ID``.
        retry_delay: seconds before resuming when the server gave no ``retry``
            (doubled each attempt).
        session: a ``requests.Session`` to use (its adapters, proxies, TLS
            settings); closed with the transport only if we created it.
            mcpsync leaves its adapters alone, so it cannot cut a connection
            still waiting for an answer's headers: giving up on such a request
            frees its worker only when the server answers or ``read_timeout``
            passes.
        **options: ``on_notification``, ``on_request``, ``on_close``, ``on_error``,
            ``write_timeout`` (see ``Transport``).
    """

    def __init__(
        self,
        url: str,
        *,
        headers: Optional[Mapping[str, str]] = None,
        auth: Any = None,
        name: Optional[str] = None,
        timeout: Optional[float] = None,
        connect_timeout: float = 10.0,
        read_timeout: float = 300.0,
        max_connections: int = 10,
        listen: bool = True,
        max_resumptions: int = 3,
        retry_delay: float = 1.0,
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
        self.session_id: Optional[str] = None
        self._workers = _Workers(self.name, max_connections)
        self._streams: dict[int, requests.Response] = {}  # request id -> the response being read
        self._busy: dict[int, int] = {}  # request id -> the worker thread exchanging it
        self._connections = ConnectionRegistry()
        self._streams_lock = threading.Lock()
        self._renew_lock = threading.Lock()
        self._posting = threading.BoundedSemaphore(MESSAGE_CONNECTIONS)
        self._initialize_body: Optional[bytes] = None
        self._listener: Optional[threading.Thread] = None
        self._listener_response: Optional[requests.Response] = None
        self._listener_answered = threading.Event()

    # -- plumbing -------------------------------------------------------------

    def _open(self) -> None:
        if self._http is None:
            # + the GET stream and the messages posted outside exchanges
            self._http = new_session(self.url, self.max_connections + 1 + MESSAGE_CONNECTIONS, self._connections)

    def _request_headers(self, extra: Optional[Mapping[str, str]] = None, session: bool = True) -> dict[str, str]:
        headers = {"Accept": ACCEPT, "Content-Type": JSON, **self.headers}
        if session and self.session_id is not None:
            headers[MCP_SESSION_ID] = self.session_id
        if self.protocol_version is not None:
            headers[MCP_PROTOCOL_VERSION] = self.protocol_version
        if extra:
            headers.update(extra)
        return headers

    def _get_headers(self, last_event_id: Optional[str] = None) -> dict[str, str]:
        """Headers of a GET for an event stream (no body, so no Content-Type)."""
        headers = self._request_headers({"Accept": EVENT_STREAM})
        del headers["Content-Type"]
        if last_event_id:
            headers[LAST_EVENT_ID] = last_event_id
        return headers

    def _call(
        self, method: str, headers: dict[str, str], timeout: Any, data: Optional[bytes] = None, stream: bool = False
    ) -> requests.Response:
        return self._http_send(method, self.url, headers, timeout, data, stream)

    # -- sending ----------------------------------------------------------------

    def request(
        self, method: str, params: Optional[dict[str, Any]] = None, *, timeout: Any = USE_DEFAULT
    ) -> dict[str, Any]:
        """As ``Transport.request``; the exchange runs on the calling thread when a connection is free.

        The caller would only wait for a worker thread to do it; doing it here
        saves two thread wake-ups per call. The caller's timeout bounds the
        connect, every read, and the reading of a JSON answer; when it passes,
        the request is given up as ``wait`` gives it up
        (``notifications/cancelled``, ``RequestTimeout``). An answer that
        comes as an event stream (which may run long, or stay open after the
        answer), and a 404 that needs a new session, are handed to a worker,
        and the caller waits as for any request.
        """
        seconds = resolve_timeout(timeout, self.default_timeout)
        # The handshake stays on a worker: close() from another thread cuts it short at once,
        # even while a connection is still being made (no socket yet to shut down).
        if method == "initialize" or not self._workers.try_enter():
            return super().request(method, params, timeout=seconds)
        future: Optional[RequestFuture] = None
        try:
            future, data = self._new_request(method, params)
            deadline = future.deadline = math.inf if seconds is None else time.monotonic() + seconds
            self._count_sent(data, future)
            try:
                self._run_exchange(data, future)
            except KeyboardInterrupt:
                self.abandon(future, "interrupted by the user")
                raise
            except _PastDeadline:
                return self._timed_out(future, seconds or 0.0)
        finally:
            # A hand-over clears the deadline under the workers' lock as it takes the slot over.
            if future is None or future.deadline is not None:
                self._workers.leave()
        # Answered by now, or (202) to be answered on the GET stream.
        # (Its deadline is gone if a worker reads its answer stream now.)
        try:
            return self.wait(future, None if seconds is None else max(0.0, deadline - time.monotonic()))
        except RequestTimeout:
            raise RequestTimeout(method, seconds or 0.0) from None  # the caller's timeout, not what was left of it

    def _write(self, data: bytes, timeout: float, request: Optional[RequestFuture] = None) -> None:
        if request is None:
            # Notifications and our answers: the server acknowledges with 202, at once.
            self._post_message(data, timeout)
            return
        self._count_sent(data, request)
        self._workers.submit(lambda: self._run_exchange(data, request))

    def _count_sent(self, data: bytes, request: RequestFuture) -> None:
        if request.method == "initialize":
            self._initialize_body = data  # kept, to open a new session when this one expires
        self.stats.sent += 1

    def _timeouts(self, request: RequestFuture) -> tuple[float, float]:
        """Connect and read timeouts for a request's exchange: within its deadline, if it has one."""
        if request.deadline is None:
            return (self.connect_timeout, self.read_timeout)
        left = request.deadline - time.monotonic()
        if left <= 0:
            raise _PastDeadline()
        return (min(self.connect_timeout, left), min(self.read_timeout, left))

    def _post_message(self, data: bytes, timeout: float, retried: bool = False) -> None:
        headers = self._request_headers()
        sent_session = headers.get(MCP_SESSION_ID)
        # Any thread may post (cancellations come from callers): a few connections at a time, so
        # that these and the exchanges together never need more connections than the pool keeps.
        taken = False
        try:
            taken = self._posting.acquire(timeout=timeout)
            if not taken:
                raise WriteTimeout(f"{self.name}: no connection was free to send a message within {timeout:g}s")
            response = self._call("POST", headers, (min(self.connect_timeout, timeout), timeout), data)
            with finished(response):
                expired = response.status_code == 404 and sent_session is not None and not retried
                if not expired and not response.ok:
                    raise status_error(response)
        finally:
            if taken:
                self._posting.release()
        if expired:  # renew after letting go of the 404's connection
            self._renew_session(sent_session)  # type: ignore[arg-type]
            self._post_message(data, timeout, retried=True)
            return
        self.stats.sent += 1

    def _run_exchange(
        self,
        data: bytes,
        request: RequestFuture,
        stream: Optional[requests.Response] = None,
        renew: Optional[str] = None,
    ) -> Optional[_Outcome]:
        """POST a request and read its answer; any failure fails the request.

        On a worker, or on the caller's thread (``request.deadline`` set). What a
        caller's exchange hands over to a worker: ``stream``, the answer's event
        stream to read; ``renew``, the expired session to renew before sending again.
        """
        if stream is None and (request.done() or self._closing.is_set()):
            return None  # given up on (or closed) while it waited for a worker: never send it
        me = threading.get_ident()
        with self._streams_lock:
            self._busy[request.request_id] = me
        outcome: Optional[_Outcome] = None
        try:
            if stream is not None:
                outcome = self._read_handed_over(stream, request)
            elif renew is not None:
                outcome = self._renew_and_retry(data, request, renew)
            else:
                outcome = self._exchange(data, request)
            if outcome is _Outcome.HANDED_OVER:
                return outcome
            if outcome is _Outcome.ON_GET_STREAM and not self._listening():
                raise ProtocolError(
                    f"{self.name}: the server accepted request {request.request_id} with 202, "
                    "but there is no GET stream its answer could come on"
                )
            if outcome is _Outcome.READ and not request.done() and not self._closing.is_set():
                raise NoResponseError(request.request_id)
        except BaseException as exc:
            deadline = request.deadline
            if deadline is not None and (not isinstance(exc, Exception) or time.monotonic() >= deadline - CLOCK_SLACK):
                # On the caller's own thread, past its deadline or interrupted: the caller gives
                # the request up, as ``wait`` would (the failure here is the timeout's doing).
                if not isinstance(exc, Exception):
                    raise
                raise _PastDeadline() from exc
            error = self._as_error(exc)
            if not self.pending.reject(request.request_id, error) and not request.done():
                logger.debug(
                    "server %r: request %s failed after it was settled: %s", self.name, request.request_id, exc
                )
            if not isinstance(exc, Exception):
                raise
        finally:
            # A stream handed over stays listed (close() and abandon() can cut it) until its worker is done.
            if outcome is not _Outcome.HANDED_OVER:
                with self._streams_lock:
                    if self._busy.get(request.request_id) in (None, me):
                        self._streams.pop(request.request_id, None)
                        self._busy.pop(request.request_id, None)
                self._connections.forget()  # lest cutting this thread later hit a connection it gave back
        return None

    def _exchange(self, data: bytes, request: RequestFuture, retried: bool = False) -> _Outcome:
        """POST a request and handle what comes back."""
        headers = self._request_headers()
        sent_session = headers.get(MCP_SESSION_ID)
        response = self._call("POST", headers, self._timeouts(request), data, stream=True)
        kept = False
        try:
            with self._streams_lock:
                self._streams[request.request_id] = response
            if request.done():  # abandoned while we were connecting
                return _Outcome.READ
            expired = response.status_code == 404 and sent_session is not None
            if expired and retried:
                raise SessionExpired(f"{self.name}: the server refused the renewed session too (404)")
            if not expired and not response.ok:
                raise status_error(response)
            if not expired:
                outcome = self._take_answer(response, request)
                kept = outcome is _Outcome.HANDED_OVER
                return outcome
        finally:
            if not kept:
                with finished(response):
                    pass
        assert sent_session is not None
        if request.deadline is not None:
            # On the caller's thread: a renewal is a whole handshake, which a worker does;
            # the caller waits as for any request.
            self._hand_over(request, lambda: self._run_exchange(data, request, renew=sent_session), keep_stream=False)
            return _Outcome.HANDED_OVER
        return self._renew_and_retry(data, request, sent_session)

    def _renew_and_retry(self, data: bytes, request: RequestFuture, expired: str) -> _Outcome:
        """Renew the session (after letting go of the 404's connection), then send the request once more."""
        self._renew_session(expired)
        if request.done() or self._closing.is_set():
            return _Outcome.READ
        return self._exchange(data, request, retried=True)

    def _take_answer(self, response: requests.Response, request: RequestFuture) -> _Outcome:
        """Handle the answer to a request."""
        if request.method == "initialize":
            self._take_session_id(response)
        if response.status_code == 202:
            return _Outcome.ON_GET_STREAM
        kind = content_type(response)
        if kind == JSON:
            body = self._json_body(response, request)
            if body is not None and body.strip():
                self._handle_data(body)
        elif kind == EVENT_STREAM:
            if request.deadline is not None:
                # On the caller's thread: a stream may run long, or stay open after the answer.
                # A worker reads it; the caller waits for the answer as for any request.
                self._hand_over(request, lambda: self._run_exchange(b"", request, response), keep_stream=True)
                return _Outcome.HANDED_OVER
            self._read_answer_stream(response, request)
        else:
            raise ProtocolError(f"{self.name}: unexpected Content-Type {kind or 'none'!r} in the answer to a request")
        return _Outcome.READ

    def _hand_over(self, request: RequestFuture, job: Callable[[], object], keep_stream: bool) -> None:
        """From the caller's thread: let a worker finish the exchange, in the caller's slot.

        The caller no longer works for the request: its deadline goes (the caller
        waits on the future now), and so does its name in ``_busy``, lest giving the
        request up cut a connection the caller's thread takes up next. The answer's
        stream stays listed with ``keep_stream``, so that it can still be cut.
        """
        with self._streams_lock:
            self._busy.pop(request.request_id, None)
            if not keep_stream:
                self._streams.pop(request.request_id, None)
        self._connections.forget()  # the connection goes with the stream
        self._workers.hand_over(job, lambda: setattr(request, "deadline", None))

    def _read_handed_over(self, response: requests.Response, request: RequestFuture) -> _Outcome:
        """A worker: read the answer stream of a caller's exchange, on the connection that came with it."""
        connection = getattr(response.raw, "connection", None)
        if connection is not None:
            self._connections.using(connection)  # so that giving the request up cuts this one
        with finished(response):
            with self._streams_lock:
                self._streams[request.request_id] = response
            if not request.done() and not self._closing.is_set():
                self._read_answer_stream(response, request)
        return _Outcome.READ

    def _as_error(self, exc: BaseException) -> BaseException:
        """What a failed exchange becomes for its caller: always one of our errors."""
        if isinstance(exc, MCPError):
            return exc
        if isinstance(exc, requests.exceptions.RequestException):
            return TransportError(f"{self.name}: reading the answer failed: {reason(exc)}")
        if isinstance(exc, ValueError):
            return ProtocolError(f"{self.name}: the answer is not valid: {exc}")
        if isinstance(exc, Exception):
            logger.exception("server %r: unexpected failure of an exchange", self.name)
            return TransportError(f"{self.name}: unexpected failure: {exc!r}")
        return TransportError(f"{self.name}: {exc!r}")

    def _listening(self) -> bool:
        return self._listener is not None and self._listener.is_alive() and not self._closing.is_set()

    def _take_session_id(self, response: requests.Response) -> None:
        value = response.headers.get(MCP_SESSION_ID)
        self.session_id = check_session_id(value) if value is not None else None

    # -- streams ------------------------------------------------------------------

    def _read_events(
        self, response: requests.Response, request: Optional[RequestFuture] = None
    ) -> tuple[Optional[str], Optional[int]]:
        """Feed every event of a stream to the message handling; return the last event id and retry.

        A stream that breaks (reset, timeout) just ends here: the caller decides about resuming.
        ``request``: the request whose answer the stream carries; an event over
        ``max_message_size`` on it fails it, and ends the reading.
        """
        last_id: Optional[str] = None
        retry: Optional[int] = None
        failed = False
        try:
            for event in events(body_chunks(response), self.max_message_size):
                if event.oversized is not None:
                    failed = self._oversized_event(event.oversized, failed, request)
                    if request is not None and request.done():
                        break  # its answer was refused: nothing on this stream is wanted any more
                    continue
                if event.id:
                    last_id = event.id
                if event.retry is not None:
                    retry = event.retry
                if event.event == "message" and event.data:
                    self._handle_data(event.data)
        except (requests.exceptions.RequestException, OSError, ValueError) as exc:
            if not self._closing.is_set():
                logger.info("server %r: stream broke: %s", self.name, reason(exc))
        return last_id, retry

    def _read_answer_stream(self, response: requests.Response, request: RequestFuture) -> None:
        last_id, retry = self._read_events(response, request)
        attempt = 0
        while not request.done() and not self._closing.is_set():
            if last_id is None or attempt >= self.max_resumptions:
                raise NoResponseError(request.request_id)
            attempt += 1
            delay = retry / 1000.0 if retry is not None else self.retry_delay * 2 ** (attempt - 1)
            logger.info(
                "server %r: resuming the stream of request %s after event %s in %.2fs",
                self.name,
                request.request_id,
                last_id,
                delay,
            )
            if self._closing.wait(delay):
                return
            resumed = self._call(
                "GET", self._get_headers(last_id), (self.connect_timeout, self.read_timeout), stream=True
            )
            with finished(resumed):
                with self._streams_lock:
                    self._streams[request.request_id] = resumed
                if not resumed.ok:  # 405: no resumption offered; 404: the stream or session is gone
                    logger.info("server %r: cannot resume (HTTP %d)", self.name, resumed.status_code)
                    raise NoResponseError(request.request_id)
                new_id, new_retry = self._read_events(resumed, request)
            if new_id is not None and new_id != last_id:
                attempt = 0  # it made progress: servers may answer by polling, one event per GET
            last_id = new_id or last_id
            retry = new_retry if new_retry is not None else retry

    def _request_abandoned(self, future: RequestFuture) -> None:
        # Free its worker at once, whether it reads the answer or still waits for it.
        with self._streams_lock:
            response = self._streams.pop(future.request_id, None)
            worker = self._busy.pop(future.request_id, None)
            interrupt(response)
            if worker is not None:
                # Under the lock: the worker cannot get past this request (its finally
                # needs the lock) and start another on a connection we would cut.
                self._connections.cut(worker)

    # -- the session ------------------------------------------------------------------

    def _renew_session(self, expired: str) -> None:
        """The server forgot our session: run the handshake again, once for all threads that noticed.

        A caller's exchange that meets a 404 hands it to a worker; a notification renews where it is.
        """
        if not self._renew_lock.acquire(timeout=self.read_timeout):  # another thread is renewing
            raise SessionExpired(f"{self.name}: the session expired, and renewing it took over {self.read_timeout:g}s")
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
            response = self._call(
                "POST",
                self._request_headers(session=False),
                (self.connect_timeout, self.read_timeout),
                body,
                stream=True,
            )
            with finished(response):
                if not response.ok:
                    raise SessionExpired(
                        f"{self.name}: session expired, and renewing it failed: {status_error(response)}"
                    )
                self._take_session_id(response)
                answer = self._find_answer(response, request_id)
            if "error" in answer:
                raise SessionExpired(f"{self.name}: session expired, and renewing it failed: {answer['error']}")
            version = answer.get("result", {}).get("protocolVersion")
            if version != self.protocol_version:
                raise SessionExpired(
                    f"{self.name}: the new session speaks protocol {version!r}, not {self.protocol_version!r}"
                )
            self._post_message(
                messages.encode(messages.notification("notifications/initialized")), self.write_timeout, retried=True
            )
        finally:
            self._renew_lock.release()

    def _find_answer(self, response: requests.Response, request_id: Any) -> dict[str, Any]:
        """Read a JSON or SSE answer and return the response to ``request_id``; other messages are handled."""
        if content_type(response) == JSON:
            body = self._json_body(response, None)
            if body is None:
                raise MessageTooLarge(f"{self.name}: the answer to initialize", None, self.max_message_size or 0)
            candidates: Iterator[Any] = iter([messages.decode(body)])
        else:
            candidates = (messages.decode(e.data) for e in self._answer_events(response) if e.data)
        for message in candidates:
            if isinstance(message, dict) and "method" not in message and message.get("id") == request_id:
                return message
            self._handle_message(message)
        raise NoResponseError(request_id)

    def _answer_events(self, response: requests.Response) -> Iterator[ServerSentEvent]:
        """The events of a stream, those over ``max_message_size`` counted and left out."""
        for event in events(body_chunks(response), self.max_message_size):
            if event.oversized is not None:
                self._oversized_event(event.oversized, True)  # nobody to fail: initialize is not pending
            else:
                yield event

    def handshake_complete(self) -> None:
        if self.listen and self._listener is None and not self._closing.is_set():
            self._listener = threading.Thread(target=self._listen, name=f"mcpsync-listener-{self.name}", daemon=True)
            self._listener.start()
            # Servers drop what they send while no GET stream is open: let connect() return
            # once the server has answered the GET (stream open, or 405), within a bound.
            self._listener_answered.wait(min(self.connect_timeout, LISTENER_START_WAIT))

    def _listen(self) -> None:
        """The GET stream for what the server sends on its own; reconnects with backoff."""
        last_id: Optional[str] = None
        failures = 0
        while not self._closing.is_set():
            try:
                response = self._call(
                    "GET", self._get_headers(last_id), (self.connect_timeout, self.read_timeout), stream=True
                )
            except TransportError as exc:
                failures += 1
                logger.info("server %r: GET stream failed: %s", self.name, exc)
                self._listener_answered.set()
            else:
                self._listener_answered.set()
                # A response kept referenced keeps its socket's descriptor open: let go of it.
                self._listener_response = response
                try:
                    with finished(response):
                        if self._closing.is_set():
                            return
                        if response.status_code == 405:
                            logger.debug("server %r: offers no GET stream (405)", self.name)
                            return
                        if not response.ok:
                            failures += 1
                            logger.info("server %r: GET stream refused: %s", self.name, status_error(response))
                        else:
                            failures = 0
                            new_id, _ = self._read_events(response)
                            last_id = new_id or last_id
                finally:
                    self._listener_response = None
                    del response
            if failures >= LISTENER_MAX_FAILURES:
                logger.warning("server %r: GET stream failed %d times in a row; giving up on it", self.name, failures)
                return
            self._closing.wait(
                min(LISTENER_BACKOFF[1], LISTENER_BACKOFF[0] * 2**failures) if failures else LISTENER_BACKOFF[0]
            )

    # -- closing ------------------------------------------------------------------------

    def _threads(self) -> tuple[Optional[threading.Thread], ...]:
        return (self._listener, *self._workers._threads)

    def _shutdown(self) -> None:
        self._closing.set()
        interrupt(self._listener_response)
        with self._streams_lock:
            streams = list(self._streams.values())
        for response in streams:
            interrupt(response)
        self._connections.cut()
        if self._listener is not None and self._listener is not threading.current_thread():
            self._listener.join(self.connect_timeout)
        self._workers.close(self.connect_timeout + 2)
        if self.session_id is not None and self._http is not None:
            headers = self._request_headers()
            headers.pop("Content-Type", None)
            try:
                with finished(
                    self._http.delete(self.url, headers=headers, auth=self.auth, timeout=DELETE_TIMEOUT)
                ) as response:
                    pass
                if response.status_code not in (200, 202, 204, 405, 404):
                    logger.debug("server %r: DELETE of the session answered %d", self.name, response.status_code)
            except requests.exceptions.RequestException as exc:
                logger.debug("server %r: DELETE of the session failed: %s", self.name, exc)
        self._close_session()
