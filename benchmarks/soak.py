"""Soak: mixed traffic on mcpsync for a while; memory, threads and descriptors must stay flat.

    python benchmarks/soak.py [--seconds 60] [--threads 4]

All at once, against mcpsync's bundled test server (``python -m mcpsync.testing``):

stdio    T threads share one client: echo and add (answers checked), progress with
         a callback, sleeps whose short timeout raises RequestTimeout, and
         send_request futures cancelled at once
http     the same mix, T/2 threads on each of two clients of the test server's
         Streamable HTTP: SSE answers (paced: each may open a connection) and JSON
manager  a Manager of ``steady`` and ``crashy``; every 5 s a call makes crashy exit
         and the manager reconnects it; calls that meet the crash fail with
         TransportClosed or ServerUnavailable (expected, counted)
churn    once a second: connect a fresh client, one call, close

A line every 5 s: calls, the intended timeouts, cancellations and crashes,
errors by type, RSS, threads, descriptors. PASS (exit status 0) when, after a
warm-up, the median RSS of the run's last third is within 10 % or 5 MB of its
first third's, nothing is left (threads, descriptors, child processes), no
answer was wrong, and no error was unexpected.
"""

import argparse
import collections
import functools
import os
import statistics
import subprocess
import sys
import threading
import time
import traceback

import peers

import mcpsync
from mcpsync.testing import server_command, server_config

CALL_TIMEOUT = 20.0
SHORT_TIMEOUT = 0.02  # the timeout of sleeps meant to time out...
LONG_SLEEP = 30.0  # ... and how long they would sleep
SSE_PERIOD = 0.02  # seconds between an SSE caller's calls
CRASH_EVERY = 5.0
EXPECTED_ERRORS = ("TransportClosed", "ServerUnavailable")  # while crashy is down


