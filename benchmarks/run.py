"""The benchmark: mcpsync beside the official MCP SDK, a raw client and the design floor, in one run, as ratios,
with the targets.

    python benchmarks/run.py [--quick] [--json] [--only stdio,http,process,validation,memory]
                             [--clients raw,floor,official,mcpsync]

Sections (clients and servers are in ``peers.py``):

stdio       sequential calls, 100 in flight, 16 threads sharing one client (the
            official SDK: 16 asyncio tasks), client CPU per sequential call
http        sequential calls with JSON replies, SSE replies, and JSON behind a
            bearer token; 10 in flight (JSON, SSE); client CPU per JSON call
process     fresh processes: start-up to the first result, peak RSS over 1000
            calls, import time (``-X importtime``, and wall time over ``python -c pass``)
validation  mcpsync's envelope fast path against the full jsonschema validator
memory      one large message on each path (``message_memory.py``): mcpsync's peak
            memory per MiB of message, each path in a fresh process

The clients are in ``peers.py``; ``floor.py`` is the design floor, the
smallest client of mcpsync's own shape (threads, futures keyed by id, one
writer lock). ``--clients`` measures a subset (mcpsync and the floor alone,
say, to compare two checkouts quickly); a ratio to a client left out is "—".

Every measurement opens its own connection (not timed), warms up, then times
N calls; every answer is checked. The clients take turns within each row, in
an order rotated every round, so that a shared machine's load drifts over all
of them alike; each number is the median over the rounds, and a ratio is
mcpsync's median over the other's. A missed target is reported, not an error;
the exit status is 1 if a client failed or gave a wrong answer, or a child
process was left behind. To measure another checkout of mcpsync, put it first:
``PYTHONPATH=/path/to/checkout python benchmarks/run.py``.
"""

import argparse
import asyncio
import datetime
import gc
import json
import os
import platform
import statistics
import subprocess
import sys
import threading
import time
from importlib.metadata import version

import peers
from peers import STDIO, STDIO_MODERN, TIMEOUT, BenchError

import mcpsync

CLIENTS = ("raw", "floor", "official", "mcpsync")
#: The clients mcpsync's ratios are taken to, in the order of the table's columns.
OTHERS = ("raw", "floor", "official")
SECTIONS = ("stdio", "http", "process", "validation", "memory")
FULL = {"rounds": 7, "stdio_calls": 3000, "http_calls": 1000, "process_rounds": 9, "messages": 20000, "mib": 30}
QUICK = {"rounds": 2, "stdio_calls": 200, "http_calls": 100, "process_rounds": 2, "messages": 2000, "mib": 8}
#: The most a path may hold of one large message, per MiB of it (tracemalloc's peak; issue 28).
MEMORY_TARGET = 3.0
RSS_CALLS = 1000

