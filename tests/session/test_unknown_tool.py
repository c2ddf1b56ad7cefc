"""A mistyped tool name: once the client holds the server's tool list, the call raises
``UnknownNameError`` naming the closest tools, whatever way the server said no (the isError way
is proven against the official SDK in tests/interop/test_official_stdio.py)."""

from __future__ import annotations

from typing import Any

import pytest

import mcpsync
from mcpsync import CallToolResult

pytestmark = pytest.mark.usefixtures("server_in_thread")

T = 20


def test_an_unlisted_name_answered_with_an_error_raises_unknown_name_with_the_closest(client: Any) -> None:
    """The bundled server answers -32602; with the list held, the error names 'echo' and quotes the server."""
    client.list_tools()
    with pytest.raises(mcpsync.UnknownNameError) as info:
        client.call_tool("ecko", {"text": "x"}, timeout=T)
    text = str(info.value)
    assert "server 'test-server' lists no tool named 'ecko'; did you mean 'echo'" in text
    assert "Unknown tool: ecko" in text  # the server's own words
    assert isinstance(info.value.__cause__, mcpsync.ServerError) and info.value.__cause__.code == -32602


def test_without_a_held_list_the_servers_error_is_raised_as_it_came(test_server_command: list[str]) -> None:
    """Nothing listed yet (a legacy-era call needs no listing): the client cannot tell a typo, and
    says only what the server said."""
    with mcpsync.connect(test_server_command, protocol="legacy", timeout=T) as client:
        with pytest.raises(mcpsync.ServerError, match="Unknown tool: ecko"):
            client.call_tool("ecko", timeout=T)


def test_a_failed_results_repr_shows_the_start_of_what_went_wrong() -> None:
    """The error's first words, past the 40 characters other text blocks get."""
    words = "Error executing tool get_sum: Unknown tool: get_sum (tools: get-sum, get-product)"
    result = CallToolResult.from_dict({"content": [{"type": "text", "text": words}], "isError": True}, "get_sum")
    assert repr(result) == f"<CallToolResult 'get_sum' error: text {words!r}>"
