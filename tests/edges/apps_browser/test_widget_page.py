"""The notebook widget's page side (widget.js) with the bundled dashboard view, in headless Chromium,
without JupyterLab: a stand-in for anywidget's model relays the widget's messages to an ``AppBridge``
in this process, as the kernel's comm would. What the browser enforces (the sandbox, the policy) and
what widget.js relays are checked here in seconds; the other tests here run the whole notebook.

Skipped without Playwright or Debian's Chromium (/usr/bin/chromium), as the other browser tests are:
it uses their one browser (conftest.py).
"""

from __future__ import annotations

import dataclasses
import http.server
import json
import threading
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Optional

import pytest

import mcpsync
from mcpsync.testing import server_config

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

T = 10
WIDGET_JS = Path(mcpsync.__file__).parent / "_edges" / "apps" / "widget.js"
#: The anywidget model, stood in for: state from Python, each ``send`` answered through the bridge.
MODEL = """(state) => {
  const handlers = {};
  const model = {
    get: (key) => state[key],
    on: (event, fn) => { handlers[event] = fn; },
    off: () => {},
    send: (content) => {
      window.kernel(JSON.stringify(content)).then((replies) => {
        for (const reply of replies) { handlers["msg:custom"](reply); }
      });
    },
  };
  window.cleanup = window.widget.render({ model, el: document.getElementById("cell") });
}"""
OTHER_PAGE = (
    '() => { location.href = "data:text/html,<script>setTimeout(function () { parent.postMessage('
    "{jsonrpc: '2.0', id: 9, method: 'ui/message', params: {role: 'user', content: [{type: 'text', "
    "text: 'from another page'}]}}, '*') }, 100)</script>\"; }"
)


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A blank page of the run's one Chromium (conftest's ``browser``: a second Playwright in the same
    thread cannot start while that one runs), closed when the test ends. No JupyterLab is needed."""
    tab = browser.new_page()
    try:
        yield tab
    finally:
        tab.close()


HEARD = """() => {
  window.heard = [];
  window.addEventListener("message", (e) => {
    const frame = document.querySelector(".mcpsync-app-frame");
    const from = e.source === null ? "gone" : frame && e.source === frame.contentWindow ? "frame" : "other";
    window.heard.push({data: e.data, from});
  });
}"""


@contextmanager
def dashboard(
    page: Any, html: Optional[str] = None, called: Optional[list[str]] = None
) -> Iterator[tuple[list[Any], str]]:
    """The bundled dashboard view (or ``html`` in its place) mounted by widget.js on ``page``, its
    messages relayed to an ``AppBridge`` as the kernel's comm would: yields the ``ui/message`` contents
    the host was shown and the page's address; the tools the bridge called go to ``called``."""
    shown: list[Any] = []
    links: list[dict[str, Any]] = []
    with mcpsync.connect(server_config(), timeout=T) as client:
        view = client.call_tool("show_dashboard", {"title": "q"}, timeout=T).ui
        if html is not None:
            view = dataclasses.replace(view, html=html)
        if called is not None:
            call_tool = client.call_tool
            client.call_tool = lambda name, *a, **k: called.append(name) or call_tool(name, *a, **k)  # type: ignore[method-assign]
        bridge = mcpsync.AppBridge(
            client,
            view,
            on_message=shown.append,
            on_open_link=lambda url: links.append({"type": "open-link", "url": url}),
        )

        def kernel(content: str) -> list[dict[str, Any]]:
            message = json.loads(content)
            raw = message["message"]
            answer = bridge.handle(raw)
            replies = [{"type": "to-view", "message": answer}] if answer else []
            if json.loads(raw).get("method") == "ui/notifications/initialized":
                replies += [{"type": "to-view", "message": n} for n in bridge.notifications()]
            replies += links
            links.clear()
            return replies

        state = {
            "srcdoc": view.srcdoc(),
            "sandbox": view.sandbox,
            "allow": view.allow,
            "height": 320,
            "prefers_border": True,
            "tool_name": view.tool_name,
            "messages": [],
        }
        page.expose_function("kernel", kernel)
        page.set_content('<html><body><div id="cell"></div></body></html>')
        # Every message the page gets from before the view is mounted (widget.js's listener comes after),
        # with where it came from: the view's frame, a window gone, or another.
        page.evaluate(HEARD)
        page.add_script_tag(
            content=WIDGET_JS.read_text().replace("export default { render };", "window.widget = { render };"),
            type="module",
        )
        address = page.url
        page.evaluate(MODEL, state)
        yield shown, address


