"""Side-by-side stdio benchmark: raw JSON-RPC vs the official MCP SDK vs mcpsync.

Usage::

    python benchmarks/bench_stdio.py [--calls N] [--inflight K] [--threads T]
                                     [--repeat R] [--startup-runs S] [--median]
                                     [--clients raw,official,mcpsync] [--json]

Every client talks to the same server, ``benchmarks/minimal_server.py``
(stdlib only, single-threaded), and each client connection starts its own
server process with ``sys.executable``.

Clients
-------
raw
    The floor: ``subprocess.Popen`` + ``json`` + ``select``/``os.read``, no
    threads, no validation beyond checking ids and echoed text. Every read and
    write is bounded by a deadline; writes are non-blocking and drain the
    server's stdout while they wait, so large pipelines cannot deadlock.
official
    The official SDK (``mcp``), idiomatic 2.x usage:
    ``async with mcp.client.Client(StdioServerParameters(...))`` under
    ``asyncio.run``. In its default ``mode="auto"`` it first probes
    ``server/discover``; the minimal server answers -32601 and the client
    falls back to ``initialize``. Its first ``call_tool`` also sends one
    ``tools/list`` (to learn the tool's output schema).
mcpsync
    ``mcpsync.connect([sys.executable, server])`` (synchronous, thread-based).

Scenarios (rows)
----------------
sequential
    N ``tools/call echo`` round trips, one at a time.
K in flight
    Batches of K requests outstanding at once, N calls in total.
    raw: write K request lines, then read K responses (pipelined).
    official: ``asyncio.gather`` of K ``call_tool`` coroutines.
    mcpsync: K ``send_request`` futures, then ``f.result(timeout=...)`` each.
T callers
    T callers share one client, each doing sequential calls, N in total.
    raw: T threads, one lock around write+read, so the calls are serialised;
    it is the "just put a lock on it" baseline, not true concurrency.
    official: it has no thread-safe synchronous API, so its T callers are T
    concurrent asyncio tasks on one event loop (``asyncio.gather``).
    mcpsync: T threads.
client CPU per call
    For each of the rows above, the CPU time (user+sys, all threads) of the
    benchmark process divided by the calls: less noisy than wall time on a
    shared machine, and excludes the server's CPU.
start-up
    Wall time from starting the server process to the first tool result in
    hand (median of S runs). Each client does what it needs: raw does
    initialize + initialized + tools/call; official adds the discover probe
    and a tools/list. Imports are done beforehand and not counted.
close
    Wall time to close the connection and reap the server (median of S runs).
import
    Extra wall time of ``python -c "import <client>"`` over a bare
    ``python -c pass`` in a fresh interpreter (min of 5 each, interleaved).

Measurement
-----------
Each (client, scenario, repeat) gets its own connection, so its own server
process; start-up and close are outside the timed part. A short warm-up
(``--warmup``, default min(200, N/10) calls) runs on that connection, then
N calls are timed with ``time.perf_counter()``. Throughput is the BEST of R
repeats (the least disturbed run on a noisy machine; CPU per call likewise
the lowest), or with ``--median`` the median of them; all samples are in
``--json``. Within a repeat the loop is scenario-major with the clients
interleaved, their order rotated every repeat, so the numbers in one row
are measured close together in time and drift in machine load hits all
clients alike.

Every answer is checked: each call echoes a unique text and the reply must
match, so a broken client cannot look fast. A scenario that fails once is
reported as "error" (reason under the table; not retried in later repeats)
and the exit status becomes 1. Every call has a timeout (``--timeout``,
default 30 s), and so does every other wait.

Defaults (N=2000, K=100, T=16, R=5, S=5) make a whole run of all three
clients take about 20-30 s on 2 cores.

Ratios are mcpsync / other, in the row's own unit: for calls/s above 1 means
mcpsync is faster; for CPU, start-up, close and import rows (times) below 1
means mcpsync is cheaper. Absolute numbers are noisy; ratios are the point.

A client that cannot be imported (``mcp`` or ``mcpsync`` missing) is
skipped with a note instead of aborting the run. At the end the script
checks that no child process is left behind (and kills, by pid, any it
finds, with a warning).
"""