# What the stdio and http sections time: row key -> (target, (scenario, width)).
CASES = {
    "stdio": {
        "stdio_sequential": (STDIO, ("sequential", 1)),
        "stdio_inflight": (STDIO, ("inflight", 100)),
        "stdio_threads": (STDIO, ("threads", 16)),
        "stdio_modern": (STDIO_MODERN, ("sequential", 1)),
        "stdio_modern_inflight": (STDIO_MODERN, ("inflight", 100)),
    },
    "http": {
        "http_json": ("json", ("sequential", 1)),
        "http_sse": ("sse", ("sequential", 1)),
        "http_bearer": ("bearer", ("sequential", 1)),
        "http_json_inflight": ("json", ("inflight", 10)),
        "http_sse_inflight": ("sse", ("inflight", 10)),
        "http_modern": ("modern", ("sequential", 1)),
    },
}
# (key, label, unit) of the table; a "_cpu" key is the client CPU of its row's measurements.
ROWS = [
    ("stdio_sequential", "stdio sequential (calls/s)", "rate"),
    ("stdio_inflight", "stdio 100 in flight (calls/s)", "rate"),
    ("stdio_threads", "stdio 16 threads ¹ (calls/s)", "rate"),
    ("stdio_sequential_cpu", "stdio sequential: client CPU (µs/call)", "time"),
    ("stdio_modern", "stdio sequential, 2026-07-28 (calls/s)", "rate"),
    ("stdio_modern_inflight", "stdio 100 in flight, 2026-07-28 (calls/s)", "rate"),
    ("http_json", "HTTP sequential, JSON replies (calls/s)", "rate"),
    ("http_sse", "HTTP sequential, SSE replies (calls/s)", "rate"),
    ("http_bearer", "HTTP sequential, bearer token, JSON replies (calls/s)", "rate"),
    ("http_json_inflight", "HTTP 10 in flight, JSON replies (calls/s)", "rate"),
    ("http_sse_inflight", "HTTP 10 in flight, SSE replies (calls/s)", "rate"),
    ("http_json_cpu", "HTTP sequential, JSON: client CPU (µs/call)", "time"),
    ("http_modern", "HTTP sequential, 2026-07-28, JSON replies (calls/s)", "rate"),
    ("startup_ms", "start-up to first result, fresh process (ms)", "time"),
    ("import_ms", "import, `-X importtime` in a fresh interpreter (ms)", "time"),
    ("import_wall_ms", "import, wall time over `python -c pass` (ms)", "time"),
    ("rss_mb", "peak RSS, connect + %d calls (MB)" % RSS_CALLS, "time"),
]
# (label, key, other client, comparison, bound): mcpsync ÷ other against the bound; no other: mcpsync's value.
TARGETS = [
    ("stdio sequential ≥ 0.5× raw", "stdio_sequential", "raw", ">=", 0.5),
    ("stdio sequential ≥ 4× official", "stdio_sequential", "official", ">=", 4.0),
    ("stdio 100 in flight ≥ 0.7× raw", "stdio_inflight", "raw", ">=", 0.7),
    ("stdio 100 in flight ≥ 10× official", "stdio_inflight", "official", ">=", 10.0),
    ("stdio sequential ≥ 0.9× floor", "stdio_sequential", "floor", ">=", 0.9),
    ("stdio 100 in flight ≥ 0.9× floor", "stdio_inflight", "floor", ">=", 0.9),
    ("import < 80 ms", "import_ms", None, "<", 80.0),
    ("start-up < 1/5 of official", "startup_ms", "official", "<", 0.2),
    ("peak RSS < 1/2 of official", "rss_mb", "official", "<", 0.5),
    ("HTTP sequential, JSON ≥ 2× official", "http_json", "official", ">=", 2.0),
    ("HTTP sequential, SSE ≥ 2× official", "http_sse", "official", ">=", 2.0),
    ("HTTP sequential, bearer token ≥ 2× official", "http_bearer", "official", ">=", 2.0),
]
IMPORTS = {  # client -> (a module it imports, what a program using it imports)
    "raw": ("json", "import json, select, subprocess"),
    "floor": ("concurrent.futures", "import concurrent.futures, itertools, json, subprocess, threading"),
    "official": ("mcp", "from mcp.client import Client; from mcp.client.stdio import StdioServerParameters"),
    "mcpsync": ("mcpsync", "import mcpsync"),
}
# The children may write bytecode caches: after the warm-up every import loads a .pyc, as when installed.
CHILD_ENV = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}


def log(message):
    print(message, file=sys.stderr, flush=True)


def describe(exc):
    """One line for an exception; the first leaf of an (anyio, asyncio) exception group."""
    while getattr(exc, "exceptions", None):
        exc = exc.exceptions[0]
    return "%s: %s" % (type(exc).__name__, exc)


class Results:
    """Samples by row key and client, and what failed; a row that failed once is not measured again."""

    def __init__(self):
        self.samples = {}
        self.failed = set()  # (client, key)
        self.problems = []  # what to report, a line each

    def measure(self, client, keys, run, *args):
        """Append the values of run(*args), one per key, to the samples, or record why it failed."""
        if (client, keys[0]) in self.failed:
            return
        try:
            values = run(*args)
        except Exception as exc:
            self.failed.update((client, key) for key in keys)
            self.problems.append("%s, %s: %s" % (client, keys[0], describe(exc)))
            log("  FAILED: " + self.problems[-1])
            return
        for key, value in zip(keys, values):
            self.samples.setdefault(key, {}).setdefault(client, []).append(value)

    def median(self, key, client):
        if (client, key) in self.failed:
            return None  # no number from a row that failed, even from its rounds before
        found = self.samples.get(key, {}).get(client)
        return statistics.median(found) if found else None

    def ratio(self, key, other):
        mine, theirs = self.median(key, "mcpsync"), self.median(key, other)
        return None if mine is None or not theirs else mine / theirs


