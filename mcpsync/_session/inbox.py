"""What the server sends a client on its own: notifications and requests, taken on the reader thread.

``Inbox`` is the client's ``Receiver`` (``mcpsync._wire.base``): the
transport's reader hands it every request and notification. It does only
what cannot wait (note a progress notification's time, forget a list the
server says changed, note a cancellation before a handler answers) and
queues everything else, user callbacks included, for the client's dispatch
thread, in arrival order.
"""

from __future__ import annotations

import json
import logging
from typing import Any, Callable, Optional

from .._core.errors import MCPError, ProtocolError
from .._core.jsonrpc import Kind, Message
from .cache import ListCache
from .dispatch import Dispatcher
from .progress import ProgressTokens
from .server_requests import ServerRequests

__all__ = ["LIST_CHANGED", "PYTHON_LEVELS", "Inbox", "LogHandler", "NotificationHandler"]

logger = logging.getLogger("mcpsync.client")

NotificationHandler = Callable[[str, Optional[dict[str, Any]]], None]
LogHandler = Callable[[Any, Any, Any], None]

#: The list_changed notifications, and the list each is about.
LIST_CHANGED = {
    "notifications/tools/list_changed": "tools",
    "notifications/prompts/list_changed": "prompts",
    "notifications/resources/list_changed": "resources",
}

#: The Python logging levels MCP's levels map to.
PYTHON_LEVELS = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "notice": logging.INFO + 5,
    "warning": logging.WARNING,
    "error": logging.ERROR,
    "critical": logging.CRITICAL,
    "alert": logging.CRITICAL + 5,
    "emergency": logging.CRITICAL + 10,
}


class Inbox:
    """Routes what one server sends (see the module docstring); user callbacks are the client's attributes.

    Args:
        name: the server's name (logs).
        server_logger: where the server's log messages go.
        dispatcher: the client's dispatch thread.
        progress: the client's progress tokens.
        server_requests: answers the server's requests.
        cache: the client's lists.
        callbacks: the object holding the user's callbacks (the ``Client``):
            ``on_notification``, ``on_log``, ``on_list_changed``,
            ``on_resource_updated``, ``on_elicitation_complete``, ``on_error``,
            ``on_close``, and ``refresh`` (fetch a list again).
        on_closed: called with the error that ended the connection (``None`` after ``close()``).
    """

    def __init__(
        self,
        name: str,
        server_logger: logging.Logger,
        dispatcher: Dispatcher,
        progress: ProgressTokens,
        server_requests: ServerRequests,
        cache: ListCache,
        callbacks: Any,
        on_closed: Callable[[Optional[BaseException]], None],
    ) -> None:
        self._name = name
        self._server_logger = server_logger
        self._dispatcher = dispatcher
        self._progress = progress
        self._server_requests = server_requests
        self._cache = cache
        self._callbacks = callbacks
        self._on_closed = on_closed

    # -- the Receiver interface (reader thread) ------------------------------------------

    def incoming(self, message: Message, kind: Kind) -> None:
        """A request or notification from the server: queue only, and note what cannot wait."""
        if kind is Kind.REQUEST:
            self._server_requests.on_request(message)
            return
        method = message["method"]
        params = message.get("params") or {}
        callbacks = self._callbacks

        def submit(fn: Callable[..., Any], *args: Any) -> None:
            # Notifications may be dropped when they flood in; the reader never waits for room.
            self._dispatcher.submit(fn, *args, droppable=True)

        if method == "notifications/progress":
            progressed = self._progress.notified(params)
            if progressed is not None:
                submit(progressed[0], *progressed[1])
        elif method == "notifications/message":
            submit(self._server_log, params)
        elif method == "notifications/cancelled":
            self._server_requests.cancelled(params.get("requestId"))
        elif method in LIST_CHANGED:
            kind_of_list = LIST_CHANGED[method]
            self._cache.forget(kind_of_list)
            if callbacks.refresh_on_list_changed:
                submit(self._refresh, kind_of_list)
            if callbacks.on_list_changed is not None:
                submit(callbacks.on_list_changed, kind_of_list)
        elif method == "notifications/resources/updated":
            self._cache.forget_read(params.get("uri"))
            if callbacks.on_resource_updated is not None:
                submit(callbacks.on_resource_updated, params.get("uri"))
        elif method == "notifications/elicitation/complete" and callbacks.on_elicitation_complete is not None:
            submit(callbacks.on_elicitation_complete, params)
        if callbacks.on_notification is not None:
            submit(callbacks.on_notification, method, message.get("params"))

    def problem(self, error: ProtocolError) -> None:
        """A message the server sent was skipped or refused (logged already): tell ``on_error``."""
        on_error = self._callbacks.on_error
        if on_error is not None:
            self._dispatcher.submit(on_error, error, droppable=True)

    def closed(self, error: Optional[BaseException]) -> None:
        """The connection ended (once)."""
        self._on_closed(error)

    # -- on the dispatch thread ------------------------------------------------------------

    def _refresh(self, kind: str) -> None:
        """Fetch a list the server said changed (failures are logged, not raised)."""
        try:
            self._callbacks.refresh(kind)
        except MCPError as exc:
            logger.warning("server %r: could not refresh the %s list: %s", self._name, kind, exc)

    def _server_log(self, params: Optional[dict[str, Any]]) -> None:
        """A ``notifications/message``: to Python logging (MCP levels mapped) and to ``on_log``."""
        params = params or {}
        level = params.get("level")
        data = params.get("data")
        source = params.get("logger")
        python_level = PYTHON_LEVELS.get(level, logging.INFO) if isinstance(level, str) else logging.INFO
        if self._server_logger.isEnabledFor(python_level):
            text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
            self._server_logger.log(python_level, "%s%s", f"[{source}] " if source else "", text)
        on_log = self._callbacks.on_log
        if on_log is not None:
            on_log(level, source, data)
