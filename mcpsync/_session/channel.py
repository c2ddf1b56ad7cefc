"""Requests over one transport: send, wait for the answer within the timeout, give up and tell the server.

This is where the thread rules of docs/architecture.md hold for a caller:

- every wait is bounded; a timeout, ``Future.cancel()`` or a
  ``KeyboardInterrupt`` in the waiting thread forgets the request and sends
  ``notifications/cancelled`` (never for ``initialize``), in the background,
  so the caller gets control back at once;
- on the main thread, what takes locks (registering a request, writing it,
  an HTTP exchange, giving it up) runs in ``DEFERRED`` (``deferred_interrupts()``), and the
  wait for the answer uses the future's interrupt-safe gate: Ctrl-C never
  leaves a lock held, and never a state half-changed.
"""

from __future__ import annotations

import math
import time
from typing import Any, Callable, Optional, Union

from .._core.endpoint import Endpoint
from .._core.eras import LOG_LEVEL, http_headers, request_meta, with_meta
from .._core.errors import AuthorizationRequired, NoResponseError, RequestTimeout, ServerError, WriteTimeout
from .._core.jsonrpc import RequestId
from .._core.pending import RequestFuture
from .._core.timeouts import USE_DEFAULT, Timeout
from .._threads.signals import DEFERRED, interrupted
from .._wire.base import Transport
from .cancel_scope import CancelScope, active_scopes
from .tracing import Tracing

__all__ = ["Channel"]

#: Seconds a timed-out caller waits for a response that won the race against its timeout.
RACE_GRACE = 1.0
#: Logins one request may ask for (each after an ``AuthorizationRequired``), at most.
MAX_LOGINS = 3
#: Seconds by which a timer may fire before the deadline it was set from (clock rounding).
CLOCK_SLACK = 0.01


