"""The benchmark's Streamable HTTP server: the answers of ``minimal_server.py`` over HTTP/1.1 keep-alive.

    python benchmarks/minimal_http_server.py --token TOKEN

Prints ``listening on http://127.0.0.1:PORT`` (a free port) and serves three
endpoints, which differ only in how they answer a POSTed request:

  /json    an ``application/json`` body
  /sse     a ``text/event-stream`` body of exactly one ``data:`` event, sized
           with Content-Length so that the connection can be reused
  /bearer  as /json, but every request must carry ``Authorization: Bearer TOKEN``;
           without it the answer is 401, so a client that drops the header fails
  /modern  as /json, in the 2026-07-28 revision only (``minimal_server.py --modern``):
           no session; ``MCP-Protocol-Version`` and ``Mcp-Method`` must match the body

Notifications get 202; every request but ``initialize`` needs the session id
the server handed out (400 without, 404 unknown); GET is 405 (no server
stream); DELETE ends the session. Each answer leaves in one write, Nagle off,
nothing logged. The server exits when its stdin reaches EOF, so a parent that
dies cannot leave it behind.
"""

import argparse
import json
import os
import sys
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from minimal_server import VERSION_KEY, answer, dumps, error

MODES = ("/json", "/sse", "/bearer", "/modern")
SESSIONS = set()  # the connection threads share it: add and discard are atomic under the GIL
REASONS = {200: "OK", 202: "Accepted", 400: "Bad Request", 401: "Unauthorized", 404: "Not Found", 405: "Not Allowed"}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive
    disable_nagle_algorithm = True
    token = None  # set by main()

    def log_message(self, format, *args):
        pass

    def send(self, status, body=b"", headers=()):
        """Status line, headers and body in one write: the client gets the answer in one segment."""
        head = ["HTTP/1.1 %d %s" % (status, REASONS[status]), "Content-Length: %d" % len(body), *headers]
        self.wfile.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body)

    def refused(self):
        """True if the request got an error answer already: an unknown path, or /bearer without the token."""
        if self.path not in MODES:
            self.send(404)
        elif self.path == "/bearer" and self.headers.get("Authorization") != "Bearer " + self.token:
            self.send(401, b"bearer token required", ['WWW-Authenticate: Bearer realm="bench"'])
        else:
            return False
        return True

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if self.refused():
            return
        message = json.loads(body)
        method, session = message.get("method"), self.headers.get("Mcp-Session-Id")
        if self.path == "/modern":
            return self.modern(message)
        extra = []
        if method == "initialize":
            session = uuid.uuid4().hex
            SESSIONS.add(session)
            extra.append("Mcp-Session-Id: " + session)
        elif method != "server/discover" and session not in SESSIONS:  # the SDK probes before it has one
            problem = dumps(error(message.get("id"), -32600, "unknown or missing session")).encode()
            return self.send(404 if session else 400, problem, ["Content-Type: application/json"])
        if "id" not in message or "method" not in message:
            return self.send(202)  # a notification
        data = dumps(answer(message)).encode()
        if self.path == "/sse":
            self.send(200, b"data: " + data + b"\n\n", ["Content-Type: text/event-stream", *extra])
        else:
            self.send(200, data, ["Content-Type: application/json", *extra])

    def modern(self, message):
        """A 2026-07-28 request: no session; the headers must say what the body says."""
        if "id" not in message or "method" not in message:
            return self.send(202)
        meta = (message.get("params") or {}).get("_meta", {})
        if (self.headers.get("Mcp-Method"), self.headers.get("MCP-Protocol-Version")) != (
            message["method"],
            meta.get(VERSION_KEY),
        ):
            problem = dumps(error(message["id"], -32020, "headers do not match the body")).encode()
            return self.send(400, problem, ["Content-Type: application/json"])
        self.send(200, dumps(answer(message, modern=True)).encode(), ["Content-Type: application/json"])

    def do_GET(self):
        if not self.refused():
            self.send(405, headers=["Allow: POST, DELETE"])

    def do_DELETE(self):
        if not self.refused():
            SESSIONS.discard(self.headers.get("Mcp-Session-Id"))
            self.send(200)


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # the default 5 drops SYNs when a client opens ten connections at once

    def handle_error(self, request, client_address):
        if not isinstance(sys.exc_info()[1], ConnectionError):  # a client hanging up at close is normal
            super().handle_error(request, client_address)


def exit_on_eof():
    """Exit as soon as stdin closes: the parent is done, or gone."""
    while sys.stdin.buffer.read(4096):
        pass
    os._exit(0)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--token", required=True, help="the bearer token /bearer requires")
    Handler.token = parser.parse_args().token
    server = Server(("127.0.0.1", 0), Handler)
    print("listening on http://127.0.0.1:%d" % server.server_address[1], flush=True)
    threading.Thread(target=exit_on_eof, daemon=True).start()
    server.serve_forever()


if __name__ == "__main__":
    main()
