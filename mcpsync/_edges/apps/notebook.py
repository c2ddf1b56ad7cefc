"""The notebook host of MCP Apps: ``AppWidget`` (an anywidget whose JavaScript, ``widget.js``, puts the
view in a sandboxed iframe and relays its messages over the widget's comm), ``show_app``, and the
display hook that shows a ``CallToolResult`` with a view as its widget.

The kernel's side: each message of the view goes to the widget's ``AppBridge``. What needs the server
(``tools/call``, ``resources/read``, ``resources/list``) runs on a thread of its own, at most
``MAX_CALLS`` at once (more are refused at once), so the kernel's comm thread never waits on a server;
everything else is answered at once, in order. Each render of the widget on a page is a view of its
own (widget.js gives it an id): what answers a view's message goes to that view alone, and its first
``ui/notifications/initialized`` is followed by the tool's input and result, once: the extension
sends them at most once a view, and a view that says it again gets nothing more (else 7 kB from a
view would make the kernel send hundreds of megabytes of a large result). A view
removed from the page (a re-executed cell, a cleared output) is sent ``ui/resource-teardown`` by the
page; its calls under way end within their timeout, and no thread waits for the next.
``close()`` sends the teardown too, takes no more messages and joins the calls under way.

anywidget is imported only when a widget is made (``import mcpsync`` stays light).
"""

from __future__ import annotations

import functools
import logging
import threading
import weakref
from pathlib import Path
from typing import Any, Optional

from ..._core.errors import MCPError, NotSupportedError
from ..._core.timeouts import USE_DEFAULT, Timeout
from ..._session.app_view import AppView
from ..._session.apps import UI_EXTENSION, notebook_host_in_use
from ..._session.models import CallToolResult
from ..._session.origins import client_of
from .bridge import AppBridge
from .messages import Invalid, parsed_sized

__all__ = ["MAX_CALLS", "app_bundle", "app_widget_class", "show_app"]

logger = logging.getLogger("mcpsync.apps")

#: The view's requests that need the server, each run on a thread of its own.
_SERVER_METHODS = frozenset({"tools/call", "resources/read", "resources/list"})
#: The most of them under way at once for one widget.
MAX_CALLS = 4
#: The ``ui/message`` texts a widget keeps on show (the oldest go first), and the characters of each.
MAX_SHOWN = 50
MAX_SHOWN_CHARS = 10_000
#: The views (renders on a page) a widget keeps a bridge for; the bridge of an older one is dropped
#: (a page with more renders than this is no attack).
MAX_VIEWS = 64
#: The iframe's height before the view says its size, and the most it may ask for, in pixels.
START_HEIGHT = 320
MAX_HEIGHT = 4000
#: The widget of each view (``result.ui`` gives the same view while it is held), while the widget lives
#: (its comm keeps it): one widget per result, however often the result is shown.
_WIDGETS: weakref.WeakValueDictionary[int, Any] = weakref.WeakValueDictionary()


