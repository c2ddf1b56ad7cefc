"""A view that makes the kernel work for it (issue 36, point 4): each ``ui/notifications/initialized``
re-sent the tool's input and whole result (7.4 kB from a view became 200 MB from the kernel), and a
1.2 MB ``ui/message`` cost 1.5-2.5 s of kernel time to schema-check, before the rate limit. Promise:
input and result once a view; what a view's message costs is bounded before any schema work; the
answers go to the view that asked. The widget runs in this process (anywidget without a kernel), its
page side stood in by the test: widget.js's own part is in tests/edges/apps_browser."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest

import mcpsync
from mcpsync._edges.apps import bridge as bridge_module
from mcpsync._edges.apps.bridge import BURST
from mcpsync._edges.apps.messages import MAX_CHARS_OF
from mcpsync.testing import server_config
from tests.deferred import deferred

deferred("anywidget")  # skipped here when not installed
pytestmark = pytest.mark.usefixtures("server_in_thread")

T = 10
INITIALIZED = json.dumps({"jsonrpc": "2.0", "method": "ui/notifications/initialized", "params": {}})


@pytest.fixture
def widget() -> Iterator[Any]:
    """The dashboard's widget, what it sends to the page recorded in ``widget.sent``."""
    from mcpsync._edges.apps.notebook import app_widget_class

    with mcpsync.connect(server_config(), timeout=T) as client:
        view = client.call_tool("show_dashboard", {"title": "q"}, timeout=T).ui
        made = app_widget_class()(view)
        made.sent = []
        made.send = lambda content, buffers=None: made.sent.append(content)
        try:
            yield made
        finally:
            made.close()


def from_view(widget: Any, view: str, message: str) -> None:
    widget._received(widget, {"type": "from-view", "view": view, "message": message})


def ui_message(text: str, request_id: int = 1) -> str:
    params = {"role": "user", "content": [{"type": "text", "text": text}]}
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "ui/message", "params": params})


def test_a_view_that_initializes_again_is_sent_the_input_and_result_once(widget: Any) -> None:
    """100 ``initialized`` from one view: the input and the result once, to that view; another view
    (the cell shown a second time) gets its own once."""
    for _ in range(100):
        from_view(widget, "v1", INITIALIZED)
    methods = [(content["view"], content["message"]["method"]) for content in widget.sent]
    assert methods == [("v1", "ui/notifications/tool-input"), ("v1", "ui/notifications/tool-result")]
    from_view(widget, "v2", INITIALIZED)
    from_view(widget, "v2", INITIALIZED)
    assert [content["view"] for content in widget.sent] == ["v1", "v1", "v2", "v2"]
    assert len(json.dumps(widget.sent)) < 2 * 2 * len(json.dumps(widget.view.result.raw)) + 2000


def test_answers_go_to_the_view_that_asked(widget: Any) -> None:
    from_view(widget, "v7", json.dumps({"jsonrpc": "2.0", "id": 3, "method": "ping"}))
    assert widget.sent == [{"type": "to-view", "view": "v7", "message": {"jsonrpc": "2.0", "id": 3, "result": {}}}]


def test_a_huge_ui_message_is_refused_before_any_schema_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """1.2 MB of ``ui/message``: refused (-32600, the bound named) without its schema being checked."""
    checked: list[str] = []
    params_problem = bridge_module.params_problem
    monkeypatch.setattr(bridge_module, "params_problem", lambda m, p: checked.append(m) or params_problem(m, p))
    with mcpsync.connect(server_config(), timeout=T) as client:
        view = client.call_tool("show_dashboard", {"title": "q"}, timeout=T).ui
        host = mcpsync.AppBridge(client, view, on_message=lambda params: None)
        started = time.monotonic()
        answer = host.handle(ui_message("x" * 1_200_000))
        assert time.monotonic() - started < 1.0  # it was 1.5-2.5 s of schema work
        assert answer is not None and answer["error"]["code"] == -32600
        assert "ui/message too large: 1200" in answer["error"]["message"]
        assert str(MAX_CHARS_OF["ui/message"]) in answer["error"]["message"]
        assert checked == []
        assert "result" in host.handle(ui_message("fits"))  # a message within the bound is taken


def test_the_rate_limit_comes_before_the_schema(monkeypatch: pytest.MonkeyPatch) -> None:
    """A flood of ``ui/message``: past the burst each is refused without its schema being checked."""
    checked: list[str] = []
    params_problem = bridge_module.params_problem
    monkeypatch.setattr(bridge_module, "params_problem", lambda m, p: checked.append(m) or params_problem(m, p))
    monkeypatch.setattr(bridge_module, "PER_SECOND", 0.0)
    with mcpsync.connect(server_config(), timeout=T) as client:
        view = client.call_tool("show_dashboard", {"title": "q"}, timeout=T).ui
        host = mcpsync.AppBridge(client, view, on_message=lambda params: None)
        answers = [host.handle(ui_message("hello " * 5000, n)) for n in range(BURST + 50)]
    assert all("result" in answer for answer in answers[:BURST])
    assert all(answer["error"]["code"] == -32000 for answer in answers[BURST:])
    assert len(checked) == BURST


def test_each_view_initializes_once_with_a_bridge_of_its_own(widget: Any) -> None:
    initialize = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "ui/initialize",
            "params": {
                "appInfo": {"name": "v", "version": "1"},
                "appCapabilities": {},
                "protocolVersion": "2026-01-26",
            },
        }
    )
    from_view(widget, "v1", initialize)
    from_view(widget, "v1", initialize)
    from_view(widget, "v2", initialize)
    answers = [(content["view"], "result" in content["message"]) for content in widget.sent]
    assert answers == [("v1", True), ("v1", False), ("v2", True)]


def test_links_are_offered_to_the_person_one_at_a_time(widget: Any) -> None:
    """15 ``ui/open-link`` of one view (issue 36, point 6: all 15 opened, no prompt): the first is shown
    to the person (an ``open-link`` to that view's page side, which asks), the other 14 refused while it
    waits; once the person answered, the next is offered."""

    def open_link(n: int) -> str:
        return json.dumps(
            {"jsonrpc": "2.0", "id": n, "method": "ui/open-link", "params": {"url": f"https://e.example/{n}"}}
        )

    for n in range(15):
        from_view(widget, "v1", open_link(n))
    offered = [content for content in widget.sent if content["type"] == "open-link"]
    assert offered == [{"type": "open-link", "url": "https://e.example/0", "view": "v1"}]
    answers = [content["message"] for content in widget.sent if content["type"] == "to-view"]
    assert "result" in answers[0]
    assert [answer["error"]["message"] for answer in answers[1:]] == [
        "a link is already waiting for the person to open or dismiss it"
    ] * 14
    from_view(widget, "v2", open_link(99))  # another view has its own
    widget._received(widget, {"type": "link-answered", "view": "v1"})
    from_view(widget, "v1", open_link(100))
    urls = [content["url"] for content in widget.sent if content["type"] == "open-link"]
    assert urls == ["https://e.example/0", "https://e.example/99", "https://e.example/100"]
