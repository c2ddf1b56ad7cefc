"""Side-by-side Streamable HTTP benchmark: raw requests vs the official MCP SDK vs mcpsync.

Usage::

    python benchmarks/bench_http.py [--calls N] [--inflight K] [--repeat R] [--warmup W] [--median]
                                    [--modes json,sse] [--clients raw,official,mcpsync]
                                    [--json] [--profile]

The target is ``benchmarks/minimal_http_server.py`` (stdlib
``ThreadingHTTPServer``, HTTP/1.1 keep-alive, every answer in one write), run
as a child process on a free port of 127.0.0.1, one process per reply mode:

json
    every request is answered with an ``application/json`` body.
sse
    every request is answered with a ``text/event-stream`` body holding one
    ``data: <response>`` event; the body is sized with Content-Length, so the
    connection can be reused. raw and mcpsync do reuse it; the official SDK
    closes each SSE answer right after the response event, before the end of
    the body, so it opens one TCP connection per request (chunked bodies
    behave the same). The notes under the table show such counts.

Clients (each measurement opens its own connection and MCP session)
-------------------------------------------------------------------
raw
    The floor: one ``requests.Session``, POSTs built by hand (initialize,
    notifications/initialized, then tools/call), the reply parsed minimally
    (``json.loads`` of the body, or of the one ``data:`` line). K in flight:
    a ``ThreadPoolExecutor`` of K threads sharing that session (pool of K
    connections), i.e. the "requests plus threads" design without any MCP
    machinery.
official
    The official SDK (``mcp``), idiomatic usage:
    ``async with mcp.client.Client("http://127.0.0.1:PORT/mcp")`` under
    ``asyncio.run``, sequential ``await client.call_tool``; K in flight is
    ``asyncio.gather`` of K ``call_tool``. In its default ``mode="auto"`` it
    first probes ``server/discover`` (-32601 here, so it falls back to
    ``initialize``); its first ``call_tool`` also sends ``tools/list`` (done
    in the warm-up); after the handshake it tries a GET stream (405 here)
    twice, 1 s apart.
mcpsync
    ``mcpsync.connect("http://127.0.0.1:PORT/mcp")``, then
    ``client.call_tool("echo", {"text": ...}, timeout=...)``; K in flight is
    K ``client.send_request`` futures then ``f.result(timeout=...)`` each.
    Its HTTP transport runs every request's POST on a bounded worker pool
    (``max_connections``, default 10, left at the default: K above 10 queues).

Rows
----
sequential, JSON / SSE replies
    N ``tools/call echo`` round trips, one at a time (calls/s).
K in flight, JSON / SSE replies
    N calls in batches of K outstanding at once (calls/s).
client CPU
    CPU time (user+sys, all threads) of this process per call in the
    sequential rows: steadier than wall time on a shared machine, and
    excludes the server.
server CPU
    The server process's CPU per call in the same runs (it reports
    ``time.process_time`` on ``GET /stats``): equal across clients unless a
    client makes the server do more (extra requests, new connections).

Measurement
-----------
Each (client, row, repeat) gets a fresh connection and MCP session on the
mode's server; connecting and closing are outside the timed part. A short
warm-up (``--warmup``, default min(100, N/10) calls) runs first, then N calls
are timed with ``time.perf_counter()``. Throughput is the BEST of R repeats
(the least disturbed run on a noisy machine; CPU per call likewise the
lowest); every sample and the medians are in ``--json``, together with the
new TCP connections the server accepted and the POSTs it got during the
timed calls (keep-alive working means 0 new connections and 1 POST per
call). ``--median`` reports the median of the repeats instead of the
best. Within a repeat the clients run back to back for each row, their
order rotated every repeat, so load drift hits them alike.

Every answer is checked: each call echoes a unique text that the reply must
carry, so a broken client cannot look fast. A row that fails once is
reported as "error" (reason under the table; not retried) and the exit
status becomes 1. Every wait is bounded: calls by ``--timeout`` (default
30 s), the official client's whole run by an overall ``asyncio.wait_for``,
server start and stop by fixed limits. Servers exit when their stdin closes,
so even a killed benchmark leaves none behind; at the end the script checks
that no child process is left (and kills, by pid, any it finds).

Defaults (N=1000, K=10, R=3) take about a minute on 2 shared cores.

``--profile`` does not benchmark: it runs the mcpsync sequential loop
(N calls per mode) under ``cProfile`` in every thread (caller and
transport workers) and prints the top functions by own time and by
cumulative time.

Ratios are mcpsync / other in the row's unit: for calls/s above 1 means
mcpsync is faster; for CPU rows (µs per call) below 1 means mcpsync is
cheaper. Absolute numbers are noisy; ratios are the point.
"""

