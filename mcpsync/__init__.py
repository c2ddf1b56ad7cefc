"""mcpsync: a synchronous, thread-based client for the Model Context Protocol.

    import mcpsync

    with mcpsync.connect(["python", "server.py"]) as client:
        print([tool.name for tool in client.list_tools()])
        print(client.call_tool("add", {"a": 1, "b": 2}).structured_content)

Blocking calls that always return (every wait has a timeout), safe from many
threads, no event loop. See the README for the whole API.
"""

import logging as _logging

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
    NoResponseError,
    NotSupportedError,
    OutputSchemaError,
    ProtocolError,
    RequestTimeout,
    ServerError,
    SessionExpired,
    ToolError,
    TransportClosed,
    TransportError,
    UnsupportedProtocolVersion,
    WriteTimeout,
)
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

#: Names whose modules load requests: imported on first use, not on `import mcpsync`.
_LAZY = {
    "SSETransport": "mcpsync.transports",
    "StreamableHTTPTransport": "mcpsync.transports",
    "call_mcp": "mcpsync.oneshot",
    "parse_sse": "mcpsync.oneshot",
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
    "MCPError",
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
    "ServerError",
    "ServerInfo",
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
    "UnsupportedProtocolVersion",
    "WriteTimeout",
    "__version__",
    "call_mcp",
    "connect",
    "create_transport",
    "elicitation_defaults",
    "parse_sse",
]

_logging.getLogger(__name__).addHandler(_logging.NullHandler())
