"""MCP Apps in a real Jupyter kernel, without a browser: ``show_app`` makes a widget whose synced state
carries the view's srcdoc and policy, and the widget's comm carries a view's messages through the bridge
to the server and its answers back. (What a browser makes of them is tests/edges/apps_browser/.)

The cells run in a kernel of their own (tests/notebook_runner.py, as tests/edges/test_notebook.py does);
each cell prints what the test reads as JSON.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.deferred import deferred

# One group: the module's notebook (the cells fixture) runs once, on one worker, not once per worker.
pytestmark = [pytest.mark.kernel, pytest.mark.xdist_group("apps_notebook")]

deferred("nbclient")  # skipped here when not installed
deferred("ipykernel")  # skipped here when not installed
deferred("anywidget")  # skipped here when not installed
nbformat = deferred("nbformat")

RUNNER = Path(__file__).parent.parent / "notebook_runner.py"
RUN_TIMEOUT = 300
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"

CELLS = [
    # 0: the client, in a kernel with anywidget: apps=None declares the extension
    # (PYTHONPATH passed on: a stdio server gets only a safe environment, and must run the mcpsync under test)
    "import os, sys, json, threading, mcpsync\n"
    "server = mcpsync.StdioServerConfig(command=sys.executable, args=['-m', 'mcpsync.testing'],\n"
    "    env={'PYTHONPATH': os.environ.get('PYTHONPATH', '')})\n"
    "client = mcpsync.connect(server, timeout=30)\n"
    "print(json.dumps(client.capabilities.get('extensions', {}).get('io.modelcontextprotocol/ui')))",
    # 1: show_app's widget and its synced state
    "w = mcpsync.show_app(client, 'show_dashboard', {'title': 'q'})\n"
    "state = w.get_state()\n"
    "print(json.dumps({'kind': type(w).__name__, 'csp': state['csp'], 'sandbox': state['sandbox'],\n"
    "    'srcdoc_head': state['srcdoc'][:200], 'has_call_button': 'id=\"call\"' in state['srcdoc'],\n"
    "    'comm': w.comm is not None}))",
    # 2: a view's messages arrive on the comm as the page would send them; what goes back is recorded
    "sent = []\n"
    "w.comm.send = lambda data=None, metadata=None, buffers=None: sent.append(data)\n"
    "def from_view(message):\n"
    "    content = {'type': 'from-view', 'message': json.dumps(message)}\n"
    "    w.comm.handle_msg({'content': {'data': {'method': 'custom', 'content': content}}, 'buffers': []})\n"
    "init = {'appInfo': {'name': 'v', 'version': '1'}, 'appCapabilities': {}, 'protocolVersion': '2026-01-26'}\n"
    "from_view({'jsonrpc': '2.0', 'id': 1, 'method': 'ui/initialize', 'params': init})\n"
    "from_view({'jsonrpc': '2.0', 'method': 'ui/notifications/initialized', 'params': {}})\n"
    "from_view({'jsonrpc': '2.0', 'id': 2, 'method': 'tools/call', 'params': {'name': 'refresh_dashboard'}})\n"
    "from_view({'jsonrpc': '2.0', 'id': 3, 'method': 'tools/call', 'params': {'name': 'dashboard_export'}})\n"
    "text = [{'type': 'text', 'text': 'hello from the view'}]\n"
    "from_view({'jsonrpc': '2.0', 'id': 4, 'method': 'ui/message', 'params': {'role': 'user', 'content': text}})\n"
    "from_view({'jsonrpc': '2.0', 'id': 5, 'method': 'ui/open-link', 'params': {'url': 'javascript:alert(1)'}})\n"
    "from_view({'jsonrpc': '2.0', 'id': 6, 'method': 'ui/open-link', 'params': {'url': 'https://example.com/'}})\n"
    "from_view({'jsonrpc': '2.0', 'method': 'ui/notifications/size-changed', 'params': {'height': 500}})\n"
    "for call in list(w._calls):\n"
    "    call.join(30)\n"
    "print(json.dumps({'sent': sent}))",
    # 3: a tool result with a view, as a cell's last value, displays as the widget (HTML beside it)
    "client.call_tool('show_dashboard')",
    # 4: one without a view displays as before
    "client.call_tool('echo', {'text': 'plain'})",
    # 5: the widget as a cell's last value: what a saved notebook shows without a kernel (issue 37, point 9)
    "w",
    # 6: closing leaves nothing behind
    "w.close()\n"
    "client.close()\n"
    "print(json.dumps({'comm': w.comm is not None,\n"
    "    'threads': [t.name for t in threading.enumerate() if t.name.startswith('mcpsync')]}))",
]


@pytest.fixture(scope="module")
def cells(tmp_path_factory: pytest.TempPathFactory) -> list[Any]:
    """The cells, run once in a real kernel."""
    folder = tmp_path_factory.mktemp("apps")
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(source) for source in CELLS]
    source = folder / "apps.ipynb"
    nbformat.write(notebook, source)
    out = folder / "executed.ipynb"
    done = subprocess.run(
        [sys.executable, str(RUNNER), "execute", str(source), str(out)],
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return list(nbformat.read(out, as_version=4).cells)


def printed(cell: Any) -> Any:
    """The JSON a cell printed."""
    text = "".join(output["text"] for output in cell.outputs if output["output_type"] == "stream")
    return json.loads(text)


def data_of(cell: Any) -> dict[str, Any]:
    """The mime bundle of a cell's result."""
    results = [output for output in cell.outputs if output["output_type"] == "execute_result"]
    assert len(results) == 1, cell.outputs
    return dict(results[0]["data"])


