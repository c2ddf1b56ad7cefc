"""mcpsync: a synchronous, thread-based client for the Model Context Protocol.

    import mcpsync

    with mcpsync.connect(["python", "server.py"]) as client:
        print([tool.name for tool in client.list_tools()])
        print(client.call_tool("add", {"a": 1, "b": 2}).structured_content)

Blocking calls that always return (every wait has a timeout), safe from many
threads, no event loop. See the README for the whole API, and
``docs/architecture.md`` for how the package is built: this module is its
public surface; everything in the underscore packages is internal.
"""

import logging as _logging
import sys as _sys
from typing import TYPE_CHECKING as _TYPE_CHECKING, Optional as _Optional

from ._core import auth_hook as _auth_hook
from ._core.authorizer import (
    Authorizer as Authorizer,
    Refusal as Refusal,
)
from ._core.endpoint import (
    TransportStats as TransportStats,
)
from ._core.errors import (
    AuthorizationError,
    AuthorizationRequired,
    ConfigurationError,
    ConfigurationWarning as ConfigurationWarning,
    ConnectError,
    HeaderMismatch as HeaderMismatch,
    HTTPStatusError,
    InvalidMessage as InvalidMessage,
    MCPError,
    MCPWarning,
    MessageTooLarge as MessageTooLarge,
    MissingClientCapability as MissingClientCapability,
    NoResponseError as NoResponseError,
    NotSupportedError as NotSupportedError,
    ProtocolError,
    ProtocolWarning as ProtocolWarning,
    RequestCancelled as RequestCancelled,
    RequestTimeout,
    ServerError,
    ServerUnavailable,
    SessionExpired as SessionExpired,
    TokenStoreError as TokenStoreError,
    TransportClosed,
    TransportError,
    UnknownNameError,
    URLElicitation,
    URLElicitationRequired as URLElicitationRequired,
    WriteTimeout as WriteTimeout,
)
from ._core.feature_errors import (
    CapabilityNotDeclared as CapabilityNotDeclared,
    CapabilityNotServed as CapabilityNotServed,
    ExtensionNotDeclared as ExtensionNotDeclared,
    HandlerResultError as HandlerResultError,
    OutputSchemaError,
    PageLimitExceeded as PageLimitExceeded,
    SkillVerificationError as SkillVerificationError,
    TaskCancelled,
    TaskNotFound as TaskNotFound,
    ToolError,
    UnsupportedProtocolVersion as UnsupportedProtocolVersion,
)
from ._core.timeouts import DEFAULT_TIMEOUT, USE_DEFAULT, Timeout
from ._session import result_hooks as _result_hooks
from ._session.apps import (
    ToolUi as ToolUi,
    UiCsp as UiCsp,
    UiResourceMeta as UiResourceMeta,
)
from ._session.cancel_scope import CancelScope
from ._session.client import (
    Client,
    ClientState as ClientState,
)
from ._session.connect import connect
from ._session.content import (
    AudioContent,
    ContentBlock,
    EmbeddedResource,
    ImageContent,
    ResourceContents,
    ResourceLink,
    TextContent,
    UnknownContent as UnknownContent,
)
from ._session.elicitation import elicitation_defaults
from ._session.models import (
    CallToolResult,
    Completion,
    GetPromptResult,
    Icon as Icon,
    Page,
    Prompt,
    PromptArgument as PromptArgument,
    PromptMessage as PromptMessage,
    ReadResourceResult,
    Resource,
    ResourceTemplate,
    ServerInfo,
    Tool,
)
from ._session.negotiation import (
    ALL_PROTOCOL_VERSIONS as ALL_PROTOCOL_VERSIONS,
    HANDSHAKE_PROTOCOL_VERSIONS as HANDSHAKE_PROTOCOL_VERSIONS,
    LATEST_PROTOCOL_VERSION,
    MODERN_PROTOCOL_VERSIONS as MODERN_PROTOCOL_VERSIONS,
    SUPPORTED_PROTOCOL_VERSIONS as SUPPORTED_PROTOCOL_VERSIONS,
)
from ._session.progress_bars import set_progress_bars
from ._session.skills import (
    LoadedSkill,
    Skill,
    SkillDirectory as SkillDirectory,
    SkillResource as SkillResource,
)
from ._session.tasks import ToolTask
from ._version import __version__
from ._wire import (
    StdioTransport as StdioTransport,
    Transport as Transport,
    create_transport,
)
from ._wire.config import HTTPServerConfig, ServerConfig, StdioServerConfig

