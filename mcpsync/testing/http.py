"""The test server over Streamable HTTP, with switches for the faults HTTP clients meet.

    python -m mcpsync.testing --http PORT [--json]

Serves ``/mcp`` on 127.0.0.1 (port 0 picks a free one; the first line on
stderr says ``listening on http://127.0.0.1:PORT/mcp``). Each session gets its
own ``TestServer`` (the same tools as over stdio). Answers come as SSE
streams, or as JSON bodies with ``--json``. Every SSE event has an id, so a
client can resume a broken stream with ``GET`` + ``Last-Event-ID``; a GET
without it gets 405 (no standalone stream is offered).

Faults are switched on with POSTs to control URLs (not MCP):

    /control/expire-sessions      forget every session: the next request gets 404
    /control/cut-next-stream      the next SSE answer sends its first event, then the
                                  connection is cut; the rest waits for a resumption
    /control/fail-next?status=N   the next MCP request is answered with status N
                                  (401 comes with WWW-Authenticate and Mcp-Auth-Server)
"""

from __future__ import annotations

import itertools
import json
import queue
import sys
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Optional
from urllib.parse import parse_qs, urlsplit

from .server import TestServer

__all__ = ["serve_http"]

#: Seconds a request's stream waits for its answer before giving up.
ANSWER_WAIT = 60.0
#: The ``retry`` (ms) announced on every stream.
RETRY_MS = 50


class _Stream:
    """The events of one request's answer: kept for resumption, handed to whoever reads them."""

    def __init__(self, stream_id: str, request_id: Any) -> None:
        self.stream_id = stream_id
        self.request_id = request_id
        self.events: list[bytes] = []  # every event sent so far, for replay
        self.queue: queue.Queue[Optional[bytes]] = queue.Queue()
        self.done = False

    def add(self, message: bytes) -> None:
        self.events.append(message)
        self.queue.put(message)


class _Session:
    """One MCP session: a TestServer whose output is routed to the streams of open requests."""

    def __init__(self, session_id: str, name: str) -> None:
        self.session_id = session_id
        self.lock = threading.Lock()
        self.open: dict[Any, _Stream] = {}  # request id -> stream waiting for its answer
        self.streams: dict[str, _Stream] = {}
        self.ids = itertools.count(1)
        self.server = TestServer(name, stdout=self)

    # The TestServer writes whole encoded lines here.
    def write(self, data: bytes) -> None:
        for line in data.splitlines():
            self._route(line)

    def flush(self) -> None:
        pass

    def _route(self, line: bytes) -> None:
        try:
            message = json.loads(line)
        except ValueError:
            message = None
        with self.lock:
            if isinstance(message, dict) and "method" not in message and message.get("id") in self.open:
                stream = self.open.pop(message["id"])
                stream.add(line)
                stream.done = True
                stream.queue.put(None)
                return
            # Notifications, requests to the client, garbage: to the oldest open stream.
            target = next(iter(self.open.values()), None)
        if target is not None:
            target.add(line)

    def open_stream(self, request_id: Any) -> _Stream:
        with self.lock:
            stream = _Stream(f"{self.session_id[:8]}-{next(self.ids)}", request_id)
            self.open[request_id] = stream
            self.streams[stream.stream_id] = stream
            return stream


