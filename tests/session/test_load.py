"""Load: 64 threads share one client (stdio, Streamable HTTP) or one manager of three servers.

Each thread makes a mix of calls against mcpsync's bundled test server:
``echo`` with a text no other call uses, ``add`` with numbers no other call
uses, ``progress`` with a callback, ``sleep`` calls whose short timeout must
raise ``RequestTimeout`` (the server is told, and either stops or answers
late; or ``WriteTimeout`` when the other writers held the pipe past that
short timeout, before anything was sent), and futures cancelled with
``Future.cancel()``. Every caller checks
that the answer it got is its own, by content. Afterwards the transports'
counters must show no response that matched nothing, and late responses only
for calls that were given up on; the ``no_leaks`` fixture checks threads,
processes and descriptors. Every join is bounded: a deadlock fails the test
instead of hanging it.

The default sizes keep ``make test`` fast; the variants marked ``long``
(run with ``MCPSYNC_LONG_TESTS=1``) make ten times as many calls.
"""

from __future__ import annotations

import collections
import concurrent.futures
import logging
import sys
import threading
import time
import traceback
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Callable

import pytest

import mcpsync
from mcpsync import RequestTimeout, WriteTimeout
from mcpsync.testing import server_config
from tests.http_server import running_http_server

THREADS = 64
#: Per-call timeout of the calls that should succeed: generous, the machine may be loaded.
CALL_TIMEOUT = 30.0
#: The timeout of the sleep calls that must time out.
SHORT_TIMEOUT = 0.05
#: How long those sleep: the server stops early when told (STOP), or answers late (LATE).
#: The client remembers the last 1024 requests it gave up on (``mcpsync.pending``); a late
#: answer arriving after a thousand more were given up on counts as unmatched. One second
#: keeps the count in that window in the low hundreds.
STOP_SLEEP = 30.0
LATE_SLEEP = 1.0
#: The whole run must end within this many seconds per call per thread, plus a fixed margin.
SECONDS_PER_CALL = 0.5
MARGIN = 60.0


#: The kinds of call a thread makes (see plan).
ECHO, ADD, FUTURE_ECHO, PROGRESS, TIMEOUT_STOP, TIMEOUT_LATE, CANCEL_SLEEP, CANCEL_ECHO = (
    "echo",
    "add",
    "future_echo",
    "progress",
    "timeout_stop",
    "timeout_late",
    "cancel_sleep",
    "cancel_echo",
)
#: A timeout call that timed out before it was written (see run_calls).
NOT_SENT = "not_sent"


def plan(i: int) -> str:
    """What call number ``i`` of a thread is: mostly echo and add, a few of everything else."""
    if i % 100 == 7:
        return TIMEOUT_STOP  # the server stops when told (no answer)
    if i % 100 == 57:
        return TIMEOUT_LATE  # the server ignores the cancellation and answers late
    if i % 50 == 21:
        return CANCEL_SLEEP
    if i % 50 == 33:
        return CANCEL_ECHO
    if i % 25 == 3:
        return PROGRESS
    if i % 10 == 9:
        return FUTURE_ECHO
    return ECHO if i % 2 == 0 else ADD


@dataclass
class Target:
    """Where a thread's calls go: ``call_tool(slot, tool, arguments, **options)`` and
    ``send_request(slot, method, params)``; ``slot`` picks a server when there are several."""

    call_tool: Callable[..., mcpsync.CallToolResult]
    send_request: Callable[[int, str, dict[str, Any]], concurrent.futures.Future[Any]]
    #: Progress notifications arrive in order (stdio); over HTTP the test server may route
    #: them to another request's stream, so only their values are checked.
    ordered_progress: bool = True


#: How many calls of each kind were made, and (under "cancelled") how many futures were really cancelled.
Tally = collections.Counter