def rotated(items, shift):
    """items, starting with a different one every round."""
    shift %= len(items)
    return items[shift:] + items[:shift]


# -- one measurement ------------------------------------------------------------


class Clock:
    """Wall time and this process's CPU time (all threads, not the server's) of a block."""

    def __enter__(self):
        gc.collect()  # not inside the timed block
        self.wall, self.cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc):
        self.wall, self.cpu = time.perf_counter() - self.wall, time.process_time() - self.cpu

    def per_call(self, calls):
        """(calls/s, client CPU µs per call)."""
        return calls / self.wall, 1e6 * self.cpu / calls


def chunks(texts, width):
    return [texts[i : i + width] for i in range(0, len(texts), width)]


def in_threads(call, texts, width):
    """call(text) for every text, from `width` threads at once; every wait bounded."""
    errors = []

    def work(part):
        try:
            for text in part:
                call(text)
        except Exception as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(texts[i::width],), daemon=True) for i in range(width)]
    for thread in threads:
        thread.start()  # inside the timed block: 16 starts cost well under 1 % of the calls
    deadline = time.monotonic() + TIMEOUT + 0.01 * len(texts)
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
    if any(thread.is_alive() for thread in threads):
        raise BenchError("threads still running after the deadline")
    if errors:
        raise errors[0]


def sync_runner(peer, scenario):
    """run(texts) for a raw, floor or mcpsync peer: the scenario's calls, answers checked."""
    kind, width = scenario

    def sequential(texts):
        for text in texts:
            peer.call(text)

    def inflight(texts):
        for chunk in chunks(texts, width):
            peer.batch(chunk)

    def threads(texts):
        in_threads(peer.threaded_call, texts, width)

    return {"sequential": sequential, "inflight": inflight, "threads": threads}[kind]


def async_runner(peer, scenario):
    """The coroutine function run(texts) for an official peer: its threads are asyncio tasks."""
    kind, width = scenario

    async def sequential(texts):
        for text in texts:
            await peer.call(text)

    async def inflight(texts):
        for chunk in chunks(texts, width):
            await peer.batch(chunk)

    async def tasks(texts):
        await asyncio.gather(*(sequential(texts[i::width]) for i in range(width)))

    return {"sequential": sequential, "inflight": inflight, "threads": tasks}[kind]


def texts(tag, count):
    """A text per call, each its own, so that every answer can be told apart."""
    return ["%s%d" % (tag, i) for i in range(count)]


def measure(client, target, scenario, calls):
    """(calls/s, client CPU µs/call) of `calls` calls on a fresh connection, after a warm-up."""
    warmup = texts("w", min(200, calls // 10))
    if client == "official":

        async def official():
            async with peers.official(target) as peer:
                run = async_runner(peer, scenario)
                await run(warmup)  # the SDK's first call also lists the tools
                with Clock() as clock:
                    await run(texts("s", calls))
                return clock.per_call(calls)

        return asyncio.run(asyncio.wait_for(official(), TIMEOUT + 0.05 * calls))
    peer = peers.sync_peer(client, target)
    try:
        run = sync_runner(peer, scenario)
        run(warmup)
        with Clock() as clock:
            run(texts("s", calls))
        return clock.per_call(calls)
    finally:
        peer.close()


# -- fresh processes ------------------------------------------------------------


def python(*args):
    """Run this interpreter on `args` (outside the checkout, so that only sys.path decides which mcpsync
    loads); return (wall ms, stdout, stderr)."""
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, *args], cwd=peers.HERE, env=CHILD_ENV, capture_output=True, timeout=60)
    if done.returncode:
        raise BenchError("python %s: %s" % (" ".join(args), done.stderr.decode()[-300:]))
    return 1000 * (time.perf_counter() - t0), done.stdout.decode(), done.stderr.decode()


