"""MCP Apps (issue 27) in a real notebook: JupyterLab started by the test, Debian's Chromium driven by
Playwright, the views of the bundled test server and of the ext-apps example servers from npm rendered
by ``mcpsync.show_app``, and what a user and a hostile view can do with them checked in the page."""

from __future__ import annotations

import http.server
import os
import re
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest

from tests.edges.apps_browser.lab import (
    DOM_WAIT,
    IN_JUPYTERLAB,
    REPO,
    JupyterLab,
    NotebookPage,
    copy_notebook,
    free_port,
    write_notebook,
)

try:
    from playwright.sync_api import expect
except ImportError:  # the fixtures skip every test, saying what is missing
    expect = None

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

EXAMPLE = REPO / "examples" / "apps.ipynb"
NODE_MODULES = REPO / "tests" / "interop" / "node" / "node_modules" / "@modelcontextprotocol"
BASIC_VANILLAJS = NODE_MODULES / "server-basic-vanillajs" / "dist" / "index.js"
BUDGET_ALLOCATOR = NODE_MODULES / "server-budget-allocator" / "dist" / "index.js"
#: The categories server-budget-allocator's tool returns, each with a slider in its view.
BUDGET_CATEGORIES = ("Marketing", "Engineering", "Operations", "Sales", "R&D")
NPM_MISSING = "the ext-apps example servers are not installed (make test runs npm ci in tests/interop/node)"
#: Set to a folder (docs/images) to keep the screenshots of the rendered views there.
SCREENSHOTS = os.environ.get("MCPSYNC_APP_SCREENSHOTS")
#: Screenshots taken, at most, waiting for a view to stop changing.
SCREENSHOT_TRIES = 30

#: The kernel's own state, printed by a cell: its threads' names and its child processes (read from
#: /proc: a process whose parent is the kernel), so that a later cell can compare. The threads of
#: ipykernel's subshells are left out: JupyterLab asks the kernel for one when a widget is shown, and
#: it is the kernel's, not ours to stop.
KERNEL_STATE = """
import os, threading

def kernel_state():
    me, children = str(os.getpid()), []
    for entry in os.listdir('/proc'):
        try:
            with open(f'/proc/{entry}/stat') as stat:
                fields = stat.read().rsplit(')', 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields[1] == me:
            children.append(int(entry))
    threads = [t.name for t in threading.enumerate() if not t.name.startswith('subshell-')]
    return sorted(threads), sorted(children)

baseline = kernel_state()
print('baseline', baseline)
"""


def show_npm_app(lab: JupyterLab, page: Any, script: Path, tool: str) -> tuple[NotebookPage, Any]:
    """A notebook that connects to an npm example server over stdio and shows ``tool``'s view, run;
    the notebook and the view's frame."""
    node = shutil.which("node")
    if node is None or not script.exists():
        pytest.skip(NPM_MISSING)
    command = [node, str(script), "--stdio"]
    cells = [f"import mcpsync\nclient = mcpsync.connect({command!r})", f"mcpsync.show_app(client, {tool!r}, {{}})"]
    notebook = NotebookPage(lab, page, write_notebook(lab.root, script.parent.parent.name, cells))
    notebook.run_all()
    notebook.wait_ran(1)
    return notebook, page.frame_locator(".mcpsync-app-frame")


def screenshot(locator: Any, name: str, tmp_path: Path) -> None:
    """A PNG of the rendered view: into MCPSYNC_APP_SCREENSHOTS when set (the docs' images), else tmp."""
    folder = Path(SCREENSHOTS) if SCREENSHOTS else tmp_path
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    # Taken until two in a row are the same (a chart that animates in is drawn whole), at most a few
    # times; the bytes written here: Playwright writing the file itself starts a thread of its loop's.
    shot = locator.screenshot()
    for _ in range(SCREENSHOT_TRIES):
        again = locator.screenshot()
        if again == shot:
            break
        shot = again
    path.write_bytes(shot)
    assert path.stat().st_size > 1000


