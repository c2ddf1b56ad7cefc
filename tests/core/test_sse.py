"""mcpsync._core.sse: the SSE standard's framing and fields, whatever the chunking, with a size bound."""

import pytest

from mcpsync._core.endpoint import Endpoint
from mcpsync._core.sse import OversizedEvent, events, parse_sse_text


def pieces(data: bytes, size: int = 7) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)]


def test_events_follow_the_sse_rules_whatever_the_chunking():
    body = (
        b"retry: 50\nid: a:0\ndata:\n\n"  # a priming event: an id, empty data
        b': a comment\r\nevent: message\r\nid: a:1\r\ndata: {"x": 1}\r\n\r\n'
        b"data: one\ndata:two\n\n"
        b"event: endpoint\ndata: /messages\n\n"
        b"id: a:2\ndata: cut off by the end of the stream"
    )
    for size in (1, 7, len(body)):
        got = [(e.event, e.data, e.id, e.retry) for e in events(pieces(body, size))]
        assert got == [
            ("message", "", "a:0", 50),
            ("message", '{"x": 1}', "a:1", None),
            ("message", "one\ntwo", None, None),
            ("endpoint", "/messages", None, None),
        ], "the last event has no blank line after it: neither it nor its id counts"


def test_a_whole_body_keeps_its_last_event_without_a_blank_line():
    assert [e.data for e in parse_sse_text("event: message\ndata: {}\n")] == ["{}"]


def test_an_event_over_the_limit_is_reported_when_it_begins_and_when_it_ends():
    data = b'{"result":{"t":"' + b"x" * 5000 + b'"},"jsonrpc":"2.0","id":7}'
    body = b"id: big\ndata: " + data + b"\nretry: 9\n\ndata: after\n\n"
    got = list(events(pieces(body, 512), max_size=1000))
    assert [e.data for e in got] == ["", "", "after"]
    began, ended = got[0].oversized, got[1].oversized
    assert isinstance(began, OversizedEvent) and isinstance(ended, OversizedEvent)
    assert not began.complete and began.head.startswith(b'{"result":{"t":"xxx')
    assert ended.complete and ended.size == len(body) - len(b"\ndata: after\n\n")  # its lines, newlines included
    assert ended.tail.endswith(b'"jsonrpc":"2.0","id":7}'), "fields after the data are cut off"
    assert Endpoint._oversized_owner(ended.head, ended.tail, None) == 7


@pytest.mark.parametrize("end", [b"\n", b"\r", b"\r\n"], ids=["LF", "CR", "CRLF"])
def test_lines_may_end_with_cr_lf_or_crlf(end):
    """The standard allows all three; a parser that splits on LF only sees no event in a CR stream."""
    body = end.join([b"event: message", b"id: 1", b"data: a", b"data: b", b"", b"data: second", b"", b""])
    for size in (1, 2, 3, len(body)):
        got = [(e.data, e.id) for e in events(pieces(body, size))]
        assert got == [("a\nb", "1"), ("second", None)], (end, size)


def test_the_example_of_the_issue_gives_its_event():
    assert [e.data for e in events([b"data: a\r\r"])] == ["a"]


def test_a_crlf_split_between_two_chunks_is_one_line_end():
    """CR at the end of one chunk, LF at the start of the next: one line end, not a blank line."""
    got = [e.data for e in events([b"data: a\r", b"\ndata: b\r", b"\n\r\n"])]
    assert got == ["a\nb"]


def test_fields_follow_the_standard():
    body = (
        b"data:no space\n"
        b"data:  two spaces\n"  # only one space is taken away
        b"data\n"  # a field without a colon: the whole line is its name, the value empty
        b": a comment\n"
        b"unknown: ignored\n"
        b"retry: 12x\n"  # not all digits: ignored
        b"id: has\0nul\n"  # a NUL: ignored
        b"\n"
    )
    (event,) = events([body])
    assert event.data == "no space\n two spaces\n" and event.id is None and event.retry is None


def test_an_id_or_retry_without_data_is_still_told_but_nothing_else_is():
    """The last event id and the retry interval change without data; an empty block says nothing."""
    got = [(e.data, e.id, e.retry) for e in events([b"id: 7\n\nretry: 3000\n\n\n\n: only a comment\n\n"])]
    assert got == [("", "7", None), ("", None, 3000)]


def test_a_long_line_made_of_many_crs_and_lfs_costs_linear_time():
    """Each line end is looked for once: 200k short lines in one chunk parse quickly."""
    body = b"data: x\r\n" * 100_000 + b"\r\n"
    (event,) = events([body])
    assert event.data.count("x") == 100_000


@pytest.mark.parametrize("end", [b"\n", b"\r", b"\r\n"], ids=["LF", "CR", "CRLF"])
def test_a_long_line_cut_out_of_the_buffer_leaves_the_lines_after_it_whole(end):
    """A line past ``RELEASE_BYTES`` is cut out of the read buffer before it is handed on: the
    lines after it in the same read, its line end split between reads, and multi-byte characters
    come out the same for every chunking."""
    from mcpsync._core.sse import RELEASE_BYTES

    long = "é😀" * RELEASE_BYTES
    body = end.join([b"id: 1", b"data: " + long.encode(), b"data: b", b"", b"data: second", b"", b""])
    for size in (4096, RELEASE_BYTES + 1, len(body) - 3, len(body)):
        got = [(e.data, e.id) for e in events(pieces(body, size))]
        assert got == [(long + "\nb", "1"), ("second", None)], (end, size)