class _Controls:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.cut_next = False
        self.fail_next: Optional[int] = None


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _HTTPServer

    def log_message(self, format: str, *args: Any) -> None:  # quiet: stderr is for the ready line
        pass

    # -- helpers ------------------------------------------------------------------

    def _body(self) -> bytes:
        return self.rfile.read(int(self.headers.get("Content-Length", 0) or 0))

    def _reply(
        self, status: int, body: bytes = b"", content_type: str = "text/plain", headers: Optional[dict[str, str]] = None
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(body)

    def _session(self) -> Optional[_Session]:
        session_id = self.headers.get("Mcp-Session-Id")
        with self.server.lock:
            return self.server.sessions.get(session_id) if session_id else None

    # -- verbs ---------------------------------------------------------------------

    def do_POST(self) -> None:
        path = urlsplit(self.path)
        if path.path.startswith("/control/"):
            self._control(path.path, parse_qs(path.query))
            return
        body = self._body()
        controls = self.server.controls
        with controls.lock:
            status, controls.fail_next = controls.fail_next, None
        if status is not None:
            headers = {}
            if status == 401:
                headers = {"WWW-Authenticate": 'Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"',
                           "Mcp-Auth-Server": "http://127.0.0.1/auth"}  # fmt: skip
            self._reply(status, f"injected failure {status}".encode(), headers=headers)
            return
        try:
            message = json.loads(body)
        except ValueError:
            self._reply(400, b"body is not JSON")
            return
        if not isinstance(message, dict):
            self._reply(400, b"batches are not supported")
            return
        session: Optional[_Session]
        if message.get("method") == "initialize":
            session = _Session(uuid.uuid4().hex, self.server.name)
            with self.server.lock:
                self.server.sessions[session.session_id] = session
        else:
            session = self._session()
        if session is None:
            self._reply(404 if "Mcp-Session-Id" in self.headers else 400, b"unknown or missing session")
            return
        if "id" not in message or "method" not in message:  # notification, or an answer to our request
            session.server.handle_line(body)
            self._reply(202)
            return
        stream = session.open_stream(message["id"])
        session.server.handle_line(body)
        headers = {"Mcp-Session-Id": session.session_id}
        if self.server.json_replies:
            answer = self._wait_answer(stream)
            if answer is None:
                self._reply(504, b"no answer in time")
            else:
                self._reply(200, answer, "application/json", headers)
            return
        with controls.lock:
            cut, controls.cut_next = controls.cut_next, False
        self._stream_events(stream, headers, start=0, cut_after_first=cut)

    def do_GET(self) -> None:
        last = self.headers.get("Last-Event-ID")
        session = self._session()
        if not last:
            self._reply(405, b"no standalone stream")
            return
        if session is None:
            self._reply(404, b"unknown session")
            return
        stream_id, _, number = last.rpartition(":")
        stream = session.streams.get(stream_id)
        if stream is None or not number.isdigit():
            self._reply(404, b"unknown event id")
            return
        self._stream_events(stream, {}, start=int(number))

    def do_DELETE(self) -> None:
        session = self._session()
        if session is None:
            self._reply(404, b"unknown session")
            return
        with self.server.lock:
            self.server.sessions.pop(session.session_id, None)
        self._reply(200)

    def _control(self, path: str, query: dict[str, list[str]]) -> None:
        controls = self.server.controls
        with controls.lock:
            if path == "/control/expire-sessions":
                with self.server.lock:
                    self.server.sessions.clear()
            elif path == "/control/cut-next-stream":
                controls.cut_next = True
            elif path == "/control/fail-next":
                controls.fail_next = int(query.get("status", ["500"])[0])
            else:
                self._reply(404, b"unknown control")
                return
        self._reply(200, b"ok")

    # -- answers ---------------------------------------------------------------------

    def _wait_answer(self, stream: _Stream) -> Optional[bytes]:
        while True:
            try:
                item = stream.queue.get(timeout=ANSWER_WAIT)
            except queue.Empty:
                return None
            if item is None:
                return stream.events[-1]
            # JSON mode: what is not the answer has no way to the client.

    def _stream_events(
        self, stream: _Stream, headers: dict[str, str], start: int, cut_after_first: bool = False
    ) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")  # the body ends when the connection does
        for key, value in headers.items():
            self.send_header(key, value)
        self.end_headers()
        self.close_connection = True
        # The priming event: an id and no data, so the client can resume from the start.
        self.wfile.write(f"retry: {RETRY_MS}\nid: {stream.stream_id}:{start}\ndata:\n\n".encode())
        self.wfile.flush()
        if cut_after_first:
            return  # the connection closes here; the answer waits for a resumption
        sent = start
        while True:
            while sent < len(stream.events):
                sent += 1
                self.wfile.write(
                    b"id: %s:%d\ndata: %s\n\n" % (stream.stream_id.encode(), sent, stream.events[sent - 1])
                )
                self.wfile.flush()
            if stream.done and sent >= len(stream.events):
                return
            try:
                stream.queue.get(timeout=ANSWER_WAIT)
            except queue.Empty:
                return


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, port: int, name: str, json_replies: bool) -> None:
        super().__init__(("127.0.0.1", port), _Handler)
        self.name = name
        self.json_replies = json_replies
        self.lock = threading.Lock()
        self.sessions: dict[str, _Session] = {}
        self.controls = _Controls()


def serve_http(port: int, name: str = "mcpsync-test-server", json_replies: bool = False) -> None:
    """Serve until interrupted (SIGTERM or Ctrl-C ends the process)."""
    httpd = _HTTPServer(port, name, json_replies)
    sys.stderr.write(f"listening on http://127.0.0.1:{httpd.server_address[1]}/mcp\n")
    sys.stderr.flush()
    try:
        httpd.serve_forever(poll_interval=0.1)
    finally:
        httpd.server_close()
