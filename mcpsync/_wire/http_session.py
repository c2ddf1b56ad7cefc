"""Our own ``requests`` sessions: settings looked up once, a pool sized for us, connections that say whom they serve.

A connection of these sessions records, while it works, the exchange running
on its thread (``current.exchange``), and forgets it before the pool hands it
to another: that is how ``Exchange.cut`` finds the socket to shut down, and
never shuts down one that now serves somebody else.
"""

from __future__ import annotations

import os
import threading
from typing import Any

import requests

__all__ = ["close_session", "current", "new_session"]

#: The exchange the current thread is running (``http_client.HTTPClient.exchange`` sets it).
current = threading.local()


def _exchange_pools() -> dict[str, Any]:
    from urllib3.connection import HTTPConnection, HTTPSConnection
    from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

    class Tracked:
        """Records the running exchange on the connection it uses (for ``Exchange.cut``)."""

        def request(self, *args: Any, **kwargs: Any) -> None:
            exchange = getattr(current, "exchange", None)
            if exchange is not None:
                exchange._attach(self)
            super().request(*args, **kwargs)  # type: ignore[misc]

        def connect(self) -> None:
            super().connect()  # type: ignore[misc]
            exchange = getattr(current, "exchange", None)
            if exchange is not None:
                exchange._attach(self)

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
    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = _exchange_pools()


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
