"""Minimal MCP server over Streamable HTTP, the common target of ``bench_http.py``.

Standard library only: ``http.server.ThreadingHTTPServer`` (one thread per
connection, HTTP/1.1 keep-alive, every body sized with Content-Length). It
does as little per request as it can, so that the benchmark measures the
clients: each answer goes out in one ``send`` (status line, headers and body
together) with Nagle off, and nothing is logged.

    python benchmarks/minimal_http_server.py [--json | --sse [--chunked]] [--port 0] [--watch-stdin]

Serves ``/mcp`` on 127.0.0.1; the first line on stdout is
``listening on http://127.0.0.1:PORT/mcp`` (``--port 0``, the default, picks a
free port). With ``--watch-stdin`` it exits when its stdin reaches EOF, so a
parent that dies cannot leave it behind.

Answers (``--json``, the default): every request's answer is a JSON body.
With ``--sse`` it is a ``text/event-stream`` body holding exactly one event,
``data: <response>``, and the body ends there, sized with Content-Length (or
chunked, with ``--chunked``), so the connection stays open for the next
request. requests/urllib3 (raw, mcpsync) reuse it either way; the official
SDK (httpx2) closes each SSE answer as soon as it has the response event,
before reading the end of the body, so it opens a new connection per request
with Content-Length and chunked alike.

POST /mcp (request answers come from ``minimal_mcp.answer``, shared with minimal_server.py)
  initialize        -> echoes the client's protocolVersion if supported,
                       else the latest; the answer carries ``Mcp-Session-Id``
  notifications     -> 202, no body (also answers to server requests: none are sent)
  ping              -> {}
  tools/list        -> one tool, ``echo``
  tools/call echo   -> {"content": [{"type": "text", "text": text}], "isError": false}
  anything else     -> JSON-RPC error -32601, including ``server/discover``,
                       which the official SDK probes first (it then falls back
                       to initialize)
  Everything but initialize and unknown methods needs a known session id:
  400 without the header, 404 for an unknown one.
GET /mcp     -> 405 (no server-initiated stream)
DELETE /mcp  -> 200, forgets the session
GET /stats   -> JSON counters, for the benchmark: connections accepted, POSTs,
                and this process's CPU seconds (``time.process_time``)
"""

import argparse
import json
import os
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from minimal_mcp import INVALID_REQUEST, PARSE_ERROR, answer, error_response, is_known, is_request

SERVER_NAME = "minimal-http"
SESSION_HEADER = "Mcp-Session-Id"
dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


class State:
    """Sessions and counters, shared by the connection threads."""

    def __init__(self, sse, chunked=False):
        self.sse = sse
        self.chunked = chunked
        self.lock = threading.Lock()
        self.sessions = set()
        self.connections = 0
        self.posts = 0

    def stats(self):
        cpu = time.process_time()  # this process, all threads, ns resolution (os.times() ticks are 10 ms)
        with self.lock:
            return {
                "connections": self.connections,
                "posts": self.posts,
                "sessions": len(self.sessions),
                "cpu_s": cpu,
            }


