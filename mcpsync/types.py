"""The rest of mcpsync's public types: what everyday code rarely names, importable from here
(``from mcpsync.types import Icon``), and as ``mcpsync.X`` as it always was.

``mcpsync.__all__`` holds the names everyday code writes (``connect``, ``Client``, ``Manager``,
``ToolBox``, the results and content blocks, the common errors); the errors are all in
``mcpsync.errors``. Names whose modules are heavy (the manager's configuration, the HTTP
transports, the MCP Apps host) are imported on first use, here as in ``mcpsync``.
"""

from typing import TYPE_CHECKING as _TYPE_CHECKING

import mcpsync as _mcpsync
from mcpsync import (
    ALL_PROTOCOL_VERSIONS as ALL_PROTOCOL_VERSIONS,
    HANDSHAKE_PROTOCOL_VERSIONS as HANDSHAKE_PROTOCOL_VERSIONS,
    MODERN_PROTOCOL_VERSIONS as MODERN_PROTOCOL_VERSIONS,
    SUPPORTED_PROTOCOL_VERSIONS as SUPPORTED_PROTOCOL_VERSIONS,
    Authorizer as Authorizer,
    ClientState as ClientState,
    Icon as Icon,
    PromptArgument as PromptArgument,
    PromptMessage as PromptMessage,
    Refusal as Refusal,
    SkillDirectory as SkillDirectory,
    SkillResource as SkillResource,
    StdioTransport as StdioTransport,
    ToolUi as ToolUi,
    Transport as Transport,
    TransportStats as TransportStats,
    UiCsp as UiCsp,
    UiResourceMeta as UiResourceMeta,
    UnknownContent as UnknownContent,
)

if _TYPE_CHECKING:
    from mcpsync import (
        AppBridge as AppBridge,
        AppWidget as AppWidget,
        LoadedConfig as LoadedConfig,
        ManagedPrompt as ManagedPrompt,
        ManagedResource as ManagedResource,
        OfferedTool as OfferedTool,
        ServerEntry as ServerEntry,
        SSETransport as SSETransport,
        StreamableHTTPTransport as StreamableHTTPTransport,
        TokenStore as TokenStore,
        ToolDefinitions as ToolDefinitions,
        parse_sse as parse_sse,
    )

_LAZY = frozenset(
    {
        "AppBridge",
        "AppWidget",
        "LoadedConfig",
        "ManagedPrompt",
        "ManagedResource",
        "OfferedTool",
        "SSETransport",
        "ServerEntry",
        "StreamableHTTPTransport",
        "TokenStore",
        "ToolDefinitions",
        "parse_sse",
    }
)


def __getattr__(name: str) -> object:
    if name in _LAZY:
        return getattr(_mcpsync, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "ALL_PROTOCOL_VERSIONS",
    "HANDSHAKE_PROTOCOL_VERSIONS",
    "MODERN_PROTOCOL_VERSIONS",
    "SUPPORTED_PROTOCOL_VERSIONS",
    "AppBridge",
    "AppWidget",
    "Authorizer",
    "ClientState",
    "Icon",
    "LoadedConfig",
    "ManagedPrompt",
    "ManagedResource",
    "OfferedTool",
    "PromptArgument",
    "PromptMessage",
    "Refusal",
    "SSETransport",
    "ServerEntry",
    "SkillDirectory",
    "SkillResource",
    "StdioTransport",
    "StreamableHTTPTransport",
    "TokenStore",
    "ToolDefinitions",
    "ToolUi",
    "Transport",
    "TransportStats",
    "UiCsp",
    "UiResourceMeta",
    "UnknownContent",
    "parse_sse",
]
