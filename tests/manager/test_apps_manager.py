"""MCP Apps through a Manager: ``client_options={"apps": True}`` reaches every client it makes."""

from __future__ import annotations

import sys
from pathlib import Path

import mcpsync

T = 20.0


def test_a_managers_clients_declare_the_extension_when_its_client_options_say_so(tmp_path: Path) -> None:
    """The test server's show_dashboard says what the client declared: the MIME type, through the manager;
    and the result the manager hands back has the view."""
    servers = {"s": {"command": sys.executable, "args": ["-m", "mcpsync.testing"]}}
    with mcpsync.Manager(
        {"mcpServers": servers}, tool_cache=False, startup_timeout=T, client_options={"apps": True}
    ) as manager:
        result = manager.call_tool("s__show_dashboard", timeout=T)
        assert result.structured_content["uiExtension"] == {"mimeTypes": ["text/html;profile=mcp-app"]}
        assert result.ui is not None and result.ui.resource_uri == "ui://dashboard/view.html"
