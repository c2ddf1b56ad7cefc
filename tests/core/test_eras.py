"""The 2026-07-28 revision's request metadata and HTTP headers, as pure functions."""

from __future__ import annotations

import pytest

from mcpsync._core.eras import header_value, http_headers, is_modern_error, request_meta, result_type, with_meta


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
