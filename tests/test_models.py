"""mcpsync.models: typed views keep the raw dict and refuse malformed input clearly."""

import pytest

import mcpsync
from mcpsync.models import CallToolResult, ServerInfo, Tool


def test_tool_from_dict_keeps_raw_and_optional_fields():
    raw = {"name": "t", "inputSchema": {"type": "object"}, "title": "T", "annotations": {"readOnlyHint": True}, "x": 1}
    tool = Tool.from_dict(raw)
    assert (tool.name, tool.title, tool.description, tool.output_schema) == ("t", "T", None, None)
    assert tool.annotations == {"readOnlyHint": True}
    assert tool.raw["x"] == 1


@pytest.mark.parametrize(
    "raw, words",
    [
        ({"inputSchema": {}}, "'name' must be a str"),
        ({"name": "t"}, "'inputSchema' must be a Mapping"),
        ({"name": "t", "inputSchema": {}, "description": 5}, "'description' must be a str"),
        ("tool", "expected an object"),
    ],
)
def test_bad_tools_are_protocol_errors(raw, words):
    with pytest.raises(mcpsync.ProtocolError, match=words):
        Tool.from_dict(raw)


def test_call_tool_result_text_joins_only_text_blocks():
    result = CallToolResult.from_dict(
        {
            "content": [
                {"type": "text", "text": "a"},
                {"type": "image", "data": "", "mimeType": "image/png"},
                {"type": "text", "text": "b"},
            ]
        }
    )
    assert result.text == "a\nb" and not result.is_error and result.structured_content is None


@pytest.mark.parametrize(
    "raw, words",
    [
        ({"content": "x"}, "'content' must be a list of objects"),
        ({"content": [], "isError": "yes"}, "'isError' must be a boolean"),
        ({"content": [], "structuredContent": [1]}, "'structuredContent' must be a dict"),
    ],
)
def test_bad_results_are_protocol_errors(raw, words):
    with pytest.raises(mcpsync.ProtocolError, match=words):
        CallToolResult.from_dict(raw, "t")


def test_raise_for_error_without_text():
    result = CallToolResult.from_dict({"content": [], "isError": True}, "quiet")
    with pytest.raises(mcpsync.ToolError, match="tool 'quiet' failed: no text given"):
        result.raise_for_error()


def test_server_info_tolerates_a_missing_version():
    assert ServerInfo.from_dict({"name": "s"}).version == ""
    with pytest.raises(mcpsync.ProtocolError, match="serverInfo"):
        ServerInfo.from_dict(None)
