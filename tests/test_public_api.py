"""The public API is a contract: every name DESIGN.md promises is exported, and nothing stray."""

import subprocess
import sys
import types

import mcpsync
from mcpsync._core import errors

PROMISED = {
    "connect",
    "Client",
    "StdioServerConfig",
    "HTTPServerConfig",
    "create_transport",
    "MCPError",
    "ServerError",
    "TransportError",
    "TransportClosed",
    "ConnectError",
    "HTTPStatusError",
    "SessionExpired",
    "NoResponseError",
    "RequestTimeout",
    "ProtocolError",
    "InvalidMessage",
    "UnsupportedProtocolVersion",
    "ConfigurationError",
    "ToolError",
    "Tool",
    "CallToolResult",
    "Manager",
    "SkillDirectory",
    "TaskNotFound",
    "CancelScope",
    "RequestCancelled",
    "HANDSHAKE_PROTOCOL_VERSIONS",
    "MODERN_PROTOCOL_VERSIONS",
    "ALL_PROTOCOL_VERSIONS",
    # MCP Apps (issue 27)
    "AppBridge",
    "AppView",
    "AppWidget",
    "ToolUi",
    "UiCsp",
    "UiResourceMeta",
    "show_app",
}


#: ``mcpsync.__all__``: what everyday code writes (issue 38, point 8). The list is kept here: a name
#: joins it by a change to this test, on purpose.
EVERYDAY = {
    "connect", "Client", "Manager", "ToolBox", "call_mcp", "show_app", "show_logs", "set_progress_bars",
    "create_transport", "elicitation_defaults", "load_config", "parse_config", "discover_config_files",
    "__version__", "USE_DEFAULT", "DEFAULT_TIMEOUT", "LATEST_PROTOCOL_VERSION", "Timeout",
    "ServerConfig", "StdioServerConfig", "HTTPServerConfig",
    "CallToolResult", "Tool", "Resource", "ResourceTemplate", "Prompt", "ReadResourceResult",
    "GetPromptResult", "ServerInfo", "Completion", "Page", "ContentBlock", "TextContent", "ImageContent",
    "AudioContent", "ResourceLink", "EmbeddedResource", "ResourceContents",
    "ToolTask", "CancelScope", "Skill", "LoadedSkill", "AppView", "URLElicitation",
    "OAuth", "ClientCredentials", "WorkloadIdentity", "EnterpriseAuth", "FileTokenStore", "MemoryTokenStore",
    "ServerStatus", "ServerState", "ManagedTool",
    "MCPError", "ServerError", "ToolError", "TransportError", "TransportClosed", "ConnectError",
    "HTTPStatusError", "RequestTimeout", "ProtocolError", "ConfigurationError", "AuthorizationError",
    "AuthorizationRequired", "UnknownNameError", "ServerUnavailable", "TaskCancelled", "OutputSchemaError",
    "MCPWarning",
}  # fmt: skip
#: Every name ``mcpsync`` exported before its ``__all__`` was curated (122, at 27afa83): each still is
#: ``mcpsync.X``, and ``from mcpsync import X`` works (no user code breaks).
EXPORTED_BEFORE = EVERYDAY | {
    "ALL_PROTOCOL_VERSIONS", "HANDSHAKE_PROTOCOL_VERSIONS", "MODERN_PROTOCOL_VERSIONS",
    "SUPPORTED_PROTOCOL_VERSIONS", "AppBridge", "AppWidget", "Authorizer", "CapabilityNotDeclared",
    "CapabilityNotServed", "ClientState", "ConfigurationWarning", "ExtensionNotDeclared", "HandlerResultError",
    "HeaderMismatch", "Icon", "InvalidMessage", "LoadedConfig", "ManagedPrompt", "ManagedResource",
    "MessageTooLarge", "MissingClientCapability", "NoResponseError", "NotSupportedError", "OfferedTool",
    "PageLimitExceeded", "PromptArgument", "PromptMessage", "ProtocolWarning", "Refusal", "RequestCancelled",
    "SSETransport", "ServerEntry", "SessionExpired", "SkillDirectory", "SkillResource", "SkillVerificationError",
    "StdioTransport", "StreamableHTTPTransport", "TaskNotFound", "TokenStore", "TokenStoreError",
    "ToolDefinitions", "ToolUi", "Transport", "TransportStats", "UiCsp", "UiResourceMeta", "UnknownContent",
    "URLElicitationRequired", "UnsupportedProtocolVersion", "WriteTimeout", "parse_sse",
}  # fmt: skip


def test_all_is_the_everyday_names_and_every_other_public_name_has_a_home():
    """``__all__`` is the curated list; every public name is ``mcpsync.X`` and in exactly one of
    ``__all__``, ``mcpsync.errors`` (every error and warning, the everyday ones too) or ``mcpsync.types``."""
    import mcpsync.errors
    import mcpsync.types

    assert set(mcpsync.__all__) == EVERYDAY and len(mcpsync.__all__) == len(EVERYDAY) <= 75
    public = {
        name
        for name, value in vars(mcpsync).items()
        if not name.startswith("_") and not isinstance(value, types.ModuleType)
    }
    assert set(mcpsync._PUBLIC) == public | {"__version__"} | set(mcpsync._LAZY) == EXPORTED_BEFORE
    error_names = {
        n
        for n in EXPORTED_BEFORE
        if isinstance(getattr(mcpsync, n), type) and issubclass(getattr(mcpsync, n), BaseException)
    }
    assert set(mcpsync.errors.__all__) == error_names
    assert set(mcpsync.types.__all__) == EXPORTED_BEFORE - EVERYDAY - error_names
    for name in mcpsync.errors.__all__:
        assert getattr(mcpsync.errors, name) is getattr(mcpsync, name)
    for name in mcpsync.types.__all__:
        assert getattr(mcpsync.types, name) is getattr(mcpsync, name)
    assert PROMISED <= EXPORTED_BEFORE