@pytest.mark.slow(
    "the first of the module: its setup runs the module's notebook in a Jupyter kernel (the cells fixture)"
)
def test_in_a_notebook_the_extension_is_declared_by_default(cells):
    """In a kernel with anywidget, apps=None declares io.modelcontextprotocol/ui with the MCP App MIME type."""
    assert printed(cells[0]) == {"mimeTypes": ["text/html;profile=mcp-app"]}


def test_show_app_makes_a_widget_whose_state_carries_the_srcdoc_and_the_policy(cells):
    """show_app's AppWidget syncs to the page the srcdoc (the policy first), the CSP and the sandbox."""
    state = printed(cells[1])
    assert state["kind"] == "AppWidget" and state["comm"]
    assert state["sandbox"] == "allow-scripts"
    assert (
        state["csp"].startswith("default-src 'none';") and "connect-src https://api.dashboard.invalid;" in state["csp"]
    )
    assert state["srcdoc_head"].startswith('<!DOCTYPE html><meta http-equiv="Content-Security-Policy"')
    assert state["has_call_button"]


def test_the_views_messages_travel_the_comm_through_the_bridge_and_back(cells):
    """Every answer goes back on the comm as a custom message to the view: initialize's, then the tool's
    input and result after initialized, the app-only tool's answer, the model-only tool refused, the
    message shown (a state change), a javascript: link refused, an https one handed to the page."""
    sent = printed(cells[2])["sent"]
    custom = [d["content"] for d in sent if d.get("method") == "custom"]
    to_view = [c["message"] for c in custom if c["type"] == "to-view"]
    by_id = {m["id"]: m for m in to_view if "id" in m}
    assert by_id[1]["result"]["hostInfo"]["name"] == "mcpsync"
    notified = [m["method"] for m in to_view if "id" not in m]
    assert notified == ["ui/notifications/tool-input", "ui/notifications/tool-result"]
    assert next(m["params"] for m in to_view if "id" not in m) == {"arguments": {"title": "q"}}
    assert by_id[2]["result"]["content"][0]["text"] == "the dashboard's data is refreshed"
    assert "not for apps" in by_id[3]["error"]["message"]
    assert by_id[4]["result"] == {}
    assert by_id[5]["error"]["code"] == -32602
    assert by_id[6]["result"] == {}
    assert [c["url"] for c in custom if c["type"] == "open-link"] == ["https://example.com/"]
    updates = [d["state"] for d in sent if d.get("method") == "update"]
    assert {"messages": ["hello from the view"]} in updates and {"height": 500} in updates


def test_a_result_with_a_view_displays_as_the_widget_with_its_html_beside(cells):
    """A result with a view as a cell's last value: a widget view in the bundle, HTML beside it; a result without a view: no widget."""
    bundle = data_of(cells[3])
    assert WIDGET_VIEW in bundle and "text/html" in bundle
    assert WIDGET_VIEW not in data_of(cells[4])


def test_a_saved_notebook_names_the_view_without_a_kernel(cells):
    """The widget's bundle: the widget view, and for a page without a kernel a text and an HTML box that
    name the view, its tool and server (no ``<... object at 0x...>``)."""
    bundle = data_of(cells[5])
    assert WIDGET_VIEW in bundle
    plain = bundle["text/plain"]
    assert plain.startswith("<MCP App view 'ui://") and "of tool 'show_dashboard'" in plain and "0x" not in plain
    assert "drawn while its kernel runs" in bundle["text/html"] and "show_dashboard" in bundle["text/html"]


def test_closing_leaves_no_comm_and_no_thread(cells):
    """After close(), the widget has no comm and no mcpsync thread is left in the kernel."""
    assert printed(cells[6]) == {"comm": False, "threads": []}
