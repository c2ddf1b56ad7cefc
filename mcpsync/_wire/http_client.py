"""The one HTTP path: every request mcpsync sends over HTTP is an ``Exchange`` of an ``HTTPClient``.

``requests`` builds the session (proxies, TLS settings, the user's auth
object, cookies) and its transport adapter sends each request
(``HTTPAdapter.send``), whether the session is ours or the user's, with or
without auth: there is no second way round. What ``Session.request`` would
also do per call and what does not change between calls (parsing the URL,
merging settings, looking the environment up) is done once, in
``new_session`` and ``HTTPClient.__init__``; cookies and auth are applied with
requests' own functions, as ``Session.send`` applies them.

Three rules of ours on top:

- **Redirects** are followed here, not by requests: only within the same
  origin (scheme, host, port; as the official SDK does), at most
  ``MAX_REDIRECTS`` hops, and a POST only on 307 / 308 (which keep its body).
  A redirect elsewhere is an error that names both URLs, so that the user's
  headers (tokens, ``Mcp-Session-Id``) never go to another origin.
- **Errors**: every ``requests`` and urllib3 exception becomes one of ours in
  ``_translate``, and only there.
- **Deadlines**: an exchange's deadline holds for the whole of it
  (connecting, redirects, headers, body), whatever the server trickles: the
  ``Watchdog`` cuts its socket when the deadline passes, which ends a blocked
  read at once. ``cut`` does the same when the request is given up, the
  transport closes, or Ctrl-C arrives on the main thread (``interrupts``).

Cutting needs to know which socket an exchange is using: the connections of
our own sessions (``http_session.new_session``) record the exchange that uses
them while it does, and forget it before the pool hands them to another. With
a session of the user's, mcpsync leaves the adapters alone and cannot cut; the
transports then run requests on their worker threads, so that a caller's wait
stays bounded even so.
"""

from __future__ import annotations

import contextlib
import logging
import socket
import threading
import time
from collections.abc import Iterator, Mapping
from typing import Any, Optional
from urllib.parse import urljoin, urlsplit

import requests
import urllib3
from requests.structures import CaseInsensitiveDict

from .._core.errors import ConnectError, HTTPStatusError, TransportClosed, TransportError, WriteTimeout
from .http_session import close_session, current, new_session
from .watchdog import Watchdog

__all__ = [
    "ACCEPT",
    "EVENT_STREAM",
    "JSON",
    "MAX_REDIRECTS",
    "Exchange",
    "HTTPClient",
    "content_type",
    "same_origin",
]

logger = logging.getLogger("mcpsync.transport")

JSON = "application/json"
EVENT_STREAM = "text/event-stream"
ACCEPT = f"{JSON}, {EVENT_STREAM}"
WWW_AUTHENTICATE = "WWW-Authenticate"
MCP_AUTH_SERVER = "Mcp-Auth-Server"

#: Bytes asked of the socket at a time when reading a body.
READ_SIZE = 65536
#: Characters of an error body kept in ``HTTPStatusError`` (and bytes read of it, decompressed).
BODY_EXCERPT = 2048
#: Redirects followed for one request, at most.
MAX_REDIRECTS = 5
_REDIRECTS = frozenset((301, 302, 303, 307, 308))
#: Redirects that keep the method and body (the others turn a POST into a GET, which MCP has no use for).
_BODY_KEEPING = frozenset((307, 308))
_DEFAULT_PORTS = {"http": 80, "https": 443}


def content_type(response: requests.Response) -> str:
    """The media type of a response, lower case, without parameters."""
    return response.headers.get("Content-Type", "").split(";", 1)[0].strip().lower()


