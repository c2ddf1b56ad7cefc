"""The one HTTP path: every request mcpsync sends over HTTP is an ``Exchange`` of an ``HTTPClient``.

``requests`` builds the session (proxies, TLS settings, cookies) and its
transport adapter sends each request
(``HTTPAdapter.send``), whether the session is ours or the user's, with or
without auth: there is no second way round. What ``Session.request`` would
also do per call and what does not change between calls (parsing the URL,
merging settings, looking the environment up) is done once, in
``new_session`` and ``HTTPClient.__init__``; cookies and a ``requests`` auth
object are applied with requests' own functions, as ``Session.send`` applies
them, and the authorizer's headers (``_core.authorizer``) on top.

Four rules of ours on top:

- **Redirects** are followed here, not by requests: only within the same
  origin (scheme, host, port; as the official SDK does), at most
  ``MAX_REDIRECTS`` hops, and a POST only on 307 / 308 (which keep its body).
  A redirect elsewhere is an error that names both URLs, so that the user's
  headers (tokens, ``Mcp-Session-Id``) never go to another origin.
- **Errors**: every ``requests`` and urllib3 exception becomes one of ours in
  ``errors.translate``, and only there.
- **Challenges**: a ``401`` or ``403`` goes to the authorizer
  (``answer_challenge``; ``mcpsync.OAuth``'s ``ServerAuth``), which may get a
  new token within the deadline (the request is sent again,
  ``MAX_CHALLENGES`` times at most) or raise ``AuthorizationRequired``; a
  ``requests`` auth object's adapter answers none.
- **Deadlines**: an exchange's deadline holds for the whole of it
  (connecting, redirects, headers, body), whatever the server trickles: the
  ``Watchdog`` cuts its socket when the deadline passes, which ends a blocked
  read at once. ``cut`` does the same when the request is given up, the
  transport closes, or Ctrl-C arrives on the main thread (``_threads.signals``).

Cutting needs to know which socket an exchange is using: the connections of
our own sessions (``session.new_session``), direct or through an HTTP(S)
proxy, record the exchange that uses them while it does (from before their
connect), and forget it before the pool hands them to another. With a session
of the user's (or a SOCKS proxy), mcpsync leaves the adapters alone and cannot
shut a socket down: the exchange then runs on a helper thread
(``run_bounded``), so that the caller's wait stays bounded, and a cut ends it
with the next bytes that arrive.
"""

from __future__ import annotations

import contextlib
import logging
import math
import socket
import threading
import time
from collections.abc import Iterator, Mapping
from typing import Any, Callable, Optional, TypeVar
from urllib.parse import urljoin

import requests
from requests.structures import CaseInsensitiveDict

from ..._core.authorizer import Authorizer, Refusal
from ..._core.errors import (
    AuthorizationRequired,
    HTTPStatusError,
    MCPError,
    TransportClosed,
    TransportError,
    WriteTimeout,
)
from ..._core.jsonrpc import Data
from ..._threads.latches import Latch
from ..._threads.signals import interrupted
from ..._threads.watchdog import Watchdog
from ..._threads.workers import Workers
from .auth import RequestsAuth
from .errors import (
    BODY_EXCERPT,
    WWW_AUTHENTICATE,
    past_deadline,
    reason,
    short_chain,
    status_error,
    translate,
)
from .session import can_cut, close_session, current, new_session
from .urls import same_origin

__all__ = [
    "ACCEPT",
    "EVENT_STREAM",
    "JSON",
    "MAX_REDIRECTS",
    "Exchange",
    "HTTPClient",
    "content_type",
]

logger = logging.getLogger("mcpsync.transport")

_T = TypeVar("_T")

JSON = "application/json"
EVENT_STREAM = "text/event-stream"
ACCEPT = f"{JSON}, {EVENT_STREAM}"

#: Bytes asked of the socket at a time when reading a body.
READ_SIZE = 65536
#: Redirects followed for one request, at most.
MAX_REDIRECTS = 5
#: Times one request is sent again with a new token after a 401 or 403, at most.
MAX_CHALLENGES = 3
#: Why an exchange that began after its client stopped taking new ones was cut (it ends as ``TransportClosed``).
REFUSED = "the client takes no new exchange: it is closing"
_CHALLENGES = frozenset((401, 403))
#: Seconds ``close`` waits for the helper threads of ``run_bounded``: their work cannot be cut, and
#: ends on its own (its socket timeouts), so close does not wait for it.
HELPERS_JOIN = 0.5
_REDIRECTS = frozenset((301, 302, 303, 307, 308))
#: Redirects that keep the method and body (the others turn a POST into a GET, which MCP has no use for).
_BODY_KEEPING = frozenset((307, 308))