class Tally:
    """Counts by name, from many threads, and the wrong answers (never expected)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.counts = collections.Counter()
        self.wrong = []

    def add(self, name):
        with self.lock:
            self.counts[name] += 1

    def wrong_answer(self, text):
        with self.lock:
            self.wrong.append(text)

    def errors(self):
        with self.lock:
            return {k[6:]: v for k, v in self.counts.items() if k.startswith("error ")}


def mixed_call(client, tally, tag, i):
    """Call i of the stdio and HTTP mix; the answer checked, the outcome counted."""
    if i % 20 == 5:
        try:
            client.call_tool("sleep", {"seconds": LONG_SLEEP}, timeout=SHORT_TIMEOUT)
            tally.wrong_answer("%s: a %s s sleep answered within %s s" % (tag, LONG_SLEEP, SHORT_TIMEOUT))
        except (mcpsync.RequestTimeout, mcpsync.WriteTimeout):  # WriteTimeout: the write lock was busy, not sent
            tally.add("timeouts")
        return
    if i % 20 == 15:
        future = client.send_request("tools/call", {"name": "sleep", "arguments": {"seconds": LONG_SLEEP}})
        if future.cancel():
            tally.add("cancels")
        else:
            tally.wrong_answer("%s: could not cancel a sleep" % tag)
        return
    if i % 20 == 10:
        seen = []
        result = client.call_tool(
            "progress", {"steps": 2, "delay": 0.001}, timeout=CALL_TIMEOUT, on_progress=lambda *u: seen.append(u)
        )
        ok = result.text == "done" and len(seen) <= 2
    elif i % 2:
        ok = client.call_tool("add", {"a": i, "b": 2}, timeout=CALL_TIMEOUT).structured_content == {"sum": i + 2}
    else:
        text = "%s-%d" % (tag, i)
        ok = client.call_tool("echo", {"text": text}, timeout=CALL_TIMEOUT).text == text
    check(tally, ok, "%s: call %d" % (tag, i))


def check(tally, ok, what):
    if ok:
        tally.add("calls")
    else:
        tally.wrong_answer(what + " answered wrongly")


def loop(stop, tally, tag, call, period=0.0):
    """call(i) for i = 0, 1, ... until stop is set, at most one per `period`; errors counted by type."""
    i = 0
    while not stop.is_set():
        try:
            call(i)
        except mcpsync.MCPError as exc:
            tally.add("error " + type(exc).__name__)
            stop.wait(0.05)  # do not spin on a server that is down
        except Exception as exc:  # a bug: count it, show it, go on
            tally.add("error " + type(exc).__name__)
            tally.wrong_answer("%s: %s" % (tag, traceback.format_exc(limit=3)))
        i += 1
        if period:
            stop.wait(period)


def crash_now_and_then(stop, tally, manager):
    while not stop.wait(CRASH_EVERY):
        try:
            manager.call_tool("crashy__crash", {"message": "soak: on purpose"}, timeout=CALL_TIMEOUT)
        except mcpsync.TransportClosed:
            tally.add("crashes")
        except mcpsync.MCPError as exc:
            tally.add("error " + type(exc).__name__)


def manager_echo(manager, tally, server, i):
    text = "%s-%d" % (server, i)
    check(tally, manager.call_tool(server + "__echo", {"text": text}, timeout=5.0).text == text, text)


def churn(tally, i):
    """A fresh client, one call, close."""
    with mcpsync.connect(server_config(timeout=CALL_TIMEOUT, name="churn")) as client:
        text = "churn-%d" % i
        check(tally, client.call_tool("echo", {"text": text}, timeout=CALL_TIMEOUT).text == text, text)


def http_server(*options):
    """The test server over Streamable HTTP: (process, URL)."""
    proc = subprocess.Popen(server_command("--http", "0", *options), stdin=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        return proc, peers.read_line(proc.stderr, 20, "the HTTP test server").split()[-1]
    except BaseException:
        proc.terminate()
        peers.stop(proc)
        raise


def state_line(t, tally, rate):
    c, errors = tally.counts, tally.errors()
    return (
        "%6.0f s %9d calls %7.0f/s | timeouts %6d cancels %6d crashes %3d | RSS %5.1f MB threads %3d fds %4d | %s"
        % (
            t,
            c["calls"],
            rate,
            c["timeouts"],
            c["cancels"],
            c["crashes"],
            peers.memory_kb("VmRSS") / 1024,
            threading.active_count(),
            open_fds(),
            " ".join("%s:%d" % kv for kv in sorted(errors.items())) or "no errors",
        )
    )


def memory_flat(samples, seconds):
    """(flat, text): the median RSS of the last third of the run against the first third, after a warm-up."""
    warmup = min(max(10.0, 0.1 * seconds), seconds / 2)
    steady = [kb for t, kb in samples if t >= warmup]
    third = len(steady) // 3
    if third < 2:
        return False, "memory: too few samples after the %.0f s warm-up (run longer)" % warmup
    before, after = statistics.median(steady[:third]), statistics.median(steady[-third:])
    flat = after - before < max(5 * 1024, 0.1 * before)
    return flat, "memory: median RSS %.1f MB in the first third, %.1f MB in the last: %s" % (
        before / 1024,
        after / 1024,
        "FLAT" if flat else "GROWING",
    )


def open_fds():
    return len(os.listdir("/proc/self/fd"))


def start_workers(stop, tally, clients, manager, threads):
    """The worker threads of every workload, started."""
    workers = []

    def start(target, *args):
        workers.append(threading.Thread(target=target, args=args, daemon=True))
        workers[-1].start()

    for name, client in clients.items():
        for n in range(threads if name == "stdio" else max(1, threads // 2)):
            tag = "%s-%d" % (name, n)
            call = functools.partial(mixed_call, client, tally, tag)
            start(loop, stop, tally, tag, call, SSE_PERIOD if name == "sse" else 0.0)
    for server in ("steady", "crashy"):
        start(loop, stop, tally, server, functools.partial(manager_echo, manager, tally, server))
    start(loop, stop, tally, "churn", functools.partial(churn, tally), 1.0)
    start(crash_now_and_then, stop, tally, manager)
    return workers


def watch(seconds, tally):
    """Sample the RSS every second, print a state line every 5 s; return the (time, RSS kB) samples."""
    samples, t0, last = [], time.monotonic(), (0.0, 0)
    while True:
        t = time.monotonic() - t0
        samples.append((t, peers.memory_kb("VmRSS")))
        if t >= last[0] + 5 or t >= seconds:
            print(state_line(t, tally, (tally.counts["calls"] - last[1]) / max(1e-9, t - last[0])), flush=True)
            last = (t, tally.counts["calls"])
        if t >= seconds:
            return samples
        time.sleep(min(1.0, seconds - t))


def run(seconds, threads):
    """The soak; the exit status."""
    threads_before, fds_before = threading.active_count(), open_fds()
    tally, stop, workers, samples = Tally(), threading.Event(), [], []
    servers, clients, manager = [], {}, None
    print("soak: %d s, %d stdio threads, mcpsync %s" % (seconds, threads, mcpsync.__version__), flush=True)
    try:
        servers = [http_server(), http_server("--json")]
        clients["stdio"] = mcpsync.connect(server_config(timeout=CALL_TIMEOUT, name="soak-stdio"))
        clients["sse"] = mcpsync.connect(servers[0][1], timeout=CALL_TIMEOUT)
        clients["json"] = mcpsync.connect(servers[1][1], timeout=CALL_TIMEOUT)
        entry = {"command": sys.executable, "args": ["-m", "mcpsync.testing"]}
        manager = mcpsync.Manager(
            {"mcpServers": {"steady": entry, "crashy": entry}},
            tool_cache=False,
            startup_timeout=CALL_TIMEOUT,
            backoff=(0.05, 0.5),
            crash_loop_limit=1_000_000,  # it crashes on purpose, forever
        )
        workers = start_workers(stop, tally, clients, manager, threads)
        samples = watch(seconds, tally)
    finally:
        stop.set()
        for worker in workers:
            worker.join(CALL_TIMEOUT + 5)
        unmatched = {name: client.stats.unmatched_responses for name, client in clients.items()}
        for client in clients.values():
            client.close()
        if manager is not None:
            manager.close()
        for proc, _ in servers:
            proc.terminate()
            peers.stop(proc)
    deadline = time.monotonic() + 10  # readers and pools take a moment to go after close
    while time.monotonic() < deadline and threading.active_count() > threads_before:
        time.sleep(0.1)

    flat, memory = memory_flat(samples, seconds)
    left = peers.kill_leftovers() + ["worker thread stuck"] * sum(w.is_alive() for w in workers)
    unexpected = {k: v for k, v in tally.errors().items() if k not in EXPECTED_ERRORS}
    print("\n" + memory)
    print("threads %d -> %d, fds %d -> %d" % (threads_before, threading.active_count(), fds_before, open_fds()))
    print("unexpected errors: %s; unmatched responses: %s" % (unexpected or "none", unmatched))
    for text in left + tally.wrong[:10]:
        print("WRONG: " + text)
    leaked = threading.active_count() > threads_before or open_fds() > fds_before or left
    ok = flat and not leaked and not tally.wrong and not unexpected and not any(unmatched.values())
    print("verdict: %s" % ("PASS" if ok else "FAIL"))
    return 0 if ok else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="how long to run (default 60)")
    parser.add_argument("--threads", type=int, default=4, help="stdio caller threads; HTTP gets half (default 4)")
    args = parser.parse_args()
    return run(args.seconds, max(1, args.threads))


if __name__ == "__main__":
    sys.exit(main())
