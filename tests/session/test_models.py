"""mcpsync.models: typed views keep the raw dict and refuse malformed input clearly."""

import pytest

import mcpsync
from mcpsync._session import models
from mcpsync._session.models import CallToolResult, ServerInfo, Tool


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


def test_content_blocks_are_typed_and_keep_their_raw_dict():
    import base64

    png = base64.b64encode(b"\x89PNG").decode()
    raw = {
        "content": [
            {"type": "text", "text": "hi", "annotations": {"audience": ["user"]}},
            {"type": "image", "data": png, "mimeType": "image/png"},
            {"type": "audio", "data": png, "mimeType": "audio/wav", "_meta": {"k": 1}},
            {"type": "resource_link", "uri": "file:///a", "name": "a", "size": 3},
            {"type": "resource", "resource": {"uri": "file:///b", "text": "embedded"}},
            {"type": "hologram", "beam": 1},
        ]
    }
    text, image, audio, link, embedded, unknown = CallToolResult.from_dict(raw, "t").content
    assert text == mcpsync.TextContent("hi", annotations={"audience": ["user"]}) and text.type == "text"
    assert isinstance(image, mcpsync.ImageContent) and image.data == b"\x89PNG" and image.mime_type == "image/png"
    assert isinstance(audio, mcpsync.AudioContent) and not isinstance(audio, mcpsync.ImageContent)
    assert audio.meta == {"k": 1} and audio.type == "audio"
    assert (link.uri, link.name, link.size, link.type) == ("file:///a", "a", 3, "resource_link")
    assert embedded.resource.text == "embedded" and embedded.type == "resource"
    assert unknown.type == "hologram" and unknown.raw["beam"] == 1
    assert image.raw is raw["content"][1]


@pytest.mark.parametrize(
    "block, words",
    [
        ({"type": "text"}, "'text' must be a str"),
        ({"type": "image", "data": "x"}, "'mimeType' must be a str"),
        ({"text": "no type"}, "'type' must be a str"),
        ({"type": "resource", "resource": {"uri": "u"}}, "exactly one of 'text' and 'blob'"),
    ],
)
def test_bad_content_blocks_name_their_place(block, words):
    with pytest.raises(mcpsync.ProtocolError, match=words) as info:
        CallToolResult.from_dict({"content": [{"type": "text", "text": "ok"}, block]}, "t")
    assert "content #1" in str(info.value)


def test_broken_base64_is_a_protocol_error():
    image = CallToolResult.from_dict({"content": [{"type": "image", "data": "***", "mimeType": "x"}]}).content[0]
    with pytest.raises(mcpsync.ProtocolError, match="not valid base64"):
        _ = image.data


def test_prompt_messages_have_typed_content():
    from mcpsync._session.models import GetPromptResult

    result = GetPromptResult.from_dict(
        {
            "messages": [
                {"role": "user", "content": {"type": "text", "text": "look"}},
                {"role": "user", "content": {"type": "image", "data": "AAAA", "mimeType": "image/png"}},
            ]
        },
        "p",
    )
    first, second = result.messages
    assert first.text == "look" and isinstance(first.content, mcpsync.TextContent)
    assert second.text is None and isinstance(second.content, mcpsync.ImageContent)
    with pytest.raises(mcpsync.ProtocolError, match="message #0 content"):
        GetPromptResult.from_dict({"messages": [{"role": "user", "content": {"type": "text"}}]}, "p")


