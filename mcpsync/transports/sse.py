"""The HTTP+SSE transport of MCP 2024-11-05 (deprecated, still common).

A GET opens an event stream; its first event, ``endpoint``, names the URL to
POST our messages to (relative URLs are resolved against the stream's; a
different origin is refused). Everything the server says, answers included,
arrives as ``message`` events on that stream, read by one thread
(``mcpsync-reader-<server>``). When the stream ends, every waiting request
fails at once.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from typing import Any, Optional
from urllib.parse import urljoin, urlsplit

import requests

from ..errors import ConnectError, ProtocolError, RequestTimeout, TransportClosed, TransportError
from ..pending import RequestFuture
from ..sse import events
from .http import EVENT_STREAM, JSON, HTTPTransportBase, status_error
from .http_wire import body_chunks, finished, http_call, interrupt, new_session

__all__ = ["SSETransport"]

logger = logging.getLogger("mcpsync.transport")


class SSETransport(HTTPTransportBase):
    """Talk to a server over the 2024-11-05 HTTP+SSE transport.

    Args:
        url: the SSE endpoint (the GET stream).
        headers: extra headers on every request.
        auth: any ``requests`` auth object.
        name: the server's name (default: the URL's host).
        timeout: default request timeout in seconds (``None``: 30 s).
        connect_timeout: seconds to connect and to receive the ``endpoint`` event.
        read_timeout: seconds the stream may stay silent before it counts as broken.
        session: a ``requests.Session`` to use; closed with the transport only if we created it.
        **options: as for ``Transport``.
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
        self.endpoint: Optional[str] = None
        self._endpoint_ready = threading.Event()
        self._stream: Optional[requests.Response] = None
        self._reader: Optional[threading.Thread] = None
        self._problem_at_start: Optional[BaseException] = None

    def _open(self) -> None:
        if self._http is None:
            self._http = new_session(self.url, 4)
        response = http_call(
            self._http,
            "GET",
            self.url,
            self.name,
            self._closing,
            headers={"Accept": EVENT_STREAM, **self.headers},
            auth=self.auth,
            timeout=(self.connect_timeout, self.read_timeout),
            stream=True,
        )
        if not response.ok:
            with finished(response):
                error = status_error(response)
            self._close_session()
            raise error
        self._stream = response
        self._reader = threading.Thread(target=self._read, name=f"mcpsync-reader-{self.name}", daemon=True)
        self._reader.start()
        if not self._endpoint_ready.wait(self.connect_timeout) or self.endpoint is None:
            problem = self._problem_at_start
            self._shutdown()
            if isinstance(problem, ProtocolError):
                raise problem
            raise ConnectError(f"{self.name}: no 'endpoint' event on {self.url} within {self.connect_timeout:g}s")

    def _accept_endpoint(self, data: str) -> None:
        endpoint = urljoin(self.url, data.strip())
        if _origin(endpoint) != _origin(self.url):
            raise ProtocolError(
                f"{self.name}: the server's endpoint {endpoint!r} is on another origin than {self.url!r}"
            )
        self.endpoint = endpoint

    def _read(self) -> None:
        response = self._stream
        assert response is not None
        reason = "the server ended the event stream"
        failed = False
        try:
            for event in events(body_chunks(response), self.max_message_size):
                if event.oversized is not None:
                    failed = self._oversized_event(event.oversized, failed)
                elif event.event == "endpoint" and self.endpoint is None:
                    try:
                        self._accept_endpoint(event.data)
                    except ProtocolError as exc:
                        self._problem_at_start = exc
                        return
                    finally:
                        self._endpoint_ready.set()
                elif event.event == "message" and event.data:
                    try:
                        self._handle_data(event.data)
                    except Exception:  # never let one message end the reader
                        logger.exception("server %r: failed to handle a message", self.name)
        except (requests.exceptions.RequestException, OSError, ValueError) as exc:
            reason = f"the event stream broke: {exc}"
        finally:
            self._endpoint_ready.set()
            if not self._closing.is_set():
                self._connection_lost(lambda: TransportClosed(f"{self.name}: {reason}"))

    def _write(self, data: bytes, timeout: float, request: Optional[RequestFuture] = None) -> None:
        if self.endpoint is None or self._http is None:
            raise self.closed_error()
        try:
            response = self._http_send(
                "POST",
                self.endpoint,
                {"Content-Type": JSON, **self.headers},
                (min(self.connect_timeout, timeout), timeout),
                data,
            )
        except TransportError as exc:
            if request is None or not isinstance(exc.__cause__, requests.exceptions.ReadTimeout):
                raise
            # The server took the request but did not acknowledge it in the request's time: a timeout,
            # as if no answer came. Its answer may still come: it is recognised as late.
            self.pending.discard(request.request_id)
            raise RequestTimeout(request.method, timeout) from exc
        with finished(response):
            if not response.ok:
                raise status_error(response)
        self.stats.sent += 1

    def _threads(self) -> tuple[Optional[threading.Thread], ...]:
        return (self._reader,)

    def _shutdown(self) -> None:
        self._closing.set()
        interrupt(self._stream)
        if self._reader is not None and self._reader is not threading.current_thread():
            self._reader.join(self.connect_timeout)
            if self._reader.is_alive():
                logger.warning("server %r: reader did not stop", self.name)
        stream, self._stream = self._stream, None  # a response kept referenced keeps its socket open
        if stream is not None:
            try:
                with finished(stream):
                    pass
            except Exception as exc:  # closing a broken stream may raise; it is closed either way
                logger.debug("server %r: closing the stream: %s", self.name, exc)
        self._close_session()


_DEFAULT_PORTS = {"http": 80, "https": 443}


def _origin(url: str) -> tuple[str, str, Optional[int]]:
    """Scheme, host and port as browsers compare them (case-insensitive host, default ports filled in)."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    return scheme, (parts.hostname or "").lower(), parts.port or _DEFAULT_PORTS.get(scheme)
