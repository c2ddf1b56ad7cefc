"""The 2026-07-28 revision's request metadata and HTTP headers, as pure functions."""

from __future__ import annotations

import pytest

from mcpsync import TransportError
from mcpsync._core.eras import (
    header_problems,
    header_value,
    http_headers,
    is_modern_error,
    name_header_problem,
    request_meta,
    result_type,
    with_meta,
)


@pytest.mark.parametrize(
    "value, header",
    [
        ("us-west1", "us-west1"),
        ("Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="),
        (" padded ", "=?base64?IHBhZGRlZCA=?="),
        ("line1\nline2", "=?base64?bGluZTEKbGluZTI=?="),
        ("tab\there", "=?base64?dGFiCWhlcmU=?="),
        ("=?base64?abc?=", "=?base64?PT9iYXNlNjQ/YWJjPz0=?="),  # looks like the sentinel: encoded too
        (42, "42"),
        (-7, "-7"),
        (True, "true"),
        (False, "false"),
    ],
)
def test_header_values_follow_the_specs_encoding_table(value, header):
    assert header_value(value) == header


def test_standard_headers_name_the_method_and_the_tool_prompt_or_resource():
    assert http_headers("2026-07-28", "tools/call", {"name": "get_weather"}) == {
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "tools/call",
        "Mcp-Name": "get_weather",
    }
    assert http_headers("2026-07-28", "resources/read", {"uri": "file:///a b"})["Mcp-Name"] == "file:///a b"
    assert http_headers("2026-07-28", "prompts/get", {"name": "größe"})["Mcp-Name"].startswith("=?base64?")
    assert "Mcp-Name" not in http_headers("2026-07-28", "tools/list", None)


def test_the_meta_goes_with_what_the_caller_put_in_meta():
    meta = request_meta("2026-07-28", {"roots": {}}, {"name": "c", "version": "1"})
    params = with_meta({"name": "t", "_meta": {"progressToken": "p"}}, meta)
    assert params["_meta"]["progressToken"] == "p"
    assert params["_meta"]["io.modelcontextprotocol/protocolVersion"] == "2026-07-28"
    assert params["_meta"]["io.modelcontextprotocol/clientCapabilities"] == {"roots": {}}
    assert with_meta(None, meta) == {"_meta": meta}


def test_only_the_modern_errors_mark_a_modern_server_and_a_result_without_type_is_complete():
    assert [is_modern_error(c) for c in (-32020, -32021, -32022, -32601, -32602, None)] == [True] * 3 + [False] * 3
    assert result_type({}) == "complete" and result_type({"resultType": "input_required"}) == "input_required"


def test_the_eras_own_meta_keys_win_over_the_callers():
    """A caller's _meta that names the era's own keys cannot make the body disagree with the headers."""
    meta = request_meta("2026-07-28", {}, {"name": "c", "version": "1"})
    params = with_meta({"_meta": {"io.modelcontextprotocol/protocolVersion": "1999-01-01", "trace": "t"}}, meta)
    assert params["_meta"]["io.modelcontextprotocol/protocolVersion"] == "2026-07-28"
    assert params["_meta"]["trace"] == "t"


class _FoldingInt(int):
    def __str__(self) -> str:
        return "1\r\n X-Injected: x"


class _FoldingText(str):
    def __str__(self) -> str:
        return "a\r\n X-Injected: x"


class _FoldingFloat(float):
    def __str__(self) -> str:
        return "1.5\r\n X-Injected: x"


class _Other:
    def __str__(self) -> str:
        return "o\r\n X-Injected: x"


@pytest.mark.parametrize(
    ("value", "header"),
    [
        (_FoldingInt(1), "1"),
        (_FoldingText("a"), "a"),
        (_FoldingFloat(1.5), "1.5"),
        (_Other(), "=?base64?bw0KIFgtSW5qZWN0ZWQ6IHg=?="),
        ("e\n", "=?base64?ZQo=?="),
        ("=?base64?x?=\n", "=?base64?PT9iYXNlNjQ/eD89Cg==?="),
    ],
)
def test_a_header_value_is_its_final_text_checked_whatever_its_type(value, header):
    """An ``int``, ``float`` or ``str`` subclass whose ``__str__`` folds a header line is sent as the
    body's JSON holds it; any other object's text is checked like a string's; a final newline is no
    plain text (``$`` would have let it through)."""
    assert header_value(value) == header


def test_a_lone_surrogate_cannot_travel_as_a_header_and_says_so():
    """JSON can carry a lone surrogate; UTF-8, and so the base64 form, cannot: a typed error."""
    with pytest.raises(TransportError, match="cannot travel in an HTTP header"):
        header_value("lone\ud800")
    assert "lone surrogate" in (name_header_problem("lone\ud800") or "")
    assert "over the 8192" in (name_header_problem("n" * 9000) or "")
    assert name_header_problem("e\n") is None


def test_an_x_mcp_header_name_with_a_final_newline_breaks_the_rules():
    """``Q\\n`` is no RFC 9110 token: ``$`` matched before the newline, ``fullmatch`` does not."""
    schema = {"properties": {"q": {"type": "string", "x-mcp-header": "Q\n"}}}
    assert any("characters a header name cannot have" in p for p in header_problems(schema))
