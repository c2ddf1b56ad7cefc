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

__all__ = [
    "CLIENT_CAPABILITIES",
    "CLIENT_INFO",
    "HEADER_MISMATCH",
    "LEGACY_VERSIONS",
    "LOG_LEVEL",
    "MISSING_CAPABILITY",
    "MODERN_ERRORS",
    "MODERN_VERSIONS",
    "PROTOCOL_VERSION",
    "SERVER_INFO",
    "UNSUPPORTED_VERSION",
    "header_value",
    "http_headers",
    "is_modern_error",
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

_SENTINEL = re.compile(r"^=\?base64\?.*\?=$", re.DOTALL)
_PLAIN = re.compile(r"^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$")


def request_meta(version: str, capabilities: Mapping[str, Any], client_info: Mapping[str, Any]) -> dict[str, Any]:
    """The ``_meta`` every modern request carries."""
    return {PROTOCOL_VERSION: version, CLIENT_CAPABILITIES: dict(capabilities), CLIENT_INFO: dict(client_info)}


def with_meta(params: Optional[Mapping[str, Any]], meta: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``params`` whose ``_meta`` holds ``meta`` too (what the caller put there stays)."""
    merged = dict(params or {})
    own = merged.get("_meta")
    merged["_meta"] = {**meta, **own} if isinstance(own, Mapping) else dict(meta)
    return merged


def header_value(value: Any) -> str:
    """A value as an HTTP header carries it: plain ASCII as it is; ``true`` / ``false`` and integers
    as written; anything else (non-ASCII, control characters, tabs, surrounding white space, or text
    that looks like the sentinel) as ``=?base64?<UTF-8 in base64>?=``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    text = value if isinstance(value, str) else str(value)
    if _PLAIN.match(text) and not _SENTINEL.match(text):
        return text
    return "=?base64?" + base64.b64encode(text.encode("utf-8")).decode("ascii") + "?="


def http_headers(version: str, method: str, params: Optional[Mapping[str, Any]]) -> dict[str, str]:
    """The standard headers of a modern request over HTTP."""
    headers = {"MCP-Protocol-Version": version, "Mcp-Method": method}
    params = params or {}
    if method in ("tools/call", "prompts/get") and isinstance(params.get("name"), str):
        headers["Mcp-Name"] = header_value(params["name"])
    elif method in ("resources/read",) and isinstance(params.get("uri"), str):
        headers["Mcp-Name"] = header_value(params["uri"])
    return headers


def is_modern_error(code: Any) -> bool:
    """Whether a JSON-RPC error code is one only modern servers send (the era probe's test)."""
    return code in MODERN_ERRORS


def result_type(result: Mapping[str, Any]) -> str:
    """A result's ``resultType``; ``"complete"`` when it has none (servers of earlier revisions)."""
    kind = result.get("resultType")
    return kind if isinstance(kind, str) else "complete"