if _TYPE_CHECKING:
    from ._auth import (
        ClientCredentials,
        EnterpriseAuth,
        FileTokenStore,
        MemoryTokenStore,
        OAuth,
        TokenStore as TokenStore,
        WorkloadIdentity,
    )
    from ._edges.apps.bridge import (
        AppBridge as AppBridge,
    )
    from ._edges.apps.notebook import (
        AppWidget as AppWidget,
        show_app,
    )
    from ._edges.frameworks.common import (
        OfferedTool as OfferedTool,
    )
    from ._edges.logs import show_logs
    from ._edges.oneshot import (
        call_mcp,
        parse_sse as parse_sse,
    )
    from ._edges.toolbox.box import (
        ToolBox,
        ToolDefinitions as ToolDefinitions,
    )
    from ._manager.config_files import (
        LoadedConfig as LoadedConfig,
        ServerEntry as ServerEntry,
        discover_config_files,
        load_config,
        parse_config,
    )
    from ._manager.manager import Manager
    from ._manager.records import (
        ManagedPrompt as ManagedPrompt,
        ManagedResource as ManagedResource,
        ManagedTool,
        ServerState,
        ServerStatus,
    )
    from ._session.app_view import AppView
    from ._wire import (
        SSETransport as SSETransport,
        StreamableHTTPTransport as StreamableHTTPTransport,
    )

#: Names imported on first use, not on `import mcpsync`: those whose modules load
#: requests, and the manager and configuration files, which a one-server script never needs.
_LAZY = {
    "OAuth": "mcpsync._auth",
    "ClientCredentials": "mcpsync._auth",
    "WorkloadIdentity": "mcpsync._auth",
    "EnterpriseAuth": "mcpsync._auth",
    "FileTokenStore": "mcpsync._auth",
    "MemoryTokenStore": "mcpsync._auth",
    "TokenStore": "mcpsync._auth",
    "SSETransport": "mcpsync._wire",
    "StreamableHTTPTransport": "mcpsync._wire",
    "call_mcp": "mcpsync._edges.oneshot",
    "parse_sse": "mcpsync._edges.oneshot",
    "show_logs": "mcpsync._edges.logs",
    "AppBridge": "mcpsync._edges.apps.bridge",
    "AppView": "mcpsync._session.app_view",
    "AppWidget": "mcpsync._edges.apps.notebook",
    "show_app": "mcpsync._edges.apps.notebook",
    "OfferedTool": "mcpsync._edges.frameworks.common",
    "ToolBox": "mcpsync._edges.toolbox.box",
    "ToolDefinitions": "mcpsync._edges.toolbox.box",
    "LoadedConfig": "mcpsync._manager.config_files",
    "ServerEntry": "mcpsync._manager.config_files",
    "discover_config_files": "mcpsync._manager.config_files",
    "load_config": "mcpsync._manager.config_files",
    "parse_config": "mcpsync._manager.config_files",
    "Manager": "mcpsync._manager.manager",
    "ManagedPrompt": "mcpsync._manager.records",
    "ManagedResource": "mcpsync._manager.records",
    "ManagedTool": "mcpsync._manager.records",
    "ServerState": "mcpsync._manager.records",
    "ServerStatus": "mcpsync._manager.records",
}


def _default_auth() -> Authorizer:
    """MCP's OAuth for an HTTP server given no auth: idle until it answers 401 (see ``mcpsync.OAuth``)."""
    from ._auth import OAuth

    return OAuth()


_auth_hook.default_auth = _default_auth


def _app_view(result: CallToolResult) -> "_Optional[AppView]":
    """``CallToolResult.ui``: the view of the call that made ``result`` (see ``_session.app_resources``)."""
    from ._session.app_resources import view_of_result

    return view_of_result(result)


_result_hooks.app_view = _app_view


def _rehome(value: object) -> object:
    """Show a public class or function as ``mcpsync.X``, where it is used from (in tracebacks,
    ``help()`` and reprs), as httpx does; pickle finds it there too. Other values stay as they are.

    A class's own annotations are strings (``from __future__ import annotations``) that
    ``typing.get_type_hints`` evaluates in the module ``__module__`` names: they are evaluated
    first, in the module that wrote them, so that dataclasses such as ``Tool`` stay introspectable
    (pydantic, cattrs, ``get_type_hints``). A class whose annotations cannot be evaluated stays home.
    """
    if isinstance(value, type):
        own = value.__dict__.get("__annotations__")  # noqa: RUF063 (3.9 has no inspect.get_annotations)
        if own:
            import typing

            try:
                hints = typing.get_type_hints(value, include_extras=True)
            except Exception:
                return value
            value.__annotations__ = {key: hints.get(key, hint) for key, hint in own.items()}
        value.__module__ = __name__
    elif hasattr(value, "__code__"):
        value.__module__ = __name__
    return value