def origin(url: str) -> tuple[str, str, Optional[int]]:
    """Scheme, host and port as browsers compare them (case-insensitive host, default ports filled in).

    Only for a URL that every reader sees the same: one with user info, a
    backslash, white space or a control character is refused, and so is one
    that the standard library and urllib3 (which connects) read differently.
    ``http://127.0.0.2:9\\@127.0.0.1:80/`` is such a URL: ``urlsplit`` sees
    127.0.0.1, urllib3 connects to 127.0.0.2.

    Raises:
        ValueError: the URL is refused, or cannot be read.
    """
    if "\\" in url or any(ord(ch) <= 0x20 or ord(ch) == 0x7F for ch in url):
        raise ValueError(f"{url!r} holds a backslash, white space or a control character")
    parts = urlsplit(url)
    if "@" in parts.netloc:
        raise ValueError(f"{url!r} holds user information")
    scheme = parts.scheme.lower()
    ours = (scheme, (parts.hostname or "").lower(), parts.port or _DEFAULT_PORTS.get(scheme))
    theirs = urllib3.util.parse_url(url)
    host = (theirs.host or "").lower().strip("[]")
    if (str(theirs.scheme).lower(), host, theirs.port or _DEFAULT_PORTS.get(scheme)) != ours:
        raise ValueError(f"{url!r} is read differently by the HTTP library")
    return ours


def same_origin(url: str, other: str) -> bool:
    """Whether two URLs share scheme, host and port; a URL ``origin`` refuses shares nothing."""
    try:
        return origin(url) == origin(other)
    except ValueError:
        return False


