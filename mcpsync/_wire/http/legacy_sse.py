"""The HTTP+SSE transport of MCP 2024-11-05 (deprecated, still common).

A GET opens an event stream; its first event, ``endpoint``, names the URL to
POST our messages to (relative URLs are resolved against the stream's; a
different origin is refused). Everything the server says, answers included,
arrives as ``message`` events on that stream, read by one thread
(``mcpsync-reader-<server>``), which also makes the GET. When the stream
ends, every waiting request fails at once. Each POST is acknowledged at
once (the answer comes on the stream), so it is sent from the calling thread,
within the request's deadline; cancellations go out in the background
(``mcpsync-notice-<server>``).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Mapping
from typing import Any, Optional
from urllib.parse import urljoin

import requests

from ..._core.errors import ConnectError, MCPError, ProtocolError, TransportClosed, WriteTimeout
from ..._core.jsonrpc import Data
from ..._core.pending import RequestFuture
from ..._core.sse import events
from ..._core.timeouts import USE_DEFAULT, Timeout
from ..._threads.latches import Latch
from ..._threads.signals import acquire_deferred, deferred_interrupts
from ..._threads.workers import Workers
from ..base import CLOSE_NOTICE_BUDGET, logger
from .base import HTTPTransportBase
from .client import EVENT_STREAM, JSON, released_after
from .urls import origin, public_url

__all__ = ["SSETransport"]

#: The path an HTTP+SSE event stream usually has (a 404 or 405 elsewhere asks whether it is the one).
ENDPOINT = "/sse"
#: POSTs at once (each takes a connection of the pool).
POSTING = 4


class SSETransport(HTTPTransportBase):
    """Talk to a server over the 2024-11-05 HTTP+SSE transport.

    Args:
        url: the SSE endpoint (the GET stream).
        headers: extra headers on every request.
        auth: any ``requests`` auth object.
        name: the server's name (default: the URL's host).
        timeout: default request timeout in seconds (``None``: no limit; ``USE_DEFAULT``: 30 s).
        connect_timeout: seconds to connect and to receive the ``endpoint`` event.
        read_timeout: seconds the stream may stay silent before it counts as broken.
        session: a ``requests.Session`` to use; closed with the transport only if we created it.
        **options: as for ``Transport``.
    """

    kind = "sse"

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
        session: Optional[requests.Session] = None,
        **options: Any,
    ) -> None:
        super().__init__(
            url,
            "sse",
            headers=headers,
            auth=auth,
            name=name,
            timeout=timeout,
            connect_timeout=connect_timeout,
            read_timeout=read_timeout,
            session=session,
            **options,
        )
        #: Where our messages are POSTed (from the ``endpoint`` event).
        self.endpoint_url: Optional[str] = None
        self._endpoint_ready = Latch()
        self._posting = threading.BoundedSemaphore(POSTING)
        self._reader: Optional[threading.Thread] = None
        self._problem_at_start: Optional[MCPError] = None
        self._notices = Workers(f"mcpsync-notice-{self.name}", 1)
        self._closing = threading.Event()
        self._opening_ends = math.inf

    def _open(self) -> None:
        # Until the endpoint arrives, connect_timeout bounds it all, and the handshake's deadline.
        started = time.monotonic()
        self._opening_ends = min(started + self.connect_timeout, self._open_deadline)
        bound = self._opening_ends - started
        self._open_http(POSTING + 1)  # + the event stream
        if self._shutdown_started:  # a close() came before there was a client to cut
            self._shutdown()
            raise TransportClosed(f"{self.name}: closed by the client while it was being opened")
        self._reader = threading.Thread(target=self._read, name=f"mcpsync-reader-{self.name}", daemon=True)
        self._reader.start()
        ready = self._endpoint_ready.wait(max(0.0, self._opening_ends - time.monotonic()))
        if not ready or self.endpoint_url is None:
            problem = self._problem_at_start
            self._shutdown()
            if self._shutdown_started:  # close() came meanwhile (_stop_opening woke us)
                raise TransportClosed(f"{self.name}: closed by the client while it was being opened")
            # A WriteTimeout is the reader's own deadline passing first: say what was missing.
            if problem is not None and not isinstance(problem, WriteTimeout):
                raise problem
            raise ConnectError(f"{self.name}: no 'endpoint' event on {self.address} within {bound:.3g}s")

    def _accept_endpoint(self, data: str) -> None:
        """Take the ``endpoint`` event: a URL on the stream's own origin, which every reader sees the same."""
        endpoint = urljoin(self.url, data.strip())
        try:
            if origin(endpoint) != origin(self.url):
                raise ValueError("it is on another origin")
        except ValueError as exc:
            shown = public_url(endpoint) if "\\" not in endpoint else repr(endpoint)
            raise ProtocolError(
                f"{self.name}: the server's endpoint {shown} is refused: {exc} (the stream is {self.address})"
            ) from None
        self.endpoint_url = endpoint

    def _read(self) -> None:
        """The reader thread: open the stream, take the endpoint, then feed every message."""
        assert self._http is not None
        why = "the server ended the event stream"
        try:
            # Until the endpoint arrives, the opening's bound holds; after that, only the silence.
            with self._http.exchange(self._opening_ends) as exchange:
                response = exchange.send("GET", self.url, {"Accept": EVENT_STREAM})
                with released_after(response):
                    if not response.ok:
                        self._problem_at_start = exchange.status_error(response, ENDPOINT)
                        return
                    for event in events(exchange.chunks(response), self.max_message_size):
                        if event.oversized is not None:
                            self._oversized_event(event.oversized)
                        elif event.event == "endpoint" and event.data and self.endpoint_url is None:
                            self._accept_endpoint(event.data)
                            self._http.rewatch(exchange, math.inf)  # from now on only silence ends it
                            self._endpoint_ready.set()
                        elif event.event == "message" and event.data:
                            try:
                                self._feed(event.data)
                            except Exception:  # never let one message end the reader
                                logger.exception("server %r: failed to handle a message", self.name)
        except ProtocolError as exc:
            self._problem_at_start = exc
        except MCPError as exc:
            if self.endpoint_url is None:
                self._problem_at_start = exc
            why = f"the event stream broke: {exc}"
        finally:
            self._endpoint_ready.set()
            if not self._closing.is_set() and self.endpoint_url is not None:
                self._connection_lost(TransportClosed(f"{self.name}: {why}"))

    _oversized_failed = False  # the reader's: whether the oversized event now going by failed a request

    def _oversized_event(self, oversized: Any) -> None:
        if not oversized.complete:
            self._oversized_failed = self._oversized(oversized.head)
        else:
            self._oversized(
                oversized.head, tail=oversized.tail, size=oversized.size, complete=True, failed=self._oversized_failed
            )

    # -- sending ----------------------------------------------------------------------------

    def _write_request(self, future: RequestFuture, data: Data, deadline: float, wait: bool) -> None:
        # The POST is acknowledged at once; the answer comes on the stream.
        self._write(data, max(0.0, min(deadline - time.monotonic(), self.write_timeout)))

    def _write(self, data: Data, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        self._bounded(lambda: self._post(data, deadline), deadline)

    def _post(self, data: Data, deadline: float) -> None:
        if self.endpoint_url is None or self._http is None:
            raise self.closed_error()
        # As many POSTs at once as the pool keeps connections for, lest urllib3 open and drop more.
        if not acquire_deferred(self._posting.acquire, deadline - time.monotonic()):
            raise WriteTimeout(f"{self.name}: no connection was free to send a message in time")
        try:
            with self._http.exchange(deadline) as exchange, deferred_interrupts(lambda: exchange.cut("interrupted")):
                response = exchange.send("POST", self.endpoint_url, {"Content-Type": JSON}, data)
                with released_after(response):
                    if not response.ok:
                        raise exchange.status_error(response)
        finally:
            self._posting.release()
        self.stats.sent += 1

    def _send_notice(self, data: Data) -> None:
        post = super()._send_notice  # a POST within NOTICE_TIMEOUT, on the notice thread: the caller never waits
        try:
            self._notices.submit(lambda: post(data))
        except MCPError:
            pass  # closing: the notice no longer matters

    # -- closing ----------------------------------------------------------------------------

    def _threads(self) -> tuple[Optional[threading.Thread], ...]:
        return (self._reader, *self._notices.threads)

    def _stop_opening(self) -> None:
        # The reader may be waiting for the endpoint event (up to connect_timeout): cut it, and wake _open.
        self._closing.set()
        http = self._http
        if http is not None:
            http.refuse_new()
            http.cut_all("the client is closing")
        self._endpoint_ready.set()

    def _shutdown(self) -> None:
        self._closing.set()
        # The cancellations still on their way go out first (bounded), while the session lives.
        self._notices.close(CLOSE_NOTICE_BUDGET, drain=True)
        if self._http is not None:
            self._http.cut_all("the client is closing")
        if self._reader is not None and self._reader is not threading.current_thread():
            self._reader.join(self._join_budget(self.connect_timeout))
            if self._reader.is_alive():
                logger.warning("server %r: reader did not stop", self.name)
        self._close_http()
