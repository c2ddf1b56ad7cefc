"""``AppBridge``: a host's side of the MCP Apps dialect for one view, with no transport of its own.

A host (the notebook widget, a web app) hands ``handle()`` each message its view posted, whatever it
is, and posts back what ``handle()`` returns. Everything the view sends is untrusted input: the
envelope is checked (``messages.parsed``), the params against their schema (``messages.params_problem``),
and what the view may do is narrow:

- ``tools/call`` only for a tool of this client's server whose visibility includes ``"app"`` (another
  server's tools are out of reach: the bridge knows only its client), and that the tool filters of the
  Manager that made the client (``excludeTools``, ...) let through, with the client's timeout;
- ``resources/read`` and ``resources/list`` on this client only;
- ``ui/open-link`` only for an ``http(s)`` URL, handed to ``on_open_link`` (no handler: refused, the host
  cannot open links); the view never navigates;
- ``ui/message`` to ``on_message``, ``notifications/message`` to ``on_log``, size changes to ``on_size``
  (clamped), a teardown request to ``on_request_teardown``;
- at most ``MAX_IN_FLIGHT`` requests at once and ``BURST`` user-facing messages (``ui/message``,
  ``ui/open-link``, logs) in a row, refilled at ``PER_SECOND``: a flood is answered with errors.

``handle()`` never raises and never blocks for longer than a tool call's timeout.
"""

from __future__ import annotations

import itertools
import logging
import math
import threading
import time
from collections.abc import Mapping
from typing import Any, Callable, Optional
from urllib.parse import urlsplit

from ..._core.errors import MCPError, RequestTimeout, ServerError
from ..._core.timeouts import USE_DEFAULT, Timeout, resolve_timeout
from ..._manager.tool_filter import why_filtered
from ..._session.app_resources import AppResources
from ..._session.app_view import AppView
from ..._version import __version__
from .messages import MAX_CHARS_OF, NOTIFICATIONS, REQUESTS, Invalid, params_problem, parsed_sized

__all__ = ["APPS_PROTOCOL_VERSION", "AppBridge"]

logger = logging.getLogger("mcpsync.apps")

#: The version of the MCP Apps dialect we speak (the extension's stable revision).
APPS_PROTOCOL_VERSION = "2026-01-26"
#: The most requests of one view handled at once; more are refused until some end.
MAX_IN_FLIGHT = 8
#: User-facing messages (``ui/message``, ``ui/open-link``, logs) a view may send in a row...
BURST = 20
#: ...and how many more it earns each second.
PER_SECOND = 2.0
#: The largest size a view may ask for, in pixels (either side).
MAX_SIZE = 20_000
#: Seconds a view's tool call may take when the client's transport has no default timeout.
FALLBACK_TIMEOUT = 60.0
#: The methods that reach the user (rate-limited).
_USER_FACING = frozenset({"ui/message", "ui/open-link", "notifications/message"})


