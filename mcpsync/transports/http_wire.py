"""The HTTP plumbing both HTTP transports stand on: sessions, sending, and cutting connections.

``requests`` builds the session (proxies, TLS, auth, cookies, redirects);
a request of ours is sent through the session's urllib3 pool directly when
nothing of that applies to it (see ``Sender``). Every ``requests`` and
urllib3 exception becomes one of ours in ``http_call``, and only there.
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any, Optional

import requests
import urllib3

from ..errors import ConnectError, TransportClosed, TransportError

__all__ = [
    "READ_SIZE",
    "ConnectionRegistry",
    "Sender",
    "body_chunks",
    "close_session",
    "finished",
    "http_call",
    "interrupt",
    "new_session",
    "reason",
    "set_read_timeout",
]

#: Bytes asked of the socket at a time when reading a stream.
READ_SIZE = 65536


def body_chunks(response: requests.Response, deadline: Optional[float] = None) -> Iterator[bytes]:
    """The body as it arrives: each chunk as soon as the socket has it.

    ``iter_content(None)`` waits for the whole body when the server ends it
    by closing the connection (no chunked encoding), which would hold every
    event of a stream back until its end; urllib3's ``read1`` does not.
    """
    raw = response.raw
    while True:
        if deadline is not None:  # a ``time.monotonic()`` by which every read must end
            left = deadline - time.monotonic()
            if left <= 0:
                raise requests.exceptions.ReadTimeout("the time for this answer ran out")
            set_read_timeout(response, left)
        try:
            # Decoded: requests asks for gzip, and a server (or a proxy) may compress a stream too.
            data = raw.read1(READ_SIZE, decode_content=True)
        except urllib3.exceptions.HTTPError as exc:
            # Raw reads raise urllib3's errors; the callers handle requests' ones, as iter_content gives.
            raise requests.exceptions.ConnectionError(exc) from exc
        if not data:
            return
        yield data


@contextlib.contextmanager
def finished(response: requests.Response) -> Iterator[requests.Response]:
    """Use a response, then let go of everything it holds.

    ``Response.close()`` leaves the body's file open when the body was read
    to the end, and that file keeps the socket's descriptor alive even after
    the pool closes the connection; closing ``raw`` as well releases it.
    """
    try:
        yield response
    finally:
        response.close()
        response.raw.close()


def _socket_of(response: requests.Response) -> Any:
    # urllib3 keeps the socket on the connection; once http.client has handed
    # it to the body's file (a "Connection: close" answer), only the file has it.
    raw = response.raw
    sock = getattr(getattr(raw, "connection", None), "sock", None)
    if sock is None:
        body_file = getattr(getattr(raw, "_fp", None), "fp", None)
        sock = getattr(getattr(body_file, "raw", None), "_sock", None)
    return sock


def set_read_timeout(response: requests.Response, seconds: float) -> None:
    """Bound each further read of ``response``'s body by ``seconds``."""
    sock = _socket_of(response)
    if sock is not None:
        sock.settimeout(seconds)


def interrupt(response: Optional[requests.Response]) -> None:
    """Wake a thread blocked reading ``response`` (from another thread): shut its socket down."""
    if response is None:
        return
    try:
        _socket_of(response).shutdown(socket.SHUT_RDWR)
    except Exception:  # already released or closed: nothing is blocked on it
        pass