class _Counting(http.server.BaseHTTPRequestHandler):
    hits: ClassVar[list[str]]

    def do_GET(self) -> None:
        self.hits.append(self.path)
        self.send_response(200)
        self.send_header("Access-Control-Allow-Origin", "*")
        self.end_headers()
        self.wfile.write(b"reached")

    do_POST = do_GET

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def other_origin() -> Iterator[tuple[str, list[str]]]:
    """An HTTP server on another port of 127.0.0.1 (another origin than JupyterLab's), answering any
    request and counting them: a view that reaches it has got past its policy."""
    hits: list[str] = []
    handler = type("Handler", (_Counting,), {"hits": hits})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), handler)
    thread = threading.Thread(target=server.serve_forever, name="other-origin", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/", hits
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)


@pytest.mark.slow(IN_JUPYTERLAB)
def test_the_example_notebook_shows_the_dashboard_whose_calls_reach_the_server(
    lab: JupyterLab, page: Any, tmp_path: Path
) -> None:
    """examples/apps.ipynb, run in JupyterLab: the bundled server's view renders in the cell's output
    (its log says it was initialized and was given the tool's input and result); a click on its
    button makes a tools/call of the app-only tool, whose answer the server gives and the view shows;
    its ui/message appears in the cell output, outside the view."""
    notebook = NotebookPage(lab, page, copy_notebook(lab.root, EXAMPLE))
    notebook.run_all()
    notebook.wait_ran(3)
    app = notebook.output(3).locator(".mcpsync-app")
    app.wait_for()
    view = page.frame_locator(".mcpsync-app-frame")
    log = view.locator("#log")
    log.filter(has_text="initialize: ok").wait_for()
    log.filter(has_text="tool-input: {}").wait_for()
    log.filter(has_text="tool-result: the dashboard is shown").wait_for()
    view.locator("#call").click()
    view.locator("#answer").filter(has_text="the dashboard's data is refreshed").wait_for()
    view.locator("#message").click()
    notebook.output(3).locator(".mcpsync-app-message").filter(has_text="Hello from the dashboard").wait_for()
    screenshot(app, "app-dashboard.png", tmp_path)


@pytest.mark.slow(IN_JUPYTERLAB)
def test_a_view_cannot_reach_another_origin_navigate_the_page_or_call_a_model_only_tool(
    lab: JupyterLab, page: Any, other_origin: tuple[str, list[str]]
) -> None:
    """The dashboard's hostile buttons, clicked in the browser, and the same attempts made by a script
    run inside the view aimed at a server of ours on another port (another origin): the fetch never
    reaches that server, the notebook's page stays where it is, and the call of a tool whose
    visibility is the model's alone is refused; each refusal is in the view's log."""
    url, hits = other_origin
    name = write_notebook(
        lab.root,
        "hostile",
        [
            "import mcpsync\nfrom mcpsync.testing import server_command\nclient = mcpsync.connect(server_command())",
            "mcpsync.show_app(client, 'show_dashboard', {})",
        ],
    )
    notebook = NotebookPage(lab, page, name)
    address = page.url
    notebook.run_all()
    notebook.wait_ran(1)
    view = page.frame_locator(".mcpsync-app-frame")
    log = view.locator("#log")
    log.filter(has_text="initialize: ok").wait_for()
    view.locator("#call-model-only").click()
    log.filter(has_text="call-model-only: refused").wait_for()
    view.locator("#fetch-other").click()
    log.filter(has_text="fetch-other: blocked").wait_for()
    view.locator("#navigate-top").click()
    log.filter(has_text="navigate-top: blocked").wait_for()
    # the same, by a script of the view's own aimed at our server: it must not be reached
    frame = page.locator(".mcpsync-app-frame").element_handle().content_frame()
    fetched = frame.evaluate("(url) => fetch(url).then(() => 'reached', (error) => 'blocked ' + error)", url + "fetch")
    assert fetched.startswith("blocked"), fetched
    navigated = frame.evaluate(
        "(url) => { try { window.top.location = url; return 'no error'; } catch (e) { return 'blocked ' + e; } }",
        url + "navigate",
    )
    assert navigated.startswith("blocked"), navigated
    assert hits == []
    assert page.url == address
    assert notebook.cell(0).is_visible()  # still the notebook, not another page


