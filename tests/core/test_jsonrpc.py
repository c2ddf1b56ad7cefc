"""mcpsync._core.jsonrpc: building, classifying, encoding, decoding; no I/O."""

import json

import pytest

from mcpsync._core import jsonrpc
from mcpsync._core.jsonrpc import ErrorCode, Kind


def test_request_and_notification_leave_out_absent_params():
    assert jsonrpc.request(1, "ping") == {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    assert jsonrpc.request(2, "tools/list", {"cursor": "x"})["params"] == {"cursor": "x"}
    assert jsonrpc.notification("notifications/initialized") == {
        "jsonrpc": "2.0",
        "method": "notifications/initialized",
    }


def test_error_response_carries_code_message_and_optional_data():
    response = jsonrpc.error_response(7, ErrorCode.METHOD_NOT_FOUND, "nope")
    assert response == {"jsonrpc": "2.0", "id": 7, "error": {"code": -32601, "message": "nope"}}
    assert type(response["error"]["code"]) is int  # not the IntEnum: it must encode as a number
    with_data = jsonrpc.error_object(-32602, "bad", {"field": "a"})
    assert with_data["data"] == {"field": "a"}


@pytest.mark.parametrize(
    "message, kind",
    [
        ({"jsonrpc": "2.0", "id": 1, "method": "x"}, Kind.REQUEST),
        ({"jsonrpc": "2.0", "method": "x"}, Kind.NOTIFICATION),
        ({"jsonrpc": "2.0", "id": 1, "result": {}}, Kind.SUCCESS),
        ({"jsonrpc": "2.0", "id": 1, "error": {"code": 1, "message": "m"}}, Kind.ERROR),
    ],
)
def test_classify(message, kind):
    assert jsonrpc.classify(message) is kind


def test_encode_is_one_compact_line_even_with_newlines_in_strings():
    data = jsonrpc.encode(jsonrpc.request(1, "echo", {"text": "a\nb\r\nc", "uni": "ü€"}))
    assert data.endswith(b"\n") and data.count(b"\n") == 1
    assert b" " not in data.replace(b"ping", b"")  # compact separators
    assert json.loads(data) == {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "echo",
        "params": {"text": "a\nb\r\nc", "uni": "ü€"},
    }
    assert "ü€".encode() in data  # UTF-8, not \\u escapes


def test_encode_refuses_nan_before_anything_is_written():
    with pytest.raises(ValueError):
        jsonrpc.encode(jsonrpc.request(1, "x", {"n": float("nan")}))


def test_decode_rejects_invalid_json_and_utf8():
    assert jsonrpc.decode(b'{"a": 1}\n') == {"a": 1}
    with pytest.raises(ValueError):
        jsonrpc.decode(b"{nope")
    with pytest.raises(ValueError):
        jsonrpc.decode(b'"\xff\xfe"')
    for constant in (b"NaN", b"Infinity", b"-Infinity"):
        with pytest.raises(ValueError, match="is not JSON"):
            jsonrpc.decode(b'{"x": ' + constant + b"}")


@pytest.mark.parametrize(
    "raw, key",
    [(5, 5), (5.0, 5), ("5", 5), ("0", 0), ("abc", "abc"), (5.5, 5.5), ("-1", "-1"), ("٣", "٣"), ("01", "01")],
)
def test_response_key_maps_integer_like_ids_to_int(raw, key):
    assert jsonrpc.response_key(raw) == key
    assert type(jsonrpc.response_key(raw)) is type(key)


def test_response_key_never_turns_bool_into_int():
    assert jsonrpc.response_key(True) is True


def test_decode_takes_json_white_space_around_a_message_and_nothing_else():
    """The decoder's scanner is called directly when nothing surrounds the message (issue 24): white
    space around it is still JSON's (space, tab, CR, LF) and read as before, anything else after it
    is "Extra data", and a text that starts with no value is still refused in the decoder's words."""
    for text in ('{"a":1}', ' {"a":1}', '{"a":1}\r', '\t{"a":1} \r\n', b'{"a":1}\r'):
        assert jsonrpc.decode(text) == {"a": 1}, text
    for text in ('{"a":1}\u00a0', '{"a":1} x', '{"a":1}{}'):
        with pytest.raises(ValueError, match="Extra data"):
            jsonrpc.decode(text)
    with pytest.raises(ValueError, match="Expecting value"):
        jsonrpc.decode("")
    with pytest.raises(ValueError, match="nested too deeply"):
        jsonrpc.decode("[" * 100_000 + "]" * 100_000)


@pytest.mark.parametrize("text", ["plain", 'quote " backslash \\ newline \n tab \t nul \x00', "ünïcödé ✓ 𝄞 " * 3])
def test_a_large_string_encodes_byte_for_byte_as_the_plain_one(monkeypatch, text):
    monkeypatch.setattr(jsonrpc, "SLICE", 4)  # slices cut escapes, multi-byte characters and pairs at every place
    message = jsonrpc.request(3, "tools/call", {"name": "t", "requestState": text, "more": [text, {"x": text}]})
    spliced = {**message, "params": {**message["params"], "requestState": jsonrpc.LargeString(text)}}
    spliced["params"]["more"] = [jsonrpc.LargeString(text), {"x": jsonrpc.LargeString(text)}]
    data = jsonrpc.encode(spliced)
    assert type(data) is bytearray
    assert bytes(data) == jsonrpc.encode(message)
    assert json.loads(data) == message


def test_sent_in_slices_wraps_only_large_strings():
    assert jsonrpc.sent_in_slices("small") == "small"
    assert jsonrpc.sent_in_slices(7) == 7
    large = "s" * jsonrpc.SLICE
    assert jsonrpc.sent_in_slices(large).text is large


def test_a_large_string_is_never_copied_whole_while_it_is_encoded():
    import tracemalloc

    size = 8 * jsonrpc.SLICE
    state = "s" * size
    message = jsonrpc.request(1, "tools/call", {"name": "t", "requestState": jsonrpc.LargeString(state)})
    tracemalloc.start()
    try:
        data = jsonrpc.encode(message)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(data) > size
    assert peak < size + 4 * jsonrpc.SLICE  # the buffer and a slice in its copies; the plain way: 2x the size more
    with pytest.raises(TypeError, match="object"):
        jsonrpc.encode({"x": object()})  # any other value still refused, as before
