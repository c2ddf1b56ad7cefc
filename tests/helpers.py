"""Helpers many tests share: bounded polling, scripted servers, a real Ctrl-C."""

from __future__ import annotations

import contextlib
import http.server
import os
import socketserver
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any, Callable, TypeVar

import pytest

S = TypeVar("S", bound=socketserver.BaseServer)

#: Seconds a helper polls by default (a test waiting on a server).
TIMEOUT = 20.0
#: How long a Ctrl-C helper waits for its timer thread.
TIMER_JOIN = 5.0


@contextlib.contextmanager
def served(server: S) -> Iterator[S]:
    """Serve ``server`` (a ``socketserver`` of the test's) on a thread until the block ends, then stop it."""
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(TIMER_JOIN)


class LocalService(http.server.ThreadingHTTPServer):
    """A service on 127.0.0.1 that a test expects to be left alone (an admin API of the user's, an
    attacker's token endpoint, a schema host): it answers any GET or POST with ``body`` (a small
    JSON object by default), and records each as ``"METHOD /path?query"`` in ``seen``."""

    daemon_threads = True
    #: Many clients connecting at once are not held up by socketserver's backlog of 5 (a SYN retry is 1 s).
    request_queue_size = 128

    def __init__(self, body: bytes = b"{}", content_type: str = "application/json") -> None:
        self.seen: list[str] = []
        service = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def _any(self) -> None:
                service.seen.append(f"{self.command} {self.path}")
                self.send_response(200)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = _any

            def log_message(self, format: str, *args: object) -> None:
                pass

        super().__init__(("127.0.0.1", 0), Handler)
        self.port = self.server_address[1]


def wait_for(predicate: Callable[[], bool], timeout: float = TIMEOUT) -> bool:
    """Poll ``predicate`` until it is true or ``timeout`` seconds pass; return its last value."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return predicate()
        time.sleep(0.02)
    return True


def python_server(code: str) -> list[str]:
    """A command that runs ``code`` as a server script with this interpreter."""
    return [sys.executable, "-c", code]


INITIALIZE_RESULT = {
    "protocolVersion": "2025-11-25",
    "capabilities": {"tools": {}},
    "serverInfo": {"name": "scripted", "version": "1"},
}


def scripted_server(script: dict, log_file=None) -> list[str]:  # type: ignore[type-arg]
    """A command running tests/scripted_server.py with ``script`` (see its docstring)."""
    import json
    from pathlib import Path

    script = {"initialize": [INITIALIZE_RESULT], **script}
    command = [sys.executable, str(Path(__file__).with_name("scripted_server.py")), json.dumps(script)]
    if log_file is not None:
        command.append(str(log_file))
    return command


@contextlib.contextmanager
def ctrl_c_after(seconds: float, when: Callable[[], bool] | None = None) -> Iterator[None]:
    """Deliver a real SIGINT (Ctrl-C) to this process ``seconds`` after the block starts, or, with ``when``,
    ``seconds`` after ``when()`` first holds (polled for at most ``TIMEOUT``): on a busy machine the thing
    to interrupt may start late, and a Ctrl-C before it would test nothing. Expect KeyboardInterrupt inside."""
    import signal

    done = threading.Event()

    def interrupt() -> None:
        if when is not None:
            wait_for(lambda: done.is_set() or when(), TIMEOUT)
        if not done.wait(seconds):
            os.kill(os.getpid(), signal.SIGINT)

    timer = threading.Thread(target=interrupt, name="ctrl-c", daemon=True)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            yield
    finally:
        done.set()  # the block ended first: no stray SIGINT later, in pytest's own code
        timer.join(TIMER_JOIN)


def in_flight(client: Any, method: str = "tools/call") -> Callable[[], bool]:
    """``when`` for :func:`ctrl_c_after`: the client (or transport) has a ``method`` request out, waiting for
    its answer. A ``tools/call``, not any request: a modern client's ``subscriptions/listen`` waits the
    whole session, and "a message was sent since" is met by others a busy machine sends meanwhile (a
    cancel notice, a listen reopened): a test that waited on those acted before its call was out."""
    pending = getattr(client, "transport", client).endpoint.pending
    return lambda: any(future.method == method for future in pending.in_flight())


def cancelled_on_server(client, expected: int = 1, timeout: float = 5.0) -> list:  # type: ignore[no-untyped-def]
    """The request ids the bundled test server saw cancelled, once it has seen ``expected`` (or ``timeout`` passed).

    Cancellations go out in the background over HTTP, so the server may hear
    of one a moment after the call that timed out has returned.
    """
    seen: list = []

    def enough() -> bool:
        seen[:] = client.call_tool("cancelled_requests", timeout=timeout).structured_content["cancelled"]
        return len(seen) >= expected

    wait_for(enough, timeout)
    return seen
