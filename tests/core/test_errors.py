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
