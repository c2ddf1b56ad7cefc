"""The harness itself, proved with a trivial anywidget of our own: a notebook opened in JupyterLab in
Chromium, its cells run, a click inside a widget's iframe reaching the kernel and its answer coming back."""

from __future__ import annotations

from typing import Any

import pytest

from tests.edges.apps_browser.lab import IN_JUPYTERLAB, JupyterLab, NotebookPage, write_notebook

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

PING_WIDGET = '''
import anywidget, traitlets

class Ping(anywidget.AnyWidget):
    _esm = """
    export default {
      render({ model, el }) {
        const frame = document.createElement("iframe");
        frame.className = "ping-frame";
        frame.srcdoc = '<button id="ping">ping</button><p id="answer"></p><script>'
          + 'document.getElementById("ping").onclick = () => parent.postMessage("ping", "*");'
          + 'addEventListener("message", (e) => { document.getElementById("answer").textContent = e.data; });'
          + '</' + 'script>';
        el.appendChild(frame);
        const onMessage = (e) => { if (e.source === frame.contentWindow) model.send({ ping: e.data }); };
        window.addEventListener("message", onMessage);
        model.on("msg:custom", (msg) => frame.contentWindow.postMessage(msg.answer, "*"));
        return () => window.removeEventListener("message", onMessage);
      }
    };
    """
    pings = traitlets.Int(0).tag(sync=True)

    def __init__(self):
        super().__init__()
        self.on_msg(self._answer)

    def _answer(self, widget, content, buffers):
        self.pings += 1
        self.send({"answer": f"pong {self.pings} from the kernel"})

Ping()
'''


@pytest.mark.slow(IN_JUPYTERLAB)
def test_a_click_in_a_widgets_iframe_reaches_the_kernel_and_its_answer_comes_back(lab: JupyterLab, page: Any) -> None:
    """A notebook with an anywidget rendering an iframe is run in JupyterLab; a click on the iframe's
    button travels over the widget's comm to the kernel, whose answer is shown in the iframe, and the
    kernel's own count of the clicks (read by a later cell) agrees."""
    name = write_notebook(lab.root, "harness", [PING_WIDGET, "print('ran')"])
    notebook = NotebookPage(lab, page, name)
    notebook.run_all()
    notebook.wait_ran(1)
    frame = page.frame_locator(".ping-frame")
    frame.locator("#ping").click()
    frame.locator("#answer").filter(has_text="pong 1 from the kernel").wait_for()
    frame.locator("#ping").click()
    frame.locator("#answer").filter(has_text="pong 2 from the kernel").wait_for()
