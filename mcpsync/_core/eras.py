"""The two protocol eras: what a request of the 2026-07-28 revision carries, and how eras are told apart.

- **Legacy** (2025-11-25 and earlier): an ``initialize`` handshake opens a
  session; the version is agreed once.
- **Modern** (2026-07-28): no handshake. Every request carries its protocol
  version, the client's capabilities and identity in ``_meta``
  (``request_meta``); over HTTP, ``MCP-Protocol-Version`` equals the
  ``_meta`` value, ``Mcp-Method`` names the method and ``Mcp-Name`` the tool,
  prompt or resource (``http_headers``), values that are not plain ASCII
  encoded as ``=?base64?...?=`` (``header_value``).

A client that speaks both probes with ``server/discover``; a recognized
modern error (``MODERN_ERRORS``) means a modern server, any other error a
legacy one (``is_modern_error``). Pure functions: no I/O.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Mapping
from typing import Any, Optional

from .errors import TransportError

__all__ = [
    "CLIENT_CAPABILITIES",
    "CLIENT_INFO",
    "HEADER_MISMATCH",
    "LEGACY_VERSIONS",
    "LOG_LEVEL",
    "MAX_NAME_HEADER",
    "MISSING_CAPABILITY",
    "MODERN_ERRORS",
    "MODERN_VERSIONS",
    "PROTOCOL_VERSION",
    "SERVER_INFO",
    "UNSUPPORTED_VERSION",
    "header_problems",
    "header_value",
    "http_headers",
    "is_modern_error",
    "name_header_problem",
    "param_headers",
    "request_meta",
    "result_type",
    "with_meta",
]

#: The modern revisions we speak, newest first.
MODERN_VERSIONS = ("2026-07-28",)
#: The legacy revisions we negotiate at ``initialize``, newest first.
LEGACY_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")

PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion"
CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
CLIENT_INFO = "io.modelcontextprotocol/clientInfo"
SERVER_INFO = "io.modelcontextprotocol/serverInfo"
#: The log level a modern request asks for (the revision's replacement of ``logging/setLevel``).
LOG_LEVEL = "io.modelcontextprotocol/logLevel"

#: JSON-RPC errors only a modern server sends.
HEADER_MISMATCH = -32020
MISSING_CAPABILITY = -32021
UNSUPPORTED_VERSION = -32022
MODERN_ERRORS = frozenset((HEADER_MISMATCH, MISSING_CAPABILITY, UNSUPPORTED_VERSION))

# Every check below is a fullmatch: ``$`` would also match before a final newline ("Q\n").
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
#: The types whose values a tool may mirror into a header (``x-mcp-header``).
_HEADER_TYPES = ("string", "integer", "boolean")
_SENTINEL = re.compile(r"=\?base64\?.*\?=", re.DOTALL)
_PLAIN = re.compile(r"[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?")
#: The longest ``Mcp-Name`` a tool's name may make (encoded): past it, common proxies and servers
#: (nginx's 8 KiB header line) refuse the request, so the tool could not be called.
MAX_NAME_HEADER = 8192


def request_meta(version: str, capabilities: Mapping[str, Any], client_info: Mapping[str, Any]) -> dict[str, Any]:
    """The ``_meta`` every modern request carries."""
    return {PROTOCOL_VERSION: version, CLIENT_CAPABILITIES: dict(capabilities), CLIENT_INFO: dict(client_info)}


def with_meta(params: Optional[Mapping[str, Any]], meta: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``params`` whose ``_meta`` holds ``meta`` too: what the caller put there stays, but
    where a key is the era's own (the version, capabilities, identity, log level) the era's wins, as
    the request's HTTP headers are built from it and a body that said otherwise would be refused."""
    merged = dict(params or {})
    own = merged.get("_meta")
    if own is None:  # the usual: the caller's request has no _meta of its own
        merged["_meta"] = dict(meta)
    else:
        merged["_meta"] = {**own, **meta} if isinstance(own, Mapping) else dict(meta)
    return merged


