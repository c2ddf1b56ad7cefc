"""result.ui and AppBridge against the MCP Apps example servers of the extension's own project (npm:
``@modelcontextprotocol/server-basic-vanillajs`` and ``server-budget-allocator``, over stdio), without
a browser: the view found from the tool's ``_meta.ui``, read from the server, put under its policy, and
the view's own tool call answered through the bridge. (tests/edges/apps_browser/ renders them.)

Skipped when the packages are not installed in tests/interop/node (``make test`` installs them)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import mcpsync

T = 30
SERVERS = Path(__file__).resolve().parent.parent / "interop" / "node" / "node_modules" / "@modelcontextprotocol"
CASES = [("server-basic-vanillajs", "get-time"), ("server-budget-allocator", "get-budget-data")]
INIT = {"appInfo": {"name": "v", "version": "1"}, "appCapabilities": {}, "protocolVersion": "2026-01-26"}


def command(package: str) -> list[str]:
    node = shutil.which("node")
    script = SERVERS / package / "dist" / "index.js"
    if node is None or not script.exists():
        pytest.skip(f"{package} is not installed in tests/interop/node (npm ci --prefix tests/interop/node)")
    return [node, str(script), "--stdio"]


@pytest.mark.parametrize("package, tool", CASES)
def test_an_example_servers_view_is_read_put_under_its_policy_and_bridged(package: str, tool: str) -> None:
    """The tool's view: its HTML from the server, a policy of 'none' but inline script and what the
    resource declares, the CSP first in the srcdoc; the bridge initializes the view with the tool and
    forwards the view's own call of the tool to the server."""
    with mcpsync.connect(command(package), apps=True, timeout=T) as client:
        listed = next(t for t in client.list_tools(timeout=T) if t.name == tool)
        assert listed.ui is not None and listed.ui.resource_uri and "app" in listed.ui.visibility
        result = client.call_tool(tool, {}, timeout=T)
        view = result.ui
        assert view is not None and view.resource_uri == listed.ui.resource_uri
        assert "<html" in view.html.lower() and "<script" in view.html.lower()
        policy = view.content_security_policy
        assert policy.startswith("default-src 'none'; script-src 'unsafe-inline'")
        assert view.sandbox == "allow-scripts"
        srcdoc = view.srcdoc()
        assert srcdoc.index("Content-Security-Policy") < srcdoc.lower().index("<script")
        bridge = mcpsync.AppBridge(client, view)
        init = bridge.handle(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ui/initialize", "params": INIT}))
        assert init["result"]["hostContext"]["toolInfo"]["tool"]["name"] == tool
        call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": tool, "arguments": {}}}
        answer = bridge.handle(call)
        assert "result" in answer and answer["result"].get("isError") is not True, answer