class Exchange:
    """One HTTP request and its answer, on the thread that sends it; see the module docstring.

    Get one from ``HTTPClient.exchange``. ``cut`` may be called from any
    thread (and from the SIGINT handler: it takes only a re-entrant lock).
    """

    __slots__ = ("_client", "_connection", "_socket", "_token", "cut_reason", "deadline")

    def __init__(self, client: HTTPClient, deadline: float) -> None:
        self._client = client
        #: The ``time.monotonic()`` by which the whole exchange ends (``math.inf``: no limit).
        self.deadline = deadline
        #: Why the exchange was cut (``None`` while it was not).
        self.cut_reason: Optional[str] = None
        self._connection: Any = None
        self._socket: Any = None
        self._token: Optional[int] = None

    def shorten(self, deadline: float) -> None:
        """End the exchange by ``deadline`` instead, if that is earlier."""
        if deadline < self.deadline:
            self._client.rewatch(self, deadline)

    def cut(self, reason: str = "given up") -> None:
        """End the exchange now: shut its socket down, so that a blocked read or write fails at once.

        Before it has a socket (it is connecting), the cut waits for the connection and happens then.
        """
        with self._client.owners:
            if self.cut_reason is None:
                self.cut_reason = reason
            connection = self._connection
            # Under the lock: the connection cannot go back to the pool (and on to another exchange) meanwhile.
            if connection is not None and getattr(connection, "mcpsync_exchange", None) is self:
                _shut_down(self._socket)

    def _attach(self, connection: Any) -> None:
        """A connection of ours starts (or goes on) working for this exchange."""
        with self._client.owners:
            connection.mcpsync_exchange = self
            self._connection = connection
            if connection.sock is not None:
                self._socket = connection.sock
            if self.cut_reason is not None:
                _shut_down(self._socket)

    def _detach(self) -> None:
        with self._client.owners:
            connection, self._connection, self._socket = self._connection, None, None
            if connection is not None and getattr(connection, "mcpsync_exchange", None) is self:
                connection.mcpsync_exchange = None

    def timeouts(self) -> tuple[float, float]:
        """Connect and read timeouts for the socket: the client's, within what is left of the deadline."""
        client = self._client
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise self._past_deadline()
        return min(client.connect_timeout, left), min(client.read_timeout, left)

    def _past_deadline(self) -> WriteTimeout:
        return WriteTimeout(f"{self._client.name}: no answer within the time given to it")

    # -- sending ------------------------------------------------------------------

    def send(
        self,
        method: str,
        url: str,
        headers: Optional[Mapping[str, str]] = None,
        body: Optional[bytes] = None,
    ) -> requests.Response:
        """Send one request and return the response once its headers are in (the body is streamed).

        Same-origin redirects are followed (see the module docstring).

        Raises:
            ConnectError: the server could not be reached.
            TransportError: the connection broke, or a redirect left the origin.
            TransportClosed: the client is closing.
            WriteTimeout: the deadline passed first.
        """
        client = self._client
        for _ in range(MAX_REDIRECTS + 1):
            if self.cut_reason is not None:
                raise self._cut_error()
            prepared = client.prepare(method, url, headers, body)
            try:
                response = client.adapter_send(prepared, self.timeouts())
            except Exception as exc:
                raise self._translate(exc, method, url) from exc
            if self.cut_reason is not None:
                # A socket shut down while the headers came in reads as their end: http.client
                # then returns what it had as a whole answer. It is not one.
                _release(response)
                raise self._cut_error()
            status = response.status_code
            location = response.headers.get("Location")
            if status not in _REDIRECTS or location is None:
                return response
            _release(response)
            target = urljoin(url, location)
            if not same_origin(url, target):  # a trick URL (user info, a backslash) counts as elsewhere
                raise TransportError(
                    f"{client.name}: {method} {url} was redirected to {target}, on another origin; not followed"
                )
            if method == "POST" and status not in _BODY_KEEPING:
                raise TransportError(
                    f"{client.name}: POST {url} was redirected with {status} to {target}, "
                    "which would turn it into a GET; not followed"
                )
            logger.debug("server %r: %s %s redirected (%d) to %s", client.name, method, url, status, target)
            url = target
        raise TransportError(f"{client.name}: {method} was redirected more than {MAX_REDIRECTS} times; not followed")

    def chunks(self, response: requests.Response) -> Iterator[bytes]:
        """The body as it arrives (decompressed), each chunk as soon as the socket has it.

        ``iter_content(None)`` waits for the whole body when the server ends it
        by closing the connection (no chunked encoding), which would hold every
        event of a stream back until its end; urllib3's ``read1`` does not.

        Raises:
            as ``send``: failures are translated.
        """
        raw = response.raw
        while True:
            try:
                # Decoded: requests asks for gzip, and a server (or a proxy) may compress a stream too.
                data = raw.read1(READ_SIZE, decode_content=True)
            except Exception as exc:
                raise self._translate(exc, "reading", response.url) from exc
            if not data:
                if self.cut_reason is not None:  # the end of a body we cut is no end
                    raise self._cut_error()
                return
            yield data

    def status_error(self, response: requests.Response) -> HTTPStatusError:
        """The error for a non-2xx answer: status, a short excerpt of the body, the auth hints.

        Reads at most ``BODY_EXCERPT`` bytes of the body (decompressed), so an
        endless or compressed body costs no more. The text reads
        ``HTTP <status>: <excerpt> [WWW-Authenticate: ...; Mcp-Auth-Server: ...]``.
        """
        body = b""
        try:
            for chunk in self.chunks(response):
                body += chunk
                if len(body) >= BODY_EXCERPT:
                    break
        except Exception:  # a body that cannot be read must not hide the status
            pass
        text = body[:BODY_EXCERPT].decode(response.encoding or "utf-8", "replace").strip()
        shown = text if len(body) < BODY_EXCERPT else text + "..."
        message = f"HTTP {response.status_code}: {shown or response.reason or ''}".rstrip(": ")
        hints = [
            f"{name}: {response.headers[name]}"
            for name in (WWW_AUTHENTICATE, MCP_AUTH_SERVER)
            if name in response.headers
        ]
        if hints:
            message += " [" + "; ".join(hints) + "]"
        return HTTPStatusError(
            message,
            status_code=response.status_code,
            body=text,
            www_authenticate=response.headers.get(WWW_AUTHENTICATE),
            auth_server=response.headers.get(MCP_AUTH_SERVER),
        )

    # -- errors ------------------------------------------------------------------

    def _cut_error(self) -> Exception:
        client = self._client
        if client.closing.is_set():
            return TransportClosed(f"{client.name}: closed by the client")
        if self.cut_reason == "deadline":
            return self._past_deadline()
        return TransportError(f"{client.name}: the exchange was cut: {self.cut_reason}")

    def _translate(self, exc: BaseException, method: str, url: str) -> Exception:
        """What a ``requests`` or urllib3 exception means for us; the only place that decides it."""
        if self.cut_reason is not None:
            return self._cut_error()
        client = self._client
        if isinstance(exc, WriteTimeout):  # from timeouts(): the deadline passed between two steps
            return exc
        if isinstance(exc, (requests.exceptions.ConnectTimeout, urllib3.exceptions.ConnectTimeoutError)) and not (
            isinstance(exc, urllib3.exceptions.NewConnectionError)
        ):
            if time.monotonic() >= self.deadline:
                return self._past_deadline()
            return ConnectError(f"{client.name}: could not connect to {url} in time")
        if _never_connected(exc):
            return ConnectError(f"{client.name}: cannot reach {url}: {reason(exc)}")
        if isinstance(exc, (requests.exceptions.ReadTimeout, urllib3.exceptions.ReadTimeoutError)):
            if time.monotonic() >= self.deadline:
                return self._past_deadline()
            return TransportError(f"{client.name}: {url} sent nothing for {client.read_timeout:g}s")
        if isinstance(exc, (requests.exceptions.RequestException, urllib3.exceptions.HTTPError, OSError)):
            if method == "reading":
                return TransportError(f"{client.name}: reading the answer failed: {reason(exc)}")
            # The request may well have reached the server: say so, lest a caller retry a tool blindly.
            return TransportError(
                f"{client.name}: the connection to {url} broke before the answer ({reason(exc)}); "
                "the server may have received the request"
            )
        if isinstance(exc, Exception):
            logger.exception("server %r: unexpected failure of %s %s", client.name, method, url)
            return TransportError(f"{client.name}: {method} {url} failed unexpectedly: {exc!r}")
        raise exc  # KeyboardInterrupt and the like: not ours to translate