def content_type(response: requests.Response) -> str:
    """The media type of a response, lower case, without parameters."""
    return response.headers.get("Content-Type", "").split(";", 1)[0].strip().lower()


class Exchange:
    """One HTTP request and its answer, on the thread that sends it; see the module docstring.

    Get one from ``HTTPClient.exchange``. ``cut`` may be called from any
    thread (and from the SIGINT handler: it takes only a re-entrant lock).
    """

    __slots__ = (
        "_client",
        "_connection",
        "_inner",
        "_outer",
        "_socket",
        "_token",
        "answers_challenges",
        "cut_reason",
        "deadline",
        "last_words",
        "stage",
    )

    def __init__(self, client: HTTPClient, deadline: float, *, last_words: bool = False) -> None:
        self._client = client
        #: Whether this is a closing transport's last words (``HTTPClient.exchange(closing=True)``).
        self.last_words = last_words
        #: The ``time.monotonic()`` by which the whole exchange ends (``math.inf``: no limit).
        self.deadline = deadline
        #: Why the exchange was cut (``None`` while it was not).
        self.cut_reason: Optional[str] = None
        #: Whether a 401 or 403 goes to the auth object (``False``: a best-effort notice, which must
        #: never start a token grant, nor hold ``close`` while one runs).
        self.answers_challenges = True
        #: What the exchange is doing besides the HTTP request (``None``: only that), for a timeout to say.
        self.stage: Optional[str] = None
        self._connection: Any = None
        self._socket: Any = None
        self._token: Optional[int] = None
        self._outer: Optional[Exchange] = None
        #: An exchange this one waits for on its thread (the auth's token request, say): cut with it.
        self._inner: Optional[Exchange] = None

    def __enter__(self) -> Exchange:
        client = self._client
        self._token = client._watchdog.watch(self.deadline, self._deadline_passed)
        with client._running_lock:
            client._running.add(self)
            # A refusal (refuse_new, close) that came between ``HTTPClient.exchange`` and here: its cut_all took
            # its snapshot without this one, so it ends here, at once, as the check in ``exchange`` would have.
            if client.closing.is_set() or (client._refusing.is_set() and not self.last_words):
                self.cut_reason = REFUSED
        outer = self._outer = getattr(current, "exchange", None)
        if outer is not None:
            outer._inner = self
            if outer.cut_reason is not None:
                self.cut_reason = outer.cut_reason
        current.exchange = self
        return self

    def __exit__(self, *exc_info: object) -> None:
        client = self._client
        current.exchange = self._outer
        if self._outer is not None:
            self._outer._inner = None
        client._watchdog.unwatch(self._token)
        with client._running_lock:
            client._running.discard(self)
        self._detach()

    def _deadline_passed(self) -> None:
        self.cut("deadline")

    def shorten(self, deadline: float) -> None:
        """End the exchange by ``deadline`` instead, if that is earlier."""
        if deadline < self.deadline:
            self._client.rewatch(self, deadline)

    def cut(self, reason: str = "given up") -> None:
        """End the exchange now: shut its socket down, so that a blocked connect, read or write fails at once;
        and the exchange it waits for, if any (``_inner``)."""
        with self._client.owners:
            if self.cut_reason is None:
                self.cut_reason = reason
            connection = self._connection
            # Under the lock: the connection cannot go back to the pool (and on to another exchange) meanwhile.
            if connection is not None and getattr(connection, "mcpsync_exchange", None) is self:
                _shut_down(self._socket)
        inner = self._inner
        if inner is not None:
            inner.cut(reason)

    def _attach(self, connection: Any) -> None:
        """A connection of ours starts (or goes on) working for this exchange."""
        with self._client.owners:
            connection.mcpsync_exchange = self
            self._connection = connection
            # Always: a socket held from an earlier request of this exchange may serve another one now.
            self._socket = connection.sock
            if self.cut_reason is not None:
                _shut_down(self._socket)

    def _connecting(self, connection: Any, sock: Any) -> None:
        """A connection of ours is about to connect ``sock`` for this exchange: a cut shuts it down."""
        with self._client.owners:
            connection.mcpsync_exchange = self
            self._connection = connection
            self._socket = sock
            if self.cut_reason is not None:
                _shut_down(sock)

    def _detach(self) -> None:
        with self._client.owners:
            connection, self._connection, self._socket = self._connection, None, None
            if connection is not None and getattr(connection, "mcpsync_exchange", None) is self:
                connection.mcpsync_exchange = None

    def timeouts(self) -> tuple[Optional[float], Optional[float]]:
        """Connect and read timeouts for the socket: the client's, within what is left of the deadline."""
        client = self._client
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise self._past_deadline()
        connect, read = min(client.connect_timeout, left), min(client.read_timeout, left)
        # urllib3 takes None for no limit, not infinity.
        return (None if connect == math.inf else connect, None if read == math.inf else read)

    def _past_deadline(self) -> WriteTimeout:
        return past_deadline(self._client.name)

    # -- sending ------------------------------------------------------------------

    def send(
        self,
        method: str,
        url: str,
        headers: Optional[Mapping[str, str]] = None,
        body: Optional[Data] = None,
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
        challenges = 0
        hops = 0
        while hops <= MAX_REDIRECTS:
            if self.cut_reason is not None:
                raise self._cut_error()
            try:
                self.stage = "its authorization was being got (a token refreshed or requested)"
                prepared = client.prepare(method, url, headers, body, self.deadline)  # the auth runs here: it may fail
                self.stage = None
            except Exception as exc:
                if isinstance(exc, MCPError):
                    raise
                raise TransportError(
                    f"{client.name}: {method} {url} could not be prepared, and was not sent: {reason(exc)}"
                ) from exc
            try:
                response = client.adapter_send(prepared, self.timeouts())
            except Exception as exc:
                raise self._translate(exc, method, url) from short_chain(exc)
            if self.cut_reason is not None:
                # A socket shut down while the headers came in reads as their end: http.client
                # then returns what it had as a whole answer. It is not one.
                _release(response)
                raise self._cut_error()
            status = response.status_code
            if status in _CHALLENGES and challenges < MAX_CHALLENGES and self._answered(prepared, response):
                challenges += 1
                continue  # a new token is at hand: the same request again
            location = response.headers.get("Location")
            if status not in _REDIRECTS or location is None:
                return response
            _release(response)
            hops += 1
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

    def _answered(self, prepared: requests.PreparedRequest, response: requests.Response) -> bool:
        """Whether the authorizer (``mcpsync.OAuth``'s ``ServerAuth``) answered a 401 or 403 with a new token.

        It gets the challenge, the credentials the request carried and the
        deadline; it may refresh or obtain a token (within the deadline), or
        raise (``AuthorizationRequired``: a person must log in). An authorizer
        that does not answer (a ``requests`` auth object's) leaves the
        refusal to the caller.
        """
        auth = self._client.auth
        if auth is None or not self.answers_challenges:
            return False
        try:
            refusal = Refusal(
                status=response.status_code,
                www_authenticate=response.headers.get(WWW_AUTHENTICATE),
                sent=prepared.headers.get("Authorization"),
                url=prepared.url or "",
                dpop_nonce=response.headers.get("DPoP-Nonce"),
                deadline=self.deadline,
            )
            self.stage = f"the server answered {response.status_code}, and a new token was being got for it"
            retry = auth.answer_challenge(refusal)
            self.stage = None
        except AuthorizationRequired as exc:
            # What the server said comes first: its status, a short excerpt of its body, its hints.
            said = self.status_error(response)
            _release(response)
            raise exc.after(str(said), said.body, said.auth_server) from None
        except BaseException:
            _release(response)
            raise
        if retry:
            _release(response)
        return retry

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
                raise self._translate(exc, "reading", response.url) from short_chain(exc)
            if self.cut_reason is not None:
                # The end of a body we cut is no end; and where the socket could not be shut
                # down (a session of yours), the cut takes effect with the next bytes.
                raise self._cut_error()
            if not data:
                return
            yield data

    def status_error(self, response: requests.Response, endpoint: Optional[str] = None) -> HTTPStatusError:
        """The error for a non-2xx answer (``errors.status_error``), from at most ``BODY_EXCERPT``
        bytes of its body (decompressed): an endless or compressed body costs no more."""
        body = b""
        try:
            for chunk in self.chunks(response):
                body += chunk
                if len(body) >= BODY_EXCERPT:
                    break
        except Exception:  # a body that cannot be read must not hide the status
            pass
        return status_error(response, body, endpoint)

    # -- errors ------------------------------------------------------------------

    def _cut_error(self) -> Exception:
        client = self._client
        if client.closing.is_set() or self.cut_reason == REFUSED:
            return TransportClosed(f"{client.name}: closed by the client")
        if self.cut_reason == "deadline":
            return self._past_deadline()
        return TransportError(f"{client.name}: the exchange was cut: {self.cut_reason}")

    def _translate(self, exc: BaseException, method: str, url: str) -> Exception:
        """What a ``requests`` or urllib3 exception means for us (``errors.translate``); a cut first."""
        if self.cut_reason is not None:
            return self._cut_error()
        client = self._client
        return translate(exc, method, url, client.name, self.deadline, client.read_timeout)


class HTTPClient:
    """One server's HTTP side: its session, its adapter, its watchdog; makes ``Exchange``s.

    Args:
        name: the server's name (errors, thread names).
        url: the URL most requests go to (its settings are looked up once).
        headers: headers on every request (the user's: tokens, custom ones).
        auth: the authorizer of every request (its headers; each 401 and 403 goes to it); a
            ``RequestsAuth``'s ``requests`` auth object is applied by ``requests`` (``prepare``).
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
        auth: Optional[Authorizer] = None,
        session: Optional[requests.Session] = None,
        max_connections: int = 10,
        connect_timeout: float = 10.0,
        read_timeout: float = 300.0,
    ) -> None:
        self.name = name
        self.headers = dict(headers or {})
        self.auth = auth
        # A requests auth object: applied by requests' own function (a digest auth's hooks need it).
        self._requests_auth = auth.requests_auth if isinstance(auth, RequestsAuth) else None
        self.connect_timeout = connect_timeout
        self.read_timeout = read_timeout
        self.own_session = session is None
        self.session = new_session(url, max_connections) if session is None else session
        #: Whether an exchange can be cut: only on our own session's connections (see ``can_cut``).
        self.can_cut = self.own_session and can_cut(self.session, url)
        #: Set when the client closes: exchanges cut from then on end as ``TransportClosed``.
        self.closing = threading.Event()
        # Set when its transport begins to close: no new exchange but the transport's last words.
        self._refusing = threading.Event()
        #: Guards which exchange each connection works for; re-entrant, for the SIGINT handler.
        self.owners = threading.RLock()
        self._watchdog = Watchdog(name)
        self._base_headers: Optional[dict[str, Any]] = self._merge_base() if self.own_session else None
        # as given -> as requests prepares it, and the user:password it holds
        self._urls: dict[str, tuple[str, Optional[tuple[str, str]]]] = {}
        self._running: set[Exchange] = set()
        self._running_lock = threading.Lock()
        self._helpers: Optional[Workers] = None  # for run_bounded, started on demand
        self._helpers_lock = threading.Lock()

    def exchange(self, deadline: float, *, closing: bool = False) -> Exchange:
        """An exchange (use it with ``with``) that ends by ``deadline`` (a ``time.monotonic()``;
        ``math.inf``: no limit), on the thread that runs it.

        Raises:
            TransportClosed: the client takes no new exchanges (it is closing); ``closing=True`` is
                for the last words of a transport that closes (a DELETE of its session).
        """
        if self._refusing.is_set() and not (closing and not self.closing.is_set()):
            raise TransportClosed(f"{self.name}: closed by the client")
        return Exchange(self, deadline, last_words=closing)

    def rewatch(self, exchange: Exchange, deadline: float) -> None:
        """Give an exchange another deadline (``Exchange.shorten`` moves it earlier only)."""
        self._watchdog.unwatch(exchange._token)
        exchange.deadline = deadline
        exchange._token = self._watchdog.watch(deadline, exchange._deadline_passed)

    def prepare(
        self,
        method: str,
        url: str,
        headers: Optional[Mapping[str, str]],
        body: Optional[Data],
        deadline: float = math.inf,
    ) -> requests.PreparedRequest:
        """A request as ``Session.prepare_request`` would make it, without redoing what does not change;
        with the authorizer's headers (got by ``deadline``: a token may be refreshed first)."""
        session = self.session
        prepared = requests.PreparedRequest()
        prepared.method = method
        target, url_auth = self._urls.get(url) or self._prepare_url(url)
        prepared.url = target
        # A session of ours has fixed headers; a user's may change between calls.
        base = self._base_headers if self._base_headers is not None else self._merge_base()
        merged: CaseInsensitiveDict[Any] = CaseInsensitiveDict(base)
        if headers:
            merged.update(headers)
        prepared.headers = merged
        prepared.body = body  # type: ignore[assignment]  # (a bytearray reaches urllib3 as the buffer it is)
        if body is not None:
            merged["Content-Length"] = str(len(body))
        elif method in ("POST", "PUT", "PATCH"):
            merged["Content-Length"] = "0"
        prepared.hooks = {"response": list(session.hooks.get("response", []))}
        authorizer = self.auth
        if authorizer is not None:
            merged.update(authorizer.headers(method, target, deadline))
            auth = self._requests_auth
        else:
            auth = session.auth if session.auth is not None else url_auth  # user:password in the URL
        if session.cookies or auth is not None:
            # The session's cookies, and its jar on the request, as Session.prepare_request has them (an
            # auth's hook, digest's, reads the jar): with no cookies and no auth there is nothing to do.
            prepared.prepare_cookies(session.cookies)
        if auth is not None:
            prepared.prepare_auth(auth)
        return prepared

    def _merge_base(self) -> dict[str, Any]:
        """The session's headers with ours on top, names compared without case."""
        merged: CaseInsensitiveDict[Any] = CaseInsensitiveDict(self.session.headers)
        merged.update(self.headers)
        return dict(merged.items())

    def _prepare_url(self, url: str) -> tuple[str, Optional[tuple[str, str]]]:
        prepared = requests.Request("GET", url).prepare().url
        assert prepared is not None
        credentials = requests.utils.get_auth_from_url(prepared)
        found = (prepared, credentials if any(credentials) else None)
        if len(self._urls) < 64:
            self._urls[url] = found
        return found

    def adapter_send(
        self, prepared: requests.PreparedRequest, timeouts: tuple[Optional[float], Optional[float]]
    ) -> requests.Response:
        """Send through the session's adapter, then apply cookies and hooks as ``Session.send`` does."""
        session = self.session
        assert prepared.url is not None
        adapter = session.get_adapter(prepared.url)
        options: dict[str, Any] = {
            "stream": True,
            "timeout": timeouts,
            "verify": True if session.verify is None else session.verify,
            "cert": session.cert,
            "proxies": session.proxies,
        }
        response = adapter.send(prepared, **options)
        if "Set-Cookie" in response.headers:
            requests.cookies.extract_cookies_to_jar(session.cookies, prepared, response.raw)  # type: ignore[no-untyped-call]
        if prepared.hooks["response"]:
            # With the options Session.send gives: a hook that sends again (digest auth) needs them.
            hooked: requests.Response = requests.hooks.dispatch_hook("response", prepared.hooks, response, **options)  # type: ignore[no-untyped-call]
            return hooked
        return response

    def run_bounded(self, work: Callable[[], _T], deadline: float) -> _T:
        """Run ``work`` on a helper thread and wait for it until ``deadline``: for exchanges that cannot be cut.

        Ctrl-C on the main thread, and the deadline, end the wait; the work
        then ends on its own (by its socket timeouts), on its thread.

        Raises:
            WriteTimeout: the deadline passed first; and whatever ``work`` raises.
        """
        outcome: list[Any] = []
        done = Latch()

        def run() -> None:
            try:
                outcome.append((True, work()))
            except BaseException as exc:  # handed to the waiting caller
                outcome.append((False, exc))
            finally:
                done.set()

        with self._helpers_lock:
            if self._helpers is None:
                self._helpers = Workers(f"mcpsync-exchange-{self.name}", 4)
        self._helpers.submit(run)
        if not done.wait(None if deadline == math.inf else max(0.0, deadline - time.monotonic())) or not outcome:
            if interrupted():
                raise TransportError(f"{self.name}: interrupted; the exchange ends on its own")
            raise WriteTimeout(f"{self.name}: no answer within the time given to it (a session of yours cannot be cut)")
        ok, value = outcome[0]
        if ok:
            return value  # type: ignore[no-any-return]
        raise value

    def refuse_new(self) -> None:
        """Take no new exchange from now on, but ``exchange(..., closing=True)``."""
        self._refusing.set()

    def cut_all(self, reason: str) -> None:
        """Cut every exchange running now."""
        with self._running_lock:
            running = list(self._running)
        for exchange in running:
            exchange.cut(reason)

    def close(self) -> None:
        """Cut what runs, stop the watchdog, and close our session with every pooled connection."""
        self._refusing.set()
        self.closing.set()
        self.cut_all("the client is closing")
        self._watchdog.close()
        if self._helpers is not None:
            self._helpers.close(HELPERS_JOIN)
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
def released_after(response: requests.Response) -> Iterator[requests.Response]:
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