import argparse
import asyncio
import concurrent.futures
import http.client
import itertools
import json
import os
import select
import statistics
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from benchlib import (  # noqa: E402
    CLIENTS,
    PROTOCOL_VERSION,
    RAW_INITIALIZE_PARAMS,
    Bench,
    BenchError,
    Window,
    check_initialize,
    check_text,
    choose_subset,
    clean_up_children,
    echo_params,
    import_mcpsync,
    logger,
    machine,
    mcpsync_callers,
    measure_async,
    new_data,
    notes,
    official_available,
    official_callers,
    page,
    report,
    require_positive,
    run_repeats,
    select_clients,
    statistic_name,
    summarise,
    summarise_row,
    table,
)
from benchlib import cell_value as table_cell  # noqa: E402
from benchlib import measure_sync as measure_calls  # noqa: E402

SERVER = os.path.join(HERE, "minimal_http_server.py")
ACCEPT = "application/json, text/event-stream"

SCENARIOS = ("sequential", "inflight")
MODES = ("json", "sse")
SERVER_START_TIMEOUT = 15.0
SERVER_STOP_TIMEOUT = 5.0


# --------------------------------------------------------------------------
# the server process
# --------------------------------------------------------------------------


class ServerProcess:
    """minimal_http_server.py in one reply mode, as a child process; ``stats()`` reads its counters."""

    def __init__(self, mode, timeout):
        self.mode = mode
        self.proc = subprocess.Popen(
            [sys.executable, SERVER, "--" + mode, "--port", "0", "--watch-stdin"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        self._stats_conn = None
        try:
            line = self._first_line(SERVER_START_TIMEOUT)
            if not line.startswith("listening on http://"):
                raise BenchError("unexpected first line from the %s server: %r" % (mode, line))
            self.url = line.split()[-1]
            self.port = int(self.url.rsplit(":", 1)[1].split("/", 1)[0])
            self._stats_conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
            self.stats()  # the server answers
        except BaseException:
            self.close()
            raise

    def _first_line(self, timeout):
        fd = self.proc.stdout.fileno()
        data = b""
        deadline = time.monotonic() + timeout
        while b"\n" not in data:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([fd], [], [], remaining)[0]:
                raise BenchError("the %s server did not start within %ss" % (self.mode, timeout))
            chunk = os.read(fd, 4096)
            if not chunk:
                raise BenchError("the %s server exited at start (code %r)" % (self.mode, self.proc.poll()))
            data += chunk
        return data.split(b"\n", 1)[0].decode()

    def stats(self):
        """The server's counters, over one kept-alive connection of our own (not counted against clients)."""
        self._stats_conn.request("GET", "/stats")
        response = self._stats_conn.getresponse()
        body = response.read()
        if response.status != 200:
            raise BenchError("GET /stats answered %d" % response.status)
        return json.loads(body)

    def close(self):
        """Close stdin (the server exits on EOF), wait, kill if it lingers."""
        if self._stats_conn is not None:
            self._stats_conn.close()
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=SERVER_STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=SERVER_STOP_TIMEOUT)
        finally:
            self.proc.stdout.close()


class ServerWindow(Window):
    """Window plus the server's counters around the timed part (CPU, new connections, POSTs)."""

    def __init__(self, server, calls):
        super().__init__(calls)
        self.server = server

    def __enter__(self):
        self.before = self.server.stats()
        return super().__enter__()

    def __exit__(self, *exc):
        super().__exit__(*exc)
        if exc[0] is None:
            after, before, calls = self.server.stats(), self.before, self.calls
            self.result.update(
                server_cpu_us_per_call=1e6 * (after["cpu_s"] - before["cpu_s"]) / calls,
                new_connections=after["connections"] - before["connections"],
                posts_per_call=(after["posts"] - before["posts"]) / calls,
            )
        return False


def measure_sync(scenario, cfg, server, call, call_batch):
    """Warm up, then time cfg.calls calls with a synchronous client; call(text) and call_batch(texts) check answers."""
    return measure_calls(scenario, cfg, call, call_batch, lambda calls: ServerWindow(server, calls))


# --------------------------------------------------------------------------
# raw client: requests.Session, POSTs by hand
# --------------------------------------------------------------------------


class RawHTTPClient:
    """A minimal Streamable HTTP client: one requests.Session, hand-built POSTs, minimal parsing."""

    def __init__(self, url, timeout, pool_size=1):
        import requests
        from requests.adapters import HTTPAdapter

        self.url = url
        self.timeout = timeout
        self.session = requests.Session()
        adapter = HTTPAdapter(pool_connections=1, pool_maxsize=pool_size)
        self.session.mount("http://", adapter)
        self.headers = {"Accept": ACCEPT, "Content-Type": "application/json"}
        self._ids = itertools.count(1)  # next() on a count is atomic under the GIL: safe from the pool's threads

    def _post(self, message):
        return self.session.post(
            self.url, data=json.dumps(message).encode(), headers=self.headers, timeout=(self.timeout, self.timeout)
        )

    @staticmethod
    def _parse(response):
        if response.status_code != 200:
            raise BenchError("HTTP %d: %r" % (response.status_code, response.content[:200]))
        body = response.content
        kind = response.headers.get("Content-Type", "")
        if kind.startswith("application/json"):
            return json.loads(body)
        if kind.startswith("text/event-stream"):
            for line in body.split(b"\n"):
                if line.startswith(b"data:"):
                    return json.loads(line[5:])
            raise BenchError("SSE answer without a data line: %r" % body[:200])
        raise BenchError("unexpected Content-Type %r" % kind)

    def request(self, method, params):
        request_id = next(self._ids)
        response = self._post({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        message = self._parse(response)
        if message.get("id") != request_id:
            raise BenchError("response id %r, expected %r" % (message.get("id"), request_id))
        if "error" in message:
            raise BenchError("server error: %r" % (message["error"],))
        return message["result"], response

    def initialize(self):
        result, response = self.request("initialize", RAW_INITIALIZE_PARAMS)
        check_initialize(result)
        session_id = response.headers.get("Mcp-Session-Id")
        if session_id:
            self.headers["Mcp-Session-Id"] = session_id
        self.headers["MCP-Protocol-Version"] = PROTOCOL_VERSION
        ack = self._post({"jsonrpc": "2.0", "method": "notifications/initialized"})
        if ack.status_code not in (200, 202):
            raise BenchError("notifications/initialized answered %d" % ack.status_code)

    def call_echo(self, text):
        result, _ = self.request("tools/call", echo_params(text))
        check_text(result["content"][0]["text"], text)

    def close(self):
        try:
            if "Mcp-Session-Id" in self.headers:
                self.session.delete(self.url, headers=self.headers, timeout=(self.timeout, self.timeout))
        finally:
            self.session.close()


class RawBench(Bench):
    name = "raw"

    def available(self):
        try:
            import requests
        except Exception as exc:
            return False, "import requests failed: %s: %s" % (type(exc).__name__, exc)
        return True, (
            "requests %s: one Session, POSTs by hand, json.loads of the body or of the one data: line; "
            "K in flight = ThreadPoolExecutor(K) sharing the Session" % requests.__version__
        )

    def measure(self, scenario, cfg, server):
        pool_size = cfg.inflight if scenario == "inflight" else 1
        client = RawHTTPClient(server.url, self.timeout, pool_size)
        try:
            client.initialize()
            if scenario == "sequential":
                return measure_sync(scenario, cfg, server, client.call_echo, None)
            with concurrent.futures.ThreadPoolExecutor(cfg.inflight, thread_name_prefix="raw-bench") as pool:

                def call_batch(texts):
                    futures = [pool.submit(client.call_echo, text) for text in texts]
                    for future in futures:
                        future.result(timeout=self.timeout)

                return measure_sync(scenario, cfg, server, None, call_batch)
        finally:
            client.close()


# --------------------------------------------------------------------------
# official SDK (mcp), asyncio
# --------------------------------------------------------------------------


class OfficialBench(Bench):
    name = "official"

    def available(self):
        return official_available(
            "mcp %s: Client(url) under asyncio.run; mode='auto' probes server/discover, falls back to "
            "initialize on -32601; first call_tool also sends tools/list; K in flight = asyncio.gather",
            ("mcp.client", "Client"),
        )

    def measure(self, scenario, cfg, server):
        overall = 60 + self.timeout + 3 * (cfg.calls + cfg.warmup) * 0.05
        return asyncio.run(asyncio.wait_for(self._measure(scenario, cfg, server), overall))

    async def _measure(self, scenario, cfg, server):
        from mcp.client import Client

        async with Client(server.url, read_timeout_seconds=self.timeout) as client:
            call, gather = official_callers(client)
            # server.stats() blocks the loop for a moment: outside the timed part, nothing else to run.
            return await measure_async(scenario, cfg, call, gather, lambda calls: ServerWindow(server, calls))


# --------------------------------------------------------------------------
# mcpsync
# --------------------------------------------------------------------------


class McpsyncBench(Bench):
    name = "mcpsync"
    mcpsync = None  # the module, once available() has imported it

    def available(self):
        try:
            self.mcpsync = import_mcpsync()
        except Exception as exc:
            return False, "import mcpsync failed: %s: %s" % (type(exc).__name__, exc)
        return True, (
            "mcpsync %s: connect(url), call_tool(timeout=...); K in flight = send_request futures "
            "(worker pool, max_connections=10 default)" % getattr(self.mcpsync, "__version__", "?")
        )

    def measure(self, scenario, cfg, server):
        with self.mcpsync.connect(server.url, timeout=self.timeout) as client:
            call, call_batch = mcpsync_callers(client, self.timeout)
            return measure_sync(scenario, cfg, server, call, call_batch)


BENCH_CLASSES = {"raw": RawBench, "official": OfficialBench, "mcpsync": McpsyncBench}


# --------------------------------------------------------------------------
# profile mode
# --------------------------------------------------------------------------


def per_thread_profilers():
    """A list of profilers and a ``threading.setprofile`` hook that adds one per new thread."""
    import cProfile

    profiles = []
    lock = threading.Lock()

    def start_in_thread(frame, event, arg):
        # First event in a new thread: give it its own profiler (cProfile is per thread).
        profiler = cProfile.Profile()
        with lock:
            profiles.append(profiler)
        profiler.enable()  # replaces this hook for the thread

    return profiles, start_in_thread


def profile_mcpsync(args, servers):
    """cProfile the mcpsync sequential loop in every thread; print the top functions."""
    import cProfile
    import io
    import pstats

    mcpsync = import_mcpsync()
    out = []
    for mode, server in servers.items():
        profiles, start_in_thread = per_thread_profilers()
        main = cProfile.Profile()
        profiles.append(main)
        threading.setprofile(start_in_thread)  # threads started from now on: the transport's workers
        try:
            main.enable()
            with mcpsync.connect(server.url, timeout=args.timeout) as client:
                for i in range(args.warmup):
                    check_text(client.call_tool("echo", {"text": "w%d" % i}, timeout=args.timeout).text, "w%d" % i)
                t0 = time.perf_counter()
                for i in range(args.calls):
                    check_text(client.call_tool("echo", {"text": "s%d" % i}, timeout=args.timeout).text, "s%d" % i)
                wall = time.perf_counter() - t0
            main.disable()
        finally:
            threading.setprofile(None)
        stats = None
        for profiler in profiles:
            if stats is None:
                stats = pstats.Stats(profiler, stream=io.StringIO())
            else:
                stats.add(profiler)
        # Lock acquire / queue get at the top are threads waiting (for the server, or for work), not CPU.
        for sort, restriction, what in (
            ("tottime", (), "all functions by own time"),
            ("cumulative", (), "all functions by cumulative time"),
            ("tottime", ("/mcpsync/",), "mcpsync's own functions by own time"),
        ):
            buffer = io.StringIO()
            stats.stream = buffer
            stats.sort_stats(sort).print_stats(*restriction, args.profile_top)
            out.append(
                "=== mcpsync sequential, %s replies: %d calls (+%d warm-up) in %.2fs under cProfile, "
                "%d threads profiled; top %d, %s (waits in lock acquire / queue get are idle time) ===\n%s"
                % (mode, args.calls, args.warmup, wall, len(profiles), args.profile_top, what, buffer.getvalue())
            )
    return "\n".join(out)


# --------------------------------------------------------------------------
# driver
# --------------------------------------------------------------------------


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", "-n", type=int, default=1000, help="calls per measurement (N, default 1000)")
    parser.add_argument("--inflight", "-k", type=int, default=10, help="requests in flight (K, default 10)")
    parser.add_argument("--repeat", "-r", type=int, default=3, help="repeats; throughput is the best (default 3)")
    parser.add_argument(
        "--warmup", type=int, default=None, help="warm-up calls per measurement (default min(100, N/10))"
    )
    parser.add_argument("--timeout", type=float, default=30.0, help="per-call timeout in seconds (default 30)")
    parser.add_argument("--clients", default=",".join(CLIENTS), help="comma-separated subset of raw,official,mcpsync")
    parser.add_argument("--modes", default=",".join(MODES), help="comma-separated subset of json,sse")
    parser.add_argument("--json", action="store_true", help="print the numbers as JSON instead of Markdown")
    parser.add_argument("--median", action="store_true", help="report the median of the repeats, not the best")
    parser.add_argument("--profile", action="store_true", help="profile the mcpsync sequential loop instead")
    parser.add_argument("--profile-top", type=int, default=25, help="functions shown per profile table (default 25)")
    args = parser.parse_args(argv)
    choose_subset(parser, args, "clients", CLIENTS)
    choose_subset(parser, args, "modes", MODES)
    require_positive(parser, args, ("calls", "inflight", "repeat"))
    if args.warmup is None:
        args.warmup = min(100, max(1, args.calls // 10))
    return args


def row_key(scenario, mode):
    return "%s_%s" % (scenario, mode)


def run(args, servers):
    log = logger(args)
    data = new_data(
        calls=args.calls,
        inflight=args.inflight,
        repeat=args.repeat,
        warmup=args.warmup,
        modes=args.modes,
        throughput_statistic=statistic_name(args),
        cpu_statistic="median of repeats" if args.median else "lowest of repeats",
    )
    benches = select_clients(data, args, BENCH_CLASSES, log)
    # One row per (scenario, mode): row_key -> what to measure.
    keys = {row_key(scenario, mode): (scenario, mode) for scenario in SCENARIOS for mode in args.modes}

    def measure(name, key):
        scenario, mode = keys[key]
        return benches[name].measure(scenario, args, servers[mode])

    samples = run_repeats(data, benches, args.repeat, list(keys), measure, log)

    for name in benches:
        entry = data["clients"][name]
        for key in keys:
            ms = summarise_row(entry, key, samples[name], args.median)
            entry[key + "_server_cpu_us_per_call"] = summarise(
                [m["server_cpu_us_per_call"] for m in ms], statistics.median if args.median else min
            )
            entry[key + "_new_connections"] = [m["new_connections"] for m in ms]
            entry[key + "_posts_per_call"] = [m["posts_per_call"] for m in ms]
    return data


def rows(meta):
    """(key, label, unit kind) of the table's rows, for the modes measured."""
    names = {"json": "JSON replies", "sse": "SSE replies"}
    out = []
    for mode in meta["modes"]:
        out.append((row_key("sequential", mode), "sequential, %s (calls/s)" % names[mode], "rate"))
    for mode in meta["modes"]:
        out.append((row_key("inflight", mode), "%d in flight, %s (calls/s)" % (meta["inflight"], names[mode]), "rate"))
    for mode in meta["modes"]:
        out.append(
            (
                row_key("sequential", mode) + "_cpu_us_per_call",
                "sequential, %s: client CPU (µs/call)" % names[mode],
                "time",
            )
        )
    for mode in meta["modes"]:
        out.append(
            (
                row_key("sequential", mode) + "_server_cpu_us_per_call",
                "sequential, %s: server CPU (µs/call)" % names[mode],
                "time",
            )
        )
    return out


def cell_value(data, client, key):
    base = key.split("_cpu_")[0].split("_server")[0]
    return table_cell(data["clients"][client], key, base)


def connection_notes(meta):
    """extra(name, entry) for notes(): keep-alive and request count, as the server saw them in the timed calls."""

    def extra(name, entry):
        for scenario in SCENARIOS:
            for mode in meta["modes"]:
                key = row_key(scenario, mode)
                conns = entry.get(key + "_new_connections") or []
                posts = entry.get(key + "_posts_per_call") or []
                if conns and (max(conns) > 0 or max(posts) > 1.0001 or min(posts) < 0.9999):
                    yield (
                        "  - %s: the server accepted %s new connections and %s POSTs per call during the timed "
                        "%d calls (per repeat)"
                        % (key, "/".join(map(str, conns)), "/".join("%.2f" % p for p in posts), meta["calls"])
                    )

    return extra


def markdown(data):
    meta = data["meta"]
    heading = (
        "mcpsync Streamable HTTP benchmark — %s | N=%d K=%d warm-up=%d | %s | "
        "server: minimal_http_server.py (ThreadingHTTPServer, keep-alive)"
        % (machine(meta), meta["calls"], meta["inflight"], meta["warmup"], meta["throughput_statistic"])
    )
    return page(
        heading,
        table(rows(meta), lambda client, key: cell_value(data, client, key)),
        "Ratios are mcpsync ÷ other in the row's unit: calls/s > 1 means mcpsync is faster; µs rows < 1 mean "
        "mcpsync is cheaper. Client CPU is this process (all threads); server CPU is the server process.",
        notes(data, extra=connection_notes(meta)),
    )


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    servers = {}
    data = None
    try:
        for mode in args.modes:
            servers[mode] = ServerProcess(mode, args.timeout)
        if args.profile:
            print(profile_mcpsync(args, servers))
        else:
            data = run(args, servers)
    finally:
        for server in servers.values():
            server.close()
    warnings = clean_up_children()
    if data is None:
        for warning in warnings:
            print("WARNING: %s" % warning, file=sys.stderr)
        return 1 if warnings else 0
    data["warnings"].extend(warnings)
    return report(data, args.json, markdown)


if __name__ == "__main__":
    sys.exit(main())
