"""Server-sent events: a byte stream cut into events, as the SSE standard says (no I/O here).

Lines end with CR, LF or CRLF (a CRLF split between two chunks is still one
line end); a blank line ends an event; a line that starts with ``:`` is a
comment; ``field: value`` loses one space after the colon; ``data`` lines are
joined with newlines; ``id`` (unless it holds a NUL) and ``retry`` (digits
only) are remembered. An event cut off by the end of the stream is not
dispatched (the standard says so), and neither is its ``id``: a client that
resumes must ask for it again. An event with no ``data`` line is dispatched
with ``data == ""`` when it set an ``id`` or a ``retry``, so that a client
resuming the stream knows them.

Every byte is copied a bounded number of times and each line end is looked
for once, so a 50 MB event costs what its size does. With ``max_size``, an
event larger than that is not kept: ``events`` yields a stand-in carrying an
``OversizedEvent`` when the limit is crossed and again once the event has
gone by, with what its first and last bytes show, and reads on.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Optional

__all__ = ["OversizedEvent", "ServerSentEvent", "events", "parse_sse_text"]

#: Bytes of an oversized event's data kept at its start and at its end.
EDGE_BYTES = 4096
#: A line this long is cut out of the read buffer before it is handed on (the buffer shrinks at once).
RELEASE_BYTES = 64 * 1024
_CR, _LF = 13, 10
_FIELD_LINES = (b"id:", b"event:", b"retry:", b":")


@dataclass(frozen=True)
class OversizedEvent:
    """An event over the size limit, dropped unread.

    Attributes:
        size: its bytes so far (all of them once ``complete``), line ends included.
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


def _lines(chunks: Iterable[bytes], max_line: Optional[int]) -> Iterator[tuple[bytes, int, bool]]:
    """Cut a stream of chunks into lines: ``(bytes, bytes consumed, whether the line ended)``.

    The bytes come without their line end; consumed counts the end too. A
    line longer than ``max_line`` is not held whole: it comes in pieces that
    say ``ended=False``, the last one ``True``. What is left at the end of
    the stream comes with ``ended=False``.
    """
    buffer = bytearray()
    skip_lf = False  # the last chunk ended with CR: a LF that starts the next one ends the same line
    carried = 0  # bytes consumed (a skipped LF) not yet counted in a line
    for chunk in chunks:
        if not chunk:
            continue
        if skip_lf:
            skip_lf = False
            if chunk[0] == _LF:
                chunk = chunk[1:]
                carried += 1
                if not chunk:
                    continue
        scan = len(buffer)  # only the new bytes can hold the next line end
        buffer += chunk
        start = 0
        next_cr = buffer.find(b"\r", scan)
        next_lf = buffer.find(b"\n", scan)
        while next_cr >= 0 or next_lf >= 0:
            end = next_lf if next_cr < 0 or (0 <= next_lf < next_cr) else next_cr
            width = 1
            if buffer[end] == _CR:
                if end + 1 < len(buffer):
                    width = 2 if buffer[end + 1] == _LF else 1
                else:
                    skip_lf = True
            line = _copy(buffer, start, end)
            consumed = end + width - start + carried
            carried = 0
            start = end + width
            if len(line) >= RELEASE_BYTES:
                # A long line: the buffer lets its bytes go before the line is used, lest both be held.
                del buffer[:start]
                start = 0
                next_cr, next_lf = buffer.find(b"\r"), buffer.find(b"\n")
            else:
                if next_cr >= 0 and next_cr < start:
                    next_cr = buffer.find(b"\r", start)
                if next_lf >= 0 and next_lf < start:
                    next_lf = buffer.find(b"\n", start)
            yield line, consumed, True
        del buffer[:start]
        if max_line is not None and len(buffer) > max_line:
            yield bytes(buffer), len(buffer) + carried, False
            carried = 0
            buffer.clear()
    if buffer:
        yield bytes(buffer), len(buffer) + carried, False


def _copy(buffer: bytearray, start: int, end: int) -> bytes:
    # One copy (a slice of a bytearray would be a second one); the view is released at once.
    with memoryview(buffer) as view:
        return bytes(view[start:end])


