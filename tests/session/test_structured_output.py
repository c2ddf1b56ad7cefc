"""Structured output checked against a tool's outputSchema, which is a server's text: never a reason to fetch."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator

import pytest

import mcpsync
from tests.helpers import scripted_server

T = 20.0


@pytest.fixture
def schema_host() -> Iterator[tuple[str, list[str]]]:
    """A loopback server that records every request it gets (it should get none)."""
    hits: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            hits.append(self.path)
            body = b'{"type": "integer"}'
            self.send_response(200)
            self.send_header("Content-Type", "application/schema+json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", hits
    finally:
        server.shutdown()
        server.server_close()
        thread.join(T)


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