def test_results_and_transports_print_as_short_as_tools_do():
    resource = models.Resource.from_dict(
        {"uri": "file:///a.txt", "name": "a", "mimeType": "text/plain", "description": "Some text.\nMore."}
    )
    assert repr(resource) == "<Resource 'file:///a.txt' text/plain: Some text.>"
    template = models.ResourceTemplate.from_dict({"uriTemplate": "file:///{path}", "name": "files"})
    assert repr(template) == "<ResourceTemplate 'file:///{path}'>"
    read = models.ReadResourceResult.from_dict({"contents": [{"uri": "file:///a.txt", "text": "x" * 100}]})
    assert repr(read) == f"<ReadResourceResult 'file:///a.txt' text: {'x' * 37 + '...'!r}>"
    several = models.ReadResourceResult.from_dict({"contents": [{"uri": f"u{n}", "blob": ""} for n in range(5)]})
    assert repr(several) == "<ReadResourceResult 5 contents: 'u0', 'u1', 'u2'>"
    prompt = models.GetPromptResult.from_dict(
        {
            "messages": [
                {"role": "user", "content": {"type": "text", "text": "Hi"}},
                {"role": "assistant", "content": {"type": "image", "data": "", "mimeType": "image/png"}},
            ]
        }
    )
    assert repr(prompt) == "<GetPromptResult 2 messages: user: 'Hi', ...>"
    assert repr(prompt.messages[1]) == "<PromptMessage assistant: <image>>"
    assert str(models.ServerInfo.from_dict({"name": "bare"})) == "bare"  # no version: no trailing space
    assert str(models.ServerInfo.from_dict({"name": "s", "version": "1.2"})) == "s 1.2"


def test_a_stdio_transport_prints_its_command_without_the_long_path():
    transport = mcpsync.StdioTransport("/very/long/path/to/bin/python3", ["-m", "server"], name="srv")
    assert repr(transport) == "<StdioTransport 'srv' python3 -m server unopened>"


@pytest.mark.parametrize(
    "block, words",
    [
        ({"type": "text"}, "'text' must be a str"),
        ({"type": "text", "text": 3}, "'text' must be a str"),
        ({"type": "text", "text": "x", "annotations": "loud"}, "'annotations' must be a Mapping"),
        ({"text": "no type"}, "'type' must be a str"),
    ],
)
def test_a_lone_bad_block_names_its_place_as_any_other(block, words):
    """A result of one block (the usual shape, read by a shorter path) that is wrong says where, as with more."""
    with pytest.raises(mcpsync.ProtocolError, match=words) as info:
        CallToolResult.from_dict({"content": [block]}, "t")
    assert "tools/call 't' result content #0" in str(info.value)


def test_a_plain_text_result_is_what_its_fields_make():
    """The usual result (one text block, nothing else) is, field by field, what the constructors make of it;
    a block with annotations or _meta, or a result with a _meta that is no object, is read in full."""
    block = {"type": "text", "text": "hi"}
    raw = {"content": [block]}
    made = CallToolResult.from_dict(raw, "echo")
    built = CallToolResult(content=[models.TextContent("hi", raw=block)], tool_name="echo", raw=raw)
    assert vars(made) == vars(built) and vars(made.content[0]) == vars(built.content[0])
    assert made == built and repr(made) == repr(built) and made.text == "hi"
    noted = CallToolResult.from_dict({"content": [{**block, "_meta": {"k": 1}}], "_meta": {"m": 2}}, "echo")
    assert noted.content[0].meta == {"k": 1} and noted.meta == {"m": 2}
    with pytest.raises(mcpsync.ProtocolError, match="'_meta' must be a dict"):
        CallToolResult.from_dict({"content": [block], "_meta": [1]}, "echo")


def test_a_subclass_of_the_result_is_made_by_its_own_init():
    """from_dict on a subclass goes through the subclass's __init__ (only CallToolResult itself is made
    from its fields' dict)."""
    seen = []

    class Noted(CallToolResult):
        def __init__(self, **fields):
            seen.append(sorted(fields))
            super().__init__(**fields)

    result = Noted.from_dict({"content": [{"type": "text", "text": "x"}]}, "t")
    assert type(result) is Noted and result.text == "x"
    assert seen == [["content", "is_error", "meta", "origin", "raw", "structured_content", "tool_name"]]
