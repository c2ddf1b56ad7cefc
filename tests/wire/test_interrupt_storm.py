"""Ctrl-C storms: SIGINT at random moments of the main thread's calls, over every transport.

A notebook's "interrupt kernel" can land between any two bytecodes of the main
thread, inside mcpsync or inside requests and urllib3. Whatever it hits, the
call it interrupts raises ``KeyboardInterrupt`` (never another error), no
lock is left held, the next call succeeds, ``close()`` returns within its
bound, and no thread or descriptor is left (the autouse ``no_leaks``).

The SIGINT handler during a storm raises ``KeyboardInterrupt`` as Python's own
does, but only while the test is inside a call ("armed"): a signal that
arrives as the call returns is noted and dropped, so that it cannot escape the
test's own bookkeeping. Two other threads make calls on the same client all
along; they must never see an error.

The default storm (``STORM`` interrupts per transport) keeps ``make test``
short; the ``long`` variant (MCPSYNC_LONG_TESTS=1) runs ``LONG_STORM``.
"""

from __future__ import annotations

import faulthandler
import os
import random
import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

import mcpsync
from mcpsync import SSETransport, StdioTransport, StreamableHTTPTransport
from tests.http_server import running_http_server
from tests.wire.test_stdio_faults import PROMPTLY, T, within

STORM = 60
LONG_STORM = 600
#: A storm that takes longer than this has hung: the stacks are dumped and the run ends.
HANG_LIMIT = 600

pytestmark = pytest.mark.skipif(
    threading.current_thread() is not threading.main_thread(), reason="SIGINT reaches the main thread only"
)

KINDS = ["stdio", "http-sse", "http-json", "legacy-sse"]


@pytest.fixture(scope="module")
def bases() -> Iterator[dict[str, str]]:
    with running_http_server() as sse, running_http_server("--json") as json_replies:
        yield {"http-sse": sse, "http-json": json_replies, "legacy-sse": sse}


def transport_for(kind: str, bases: dict[str, str]) -> Any:
    if kind == "stdio":
        return StdioTransport(sys.executable, ["-m", "mcpsync.testing"], exit_timeout=0.5, terminate_timeout=1.0)
    if kind == "legacy-sse":
        return SSETransport(f"{bases[kind]}/sse", timeout=T)
    return StreamableHTTPTransport(f"{bases[kind]}/mcp", timeout=T)


class Storm:
    """Sends SIGINT to this process at a random moment of each call (while ``armed``)."""

    def __init__(self, count: int, seed: int) -> None:
        self.count = count
        self.seed = seed
        self.random = random.Random(seed)
        self.armed = False
        self.call_started = threading.Event()
        self.window = 0.002  # seconds after a call starts within which the signal comes: ~ a call's length
        self.raised = 0  # KeyboardInterrupts the handler raised
        self.dropped = 0  # signals that came when no call was running
        self.handled = threading.Semaphore(0)  # one per signal handled, raised or dropped
        self.stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="test-storm")

    def arm(self) -> None:
        self.armed = True
        self.call_started.set()

    def disarm(self) -> None:
        self.armed = False
        self.call_started.clear()

    def handler(self, signum: int, frame: Any) -> None:
        if self.armed:
            self.raised += 1
            self.handled.release()
            raise KeyboardInterrupt
        self.dropped += 1
        self.handled.release()

    def _run(self) -> None:
        for _ in range(self.count):
            if self.stop.is_set() or not self.call_started.wait(T):
                return
            time.sleep(self.random.uniform(0.0, self.window))
            os.kill(os.getpid(), signal.SIGINT)
            if not self.handled.acquire(timeout=T):  # the main thread is stuck: the test sees it
                return

    def running(self) -> bool:
        return self._thread.is_alive()

    @contextmanager
    def blowing(self) -> Iterator[None]:
        previous = signal.signal(signal.SIGINT, self.handler)
        faulthandler.dump_traceback_later(HANG_LIMIT, exit=True)
        self._thread.start()
        try:
            yield
        finally:
            self.stop.set()
            self._thread.join(T)
            faulthandler.cancel_dump_traceback_later()
            signal.signal(signal.SIGINT, previous)


def one_call(client: mcpsync.Client, rng: random.Random) -> None:
    if rng.random() < 0.5:
        assert client.call_tool("echo", {"text": "storm"}, timeout=T).text == "storm"
    else:
        client.call_tool("sleep", {"seconds": rng.uniform(0.0, 0.02)}, timeout=T)


def run_storm(kind: str, bases: dict[str, str], count: int) -> None:
    seed = int(os.environ.get("MCPSYNC_STORM_SEED", "0")) or random.randrange(1 << 30)
    storm = Storm(count, seed)
    rng = random.Random(seed)
    surprises: list[BaseException] = []
    others_failed: list[BaseException] = []
    others_done = threading.Event()
    client = mcpsync.Client(transport_for(kind, bases))
    client.initialize(timeout=T)

    def other_calls() -> None:  # never interrupted: must never fail
        local = random.Random()
        while not others_done.is_set():
            try:
                one_call(client, local)
            except BaseException as exc:
                others_failed.append(exc)
                return

    others = [threading.Thread(target=other_calls, name=f"test-other-{n}") for n in range(2)]
    for thread in others:
        thread.start()
    calls = 0
    started = time.monotonic()
    for _ in range(20):  # how long a call takes here: the storm's window
        one_call(client, rng)
    storm.window = 1.5 * (time.monotonic() - started) / 20
    try:
        with storm.blowing():
            while storm.running():  # it waits for each signal to be handled before the next
                try:
                    try:
                        storm.arm()
                        calls += 1
                        one_call(client, rng)
                    finally:
                        storm.disarm()
                except KeyboardInterrupt:
                    pass
                except BaseException as exc:
                    surprises.append(exc)
                    if len(surprises) > 5:
                        break
        # The storm is over: the client works, from every thread, and closes in time.
        assert client.call_tool("echo", {"text": "after"}, timeout=T).text == "after"
    finally:
        others_done.set()
        for thread in others:
            thread.join(T)
        with within(PROMPTLY):
            client.close()
    assert not any(thread.is_alive() for thread in others), "a calling thread is stuck"
    where = f"(MCPSYNC_STORM_SEED={seed})"
    assert surprises == [], f"errors other than KeyboardInterrupt {where}: {surprises!r}"
    assert others_failed == [], f"a thread that was never interrupted failed: {others_failed!r}"
    assert storm.raised + storm.dropped == count, "a signal was never handled"
    assert storm.raised > count // 2, f"only {storm.raised} of {count} interrupts hit a call ({calls} calls) {where}"


@pytest.mark.parametrize("kind", KINDS)
def test_a_ctrl_c_storm_leaves_the_client_working(kind: str, bases: dict[str, str]) -> None:
    run_storm(kind, bases, STORM)


@pytest.mark.long
@pytest.mark.parametrize("kind", KINDS)
def test_a_long_ctrl_c_storm_leaves_the_client_working(kind: str, bases: dict[str, str]) -> None:
    run_storm(kind, bases, LONG_STORM)