def http_call(
    session: requests.Session,
    method: str,
    url: str,
    name: str,
    closing: threading.Event,
    *,
    sender: Optional[Sender] = None,
    **kwargs: Any,
) -> requests.Response:
    """One HTTP call; ``requests`` and urllib3 exceptions become ours here, and only here.

    ``sender``: how this session sends ``method`` to ``url`` fast (see
    ``Sender``); only for sessions ``new_session`` built.
    """
    try:
        if sender is not None:
            response = sender.send(**kwargs)
            if response is not None:
                return response
        return session.request(method, url, **kwargs)
    except requests.exceptions.ConnectTimeout as exc:
        raise ConnectError(f"{name}: could not connect to {url} in time") from exc
    except requests.exceptions.ConnectionError as exc:
        if closing.is_set():
            raise TransportClosed(f"{name}: closed by the client") from exc
        if _never_connected(exc):
            raise ConnectError(f"{name}: cannot reach {url}: {reason(exc)}") from exc
        # The request may well have reached the server: say so, lest a caller retry a tool blindly.
        raise TransportError(
            f"{name}: the connection to {url} broke before the answer ({reason(exc)}); "
            "the server may have received the request"
        ) from exc
    except requests.exceptions.RequestException as exc:
        raise TransportError(f"{name}: {method} {url} failed: {reason(exc)}") from exc


#: ``HTTPAdapter.send`` as requests defines it: a session whose adapter sends
#: some other way (a mocking library patches it; a user may subclass) is left to it.
_ADAPTER_SEND = requests.adapters.HTTPAdapter.send
_REDIRECTS = frozenset((301, 302, 303, 307, 308))


class Sender:
    """How one session of ours sends one method to one URL, with as little work per call as it can.

    ``Session.request`` parses the URL, merges settings, prepares the
    request, looks the pool up and builds the response anew for every call;
    for a session of ours none of that changes between calls. So:

    - With no auth, no cookies and no proxy, the request goes straight to the
      session's urllib3 pool (the same pool, so the same connections and TLS
      settings) and the answer is wrapped in a ``requests.Response``. A
      ``Set-Cookie`` in it is stored in the session's jar, after which
      requests go the next way.
    - Otherwise a request prepared once is copied, and cookies and auth (with
      the hooks an auth object registers) are applied as ``requests`` applies
      them, then sent through the adapter.

    ``send`` returns ``None`` for a redirect, which the caller sends again the
    general way (``requests`` follows it); the server did not act on it.
    """

    def __init__(self, session: requests.Session, method: str, url: str) -> None:
        self.session = session
        self.method = method
        self.url = url
        self.template = requests.Request(method, url, headers=dict(session.headers), hooks=session.hooks).prepare()
        self._headers = dict(self.template.headers)
        self._headers.pop("Content-Length", None)  # the template's has no body; urllib3 sizes each one
        self._lower_names = frozenset(name.lower() for name in self._headers)
        self._path = urllib3.util.parse_url(url).request_uri
        self._adapter = session.get_adapter(url)
        self._verify = True if session.verify is None else session.verify
        # What the fast path cannot do: a proxy, session hooks, or requests too old to hand out its pool.
        self._direct = (
            requests.utils.select_proxy(url, session.proxies) is None
            and not any(session.hooks.values())
            and hasattr(self._adapter, "get_connection_with_tls_context")
        )
        self._pool: Any = None

    def send(
        self,
        *,
        headers: Optional[dict[str, str]] = None,
        data: Optional[bytes] = None,
        auth: Any = None,
        timeout: Any = None,
        stream: bool = False,
    ) -> Optional[requests.Response]:
        session = self.session
        if (
            self._direct
            and auth is None
            and session.auth is None
            and not session.cookies
            and type(self._adapter).send is _ADAPTER_SEND
        ):
            response = self._send_direct(headers, data, timeout)
        else:
            response = self._send_prepared(headers, data, auth, timeout, stream)
        if response.status_code in _REDIRECTS and "Location" in response.headers:
            response.close()
            response.raw.close()
            return None
        if not stream:
            response.content  # noqa: B018 - read it now, as Session.request does, and free the connection
        return response

    def _send_direct(self, headers: Optional[dict[str, str]], data: Optional[bytes], timeout: Any) -> requests.Response:
        pool = self._pool
        if pool is None or pool.pool is None:  # first use, or the pool manager closed it
            pool = self._pool = self._adapter.get_connection_with_tls_context(  # type: ignore[attr-defined]
                self.template, self._verify, proxies=self.session.proxies, cert=self.session.cert
            )
        connect, read = timeout if isinstance(timeout, tuple) else (timeout, timeout)
        try:
            raw = pool.urlopen(
                self.method,
                self._path,
                body=data,
                headers=self._merged(headers) if headers else self._headers,
                redirect=False,
                assert_same_host=False,
                preload_content=False,
                decode_content=False,
                retries=False,
                timeout=urllib3.Timeout(connect=connect, read=read),
            )
        except (urllib3.exceptions.HTTPError, OSError) as exc:
            raise _as_requests_error(exc) from exc
        response = requests.Response()
        response.status_code = raw.status
        response.headers = requests.structures.CaseInsensitiveDict(raw.headers)
        response.encoding = requests.utils.get_encoding_from_headers(response.headers)
        response.raw = raw
        response.reason = raw.reason
        response.url = self.url
        response.connection = self._adapter  # type: ignore[assignment]
        if "Set-Cookie" in response.headers:
            sent = self.template.copy()
            if headers:
                sent.headers.update(headers)
            requests.cookies.extract_cookies_to_jar(self.session.cookies, sent, raw)  # type: ignore[no-untyped-call]
        return response

    def _merged(self, headers: dict[str, str]) -> dict[str, str]:
        """The session's headers with the call's, names compared without case (as ``requests`` merges them)."""
        base = self._headers
        if not any(name not in base and name.lower() in self._lower_names for name in headers):
            return {**base, **headers}  # no name differs only in case: a plain merge is the same
        merged = requests.structures.CaseInsensitiveDict(base)
        merged.update(headers)
        return dict(merged)

    def _send_prepared(
        self, headers: Optional[dict[str, str]], data: Optional[bytes], auth: Any, timeout: Any, stream: bool
    ) -> requests.Response:
        session = self.session
        prepared = self.template.copy()
        if headers:
            prepared.headers.update(headers)
        if data is not None:
            prepared.body = data
            prepared.headers["Content-Length"] = str(len(data))
        if session.cookies:
            prepared.prepare_cookies(session.cookies)
        auth = auth or session.auth
        if auth is not None:
            prepared.prepare_auth(auth)
        response = self._adapter.send(
            prepared, stream=True, timeout=timeout, verify=self._verify, cert=session.cert, proxies=session.proxies
        )
        requests.cookies.extract_cookies_to_jar(session.cookies, prepared, response.raw)  # type: ignore[no-untyped-call]
        hooked: requests.Response = requests.hooks.dispatch_hook(  # type: ignore[no-untyped-call]
            "response", prepared.hooks, response
        )
        return hooked


