"""The test server over HTTP, with switches for the faults HTTP clients meet.

    python -m mcpsync.testing --http PORT [--json]

Serves Streamable HTTP at ``/mcp`` on 127.0.0.1 (port 0 picks a free one; the
first line on stderr says ``listening on http://127.0.0.1:PORT/mcp``), and the
2024-11-05 HTTP+SSE transport at ``/sse`` (its ``endpoint`` event names
``/messages?session_id=...``; a POST to ``/sse`` gets 405, as an HTTP+SSE server's does).
Other paths get 404 with an HTML page, as a web framework answers. Each session gets its own ``TestServer`` (the
same tools as over stdio). Streamable HTTP answers come as SSE streams, or as
JSON bodies with ``--json``. Every SSE event has an id, so a client can resume
a broken stream with ``GET`` + ``Last-Event-ID``; a GET without it gets 405
(no standalone stream is offered).

A request of the 2026-07-28 revision (its ``_meta`` names the protocol version)
needs no session: one stateless ``TestServer`` serves them all, and no
``Mcp-Session-Id`` comes back. Its headers are checked as the revision says:
``MCP-Protocol-Version`` must equal the ``_meta`` version, ``Mcp-Method`` the
method, ``Mcp-Name`` the tool, prompt or resource (``=?base64?...?=`` decoded),
and each ``Mcp-Param-*`` of an ``x-mcp-header`` argument its value; else 400
with -32020 (HeaderMismatch). A version it does not accept gets 400 with
-32022, a method it does not serve in that era 404 with -32601. The command
line's server options (``--modern-versions``, ``--page-size`` ...) hold for
every session and the stateless server alike.

Faults are switched on with POSTs to control URLs (not MCP), listed in ``mcpsync.testing.http_controls``;
the sessions are in ``mcpsync.testing.http_sessions``, the check of the 2026-07-28 headers in
``mcpsync.testing.http_headers``.
"""

from __future__ import annotations

import gzip
import itertools
import json
import queue
import socket
import struct
import sys
import threading
import time
import uuid
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Optional
from urllib.parse import parse_qs, urlsplit

from .._core.jsonrpc import ErrorCode
from .http_controls import RETRY_MS, Controls
from .http_headers import header_mismatch
from .http_sessions import LegacySession, Session, Stream
from .protocol import HANDSHAKE_VERSIONS, HEADER_MISMATCH

__all__ = ["serve_http"]

METHOD_NOT_FOUND = ErrorCode.METHOD_NOT_FOUND

