"""Layer 3, the wires: transports move bytes between a client and one server, and nothing else.

``create_transport(config)`` picks the class from the configuration:
stdio (``StdioServerConfig``, or ``type`` omitted / ``"stdio"``), Streamable
HTTP (``type="http"``) or HTTP+SSE (``type="sse"``). Each transport owns its
threads and its endpoint (``mcpsync._core.endpoint``); the client above
waits for answers, times requests out and cancels them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .base import Transport, TransportState, TransportStats
from .config import ServerConfig, StdioServerConfig, server_config_from
from .stdio import StdioTransport

if TYPE_CHECKING:
    from .http.legacy_sse import SSETransport
    from .http.streamable import StreamableHTTPTransport

#: Imported on first use: ``requests`` costs ~100 ms, which stdio users need not pay.
_LAZY = {"StreamableHTTPTransport": ".http.streamable", "SSETransport": ".http.legacy_sse"}


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
    """Build the transport a server configuration asks for (not opened yet).

    Args:
        config: a ``ServerConfig``, or anything ``mcpsync.connect`` accepts.
        **kwargs: passed to the transport's constructor (``write_timeout``,
            ``max_message_size``, HTTP options: these win over the config's).

    Raises:
        ConfigurationError: the configuration is invalid.
    """
    server: ServerConfig = server_config_from(config)
    kwargs.setdefault("max_message_size", server.max_message_size)
    transport: Transport
    if isinstance(server, StdioServerConfig):
        transport = StdioTransport.from_config(server, **kwargs)
    elif server.type == "http":
        from .http.streamable import StreamableHTTPTransport

        transport = StreamableHTTPTransport(
            server.url, headers=server.headers, name=server.name, timeout=server.timeout, **kwargs
        )
    else:
        from .http.legacy_sse import SSETransport

        transport = SSETransport(server.url, headers=server.headers, name=server.name, timeout=server.timeout, **kwargs)
    if "timeout" not in kwargs:  # the configuration's timeout it is
        transport.timeout_note = server.timeout_note
    return transport