def fresh_client(client):
    """(ms from process start to the first result, peak RSS MB over RSS_CALLS calls) of a fresh process."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, os.path.join(peers.HERE, "peers.py"), client, str(RSS_CALLS)],
        cwd=peers.HERE,
        env=CHILD_ENV,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        peers.check(peers.read_line(proc.stdout, 60, client), "ok")
        startup = 1000 * (time.perf_counter() - t0)
        _, err = proc.communicate(timeout=60)
        if proc.returncode:
            raise BenchError("%s exited with %d: %s" % (client, proc.returncode, err.decode()[-300:]))
        return startup, int(err.split()[-1]) / 1024
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(5)


def import_times(client, mcpsync_file):
    """(ms by ``-X importtime``, ms of wall time over ``python -c pass``) of the client's imports."""
    module, statement = IMPORTS[client]
    # A mark on stderr between the interpreter's own imports and the client's.
    code = "import sys; sys.stderr.write('<mark>\\n'); %s; print(sys.modules[%r].__file__)" % (statement, module)
    _, loaded, err = python("-X", "importtime", "-c", code)
    if client == "mcpsync" and loaded.strip() != mcpsync_file:
        raise BenchError("the child imported another mcpsync: %s" % loaded.strip())
    cumulative = 0
    for line in err.split("<mark>\n", 1)[1].splitlines():
        # "import time: <self us> | <cumulative us> | <name, indented one space more per level>"
        _, microseconds, name = line.split("|")
        if not name.startswith("  "):  # a top-level import: its cumulative time covers the nested ones
            cumulative += int(microseconds)
    bare = python("-c", "pass")[0]
    return cumulative / 1000, max(0.0, python("-c", statement)[0] - bare)


# -- sections -------------------------------------------------------------------


def run_calls(results, section, settings, server):
    """The stdio or http section: every row, the clients in turn, for the rounds."""
    calls = settings[section + "_calls"]
    for round_index in range(settings["rounds"]):
        t0 = time.perf_counter()
        for key, (target, scenario) in CASES[section].items():
            url = target if target in (STDIO, STDIO_MODERN) else server.url(target)
            for client in rotated(list(settings["clients"]), round_index):
                results.measure(client, [key, key + "_cpu"], measure, client, url, scenario, calls)
        log("%s round %d/%d: %.1f s" % (section, round_index + 1, settings["rounds"], time.perf_counter() - t0))


def warm_up(client):
    """One untimed run of each child: bytecode caches written, files in the page cache. No values."""
    fresh_client(client)
    python("-c", IMPORTS[client][1])
    return ()


def run_process(results, settings, mcpsync_file):
    """Start-up, peak RSS and import times, each client in fresh processes."""
    for client in settings["clients"]:
        results.measure(client, ["startup_ms"], warm_up, client)
    for round_index in range(settings["process_rounds"]):
        t0 = time.perf_counter()
        for client in rotated(list(settings["clients"]), round_index):
            results.measure(client, ["startup_ms", "rss_mb"], fresh_client, client)
            results.measure(client, ["import_ms", "import_wall_ms"], import_times, client, mcpsync_file)
        log("process round %d/%d: %.1f s" % (round_index + 1, settings["process_rounds"], time.perf_counter() - t0))


VALIDATION_MESSAGES = {
    "tools/call response": {"jsonrpc": "2.0", "id": 42, "result": {"content": [{"type": "text", "text": "hi"}]}},
    "progress notification": {
        "jsonrpc": "2.0",
        "method": "notifications/progress",
        "params": {"progressToken": "t", "progress": 1, "total": 3},
    },
    "error response": {"jsonrpc": "2.0", "id": 7, "error": {"code": -32601, "message": "Method not found"}},
}


def per_message_us(validate, message, count):
    """Median of 5 runs of `count` validations, in µs per message."""
    runs = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(count):
            validate(message)
        runs.append(1e6 * (time.perf_counter() - t0) / count)
    return statistics.median(runs)


