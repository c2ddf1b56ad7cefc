"""mcpsync.oneshot: one request, no session, the raw envelope back."""

import json

import pytest
import responses

import mcpsync

URL = "http://mcp.test/mcp"


@responses.activate
def test_json_answer_is_returned_raw_including_errors():
    responses.add(responses.POST, URL, json={"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "nope"}})
    envelope = mcpsync.call_mcp(URL, "tools/list", headers={"X-Key": "k"})
    assert envelope["error"]["code"] == -32601
    sent = responses.calls[0].request
    assert json.loads(sent.body) == {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    assert sent.headers["Accept"] == "application/json, text/event-stream"
    assert sent.headers["X-Key"] == "k"


@responses.activate
def test_sse_answer_skips_other_events():
    note = {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "x"}}
    answer = {"jsonrpc": "2.0", "id": 7, "result": {"tools": []}}
    body = f"id: 1\ndata:\n\ndata: {json.dumps(note)}\n\ndata: {json.dumps(answer)}\n\n"
    responses.add(responses.POST, URL, body=body, content_type="text/event-stream")
    assert mcpsync.call_mcp(URL, "tools/list", request_id=7) == answer


@responses.activate
def test_http_errors_raise_with_hints():
    responses.add(responses.POST, URL, status=401, body="login first", headers={"WWW-Authenticate": "Bearer"})
    with pytest.raises(
        mcpsync.HTTPStatusError,
        match=r"HTTP 401 from POST http://mcp.test/mcp: login first \[WWW-Authenticate: Bearer\]",
    ):
        mcpsync.call_mcp(URL, "ping")


@pytest.mark.parametrize(
    "body, error, words",
    [
        ("<html>", mcpsync.InvalidMessage, "not JSON and not an event stream"),
        ("data: {oops\n\n", mcpsync.InvalidMessage, "an event is not JSON"),
        ('data: {"jsonrpc": "2.0", "id": 99, "result": {}}\n\n', mcpsync.NoResponseError, "request ID 1"),
    ],
)
def test_bad_answers_are_typed(body, error, words):
    assert mcpsync.parse_sse('{"a": 1}') == {"a": 1}
    with pytest.raises(error, match=words):
        mcpsync.parse_sse(body, 1)