def test_every_name_exported_before_still_imports_from_mcpsync() -> None:
    """In a fresh interpreter: ``from mcpsync import X`` for each of the 122, ``import *`` the 70."""
    code = (
        "import mcpsync\n"
        f"for name in {sorted(EXPORTED_BEFORE)!r}:\n"
        "    exec(f'from mcpsync import {name}')\n"
        "space = {}\n"
        "exec('from mcpsync import *', space)\n"
        "print(len([n for n in space if not n.startswith('__')]))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(len(EVERYDAY - {"__version__"}))


def test_exception_tree():
    for name in errors.__all__:
        kind = getattr(errors, name)
        assert issubclass(kind, mcpsync.MCPWarning if issubclass(kind, Warning) else mcpsync.MCPError)
    assert issubclass(mcpsync.ProtocolWarning, mcpsync.MCPWarning)
    assert issubclass(mcpsync.ConfigurationWarning, mcpsync.MCPWarning)
    assert issubclass(mcpsync.MCPWarning, UserWarning)
    assert issubclass(mcpsync.RequestTimeout, TimeoutError)
    assert issubclass(mcpsync.ConfigurationError, ValueError)
    assert issubclass(mcpsync.NotSupportedError, NotImplementedError)
    assert issubclass(mcpsync.HandlerResultError, TypeError)  # what a handler's non-dict answer raised before
    assert issubclass(mcpsync.TransportClosed, mcpsync.TransportError)
    assert issubclass(mcpsync.CapabilityNotServed, mcpsync.CapabilityNotDeclared)
    assert issubclass(mcpsync.CapabilityNotServed, mcpsync.ServerError)
    assert issubclass(mcpsync.TaskNotFound, mcpsync.ServerError) and issubclass(mcpsync.TaskNotFound, LookupError)
    assert str(mcpsync.TransportClosed()) == "Transport closed"
    assert str(mcpsync.ServerError(-32601, "Method not found")) == "MCP error -32601: Method not found"
    assert str(mcpsync.NoResponseError(7)) == "No response received for request ID 7"
    assert issubclass(mcpsync.TokenStoreError, mcpsync.AuthorizationError)


def test_import_has_no_side_effects_and_loads_no_heavy_modules():
    code = "import sys, mcpsync; print(sorted(m for m in ('jsonschema', 'requests', 'urllib3') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "[]"
    assert out.stderr == ""


def test_package_ships_py_typed_and_the_schema():
    from importlib import resources

    root = resources.files("mcpsync")
    assert root.joinpath("py.typed").is_file()
    assert root.joinpath("_core").joinpath("jsonrpc.schema.json").is_file()
    assert root.joinpath("_manager").joinpath("mcp-config.schema.json").is_file()


def test_public_classes_and_functions_say_they_are_mcpsyncs() -> None:
    """``mcpsync.ConnectError`` in a traceback and ``help()``, not ``mcpsync._core.errors.ConnectError``:
    every public class and function (the lazily imported ones too) has ``__module__ == "mcpsync"``."""
    import inspect

    assert mcpsync.ConnectError.__module__ == "mcpsync"
    public = [getattr(mcpsync, name) for name in mcpsync._PUBLIC]
    homed = [value for value in public if inspect.isclass(value) or inspect.isfunction(value)]
    assert len(homed) > 60
    assert [value for value in homed if value.__module__ != "mcpsync"] == []


def test_public_classes_shown_as_mcpsync_x_keep_their_type_hints() -> None:
    """Scenario: ``typing.get_type_hints`` on public classes (pydantic, cattrs and FastAPI do it
    for dataclasses such as ``Tool``). Promise: it resolves every one, though ``__module__`` now says
    ``mcpsync`` (it raised ``NameError: name 'Optional' is not defined``: the annotations are strings
    that were evaluated in the ``mcpsync`` namespace)."""
    import inspect
    import typing

    classes = [getattr(mcpsync, name) for name in mcpsync._PUBLIC if inspect.isclass(getattr(mcpsync, name))]
    failed = []
    for cls in classes:
        try:
            typing.get_type_hints(cls)
        except Exception as exc:
            failed.append(f"{cls.__name__}: {exc}")
    assert failed == []
    assert typing.get_type_hints(mcpsync.Tool)["name"] is str


def test_errors_that_pickled_still_pickle_from_their_public_home() -> None:
    """An error made from a message survives pickling (a process pool's worker raising it), found as mcpsync.X."""
    import pickle

    for error in (mcpsync.ConnectError("no"), mcpsync.UnknownNameError("no tool"), mcpsync.ToolError("failed")):
        data = pickle.dumps(error)
        assert b"mcpsync._core" not in data
        copy = pickle.loads(data)
        assert type(copy) is type(error) and str(copy) == str(error)
