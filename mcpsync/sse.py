"""Server-sent events: parsing a byte stream into events, on top of ``sseclient-py``.

``sseclient-py`` stitches chunks into events by appending line after line.
Fed raw network chunks, a large event would be copied once per chunk
(quadratic); ``complete_lines`` feeds it whole lines instead, so a 50 MB
event costs one copy.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Optional

import sseclient

__all__ = ["ServerSentEvent", "complete_lines", "events", "parse_sse_text"]


@dataclass(frozen=True)
class ServerSentEvent:
    """One event: ``event`` defaults to ``"message"``; ``id`` and ``retry`` (ms) when sent."""

    event: str
    data: str
    id: Optional[str] = None
    retry: Optional[int] = None


def complete_lines(chunks: Iterable[bytes]) -> Iterator[bytes]:
    """Re-cut a stream of chunks into whole lines (each with its ``\\n``); the rest at the end."""
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
            yield bytes(buffer[start : end + 1])
            start = scan = end + 1
        del buffer[:start]
    if buffer:
        yield bytes(buffer)


def events(chunks: Iterable[bytes]) -> Iterator[ServerSentEvent]:
    """Parse a byte stream into events (events without a ``data`` field are not dispatched)."""
    for event in sseclient.SSEClient(complete_lines(chunks)).events():
        retry = event.retry
        yield ServerSentEvent(
            event=event.event or "message",
            data=event.data,
            id=event.id,
            retry=int(retry) if isinstance(retry, str) and retry.isdigit() else None,
        )


def parse_sse_text(text: str) -> list[ServerSentEvent]:
    """Parse a whole SSE body held in memory."""
    return list(events([text.encode("utf-8")]))