@pytest.mark.slow(IN_JUPYTERLAB)
def test_an_interrupt_and_a_cell_run_again_leave_no_thread_nor_process_in_the_kernel(
    lab: JupyterLab, page: Any
) -> None:
    """In one kernel: the view's cell is run three times, then a long tool call is interrupted; the
    kernel's threads and child processes after the second and third runs are those after the first,
    and once the client is closed they are those before it was opened."""
    name = write_notebook(
        lab.root,
        "leaks",
        [
            KERNEL_STATE,
            "import mcpsync\nfrom mcpsync.testing import server_command\nclient = mcpsync.connect(server_command())",
            "app = mcpsync.show_app(client, 'show_dashboard', {})\napp",
            "print('with the view', kernel_state())",
            "print('calling', flush=True)\nclient.call_tool('sleep', {'seconds': 60})",
            "client.close()\nprint('closed', kernel_state() == baseline, kernel_state(), baseline)",
        ],
    )
    notebook = NotebookPage(lab, page, name)
    for index in range(4):
        notebook.run_cell(index)
        notebook.wait_ran(index, index + 1)
    view = page.frame_locator(".mcpsync-app-frame")
    view.locator("#log").filter(has_text="initialize: ok").wait_for()
    first = notebook.text(3)
    for count in (5, 7):  # the view's cell again, then the state again
        notebook.run_cell(2)
        notebook.wait_ran(2, count)
        notebook.output(2).locator(".mcpsync-app-frame").wait_for()
        view.locator("#log").filter(has_text="initialize: ok").wait_for()
        notebook.run_cell(3)
        notebook.wait_ran(3, count + 1)
        assert notebook.text(3) == first
    notebook.run_cell(4)
    notebook.output(4).filter(has_text="calling").wait_for()  # the cell runs: the call is on its way
    notebook.interrupt()
    notebook.wait_ran(4, 9)
    assert "KeyboardInterrupt" in notebook.text(4)
    notebook.run_cell(5)
    notebook.wait_ran(5, 10)
    assert notebook.text(5).startswith("closed True"), notebook.text(0) + notebook.text(3) + notebook.text(5)


@pytest.mark.slow(IN_JUPYTERLAB)
def test_server_basic_vanillajs_from_npm_renders_and_its_button_calls_its_tool(
    lab: JupyterLab, page: Any, tmp_path: Path
) -> None:
    """The ext-apps example server ``server-basic-vanillajs`` (npm, over stdio): its get-time view
    renders in the notebook with the time the tool returned; its button calls get-time again, through
    the kernel, and shows the server's new time; its Send Message appears in the cell output."""
    notebook, view = show_npm_app(lab, page, BASIC_VANILLAJS, "get-time")
    time_shown = view.locator("#server-time")
    iso = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d")
    expect(time_shown).to_have_text(iso, timeout=DOM_WAIT)  # the tool's result, pushed to the view
    first = time_shown.inner_text()
    view.locator("#get-time-btn").click()  # the view's own tools/call of get-time
    expect(time_shown).not_to_have_text(first, timeout=DOM_WAIT)
    expect(time_shown).to_have_text(iso)
    view.locator("#send-message-btn").click()
    notebook.output(1).locator(".mcpsync-app-message").filter(has_text="This is message text.").wait_for()
    screenshot(notebook.output(1).locator(".mcpsync-app"), "app-basic-vanillajs.png", tmp_path)


@pytest.mark.slow(IN_JUPYTERLAB)
def test_server_budget_allocator_from_npm_renders_its_chart_and_sliders(
    lab: JupyterLab, page: Any, tmp_path: Path
) -> None:
    """The ext-apps example server ``server-budget-allocator`` (npm, over stdio; a data-heavy view
    with a chart): its view renders in the notebook from the tool's structured result, with the
    chart drawn and a slider for each of the tool's budget categories."""
    notebook, view = show_npm_app(lab, page, BUDGET_ALLOCATOR, "get-budget-data")
    view.locator("#budget-chart").wait_for()
    view.locator("#sliders-container input[type=range]").first.wait_for()
    assert view.locator("#sliders-container input[type=range]").count() == len(BUDGET_CATEGORIES)
    for category in BUDGET_CATEGORIES:
        expect(view.locator("#sliders-container")).to_contain_text(category)
    expect(view.locator("#status-bar")).to_contain_text("$100,000")  # the result's default budget
    screenshot(notebook.output(1).locator(".mcpsync-app"), "app-budget-allocator.png", tmp_path)
