"""The MCP answering logic shared by the benchmark's minimal servers: pure functions, no I/O.

``minimal_server.py`` (stdio) and ``minimal_http_server.py`` (Streamable
HTTP) differ only in transport: how a message arrives, how envelope errors
are reported, sessions. What a request gets back is decided here:

  initialize        -> echoes the client's protocolVersion if it is one of
                       SUPPORTED_VERSIONS, otherwise LATEST_VERSION
  ping              -> {}
  tools/list        -> one tool, ``echo`` (string argument ``text``)
  tools/call echo   -> {"content": [{"type": "text", "text": text}], "isError": false}
  anything else     -> JSON-RPC error -32601 (method not found)

Standard library only, and as little work per message as possible, so that
the benchmarks measure the clients, not the server.
"""

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


def handle_initialize(params, server_name):
    requested = params.get("protocolVersion")
    return {
        "protocolVersion": requested if requested in SUPPORTED_VERSIONS else LATEST_VERSION,
        "capabilities": {"tools": {}},
        "serverInfo": {"name": server_name, "version": "1.0"},
    }


def handle_ping(params, server_name):
    return {}


def handle_tools_list(params, server_name):
    return {"tools": [ECHO_TOOL]}


def handle_tools_call(params, server_name):
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


def error_response(request_id, code, message):
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


def is_request(message):
    """True for a JSON-RPC request (an object with an id and a string method), which gets an answer."""
    return "id" in message and isinstance(message.get("method"), str)


def is_known(method):
    """True if `method` is one this server implements (anything else is answered with -32601)."""
    return method in HANDLERS


def answer(message, server_name):
    """The response object (result or error) to one request; see is_request()."""
    request_id = message["id"]
    method = message["method"]
    handler = HANDLERS.get(method)
    if handler is None:
        return error_response(request_id, METHOD_NOT_FOUND, "Method not found: %s" % method)
    params = message.get("params")
    if params is None:
        params = {}
    if not isinstance(params, dict):
        return error_response(request_id, INVALID_PARAMS, "Invalid params")
    try:
        result = handler(params, server_name)
    except RpcError as exc:
        return error_response(request_id, exc.code, exc.message)
    return {"jsonrpc": "2.0", "id": request_id, "result": result}
