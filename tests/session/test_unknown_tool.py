"""A mistyped tool name: the call raises ``UnknownNameError`` naming the closest tools, whatever way
the server said no and whether or not the tools were listed first (the isError way is proven
against the official SDK in tests/interop/test_official_stdio.py)."""

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


def test_without_a_held_list_a_typo_lists_the_tools_once_and_is_the_same_error(
    test_server_command: list[str], tmp_path
) -> None:
    """Issue 37, point 8: nothing listed yet (a legacy-era call needs no listing): the failed call
    lists the tools once, and the typo is the same ``UnknownNameError`` as with the list held; a
    second typo needs no second listing."""
    with mcpsync.connect(test_server_command, protocol="legacy", timeout=T) as client:
        with pytest.raises(mcpsync.UnknownNameError, match="lists no tool named 'ecko'; did you mean 'echo'"):
            client.call_tool("ecko", timeout=T)
        sent = client.stats.sent
        with pytest.raises(mcpsync.UnknownNameError):
            client.call_tool("ecko", timeout=T)
        assert client.stats.sent == sent + 1  # the call alone


def test_a_real_tools_error_result_is_still_a_result_after_the_listing() -> None:
    """An ``isError`` result of a tool the server lists: listed once to decide, then the result as it came."""
    from tests.helpers import scripted_server

    failed = {"content": [{"type": "text", "text": "disk full"}], "isError": True}
    script = {"tools/list": [{"tools": [{"name": "save", "inputSchema": {"type": "object"}}]}], "tools/call": [failed]}
    with mcpsync.connect(scripted_server(script), protocol="legacy", timeout=T) as client:
        result = client.call_tool("save", timeout=T)
        assert result.is_error and result.text == "disk full"


def test_a_server_whose_listing_fails_keeps_its_answer() -> None:
    """The listing refused (-32601): the server's own answer, as before; never an error of the listing."""
    from tests.helpers import scripted_server

    failed = {"content": [{"type": "text", "text": "Unknown tool: ecko"}], "isError": True}
    with mcpsync.connect(scripted_server({"tools/call": [failed]}), protocol="legacy", timeout=T) as client:
        assert client.call_tool("ecko", timeout=T).text == "Unknown tool: ecko"


def test_a_failed_results_repr_shows_the_start_of_what_went_wrong() -> None:
    """The error's first words, past the 40 characters other text blocks get."""
    words = "Error executing tool get_sum: Unknown tool: get_sum (tools: get-sum, get-product)"
    result = CallToolResult.from_dict({"content": [{"type": "text", "text": words}], "isError": True}, "get_sum")
    assert repr(result) == f"<CallToolResult 'get_sum' error: text {words!r}>"