@functools.cache
def app_widget_class() -> type:
    """The ``AppWidget`` class, made on first use (it needs anywidget and traitlets)."""
    import anywidget
    import traitlets

    class AppWidget(anywidget.AnyWidget):
        """An MCP App view in a notebook cell: the tool's HTML in a sandboxed iframe (``srcdoc`` with
        its Content-Security-Policy, ``sandbox="allow-scripts"``), its messages answered by an
        ``AppBridge`` over the client that made the call.

        Args:
            view: the ``AppView`` (``result.ui``).
            timeout: seconds for each of the view's tool calls; default: the client's.
        """

        _esm = Path(__file__).with_name("widget.js")
        srcdoc = traitlets.Unicode("").tag(sync=True)
        csp = traitlets.Unicode("").tag(sync=True)
        sandbox = traitlets.Unicode("allow-scripts").tag(sync=True)
        allow = traitlets.Unicode("").tag(sync=True)
        height = traitlets.Int(START_HEIGHT).tag(sync=True)
        prefers_border = traitlets.Bool(True).tag(sync=True)
        tool_name = traitlets.Unicode("").tag(sync=True)
        #: The view's ``ui/message`` texts, shown under it (class ``mcpsync-app-message``).
        messages = traitlets.List(traitlets.Unicode()).tag(sync=True)

        def __init__(self, view: AppView, *, timeout: Timeout = USE_DEFAULT, **kwargs: Any) -> None:
            super().__init__(
                srcdoc=view.srcdoc(),
                csp=view.content_security_policy,
                sandbox=view.sandbox,
                allow=view.allow,
                prefers_border=view.meta.prefers_border is not False,
                tool_name=view.tool_name,
                **kwargs,
            )
            self.view = view
            self._timeout = timeout
            #: The bridge of messages that name no view (and the one whose timeout bounds ``close``).
            self.bridge = self._new_bridge()
            self._bridges: dict[str, AppBridge] = {}  # one a view (a render on a page), oldest first
            self._lock = threading.Lock()
            self._calls: set[threading.Thread] = set()
            self._closed = False
            self._links_waiting: set[Optional[str]] = set()  # the views whose link the person has not answered
            self.on_msg(self._received)

        def __repr__(self) -> str:
            return f"<{_saved_text(self.view)}>"

        def _repr_mimebundle_(self, **kwargs: Any) -> Any:
            """The widget's bundle, with what a saved notebook shows without a kernel: ``text/plain``
            and a ``text/html`` box naming the view (a widget cannot be drawn then)."""
            bundle = super()._repr_mimebundle_(**kwargs)
            data = bundle[0] if isinstance(bundle, tuple) else bundle
            if isinstance(data, dict):
                data["text/plain"] = repr(self)
                data.setdefault("text/html", _saved_html(self.view))
            return bundle

        def _new_bridge(self, view: Optional[str] = None) -> AppBridge:
            return AppBridge(
                self.view.client,
                self.view,
                on_message=self._show_message,
                on_open_link=lambda url: self._offer_link(url, view),
                on_size=self._resize,
                on_request_teardown=self.close,
                # A cell's width is the page's; its height follows the view, up to MAX_HEIGHT.
                host_context={"containerDimensions": {"maxHeight": MAX_HEIGHT}},
                timeout=self._timeout,
            )

        def _bridge_of(self, view: Optional[str]) -> AppBridge:
            """The bridge of ``view``: each view initializes once, is sent the tool's input and result
            once, and has its own rate (at most ``MAX_VIEWS`` kept; an older one starts afresh)."""
            if view is None:
                return self.bridge
            with self._lock:
                bridge = self._bridges.get(view)
                if bridge is None:
                    bridge = self._bridges[view] = self._new_bridge(view)
                    while len(self._bridges) > MAX_VIEWS:
                        del self._bridges[next(iter(self._bridges))]
                return bridge

        def _to_page(self, content: dict[str, Any], view: Optional[str] = None) -> None:
            """Send ``content`` to the page: to the render ``view`` alone when one is named."""
            if view is not None:
                content = {**content, "view": view}
            with self._lock:
                if self._closed:
                    return
            try:
                self.send(content)
            except Exception as exc:  # the comm is gone: the page went away
                logger.debug("MCP App widget: could not send to the page: %r", exc)

        def _to_view(self, message: Optional[dict[str, Any]], view: Optional[str] = None) -> None:
            if message is not None:
                self._to_page({"type": "to-view", "message": message}, view)

        def _offer_link(self, url: str, view: Optional[str]) -> bool:
            """Show the person ``url``, under ``view``, to open or dismiss (widget.js): one at a time for a
            view (``False``: one is waiting, and the view is refused)."""
            with self._lock:
                if view in self._links_waiting:
                    return False
                self._links_waiting.add(view)
            self._to_page({"type": "open-link", "url": url}, view)
            return True

        def _received(self, _widget: Any, content: Any, _buffers: Any = None) -> None:
            """A message from the page (on the kernel's comm thread): the view's, or the page's own."""
            if isinstance(content, dict) and content.get("type") == "link-answered":
                view = content.get("view")
                with self._lock:
                    self._links_waiting.discard(view if isinstance(view, str) else None)
                return
            if not isinstance(content, dict) or content.get("type") != "from-view":
                return  # nothing else is sent by widget.js
            view = content.get("view")
            view = view if isinstance(view, str) and len(view) <= 64 else None
            raw = content.get("message")
            bridge = self._bridge_of(view)
            try:  # read once, here: the route depends on the method
                message, size = parsed_sized(raw)
            except Invalid as exc:
                self._to_view(bridge._invalid(exc), view)
                return
            method = message.get("method")
            if method in _SERVER_METHODS:
                self._start_call(message, size, view)
                return
            was_initialized = bridge.initialized.is_set()
            self._answer(message, size, view)
            if method == "ui/notifications/initialized" and not was_initialized and bridge.initialized.is_set():
                for notification in bridge.notifications():  # the view may now hear of the call, once
                    self._to_view(notification, view)

        def _answer(self, message: dict[str, Any], size: int, view: Optional[str]) -> None:
            self._to_view(self._bridge_of(view)._handle_checked(message, size), view)

        def _start_call(self, message: dict[str, Any], size: int, view: Optional[str]) -> None:
            with self._lock:
                self._calls = {call for call in self._calls if call.is_alive()}
                refused = self._closed or len(self._calls) >= MAX_CALLS
                if not refused:
                    call = threading.Thread(
                        target=self._answer, args=(message, size, view), name="mcpsync-app-call", daemon=True
                    )
                    self._calls.add(call)
            if refused:
                busy = {"code": -32000, "message": f"too many calls at once: at most {MAX_CALLS}"}
                self._to_view({"jsonrpc": "2.0", "id": message.get("id"), "error": busy}, view)
                return
            call.start()

        def _show_message(self, params: dict[str, Any]) -> None:
            texts = [
                str(block.get("text", ""))[:MAX_SHOWN_CHARS]
                for block in params.get("content") or ()
                if isinstance(block, dict) and block.get("type") == "text"
            ]
            self.messages = [*self.messages, "\n".join(texts)][-MAX_SHOWN:]

        def _resize(self, _width: Optional[float], height: Optional[float]) -> None:
            if height is not None:
                self.height = int(min(max(height, 40), MAX_HEIGHT))

        def _stop(self) -> None:
            """Take no more messages and join the calls under way (each bounded by its timeout)."""
            with self._lock:
                self._closed = True
                calls = list(self._calls)
                self._calls.clear()
            for call in calls:
                if call is not threading.current_thread():
                    call.join(self.bridge.timeout)

        def close(self) -> None:
            """Tell the view it goes (``ui/resource-teardown``), stop, and close the widget."""
            with self._lock:
                open_now = not self._closed
            if open_now:
                self._to_view(self.bridge.teardown())
            self._stop()
            super().close()

    return AppWidget


