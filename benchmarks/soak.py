"""Soak test: hours of mixed traffic in minutes, watching memory, threads and descriptors.

Usage::

    python benchmarks/soak.py [--seconds N] [--interval S] [--threads T] [--crash-every C]

Runs these workloads at once against mcpsync's bundled test server
(``python -m mcpsync.testing``) until ``--seconds`` have passed:

stdio
    T threads share one stdio client: ``echo`` and ``add`` (answers checked
    by content), ``progress`` with a callback, ``sleep`` calls whose short
    timeout raises ``RequestTimeout`` (the server is told and stops), and
    ``send_request`` futures cancelled with ``Future.cancel()``.
http
    The same mix, T/2 threads each, on one client per reply mode of the
    bundled Streamable HTTP server: SSE answers (one TCP connection per call,
    so paced to ``--http-rate`` calls/s per thread) and JSON answers
    (keep-alive).
manager
    A ``Manager`` of two servers, ``steady`` and ``crashy``; every
    ``--crash-every`` seconds a call to ``crashy``'s ``crash`` tool kills it
    and the manager reconnects it. Two threads call both servers all along;
    calls that meet the crash fail with ``TransportClosed`` or
    ``ServerUnavailable`` (counted by type, expected).
churn
    Once a second: connect a fresh stdio client, one call, close.

Every ``--interval`` seconds one line: elapsed time, calls done (and per
second since the last line), the intended timeouts and cancellations, the
errors by type, this process's RSS (``VmRSS`` of ``/proc/self/status``),
its threads and its open descriptors.

At the end: the memory verdict (after a warm-up of ``max(10 s, 10 %)``,
the median RSS of the last third of the run against the first third; flat
if it grew by less than 10 % or less than 5 MB), the threads, descriptors
and child processes left after everything closed, and the transports'
counters. Exit status 0 when memory is flat, nothing leaked and no answer
was wrong; 1 otherwise.
"""

import argparse
import collections
import gc
import os
import resource
import select
import statistics
import subprocess
import sys
import threading
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
if REPO not in sys.path:
    sys.path.insert(0, REPO)

import mcpsync  # noqa: E402
from mcpsync.testing import server_command, server_config  # noqa: E402
from mcpsync.testing.processes import child_pids  # noqa: E402

#: Timeout of the calls that should succeed (seconds).
CALL_TIMEOUT = 20.0
#: Timeout of the sleep calls meant to time out, and how long they would sleep.
SHORT_TIMEOUT = 0.02
LONG_SLEEP = 30.0
SERVER_START_TIMEOUT = 20.0
#: Memory is flat if the last third's median RSS is within this of the first third's.
FLAT_RATIO = 0.10
FLAT_BYTES = 5 * 1024 * 1024
#: Errors that the crashing server explains (a call in flight, or one made while it reconnects).
CRASH_ERRORS = ("TransportClosed", "ServerUnavailable")
WORKLOADS = ("stdio", "http", "manager", "churn")


# --------------------------------------------------------------------------
# process facts
# --------------------------------------------------------------------------