#: Seconds a request's stream waits for its answer before giving up.
ANSWER_WAIT = 60.0
#: Seconds between keep-alive comments on an idle HTTP+SSE stream (how a gone client is noticed).
KEEPALIVE = 1.0


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out in separate writes: without this, Nagle's algorithm and the
    # client's delayed ACK hold every JSON answer back by ~40 ms.
    disable_nagle_algorithm = True
    server: _HTTPServer

    def log_message(self, format: str, *args: Any) -> None:  # quiet: stderr is for the ready line
        pass

    # -- helpers ------------------------------------------------------------------

    def _body(self) -> bytes:
        return self.rfile.read(int(self.headers.get("Content-Length", 0) or 0))

    _set_cookie: Optional[str] = None
    _gzip = False
    _trickle = 0.0

    def end_headers(self) -> None:
        if self._set_cookie:  # switched on for this answer (cookie-next)
            self.send_header("Set-Cookie", self._set_cookie)
        if self._gzip:  # gzip-next
            self.send_header("Content-Encoding", "gzip")
        super().end_headers()

    def _reply(
        self, status: int, body: bytes = b"", content_type: str = "text/plain", headers: Optional[dict[str, str]] = None
    ) -> None:
        if self._gzip:
            body = gzip.compress(body)
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        if not self._trickle:
            self.wfile.write(body)
            return
        for byte in range(len(body)):  # trickle-next: one byte at a time
            self.wfile.write(body[byte : byte + 1])
            self.wfile.flush()
            time.sleep(self._trickle)

    def _session(self) -> Optional[Session]:
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
        if path.path not in ("/mcp", "/messages"):
            self._not_here(path.path)
            return
        controls = self.server.controls
        controls.record(self.headers.get("Cookie", ""), body)
        self._set_cookie = controls.take("cookie_next")
        self._gzip = controls.take("gzip_next")
        self._trickle = controls.take("trickle_next")
        if self._injected_fault():
            return
        if path.path == "/messages":
            self._legacy_post(body, parse_qs(path.query))
            return
        try:
            message = json.loads(body)
        except ValueError:
            self._reply(400, b"body is not JSON")
            return
        if not isinstance(message, dict):
            self._reply(400, b"batches are not supported")
            return
        if self._modern_post(message):
            return
        session: Optional[Session]
        if message.get("method") == "initialize":
            session = Session(uuid.uuid4().hex, self.server.name, self.server.options)
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
        self._answer(stream, {"Mcp-Session-Id": session.session_id})

    def _answer(self, stream: Stream, headers: dict[str, str], events: bool = False) -> None:
        """Send the answer of a request: a JSON body, or an event stream (with the faults switched on)."""
        controls = self.server.controls
        if self.server.json_replies and not events:
            answer = self._wait_answer(stream)
            if answer is None:
                self._reply(504, b"no answer in time")
            elif controls.take("cut_mid_event"):
                self._reply_half(answer, headers)
            else:
                self._reply(200, answer, "application/json", headers)
            return
        cut = controls.take("cut_next")
        self._stream_events(
            stream,
            headers,
            start=0,
            cut_after_first=cut,
            cut_mid_event=controls.take("cut_mid_event"),
            keepalive=controls.take("keepalive_next"),
            linger=controls.take("linger_next"),
            retry_ms=controls.take("retry_next") or RETRY_MS,
        )

    # -- the 2026-07-28 revision: no session ---------------------------------------------

    def _modern_post(self, message: dict[str, Any]) -> bool:
        """Serve a modern message statelessly; ``False`` if it is a legacy one (or ``--legacy-only``)."""
        modern = self.server.modern
        method = message.get("method")
        version = modern.server.modern_version(message.get("params")) if isinstance(method, str) else None
        if version is None and method == "server/discover" and not modern.server.legacy_only:
            version = ""
        if version is None:
            header = self.headers.get("MCP-Protocol-Version")
            if "Mcp-Session-Id" in self.headers or ("id" in message and method is not None):
                return False
            if modern.server.legacy_only or header is None or header in HANDSHAKE_VERSIONS:
                return False
            # A modern client's notification, or its answer: no session to find, the one stateless server.
            if method == "notifications/cancelled":
                params = message.get("params") or {}
                with self.server.lock:
                    internal = self.server.modern_ids.get(json.dumps(params.get("requestId")))
                if internal is not None:
                    message = {**message, "params": {**params, "requestId": internal}}
            modern.server.handle_line(json.dumps(message).encode())
            self._reply(202)
            return True
        assert isinstance(method, str)
        if "id" not in message:  # a notification with the modern _meta
            modern.server.handle_line(json.dumps(message).encode())
            self._reply(202)
            return True
        mismatch = header_mismatch(self.headers, message, version, modern.server.tools)
        refusal = (HEADER_MISMATCH, f"Header mismatch: {mismatch}", None) if mismatch else None
        refusal = refusal or modern.server.modern_refusal(method, version)
        if refusal is not None:
            code, text, data = refusal
            error: dict[str, Any] = {"code": code, "message": text}
            if data is not None:
                error["data"] = data
            body = json.dumps({"jsonrpc": "2.0", "id": message["id"], "error": error}).encode()
            self._reply(404 if code == METHOD_NOT_FOUND else 400, body, "application/json")
            return True
        internal = f"http-{next(self.server.modern_counter)}"
        with self.server.lock:
            self.server.modern_ids[json.dumps(message["id"])] = internal
        stream = modern.open_stream(internal, answer_id=message["id"])
        modern.server.handle_line(json.dumps({**message, "id": internal}).encode())
        self._answer(stream, {}, events=method == "subscriptions/listen")  # a subscription: always a stream
        return True

    def _injected_fault(self) -> bool:
        """Apply the fault switched on for the next MCP POST, if any; ``True`` if it took the answer's place."""
        controls = self.server.controls
        delay = controls.take("delay_next")
        if delay:
            time.sleep(delay)
        if controls.take("reset_next"):
            self._reset()
            return True
        if controls.take("redirect_next"):
            self._reply(307, b"moved", headers={"Location": self.path})
            return True
        interval = controls.take("trickle_headers_next")
        if interval:
            self._trickle_headers(interval)
            return True
        status = controls.take("fail_next")
        if status is None:
            return False
        headers = {}
        if status == 401:
            headers = {
                "WWW-Authenticate": 'Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"',
                "Mcp-Auth-Server": "http://127.0.0.1/auth",
            }
        self._reply(status, f"injected failure {status}".encode(), headers=headers)
        return True

    def _trickle_headers(self, interval: float) -> None:
        """A status line, then a header line every ``interval`` seconds until the client hangs up (at most 10 min)."""
        self.close_connection = True
        generation = self.server.controls.trickles_ended
        try:
            self.wfile.write(b"HTTP/1.1 200 OK\r\n")
            for line in range(int(600 / interval)):
                if self.server.controls.trickles_ended != generation:
                    return
                self.wfile.write(b"X-Trickle-%d: still coming\r\n" % line)
                self.wfile.flush()
                time.sleep(interval)
        except OSError:  # the client gave up: what this fault is for
            pass

    def _hold_open(self, write: Callable[[bytes], None]) -> None:
        """Keep a finished stream open, a comment a second, until the client hangs up (at most ANSWER_WAIT)."""
        until = time.monotonic() + ANSWER_WAIT
        try:
            while time.monotonic() < until:
                time.sleep(KEEPALIVE / 10)
                write(b": still here\n\n")  # fails once the client has gone
        except OSError:
            pass

    def _reset(self) -> None:
        """Close the connection without an answer, with RST (SO_LINGER 0) rather than FIN."""
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.close_connection = True
        for stream in (self.rfile, self.wfile):
            stream.close()
        self.connection.close()

    def _reply_half(self, body: bytes, headers: dict[str, str]) -> None:
        """Announce the whole body, send half of it, and close the connection."""
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for key, value in headers.items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(body[: len(body) // 2])
        self.wfile.flush()
        self.close_connection = True

    def do_GET(self) -> None:
        path = urlsplit(self.path).path
        if path == "/sse":
            self._legacy_stream()
            return
        if path != "/mcp":
            self._not_here(path)
            return
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

    def _not_here(self, path: str) -> None:
        """A path it does not serve, answered as web frameworks do: 405 for a POST to the HTTP+SSE
        stream (GET only), else 404 with an HTML page."""
        if path == "/sse":
            self._reply(405, b"Method Not Allowed", headers={"Allow": "GET"})
            return
        page = (
            '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>Error</title>\n</head>\n'
            f"<body>\n<pre>Cannot {self.command} {path}</pre>\n</body>\n</html>\n"
        )
        self._reply(404, page.encode(), "text/html; charset=utf-8")

    def do_DELETE(self) -> None:
        interval = self.server.controls.take("trickle_delete_next")
        if interval:
            self._trickle_headers(interval)
            return
        session = self._session()
        if session is None:
            self._reply(404, b"unknown session")
            return
        with self.server.lock:
            self.server.sessions.pop(session.session_id, None)
        session.server.stopping.set()  # stalled tools give up
        self._reply(200)

    # -- HTTP+SSE (2024-11-05) ----------------------------------------------------------

    def _legacy_stream(self) -> None:
        """GET /sse: the session's one stream; its first event names the URL to POST to."""
        session = LegacySession(uuid.uuid4().hex, self.server.name)
        with self.server.lock:
            self.server.legacy_sessions[session.session_id] = session
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        try:
            self.wfile.write(f"event: endpoint\ndata: /messages?session_id={session.session_id}\n\n".encode())
            self.wfile.flush()
            while True:
                try:
                    line = session.queue.get(timeout=KEEPALIVE)
                except queue.Empty:
                    self.wfile.write(b": keep-alive\n\n")  # fails once the client has gone
                    self.wfile.flush()
                    continue
                event = b"event: message\ndata: %s\n\n" % line
                if self.server.controls.take("cut_mid_event"):
                    self.wfile.write(event[: len(event) // 2])
                    self.wfile.flush()
                    return
                self.wfile.write(event)
                self.wfile.flush()
        except OSError:
            pass  # the client went away
        finally:
            with self.server.lock:
                self.server.legacy_sessions.pop(session.session_id, None)
            session.server.stopping.set()

    def _legacy_post(self, body: bytes, query: dict[str, list[str]]) -> None:
        """POST /messages: take a message for a session; whatever answers it goes on the session's stream."""
        with self.server.lock:
            session = self.server.legacy_sessions.get(query.get("session_id", [""])[0])
        if session is None:
            self._reply(404, b"unknown session")
            return
        self._reply(202, b"Accepted")
        session.server.handle_line(body)

    def _control(self, path: str, query: dict[str, list[str]]) -> None:
        controls = self.server.controls
        if path == "/control/last-cookie":
            with controls.lock:
                cookie = controls.last_cookie
            self._reply(200, cookie.encode())
            return
        if path == "/control/seen":
            with controls.lock:
                seen = json.dumps(controls.seen).encode()
            self._reply(200, seen, "application/json")
            return
        name = path[len("/control/") :]
        if name == "expire-sessions":
            with self.server.lock:
                self.server.sessions.clear()
        elif not controls.switch(name, query):
            self._reply(404, b"unknown control")
            return
        self._reply(200, b"ok")

    # -- answers ---------------------------------------------------------------------

    def _wait_answer(self, stream: Stream) -> Optional[bytes]:
        while True:
            try:
                item = stream.queue.get(timeout=ANSWER_WAIT)
            except queue.Empty:
                return None
            if item is None:
                return stream.events[-1]
            # JSON mode: what is not the answer has no way to the client.

    def _stream_events(
        self,
        stream: Stream,
        headers: dict[str, str],
        start: int,
        cut_after_first: bool = False,
        cut_mid_event: bool = False,
        keepalive: float = 0.0,
        linger: bool = False,
        retry_ms: int = RETRY_MS,
    ) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")  # the body ends when the connection does
        for key, value in headers.items():
            self.send_header(key, value)
        self.end_headers()
        self.close_connection = True
        packer = zlib.compressobj(wbits=31) if self._gzip else None  # gzip, flushed per event

        def write(data: bytes) -> None:
            self.wfile.write(data if packer is None else packer.compress(data) + packer.flush(zlib.Z_SYNC_FLUSH))
            self.wfile.flush()

        try:
            # The priming event: an id and no data, so the client can resume from the start.
            write(f"retry: {retry_ms}\nid: {stream.stream_id}:{start}\ndata:\n\n".encode())
            if cut_after_first:
                return  # the connection closes here; the answer waits for a resumption
            sent = start
            while True:
                while sent < len(stream.events):
                    sent += 1
                    event = b"id: %s:%d\ndata: %s\n\n" % (stream.stream_id.encode(), sent, stream.events[sent - 1])
                    if cut_mid_event:
                        # Half of it, id included; the client must ask for it again, not skip it.
                        write(event[: max(len(event) // 2, event.index(b"data:") + 10)])
                        return
                    write(event)
                if stream.done and sent >= len(stream.events):
                    if linger:  # linger-next: the stream stays open until the client hangs up
                        self._hold_open(write)
                    return
                waited_until = time.monotonic() + ANSWER_WAIT
                while True:
                    try:
                        stream.queue.get(timeout=keepalive or ANSWER_WAIT)
                        break
                    except queue.Empty:
                        if not keepalive or time.monotonic() >= waited_until:
                            return
                        write(b": ping\n\n")  # a comment: no event, but bytes on the wire
        finally:
            if packer is not None:
                self.wfile.write(packer.flush())


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    #: The listen backlog: socketserver's 5 made the sixth of many clients connecting at once wait out
    #: TCP's 1 s SYN retry (eight threads on one client took 1.05 s instead of 0.06 s).
    request_queue_size = 128

    def __init__(self, port: int, name: str, json_replies: bool, options: Optional[dict[str, Any]] = None) -> None:
        super().__init__(("127.0.0.1", port), _Handler)
        self.name = name
        self.json_replies = json_replies
        #: The TestServer options of every session (the command line's).
        self.options = dict(options or {})
        #: The one stateless server of the 2026-07-28 requests (no session), and the ids it saw them under.
        self.modern = Session("modern", name, self.options)
        self.modern_counter = itertools.count(1)
        self.modern_ids: dict[str, str] = {}
        self.lock = threading.Lock()
        self.sessions: dict[str, Session] = {}
        self.legacy_sessions: dict[str, LegacySession] = {}
        self.controls = Controls()


def serve_http(
    port: int, name: str = "mcpsync-test-server", json_replies: bool = False, options: Optional[dict[str, Any]] = None
) -> None:
    """Serve until interrupted (SIGTERM or Ctrl-C ends the process); ``options`` go to each ``TestServer``."""
    httpd = _HTTPServer(port, name, json_replies, options)
    sys.stderr.write(f"listening on http://127.0.0.1:{httpd.server_address[1]}/mcp\n")
    sys.stderr.flush()
    try:
        httpd.serve_forever(poll_interval=0.1)
    finally:
        httpd.server_close()