class _Event:
    """The fields of the event being read."""

    __slots__ = ("data", "event", "id", "retry", "size")

    def __init__(self) -> None:
        self.event = ""
        self.data: list[str] = []
        self.id: Optional[str] = None
        self.retry: Optional[int] = None
        self.size = 0

    def take(self, line: bytes) -> None:
        """One whole line of the event (not a comment, not blank)."""
        if len(line) >= RELEASE_BYTES and line.startswith(b"data:"):
            # Decoded from a view: a slice would copy a long line once more before its text is made.
            start = 6 if line[5:6] == b" " else 5
            with memoryview(line) as view:
                self.data.append(str(view[start:], "utf-8", "replace"))
            return
        name, colon, value = line.partition(b":")
        if colon and value[:1] == b" ":
            value = value[1:]
        text = value.decode("utf-8", "replace")
        if name == b"data":
            self.data.append(text)
        elif name == b"event":
            self.event = text
        elif name == b"id":
            if "\0" not in text:
                self.id = text
        elif name == b"retry":
            if value.isdigit():
                self.retry = int(value)

    def finished(self) -> Optional[ServerSentEvent]:
        """The event to dispatch at a blank line, if it says anything."""
        if not self.data and self.id is None and self.retry is None:
            return None
        return ServerSentEvent(self.event or "message", "\n".join(self.data), self.id, self.retry)


def events(chunks: Iterable[bytes], max_size: Optional[int] = None) -> Iterator[ServerSentEvent]:
    """Parse a byte stream into events (see the module docstring).

    ``max_size``: bytes an event may have, line ends included.
    """
    current = _Event()
    line: list[bytes] = []  # the pieces of a line longer than one piece
    oversized: Optional[OversizedEvent] = None
    tail = b""
    for piece, consumed, ended in _lines(chunks, max_size):
        current.size += consumed
        if oversized is not None:
            if ended and not piece and not line:  # the blank line: the oversized event has gone by
                size = current.size - consumed
                yield ServerSentEvent(
                    "message", "", oversized=OversizedEvent(size, oversized.head, _data_tail(tail), True)
                )
                oversized, tail, current = None, b"", _Event()
                continue
            tail = (tail + piece + (b"\n" if ended else b""))[-EDGE_BYTES:]
            line = [] if ended else [b""]  # only whether a line is open matters now
            continue
        if max_size is not None and current.size > max_size:
            whole = b"".join(line) + piece
            head = _data_head(current, whole)
            oversized = OversizedEvent(current.size, head)
            tail = (whole + (b"\n" if ended else b""))[-EDGE_BYTES:]
            line = [] if ended else [b""]
            yield ServerSentEvent("message", "", oversized=oversized)
            continue
        if not ended:
            line.append(piece)
            continue
        if line:
            piece, line = b"".join(line) + piece, []
        if not piece:  # a blank line ends the event
            finished = current.finished()
            current = _Event()
            if finished is not None:
                yield finished
        elif piece[0] != 0x3A:  # not a comment (":")
            current.take(piece)
    # The stream ended: an event without its closing blank line is not dispatched.


def _data_head(current: _Event, line: bytes) -> bytes:
    """The first bytes of an oversized event's data: from the data read so far, else the line that crossed."""
    if current.data:
        return current.data[0].encode("utf-8")[:EDGE_BYTES]
    if line.startswith(b"data:"):
        start = 6 if line[5:6] == b" " else 5
        return line[start : start + EDGE_BYTES]
    return b""


def _data_tail(tail: bytes) -> bytes:
    """The last bytes of an event's data, from its last bytes: field lines after the data are cut off."""
    lines = tail.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n")
    while lines and (not lines[-1] or lines[-1].startswith(_FIELD_LINES)):
        lines.pop()
    return b"\n".join(lines)


def parse_sse_text(text: str) -> list[ServerSentEvent]:
    """Parse a whole SSE body held in memory (a last event without its blank line is kept)."""
    body = text.encode("utf-8")
    if not body.endswith((b"\n\n", b"\r\n\r\n", b"\r\r")):
        body += b"\n\n"  # a body read whole has no later bytes to wait for
    return list(events([body]))
