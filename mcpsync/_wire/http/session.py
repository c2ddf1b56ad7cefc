"""Our own ``requests`` sessions: settings looked up once, a pool sized for us, connections that say whom they serve.

A connection of these sessions records, while it works, the exchange running
on its thread (``current.exchange``), and forgets it before the pool hands it
to another: that is how ``Exchange.cut`` finds the socket to shut down, and
never shuts down one that now serves somebody else. It makes its socket
itself, so that the exchange has it before the connect starts: a cut then
aborts a connect that hangs (Linux wakes a connect on a socket shut down).
"""

from __future__ import annotations

import os
import socket
import sys
import threading
from typing import Any, Optional

import requests
from requests.structures import CaseInsensitiveDict

__all__ = ["can_cut", "close_session", "current", "new_session"]

#: The exchange the current thread is running (``client.HTTPClient.exchange`` sets it).
current = threading.local()


def _connected_socket(conn: Any, exchange: Any) -> socket.socket:
    """Connect as ``urllib3.util.connection.create_connection`` does, each address's socket
    given to ``exchange`` (``_connecting``) before its connect starts."""
    from urllib3.exceptions import LocationParseError
    from urllib3.util.connection import allowed_gai_family

    host = conn._dns_host.strip("[]") if conn._dns_host.startswith("[") else conn._dns_host
    try:
        host.encode("idna")
    except UnicodeError:
        raise LocationParseError(f"'{host}', label empty or too long") from None
    error: Optional[OSError] = None
    for family, kind, proto, _, address in socket.getaddrinfo(
        host, conn.port, allowed_gai_family(), socket.SOCK_STREAM
    ):
        sock = socket.socket(family, kind, proto)
        try:
            for option in conn.socket_options or ():
                sock.setsockopt(*option)
            if conn.timeout is None or isinstance(conn.timeout, (int, float)):  # not urllib3's "default"
                sock.settimeout(conn.timeout)
            if conn.source_address:
                sock.bind(conn.source_address)
            exchange._connecting(conn, sock)
            sock.connect(address)
            return sock
        except OSError as exc:
            error = exc
            sock.close()
    raise error if error is not None else OSError("getaddrinfo returns an empty list")


#: Bodies up to this size go out in one write with their headers.
COALESCE = 65536

_POOLS: dict[str, Any] = {}


def _exchange_pools() -> dict[str, Any]:
    """The pool classes of our sessions, by scheme (made once, on first use)."""
    if not _POOLS:
        _POOLS.update(_make_exchange_pools())
    return _POOLS


def _make_exchange_pools() -> dict[str, Any]:
    from urllib3.connection import HTTPConnection, HTTPSConnection
    from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
    from urllib3.exceptions import ConnectTimeoutError, NameResolutionError, NewConnectionError

    class Tracked:
        """Records the running exchange on the connection it uses (for ``Exchange.cut``), and sends
        a small body in the same write as the headers (one packet, not two: urllib3 writes them apart)."""

        _head: Optional[bytes] = None  # the header block, held until the body comes
        _holding = False

        def request(self, method: str, url: str, body: Any = None, *args: Any, **kwargs: Any) -> None:
            exchange = getattr(current, "exchange", None)
            if exchange is not None:
                exchange._attach(self)
            sock: Any = getattr(self, "sock", None)
            if not isinstance(body, bytes) or not 0 < len(body) <= COALESCE or kwargs.get("chunked"):
                super().request(method, url, body, *args, **kwargs)  # type: ignore[misc]
                return
            if sock is None:
                self.connect()  # now, so that only the request's own writes go through send below
            self._holding = True
            try:
                super().request(method, url, body, *args, **kwargs)  # type: ignore[misc]
                head, self._head = self._head, None
                if head is not None:  # no body was written after all
                    super().send(head)  # type: ignore[misc]
            finally:
                self._holding = False
                self._head = None

        def send(self, data: Any) -> None:
            if self._holding:
                if self._head is None:
                    self._head = bytes(data)  # the header block: wait for the body
                    return
                head, self._head = self._head, None
                self._holding = False
                data = head + bytes(data)
            super().send(data)  # type: ignore[misc]

        def connect(self) -> None:
            super().connect()  # type: ignore[misc]
            exchange = getattr(current, "exchange", None)
            if exchange is not None:
                exchange._attach(self)

        def _new_conn(self) -> socket.socket:
            # urllib3's own, but with the socket handed to the exchange before it connects.
            exchange = getattr(current, "exchange", None)
            if exchange is None:
                return super()._new_conn()  # type: ignore[misc,no-any-return]
            conn: Any = self
            try:
                sock = _connected_socket(conn, exchange)
            except socket.gaierror as exc:
                raise NameResolutionError(conn.host, conn, exc) from exc
            except socket.timeout as exc:
                raise ConnectTimeoutError(
                    conn, f"Connection to {conn.host} timed out. (connect timeout={conn.timeout})"
                ) from exc
            except OSError as exc:
                raise NewConnectionError(conn, f"Failed to establish a new connection: {exc}") from exc
            sys.audit("http.client.connect", conn, conn.host, conn.port)
            return sock

    class Connection(Tracked, HTTPConnection):
        pass

    class SecureConnection(Tracked, HTTPSConnection):
        pass

    class Returning:
        """Before a connection goes back to the pool, it stops working for its exchange."""

        def _put_conn(self, conn: Any) -> None:
            exchange = getattr(conn, "mcpsync_exchange", None)
            if exchange is not None:
                with exchange._client.owners:
                    conn.mcpsync_exchange = None
            super()._put_conn(conn)  # type: ignore[misc]

    class Pool(Returning, HTTPConnectionPool):
        ConnectionCls = Connection

    class SecurePool(Returning, HTTPSConnectionPool):
        ConnectionCls = SecureConnection

    return {"http": Pool, "https": SecurePool}