import argparse
import asyncio
import collections
import gc
import json
import os
import select
import statistics
import subprocess
import sys
import threading
import time

from benchlib import (
    CLIENTS,
    RAW_INITIALIZE_PARAMS,
    REPO,
    Bench,
    BenchError,
    Timer,
    check_initialize,
    check_mcpsync_result,
    check_official_result,
    check_text,
    choose_subset,
    clean_up_children,
    describe,
    echo_params,
    import_mcpsync,
    logger,
    machine,
    mcpsync_callers,
    measure_async,
    measurement,
    new_data,
    notes,
    official_available,
    official_callers,
    page,
    report,
    require_positive,
    rotated,
    run_repeats,
    select_clients,
    statistic_name,
    summarise,
    summarise_row,
    table,
)
from benchlib import cell_value as table_cell
from benchlib import measure_sync as measure_calls

HERE = os.path.dirname(os.path.abspath(__file__))
SERVER = os.path.join(HERE, "minimal_server.py")
SERVER_CMD = [sys.executable, SERVER]

SCENARIOS = ("sequential", "inflight", "threads")


def run_threads(call, total, nthreads, tag, timeout):
    """Run `total` calls of call(text) spread over `nthreads` threads; return a Timer.

    All threads start together on a barrier; the clock runs from the barrier
    to the last join. Every wait is bounded by `timeout` (plus per-call
    timeouts inside `call`).
    """
    counts = [total // nthreads + (1 if i < total % nthreads else 0) for i in range(nthreads)]
    barrier = threading.Barrier(nthreads + 1)
    errors = []

    def worker(idx, count):
        try:
            barrier.wait(timeout)
            for j in range(count):
                call("%s-%d-%d" % (tag, idx, j))
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [
        threading.Thread(target=worker, args=(i, c), name="bench-%s-%d" % (tag, i), daemon=True)
        for i, c in enumerate(counts)
    ]
    gc.collect()
    for th in threads:
        th.start()
    timer = Timer(collect=False)
    try:
        barrier.wait(timeout)
    except threading.BrokenBarrierError:
        raise BenchError("threads did not start within %ss: %r" % (timeout, errors[:1])) from None
    with timer:
        deadline = time.monotonic() + timeout + total * 0.05
        for th in threads:
            th.join(max(0.0, deadline - time.monotonic()))
    if any(th.is_alive() for th in threads):
        raise BenchError("threads still running after the deadline")
    if errors:
        raise errors[0]
    return timer


def measure_sync(scenario, cfg, call, call_batch, call_from_thread, timeout):
    """Warm up, then time cfg.calls calls of one scenario with a synchronous client.

    call(text) does one checked round trip; call_batch(texts) one batch of
    len(texts) requests in flight; call_from_thread(text) is what each of the
    T threads calls.
    """
    if scenario == "threads":
        run_threads(call_from_thread, cfg.warmup, cfg.threads, "wt", timeout)
        return measurement(cfg.calls, run_threads(call_from_thread, cfg.calls, cfg.threads, "t", timeout))
    return measure_calls(scenario, cfg, call, call_batch)


# --------------------------------------------------------------------------
# raw client: Popen + json, no threads
# --------------------------------------------------------------------------


class RawStdioClient:
    """A minimal raw MCP client: Popen + json, bounded reads and writes."""

    def __init__(self, cmd, timeout):
        self.timeout = timeout
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
        self._rfd = self.proc.stdout.fileno()
        self._wfd = self.proc.stdin.fileno()
        os.set_blocking(self._wfd, False)
        self._lines = collections.deque()
        self._partial = b""
        self._next_id = 0
        self.lock = threading.Lock()  # only used by the T-threads variant

    # -- I/O ---------------------------------------------------------------

    def _fill(self, deadline):
        """Read one chunk of stdout into the line queue (bounded wait)."""
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("no response from the server within %ss" % self.timeout)
        ready, _, _ = select.select([self._rfd], [], [], remaining)
        if not ready:
            raise TimeoutError("no response from the server within %ss" % self.timeout)
        self._read_available()

    def _read_available(self):
        chunk = os.read(self._rfd, 1 << 16)
        if not chunk:
            raise ConnectionError("server closed its stdout (exit code %r)" % self.proc.poll())
        parts = (self._partial + chunk).split(b"\n")
        self._partial = parts.pop()
        self._lines.extend(parts)

    def _write_all(self, data, deadline):
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(self._wfd, view) :]
                continue
            except BlockingIOError:
                pass
            # Pipe full: the server may itself be blocked writing to us, so
            # keep draining its stdout while waiting to write.
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("could not write to the server within %ss" % self.timeout)
            readable, _, _ = select.select([self._rfd], [self._wfd], [], remaining)
            if readable:
                self._read_available()

    def _read_message(self, deadline):
        while True:
            while not self._lines:
                self._fill(deadline)
            line = self._lines.popleft().strip()
            if not line:
                continue
            message = json.loads(line)
            if "method" in message:
                continue  # server notification/request: the minimal server sends none
            return message

    # -- JSON-RPC ----------------------------------------------------------

    def _request_line(self, method, params):
        self._next_id += 1
        line = json.dumps({"jsonrpc": "2.0", "id": self._next_id, "method": method, "params": params})
        return self._next_id, line.encode() + b"\n"

    @staticmethod
    def _result(message):
        if "error" in message:
            raise BenchError("server error: %r" % (message["error"],))
        return message["result"]

    def request(self, method, params):
        deadline = time.monotonic() + self.timeout
        request_id, data = self._request_line(method, params)
        self._write_all(data, deadline)
        message = self._read_message(deadline)
        if message.get("id") != request_id:
            raise BenchError("response id %r, expected %r" % (message.get("id"), request_id))
        return self._result(message)

    def notify(self, method, params=None):
        message = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self._write_all(json.dumps(message).encode() + b"\n", time.monotonic() + self.timeout)

    def initialize(self):
        result = self.request("initialize", RAW_INITIALIZE_PARAMS)
        check_initialize(result)
        self.notify("notifications/initialized")
        return result

    def call_echo(self, text):
        result = self.request("tools/call", echo_params(text))
        check_text(result["content"][0]["text"], text)

    def call_echo_locked(self, text):
        if not self.lock.acquire(timeout=self.timeout):
            raise TimeoutError("could not get the client lock within %ss" % self.timeout)
        try:
            self.call_echo(text)
        finally:
            self.lock.release()

    def call_echo_pipelined(self, texts):
        """Write one request line per text, then read all the responses."""
        deadline = time.monotonic() + self.timeout
        expected = {}
        chunks = []
        for text in texts:
            request_id, data = self._request_line("tools/call", echo_params(text))
            expected[request_id] = text
            chunks.append(data)
        self._write_all(b"".join(chunks), deadline)
        for _ in texts:
            message = self._read_message(deadline)
            text = expected.pop(message.get("id"), None)
            if text is None:
                raise BenchError("unexpected response id %r" % (message.get("id"),))
            check_text(self._result(message)["content"][0]["text"], text)

    def close(self):
        """Close stdin (the server exits on EOF), wait for it, kill if it lingers."""
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self._wait_exit(5)
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=5)
        finally:
            self.proc.stdout.close()

    def _wait_exit(self, timeout):
        """Block until the server exits or `timeout` passes, without polling where possible.

        Popen.wait(timeout=...) polls with growing sleeps, which adds a few
        ms to every close; a pidfd (Linux 5.3+) wakes up exactly at exit.
        """
        pidfd_open = getattr(os, "pidfd_open", None)
        if pidfd_open is None or self.proc.returncode is not None:
            return
        try:
            pidfd = pidfd_open(self.proc.pid)
        except OSError:
            return  # already reaped, or no pidfd support: Popen.wait polls instead
        try:
            select.select([pidfd], [], [], timeout)
        finally:
            os.close(pidfd)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