def rss_bytes():
    """This process's resident set size now (Linux ``VmRSS``); elsewhere the peak (``ru_maxrss``)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024


def open_fds():
    try:
        return len(os.listdir("/proc/self/fd"))
    except OSError:
        return -1


# --------------------------------------------------------------------------
# counting
# --------------------------------------------------------------------------


class Counts:
    """What every workload did: calls, intended timeouts and cancellations, errors by type."""

    def __init__(self):
        self.lock = threading.Lock()
        self.calls = collections.Counter()  # by workload
        self.intended = collections.Counter()  # "timeouts", "cancelled", "crashes"
        self.errors = collections.Counter()  # by exception type name
        self.wrong = []  # wrong answers: never expected

    def call(self, workload):
        with self.lock:
            self.calls[workload] += 1

    def note(self, kind):
        with self.lock:
            self.intended[kind] += 1

    def error(self, exc):
        with self.lock:
            self.errors[type(exc).__name__] += 1

    def wrong_answer(self, text):
        with self.lock:
            self.wrong.append(text)

    def snapshot(self):
        with self.lock:
            return sum(self.calls.values()), dict(self.intended), dict(self.errors), len(self.wrong)


# --------------------------------------------------------------------------
# workloads
# --------------------------------------------------------------------------


def mixed_call(client, counts, workload, tag, i):
    """One call of the stdio/HTTP mix; checks the answer, counts the outcome."""
    if i % 20 == 5:
        try:
            client.call_tool("sleep", {"seconds": LONG_SLEEP}, timeout=SHORT_TIMEOUT)
        except mcpsync.RequestTimeout:
            counts.note("timeouts")
            return
        except mcpsync.WriteTimeout:  # the write lock was busy past the short timeout: not sent
            counts.note("timeouts")
            return
        counts.wrong_answer("%s: a %ss sleep answered within %ss" % (tag, LONG_SLEEP, SHORT_TIMEOUT))
    elif i % 20 == 15:
        future = client.send_request("tools/call", {"name": "sleep", "arguments": {"seconds": LONG_SLEEP}})
        if future.cancel():
            counts.note("cancelled")
        else:
            counts.wrong_answer("%s: could not cancel a %ss sleep" % (tag, LONG_SLEEP))
    elif i % 20 == 10:
        seen = []
        result = client.call_tool(
            "progress",
            {"steps": 2, "delay": 0.001},
            timeout=CALL_TIMEOUT,
            on_progress=lambda *u: seen.append(u),
            progress_bar=False,
        )
        if result.text != "done" or len(seen) > 2:
            counts.wrong_answer("%s: progress %r, %r" % (tag, result.text, seen))
    elif i % 2:
        a, b = i, len(tag)
        result = client.call_tool("add", {"a": a, "b": b}, timeout=CALL_TIMEOUT)
        if result.structured_content != {"sum": a + b}:
            counts.wrong_answer("%s: add(%d, %d) gave %r" % (tag, a, b, result.structured_content))
    else:
        text = "%s-%d" % (tag, i)
        result = client.call_tool("echo", {"text": text}, timeout=CALL_TIMEOUT)
        if result.text != text:
            counts.wrong_answer("%s: echo %r gave %r" % (tag, text, result.text))
    counts.call(workload)


def caller(stop, counts, workload, tag, call, rate=None):
    """A thread's loop: call(i) until stop is set, at most `rate` calls per second; errors counted by type."""
    i = 0
    period = 1.0 / rate if rate else 0.0
    next_at = time.monotonic()
    while not stop.is_set():
        try:
            call(i)
        except mcpsync.MCPError as exc:
            counts.error(exc)
            stop.wait(0.05)  # do not spin on a server that is down
        except Exception as exc:  # a bug: report it, keep going
            counts.error(exc)
            counts.wrong_answer("%s: %s" % (tag, traceback.format_exc(limit=3)))
        i += 1
        if period:
            next_at += period
            delay = next_at - time.monotonic()
            if delay > 0:
                stop.wait(delay)
            else:
                next_at = time.monotonic()


def crasher(stop, counts, manager, every):
    """Every `every` seconds, make the manager's ``crashy`` server exit in the middle of a call."""
    while not stop.wait(every):
        try:
            manager.call_tool("crashy__crash", {"message": "soak: crashing on purpose"}, timeout=CALL_TIMEOUT)
        except mcpsync.TransportClosed:
            counts.note("crashes")
        except mcpsync.MCPError as exc:
            counts.error(exc)


def churn(stop, counts):
    """Once a second: a fresh client, one call, close."""
    i = 0
    while not stop.wait(1.0):
        try:
            with mcpsync.connect(server_config(timeout=CALL_TIMEOUT, name="churn")) as client:
                text = "churn-%d" % i
                if client.call_tool("echo", {"text": text}, timeout=CALL_TIMEOUT).text != text:
                    counts.wrong_answer("churn: wrong echo")
            counts.call("churn")
        except mcpsync.MCPError as exc:
            counts.error(exc)
        i += 1