class _Adapter(requests.adapters.HTTPAdapter):
    """requests' adapter, with what it redoes per request and cannot change for our sessions done once.

    Only the hooks requests documents "for use when subclassing" are
    overridden, and only where no proxy applies (a proxied request takes
    requests' own way): the pool and the request target of each URL are
    looked up once, and the response is built without parsing its cookies
    (``HTTPClient.adapter_send`` stores a ``Set-Cookie`` in the session's jar,
    as ``Session.send`` does). The pools' connections record their exchange,
    those through an HTTP(S) proxy too.
    """

    def __init__(self, **kwargs: Any) -> None:
        self._pools: dict[tuple[str, Any, Any], Any] = {}
        self._targets: dict[str, str] = {}
        super().__init__(**kwargs)

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = _exchange_pools()

    def proxy_manager_for(self, proxy: str, **proxy_kwargs: Any) -> Any:
        manager = super().proxy_manager_for(proxy, **proxy_kwargs)
        if not proxy.lower().startswith("socks"):  # an HTTP(S) proxy's pools are ours too; SOCKS has its own
            manager.pool_classes_by_scheme = _exchange_pools()
        return manager

    def get_connection_with_tls_context(
        self, request: requests.PreparedRequest, verify: Any, proxies: Any = None, cert: Any = None
    ) -> Any:
        url = request.url or ""
        if proxies and requests.utils.select_proxy(url, proxies) is not None:
            return super().get_connection_with_tls_context(request, verify, proxies=proxies, cert=cert)
        key = (url[: url.find("/", url.find("//") + 2)] if "//" in url else url, repr(verify), repr(cert))
        pool = self._pools.get(key)
        if pool is None or pool.pool is None:  # first use, or the pool manager dropped (and closed) it
            pool = super().get_connection_with_tls_context(request, verify, proxies=proxies, cert=cert)
            if len(self._pools) > 16:
                self._pools.clear()
            self._pools[key] = pool
        return pool

    def request_url(self, request: requests.PreparedRequest, proxies: Any) -> str:
        url = request.url or ""
        if proxies and requests.utils.select_proxy(url, proxies) is not None:
            return str(super().request_url(request, proxies))
        target = self._targets.get(url)
        if target is None:
            target = str(request.path_url)
            if len(self._targets) < 64:
                self._targets[url] = target
        return target

    def build_response(self, req: requests.PreparedRequest, resp: Any) -> requests.Response:
        response = requests.Response()
        response.status_code = resp.status
        response.headers = CaseInsensitiveDict(resp.headers)
        response.encoding = requests.utils.get_encoding_from_headers(response.headers)
        response.raw = resp
        response.reason = resp.reason
        response.url = req.url or ""
        response.request = req
        response.connection = self
        return response


def new_session(url: str, max_connections: int) -> requests.Session:
    """A ``requests.Session`` for one server, whose pool holds as many connections as we use at once.

    What ``requests`` would look up in the environment on every request
    (proxies, CA bundle, ``.netrc``: a quarter of its time per request) is
    looked up once, here, for ``url``.
    """
    session = requests.Session()
    adapter = _Adapter(pool_connections=1, pool_maxsize=max_connections)
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


def can_cut(session: requests.Session, url: str) -> bool:
    """Whether exchanges of ``session`` with ``url`` can be cut: the session is one of ours, and
    reaches ``url`` directly or through an HTTP(S) proxy (a SOCKS proxy's connections are not ours)."""
    if not isinstance(session.get_adapter(url), _Adapter):
        return False
    proxy = requests.utils.select_proxy(url, session.proxies)
    return proxy is None or not proxy.lower().startswith("socks")


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