def __getattr__(name: str) -> object:
    if name in _LAZY:
        import importlib

        return _rehome(getattr(importlib.import_module(_LAZY[name]), name))
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: What everyday code writes, and ``from mcpsync import *`` gives (issue 38: about httpx's 70). The
#: other public names (``_PUBLIC``) are as reachable as ever, as ``mcpsync.X``, and each has a
#: documented home besides: ``mcpsync.errors`` (every error and warning) or ``mcpsync.types``.
__all__ = [
    "DEFAULT_TIMEOUT",
    "LATEST_PROTOCOL_VERSION",
    "USE_DEFAULT",
    "AppView",
    "AudioContent",
    "AuthorizationError",
    "AuthorizationRequired",
    "CallToolResult",
    "CancelScope",
    "Client",
    "ClientCredentials",
    "Completion",
    "ConfigurationError",
    "ConnectError",
    "ContentBlock",
    "EmbeddedResource",
    "EnterpriseAuth",
    "FileTokenStore",
    "GetPromptResult",
    "HTTPServerConfig",
    "HTTPStatusError",
    "ImageContent",
    "LoadedSkill",
    "MCPError",
    "MCPWarning",
    "ManagedTool",
    "Manager",
    "MemoryTokenStore",
    "OAuth",
    "OutputSchemaError",
    "Page",
    "Prompt",
    "ProtocolError",
    "ReadResourceResult",
    "RequestTimeout",
    "Resource",
    "ResourceContents",
    "ResourceLink",
    "ResourceTemplate",
    "ServerConfig",
    "ServerError",
    "ServerInfo",
    "ServerState",
    "ServerStatus",
    "ServerUnavailable",
    "Skill",
    "StdioServerConfig",
    "TaskCancelled",
    "TextContent",
    "Timeout",
    "Tool",
    "ToolBox",
    "ToolError",
    "ToolTask",
    "TransportClosed",
    "TransportError",
    "URLElicitation",
    "UnknownNameError",
    "WorkloadIdentity",
    "__version__",
    "call_mcp",
    "connect",
    "create_transport",
    "discover_config_files",
    "elicitation_defaults",
    "load_config",
    "parse_config",
    "set_progress_bars",
    "show_app",
    "show_logs",
]
#: The public names not in ``__all__``, each in ``mcpsync.errors`` or ``mcpsync.types`` (and ``mcpsync.X``).
_ELSEWHERE = (
    "ALL_PROTOCOL_VERSIONS",
    "HANDSHAKE_PROTOCOL_VERSIONS",
    "MODERN_PROTOCOL_VERSIONS",
    "SUPPORTED_PROTOCOL_VERSIONS",
    "AppBridge",
    "AppWidget",
    "Authorizer",
    "CapabilityNotDeclared",
    "CapabilityNotServed",
    "ClientState",
    "ConfigurationWarning",
    "ExtensionNotDeclared",
    "HandlerResultError",
    "HeaderMismatch",
    "Icon",
    "InvalidMessage",
    "LoadedConfig",
    "ManagedPrompt",
    "ManagedResource",
    "MessageTooLarge",
    "MissingClientCapability",
    "NoResponseError",
    "NotSupportedError",
    "OfferedTool",
    "PageLimitExceeded",
    "PromptArgument",
    "PromptMessage",
    "ProtocolWarning",
    "Refusal",
    "RequestCancelled",
    "SSETransport",
    "ServerEntry",
    "SessionExpired",
    "SkillDirectory",
    "SkillResource",
    "SkillVerificationError",
    "StdioTransport",
    "StreamableHTTPTransport",
    "TaskNotFound",
    "TokenStore",
    "TokenStoreError",
    "ToolDefinitions",
    "ToolUi",
    "Transport",
    "TransportStats",
    "URLElicitationRequired",
    "UiCsp",
    "UiResourceMeta",
    "UnknownContent",
    "UnsupportedProtocolVersion",
    "WriteTimeout",
    "parse_sse",
)
#: Every public name.
_PUBLIC = (*__all__, *_ELSEWHERE)

for _name in _PUBLIC:
    if _name not in _LAZY:
        _rehome(globals()[_name])
del _name

_logging.getLogger(__name__).addHandler(_logging.NullHandler())


def _show_in_notebooks() -> None:
    """Inside a Jupyter kernel or IPython shell, show mcpsync's values as HTML (``mcpsync._edges.display``).

    The values themselves know nothing of their views: the shell is told
    which function renders which type. Outside IPython this does nothing.
    """
    ipython = _sys.modules.get("IPython")
    get_shell = getattr(ipython, "get_ipython", None)
    shell = get_shell() if callable(get_shell) else None
    if shell is not None and hasattr(shell, "display_formatter"):
        from ._edges.display import register

        register(shell)


_show_in_notebooks()
