"""Transports move JSON-RPC messages between a client and one server.

``create_transport(config)`` picks the class from the configuration:
stdio (``StdioServerConfig``, or ``type`` omitted / ``"stdio"``), Streamable
HTTP (``type="http"``) or HTTP+SSE (``type="sse"``).
"""

from __future__ import annotations

from typing import Any

from ..config import HTTPServerConfig, ServerConfig, StdioServerConfig, server_config_from
from ..errors import NotSupportedError
from .base import Transport, TransportState, TransportStats
from .stdio import StdioTransport

__all__ = ["StdioTransport", "Transport", "TransportState", "TransportStats", "create_transport"]


def create_transport(config: Any, **kwargs: Any) -> Transport:
    """Build the transport a server configuration asks for (not started yet).

    Args:
        config: a ``ServerConfig``, or anything ``mcpsync.connect`` accepts.
        **kwargs: passed to the transport's constructor (callbacks, shutdown waits).

    Raises:
        ConfigurationError: the configuration is invalid.
        NotSupportedError: an HTTP transport (not in this version yet).
    """
    server: ServerConfig = server_config_from(config)
    if isinstance(server, StdioServerConfig):
        return StdioTransport.from_config(server, **kwargs)
    assert isinstance(server, HTTPServerConfig)
    raise NotSupportedError(
        f"server {server.display_name!r}: the {server.type!r} transport is not available in "
        "this version of mcpsync yet; only stdio servers can be used"
    )
