"""Minimal MCP server over stdio, used as the common target of the benchmarks.

Standard library only, single-threaded, newline-delimited JSON-RPC 2.0 on
stdin/stdout. It does as little work per message as possible so that the
benchmarks measure the clients, not the server.

Handles:
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

SUPPORTED_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
LATEST_VERSION = "2025-11-25"

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602

ECHO_TOOL = {
    "name": "echo",
    "description": "Returns its text argument unchanged.",
    "inputSchema": {
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"],
    },
}


class RpcError(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message


def handle_initialize(params):
    requested = params.get("protocolVersion")
    version = requested if requested in SUPPORTED_VERSIONS else LATEST_VERSION
    return {
        "protocolVersion": version,
        "capabilities": {"tools": {}},
        "serverInfo": {"name": "minimal", "version": "1.0"},
    }


def handle_ping(params):
    return {}


def handle_tools_list(params):
    return {"tools": [ECHO_TOOL]}


def handle_tools_call(params):
    name = params.get("name")
    if name != "echo":
        raise RpcError(INVALID_PARAMS, "Unknown tool: %r" % (name,))
    arguments = params.get("arguments") or {}
    text = arguments.get("text") if isinstance(arguments, dict) else None
    if not isinstance(text, str):
        raise RpcError(INVALID_PARAMS, "echo needs a string argument 'text'")
    return {"content": [{"type": "text", "text": text}], "isError": False}


HANDLERS = {
    "initialize": handle_initialize,
    "ping": handle_ping,
    "tools/list": handle_tools_list,
    "tools/call": handle_tools_call,
}


def handle_line(line):
    """Return the response object for one input line, or None if no answer is due."""
    try:
        message = json.loads(line)
    except ValueError:
        return {"jsonrpc": "2.0", "id": None, "error": {"code": PARSE_ERROR, "message": "Parse error"}}
    if not isinstance(message, dict):
        # Batches (JSON arrays) are not part of current MCP revisions.
        return {"jsonrpc": "2.0", "id": None, "error": {"code": INVALID_REQUEST, "message": "Invalid Request"}}
    method = message.get("method")
    if "id" not in message:
        return None  # a notification (or malformed): nothing to answer
    request_id = message["id"]
    if not isinstance(method, str):
        if "result" in message or "error" in message:
            return None  # a response to a server->client request; we never send any
        return {"jsonrpc": "2.0", "id": request_id, "error": {"code": INVALID_REQUEST, "message": "Invalid Request"}}
    handler = HANDLERS.get(method)
    if handler is None:
        return {
            "jsonrpc": "2.0",
            "id": request_id,
            "error": {"code": METHOD_NOT_FOUND, "message": "Method not found: %s" % method},
        }
    params = message.get("params")
    if params is None:
        params = {}
    if not isinstance(params, dict):
        return {"jsonrpc": "2.0", "id": request_id, "error": {"code": INVALID_PARAMS, "message": "Invalid params"}}
    try:
        result = handler(params)
    except RpcError as exc:
        return {"jsonrpc": "2.0", "id": request_id, "error": {"code": exc.code, "message": exc.message}}
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


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