def test_the_dashboard_view_in_the_widgets_iframe_talks_to_the_bridge_and_is_held_in(page: Any) -> None:
    """The view initializes, shows the tool's input and result, calls the app-only tool and shows its
    answer, is refused the model-only one, cannot fetch another origin nor navigate the top page, and
    its ui/message reaches the host; a page the view navigates its own frame to is cut off: its
    message never reaches the bridge."""
    with dashboard(page) as (shown, address):
        frame = page.frame_locator(".mcpsync-app-frame")
        log = frame.locator("#log")
        log.filter(has_text="initialize: ok").wait_for(timeout=T * 1000)
        log.filter(has_text="tool-result: the dashboard is shown").wait_for(timeout=T * 1000)
        assert frame.locator("#input").inner_text() == '{"title":"q"}'
        for button, outcome in [
            ("call", "call: ok"),
            ("call-model-only", "call-model-only: refused tool 'dashboard_export' is not for apps"),
            ("message", "message: ok"),
            ("fetch-other", "fetch-other: blocked"),
            ("navigate-top", "navigate-top: blocked"),
        ]:
            frame.locator("#" + button).click()
            log.filter(has_text=outcome).wait_for(timeout=T * 1000)
        frame.locator("#answer").filter(has_text="the dashboard's data is refreshed").wait_for(timeout=T * 1000)
        assert shown == [{"role": "user", "content": [{"type": "text", "text": "Hello from the dashboard"}]}]
        assert page.url == address
        page.evaluate(
            "() => { window.seen = []; window.addEventListener('message', (e) => window.seen.push(e.data)); }"
        )
        page.locator(".mcpsync-app-frame").element_handle().content_frame().evaluate(OTHER_PAGE)
        page.locator(".mcpsync-app-notice").filter(has_text="no longer connected").wait_for(timeout=T * 1000)
        # The other page's message was posted (our own listener, after widget.js's, saw it); a ping of
        # ours through the same binding then comes after anything widget.js passed on.
        page.wait_for_function("() => window.seen.some((m) => m && m.id === 9)", timeout=T * 1000)
        ping = json.dumps({"type": "from-view", "message": json.dumps({"jsonrpc": "2.0", "id": "p", "method": "ping"})})
        assert page.evaluate("(ping) => window.kernel(ping)", ping)[0]["message"]["result"] == {}
        assert len(shown) == 1
        page.evaluate("window.cleanup()")


#: Messages shaped as the view's, from the two windows that are not the view: the notebook page itself and
#: a second iframe on it (another cell's view, say).
NOT_THE_VIEW = """() => {
  const message = (id, text) => ({jsonrpc: "2.0", id, method: "ui/message",
    params: {role: "user", content: [{type: "text", text}]}});
  window.seen = [];
  window.addEventListener("message", (e) => window.seen.push(e.data));
  window.postMessage(message(7, "from the notebook page"), "*");
  const other = document.createElement("iframe");
  other.srcdoc = "<script>parent.postMessage(" + JSON.stringify(message(8, "from another iframe")) + ", '*')</script>";
  document.body.appendChild(other);
}"""


def test_messages_from_the_notebook_page_and_another_iframe_never_reach_the_bridge(page: Any) -> None:
    """Attack: once the view is connected, the notebook page and a second iframe on it each post a
    ``ui/message`` shaped as the view's (a mutant of widget.js that did not check ``event.source``
    relayed both to the kernel as the view's, and every other test passed). Promise: only the view's
    own window is heard: the host is shown nothing, and the view stays connected."""
    with dashboard(page) as (shown, _address):
        frame = page.frame_locator(".mcpsync-app-frame")
        frame.locator("#log").filter(has_text="initialize: ok").wait_for(timeout=T * 1000)
        page.evaluate(NOT_THE_VIEW)
        # Both were posted (our own listener, after widget.js's, saw them); a ping of ours through the same
        # binding then comes after anything widget.js passed on.
        page.wait_for_function(
            "() => [7, 8].every((id) => window.seen.some((m) => m && m.id === id))", timeout=T * 1000
        )
        ping = json.dumps({"type": "from-view", "message": json.dumps({"jsonrpc": "2.0", "id": "p", "method": "ping"})})
        assert page.evaluate("(ping) => window.kernel(ping)", ping)[0]["message"]["result"] == {}
        assert shown == []
        assert "no longer connected" not in page.locator(".mcpsync-app-notice").inner_text(), "the view was cut off"
        frame.locator("#message").click()
        frame.locator("#log").filter(has_text="message: ok").wait_for(timeout=T * 1000)
        assert shown == [{"role": "user", "content": [{"type": "text", "text": "Hello from the dashboard"}]}]
        page.evaluate("window.cleanup()")


#: What a page the view's frame navigated to says: a ``tools/call`` of the app-only tool, as the view's.
FOREIGN = (
    "<script>parent.postMessage({jsonrpc: '2.0', id: 5, method: 'tools/call', "
    "params: {name: 'refresh_dashboard', arguments: {}}}, '*');</script>"
)


class StalledPage(http.server.BaseHTTPRequestHandler):
    """A page whose load never finishes: its script (``FOREIGN``) arrives, the rest of the body never."""

    release = threading.Event()
    #: Seconds an idle connection is kept: Chromium opens spare ones (preconnects) and sends nothing on
    #: them, and the server's close joins each connection's thread.
    timeout = 1

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.end_headers()
        self.wfile.write(("<html><head>" + FOREIGN + "</head><body>" + " " * 4096).encode())
        self.wfile.flush()
        self.release.wait(T)

    def log_message(self, *args: Any) -> None:
        pass