def run_calls(target: Target, worker: int, count: int, tag: str) -> Tally:
    """One thread's share: ``count`` calls as ``plan`` says, each answer checked."""
    tally = Tally()
    for i in range(count):
        kind = plan(i)
        slot = worker + i
        unique = f"{tag}-{worker}-{i}"
        if kind == ECHO:
            text = f"echo {unique} " + "x" * (i % 7)
            result = target.call_tool(slot, "echo", {"text": text}, timeout=CALL_TIMEOUT)
            assert result.text == text, (unique, result)
        elif kind == ADD:
            a, b = worker * 1_000_003 + i, i / 4
            result = target.call_tool(slot, "add", {"a": a, "b": b}, timeout=CALL_TIMEOUT)
            assert result.structured_content == {"sum": a + b}, (unique, result)
        elif kind == FUTURE_ECHO:
            future = target.send_request(slot, "tools/call", {"name": "echo", "arguments": {"text": unique}})
            assert future.result(CALL_TIMEOUT)["content"][0]["text"] == unique
        elif kind == PROGRESS:
            seen: list[tuple[Any, ...]] = []
            result = target.call_tool(
                slot,
                "progress",
                {"steps": 3, "delay": 0.001},
                timeout=CALL_TIMEOUT,
                on_progress=lambda *update, into=seen: into.append(update),
                progress_bar=False,
            )
            assert result.text == "done", (unique, result)
            if target.ordered_progress:
                assert [update[0] for update in seen] == [1, 2, 3], (unique, seen)
            else:
                values = [update[0] for update in seen]
                assert len(values) == len(set(values)) and set(values) <= {1, 2, 3}, (unique, seen)
        elif kind in (TIMEOUT_STOP, TIMEOUT_LATE):
            late = kind == TIMEOUT_LATE
            arguments = {"seconds": LATE_SLEEP if late else STOP_SLEEP, "ignore_cancel": late}
            try:
                result = target.call_tool(slot, "sleep", arguments, timeout=SHORT_TIMEOUT)
            except RequestTimeout:
                pass
            except WriteTimeout:
                # 64 writers share one pipe: the write lock may not come free within 0.05 s.
                # Nothing was sent, so nothing is cancelled; still a timeout within the bound.
                kind = NOT_SENT
            else:
                pytest.fail(f"{unique}: a {arguments['seconds']} s sleep answered within {SHORT_TIMEOUT} s: {result}")
        elif kind == CANCEL_SLEEP:
            future = target.send_request(slot, "tools/call", {"name": "sleep", "arguments": {"seconds": 30}})
            assert future.cancel(), unique  # a 30 s sleep cannot have been answered yet
            assert future.cancelled()
            tally["cancelled"] += 1
        elif kind == CANCEL_ECHO:
            # Cancelled at once: either in time (its answer comes late) or already answered.
            future = target.send_request(slot, "tools/call", {"name": "echo", "arguments": {"text": unique}})
            if future.cancel():
                tally["cancelled"] += 1
            else:
                assert future.result(CALL_TIMEOUT)["content"][0]["text"] == unique
        tally[kind] += 1
    return tally


def run_threads(target: Target, calls_per_thread: int, tag: str, threads: int = THREADS) -> Tally:
    """Run ``run_calls`` on ``threads`` threads at once; fail on the first error or on a thread still running.

    The threads start together on a barrier, and every join shares one deadline.
    """
    barrier = threading.Barrier(threads)
    results: dict[int, Tally] = {}
    errors: list[str] = []

    def work(worker: int) -> None:
        try:
            barrier.wait(MARGIN)
            results[worker] = run_calls(target, worker, calls_per_thread, tag)
        except BaseException:  # reported by the main thread
            errors.append(f"thread {worker}:\n{traceback.format_exc()}")

    pool = [threading.Thread(target=work, args=(n,), name=f"load-{tag}-{n}", daemon=True) for n in range(threads)]
    for thread in pool:
        thread.start()
    deadline = time.monotonic() + MARGIN + SECONDS_PER_CALL * calls_per_thread
    for thread in pool:
        thread.join(max(0.0, deadline - time.monotonic()))
    stuck = [thread.name for thread in pool if thread.is_alive()]
    assert not errors, f"{len(errors)} of {threads} threads failed; the first:\n{errors[0]}"
    assert not stuck, f"deadlock? threads still running after the deadline: {stuck}"
    total = Tally()
    for tally in results.values():
        total.update(tally)
    assert sum(total[kind] for kind in total if kind != "cancelled") == threads * calls_per_thread
    return total


def check_stats(transports: list[Any], total: Tally) -> None:
    """No response matched nothing; late responses and cancellations only for calls given up on."""
    given_up = total[TIMEOUT_STOP] + total[TIMEOUT_LATE] + total["cancelled"]
    stats = [transport.stats for transport in transports]
    for one in stats:
        assert one.unmatched_responses == 0, one
        assert one.malformed == 0 and one.invalid == 0, one
    late = sum(one.late_responses for one in stats)
    cancelled = sum(one.cancelled for one in stats)
    assert late <= given_up, (late, given_up, stats)
    # Every timeout tells the server; a cancelled future does unless its answer was already being set.
    assert total[TIMEOUT_STOP] + total[TIMEOUT_LATE] <= cancelled <= given_up, (cancelled, total, stats)
    for transport in transports:
        assert len(transport.endpoint.pending) == 0, (
            f"requests left in the table: {transport.endpoint.pending.in_flight()}"
        )