def _as_requests_error(exc: BaseException) -> requests.exceptions.RequestException:
    """What ``HTTPAdapter.send`` would have raised for a urllib3 failure (so that ``http_call`` handles one kind)."""
    errors = requests.exceptions
    if isinstance(exc, urllib3.exceptions.NewConnectionError):  # a ConnectTimeoutError subclass, but refused
        return errors.ConnectionError(exc)
    if isinstance(exc, urllib3.exceptions.ConnectTimeoutError):
        return errors.ConnectTimeout(exc)
    if isinstance(exc, urllib3.exceptions.ReadTimeoutError):
        return errors.ReadTimeout(exc)
    if isinstance(exc, urllib3.exceptions.SSLError):
        return errors.SSLError(exc)
    return errors.ConnectionError(exc)


class ConnectionRegistry:
    """Which connection each thread is using right now, so that another thread can cut it.

    A worker blocked waiting for the headers of an answer has no response
    object yet; only its connection's socket can be shut down to free it.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_thread: dict[int, Any] = {}

    def using(self, connection: Any) -> None:
        with self._lock:
            self._by_thread[threading.get_ident()] = connection

    def forget(self) -> None:
        """The calling thread is done with its connection (a caller's thread, which may never come back)."""
        with self._lock:
            self._by_thread.pop(threading.get_ident(), None)

    def cut(self, thread_id: Optional[int] = None) -> None:
        """Shut down the socket of one thread's connection, or of all (``None``)."""
        with self._lock:
            if thread_id is None:
                connections = list(self._by_thread.values())
            else:
                connections = [self._by_thread.get(thread_id)]
        for connection in connections:
            try:
                connection.sock.shutdown(socket.SHUT_RDWR)
            except Exception:  # no socket, or already closed: nothing to wake
                pass


def _tracking_pools(registry: ConnectionRegistry) -> dict[str, Any]:
    from urllib3.connection import HTTPConnection, HTTPSConnection
    from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

    class Connection(HTTPConnection):
        def request(self, *args: Any, **kwargs: Any) -> None:
            registry.using(self)
            super().request(*args, **kwargs)

    class SecureConnection(HTTPSConnection):
        def request(self, *args: Any, **kwargs: Any) -> None:
            registry.using(self)
            super().request(*args, **kwargs)

    class Pool(HTTPConnectionPool):
        ConnectionCls = Connection

    class SecurePool(HTTPSConnectionPool):
        ConnectionCls = SecureConnection

    return {"http": Pool, "https": SecurePool}


class _Adapter(requests.adapters.HTTPAdapter):
    def __init__(self, registry: Optional[ConnectionRegistry], **kwargs: Any) -> None:
        self._registry = registry  # before super().__init__, which builds the pool manager
        super().__init__(**kwargs)

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        if self._registry is not None:
            self.poolmanager.pool_classes_by_scheme = _tracking_pools(self._registry)


def close_session(session: requests.Session) -> None:
    """Close a ``requests.Session`` and, now, every connection its pools keep.

    ``Session.close()`` empties urllib3's pool manager, but urllib3 2.x does
    not close the pools it drops: their idle connections stay open until the
    pools are garbage. Anything that still references one (a response in a
    traceback kept by a caller or a log record) would keep its sockets open.
    """
    for adapter in session.adapters.values():
        managers = [getattr(adapter, "poolmanager", None), *getattr(adapter, "proxy_manager", {}).values()]
        for manager in managers:
            pools = getattr(manager, "pools", None)
            if pools is None:
                continue
            for key in pools.keys():
                pool = pools.get(key)
                if pool is not None:
                    pool.close()
    session.close()


def new_session(url: str, max_connections: int, registry: Optional[ConnectionRegistry] = None) -> requests.Session:
    """A ``requests.Session`` for one server, whose pool holds as many connections as we use at once.

    What ``requests`` would look up in the environment on every request
    (proxies, CA bundle, ``.netrc``: a quarter of its time per request) is
    looked up once, here, for ``url``. With a ``registry``, each connection
    is recorded under the thread using it.
    """
    session = requests.Session()
    adapter = _Adapter(registry, pool_connections=1, pool_maxsize=max_connections)
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    session.proxies.update(requests.utils.get_environ_proxies(url))
    bundle = os.environ.get("REQUESTS_CA_BUNDLE") or os.environ.get("CURL_CA_BUNDLE")
    if bundle:
        session.verify = bundle
    netrc_auth = requests.utils.get_netrc_auth(url)
    if netrc_auth is not None:
        session.auth = netrc_auth
    session.trust_env = False
    return session


def _never_connected(exc: BaseException) -> bool:
    """Whether a ``requests`` connection error happened before any byte could be sent."""
    seen: list[BaseException] = []
    stack: list[Any] = [exc]
    while stack:
        item = stack.pop()
        if not isinstance(item, BaseException) or any(item is s for s in seen):
            continue
        seen.append(item)
        if isinstance(item, (urllib3.exceptions.NewConnectionError, urllib3.exceptions.ConnectTimeoutError)):
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
