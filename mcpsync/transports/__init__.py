"""Transports move JSON-RPC messages between a client and one server.

``create_transport(config)`` picks the class from the configuration:
stdio (``StdioServerConfig``, or ``type`` omitted / ``"stdio"``), Streamable
HTTP (``type="http"``) or HTTP+SSE (``type="sse"``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..config import HTTPServerConfig, ServerConfig, StdioServerConfig, server_config_from
from .base import Transport, TransportState, TransportStats
from .stdio import StdioTransport

if TYPE_CHECKING:
    from .http import StreamableHTTPTransport
    from .sse import SSETransport

#: Imported on first use: ``requests`` costs ~100 ms, which stdio users need not pay.
_LAZY = {"StreamableHTTPTransport": ".http", "SSETransport": ".sse"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "SSETransport",
    "StdioTransport",
    "StreamableHTTPTransport",
    "Transport",
    "TransportState",
    "TransportStats",
    "create_transport",
]


def create_transport(config: Any, **kwargs: Any) -> Transport:
    """Build the transport a server configuration asks for (not started yet).

    Args:
        config: a ``ServerConfig``, or anything ``mcpsync.connect`` accepts.
        **kwargs: passed to the transport's constructor (callbacks, shutdown
            waits, ``max_message_size``: these win over the config's).

    Raises:
        ConfigurationError: the configuration is invalid.
    """
    server: ServerConfig = server_config_from(config)
    if server.max_message_size is not None:
        kwargs.setdefault("max_message_size", server.max_message_size)
    if isinstance(server, StdioServerConfig):
        return StdioTransport.from_config(server, **kwargs)
    assert isinstance(server, HTTPServerConfig)
    if server.type == "http":
        from .http import StreamableHTTPTransport

        return StreamableHTTPTransport(
            server.url, headers=server.headers, name=server.name, timeout=server.timeout, **kwargs
        )
    from .sse import SSETransport

    return SSETransport(server.url, headers=server.headers, name=server.name, timeout=server.timeout, **kwargs)
