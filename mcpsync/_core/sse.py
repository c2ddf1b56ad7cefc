"""Server-sent events: parsing a byte stream into events, as the SSE specification says.

The stream is cut into lines as chunks arrive and the lines into events at
each blank line; every byte is copied a bounded number of times, so a 50 MB
event costs what its size does, not its size times its number of chunks.
Each whole event's fields are then read by ``sseclient-py``.
An event cut off by the end of the stream is not dispatched (the spec says
so), and neither is its ``id``: a client that resumes must ask for it again.

With ``max_size``, an event larger than that is not kept: ``events`` yields
a stand-in carrying an ``OversizedEvent`` when the limit is crossed and again
once the event has gone by, with what its first and last bytes show, and
reads on.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Optional

import sseclient

__all__ = ["OversizedEvent", "ServerSentEvent", "complete_lines", "events", "parse_sse_text"]

#: Bytes of an oversized event's data kept at its start and at its end.
EDGE_BYTES = 4096
_FIELD_LINES = (b"id:", b"event:", b"retry:", b":")


@dataclass(frozen=True)
class OversizedEvent:
    """An event over the size limit, dropped unread.

    Attributes:
        size: its bytes so far (all of them once ``complete``).
        head: the first bytes of its data.
        tail: the last bytes of its data (once ``complete``).
        complete: whether the whole event has gone by.
    """

    size: int
    head: bytes
    tail: bytes = b""
    complete: bool = False


@dataclass(frozen=True)
class ServerSentEvent:
    """One event: ``event`` defaults to ``"message"``; ``id`` and ``retry`` (ms) when sent.

    ``oversized`` is set (and ``data`` empty) for an event over the size limit.
    """

    event: str
    data: str
    id: Optional[str] = None
    retry: Optional[int] = None
    oversized: Optional[OversizedEvent] = None


def complete_lines(chunks: Iterable[bytes], max_line: Optional[int] = None) -> Iterator[bytes]:
    """Re-cut a stream of chunks into whole lines (each with its ``\\n``); the rest at the end.

    A line longer than ``max_line`` is not held whole: it comes in pieces of
    more than ``max_line`` bytes, only the last of which ends with ``\\n``.
    """
    buffer = bytearray()
    for chunk in chunks:
        if not chunk:
            continue
        scan = len(buffer)  # only the new bytes can hold the next newline
        buffer += chunk
        start = 0
        while True:
            end = buffer.find(b"\n", scan)
            if end < 0:
                break
            yield _copy(buffer, start, end + 1)
            start = scan = end + 1
        del buffer[:start]
        if max_line is not None and len(buffer) > max_line:
            yield bytes(buffer)
            buffer.clear()
    if buffer:
        yield bytes(buffer)


def _copy(buffer: bytearray, start: int, end: int) -> bytes:
    # One copy (a slice of a bytearray would be a second one); the view is released at once.
    with memoryview(buffer) as view:
        return bytes(view[start:end])


def events(chunks: Iterable[bytes], max_size: Optional[int] = None) -> Iterator[ServerSentEvent]:
    """Parse a byte stream into events.

    Events without data are not dispatched. ``max_size``:
    bytes an event may have (see the module docstring).
    """
    lines: list[bytes] = []
    size = 0
    line_start = True  # whether the next piece begins a line
    oversized: Optional[OversizedEvent] = None
    tail = b""
    for piece in complete_lines(chunks, max_size):
        begins_line, line_start = line_start, piece[-1:] == b"\n"
        if begins_line and (piece == b"\n" or piece == b"\r\n"):  # a blank line ends the event
            if oversized is not None:
                data_tail = _data_tail(tail)
                yield ServerSentEvent("message", "", oversized=OversizedEvent(size, oversized.head, data_tail, True))
                oversized, tail = None, b""
            elif lines:
                event = _parse_event(lines)
                if event is not None:
                    yield event
            lines = []
            size = 0
            continue
        size += len(piece)
        if oversized is not None:
            tail = (tail + piece)[-EDGE_BYTES:] if len(piece) < EDGE_BYTES else piece[-EDGE_BYTES:]
        elif max_size is not None and size > max_size:
            lines.append(piece)
            oversized = OversizedEvent(size, _data_head(lines))
            tail = piece[-EDGE_BYTES:]
            lines = []
            yield ServerSentEvent("message", "", oversized=oversized)
        else:
            lines.append(piece)
    # The stream ended: an event without its closing blank line is not dispatched.


def _parse_event(lines: list[bytes]) -> Optional[ServerSentEvent]:
    """One whole event from its lines (each ending with ``\\n``), or ``None`` if it has no data.

    The fields are read by ``sseclient-py``; what it cannot do, this module
    does around it: bound an event's size, and drop an event the end of the
    stream cut off (sseclient-py dispatches it, id and all, so a client
    resuming after it would skip the answer it never got).
    """
    lines.append(b"\n")  # sseclient-py dispatches at the blank line; one copy of the event, not two
    for event in sseclient.SSEClient(iter([b"".join(lines)])).events():
        retry = event.retry
        return ServerSentEvent(
            event=event.event or "message",
            data=event.data,
            id=event.id,
            retry=int(retry) if isinstance(retry, str) and retry.isdigit() else None,
        )
    return None


def _data_head(lines: list[bytes]) -> bytes:
    """The first bytes of an event's data, from its first lines."""
    for line in lines:
        if line.startswith(b"data:"):
            start = 6 if line[5:6] == b" " else 5
            return line[start : start + EDGE_BYTES]
    return b""


def _data_tail(tail: bytes) -> bytes:
    """The last bytes of an event's data, from its last bytes: field lines after the data are cut off."""
    lines = tail.split(b"\n")
    while lines and (not lines[-1].strip(b"\r") or lines[-1].startswith(_FIELD_LINES)):
        lines.pop()
    return b"\n".join(lines)


def parse_sse_text(text: str) -> list[ServerSentEvent]:
    """Parse a whole SSE body held in memory (a last event without its blank line is kept)."""
    body = text.encode("utf-8")
    if not body.endswith((b"\n\n", b"\r\n\r\n")):
        body += b"\n\n"  # a body read whole has no later bytes to wait for
    return list(events([body]))
