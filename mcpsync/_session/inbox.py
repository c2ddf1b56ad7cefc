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
import time
from collections.abc import Iterable, Mapping
from typing import Any, Callable, Optional, Union

from .._core.errors import MCPError, ProtocolError
from .._core.jsonrpc import Kind, Message
from .dispatch import Dispatcher
from .progress import ProgressTokens
from .server_requests import ServerRequests

__all__ = ["DISCOVER_KEY", "LIST_CHANGED", "PRIVATE", "PUBLIC", "PYTHON_LEVELS", "Inbox", "ListCache", "cache_scope"]

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


#: Read resources held at most (each for its ``ttlMs``).
MAX_READS_HELD = 256

#: ``cacheScope`` values (2026-07-28): a result anyone may be served, or one for its authorization context only.
PUBLIC, PRIVATE = "public", "private"

_Key = Union[str, tuple[str, ...]]
#: Where the ``server/discover`` answer is held, beside the reads (a resource list change leaves it).
DISCOVER_KEY = ("server/discover",)


def cache_scope(results: Iterable[Mapping[str, Any]]) -> Optional[str]:
    """The ``cacheScope`` of a result, or of a listing's pages together: ``"public"`` only when every
    page says so, ``"private"`` when one does, ``None`` when none says (a server of an older era)."""
    scopes = {result.get("cacheScope") for result in results}
    if PRIVATE in scopes:
        return PRIVATE
    if scopes == {PUBLIC}:
        return PUBLIC
    return None


class ListCache:
    """The last tools, prompts and resources lists a client fetched; ``None``: not fetched, or stale.

    With the 2026-07-28 revision's ``ttlMs`` a list (and a read resource) is also *fresh* for that
    long: ``fresh`` serves it without asking the server. A list change, or ``resources/updated``
    for a resource, ends that at once.

    ``cacheScope``: a result that is not ``"public"`` (``"private"``, or none said) belongs to the
    authorization context it was fetched in (``context()``: the transport's fingerprint of the
    credentials it sends). It is kept only if the context did not change while it was fetched, and
    served only while the context is still the same; after that it is dropped, never served.
    """

    KINDS = ("tools", "prompts", "resources")

    def __init__(self, on_forget: Callable[[str], None], context: Callable[[], str] = lambda: "") -> None:
        self._lists: dict[str, Optional[list[Any]]] = dict.fromkeys(self.KINDS)
        self._fresh_until: dict[str, float] = {}
        self._reads: dict[_Key, tuple[Any, float]] = {}  # URIs, and keys of ours (tuples)
        self._owners: dict[tuple[str, _Key], Optional[str]] = {}  # the context of what is not public
        self._scopes: dict[str, Optional[str]] = {}
        self._on_forget = on_forget
        #: The authorization context now (a fingerprint; ``""`` for none).
        self.context = context

    def _owned(self, key: tuple[str, _Key], context: Optional[str], scope: Optional[str]) -> bool:
        """Note whose ``key`` is; ``False`` (keep nothing) if the context changed since ``context``."""
        if scope == PUBLIC:
            self._owners[key] = None
            return True
        now = self.context()
        if context is not None and context != now:
            return False  # fetched for one context, and another is here now: keep it for no one
        self._owners[key] = now
        return True

    def _theirs(self, key: tuple[str, _Key]) -> bool:
        """Whether what is held under ``key`` belongs to another authorization context than now's."""
        owner = self._owners.get(key)
        return owner is not None and owner != self.context()

    def get(self, kind: str) -> Optional[list[Any]]:
        """The list held for ``kind``, if any (and if the authorization context may be served it)."""
        if self._lists[kind] is not None and self._theirs(("list", kind)):
            self._lists[kind] = None
            self._fresh_until.pop(kind, None)
        return self._lists[kind]

    def put(
        self,
        kind: str,
        items: list[Any],
        ttl: Optional[float] = None,
        *,
        scope: Optional[str] = None,
        context: Optional[str] = None,
    ) -> None:
        """Hold a freshly fetched list; fresh for ``ttl`` seconds (the server's ``ttlMs``), if any.
        ``scope``: its ``cacheScope``; ``context``: the authorization context it was asked for in."""
        self._scopes[kind] = scope
        if not self._owned(("list", kind), context, scope):
            return
        self._lists[kind] = items
        self._fresh_until[kind] = time.monotonic() + ttl if ttl else 0.0

    def scope(self, kind: str) -> Optional[str]:
        """The ``cacheScope`` of the list of ``kind`` fetched last, kept or not (``None``: none said)."""
        return self._scopes.get(kind)

    def fresh(self, kind: str) -> Optional[list[Any]]:
        """The list held for ``kind`` if the server's ``ttlMs`` says it is still fresh."""
        items = self.get(kind)
        return items if items is not None and time.monotonic() < self._fresh_until.get(kind, 0.0) else None

    def put_read(
        self,
        uri: _Key,
        result: Any,
        ttl: Optional[float],
        *,
        scope: Optional[str] = None,
        context: Optional[str] = None,
    ) -> None:
        """Hold a read resource for ``ttl`` seconds (nothing without one); ``scope`` and ``context`` as for ``put``."""
        if ttl and self._owned(("read", uri), context, scope):
            if len(self._reads) >= MAX_READS_HELD and uri not in self._reads:
                self.forget_read(next(iter(self._reads)))
            self._reads[uri] = (result, time.monotonic() + ttl)

    def fresh_read(self, uri: _Key) -> Any:
        held = self._reads.get(uri)
        if held is not None and self._theirs(("read", uri)):
            self.forget_read(uri)
            return None
        if held is None or time.monotonic() >= held[1]:
            return None
        return held[0]

    def forget_read(self, uri: Any) -> None:
        """The server said the resource changed."""
        self._reads.pop(uri, None)
        self._owners.pop(("read", uri), None)

    def forget(self, kind: str) -> None:
        """The server said the list changed."""
        self._lists[kind] = None
        self._fresh_until.pop(kind, None)
        if kind == "resources":
            for key in [key for key in self._reads if key != DISCOVER_KEY]:
                self.forget_read(key)
        self._on_forget(kind)

    def held(self) -> dict[str, list[Any]]:
        """The lists held now (that the authorization context now may be served), by kind."""
        return {kind: list(items) for kind in self.KINDS if (items := self.get(kind)) is not None}


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
