"""The 2026-07-28 revision's standard headers, checked against the body of the request they came with.

``MCP-Protocol-Version`` must equal the ``_meta`` version, ``Mcp-Method`` the method, ``Mcp-Name`` the
tool, prompt or resource (``=?base64?...?=`` decoded), and each ``Mcp-Param-*`` of an ``x-mcp-header``
argument its value (numbers compared as numbers); else the HTTP server answers 400 with -32020.
"""

from __future__ import annotations

import base64
from email.message import Message
from typing import Any, Optional

__all__ = ["header_mismatch"]


def header_mismatch(
    headers: Message[str, str], message: dict[str, Any], version: str, tools: list[dict[str, Any]]
) -> Optional[str]:
    """What the standard headers of a modern POST get wrong (``None``: nothing); ``tools``: the tools listed."""
    method = message["method"]
    params: dict[str, Any] = message["params"] if isinstance(message.get("params"), dict) else {}
    sent = headers.get("MCP-Protocol-Version")
    if sent != version:
        return f"MCP-Protocol-Version header {sent!r} does not match the body's {version!r}"
    if headers.get("Mcp-Method") != method:
        return f"Mcp-Method header {headers.get('Mcp-Method')!r} does not match the body's {method!r}"
    named = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}.get(method)
    if named is not None:
        header = headers.get("Mcp-Name")
        if header is None or _decoded(header) != params.get(named):
            return f"Mcp-Name header {header!r} does not match the body's {params.get(named)!r}"
    if method == "tools/call":
        arguments: dict[str, Any] = params["arguments"] if isinstance(params.get("arguments"), dict) else {}
        tool = next((t for t in tools if t["name"] == params.get("name")), None)
        properties = (tool or {}).get("inputSchema", {}).get("properties", {})
        for name, schema in properties.items():
            header_name = schema.get("x-mcp-header") if isinstance(schema, dict) else None
            value = arguments.get(name)
            if not isinstance(header_name, str) or not header_name or value is None:
                continue
            header = headers.get(f"Mcp-Param-{header_name}")
            if header is None or not _same_value(_decoded(header), value):
                return f"Mcp-Param-{header_name} header {header!r} does not match the body's {value!r}"
    return None


def _decoded(header: str) -> str:
    """A header value as sent: ``=?base64?...?=`` decoded (UTF-8), anything else as it is."""
    if header.startswith("=?base64?") and header.endswith("?="):
        try:
            return base64.b64decode(header[len("=?base64?") : -2], validate=True).decode("utf-8")
        except ValueError:
            return header
    return header


def _same_value(header: str, value: Any) -> bool:
    """Whether a ``Mcp-Param-*`` header carries the body's value (numbers compared as numbers)."""
    if isinstance(value, bool):
        return header == ("true" if value else "false")
    if isinstance(value, (int, float)):
        try:
            return float(header) == float(value)
        except ValueError:
            return False
    return header == str(value)