class HTTPServer:
    """``python -m mcpsync.testing --http 0`` as a child process; ``url`` once it listens."""

    def __init__(self, *options):
        self.process = subprocess.Popen(
            [*server_command("--http", "0", *options)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        try:
            line = b""
            deadline = time.monotonic() + SERVER_START_TIMEOUT
            while not line.endswith(b"\n"):
                remaining = deadline - time.monotonic()
                if remaining <= 0 or not select.select([self.process.stderr], [], [], remaining)[0]:
                    raise RuntimeError("the HTTP test server did not start within %ss" % SERVER_START_TIMEOUT)
                chunk = os.read(self.process.stderr.fileno(), 1024)
                if not chunk:
                    raise RuntimeError("the HTTP test server exited: %r" % line)
                line += chunk
            self.url = line.decode().split("listening on ", 1)[1].strip()
        except BaseException:
            self.close()
            raise

    def close(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        self.process.stderr.close()


# --------------------------------------------------------------------------
# the run
# --------------------------------------------------------------------------


def mb(n):
    return n / (1024 * 1024)


def report_line(elapsed, counts, last_calls, last_elapsed):
    calls, intended, errors, wrong = counts.snapshot()
    rate = (calls - last_calls) / max(1e-9, elapsed - last_elapsed)
    error_text = " ".join("%s:%d" % kv for kv in sorted(errors.items())) or "-"
    line = "%7.1f %9d %8.0f %8d %8d %7d %7.1f %7d %5d  %s%s" % (
        elapsed,
        calls,
        rate,
        intended.get("timeouts", 0),
        intended.get("cancelled", 0),
        intended.get("crashes", 0),
        mb(rss_bytes()),
        threading.active_count(),
        open_fds(),
        error_text,
        "  WRONG ANSWERS: %d" % wrong if wrong else "",
    )
    return line, calls


HEADER = "%7s %9s %8s %8s %8s %7s %7s %7s %5s  %s" % (
    "t (s)",
    "calls",
    "calls/s",
    "timeouts",
    "cancels",
    "crashes",
    "RSS MB",
    "threads",
    "fds",
    "errors by type",
)


def memory_verdict(samples, seconds):
    """(flat, text) from (elapsed, rss) samples: the last third's median against the first third's."""
    warmup = min(max(10.0, 0.1 * seconds), seconds / 2)
    steady = [(t, rss) for t, rss in samples if t >= warmup]
    if len(steady) < 6:
        return False, "memory: too few samples after the %.0f s warm-up to judge (run longer)" % warmup
    third = len(steady) // 3
    first, last = steady[:third], steady[-third:]
    before = statistics.median(rss for _, rss in first)
    after = statistics.median(rss for _, rss in last)
    growth = after - before
    flat = growth < FLAT_BYTES or growth < FLAT_RATIO * before
    peak = max(rss for _, rss in samples)
    return flat, (
        "memory: median RSS %.1f MB in t=%.0f-%.0f s, %.1f MB in t=%.0f-%.0f s: %+.1f MB (%+.1f %%); peak %.1f MB "
        "-> %s (flat: growth < %d %% or < %d MB, after a %.0f s warm-up)"
        % (
            mb(before),
            first[0][0],
            first[-1][0],
            mb(after),
            last[0][0],
            last[-1][0],
            mb(growth),
            100 * growth / before,
            mb(peak),
            "FLAT" if flat else "GROWING",
            100 * FLAT_RATIO,
            mb(FLAT_BYTES),
            warmup,
        )
    )


def run(args):
    counts = Counts()
    stop = threading.Event()
    threads_before = threading.active_count()
    fds_before = open_fds()
    children_before = child_pids()
    rss_start = rss_bytes()
    print(
        "soak: %d s, stdio %d threads, http %d+%d threads (SSE paced to %d calls/s each, JSON), "
        "manager 2 threads + a crash every %.0f s, churn 1/s | Python %s, mcpsync %s, pid %d"
        % (
            args.seconds,
            args.threads,
            max(1, args.threads // 2),
            max(1, args.threads // 2),
            args.http_rate,
            args.crash_every,
            sys.version.split()[0],
            mcpsync.__version__,
            os.getpid(),
        ),
        flush=True,
    )
    servers = []
    clients = []
    workers = []
    manager = None
    manager_status = {}
    samples = []
    try:

        def start(name, target, *target_args):
            thread = threading.Thread(target=target, args=target_args, name="soak-%s" % name, daemon=True)
            workers.append(thread)
            thread.start()

        def client_loop(workload, client, tag, rate=None):
            start(
                tag, caller, stop, counts, workload, tag, lambda i: mixed_call(client, counts, workload, tag, i), rate
            )

        if "stdio" in args.workloads:
            stdio = mcpsync.connect(server_config(timeout=CALL_TIMEOUT, name="soak-stdio"))
            clients.append(("stdio", stdio))
            for n in range(args.threads):
                client_loop("stdio", stdio, "stdio-%d" % n)
        if "http" in args.workloads:
            sse_server = HTTPServer()
            servers.append(sse_server)
            json_server = HTTPServer("--json")
            servers.append(json_server)
            http_sse = mcpsync.connect(sse_server.url, timeout=CALL_TIMEOUT, name="soak-sse")
            clients.append(("http-sse", http_sse))
            http_json = mcpsync.connect(json_server.url, timeout=CALL_TIMEOUT, name="soak-json")
            clients.append(("http-json", http_json))
            for n in range(max(1, args.threads // 2)):
                client_loop("http", http_sse, "sse-%d" % n, args.http_rate)
                client_loop("http", http_json, "json-%d" % n)
        if "manager" in args.workloads:
            crashy = {"command": sys.executable, "args": ["-m", "mcpsync.testing", "--name", "crashy"]}
            steady = {"command": sys.executable, "args": ["-m", "mcpsync.testing", "--name", "steady"]}
            manager = mcpsync.Manager(
                {"mcpServers": {"steady": steady, "crashy": crashy}},
                tool_cache=False,
                startup_timeout=CALL_TIMEOUT,
                backoff=(0.05, 0.5),
                crash_loop_limit=1_000_000,
            )

            def manager_call(server, i):
                text = "%s-%d" % (server, i)
                result = manager.call_tool("%s__echo" % server, {"text": text}, timeout=5.0)
                if result.text != text:
                    counts.wrong_answer("manager: echo %r gave %r" % (text, result.text))
                counts.call("manager")

            for server in ("steady", "crashy"):
                start(
                    "manager-" + server,
                    caller,
                    stop,
                    counts,
                    "manager",
                    server,
                    lambda i, server=server: manager_call(server, i),
                )
            start("crasher", crasher, stop, counts, manager, args.crash_every)
        if "churn" in args.workloads:
            start("churn", churn, stop, counts)

        print(HEADER, flush=True)
        t0 = time.monotonic()
        last_calls, last_elapsed, next_report = 0, 0.0, args.interval
        while True:
            elapsed = time.monotonic() - t0
            samples.append((elapsed, rss_bytes()))
            if elapsed >= next_report or elapsed >= args.seconds:
                line, last_calls = report_line(elapsed, counts, last_calls, last_elapsed)
                last_elapsed = elapsed
                print(line, flush=True)
                next_report += args.interval
            if elapsed >= args.seconds:
                break
            time.sleep(min(1.0, args.seconds - elapsed))
    finally:
        stop.set()
        for thread in workers:
            thread.join(CALL_TIMEOUT + 5)
        stuck = [t.name for t in workers if t.is_alive()]
        stats = {name: client.transport.stats.as_dict() for name, client in clients}
        pending = {name: len(client.transport.pending) for name, client in clients}
        for _, client in clients:
            client.close()
        if manager is not None:
            manager_status = {name: s.state.value for name, s in manager.status().items()}
            manager.close()
        for server in servers:
            server.close()

    # Threads and descriptors take a moment to go after close (readers exit on EOF).
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if threading.active_count() <= threads_before and open_fds() <= fds_before:
            break
        time.sleep(0.1)
    # Descriptors only a garbage collection closes are not leaked, but worth seeing.
    fds_before_gc = open_fds()
    gc.collect()
    calls, intended, errors, wrong = counts.snapshot()
    left_children = sorted(child_pids() - children_before)
    flat, memory_text = memory_verdict(samples, args.seconds)
    threads_after, fds_after = threading.active_count(), open_fds()
    unexpected = {k: v for k, v in errors.items() if k not in CRASH_ERRORS}

    print()
    print(
        "calls: %d (%s); intended: %s"
        % (
            calls,
            ", ".join("%s %d" % kv for kv in sorted(counts.calls.items())),
            ", ".join("%s %d" % kv for kv in sorted(intended.items())),
        )
    )
    print("errors by type: %s" % (", ".join("%s %d" % kv for kv in sorted(errors.items())) or "none"))
    print("  expected while 'crashy' is down: %s; others: %s" % ("/".join(CRASH_ERRORS), unexpected or "none"))
    for name in stats:
        print("transport %s: %s; left in the table: %d" % (name, stats[name], pending[name]))
    print("manager at the end: %s" % manager_status)
    print(memory_text)
    print("RSS: %.1f MB at start, %.1f MB after closing" % (mb(rss_start), mb(rss_bytes())))
    print(
        "threads: %d before, %d after; open fds: %d before, %d after (%d before a gc.collect()); "
        "child processes left: %s; stuck workers: %s"
        % (
            threads_before,
            threads_after,
            fds_before,
            fds_after,
            fds_before_gc,
            left_children or "none",
            stuck or "none",
        )
    )
    for text in counts.wrong[:10]:
        print("WRONG: %s" % text)
    leaked = threads_after > threads_before or fds_after > fds_before or left_children or stuck
    unmatched = sum(s.get("unmatched_responses", 0) for s in stats.values())
    ok = flat and not leaked and not wrong and not unexpected and not unmatched and not any(pending.values())
    print("verdict: %s" % ("PASS" if ok else "FAIL"))
    return 0 if ok else 1


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="how long to run (default 60)")
    parser.add_argument("--interval", type=float, default=5.0, help="seconds between report lines (default 5)")
    parser.add_argument("--threads", type=int, default=4, help="stdio caller threads; HTTP gets half (default 4)")
    parser.add_argument("--http-rate", type=int, default=50, help="SSE calls/s per thread (default 50)")
    parser.add_argument("--crash-every", type=float, default=5.0, help="seconds between crashes (default 5)")
    parser.add_argument("--workloads", default=",".join(WORKLOADS), help="subset of %s" % ",".join(WORKLOADS))
    args = parser.parse_args(argv)
    args.workloads = [w.strip() for w in args.workloads.split(",") if w.strip()]
    if not args.workloads or set(args.workloads) - set(WORKLOADS):
        parser.error("--workloads takes a subset of %s" % ",".join(WORKLOADS))
    if args.seconds <= 0 or args.interval <= 0 or args.threads < 1 or args.http_rate < 1 or args.crash_every <= 0:
        parser.error("--seconds, --interval, --threads, --http-rate and --crash-every must be positive")
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
