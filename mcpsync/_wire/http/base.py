"""What both HTTP transports share: the URL and its settings, the ``HTTPClient``, reading bodies and event streams."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any, Callable, Optional, TypeVar, Union
from urllib.parse import urlsplit

import requests

from ..._core import auth_hook
from ..._core.authorizer import Authorizer
from ..._core.endpoint import ID_SCAN_BYTES
from ..._core.pending import RequestFuture
from ..._core.sse import events
from ..._core.timeouts import USE_DEFAULT, Timeout
from ..base import Transport, logger
from ..config import HTTPServerConfig
from .auth import as_authorizer, requests_auth_context
from .client import HELPERS_JOIN, Exchange, HTTPClient
from .errors import reason
from .urls import public_url

__all__ = ["ANSWER_STREAM_GRACE", "HTTPTransportBase", "StreamPosition"]

_T = TypeVar("_T")

#: Seconds a stream may run on after the answer it carries, for the server to end it (as it should);
#: then it is cut. Servers end it at once; one that does not costs its caller this much per call.
ANSWER_STREAM_GRACE = 0.2


class StreamPosition:
    """How far an event stream got: its last event id and the ``retry`` (ms) it asked for."""

    __slots__ = ("last_id", "retry")

    def __init__(self) -> None:
        self.last_id: Optional[str] = None
        self.retry: Optional[int] = None


class HTTPTransportBase(Transport):
    """The URL, headers, auth and timeouts of an HTTP server, and the ``HTTPClient`` that reaches it.

    The client is made when the transport opens; its session is ours to
    close only if we made it.
    """

    def __init__(
        self,
        url: str,
        type: str,
        *,
        headers: Optional[Mapping[str, str]],
        auth: object,
        name: Optional[str],
        timeout: Timeout = USE_DEFAULT,
        connect_timeout: float,
        read_timeout: float,
        session: Optional[requests.Session],
        login_command: Optional[str] = None,
        **options: Any,
    ) -> None:
        config = HTTPServerConfig(url=url, headers=headers, type=type, timeout=timeout, name=name)  # validates them
        super().__init__(name=config.display_name, timeout=config.timeout, **options)
        self.url = url
        self.headers = dict(headers or {})
        #: No auth at all, not even the default (``auth=False``).
        self.no_auth = auth is False
        #: The user's ``auth=``, as an ``Authorizer`` (``None``: the default, unless ``no_auth``).
        self.auth: Optional[Authorizer] = None if auth is False else as_authorizer(auth)
        self.connect_timeout = connect_timeout
        self.read_timeout = read_timeout
        self._session = session
        self._http: Optional[HTTPClient] = None
        self._authorizer: Optional[Authorizer] = None
        #: What an ``AuthorizationRequired`` tells the user to run (default: ``mcpsync login --url URL``).
        self.login_command = login_command

    @property
    def address(self) -> str:
        """The server's URL, without credentials or query."""
        return public_url(self.url)

    @property
    def authorizer(self) -> Optional[Authorizer]:
        """The auth bound to this server (``for_server``: ``OAuth``'s ``ServerAuth``), once open;
        ``None`` with no auth (or the user's session's, or the URL's)."""
        return self._authorizer

    def _auth_for_http(self) -> Optional[Authorizer]:
        """The auth the HTTP client applies: the user's, bound to this server (``for_server``);
        by default MCP's OAuth, unless the request is authenticated another way already."""
        if self.no_auth:
            return None
        auth = self.auth
        make_default = auth_hook.default_auth
        if auth is None and make_default is not None:
            headers = {k.lower() for k in self.headers}
            session = self._session
            # The other ways of authenticating win: the user's session's auth, .netrc, user:password@.
            if session is not None:
                other = session.auth is not None
            else:
                other = bool(requests.utils.get_netrc_auth(self.url) or urlsplit(self.url).username)
            if "authorization" not in headers and not other:
                auth = make_default()
        if auth is not None:
            auth = auth.for_server(self.url, self.name, session=self._session, login_command=self.login_command)
        self._authorizer = auth
        return auth

    def authorization_context(self) -> str:
        """A fingerprint (SHA-256, in memory only) of what authorizes the requests now: an
        ``Authorization`` header of ``headers``, and the auth applied: the authorizer's own context
        (``OAuth``'s current access token: a refresh, a new login, another user is another context),
        else the user's session's auth (its own ``authorization_context()``, else its identity)."""
        parts = [f"header {value}" for key, value in self.headers.items() if key.lower() == "authorization"]
        applied = self._http.auth if self._http is not None else None
        if applied is not None:
            parts.append(f"auth {applied.authorization_context()}")
        elif self._session is not None and self._session.auth is not None:
            parts.append(f"auth {requests_auth_context(self._session.auth)}")
        if not parts:
            return ""
        import hashlib

        return hashlib.sha256("\n".join(parts).encode("utf-8")).hexdigest()

    def context_in_config(self) -> bool:
        """Whether what authorizes the requests is all in the configuration (its headers, or nothing):
        not once an OAuth token (or another authorizer's credential) is sent, nor with the auth of a
        session of the user's, whose account the configuration does not name."""
        applied = self._http.auth if self._http is not None else None
        if applied is not None and applied.authorization_context():
            return False
        return self._session is None or self._session.auth is None

    def _open_http(self, max_connections: int) -> HTTPClient:
        self._http = HTTPClient(
            self.name,
            self.url,
            headers=self.headers,
            auth=self._auth_for_http(),
            session=self._session,
            max_connections=max_connections,
            connect_timeout=self.connect_timeout,
            read_timeout=self.read_timeout,
        )
        return self._http

    def _bounded(self, work: Callable[[], _T], deadline: float) -> _T:
        """Run ``work`` (an exchange) here when it can be cut; else on a helper thread, waiting until ``deadline``."""
        http = self._http
        if http is None or http.can_cut:
            return work()
        return http.run_bounded(work, deadline)

    def _join_budget(self, seconds: float) -> float:
        """How long close waits for a thread whose exchange it cut: ``seconds``; hardly at all when
        exchanges cannot be cut (a session of yours, a SOCKS proxy), for they end only on their own."""
        http = self._http
        return seconds if http is None or http.can_cut else HELPERS_JOIN

    def _close_http(self) -> None:
        if self._http is not None:
            self._http.close()

    def _json_body(
        self, exchange: Exchange, response: requests.Response, request: Optional[RequestFuture]
    ) -> Optional[Union[bytes, str]]:
        """The body of a JSON answer; ``None`` if it is over ``max_message_size`` (it is not read whole then).

        ``request``, the request it answers, fails at once in that case. The
        size is counted decompressed, so a compressed body is bounded too.
        The body comes in one buffer (of its declared size, when it has one)
        and is returned as text, its bytes let go: the message is held twice
        at most (bytes and text, then text and its JSON), never three times.
        Bytes that are not UTF-8 come back as bytes, for the endpoint to say so.
        """
        limit = self.max_message_size
        declared = response.headers.get("Content-Length", "")
        if limit is not None and declared.isdigit() and int(declared) > limit:
            self._oversized(b"", size=int(declared), answer_to=request)
            return None
        whole = int(declared) if declared.isdigit() and "Content-Encoding" not in response.headers else None
        body = bytearray()
        for chunk in exchange.chunks(response):
            if limit is not None and len(body) + len(chunk) > limit:
                self._oversized((bytes(body[:ID_SCAN_BYTES]) + chunk)[:ID_SCAN_BYTES], answer_to=request)
                return None
            if not body and len(chunk) == whole:  # all of it at once (a small answer): no buffer
                try:
                    return chunk.decode("utf-8")
                except UnicodeDecodeError:
                    return chunk
            body += chunk
            if len(body) == whole:
                break  # all of it (urllib3 has let the connection go): no read for the end
        return _text(body)

    def _read_events(
        self,
        exchange: Exchange,
        response: requests.Response,
        request: Optional[RequestFuture] = None,
        position: Optional[StreamPosition] = None,
    ) -> StreamPosition:
        """Feed every event of a stream to the endpoint; return where the stream got to (for resuming).

        ``request``: the request whose answer the stream carries. An event
        over ``max_message_size`` on it fails it, and ends the reading. Once
        it is answered, the stream gets ``ANSWER_STREAM_GRACE`` seconds more to
        end, as the spec says the server should end it; then it is cut.
        Failures are raised (translated); ``position`` then still tells where
        the stream broke.
        """
        position = position if position is not None else StreamPosition()
        failed = False
        graced = False
        for event in events(exchange.chunks(response), self.max_message_size):
            oversized = event.oversized
            if oversized is not None:
                if not oversized.complete:
                    failed = self._oversized(oversized.head, stream_of=request)
                else:
                    details = {"tail": oversized.tail, "size": oversized.size, "complete": True, "failed": failed}
                    self._oversized(oversized.head, stream_of=request, **details)
                if request is not None and request.settled:
                    break  # its answer was refused: nothing on this stream is wanted any more
                continue
            if event.id:
                position.last_id = event.id
            if event.retry is not None:
                position.retry = event.retry
            if event.event == "message" and event.data:
                self._feed(event.data)
                if request is not None and not graced and request.settled:
                    graced = True
                    exchange.shorten(time.monotonic() + ANSWER_STREAM_GRACE)
        return position

    def _log_broken(self, what: str, exc: BaseException) -> None:
        logger.info("server %r: %s broke: %s", self.name, what, reason(exc))


def _text(body: bytearray) -> Union[bytes, str]:
    """A body's text, the buffer emptied (its memory let go) once the text is made; bytes if not UTF-8."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return bytes(body)
    body.clear()
    return text