class Channel:
    """The requests and notifications a client sends over its transport (thread-safe)."""

    def __init__(self, transport: Transport) -> None:
        self.transport = transport
        self.endpoint: Endpoint = transport.endpoint
        #: The ``_meta`` every request carries (the modern era's version, capabilities and identity),
        #: and the version it names; ``None`` in the legacy era (see ``_core.eras``).
        self.meta: Optional[dict[str, Any]] = None
        self.version: Optional[str] = None
        #: Seconds spent so far waiting for a person to log in (logins run for requests): a caller's
        #: deadline set before a request moves on by what the request adds here.
        self.person_time = 0.0
        #: ``fn(method, params) -> headers`` a modern request adds over HTTP (a tool's ``Mcp-Param-*``).
        self.header_hook: Optional[Callable[[str, Optional[dict[str, Any]]], dict[str, str]]] = None
        #: Whether requests go with HTTP headers of their own: not over stdio, which has none to carry
        #: (a value no header could carry has already failed the request's encoding there).
        self.carries_headers = transport.kind != "stdio"
        #: The OpenTelemetry of every request (a client span, its context in ``_meta``); ``None``: off.
        self.tracing: Optional[Tracing] = Tracing(transport)

    def use_version(self, version: Optional[str], capabilities: Any = None, client_info: Any = None) -> None:
        """Carry the modern ``_meta`` of ``version`` on every request from now on (``None``: the
        legacy era, no ``_meta``). A log level set for the modern era stays set."""
        if version is None:
            self.meta = self.version = None
            return
        level = (self.meta or {}).get(LOG_LEVEL)
        meta = request_meta(version, capabilities or {}, client_info or {})
        if level is not None:
            meta[LOG_LEVEL] = level
        self.meta, self.version = meta, version

    def request(
        self,
        method: str,
        params: Optional[dict[str, Any]] = None,
        *,
        timeout: Optional[float],
        max_total: Optional[float] = None,
        last_activity: Optional[Callable[[], float]] = None,
    ) -> dict[str, Any]:
        """Send a request and block until its result arrives.

        Args:
            timeout: seconds without an answer (``None``: no limit). With
                ``last_activity``, counted from the latest activity it reports
                (a ``time.monotonic()`` value, e.g. of the last progress
                notification), so activity keeps the request alive.
            max_total: seconds in all, whatever the activity (``None``: no cap).

        Returns:
            the response's ``result`` dict.

        Raises:
            RequestTimeout: no answer in time (the server is told with
                ``notifications/cancelled``).
            ServerError: the server answered with an error.
            TransportClosed: the connection closed first.
            WriteTimeout: the server took nothing of the request in time.
            AuthorizationRequired: the server wants a login, and nobody can give one here
                (when someone can, the login runs first, and the request is sent again; the
                login's network steps and the request share the timeout, which does not run
                while the person logs in: ``login_timeout`` bounds that).
            KeyboardInterrupt: as usual; the request is cancelled first.
        """
        logins = 0
        reissued = False
        started = sent_at = time.monotonic()
        given = timeout
        scopes = active_scopes()  # the caller's CancelScopes: () almost always
        for scope in scopes:
            scope.check(method)
        # One loop, no frame per attempt: a request goes out again only after a lost answer stream or a login.
        while True:
            if max_total is None:  # the usual
                wire_deadline = math.inf if timeout is None or last_activity is not None else sent_at + timeout
            else:
                wire_deadline = sent_at + max_total
                if last_activity is None and timeout is not None and sent_at + timeout < wire_deadline:
                    wire_deadline = sent_at + timeout
            future: Optional[RequestFuture] = None
            given_up: Optional[bool] = None  # whether the interrupted request was still waiting, once given up
            try:
                # The wait and the giving up are in the section too: a Ctrl-C during the send or the wait is
                # held back, ends the wait, the request is given up, and only then is it raised (as the section
                # ends). Given up after it was raised instead, a second Ctrl-C could land on the way to
                # abandon()'s own section, and the request stayed in the pending table, never cancelled.
                with DEFERRED:
                    future = self._send(method, params, wire_deadline, last_activity is None, timeout, scopes)
                    result = self._wait(future, timeout, sent_at, max_total, last_activity)
                    if result is not None:
                        return result
                    given_up = self.abandon(future, "interrupted by the user")
                raise KeyboardInterrupt  # (not reached: the section's end raised it; a handler that did not)
            except KeyboardInterrupt as exc:
                if future is None or exc.args:
                    if future is not None and given_up is None:
                        self.abandon(future, "interrupted by the user")
                    raise
                raise self._interrupted(method, future, given_up) from None
            except NoResponseError:
                # The 2026-07-28 revision: a broken answer stream loses the request (nothing resumes
                # it); it goes again, once, under a new id, in what is left of its time.
                if self.meta is None or reissued:
                    raise
                reissued = True
                if given is not None:
                    timeout = given - (time.monotonic() - started)
                    if timeout <= 0:
                        raise RequestTimeout(method, given) from None
                sent_at = time.monotonic()  # it goes again now
            except AuthorizationRequired as exc:
                # A login waits for a person: here, on the caller's thread, never inside the exchange.
                authorizer = self.transport.authorizer
                if authorizer is None or not authorizer.can_login():
                    raise
                if logins >= MAX_LOGINS:
                    raise exc.retold(
                        f"{self.transport.name}: refused again after {logins} logins for this request; "
                        f"not asked again. The last answer: {exc}"
                    ) from None
                logins += 1
                deadline = math.inf if given is None else started + given
                # The person's time is not the caller's: the clock stops while they log in.
                person = authorizer.login(exc, deadline=deadline)
                self.person_time += person
                started += person
                if given is not None:
                    timeout = given - (time.monotonic() - started)
                    if timeout <= 0:
                        raise RequestTimeout(method, given) from None
                sent_at = time.monotonic()  # it goes again now
            finally:
                if scopes and future is not None:
                    for scope in scopes:
                        scope.forget(future)

    def _interrupted(self, method: str, future: RequestFuture, given_up: Optional[bool] = None) -> KeyboardInterrupt:
        """A Ctrl-C while a request was out: give it up (telling the server), unless that is done
        (``given_up``: whether it was still waiting then), and say what became of it."""
        waiting = self.abandon(future, "interrupted by the user") if given_up is None else given_up
        server = self.transport.name
        if method == "initialize":  # never cancelled, as the spec demands: the connection is closed instead
            return KeyboardInterrupt(f"initialize interrupted: the connection to {server!r} is given up")
        if waiting:  # abandon() sent notifications/cancelled
            said = f"cancelled on the server {server!r}; the client is still usable"
        else:  # the answer came first: there was nothing left to cancel
            said = "its answer had already come and is dropped; the client is still usable"
        return KeyboardInterrupt(f"{method} interrupted: {said}")

    def send_request(self, method: str, params: Optional[dict[str, Any]] = None) -> RequestFuture:
        """Send a request and return at once with its ``concurrent.futures.Future`` (see ``Client.send_request``)."""
        with DEFERRED:
            return self._send(method, params, math.inf, wait=False)

    def _send(
        self,
        method: str,
        params: Optional[dict[str, Any]],
        deadline: float,
        wait: bool,
        timeout: Optional[float] = None,
        scopes: tuple[CancelScope, ...] = (),
    ) -> RequestFuture:
        meta, version = self.meta, self.version
        if meta is not None and version is not None:
            params = with_meta(params, meta)
        # Every request's _meta is complete here, and its span starts here: one place for both.
        traced = self.tracing.start(method, params, version) if self.tracing is not None else None
        if traced is not None:
            params = traced.params
            try:
                future, data = self.endpoint.request(method, params, on_cancel=self._cancelled)
            except BaseException as exc:
                traced.failed(exc)
                raise
            traced.follow(future)
            future.span = traced
        else:
            future, data = self.endpoint.request(method, params, on_cancel=self._cancelled)
        try:
            for scope in scopes:  # before the wire's work, which an HTTP request does on this thread
                scope.watch(self.abandon, future)
            if meta is not None and version is not None and self.carries_headers:
                # A value that cannot travel as a header (a lone surrogate) raises here, before anything is sent.
                future.headers = http_headers(version, method, params)
                if self.header_hook is not None:
                    future.headers.update(self.header_hook(method, params))
            self.transport.send_request(future, data, deadline=deadline, wait=wait)
        except WriteTimeout as exc:
            if timeout is not None and time.monotonic() >= deadline - CLOCK_SLACK:
                # The request's own time ran out while it went out (a server that takes an HTTP POST
                # but does not acknowledge it, a token refresh that waited for another's lock): a
                # timeout like any other, and the server may have it; what held it up is said.
                if future.span is not None:
                    future.span.error_type = "timeout"
                self.abandon(future, f"timed out after {timeout:g}s")
                raise RequestTimeout(method, timeout, detail=str(exc)) from None
            self.endpoint.fail(future, WriteTimeout("not sent"))  # nothing went out: forget it
            raise
        except BaseException as exc:
            self.endpoint.fail(future, exc)  # it never went out whole: forget it
            for scope in scopes:
                scope.forget(future)
            raise
        return future

    def notify(self, method: str, params: Optional[dict[str, Any]] = None, *, timeout: Timeout = USE_DEFAULT) -> None:
        """Send a notification, within ``timeout`` (default: the transport's write timeout)
        (``WriteTimeout``, ``TransportClosed``, ``HTTPStatusError`` if it cannot go)."""
        with DEFERRED:
            self.transport.send_message(Endpoint.notification(method, params), timeout)

    def respond(
        self,
        request_id: RequestId,
        result: Optional[dict[str, Any]] = None,
        *,
        error: Union[ServerError, dict[str, Any], None] = None,
    ) -> None:
        """Answer a request the server sent: with ``result``, or with ``error`` (``ServerError`` or error object)."""
        if error is not None:
            data = Endpoint.error_response(request_id, error)
        else:
            data = Endpoint.response(request_id, result)
        with DEFERRED:
            self.transport.send_message(data)

    def _wait(
        self,
        future: RequestFuture,
        timeout: Optional[float],
        started: float,
        max_total: Optional[float],
        last_activity: Optional[Callable[[], float]],
    ) -> Optional[dict[str, Any]]:
        """Wait for a request's result: ``timeout`` after ``started`` (the send), or after the last
        activity when ``last_activity`` keeps it alive, capped by ``max_total``; on timeout give the
        request up (and tell the server). ``None``: a held-back Ctrl-C ended the wait (the caller gives it up)."""
        while True:
            deadline = None
            if timeout is not None:
                deadline = (last_activity() if last_activity is not None else started) + timeout
            if max_total is not None and (deadline is None or started + max_total < deadline):
                deadline = started + max_total
            if future.wait_settled(None if deadline is None else deadline - time.monotonic(), interrupted):
                result: dict[str, Any] = future.settled_result()
                return result
            if interrupted():
                return None
            now = time.monotonic()
            capped = max_total is not None and now >= started + max_total
            kept_alive = timeout is not None and last_activity is not None and last_activity() + timeout > now
            if not capped and kept_alive:
                continue  # activity moved the deadline on
            return self._timed_out(future, (max_total if capped else timeout) or 0.0)

    def _timed_out(self, future: RequestFuture, limit: float) -> dict[str, Any]:
        """Give a request up after ``limit`` seconds: raise ``RequestTimeout``, unless its answer won the race."""
        if future.span is not None:
            future.span.error_type = "timeout"  # before the future settles with the abandonment
        held_up_by = self.transport.held_up_by(future)  # before the abandonment cuts what it was doing
        if not self.abandon(future, f"timed out after {limit:g}s") and future.wait_settled(RACE_GRACE):
            # The answer won the race: the reader took it from the table and was settling the future.
            result: dict[str, Any] = future.settled_result()
            return result
        note = getattr(self.transport, "timeout_note", "")  # a transport of the user's may have none
        if note and limit != self.transport.default_timeout:
            note = ""  # the caller's own timeout: nothing of the configuration's to say
        raise RequestTimeout(future.method, limit, detail=held_up_by or note) from None

    def _cancelled(self, future: RequestFuture) -> None:
        self.abandon(future, "cancelled by the caller")

    def abandon(self, future: RequestFuture, reason: str, *, error: Optional[BaseException] = None) -> bool:
        """Give up on a request: forget it, stop the wire's work for it, and tell the server (in the background).

        Returns ``True`` if the request was still waiting; its late response
        will be dropped (counted in ``stats.late_responses``).
        """
        with DEFERRED:
            waiting, notice = self.endpoint.abandon(future, reason, error)
            if waiting:
                self.transport.stop_request(future, notice)
        return waiting