class HTTPClient:
    """One server's HTTP side: its session, its adapter, its watchdog; makes ``Exchange``s.

    Args:
        name: the server's name (errors, thread names).
        url: the URL most requests go to (its settings are looked up once).
        headers: headers on every request (the user's: tokens, custom ones).
        auth: a ``requests`` auth object, applied to every request.
        session: the user's ``requests.Session``, or ``None`` for one of ours
            (closed with the client; only ours can be cut, see the module docstring).
        max_connections: how many connections our session's pool keeps.
        connect_timeout, read_timeout: bounds of one connect and of one read, in seconds.
    """

    def __init__(
        self,
        name: str,
        url: str,
        *,
        headers: Optional[Mapping[str, str]] = None,
        auth: Any = None,
        session: Optional[requests.Session] = None,
        max_connections: int = 10,
        connect_timeout: float = 10.0,
        read_timeout: float = 300.0,
    ) -> None:
        self.name = name
        self.headers = dict(headers or {})
        self.auth = auth
        self.connect_timeout = connect_timeout
        self.read_timeout = read_timeout
        self.own_session = session is None
        self.session = new_session(url, max_connections) if session is None else session
        #: Whether an exchange can be cut (only with our own session's connections).
        self.can_cut = self.own_session
        #: Set when the client closes: exchanges cut from then on end as ``TransportClosed``.
        self.closing = threading.Event()
        #: Guards which exchange each connection works for; re-entrant, for the SIGINT handler.
        self.owners = threading.RLock()
        self._watchdog = Watchdog(name)
        self._urls: dict[str, str] = {}  # as given -> as requests prepares it
        self._running: set[Exchange] = set()
        self._running_lock = threading.Lock()

    @contextlib.contextmanager
    def exchange(self, deadline: float) -> Iterator[Exchange]:
        """An exchange that ends by ``deadline`` (a ``time.monotonic()``; ``math.inf``: no limit), on this thread.

        Raises:
            TransportClosed: the client is closing.
        """
        if self.closing.is_set():
            raise TransportClosed(f"{self.name}: closed by the client")
        exchange = Exchange(self, deadline)
        exchange._token = self._watchdog.watch(deadline, lambda: exchange.cut("deadline"))
        with self._running_lock:
            self._running.add(exchange)
        outer = getattr(current, "exchange", None)
        current.exchange = exchange
        try:
            yield exchange
        finally:
            current.exchange = outer
            self._watchdog.unwatch(exchange._token)
            with self._running_lock:
                self._running.discard(exchange)
            exchange._detach()

    def rewatch(self, exchange: Exchange, deadline: float) -> None:
        """Move an exchange's deadline earlier."""
        self._watchdog.unwatch(exchange._token)
        exchange.deadline = deadline
        exchange._token = self._watchdog.watch(deadline, lambda: exchange.cut("deadline"))

    def prepare(
        self, method: str, url: str, headers: Optional[Mapping[str, str]], body: Optional[bytes]
    ) -> requests.PreparedRequest:
        """A request as ``Session.prepare_request`` would make it, without redoing what does not change."""
        session = self.session
        prepared = requests.PreparedRequest()
        prepared.method = method
        prepared.url = self._urls.get(url) or self._prepare_url(url)
        merged: CaseInsensitiveDict[Any] = CaseInsensitiveDict(session.headers)
        merged.update(self.headers)
        if headers:
            merged.update(headers)
        prepared.headers = merged
        prepared.body = body
        if body is not None:
            merged["Content-Length"] = str(len(body))
        elif method in ("POST", "PUT", "PATCH"):
            merged["Content-Length"] = "0"
        prepared._cookies = None  # type: ignore[attr-defined]
        prepared._body_position = None  # type: ignore[attr-defined]
        prepared.hooks = {"response": list(session.hooks.get("response", []))}
        if session.cookies:
            prepared.prepare_cookies(session.cookies)
        auth = self.auth if self.auth is not None else session.auth
        if auth is not None:
            prepared.prepare_auth(auth)
        return prepared

    def _prepare_url(self, url: str) -> str:
        prepared = requests.Request("GET", url).prepare().url
        assert prepared is not None
        if len(self._urls) < 64:
            self._urls[url] = prepared
        return prepared

    def adapter_send(self, prepared: requests.PreparedRequest, timeouts: tuple[float, float]) -> requests.Response:
        """Send through the session's adapter, then apply cookies and hooks as ``Session.send`` does."""
        session = self.session
        assert prepared.url is not None
        adapter = session.get_adapter(prepared.url)
        response = adapter.send(
            prepared,
            stream=True,
            timeout=timeouts,
            verify=True if session.verify is None else session.verify,
            cert=session.cert,
            proxies=session.proxies,
        )
        if "Set-Cookie" in response.headers:
            requests.cookies.extract_cookies_to_jar(session.cookies, prepared, response.raw)  # type: ignore[no-untyped-call]
        if prepared.hooks["response"]:
            hooked: requests.Response = requests.hooks.dispatch_hook("response", prepared.hooks, response)  # type: ignore[no-untyped-call]
            return hooked
        return response

    def cut_all(self, reason: str) -> None:
        """Cut every exchange running now."""
        with self._running_lock:
            running = list(self._running)
        for exchange in running:
            exchange.cut(reason)

    def close(self) -> None:
        """Cut what runs, stop the watchdog, and close our session with every pooled connection."""
        self.closing.set()
        self.cut_all("the client is closing")
        self._watchdog.close()
        if self.own_session:
            close_session(self.session)