def show_app(
    client: Any, tool: str, arguments: Optional[dict[str, Any]] = None, *, timeout: Timeout = USE_DEFAULT
) -> Any:
    """Call ``tool`` on ``client`` and return its MCP App view as a notebook widget (``AppWidget``):
    the cell's last value shows it.

    Raises:
        NotSupportedError: the tool has no view (``_meta.ui.resourceUri``), or anywidget is missing.
        MCPError: the call, the tool list or the view's resource failed.
    """
    result = client.call_tool(tool, arguments, timeout=timeout)
    view = result.ui
    if view is None:
        raise NotSupportedError(f"tool {tool!r} of server {client.name!r} has no MCP App view (_meta.ui.resourceUri)")
    try:
        widget_class = app_widget_class()
    except ImportError:
        raise NotSupportedError("show_app needs anywidget: pip install anywidget") from None
    return widget_class(view, timeout=timeout)


def _saved_text(view: AppView) -> str:
    """What an app view is, in words: for a saved notebook, which has no kernel to draw it."""
    server = getattr(view.client, "name", None)
    of = f" of server {server!r}" if server else ""
    return f"MCP App view {view.resource_uri!r} of tool {view.tool_name!r}{of}: drawn while its kernel runs"


def _saved_html(view: AppView) -> str:
    """``_saved_text`` as a small box (escaped: the names are the server's)."""
    from ..safe_html import esc

    return f'<div style="border:1px solid #ccc;padding:6px;color:#555">{esc(_saved_text(view))}</div>'


def app_bundle(result: CallToolResult) -> Optional[dict[str, Any]]:
    """The display hook's mime bundle of a tool result with an MCP App view: its widget's (the HTML
    view fills in ``text/html``, for a page that shows no widgets). ``None`` (the result's HTML alone)
    when the client that made the call did not declare the extension, anywidget is missing, the tool
    has no view, or reading it failed (logged)."""
    client = client_of(result)
    extensions = getattr(client, "capabilities", {}).get("extensions") or {}
    if UI_EXTENSION not in extensions or not notebook_host_in_use():
        return None
    try:
        view = result.ui
    except MCPError as exc:
        logger.warning("tool %r: its MCP App view could not be read: %s", result.tool_name, exc)
        return None
    if view is None:
        return None
    widget = _WIDGETS.get(id(view))
    if widget is None or widget.comm is None or widget.view is not view:  # one per view, however often shown
        widget = _WIDGETS[id(view)] = app_widget_class()(view)
    bundle: dict[str, Any] = widget._repr_mimebundle_()
    return bundle


def __getattr__(name: str) -> Any:
    if name == "AppWidget":
        return app_widget_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
