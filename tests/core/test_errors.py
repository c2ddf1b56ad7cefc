"""The texts of mcpsync's errors."""

from __future__ import annotations

from mcpsync._core.errors import ServerError


def test_server_error_does_not_repeat_a_prefix_the_server_wrote() -> None:
    """A server (the TypeScript SDK's McpError does this) whose message already starts with
    ``MCP error -32602:`` is shown once, not as ``MCP error -32602: MCP error -32602: ...``;
    the message itself stays as the server sent it."""
    error = ServerError.from_error_object(
        {"code": -32602, "message": "MCP error -32602: Resource demo://nope not found"}
    )
    assert str(error) == "MCP error -32602: Resource demo://nope not found"
    assert error.message == "MCP error -32602: Resource demo://nope not found"


def test_server_error_prefix_of_another_code_is_kept() -> None:
    """A message that names a different code is the server's own text: our prefix still says the code it sent."""
    error = ServerError(-32603, "MCP error -32602: bad params upstream")
    assert str(error) == "MCP error -32603: MCP error -32602: bad params upstream"
    assert str(ServerError(-32601, "Method not found")) == "MCP error -32601: Method not found"


def test_both_error_trees_name_every_public_error_and_warning() -> None:
    """Scenario: the error tree is written twice, in ``_core/errors.py``'s docstring and in
    docs/api.md. Promise: each names every exception and warning class that ``errors.__all__``
    and ``feature_errors.__all__`` export (docs/api.md lacked HeaderMismatch,
    MissingClientCapability and HandlerResultError)."""
    import re
    from pathlib import Path

    from mcpsync._core import errors, feature_errors

    classes = [
        name
        for module in (errors, feature_errors)
        for name in module.__all__
        if isinstance(getattr(module, name), type)
    ]
    # The doc's tree: the fenced block that starts with "MCPError".
    api = (Path(__file__).resolve().parents[2] / "docs" / "api.md").read_text(encoding="utf-8")
    block = re.search(r"```\nMCPError\n(.*?)```", api, re.S)
    assert block is not None
    for where, tree in (("errors.py", errors.__doc__ or ""), ("docs/api.md", "MCPError\n" + block.group(1))):
        named = set(re.findall(r"(?:[├└]── |^\s*)([A-Z]\w+)", tree, re.M))
        missing = [name for name in classes if name not in named and name != "URLElicitation"]
        assert missing == [], f"{where} does not name {missing}"


def test_feature_errors_are_public_mcp_errors() -> None:
    """Scenario: the errors of MCP's features live in ``_core/feature_errors.py``, apart from the
    roots. Promise: each is an ``MCPError``, exported by ``mcpsync`` under its own name and shown
    as ``mcpsync.X`` (``tests/test_public_api.py`` walks ``errors.__all__`` alone)."""
    import mcpsync
    import mcpsync.errors
    from mcpsync._core import feature_errors

    assert feature_errors.__all__
    for name in feature_errors.__all__:
        kind = getattr(feature_errors, name)
        assert issubclass(kind, mcpsync.MCPError), name
        assert getattr(mcpsync, name) is kind and name in mcpsync.errors.__all__, name
        assert kind.__module__ == "mcpsync", name
