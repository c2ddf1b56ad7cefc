"""Ctrl-C at chosen moments of a main-thread HTTP call: the windows a storm hits only now and then.

A signal's handler runs where the main thread checks for it (a function's
start, after a call); here it is run at exactly such a moment, by a trace
function that calls the installed SIGINT handler as the signal would, so a
window found once by a sweep (the handler run at each such moment of a call) is hit every time.
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Iterator
from typing import Any

import pytest

import mcpsync
from mcpsync import StreamableHTTPTransport
from mcpsync._threads import signals
from tests.http_server import running_http_server
from tests.wire.test_stdio_faults import T

pytestmark = pytest.mark.skipif(
    threading.current_thread() is not threading.main_thread(), reason="SIGINT reaches the main thread only"
)


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    with running_http_server("--json") as url:
        yield url


def raise_like_python(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


class Interrupts:
    """Runs the SIGINT handler at the start of the named functions' frames, once each, in order."""

    def __init__(self, *where: tuple[str, str]) -> None:
        self.where = list(where)  # (function name, the name of the function that calls it)
        self.landed: list[tuple[str, str]] = []

    def trace(self, frame: Any, event: str, arg: Any) -> None:
        if event != "call" or not self.where:
            return None
        name, caller = self.where[0]
        if frame.f_code.co_name == name and frame.f_back is not None and frame.f_back.f_code.co_name == caller:
            self.landed.append(self.where.pop(0))
            if not self.where:
                sys.settrace(None)
            signal.getsignal(signal.SIGINT)(signal.SIGINT, frame)  # may raise, as the signal would here
        return None


def test_a_second_ctrl_c_on_the_way_to_giving_the_request_up_still_gives_it_up(base: str) -> None:
    """Ctrl-C while an HTTP request goes out (held back, raised when its section ends), then a second
    as the request is given up, before the give-up's own section begins: the request still leaves the
    pending table (before: it stayed there, never cancelled, and the storm's next call could hang)."""
    previous = signal.signal(signal.SIGINT, raise_like_python)
    client = mcpsync.Client(StreamableHTTPTransport(f"{base}/mcp", timeout=T))
    try:
        client.initialize(timeout=T)
        assert client.call_tool("echo", {"text": "before"}, timeout=T).text == "before"
        interrupts = Interrupts(("_write_request", "send_request"), ("__enter__", "abandon"))
        sys.settrace(interrupts.trace)
        try:
            with pytest.raises(KeyboardInterrupt):
                client.call_tool("echo", {"text": "storm"}, timeout=T)
        finally:
            sys.settrace(None)
        assert signals._main.depth == 0
        assert len(interrupts.landed) >= 1
        assert len(client.transport.endpoint.pending) == 0, "an interrupted request was never given up"
        assert client.call_tool("echo", {"text": "after"}, timeout=T).text == "after"
    finally:
        signal.signal(signal.SIGINT, previous)
        client.close()