STATUS_TEXT = {
    200: "OK",
    202: "Accepted",
    400: "Bad Request",
    404: "Not Found",
    405: "Method Not Allowed",
    411: "Length Required",
}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive
    disable_nagle_algorithm = True
    server_version = "minimal-mcp-http"
    state = None  # set by serve()

    def setup(self):
        super().setup()
        with self.state.lock:
            self.state.connections += 1

    def log_message(self, format, *args):
        pass

    # -- output -----------------------------------------------------------

    def _send(self, status, body=b"", content_type=None, extra=None, chunked=False):
        """Status line, headers and body in one write."""
        head = ["HTTP/1.1 %d %s" % (status, STATUS_TEXT.get(status, ""))]
        if chunked:
            head.append("Transfer-Encoding: chunked")
            body = b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body) if body else b"0\r\n\r\n"
        else:
            head.append("Content-Length: %d" % len(body))
        if content_type:
            head.append("Content-Type: " + content_type)
        if extra:
            head.extend("%s: %s" % kv for kv in extra.items())
        if self.close_connection:
            head.append("Connection: close")
        self.wfile.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body)

    def _answer(self, message, extra=None):
        """A JSON-RPC response (result or error) as the mode wants it: JSON body or one SSE event."""
        data = dumps(message).encode("utf-8")
        if self.state.sse:
            self._send(200, b"data: " + data + b"\n\n", "text/event-stream", extra, self.state.chunked)
        else:
            self._send(200, data, "application/json", extra)

    def _http_error(self, status, code, text, request_id=None):
        body = dumps(error_response(request_id, code, text)).encode("utf-8")
        self._send(status, body, "application/json")

    # -- methods ------------------------------------------------------------

    def do_POST(self):
        if self.path != "/mcp":
            return self._send(404)
        length = self.headers.get("Content-Length")
        if length is None:
            self.close_connection = True  # a body we cannot size: do not guess where it ends
            return self._http_error(411, INVALID_REQUEST, "Content-Length required")
        body = self.rfile.read(int(length))
        state = self.state
        with state.lock:
            state.posts += 1
        try:
            message = json.loads(body)
        except ValueError:
            return self._http_error(400, PARSE_ERROR, "Parse error")
        if not isinstance(message, dict):
            return self._http_error(400, INVALID_REQUEST, "Invalid Request (batches are not supported)")
        method = message.get("method")
        request = is_request(message)
        if request and not is_known(method):
            # Before the session check: server/discover comes without a session.
            return self._answer(answer(message, SERVER_NAME))
        if method != "initialize":
            session = self.headers.get(SESSION_HEADER)
            if session is None:
                return self._http_error(400, INVALID_REQUEST, "Missing %s" % SESSION_HEADER, message.get("id"))
            if session not in state.sessions:
                return self._http_error(404, INVALID_REQUEST, "Unknown session", message.get("id"))
        if not request:
            return self._send(202)  # a notification, or a response to a server request
        response = answer(message, SERVER_NAME)
        extra = None
        if method == "initialize" and "result" in response:
            session = uuid.uuid4().hex
            with state.lock:
                state.sessions.add(session)
            extra = {SESSION_HEADER: session}
        self._answer(response, extra)

    def do_GET(self):
        if self.path == "/stats":
            return self._send(200, dumps(self.state.stats()).encode(), "application/json")
        if self.path != "/mcp":
            return self._send(404)
        self._send(405, extra={"Allow": "POST, DELETE"})

    def do_DELETE(self):
        if self.path != "/mcp":
            return self._send(404)
        with self.state.lock:
            self.state.sessions.discard(self.headers.get(SESSION_HEADER))
        self._send(200)


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    # socketserver's default backlog is 5: a client that opens ten connections at
    # once would see SYNs dropped and retried a second later. Not what we measure.
    request_queue_size = 128

    def handle_error(self, request, client_address):
        # A client that hangs up mid-request is normal at close; anything else is worth a trace.
        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            return
        super().handle_error(request, client_address)


def serve(port=0, sse=False, chunked=False, watch_stdin=False, host="127.0.0.1"):
    Handler.state = State(sse, chunked)
    server = Server((host, port), Handler)
    print("listening on http://%s:%d/mcp" % (host, server.server_address[1]), flush=True)
    if watch_stdin:

        def watch():
            try:
                while sys.stdin.buffer.read(4096):
                    pass
            finally:
                # EOF: the parent is gone or done. Exit at once; connection
                # threads are daemons and hold nothing worth a clean close.
                sys.stdout.flush()
                os._exit(0)

        threading.Thread(target=watch, name="stdin-watch", daemon=True).start()
    try:
        server.serve_forever(poll_interval=0.5)
    finally:
        server.server_close()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--json", action="store_true", help="answer requests with JSON bodies (default)")
    group.add_argument("--sse", action="store_true", help="answer each request with a one-event SSE body")
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (0: a free one)")
    parser.add_argument("--chunked", action="store_true", help="SSE bodies in chunked encoding, not Content-Length")
    parser.add_argument("--watch-stdin", action="store_true", help="exit when stdin reaches EOF")
    args = parser.parse_args(argv)
    serve(args.port, sse=args.sse, chunked=args.chunked, watch_stdin=args.watch_stdin)


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        pass
