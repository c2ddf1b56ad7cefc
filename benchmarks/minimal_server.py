"""The benchmark's stdio server: newline-delimited JSON-RPC on stdin/stdout, one tool, ``echo``.

    python benchmarks/minimal_server.py

Standard library only, single-threaded, and as little work per message as
possible, so that the benchmark measures the clients, not the server. It
exits when stdin reaches EOF. ``answer()`` is shared with
``minimal_http_server.py``:

  initialize       -> the client's protocolVersion if we support it, else our latest
  ping             -> {}
  tools/list       -> the one tool, ``echo`` (the official SDK asks before its first call)
  tools/call echo  -> {"content": [{"type": "text", "text": <text>}], "isError": false}
  anything else    -> -32601, ``server/discover`` included: the official SDK probes it
                      first and falls back to ``initialize`` on this answer
"""

import json
import sys

VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
ECHO_TOOL = {
    "name": "echo",
    "description": "Returns its text argument unchanged.",
    "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
}
dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def error(request_id, code, text):
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": text}}


def result(message):
    """The result of a known request, or None for a method we do not implement."""
    method, params = message["method"], message.get("params") or {}
    if method == "tools/call" and params.get("name") == "echo":
        return {"content": [{"type": "text", "text": params["arguments"]["text"]}], "isError": False}
    if method == "initialize":
        asked = params.get("protocolVersion")
        return {
            "protocolVersion": asked if asked in VERSIONS else VERSIONS[-1],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "minimal", "version": "1.0"},
        }
    if method == "tools/list":
        return {"tools": [ECHO_TOOL]}
    if method == "ping":
        return {}
    return None


def answer(message):
    """The response to one request (a dict with an id and a method)."""
    try:
        found = result(message)
    except (KeyError, TypeError, AttributeError):
        return error(message["id"], -32602, "Invalid params")
    if found is None:
        return error(message["id"], -32601, "Method not found: %s" % message["method"])
    return {"jsonrpc": "2.0", "id": message["id"], "result": found}


def main():
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    for line in stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue  # a blank line, or garbage: nothing to answer
        if not isinstance(message, dict) or "id" not in message or "method" not in message:
            continue  # notifications, and answers to requests we never send
        try:
            stdout.write(dumps(answer(message)).encode() + b"\n")
            stdout.flush()
        except OSError:
            break  # the client went away


if __name__ == "__main__":
    main()