def single(client: mcpsync.Client, ordered_progress: bool = True) -> Target:
    def call_tool(slot: int, tool: str, arguments: dict[str, Any], **options: Any) -> mcpsync.CallToolResult:
        return client.call_tool(tool, arguments, **options)

    def send_request(slot: int, method: str, params: dict[str, Any]) -> concurrent.futures.Future[Any]:
        return client.send_request(method, params)

    return Target(call_tool, send_request, ordered_progress)


# -- one client over stdio -----------------------------------------------------------


def stdio_load(calls_per_thread: int, tag: str) -> None:
    with mcpsync.connect(server_config(timeout=CALL_TIMEOUT)) as client:
        total = run_threads(single(client), calls_per_thread, tag)
        # The server's late answers to TIMEOUT_LATE come within LATE_SLEEP; count them too.
        time.sleep(LATE_SLEEP + 0.5)
        check_stats([client.transport], total)
        assert client.call_tool("echo", {"text": "still fine"}, timeout=CALL_TIMEOUT).text == "still fine"


@pytest.mark.slow("64 threads x 500 calls over one stdio client, then 1.5 s for the late answers")
def test_64_threads_share_one_stdio_client() -> None:
    """64 threads x 500 mixed calls on one stdio client: each gets its own answer, timeouts and
    cancellations leave nothing behind, and nothing hangs."""
    stdio_load(500, "stdio")


@pytest.mark.long
def test_64_threads_share_one_stdio_client_long() -> None:
    """The stdio load, ten times as long."""
    stdio_load(5000, "stdio-long")


# -- one client over Streamable HTTP ---------------------------------------------------


@pytest.fixture(scope="module")
def http_url() -> Iterator[str]:
    """The bundled test server over Streamable HTTP (SSE answers), once for the module."""
    with running_http_server() as base:
        yield base + "/mcp"


def http_load(url: str, calls_per_thread: int, tag: str) -> None:
    with mcpsync.connect(url, timeout=CALL_TIMEOUT) as client:
        total = run_threads(single(client, ordered_progress=False), calls_per_thread, tag)
        check_stats([client.transport], total)
        assert client.call_tool("echo", {"text": "still fine"}, timeout=CALL_TIMEOUT).text == "still fine"


@pytest.mark.slow("64 threads x 50 calls over one HTTP client, each call a POST")
def test_64_threads_share_one_http_client(http_url: str, caplog: pytest.LogCaptureFixture) -> None:
    """64 threads share one Streamable HTTP client (fewer calls: each is a POST, often a new connection).

    Calls run on the callers' threads and on workers alike, never more at
    once than the pool has connections: urllib3 would warn that it discards one.
    """
    with caplog.at_level(logging.WARNING, logger="urllib3"):
        http_load(http_url, 50, "http")
    assert [r.getMessage() for r in caplog.records if r.name.startswith("urllib3")] == []


@pytest.mark.long
def test_64_threads_share_one_http_client_long(http_url: str) -> None:
    """The HTTP load, ten times as long."""
    http_load(http_url, 500, "http-long")


# -- a manager of three servers -----------------------------------------------------------

SERVERS = ("alpha", "beta", "gamma")


def manager_load(calls_per_thread: int, tag: str) -> None:
    servers = {name: {"command": sys.executable, "args": ["-m", "mcpsync.testing", "--name", name]} for name in SERVERS}
    with mcpsync.Manager({"mcpServers": servers}, tool_cache=False, startup_timeout=CALL_TIMEOUT) as manager:
        assert set(manager.clients) == set(SERVERS)
        clients = manager.clients

        def call_tool(slot: int, tool: str, arguments: dict[str, Any], **options: Any) -> mcpsync.CallToolResult:
            return manager.call_tool(f"{SERVERS[slot % 3]}__{tool}", arguments, **options)

        def send_request(slot: int, method: str, params: dict[str, Any]) -> concurrent.futures.Future[Any]:
            return clients[SERVERS[slot % 3]].send_request(method, params)

        total = run_threads(Target(call_tool, send_request), calls_per_thread, tag)
        time.sleep(LATE_SLEEP + 0.5)
        check_stats([client.transport for client in clients.values()], total)
        assert {name: s.state.value for name, s in manager.status().items()} == dict.fromkeys(SERVERS, "connected")


@pytest.mark.slow("64 threads x 200 calls over a manager of three server processes, then 1.5 s for the late answers")
def test_64_threads_share_a_manager_of_three_servers() -> None:
    """64 threads call tools of three servers through one Manager (no tool cache)."""
    manager_load(200, "manager")


@pytest.mark.long
def test_64_threads_share_a_manager_of_three_servers_long() -> None:
    """The manager load, ten times as long."""
    manager_load(2000, "manager-long")