@contextmanager
def stalled_page() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), StalledPage)
    server.daemon_threads = False  # server_close() joins the request's thread
    StalledPage.release.clear()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        StalledPage.release.set()
        server.shutdown()
        server.server_close()
        thread.join(T)


def navigating_views(stalled: str) -> dict[str, str]:
    """Views whose frame goes to a page of their own choosing: at once in their head, after
    ``window.stop()``, and after their load, to a page whose load never finishes."""
    data = "data:text/html," + urllib.parse.quote(FOREIGN)  # no "</script>" inside the view's script
    return {
        "early": f'<html><head><script>location.replace("{data}")</script></head><body>v</body></html>',
        "stopped": f'<html><head><script>window.stop(); location.replace("{data}")</script></head></html>',
        "stalled": f'<html><body>v<script>onload = () => setTimeout(() => {{ location.href = "{stalled}"; }}, 50)</script></body></html>',
    }


@pytest.mark.parametrize("how", ["early", "stopped", "stalled"])
def test_a_page_the_view_navigated_to_is_cut_off_however_early_or_stalled(page: Any, how: str) -> None:
    """Attack (issue 36, point 3): the view sends its frame elsewhere, in its head, after
    ``window.stop()``, or after its load to a page whose load never finishes; that page (no policy of
    ours) posts a ``tools/call`` as the view. Promise: the host's guard script says ``pagehide`` as the
    view's document goes, widget.js cuts the view off before the next page speaks: the call never
    reaches the server, and the cell says the view is no longer connected."""
    called: list[str] = []
    with stalled_page() as stalled, dashboard(page, navigating_views(stalled)[how], called):
        page.locator(".mcpsync-app-notice").filter(has_text="no longer connected").wait_for(timeout=T * 1000)
        page.wait_for_function("() => window.heard.some((m) => m.data && m.data.id === 5)", timeout=T * 1000)
        ping = json.dumps({"type": "from-view", "message": json.dumps({"jsonrpc": "2.0", "id": "p", "method": "ping"})})
        assert page.evaluate("(ping) => window.kernel(ping)", ping)[0]["message"]["result"] == {}
        assert called == [], f"a page the view navigated to reached the server: {page.evaluate('window.heard')}"
        page.evaluate("window.cleanup()")


def test_a_link_the_view_asks_for_is_shown_to_the_person_before_anything_opens(page: Any) -> None:
    """``ui/open-link``: the cell shows the URL with Open and Dismiss; nothing opens until the person
    clicks Open (then a new tab, without an opener); Dismiss opens nothing."""
    with dashboard(page) as (_shown, _address):
        frame = page.frame_locator(".mcpsync-app-frame")
        frame.locator("#log").filter(has_text="initialize: ok").wait_for(timeout=T * 1000)
        pages = len(page.context.pages)
        frame.locator("#open-link").click()
        prompt = page.locator(".mcpsync-app-link")
        prompt.filter(has_text="The view asks to open https://example.com/").wait_for(timeout=T * 1000)
        assert len(page.context.pages) == pages  # shown, not opened
        page.locator(".mcpsync-app-link-dismiss").click()
        prompt.wait_for(state="detached", timeout=T * 1000)
        assert len(page.context.pages) == pages
        frame.locator("#open-link").click()
        with page.context.expect_page(timeout=T * 1000) as opened:
            page.locator(".mcpsync-app-link-open").click()
        tab = opened.value
        assert tab.evaluate("() => window.opener") is None
        tab.close()
        page.evaluate("window.cleanup()")


def test_another_frames_goodbye_never_cuts_this_view_off(page: Any) -> None:
    """Another frame on the page (another cell's view, navigating away) says the guard's words as it
    goes (its window gone when they arrive), with an id that is not this view's: this view stays
    connected (a view's notice cuts off its own frame alone)."""
    with dashboard(page) as (shown, _address):
        frame = page.frame_locator(".mcpsync-app-frame")
        frame.locator("#log").filter(has_text="initialize: ok").wait_for(timeout=T * 1000)
        page.evaluate(
            """() => { const other = document.createElement("iframe");
            other.srcdoc = "<script>addEventListener('pagehide', () => parent.postMessage("
              + "{mcpsync: 'pagehide', view: '1-guess'}, '*')); setTimeout(() => location.replace("
              + "'data:text/html,gone'), 50)</" + "script>";
            document.body.appendChild(other); }"""
        )
        page.wait_for_function("() => window.heard.some((m) => m.data && m.data.view === '1-guess')", timeout=T * 1000)
        assert "no longer connected" not in page.locator(".mcpsync-app-notice").inner_text()
        frame.locator("#message").click()
        frame.locator("#log").filter(has_text="message: ok").wait_for(timeout=T * 1000)
        assert shown == [{"role": "user", "content": [{"type": "text", "text": "Hello from the dashboard"}]}]
        page.evaluate("window.cleanup()")
