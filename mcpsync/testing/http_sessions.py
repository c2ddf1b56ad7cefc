"""The HTTP test server's sessions: a ``TestServer`` each, whose output is routed to the streams of the
requests waiting for it (Streamable HTTP), or to the one stream of the session (HTTP+SSE).

A ``TestServer`` writes lines to its stdout; here that stdout is a ``Session``, which finds what each
line is: the answer to a request (to that request's ``Stream``, which then ends), a notification of a
subscription (to the subscription's stream, tagged with the id the client gave it), or anything else
(to the oldest open stream). A stream keeps every event it was given, so a client can resume it.
"""

from __future__ import annotations

import itertools
import json
import queue
import threading
from typing import Any, Optional

from .minimal import make_server
from .protocol import SUBSCRIPTION_ID_KEY
from .server import TestServer

__all__ = ["LegacySession", "Session", "Stream"]

#: A stream's ``answer_id`` when the answer goes out with the id the server saw.
_SAME = object()


class Stream:
    """The events of one request's answer: kept for resumption, handed to whoever reads them."""

    def __init__(self, stream_id: str, request_id: Any, answer_id: Any = None) -> None:
        self.stream_id = stream_id
        self.request_id = request_id
        #: The id the answer goes out with, when the server saw the request under another (modern requests).
        self.answer_id = _SAME if answer_id is None else answer_id
        self.events: list[bytes] = []  # every event sent so far, for replay
        self.queue: queue.Queue[Optional[bytes]] = queue.Queue()
        self.done = False

    def add(self, message: bytes) -> None:
        self.events.append(message)
        self.queue.put(message)


def _whole_lines(partial: bytearray, data: bytes) -> list[bytes]:
    """The lines ``data`` completes (without their newlines); what is left of a line stays in ``partial``."""
    if b"\n" not in data:
        partial += data
        return []
    first, *lines = data.split(b"\n")
    lines.insert(0, bytes(partial + first) if partial else first)
    partial[:] = lines.pop()
    return [line for line in lines if line.strip()]


class Session:
    """One MCP session: a TestServer whose output is routed to the streams of open requests."""

    def __init__(self, session_id: str, name: str, options: Optional[dict[str, Any]] = None) -> None:
        self.session_id = session_id
        self.lock = threading.Lock()
        self.open: dict[Any, Stream] = {}  # request id -> stream waiting for its answer
        self.streams: dict[str, Stream] = {}
        self.ids = itertools.count(1)
        self.server = make_server(name, options, stdout=self)
        self._partial = bytearray()  # a line written in pieces, until its end comes

    # The TestServer writes encoded lines here (under its write lock), whole or in pieces.
    def write(self, data: bytes) -> None:
        for line in _whole_lines(self._partial, data):
            self._route(line)

    def flush(self) -> None:
        # Over HTTP every message is framed: half a line the server flushed is a message of its own.
        if self._partial:
            self._route(bytes(self._partial))
            self._partial.clear()

    def _route(self, line: bytes) -> None:
        try:
            message = json.loads(line)
        except ValueError:
            message = None
        with self.lock:
            subscription = _subscription_of(message)
            if subscription is not None and subscription in self.open:
                # A subscription's notification: on its own stream, tagged with the id the client gave it.
                stream = self.open[subscription]
                if stream.answer_id is not _SAME:
                    params = {
                        **message["params"],
                        "_meta": {**message["params"]["_meta"], SUBSCRIPTION_ID_KEY: stream.answer_id},
                    }
                    line = json.dumps({**message, "params": params}).encode()
                stream.add(line)
                return
            if isinstance(message, dict) and "method" not in message and message.get("id") in self.open:
                stream = self.open.pop(message["id"])
                if stream.answer_id is not _SAME:  # a modern request's own id, in place of the one it had here
                    line = json.dumps({**message, "id": stream.answer_id}).encode()
                stream.add(line)
                stream.done = True
                stream.queue.put(None)
                return
            # Notifications, requests to the client, garbage: to the oldest open stream.
            target = next(iter(self.open.values()), None)
        if target is not None:
            target.add(line)

    def open_stream(self, request_id: Any, answer_id: Any = None) -> Stream:
        with self.lock:
            stream = Stream(f"{self.session_id[:8]}-{next(self.ids)}", request_id, answer_id)
            self.open[request_id] = stream
            self.streams[stream.stream_id] = stream
            return stream


class LegacySession:
    """One HTTP+SSE (2024-11-05) session: everything the TestServer writes goes to its one stream."""

    def __init__(self, session_id: str, name: str) -> None:
        self.session_id = session_id
        self.queue: queue.Queue[bytes] = queue.Queue()
        self.server = TestServer(name, stdout=self)
        self._partial = bytearray()

    def write(self, data: bytes) -> None:
        for line in _whole_lines(self._partial, data):
            self.queue.put(line)

    def flush(self) -> None:
        if self._partial:
            self.queue.put(bytes(self._partial))
            self._partial.clear()


def _subscription_of(message: Any) -> Any:
    """The subscription a notification belongs to (``_meta`` subscriptionId), if any."""
    if not isinstance(message, dict) or "id" in message or not isinstance(message.get("params"), dict):
        return None
    meta = message["params"].get("_meta")
    return meta.get(SUBSCRIPTION_ID_KEY) if isinstance(meta, dict) else None