def _release(response: requests.Response) -> None:
    """Let go of everything a response holds.

    ``Response.close()`` leaves the body's file open when the body was read
    to the end, and that file keeps the socket's descriptor alive even after
    the pool closes the connection; closing ``raw`` as well releases it.
    """
    try:
        response.close()
        response.raw.close()
    except Exception as exc:  # closing a broken stream may raise; it is closed either way
        logger.debug("closing a response: %s", exc)


@contextlib.contextmanager
def finished(response: requests.Response) -> Iterator[requests.Response]:
    """Use a response, then let go of everything it holds (see ``_release``)."""
    try:
        yield response
    finally:
        _release(response)


def _shut_down(sock: Any) -> None:
    if sock is not None:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:  # already closed: nothing is blocked on it
            pass


def _never_connected(exc: BaseException) -> bool:
    """Whether a connection error happened before any byte could be sent."""
    seen: list[BaseException] = []
    stack: list[Any] = [exc]
    while stack:
        item = stack.pop()
        if not isinstance(item, BaseException) or any(item is s for s in seen):
            continue
        seen.append(item)
        if isinstance(item, (urllib3.exceptions.NewConnectionError, urllib3.exceptions.NameResolutionError)):
            return True
        if isinstance(item, ConnectionRefusedError):
            return True
        stack.extend([getattr(item, "reason", None), item.__cause__, item.__context__, *item.args])
    return False


def reason(exc: BaseException) -> str:
    """The innermost useful text of a ``requests``/urllib3 exception chain."""
    text = str(exc)
    inner = exc.__context__ or exc.__cause__
    while inner is not None and not str(inner):
        inner = inner.__context__ or inner.__cause__
    return text or (str(inner) if inner is not None else type(exc).__name__)
