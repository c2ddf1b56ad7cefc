"""Minimal MCP server over stdio, used as the common target of the benchmarks.

Standard library only, single-threaded, newline-delimited JSON-RPC 2.0 on
stdin/stdout. It does as little work per message as possible so that the
benchmarks measure the clients, not the server.

Requests are answered by ``minimal_mcp.answer`` (shared with
``minimal_http_server.py``):

  initialize        -> echoes the client's protocolVersion if it is one of
                       SUPPORTED_VERSIONS, otherwise LATEST_VERSION
  notifications     -> ignored (any message with a method and no id)
  ping              -> {}
  tools/list        -> one tool, ``echo`` (string argument ``text``)
  tools/call echo   -> {"content": [{"type": "text", "text": text}], "isError": false}
  anything else     -> JSON-RPC error -32601 (method not found)

``server/discover`` (which newer official-SDK clients send first, in their
default ``mode="auto"``) is just another unknown method: the -32601 answer
makes those clients fall back to the ``initialize`` handshake.

Exits when stdin reaches EOF.

Run: ``python benchmarks/minimal_server.py``
"""

import json
import sys

from minimal_mcp import INVALID_REQUEST, PARSE_ERROR, answer, error_response

SERVER_NAME = "minimal"


def handle_line(line):
    """Return the response object for one input line, or None if no answer is due."""
    try:
        message = json.loads(line)
    except ValueError:
        return error_response(None, PARSE_ERROR, "Parse error")
    if not isinstance(message, dict):
        # Batches (JSON arrays) are not part of current MCP revisions.
        return error_response(None, INVALID_REQUEST, "Invalid Request")
    if "id" not in message:
        return None  # a notification (or malformed): nothing to answer
    if not isinstance(message.get("method"), str):
        if "result" in message or "error" in message:
            return None  # a response to a server->client request; we never send any
        return error_response(message["id"], INVALID_REQUEST, "Invalid Request")
    return answer(message, SERVER_NAME)


def main():
    stdin = sys.stdin.buffer
    stdout = sys.stdout.buffer
    dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
    while True:
        line = stdin.readline()
        if not line:
            break  # EOF: the client closed our stdin
        line = line.strip()
        if not line:
            continue
        response = handle_line(line)
        if response is not None:
            try:
                stdout.write(dumps(response).encode("utf-8") + b"\n")
                stdout.flush()
            except (BrokenPipeError, OSError):
                break  # the client went away


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        pass
