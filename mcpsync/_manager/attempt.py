"""One attempt to connect a managed server: make its client, run the handshake, list its tools.

No state and no thread of its own: a ``ServerSupervisor`` calls ``connect_once`` on its
thread and decides what the outcome means. The whole attempt has one bound (the manager's
``connect_timeout``, else the entry's ``connectTimeout``, else its ``timeout``); a person's
login during the handshake is not counted against it.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Callable, Optional

from .._core.errors import RequestTimeout, TransportClosed
from .._core.timeouts import USE_DEFAULT, Deadline, Timeout, resolve_timeout
from .._session.client import Client
from .._session.connect import handshake, transport_auth
from .._session.models import Tool
from .._session.server_capabilities import items_served
from .._wire import create_transport
from .._wire.config import HTTPServerConfig, ServerConfig, StdioServerConfig
from .config_files import ServerEntry

__all__ = ["ConnectSettings", "connect_once"]


@dataclass(frozen=True)
class ConnectSettings:
    """How a manager connects each of its servers.

    ``client_options``: keyword arguments for every ``Client`` (an ``on_list_changed`` in them is
    called after the manager's own); ``connect_timeout``: the bound of one attempt (``USE_DEFAULT``:
    the entry's); ``stderr``: every stdio server's stderr mode in place of the entry's, or ``None``.
    """

    client_options: Mapping[str, Any]
    connect_timeout: Timeout = USE_DEFAULT
    stderr: Optional[str] = None


def connect_once(
    entry: ServerEntry,
    settings: ConnectSettings,
    *,
    adopt: Callable[[Client], bool],
    on_tools_changed: Callable[[Client], object],
    on_lost: Callable[[Client], None],
) -> tuple[Client, list[Tool]]:
    """Start or reach the server of ``entry``, run the handshake, and list its tools.

    Args:
        adopt: called with each client as soon as it is made (a bare URL may need a second one,
            HTTP+SSE); ``False`` means the manager is closing: the client is closed and the
            attempt ends with ``TransportClosed``.
        on_tools_changed: called with the newest client when the server sends tools/list_changed.
        on_lost: called with the newest client when its connection ends with an error.

    Returns:
        the connected client and the server's tools (a server that does not declare tools is asked
        anyway, as many under-declare, unless the client is strict).

    Raises:
        whatever the transport, the handshake or tools/list raise; the client is closed then.
    """
    config = entry.config
    assert config is not None
    options = dict(settings.client_options)
    user_list_changed = options.pop("on_list_changed", None)
    holder: list[Client] = []

    def on_list_changed(kind: str) -> None:
        if kind == "tools" and holder:
            on_tools_changed(holder[0])
        if user_list_changed is not None:
            user_list_changed(kind)

    def on_close(error: Optional[BaseException]) -> None:
        if error is not None and holder:
            on_lost(holder[0])

    def make(config: ServerConfig) -> Client:
        if settings.stderr is not None and isinstance(config, StdioServerConfig):
            config = dataclasses.replace(config, stderr=settings.stderr)
        client = Client(
            create_transport(config, **_transport_options(entry)),
            on_list_changed=on_list_changed,
            on_close=on_close,
            **options,
        )
        holder[:] = [client]
        if not adopt(client):
            # Closed here, outside the manager's lock: closing waits for the server and the client's threads.
            client.close()
            raise TransportClosed("the manager is closing")
        return client

    # The manager's bound for connecting, else the entry's ("connectTimeout"), else its timeout.
    timeout = settings.connect_timeout if settings.connect_timeout is not USE_DEFAULT else config.connect_timeout
    started = time.monotonic()
    # A server of an entry without "type" may be an HTTP+SSE one, as with mcpsync.connect.
    client = handshake(make(config), config, timeout, make)
    try:
        # One bound for the whole attempt: the tool list gets what the handshake left of it
        # (a person's login during the handshake not counted: that was not the caller's time).
        seconds = resolve_timeout(timeout, client.transport.default_timeout)
        left = Deadline(seconds, client._channel, start=started).left(floor=0.001)
        try:
            tools = items_served(
                lambda: client.list_tools(timeout=left),
                client.server_capabilities,
                "tools/list",
                strict=client.strict_capabilities,
            )
        except RequestTimeout:
            raise RequestTimeout("tools/list", seconds or 0.0) from None  # the bound given, not what was left
    except BaseException:
        client.close()
        raise
    return client, tools


def _transport_options(entry: ServerEntry) -> dict[str, Any]:
    """An HTTP server's auth from its ``oauth`` settings, and, for a server of a file, the login
    command that names it (``mcpsync login NAME``; else the default, ``--url``)."""
    config = entry.config
    if not isinstance(config, HTTPServerConfig):
        return {}
    options: dict[str, Any] = {}
    if not entry.source.startswith("<"):  # "<dict>", "<command line>": no file to find the name in
        options["login_command"] = f"mcpsync login {entry.name}"
    auth = transport_auth(config)
    if auth is not None:
        options["auth"] = auth
    return options