def run_validation(settings):
    """{message: (fast µs, full µs)}: mcpsync's internal fast path, and the jsonschema validator it falls back to."""
    try:
        from mcpsync._core import envelope
    except ImportError:  # checkouts before the layered package
        from mcpsync import schema as envelope
    from jsonschema import Draft202012Validator

    full = Draft202012Validator(envelope.envelope_schema())
    count = settings["messages"]
    return {
        name: (per_message_us(envelope.validate, message, count), per_message_us(full.validate, message, count // 20))
        for name, message in VALIDATION_MESSAGES.items()
    }


# -- output ---------------------------------------------------------------------


def machine():
    """One line: date, CPU, cores, Python, OS, load."""
    cpu = platform.processor() or platform.machine()
    if os.path.exists("/proc/cpuinfo"):
        with open("/proc/cpuinfo") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), cpu)
    return "%s | %s, %d cores | %s %s | %s | load %.2f %.2f %.2f" % (
        datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        cpu,
        os.cpu_count(),
        platform.python_implementation(),
        platform.python_version(),
        platform.platform(),
        *os.getloadavg(),
    )


def git_commit(path):
    """' (git <commit>)' of the checkout that holds `path`, '+ edits' if its files differ; '' outside git."""
    where = os.path.dirname(path)
    try:
        git = ["git", "-C", where]
        head = subprocess.run([*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True, timeout=10)
        edits = subprocess.run([*git, "status", "--porcelain", "."], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    if head.returncode:
        return ""
    return " (git %s%s)" % (head.stdout.strip(), " + edits" if edits.stdout.strip() else "")


def fmt(value, unit):
    if value is None:
        return "—"
    return f"{value:,.0f}" if unit == "rate" or value >= 100 else f"{value:,.1f}"


def table(results):
    lines = [
        "| scenario | raw | floor | official SDK | mcpsync | mcpsync/raw | mcpsync/floor | mcpsync/official |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for key, label, unit in ROWS:
        if key not in results.samples and not any(k == key for _, k in results.failed):
            continue  # its section was not run
        values = [fmt(results.median(key, client), unit) for client in CLIENTS]
        ratios = [results.ratio(key, other) for other in OTHERS]
        if key.startswith("import"):
            ratios[:2] = [None, None]  # raw and the floor import a few stdlib modules: a ratio to that says nothing
        cells = values + ["—" if r is None else "%.2f×" % r for r in ratios]
        lines.append("| %s | %s |" % (label, " | ".join(cells)))
    return lines


def targets(results):
    """[(label, measured, verdict)] for the targets whose rows were run."""
    checked = []
    for label, key, other, comparison, bound in TARGETS:
        if key not in results.samples:
            continue
        value = results.median(key, "mcpsync") if other is None else results.ratio(key, other)
        if value is None:
            checked.append((label, "—", "n/a"))
            continue
        met = value >= bound if comparison == ">=" else value < bound
        checked.append((label, "%.1f ms" % value if other is None else "%.2f×" % value, "PASS" if met else "MISS"))
    return checked


def heading(meta):
    """What the numbers come from: the machine, the mcpsync imported (and from where), the command."""
    return "Machine: %(machine)s\nmcpsync %(mcpsync)s from %(mcpsync_file)s; %(peers)s\nCommand: %(command)s" % meta


def run_memory(settings):
    """{path: {"tracemalloc": x, "rss": y}} from ``message_memory.py`` (each path in fresh processes)."""
    here = os.path.dirname(os.path.abspath(__file__))
    done = subprocess.run(
        [sys.executable, os.path.join(here, "message_memory.py"), "--json", "--mib", str(settings["mib"])],
        capture_output=True,
        text=True,
        check=True,
        timeout=1200,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def report(results, validation, problems, meta, memory=None):
    lines = ["Medians of %s." % meta["rounds"], ""]
    if results.samples:
        lines += table(results)
        lines += [
            "",
            "¹ raw: 16 threads sharing the client under one lock; floor and mcpsync: 16 threads sharing one "
            "client; official SDK: 16 asyncio tasks (it has no thread-safe synchronous client).",
            "",
            "| target | mcpsync measured | |",
            "|---|---:|---|",
        ]
        lines += ["| %s | %s | %s |" % row for row in targets(results)]
    if validation:
        lines += ["", "| envelope validation | mcpsync fast path (µs) | full jsonschema (µs) | full/fast |"]
        lines += ["|---|---:|---:|---:|"]
        for name, (fast, full) in validation.items():
            lines.append("| %s | %.2f | %.1f | %.0f× |" % (name, fast, full, full / fast))
    if memory:
        lines += ["", "| one large message (%s MiB) | peak per MiB (tracemalloc) | peak RSS growth per MiB | ≤ %g× |"]
        lines[-1] = lines[-1] % (meta["mib"], MEMORY_TARGET)
        lines += ["|---|---:|---:|---|"]
        for path, row in memory.items():
            verdict = "PASS" if row["tracemalloc"] <= MEMORY_TARGET else "MISS"
            lines.append("| %s | %.2f× | %.2f× | %s |" % (path, row["tracemalloc"], row["rss"], verdict))
    lines += ["", *("- %s" % problem for problem in problems), "Whole run: %d s." % meta["seconds"]]
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="few calls and rounds: a smoke test, not for quoting")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--only", default=",".join(SECTIONS), help="a subset of " + ",".join(SECTIONS))
    parser.add_argument("--clients", default=",".join(CLIENTS), help="a subset of " + ",".join(CLIENTS))
    args = parser.parse_args(argv)
    only = [s.strip() for s in args.only.split(",") if s.strip()]
    if not only or set(only) - set(SECTIONS):
        parser.error("--only takes a subset of " + ",".join(SECTIONS))
    clients = [c for c in CLIENTS if c in {s.strip() for s in args.clients.split(",")}]
    if not clients or {s.strip() for s in args.clients.split(",") if s.strip()} - set(CLIENTS):
        parser.error("--clients takes a subset of " + ",".join(CLIENTS))
    settings = {**(QUICK if args.quick else FULL), "clients": clients}

    meta = {
        "machine": machine(),
        "mcpsync": mcpsync.__version__ + git_commit(mcpsync.__file__),
        "mcpsync_file": mcpsync.__file__,
        "peers": "mcp %s, requests %s" % (version("mcp"), version("requests")),
        "command": " ".join([os.path.relpath(sys.executable), "benchmarks/run.py", *(argv or sys.argv[1:])]),
        "rounds": "%(rounds)d rounds (stdio: %(stdio_calls)d calls, HTTP: %(http_calls)d calls), "
        "%(process_rounds)d fresh processes" % settings,
        "mib": settings["mib"],
    }
    print(heading(meta) + "\n", file=sys.stderr if args.json else sys.stdout, flush=True)
    started = time.perf_counter()
    results, validation, memory, server = Results(), {}, {}, None
    try:
        if "stdio" in only:
            run_calls(results, "stdio", settings, None)
        if "http" in only:
            server = peers.HTTPServer()
            run_calls(results, "http", settings, server)
        if "process" in only:
            run_process(results, settings, mcpsync.__file__)
        if "validation" in only:
            try:
                validation = run_validation(settings)
            except Exception as exc:  # e.g. a checkout without the fast path
                results.problems.append("validation: " + describe(exc))
        if "memory" in only:
            try:
                memory = run_memory(settings)
            except Exception as exc:
                results.problems.append("memory: " + describe(exc))
    finally:
        if server is not None:
            server.close()
    problems = results.problems + peers.kill_leftovers()
    meta["seconds"] = round(time.perf_counter() - started)
    if args.json:
        medians = {key: {c: results.median(key, c) for c in CLIENTS} for key in results.samples}
        out = {"meta": meta, "medians": medians, "samples": results.samples, "targets": targets(results)}
        out["memory_per_mib"] = memory
        print(json.dumps({**out, "validation_us": validation, "problems": problems}, indent=2, ensure_ascii=False))
    else:
        print(report(results, validation, problems, meta, memory))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
