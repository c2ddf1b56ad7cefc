"""The benchmark's stdio server: newline-delimited JSON-RPC on stdin/stdout, one tool, ``echo``.

    python benchmarks/minimal_server.py [--modern]

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

With ``--modern`` it speaks only the 2026-07-28 revision: ``server/discover``
answers, ``initialize`` is -32601, every request must carry the revision in
its ``_meta`` (else -32022), and every result says ``resultType``. A client
that cannot speak the revision fails, rather than being measured in the other era.
"""

import json
import sys

VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
MODERN_VERSION = "2026-07-28"
VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
DISCOVER = {
    "supportedVersions": [MODERN_VERSION],
    "capabilities": {"tools": {}},
    "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "minimal", "version": "1.0"}},
    "resultType": "complete",
    "ttlMs": 0,
    "cacheScope": "private",
}
ECHO_TOOL = {
    "name": "echo",
    "description": "Returns its text argument unchanged.",
    "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
}
dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def error(request_id, code, text):
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": text}}


def result(message, modern=False):
    """The result of a known request, or None for a method we do not implement."""
    method, params = message["method"], message.get("params") or {}
    if method == "tools/call" and params.get("name") == "echo":
        text = params["arguments"]["text"]
        if modern:
            return {"content": [{"type": "text", "text": text}], "isError": False, "resultType": "complete"}
        return {"content": [{"type": "text", "text": text}], "isError": False}
    if modern:
        if method == "server/discover":
            return DISCOVER
        if method == "tools/list":
            return {"tools": [ECHO_TOOL], "resultType": "complete", "ttlMs": 0, "cacheScope": "private"}
        return None
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


def answer(message, modern=False):
    """The response to one request (a dict with an id and a method)."""
    try:
        if modern and (message.get("params") or {}).get("_meta", {}).get(VERSION_KEY) != MODERN_VERSION:
            return error(message["id"], -32022, "Unsupported protocol version")
        found = result(message, modern)
    except (KeyError, TypeError, AttributeError):
        return error(message["id"], -32602, "Invalid params")
    if found is None:
        return error(message["id"], -32601, "Method not found: %s" % message["method"])
    return {"jsonrpc": "2.0", "id": message["id"], "result": found}


def main():
    modern = sys.argv[1:] == ["--modern"]
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    for line in stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue  # a blank line, or garbage: nothing to answer
        if not isinstance(message, dict) or "id" not in message or "method" not in message:
            continue  # notifications, and answers to requests we never send
        try:
            stdout.write(dumps(answer(message, modern)).encode() + b"\n")
            stdout.flush()
        except OSError:
            break  # the client went away


if __name__ == "__main__":
    main()