class RawBench(Bench):
    name = "raw"
    scenarios = SCENARIOS

    def available(self):
        return True, "Popen + json + select, no threads; T-threads variant serialises write+read under one lock"

    def _connect(self):
        client = RawStdioClient(SERVER_CMD, self.timeout)
        try:
            client.initialize()
        except BaseException:
            client.close()
            raise
        return client

    def measure(self, scenario, cfg):
        with self._connect() as client:
            return measure_sync(
                scenario, cfg, client.call_echo, client.call_echo_pipelined, client.call_echo_locked, self.timeout
            )

    def startup(self):
        t0 = time.perf_counter()
        client = RawStdioClient(SERVER_CMD, self.timeout)
        try:
            client.initialize()
            client.call_echo("startup")
            t1 = time.perf_counter()
        finally:
            t2 = time.perf_counter()
            client.close()
            t3 = time.perf_counter()
        return t1 - t0, t3 - t2

    import_statement = "import json, select, subprocess"


# --------------------------------------------------------------------------
# official SDK (mcp), asyncio
# --------------------------------------------------------------------------


async def run_tasks(call, total, ntasks, tag):
    """Run `total` awaits of call(text) spread over `ntasks` concurrent asyncio tasks; return a Timer.

    The asyncio counterpart of run_threads, for a client without a thread-safe synchronous API.
    """
    counts = [total // ntasks + (1 if i < total % ntasks else 0) for i in range(ntasks)]

    async def worker(idx, count):
        for j in range(count):
            await call("%s-%d-%d" % (tag, idx, j))

    with Timer() as timer:
        await asyncio.gather(*(worker(i, c) for i, c in enumerate(counts)))
    return timer


class OfficialBench(Bench):
    name = "official"
    scenarios = SCENARIOS  # "threads": T asyncio tasks (no thread-safe synchronous API)

    def available(self):
        return official_available(
            "mcp %s: Client(StdioServerParameters) under asyncio.run; mode='auto' probes server/discover, "
            "falls back to initialize on -32601; first call_tool also sends tools/list; T callers = T asyncio "
            "tasks (no thread-safe synchronous API)",
            ("mcp.client", "Client"),
            ("mcp.client.stdio", "StdioServerParameters"),
        )

    def _client(self):
        from mcp.client import Client
        from mcp.client.stdio import StdioServerParameters

        params = StdioServerParameters(command=SERVER_CMD[0], args=SERVER_CMD[1:])
        return Client(params, read_timeout_seconds=self.timeout)

    def _overall_timeout(self, cfg):
        return 60 + self.timeout + 3 * cfg.calls * 0.05

    def measure(self, scenario, cfg):
        return asyncio.run(asyncio.wait_for(self._measure(scenario, cfg), self._overall_timeout(cfg)))

    async def _measure(self, scenario, cfg):
        async with self._client() as client:
            call, gather = official_callers(client)
            if scenario == "threads":
                await run_tasks(call, cfg.warmup, cfg.threads, "wt")
                return measurement(cfg.calls, await run_tasks(call, cfg.calls, cfg.threads, "t"))
            return await measure_async(scenario, cfg, call, gather)

    def startup(self):
        return asyncio.run(asyncio.wait_for(self._startup(), 60 + self.timeout))

    async def _startup(self):
        t0 = time.perf_counter()
        client = self._client()
        async with client:
            check_official_result(await client.call_tool("echo", {"text": "startup"}), "startup")
            t1 = time.perf_counter()
        t2 = time.perf_counter()
        return t1 - t0, t2 - t1

    import_statement = "from mcp.client import Client; from mcp.client.stdio import StdioServerParameters"


# --------------------------------------------------------------------------
# mcpsync
# --------------------------------------------------------------------------


class McpsyncBench(Bench):
    name = "mcpsync"
    scenarios = SCENARIOS
    mcpsync = None  # the module, once available() has imported it

    def available(self):
        try:
            mcpsync = import_mcpsync()
        except Exception as exc:
            return False, "import mcpsync failed: %s: %s" % (type(exc).__name__, exc)
        if not hasattr(mcpsync, "connect"):
            return False, "mcpsync has no connect() yet (package incomplete?)"
        self.mcpsync = mcpsync
        version = getattr(mcpsync, "__version__", "?")
        return True, "mcpsync %s: connect([python, server]); send_request futures for K in flight" % version

    def measure(self, scenario, cfg):
        with self.mcpsync.connect(list(SERVER_CMD)) as client:
            call, call_batch = mcpsync_callers(client, self.timeout)
            return measure_sync(scenario, cfg, call, call_batch, call, self.timeout)

    def startup(self):
        t0 = time.perf_counter()
        client = self.mcpsync.connect(list(SERVER_CMD))
        with client:
            check_mcpsync_result(client.call_tool("echo", {"text": "startup"}, timeout=self.timeout), "startup")
            t1 = time.perf_counter()
        t2 = time.perf_counter()
        return t1 - t0, t2 - t1

    import_statement = "import mcpsync"


BENCH_CLASSES = {"raw": RawBench, "official": OfficialBench, "mcpsync": McpsyncBench}


# --------------------------------------------------------------------------
# import cost, leftover processes
# --------------------------------------------------------------------------


def fresh_interpreter_ms(statement):
    """Wall time (ms) of ``python -c statement`` in a fresh interpreter, run from the repo root."""
    t0 = time.perf_counter()
    subprocess.run(
        [sys.executable, "-c", statement],
        cwd=REPO,
        check=True,
        timeout=60,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return (time.perf_counter() - t0) * 1000


def import_cost_ms(statement, runs=5):
    """Extra time of importing over a bare interpreter: min of `runs`, bare and import interleaved."""
    bare, imported = [], []
    for _ in range(runs):
        bare.append(fresh_interpreter_ms("pass"))
        imported.append(fresh_interpreter_ms(statement))
    return max(0.0, min(imported) - min(bare)), min(bare)


# --------------------------------------------------------------------------
# driver
# --------------------------------------------------------------------------


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", "-n", type=int, default=2000, help="calls per measurement (N, default 2000)")
    parser.add_argument("--inflight", "-k", type=int, default=100, help="requests in flight (K, default 100)")
    parser.add_argument("--threads", "-t", type=int, default=16, help="threads sharing one client (T, default 16)")
    parser.add_argument("--repeat", "-r", type=int, default=5, help="repeats; throughput is the best (default 5)")
    parser.add_argument("--startup-runs", "-s", type=int, default=5, help="start-up runs; median (default 5)")
    parser.add_argument("--warmup", type=int, default=None, help="warm-up calls per scenario (default min(200, N/10))")
    parser.add_argument("--timeout", type=float, default=30.0, help="per-call timeout in seconds (default 30)")
    parser.add_argument("--clients", default=",".join(CLIENTS), help="comma-separated subset of raw,official,mcpsync")
    parser.add_argument("--no-import", action="store_true", help="skip the fresh-interpreter import measurement")
    parser.add_argument("--median", action="store_true", help="report the median of the repeats, not the best")
    parser.add_argument("--json", action="store_true", help="print the numbers as JSON instead of Markdown")
    args = parser.parse_args(argv)
    choose_subset(parser, args, "clients", CLIENTS)
    require_positive(parser, args, ("calls", "inflight", "threads", "repeat", "startup_runs"))
    if args.warmup is None:
        args.warmup = min(200, max(1, args.calls // 10))
    return args


def run(args):
    log = logger(args)
    data = new_data(
        calls=args.calls,
        inflight=args.inflight,
        threads=args.threads,
        repeat=args.repeat,
        warmup=args.warmup,
        startup_runs=args.startup_runs,
        throughput_statistic=statistic_name(args),
        time_statistic="median of runs",
    )
    benches = select_clients(data, args, BENCH_CLASSES, log)

    def measure(name, scenario):
        bench = benches[name]
        return bench.measure(scenario, args) if scenario in bench.scenarios else None  # None: n/a

    samples = run_repeats(data, benches, args.repeat, SCENARIOS, measure, log)

    startup = {name: [] for name in benches}
    close = {name: [] for name in benches}
    for run_index in range(args.startup_runs):
        for name in rotated(list(benches), run_index):
            errors = data["clients"][name]["errors"]
            if "startup" in errors:
                continue
            try:
                s, c = benches[name].startup()
            except Exception as exc:
                errors["startup"] = describe(exc)
                log("%s: start-up failed: %s" % (name, errors["startup"]))
                continue
            startup[name].append(s * 1000)
            close[name].append(c * 1000)
    log("start-up runs done")

    import_ms = {}
    if not args.no_import and benches:
        for name, bench in benches.items():
            try:
                import_ms[name], data["meta"]["bare_interpreter_ms"] = import_cost_ms(bench.import_statement)
            except Exception as exc:
                data["clients"][name]["errors"]["import"] = describe(exc)
        log("import timing done")

    for name in benches:
        entry = data["clients"][name]
        for scenario in SCENARIOS:
            summarise_row(entry, scenario, samples[name], args.median)
        entry["startup_ms"] = summarise(startup[name], statistics.median)
        entry["close_ms"] = summarise(close[name], statistics.median)
        entry["import_ms"] = {"value": import_ms[name]} if name in import_ms else None

    data["warnings"].extend(clean_up_children())
    return data


ROWS = [
    # (key, label template, unit kind)
    ("sequential", "sequential (calls/s)", "rate"),
    ("inflight", "{K} in flight (calls/s)", "rate"),
    ("threads", "{T} callers: threads, official: tasks (calls/s)", "rate"),
    ("sequential_cpu_us_per_call", "sequential: client CPU (µs/call)", "time"),
    ("inflight_cpu_us_per_call", "{K} in flight: client CPU (µs/call)", "time"),
    ("threads_cpu_us_per_call", "{T} callers: client CPU (µs/call)", "time"),
    ("startup_ms", "start-up to first result, imports done (ms)", "time"),
    ("close_ms", "close + reap server (ms)", "time"),
    ("import_ms", "import cost, fresh interpreter (ms)", "time"),
]


def cell_value(data, client, key):
    """Number for a table cell, or a short string saying why there is none."""
    base = key.split("_cpu_")[0]
    error_key = {"startup_ms": "startup", "close_ms": "startup", "import_ms": "import"}.get(key, base)
    return table_cell(data["clients"][client], key, error_key)


def markdown(data):
    meta = data["meta"]
    heading = "mcpsync stdio benchmark — %s | N=%d K=%d T=%d | throughput: %s, times: median of %d start-ups" % (
        machine(meta),
        meta["calls"],
        meta["inflight"],
        meta["threads"],
        meta["throughput_statistic"],
        meta["startup_runs"],
    )
    rows = [(key, label.format(K=meta["inflight"], T=meta["threads"]), kind) for key, label, kind in ROWS]
    return page(
        heading,
        table(rows, lambda client, key: cell_value(data, client, key), skip_empty=True),
        "Ratios are mcpsync ÷ other in the row's unit: calls/s > 1 means mcpsync is faster; "
        "µs and ms rows < 1 mean mcpsync is cheaper. CPU is this process only (all threads), not the server.",
        notes(data, error_order=[*SCENARIOS, "startup", "import"]),
    )


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    return report(run(args), args.json, markdown)


if __name__ == "__main__":
    sys.exit(main())
