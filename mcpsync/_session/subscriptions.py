"""``subscriptions/listen``: the 2026-07-28 revision's one stream of what the server says on its own.

It replaces the legacy era's GET stream and ``resources/subscribe``. The
client keeps at most one subscription open: the list changes the server
declares (``listChanged`` of tools, prompts, resources: the client's caches
and ``on_list_changed`` need them, as in the legacy era) and the resources
passed to ``subscribe_resource``. Its notifications arrive as any other
(the transport hands them to the inbox), so ``on_list_changed``,
``on_resource_updated`` and ``on_notification`` work the same in both eras.

A change of what is wanted ends the open subscription (the request is given
up: its stream closes, or ``notifications/cancelled`` on stdio) and opens
another. A subscription that breaks is opened again after a pause that
doubles (``RETRY_DELAYS``), a few times at most, the count starting anew once
one has lasted ``STEADY`` seconds; one the server ends with a result (a graceful
end), refuses (-32601, -32602: asking again changes nothing) or whose connection
closed is not. Everything here runs on the thread that
changes the wish, or on the future's callback, and never blocks.
"""

from __future__ import annotations

import logging
import threading
import time
from concurrent.futures import Future
from typing import Any, Callable, Optional

from .._core.errors import MCPError, ServerError, TransportClosed
from .._core.pending import RequestFuture
from .channel import Channel

__all__ = ["RETRY_DELAYS", "Subscriptions"]

logger = logging.getLogger("mcpsync.client")

#: Seconds before each reopening of a subscription that broke; then it is given up (and logged).
RETRY_DELAYS = (0.5, 1.0, 2.0, 4.0, 8.0)
#: Seconds after which a subscription counts as having worked: its next break starts the retries anew.
STEADY = 30.0
#: JSON-RPC errors that asking again cannot change (no such method, the filter refused): not reopened.
_REFUSALS = (-32601, -32602)
_LISTS = (("tools", "toolsListChanged"), ("prompts", "promptsListChanged"), ("resources", "resourcesListChanged"))


class Subscriptions:
    """The one ``subscriptions/listen`` of a modern client (thread-safe)."""

    def __init__(self, channel: Channel, name: str, is_open: Callable[[], bool]) -> None:
        self._channel = channel
        self._name = name
        self._is_open = is_open
        self._lock = threading.Lock()
        self._lists: dict[str, bool] = {}
        self._resources: list[str] = []
        self._future: Optional[RequestFuture] = None
        self._failures = 0
        self._opened_at = 0.0
        self._timer: Optional[threading.Timer] = None
        self._closed = False

    def start(self, server_capabilities: dict[str, Any]) -> None:
        """Subscribe to the list changes the server declares (``listChanged``)."""
        with self._lock:
            for kind, key in _LISTS:
                declared = server_capabilities.get(kind)
                if isinstance(declared, dict) and declared.get("listChanged"):
                    self._lists[key] = True
        self._renew()

    def subscribe(self, uri: str) -> None:
        with self._lock:
            if uri in self._resources:
                return
            self._resources.append(uri)
        self._renew()

    def unsubscribe(self, uri: str) -> None:
        with self._lock:
            if uri not in self._resources:
                return
            self._resources.remove(uri)
        self._renew()

    @property
    def wanted(self) -> dict[str, Any]:
        """The ``notifications`` filter asked for now."""
        with self._lock:
            return self._filter()

    def _filter(self) -> dict[str, Any]:
        wanted: dict[str, Any] = dict(self._lists)
        if self._resources:
            wanted["resourceSubscriptions"] = list(self._resources)
        return wanted

    def _renew(self) -> None:
        """End the open subscription, if any, and open one for what is wanted now (if anything)."""
        with self._lock:
            old, self._future = self._future, None
            wanted = self._filter()
            closed = self._closed
        if old is not None:
            self._channel.abandon(old, "its subscription changed")
        if closed or not wanted or not self._is_open():
            return
        try:
            future = self._channel.send_request("subscriptions/listen", {"notifications": wanted})
        except MCPError as exc:
            logger.info("server %r: subscriptions/listen could not be sent: %s", self._name, exc)
            return
        with self._lock:
            self._future = future
            self._opened_at = time.monotonic()
        future.add_done_callback(self._ended)

    def _ended(self, future: Future[Any]) -> None:
        """The subscription's request ended: by us (renewed, closed), by the server, or broken."""
        with self._lock:
            if future is not self._future or self._closed:
                return  # ended by us
            self._future = None
            if future.cancelled():
                return
            error = future.exception()
            if error is None:
                logger.info("server %r: the server ended its subscription", self._name)
                return
            if time.monotonic() - self._opened_at > STEADY:
                self._failures = 0  # it had been working: a new run of retries
            refused = isinstance(error, ServerError) and error.code in _REFUSALS
            if isinstance(error, TransportClosed) or refused or self._failures >= len(RETRY_DELAYS):
                logger.warning("server %r: the subscription ended (%s); not reopened", self._name, error)
                return
            delay = RETRY_DELAYS[self._failures]
            self._failures += 1
            logger.info("server %r: the subscription broke (%s); reopening in %.1fs", self._name, error, delay)
            self._timer = threading.Timer(delay, self._renew)
            self._timer.daemon = True
            self._timer.name = f"mcpsync-subscription-{self._name}"
            self._timer.start()

    def close(self) -> None:
        """End the subscription for good (the client closes)."""
        with self._lock:
            self._closed = True
            future, self._future = self._future, None
            timer, self._timer = self._timer, None
        if timer is not None:
            timer.cancel()
            timer.join(1.0)
        if future is not None and not future.done():
            future.cancel()
