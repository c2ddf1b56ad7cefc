"""``mcpsync.connect``: from what the user has (a config, a URL, a command) to an initialized ``Client``."""

from __future__ import annotations

import dataclasses
import logging
from typing import Any, Optional

from .._core.errors import ConfigurationError, HTTPStatusError, MCPError
from .._core.timeouts import USE_DEFAULT, Timeout
from .._wire import create_transport
from .._wire.config import HTTPServerConfig, server_config_from
from .client import Client

__all__ = ["SSE_FALLBACK_STATUSES", "connect", "transport_auth"]

logger = logging.getLogger("mcpsync.client")

#: Answers to our first POST that mean "this is an HTTP+SSE (2024-11-05) server".
SSE_FALLBACK_STATUSES = (400, 404, 405)


def transport_auth(config: HTTPServerConfig, auth: Any = None) -> Any:
    """The ``auth=`` of the transport of ``config``: the caller's; else an ``OAuth`` of the config's
    ``oauth`` settings (``False``, no auth at all, when they turn it off); else ``None``: the default."""
    if auth is not None or config.oauth is None:
        return auth
    options = config.oauth_options
    if options is None:
        return False
    from .._auth import OAuth

    return OAuth(**options)


def connect(
    target: Any,
    *,
    name: Optional[str] = None,
    timeout: Timeout = USE_DEFAULT,
    auth: Any = None,
    **client_kwargs: Any,
) -> Client:
    """Start or reach one server, run the handshake, and return the ready ``Client``.

    Args:
        target: an ``mcpServers``-style dict (``{"command": ..., "args": [...]}``),
            a ``StdioServerConfig`` / ``HTTPServerConfig``, a URL, a command
            line string, or a list ``[command, *args]``. A bare URL is tried as
            Streamable HTTP first, then as HTTP+SSE if the POST gets 400, 404 or 405.
        name: the server's name in logs and thread names.
        timeout: seconds for the handshake (default: the config's timeout, else 30 s; ``None``: no limit).
        auth: for an HTTP server, an ``mcpsync.OAuth`` (or another grant), or any ``requests`` auth
            object. Default: ``OAuth()`` unless the headers carry ``Authorization``: a server that
            answers 401 gets a login when someone is there, else ``AuthorizationRequired``.
        **client_kwargs: passed to ``Client``.

    Raises:
        ConfigurationError: ``target`` is not a valid server description.
        HTTPStatusError: an HTTP server refused (the text carries the auth hints).
        AuthorizationRequired: the server wants a login, and nobody is here to give one.
        AuthorizationError: authorizing failed (a refusal: the text says what did not match).
        ConnectError, TransportClosed, RequestTimeout, ProtocolError: as ``Client.initialize``.
    """
    config = server_config_from(target, name)
    transport_options: dict[str, Any] = {}
    if auth is not None and not isinstance(config, HTTPServerConfig):
        raise ConfigurationError(f"{config.display_name}: auth= is for HTTP servers; a stdio server takes env=")
    if isinstance(config, HTTPServerConfig):
        chosen = transport_auth(config, auth)
        if chosen is not None:
            transport_options["auth"] = chosen
    client = Client(create_transport(config, **transport_options), **client_kwargs)
    try:
        client.initialize(timeout=timeout)
    except HTTPStatusError as exc:
        # A bare URL may name an old HTTP+SSE server: the spec tells clients to
        # try Streamable HTTP first and fall back when the POST is refused so.
        if not (isinstance(target, str) and isinstance(config, HTTPServerConfig)):
            raise
        if exc.status_code not in SSE_FALLBACK_STATUSES:
            raise
        logger.info("server %r: POST refused with %d; trying the HTTP+SSE transport", client.name, exc.status_code)
        client = Client(create_transport(dataclasses.replace(config, type="sse"), **transport_options), **client_kwargs)
        try:
            client.initialize(timeout=timeout)
        except MCPError as sse_error:
            # The first answer is the likelier truth (a 404 for a wrong path, say): keep it, and say both.
            raise HTTPStatusError(
                f"{exc} (and as an HTTP+SSE server: {sse_error})",
                status_code=exc.status_code,
                body=exc.body,
                www_authenticate=exc.www_authenticate,
                auth_server=exc.auth_server,
            ) from sse_error
    return client