def header_value(value: Any) -> str:
    """A value as an HTTP header carries it: plain ASCII as it is; ``true`` / ``false`` and integers
    as written; anything else (non-ASCII, control characters, tabs, surrounding white space, or text
    that looks like the sentinel) as ``=?base64?<UTF-8 in base64>?=``.

    The text is the one the request's JSON body holds (a number as ``json`` writes it, whatever
    an ``int`` subclass's ``__str__`` says; a ``str`` subclass's own characters), and the check is
    made on that final text whatever the value's type: nothing is sent as it is that is not plain
    visible ASCII (the HTTP client skips ``requests``' own header check: this one is the only one).

    Raises:
        TransportError: the text cannot be put in UTF-8 (a lone surrogate, which JSON can carry).
    """
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, int):
        text = int.__repr__(value)
    elif isinstance(value, float):
        text = float.__repr__(value)
    elif isinstance(value, str):
        text = str.__str__(value)
    else:
        text = str.__str__(str(value))
    if _PLAIN.fullmatch(text) and not _SENTINEL.fullmatch(text):
        return text
    try:
        encoded = text.encode("utf-8")
    except UnicodeEncodeError:
        raise TransportError(
            f"the value {text[:40]!r}{'...' if len(text) > 40 else ''} cannot travel in an HTTP header "
            "(it is not valid Unicode: a lone surrogate); not sent"
        ) from None
    return "=?base64?" + base64.b64encode(encoded).decode("ascii") + "?="


def name_header_problem(name: str) -> Optional[str]:
    """Why ``name`` (a tool's) cannot travel as an ``Mcp-Name`` header, or ``None`` when it can."""
    try:
        value = header_value(name)
    except TransportError:
        return "its name is not valid Unicode (a lone surrogate), so it cannot travel as an Mcp-Name header"
    if len(value) > MAX_NAME_HEADER:
        return f"its name makes an Mcp-Name header of {len(value)} bytes, over the {MAX_NAME_HEADER} one may have"
    return None


def http_headers(version: str, method: str, params: Optional[Mapping[str, Any]]) -> dict[str, str]:
    """The standard headers of a modern request over HTTP."""
    headers = {"MCP-Protocol-Version": version, "Mcp-Method": method}
    params = params or {}
    if method in ("tools/call", "prompts/get") and isinstance(params.get("name"), str):
        headers["Mcp-Name"] = header_value(params["name"])
    elif method in ("resources/read",) and isinstance(params.get("uri"), str):
        headers["Mcp-Name"] = header_value(params["uri"])
    elif method in ("tasks/get", "tasks/update", "tasks/cancel") and isinstance(params.get("taskId"), str):
        headers["Mcp-Name"] = header_value(params["taskId"])  # the tasks extension: intermediaries route by it
    return headers


def is_modern_error(code: Any) -> bool:
    """Whether a JSON-RPC error code is one only modern servers send (the era probe's test)."""
    return code in MODERN_ERRORS


def result_type(result: Mapping[str, Any]) -> str:
    """A result's ``resultType``; ``"complete"`` when it has none (servers of earlier revisions)."""
    kind = result.get("resultType")
    return kind if isinstance(kind, str) else "complete"


def header_problems(input_schema: Any) -> list[str]:
    """What is wrong with a tool's ``x-mcp-header`` annotations (``[]``: nothing), each said as a rule.

    An annotation must be a non-empty name of RFC 9110 token characters, unique (without case)
    within the tool, on a property of type ``string``, ``integer`` or ``boolean``.
    """
    properties = input_schema.get("properties") if isinstance(input_schema, Mapping) else None
    if not isinstance(properties, Mapping):
        return []
    problems: list[str] = []
    seen: dict[str, str] = {}
    for name, schema in properties.items():
        if not isinstance(schema, Mapping) or "x-mcp-header" not in schema:
            continue
        header = schema["x-mcp-header"]
        if not isinstance(header, str) or not header:
            problems.append(f"the x-mcp-header of {name!r} is empty or not a string")
            continue
        if not _TOKEN.fullmatch(header):
            problems.append(f"the x-mcp-header {header!r} of {name!r} has characters a header name cannot have")
        kind = schema.get("type")
        if kind not in _HEADER_TYPES:
            problems.append(
                f"the x-mcp-header {header!r} is on {name!r} of type {kind!r}, not string, integer or boolean"
            )
        other = seen.setdefault(header.lower(), name)
        if other != name:
            problems.append(f"the x-mcp-header {header!r} names both {other!r} and {name!r}")
    return problems


def param_headers(input_schema: Any, arguments: Optional[Mapping[str, Any]]) -> dict[str, str]:
    """The ``Mcp-Param-<Name>`` headers of a call: each annotated argument that is there and not null."""
    properties = input_schema.get("properties") if isinstance(input_schema, Mapping) else None
    if not isinstance(properties, Mapping) or not arguments:
        return {}
    headers = {}
    for name, schema in properties.items():
        if isinstance(schema, Mapping) and isinstance(schema.get("x-mcp-header"), str):
            value = arguments.get(name)
            if value is not None:
                headers[f"Mcp-Param-{schema['x-mcp-header']}"] = header_value(value)
    return headers
