"""Cancelling blocking calls from another thread: ``CancelScope``.

A blocking call returns when its answer comes, its timeout passes, or Ctrl-C
reaches the main thread. Code that runs calls on worker threads (an asyncio
task awaiting a call made on a thread, a GUI's cancel button, a supervisor)
needs one more way out: a scope entered around the calls, cancelled from any
thread. Cancelling gives up every request made inside the scope that is still
waiting, as a timeout would: the request is forgotten, the server is told
(``notifications/cancelled``), and its caller raises ``RequestCancelled`` at
once. A request made inside a scope already cancelled raises before it is sent.

The scope is found through a context variable, so a scope entered in a
coroutine reaches ``asyncio.to_thread``'s worker (which copies the context),
and scopes nest: cancelling an outer scope cancels the requests of the inner
ones too. Futures of ``send_request`` are not covered (cancel them with
``future.cancel()``).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar, Token
from types import TracebackType
from typing import Any, Callable, Optional

from .._core.errors import RequestCancelled
from .._core.pending import RequestFuture

#: How a request is given up: its channel's ``abandon(future, reason, error=)``.
Abandon = Callable[..., Any]

__all__ = ["CancelScope", "active_scopes", "outside_scopes", "pause"]

#: The scopes entered in this context, outermost first (a tuple: contexts copy it cheaply).
_active: ContextVar[tuple[CancelScope, ...]] = ContextVar("mcpsync_cancel_scopes", default=())
#: The tokens to restore ``_active`` with, one per ``__enter__`` in this context.
_tokens: ContextVar[tuple[Token[tuple[CancelScope, ...]], ...]] = ContextVar("mcpsync_cancel_tokens", default=())

#: Every request's check: the scopes it is made in (``()`` almost always).
active_scopes = _active.get


class CancelScope:
    """Cancel, from any thread, the blocking calls made inside ``with scope:``.

    ::

        scope = mcpsync.CancelScope()

        def work():
            with scope:
                return client.call_tool("slow", {})   # raises RequestCancelled once cancelled

        # elsewhere, any thread:
        scope.cancel("the user pressed Stop")

    ``cancel`` returns at once; it is idempotent (the first reason stays).
    A scope may be entered on several threads, and again after it was left;
    once cancelled it stays cancelled. A ``KeyboardInterrupt`` that leaves
    the ``with`` block cancels the scope: calls made in it on other threads
    (which copied its context) end too, and their server is told.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._reason: Optional[str] = None
        self._waiting: dict[RequestFuture, Abandon] = {}
        self._sleepers: set[threading.Event] = set()  # pauses (between a task's polls) to wake

    @property
    def cancelled(self) -> bool:
        """Whether ``cancel`` was called."""
        return self._reason is not None

    @property
    def reason(self) -> Optional[str]:
        """The reason ``cancel`` was given (``None`` while not cancelled)."""
        return self._reason

    def __enter__(self) -> CancelScope:
        token = _active.set((*_active.get(), self))
        _tokens.set((*_tokens.get(), token))
        return self

    def __exit__(
        self,
        kind: Optional[type[BaseException]],
        error: Optional[BaseException],
        traceback: Optional[TracebackType],
    ) -> None:
        tokens = _tokens.get()
        _tokens.set(tokens[:-1])
        _active.reset(tokens[-1])
        if kind is not None and issubclass(kind, KeyboardInterrupt):
            # Ctrl-C left the block: the calls made in it on other threads (which copied its context:
            # an agent framework's tool threads, say) are cancelled too, not left to run to their timeout.
            self.cancel("interrupted by the user")

    def cancel(self, reason: str = "cancelled by the caller") -> None:
        """Cancel every request waiting inside the scope, and every later one made inside it."""
        with self._lock:
            if self._reason is not None:
                return
            self._reason = reason
            waiting, self._waiting = self._waiting, {}
            sleepers = list(self._sleepers)
        for sleeper in sleepers:
            sleeper.set()
        for future, abandon in waiting.items():
            abandon(future, reason, error=RequestCancelled(future.method, reason))

    def __repr__(self) -> str:
        state = f"cancelled: {self._reason!r}" if self._reason is not None else f"{len(self._waiting)} waiting"
        return f"<CancelScope {state}>"

    # -- for the channel ------------------------------------------------------

    def check(self, method: str) -> None:
        """Raise ``RequestCancelled`` if the scope is cancelled (before a request is sent)."""
        reason = self._reason
        if reason is not None:
            raise RequestCancelled(method, reason)

    def watch(self, abandon: Abandon, future: RequestFuture) -> None:
        """Hold a request registered and not sent yet (``RequestCancelled`` if the scope was
        cancelled meanwhile: then it is not sent at all)."""
        with self._lock:
            reason = self._reason
            if reason is None:
                self._waiting[future] = abandon
                return
        raise RequestCancelled(future.method, reason)

    def forget(self, future: RequestFuture) -> None:
        """The request is over (answered, failed, timed out): nothing left to cancel."""
        with self._lock:
            self._waiting.pop(future, None)


def pause(seconds: float, method: str) -> None:
    """``time.sleep(seconds)`` that a cancel of the caller's scopes cuts short: then (and if one is
    cancelled already) ``RequestCancelled`` for ``method``, the request the pause waits to make."""
    scopes = _active.get()
    if not scopes:
        time.sleep(seconds)
        return
    sleeper = threading.Event()
    for scope in scopes:
        with scope._lock:
            scope._sleepers.add(sleeper)
    try:
        for scope in scopes:
            scope.check(method)
        sleeper.wait(seconds)
        for scope in scopes:
            scope.check(method)
    finally:
        for scope in scopes:
            with scope._lock:
                scope._sleepers.discard(sleeper)


@contextmanager
def outside_scopes() -> Iterator[None]:
    """``with outside_scopes():`` runs requests that must go even when the caller's scope is
    cancelled: a clean-up's (cancelling a task on the server), bounded by its own timeout."""
    token = _active.set(())
    try:
        yield
    finally:
        _active.reset(token)
