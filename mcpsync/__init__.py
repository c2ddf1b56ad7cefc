"""mcpsync: a synchronous, thread-based client for the Model Context Protocol.

    import mcpsync

    with mcpsync.connect(["python", "server.py"]) as client:
        print([tool.name for tool in client.list_tools()])
        print(client.call_tool("add", {"a": 1, "b": 2}).structured_content)

Blocking calls that always return (every wait has a timeout), safe from many
threads, no event loop. See the README for the whole API.
"""

import logging as _logging
from typing import TYPE_CHECKING as _TYPE_CHECKING

from ._version import __version__
from .client import (
    LATEST_PROTOCOL_VERSION,
    SUPPORTED_PROTOCOL_VERSIONS,
    Client,
    ClientState,
    connect,
)
from .config import (
    DEFAULT_TIMEOUT,
    USE_DEFAULT,
    HTTPServerConfig,
    ServerConfig,
    StdioServerConfig,
)
from .elicitation import elicitation_defaults
from .errors import (
    ConfigurationError,
    ConnectError,
    HTTPStatusError,
    InvalidMessage,
    MCPError,
    MessageTooLarge,
    NoResponseError,
    NotSupportedError,
    OutputSchemaError,
    ProtocolError,
    RequestTimeout,
    ServerError,
    ServerUnavailable,
    SessionExpired,
    ToolError,
    TransportClosed,
    TransportError,
    UnknownNameError,
    UnsupportedProtocolVersion,
    WriteTimeout,
)
from .interactive import set_progress_bars, show_logs
from .models import (
    AudioContent,
    CallToolResult,
    Completion,
    ContentBlock,
    EmbeddedResource,
    GetPromptResult,
    ImageContent,
    Prompt,
    PromptArgument,
    PromptMessage,
    ReadResourceResult,
    Resource,
    ResourceContents,
    ResourceLink,
    ResourceTemplate,
    ServerInfo,
    TextContent,
    Tool,
    UnknownContent,
)
from .transports import StdioTransport, Transport, TransportStats, create_transport

if _TYPE_CHECKING:
    from .config_files import LoadedConfig, ServerEntry, discover_config_files, load_config, parse_config
    from .manager import ManagedPrompt, ManagedResource, ManagedTool, Manager, ServerState, ServerStatus
    from .oneshot import call_mcp, parse_sse
    from .transports import SSETransport, StreamableHTTPTransport

#: Names imported on first use, not on `import mcpsync`: those whose modules load
#: requests, and the manager and configuration files, which a one-server script never needs.
_LAZY = {
    "SSETransport": "mcpsync.transports",
    "StreamableHTTPTransport": "mcpsync.transports",
    "call_mcp": "mcpsync.oneshot",
    "parse_sse": "mcpsync.oneshot",
    **dict.fromkeys(
        ["LoadedConfig", "ServerEntry", "discover_config_files", "load_config", "parse_config"], "mcpsync.config_files"
    ),
    **dict.fromkeys(
        ["ManagedPrompt", "ManagedResource", "ManagedTool", "Manager", "ServerState", "ServerStatus"], "mcpsync.manager"
    ),
}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "DEFAULT_TIMEOUT",
    "LATEST_PROTOCOL_VERSION",
    "SUPPORTED_PROTOCOL_VERSIONS",
    "USE_DEFAULT",
    "AudioContent",
    "CallToolResult",
    "Client",
    "ClientState",
    "Completion",
    "ConfigurationError",
    "ConnectError",
    "ContentBlock",
    "EmbeddedResource",
    "GetPromptResult",
    "HTTPServerConfig",
    "HTTPStatusError",
    "ImageContent",
    "InvalidMessage",
    "LoadedConfig",
    "MCPError",
    "ManagedPrompt",
    "ManagedResource",
    "ManagedTool",
    "Manager",
    "MessageTooLarge",
    "NoResponseError",
    "NotSupportedError",
    "OutputSchemaError",
    "Prompt",
    "PromptArgument",
    "PromptMessage",
    "ProtocolError",
    "ReadResourceResult",
    "RequestTimeout",
    "Resource",
    "ResourceContents",
    "ResourceLink",
    "ResourceTemplate",
    "SSETransport",
    "ServerConfig",
    "ServerEntry",
    "ServerError",
    "ServerInfo",
    "ServerState",
    "ServerStatus",
    "ServerUnavailable",
    "SessionExpired",
    "StdioServerConfig",
    "StdioTransport",
    "StreamableHTTPTransport",
    "TextContent",
    "Tool",
    "ToolError",
    "Transport",
    "TransportClosed",
    "TransportError",
    "TransportStats",
    "UnknownContent",
    "UnknownNameError",
    "UnsupportedProtocolVersion",
    "WriteTimeout",
    "__version__",
    "call_mcp",
    "connect",
    "create_transport",
    "discover_config_files",
    "elicitation_defaults",
    "load_config",
    "parse_config",
    "parse_sse",
    "set_progress_bars",
    "show_logs",
]

_logging.getLogger(__name__).addHandler(_logging.NullHandler())