def _error(request_id: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


class _Refused(Exception):
    """A request the host will not serve: its JSON-RPC error code and why."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class AppBridge:
    """The host side of one MCP App view: answers the view's messages with the view's client.

    Args:
        client: the ``Client`` whose server the view belongs to (``view.client``, as a rule).
        view: the ``AppView`` (``result.ui``).
        on_message: ``fn(params)`` for ``ui/message`` (``{"role": "user", "content": [...]}``); none:
            the request is refused.
        on_open_link: ``fn(url)`` for ``ui/open-link`` with an ``http(s)`` URL; none: refused. It
            should show the person the URL before anything opens; ``False`` refuses the request (one
            is waiting already, say).
        on_log: ``fn(level, logger, data)`` for the view's ``notifications/message``.
        on_size: ``fn(width, height)`` for ``ui/notifications/size-changed`` (each ``None`` when not
            said), clamped to ``0..MAX_SIZE``.
        host_context: more of ``hostContext`` for ``ui/initialize``'s answer (``theme``, ``locale``, ...).
        on_request_teardown: ``fn()`` when the view asks to be closed.
        timeout: seconds for each of the view's tool calls and reads; default the client's; ``None``
            (or a client without a default) is ``FALLBACK_TIMEOUT``: a view never waits without end.
    """

    def __init__(
        self,
        client: Any,
        view: AppView,
        *,
        on_message: Optional[Callable[[dict[str, Any]], Any]] = None,
        on_open_link: Optional[Callable[[str], Any]] = None,
        on_log: Optional[Callable[[str, Optional[str], Any], Any]] = None,
        on_size: Optional[Callable[[Optional[float], Optional[float]], Any]] = None,
        host_context: Optional[Mapping[str, Any]] = None,
        on_request_teardown: Optional[Callable[[], Any]] = None,
        timeout: Timeout = USE_DEFAULT,
    ) -> None:
        self.client = client
        self.view = view
        self.on_message = on_message
        self.on_open_link = on_open_link
        self.on_log = on_log
        self.on_size = on_size
        self.on_request_teardown = on_request_teardown
        self.host_context = dict(host_context or {})
        default = getattr(getattr(client, "transport", None), "default_timeout", None)
        seconds = resolve_timeout(timeout, default)
        #: Seconds each of the view's requests to the server may take: never unbounded.
        self.timeout: float = seconds if seconds is not None else FALLBACK_TIMEOUT
        #: Set once the view said ``ui/notifications/initialized``.
        self.initialized = threading.Event()
        #: The view's last ``ui/update-model-context`` params (a notebook has no model to give them to).
        self.model_context: Optional[dict[str, Any]] = None
        self._lock = threading.Lock()
        self._initialize_answered = False
        self._in_flight = 0
        self._tokens = float(BURST)
        self._refilled = time.monotonic()
        self._ids = itertools.count(1)

    # -- host -> view ------------------------------------------------------------------------------

    def notifications(self) -> list[dict[str, Any]]:
        """The notifications to send the view once it said ``ui/notifications/initialized``: the tool's
        input, then its result."""
        result = self.view.result
        raw = dict(getattr(result, "raw", None) or {})
        return [
            {
                "jsonrpc": "2.0",
                "method": "ui/notifications/tool-input",
                "params": {"arguments": dict(self.view.arguments)},
            },
            {"jsonrpc": "2.0", "method": "ui/notifications/tool-result", "params": raw},
        ]

    def host_context_changed(self, changes: Mapping[str, Any]) -> dict[str, Any]:
        """The ``ui/notifications/host-context-changed`` notification for ``changes`` (``{"theme":
        "dark"}``, say); they are kept for a later ``ui/initialize`` too."""
        self.host_context.update(changes)
        return {"jsonrpc": "2.0", "method": "ui/notifications/host-context-changed", "params": dict(changes)}

    def tool_cancelled(self, reason: Optional[str] = None) -> dict[str, Any]:
        """The ``ui/notifications/tool-cancelled`` notification: the call the view shows did not finish."""
        params = {} if reason is None else {"reason": reason}
        return {"jsonrpc": "2.0", "method": "ui/notifications/tool-cancelled", "params": params}

    def teardown(self) -> dict[str, Any]:
        """The ``ui/resource-teardown`` request to send the view before it is removed."""
        return {
            "jsonrpc": "2.0",
            "id": f"mcpsync-host-{next(self._ids)}",
            "method": "ui/resource-teardown",
            "params": {},
        }

    # -- view -> host ------------------------------------------------------------------------------

    def handle(self, raw: Any) -> Optional[dict[str, Any]]:
        """Handle one message from the view (a JSON text, bytes, or a parsed object): the JSON-RPC
        answer to send back, or ``None`` (a notification, a response, or junk with nothing to answer).
        Never raises."""
        try:
            message, size = parsed_sized(raw)
        except Invalid as exc:
            return self._invalid(exc)
        return self._handle_checked(message, size)

    def _invalid(self, exc: Invalid) -> dict[str, Any]:
        """The answer to a message whose envelope ``messages.parsed`` refused (logged)."""
        logger.info("MCP App view %r: %s", self.view.resource_uri, exc.message)
        return _error(exc.request_id, exc.code, exc.message)

    def _handle_checked(self, message: dict[str, Any], size: int = 0) -> Optional[dict[str, Any]]:
        """``handle`` of a message ``messages.parsed_sized`` made, ``size`` its characters (for a host
        that routed it first: the widget)."""
        method = message.get("method")
        if method is None:
            return None  # the view's answer to our request (teardown, ping): nothing more to do
        request_id = message.get("id")
        is_request = "id" in message
        params = message.get("params")
        try:
            if not is_request:
                self._notified(method, params, size)
                return None
            return {"jsonrpc": "2.0", "id": request_id, "result": self._requested(method, params, size)}
        except _Refused as exc:
            if not is_request:
                logger.info("MCP App view %r: %s ignored: %s", self.view.resource_uri, method, exc.message)
                return None
            return _error(request_id, exc.code, exc.message)
        except Exception as exc:  # a handler's bug must not end the view's channel
            logger.warning("MCP App view %r: %s failed: %r", self.view.resource_uri, method, exc)
            return _error(request_id, -32603, f"the host failed: {type(exc).__name__}") if is_request else None

    def _checked(
        self, method: str, params: Optional[dict[str, Any]], known: Mapping[str, Optional[str]], size: int
    ) -> None:
        """Refuse what the view may not send; the cheap checks first (the method, its size, the rate),
        its params' schema, whose cost grows with their size, last."""
        if method not in known:
            raise _Refused(-32601, f"method not found: {method[:128]!r}")
        limit = MAX_CHARS_OF.get(method)
        if limit is not None and size > limit:
            raise _Refused(-32600, f"{method} too large: {size} characters, at most {limit}")
        if method in _USER_FACING and not self._spend():
            raise _Refused(-32000, f"too many messages: at most {BURST} in a row, then {PER_SECOND:g} a second")
        problem = params_problem(method, params)
        if problem is not None:
            raise _Refused(-32602, f"invalid params for {method}: {problem}")

    def _spend(self) -> bool:
        """Take one token of the user-facing messages' budget (``False``: none left)."""
        with self._lock:
            now = time.monotonic()
            self._tokens = min(float(BURST), self._tokens + (now - self._refilled) * PER_SECOND)
            self._refilled = now
            if self._tokens < 1.0:
                return False
            self._tokens -= 1.0
            return True

    def _notified(self, method: str, params: Optional[dict[str, Any]], size: int) -> None:
        if method.startswith("ui/notifications/sandbox-"):
            return  # a sandbox proxy's own (we have none)
        self._checked(method, params, NOTIFICATIONS, size)
        params = params or {}
        if method == "ui/notifications/initialized":
            self.initialized.set()
        elif method == "ui/notifications/size-changed":
            if self.on_size is not None:
                self.on_size(_clamped(params.get("width")), _clamped(params.get("height")))
        elif method == "ui/notifications/request-teardown":
            if self.on_request_teardown is not None:
                self.on_request_teardown()
        elif method == "notifications/message":
            logger.info("MCP App view %r says (%s): %.500r", self.view.resource_uri, params["level"], params["data"])
            if self.on_log is not None:
                self.on_log(params["level"], params.get("logger"), params["data"])

    def _requested(self, method: str, params: Optional[dict[str, Any]], size: int) -> dict[str, Any]:
        self._checked(method, params, REQUESTS, size)
        params = params or {}
        with self._lock:
            if self._in_flight >= MAX_IN_FLIGHT:
                raise _Refused(-32000, f"too many requests at once: at most {MAX_IN_FLIGHT}")
            self._in_flight += 1
        try:
            return self._serve(method, params)
        finally:
            with self._lock:
                self._in_flight -= 1

    def _serve(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        if method == "ui/initialize":
            with self._lock:
                again, self._initialize_answered = self._initialize_answered, True
            if again:  # one view, one initialize: a page its frame navigated to is not the view
                raise _Refused(-32600, "the view has initialized already")
            return self._initialize_result()
        if method == "ping":
            return {}
        if method == "tools/call":
            return self._call_tool(params["name"], params.get("arguments") or {})
        if method == "resources/read":
            read = self._forwarded(lambda: self.client.read_resource(params["uri"], timeout=self.timeout))
            return dict(read.raw)
        if method == "resources/list":
            listed = self._forwarded(lambda: self.client.list_resources(timeout=self.timeout))
            return {"resources": [dict(resource.raw) for resource in listed]}
        if method == "ui/open-link":
            return self._open_link(params["url"])
        if method == "ui/message":
            if self.on_message is None:
                raise _Refused(-32601, "this host shows no messages from a view")
            self.on_message(params)
            return {}
        if method == "ui/update-model-context":
            self.model_context = params  # kept: a notebook has no model to hand it to
            return {}
        if method == "ui/request-display-mode":
            return {"mode": "inline"}  # the only mode a notebook cell has
        raise _Refused(-32601, f"this host does not offer {method}")

    def _initialize_result(self) -> dict[str, Any]:
        capabilities: dict[str, Any] = {
            "serverTools": {},
            "serverResources": {},
            "logging": {},
            # The lists the view's policy was built from, checked once (a bad value warned of once).
            "sandbox": {"csp": {wire: list(values) for wire, values in self.view.csp_domains.items()}},
        }
        if self.on_open_link is not None:
            capabilities["openLinks"] = {}
        if self.on_message is not None:
            capabilities["message"] = {"text": {}}
        context: dict[str, Any] = {
            "displayMode": "inline",
            "availableDisplayModes": ["inline"],
            "platform": "web",
        }
        if self.view.tool:
            context["toolInfo"] = {"tool": dict(self.view.tool)}
        context.update(self.host_context)
        return {
            "protocolVersion": APPS_PROTOCOL_VERSION,
            "hostInfo": {"name": "mcpsync", "version": __version__},
            "hostCapabilities": capabilities,
            "hostContext": context,
        }

    def _call_tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        tool = self._forwarded(lambda: AppResources.of(self.client).tool(name, self.timeout))
        server = getattr(self.client, "name", "?")
        if tool is None:
            raise _Refused(-32602, f"server {server!r} lists no tool named {name[:128]!r}")
        filtered = why_filtered(self.client, name)
        if filtered is not None:  # the rule the Manager applies to its own calls, applied to the view's
            raise _Refused(-32602, f"tool {name[:128]!r} of server {server!r} is {filtered}")
        visibility = tool.ui.visibility if tool.ui is not None else ("model", "app")
        if "app" not in visibility:
            raise _Refused(-32602, f"tool {name!r} is not for apps: its visibility is {list(visibility)}")
        result = self._forwarded(lambda: self.client.call_tool(name, arguments, timeout=self.timeout))
        return dict(result.raw)

    def _forwarded(self, request: Callable[[], Any]) -> Any:
        """A request to the server on the view's behalf; its failure is the view's JSON-RPC error."""
        try:
            return request()
        except ServerError as exc:
            raise _Refused(exc.code, exc.message) from None
        except RequestTimeout as exc:
            raise _Refused(-32001, f"the server did not answer within {exc.timeout:g} s") from None
        except MCPError as exc:
            raise _Refused(-32603, f"the request failed: {str(exc)[:200]}") from None

    def _open_link(self, url: str) -> dict[str, Any]:
        try:
            parts = urlsplit(url)
        except ValueError:
            raise _Refused(-32602, "url is no URL") from None
        if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
            raise _Refused(-32602, f"only http(s) links are opened, not {parts.scheme or 'this'}: links")
        if self.on_open_link is None:
            raise _Refused(-32601, "this host cannot open links")
        if self.on_open_link(url) is False:
            raise _Refused(-32000, "a link is already waiting for the person to open or dismiss it")
        return {}


def _clamped(value: Any) -> Optional[float]:
    if value is None or not math.isfinite(float(value)):
        return None
    return float(min(max(float(value), 0.0), float(MAX_SIZE)))
