"""Structured output checked against a tool's outputSchema, which is a server's text: never a reason to fetch."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import mcpsync
from tests.helpers import LocalService, scripted_server, served

pytestmark = pytest.mark.usefixtures("server_in_thread")

T = 20.0


@pytest.fixture
def schema_host() -> Iterator[tuple[str, list[str]]]:
    """A loopback server that records every request it gets (it should get none)."""
    with served(LocalService(b'{"type": "integer"}', "application/schema+json")) as service:
        yield f"http://127.0.0.1:{service.port}", service.seen


def tool_with(output_schema: dict) -> dict:
    return {"tools": [{"name": "t", "inputSchema": {"type": "object"}, "outputSchema": output_schema}]}


def answer(structured: object) -> dict:
    return {"content": [{"type": "text", "text": "x"}], "structuredContent": structured}


def test_a_ref_outside_the_schema_is_an_error_and_nothing_is_fetched(schema_host):
    base, hits = schema_host
    schema = {"type": "object", "properties": {"n": {"$ref": f"{base}/n.json"}}}
    script = {"tools/list": [tool_with(schema)], "tools/call": [answer({"n": 1})]}
    with mcpsync.connect(scripted_server(script), timeout=T) as client:
        with pytest.raises(mcpsync.OutputSchemaError, match=r"refers to 'http://127\.0\.0\.1:\d+/n\.json', outside"):
            client.call_tool("t", timeout=T)
        assert client.list_tools(timeout=T)[0].output_schema == schema, "kept exactly as sent"
    assert hits == [], "the client fetched a server's $ref"


def test_refs_inside_the_schema_and_its_keywords_work_and_the_schema_is_kept_as_sent():
    """2020-12 keywords ($defs, $anchor, allOf, if/then/else, additionalProperties), no $schema: 2020-12."""
    schema = {
        "type": "object",
        "$defs": {"count": {"$anchor": "count", "type": "integer", "minimum": 0}},
        "properties": {"n": {"$ref": "#/$defs/count"}, "m": {"$ref": "#count"}, "kind": {"enum": ["a", "b"]}},
        "allOf": [{"required": ["n"]}],
        "if": {"properties": {"kind": {"const": "a"}}},
        "then": {"required": ["m"]},
        "else": {"not": {"required": ["m"]}},
        "additionalProperties": False,
    }
    script = {
        "tools/list": [tool_with(schema)],
        "tools/call": [
            answer({"n": 1, "kind": "a", "m": 2}),
            answer({"n": -1, "kind": "b"}),
            answer({"n": 1, "kind": "b", "x": 0}),
        ],
    }
    with mcpsync.connect(scripted_server(script), timeout=T) as client:
        assert client.call_tool("t", timeout=T).structured_content == {"n": 1, "kind": "a", "m": 2}
        with pytest.raises(mcpsync.OutputSchemaError, match="minimum"):
            client.call_tool("t", timeout=T)
        with pytest.raises(mcpsync.OutputSchemaError, match="Additional properties"):
            client.call_tool("t", timeout=T)
        assert client.tools[0].output_schema == schema


def test_structured_content_nested_past_the_stack_is_an_error_not_a_recursion_error():
    """jsonschema walks a value recursively; a value a server nests 900 deep must not crash call_tool."""
    deep: object = 1
    for _ in range(900):
        deep = {"a": deep}
    schema = {"type": "object", "properties": {"a": {"$ref": "#"}}}
    script = {"tools/list": [tool_with(schema)], "tools/call": [answer(deep)], "ping": [{}]}
    with mcpsync.connect(scripted_server(script), timeout=T) as client:
        with pytest.raises(mcpsync.OutputSchemaError, match="nested too deeply"):
            client.call_tool("t", timeout=T)
        assert client.ping(timeout=T) is None


# -- structuredContent is any JSON value (2026-07-28 server/tools.mdx) ---------------------------------


def test_the_test_servers_array_and_number_are_typed_and_checked_in_the_modern_era():
    """The bundled server's ``users`` (an array) and ``word_count`` (an integer), 2026-07-28: the unfixed
    client refused both with a ProtocolError ('structuredContent' must be a dict). In the legacy era the
    server sends them as ``{"result": ...}``."""
    from mcpsync.testing import server_command

    with mcpsync.connect(server_command(), protocol="modern", timeout=T) as client:
        users = client.call_tool("users", timeout=T)
        assert users.structured_content == [{"id": "1", "name": "Alice"}, {"id": "2", "name": "Bob"}]
        assert client.call_tool("word_count", {"text": "one two three"}, timeout=T).structured_content == 3
    with mcpsync.connect(server_command(), protocol="legacy", timeout=T) as client:
        # 2025-11-25's outputSchema is an object: the server wraps the value, as the official SDKs do.
        tools = {tool.name: tool for tool in client.list_tools(timeout=T)}
        assert tools["word_count"].output_schema["properties"]["result"] == {"type": "integer", "minimum": 0}
        assert client.call_tool("word_count", {"text": "one two"}, timeout=T).structured_content == {"result": 2}


@pytest.mark.parametrize(
    "structured, error",
    [
        ([1, 2, 3], None),
        ([1, "two"], r"'two' is not of type 'integer' \(at \$\[1\]\)"),
        ({"n": 1}, r"is not of type 'array' \(at \$\)"),
    ],
)
def test_an_array_is_checked_against_an_array_output_schema(structured, error):
    """A legacy server (the client is liberal: 2025-11-25 says object, but an array is unambiguous) whose
    tool declares an array of integers: a match is typed, a mismatch names where it breaks."""
    script = {
        "tools/list": [tool_with({"type": "array", "items": {"type": "integer"}})],
        "tools/call": [answer(structured)],
    }
    with mcpsync.connect(scripted_server(script), timeout=T) as client:
        if error is None:
            assert client.call_tool("t", timeout=T).structured_content == structured
        else:
            with pytest.raises(mcpsync.OutputSchemaError, match=error):
                client.call_tool("t", timeout=T)


@pytest.mark.parametrize("value", ["text", 2.5, True, False, 0, ""])
def test_scalars_are_structured_content_too(value):
    """A string, a number, a boolean (falsy ones included): kept as sent, typed by ``has_structured_content``."""
    script = {"tools/list": [{"tools": []}], "tools/call": [answer(value)]}
    with mcpsync.connect(scripted_server(script), timeout=T) as client:
        result = client.call_tool("t", timeout=T)
    assert result.structured_content == value and type(result.structured_content) is type(value)
    assert result.has_structured_content


def test_null_structured_content_is_told_from_none_at_all():
    """``structuredContent: null`` is a value (a schema of type null accepts it); absent is none (a tool with
    an outputSchema must send one). The unfixed client took null for absent and refused it."""
    script = {
        "tools/list": [tool_with({"type": "null"})],
        "tools/call": [answer(None), {"content": [{"type": "text", "text": "x"}]}],
    }
    with mcpsync.connect(scripted_server(script), timeout=T) as client:
        null = client.call_tool("t", timeout=T)
        assert null.structured_content is None and null.has_structured_content
        assert "structured null" in repr(null)
        with pytest.raises(mcpsync.OutputSchemaError, match="sent no structuredContent"):
            client.call_tool("t", timeout=T)
    absent = mcpsync.CallToolResult.from_dict({"content": []})
    assert absent.structured_content is None and not absent.has_structured_content
