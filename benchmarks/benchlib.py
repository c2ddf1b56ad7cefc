"""Scaffolding shared by ``bench_stdio.py`` and ``bench_http.py``; measurement-neutral.

Answer checks, timing windows, the warm-up + timed loops of the sequential
and K-in-flight scenarios (synchronous and asyncio), the clients that both
benchmarks drive the same way, client selection, repeats with the client
order rotated, summaries, the Markdown table and notes, JSON output and the
exit status, and the clean-up of left-over child processes.
"""

import asyncio
import collections
import datetime
import gc
import importlib
import json
import os
import platform
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
PROTOCOL_VERSION = "2025-11-25"

CLIENTS = ("raw", "official", "mcpsync")


class BenchError(Exception):
    """A client returned a wrong answer or misbehaved."""


def check_text(got, expected):
    if got != expected:
        raise BenchError("wrong echo: expected %r, got %r" % (expected, got))


def describe(exc):
    """One line for an exception; digs the first leaf out of (anyio/asyncio) exception groups."""
    while isinstance(getattr(exc, "exceptions", None), (list, tuple)) and exc.exceptions:
        exc = exc.exceptions[0]  # BaseExceptionGroup (3.11+) or the exceptiongroup backport
    return "%s: %s" % (type(exc).__name__, exc)


# --------------------------------------------------------------------------
# timing
# --------------------------------------------------------------------------


class Timer:
    """Wall and process-CPU time of one measured block (a full GC runs first unless collect=False)."""

    def __init__(self, collect=True):
        self.collect = collect

    def __enter__(self):
        if self.collect:
            gc.collect()
        self.cpu0 = time.process_time()
        self.t0 = time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.wall = time.perf_counter() - self.t0
        self.cpu = time.process_time() - self.cpu0
        return False


def measurement(calls, timer):
    return {"calls_per_s": calls / timer.wall, "cpu_us_per_call": 1e6 * timer.cpu / calls}


class Window:
    """The timed part of a measurement of `calls` calls; ``result`` is its measurement (if no exception)."""

    def __init__(self, calls):
        self.calls = calls

    def __enter__(self):
        self.timer = Timer().__enter__()
        return self

    def __exit__(self, *exc):
        self.timer.__exit__(*exc)
        if exc[0] is None:
            self.result = measurement(self.calls, self.timer)
        return False


def batches(total, size):
    start = 0
    while start < total:
        yield start, min(size, total - start)
        start += size


def measure_sync(scenario, cfg, call, call_batch, window=Window):
    """Warm up, then time cfg.calls calls of a sequential or in-flight scenario with a synchronous client.

    call(text) does one checked round trip; call_batch(texts) one batch of
    len(texts) requests in flight; window(calls) times the measured part and
    holds the result.
    """
    if scenario == "sequential":
        for i in range(cfg.warmup):
            call("w%d" % i)
        with window(cfg.calls) as timed:
            for i in range(cfg.calls):
                call("s%d" % i)
        return timed.result
    if scenario == "inflight":
        for start, size in batches(cfg.warmup, cfg.inflight):
            call_batch(["wp%d" % (start + j) for j in range(size)])
        with window(cfg.calls) as timed:
            for start, size in batches(cfg.calls, cfg.inflight):
                call_batch(["p%d" % (start + j) for j in range(size)])
        return timed.result
    raise ValueError(scenario)


async def measure_async(scenario, cfg, call, gather, window=Window):
    """measure_sync for an asyncio client: call(text) and gather(texts) are coroutine functions."""
    if scenario == "sequential":
        for i in range(cfg.warmup):
            await call("w%d" % i)
        with window(cfg.calls) as timed:
            for i in range(cfg.calls):
                await call("s%d" % i)
        return timed.result
    if scenario == "inflight":
        for start, size in batches(cfg.warmup, cfg.inflight):
            await gather(["wp%d" % (start + j) for j in range(size)])
        with window(cfg.calls) as timed:
            for start, size in batches(cfg.calls, cfg.inflight):
                await gather(["p%d" % (start + j) for j in range(size)])
        return timed.result
    raise ValueError(scenario)


# --------------------------------------------------------------------------
# what the clients send and get back
# --------------------------------------------------------------------------

RAW_INITIALIZE_PARAMS = {
    "protocolVersion": PROTOCOL_VERSION,
    "capabilities": {},
    "clientInfo": {"name": "raw-bench", "version": "0"},
}


def echo_params(text):
    """params of a ``tools/call echo`` request."""
    return {"name": "echo", "arguments": {"text": text}}


def check_initialize(result):
    if result.get("protocolVersion") != PROTOCOL_VERSION:
        raise BenchError("unexpected protocolVersion %r" % (result.get("protocolVersion"),))


def check_echo_result(result, text):
    """A raw ``tools/call echo`` result (a dict) must carry `text`."""
    if result.get("isError"):
        raise BenchError("tool error: %r" % (result,))
    check_text(result["content"][0]["text"], text)


def check_official_result(result, text):
    """An official SDK CallToolResult must carry `text`."""
    if result.is_error:
        raise BenchError("tool error: %r" % (result.content,))
    check_text(result.content[0].text, text)


def check_mcpsync_result(result, text):
    """An mcpsync tool result must carry `text`."""
    if getattr(result, "is_error", False):
        raise BenchError("tool error: %r" % (result,))
    check_text(result.text, text)


def official_callers(client):
    """call(text) and gather(texts) coroutine functions for an official SDK client, answers checked."""

    async def call(text):
        check_official_result(await client.call_tool("echo", {"text": text}), text)

    async def gather(texts):
        results = await asyncio.gather(*(client.call_tool("echo", {"text": t}) for t in texts))
        for result, text in zip(results, texts):
            check_official_result(result, text)

    return call, gather


def mcpsync_callers(client, timeout):
    """call(text) and call_batch(texts) for an mcpsync client: call_tool, and send_request futures."""

    def call(text):
        check_mcpsync_result(client.call_tool("echo", {"text": text}, timeout=timeout), text)

    def call_batch(texts):
        futures = [client.send_request("tools/call", echo_params(t)) for t in texts]
        for future, text in zip(futures, texts):
            check_echo_result(future.result(timeout=timeout), text)

    return call, call_batch


class Bench:
    """A client under test: ``available()`` says whether it can run, as (ok, note); ``measure()`` runs a scenario."""

    def __init__(self, timeout):
        self.timeout = timeout


def official_available(note, *imports):
    """(ok, note) for the official SDK: imports are (module, name) pairs; note has a %s for mcp's version."""
    try:
        for module, name in imports:
            getattr(importlib.import_module(module), name)
        version = official_version()
    except Exception as exc:  # ImportError, or a broken install
        return False, "import mcp failed: %s: %s" % (type(exc).__name__, exc)
    return True, note % version


def import_mcpsync():
    """mcpsync from this checkout (the repository root goes on sys.path)."""
    if REPO not in sys.path:
        sys.path.insert(0, REPO)
    import mcpsync

    return mcpsync


def official_version():
    from importlib.metadata import version

    return version("mcp")


# --------------------------------------------------------------------------
# the run: client selection, repeats, summaries
# --------------------------------------------------------------------------


def logger(args):
    """log(msg): progress on stderr, or nothing under --json."""
    return (lambda *a: None) if args.json else (lambda msg: print(msg, file=sys.stderr, flush=True))


def new_data(**meta):
    """The result skeleton: meta (machine first, then the given settings), clients, warnings."""
    return {
        "meta": {
            "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
            "python": platform.python_version(),
            "platform": platform.platform(),
            "cpu_count": os.cpu_count(),
            **meta,
        },
        "clients": {},
        "warnings": [],
    }


def choose_subset(parser, args, option, allowed):
    """Turn the comma-separated --option into a list in `allowed` order; parser.error on junk."""
    chosen = [c.strip() for c in getattr(args, option).split(",") if c.strip()]
    unknown = [c for c in chosen if c not in allowed]
    if unknown or not chosen:
        parser.error("--%s takes a subset of %s (got %r)" % (option, ",".join(allowed), getattr(args, option)))
    setattr(args, option, [c for c in allowed if c in chosen])


def require_positive(parser, args, names):
    for name in names:
        if getattr(args, name) < 1:
            parser.error("--%s must be at least 1" % name.replace("_", "-"))


def select_clients(data, args, classes, log):
    """An entry in data["clients"] for every client; the requested, importable ones' benches by name."""
    benches = {}
    for name in CLIENTS:
        entry = {"status": "not requested", "note": "", "errors": {}}
        data["clients"][name] = entry
        if name not in args.clients:
            continue
        bench = classes[name](args.timeout)
        ok, note = bench.available()
        entry["note"] = note
        entry["status"] = "ok" if ok else "skipped"
        if ok:
            benches[name] = bench
        log("%s: %s%s" % (name, "" if ok else "SKIPPED: ", note))
    return benches


def rotated(items, shift):
    """items rotated left by shift, so each repeat starts with a different client."""
    if not items:
        return []
    shift %= len(items)
    return items[shift:] + items[:shift]


def run_repeats(data, benches, repeat, keys, measure, log):
    """samples[name][key]: one measure(name, key) per repeat; the clients' order rotates every repeat.

    Key-major: the numbers that end up in one row are measured close
    together in time, so load drift hits all clients alike. A key that fails
    once is recorded in the client's errors and not measured again;
    measure() returning None means the key does not apply to that client.
    """
    samples = {name: collections.defaultdict(list) for name in benches}
    order = list(benches)
    for rep in range(repeat):
        t0 = time.perf_counter()
        for key in keys:
            for name in rotated(order, rep):
                errors = data["clients"][name]["errors"]
                if key in errors:
                    continue  # failed in an earlier repeat
                try:
                    sample = measure(name, key)
                except Exception as exc:
                    errors[key] = describe(exc)
                    log("%s: %s failed: %s" % (name, key, errors[key]))
                    continue
                if sample is not None:
                    samples[name][key].append(sample)
        log("repeat %d/%d: %.1fs" % (rep + 1, repeat, time.perf_counter() - t0))
    return samples


def summarise(samples, pick):
    if not samples:
        return None
    return {"value": pick(samples), "median": statistics.median(samples), "samples": samples}


def summarise_row(entry, key, samples, median=False):
    """entry[key] (calls/s: best, or median) and entry[key_cpu_us_per_call] (lowest, or median); returns
    the samples used.

    A key that failed reports no numbers, even from earlier repeats.
    """
    ms = [] if key in entry["errors"] else samples.get(key, [])
    entry[key] = summarise([m["calls_per_s"] for m in ms], statistics.median if median else max)
    lowest = statistics.median if median else min
    entry[key + "_cpu_us_per_call"] = summarise([m["cpu_us_per_call"] for m in ms], lowest)
    return ms


def statistic_name(args):
    """How a throughput row is summarised, for headings: "best of R" or "median of R"."""
    return "%s of %d" % ("median" if args.median else "best", args.repeat)


# --------------------------------------------------------------------------
# output
# --------------------------------------------------------------------------


def machine(meta):
    """The machine part of a heading: date | Python | platform | CPUs."""
    return "%s | Python %s | %s | %s CPUs" % (meta["date"], meta["python"], meta["platform"], meta["cpu_count"])


def page(heading, table_lines, legend, note_lines):
    """The Markdown report: heading, table, the ratio legend, the notes."""
    return "\n".join([heading, "", *table_lines, "", legend, *note_lines])


def cell_value(entry, key, error_key, not_applicable=False):
    """Number for a table cell, or a short string saying why there is none."""
    if entry["status"] == "not requested":
        return "—"
    if entry["status"] == "skipped":
        return "skipped"
    if not_applicable:
        return "n/a"
    if error_key in entry["errors"]:
        return "error"
    value = entry.get(key)
    return "—" if value is None else value["value"]


def fmt(value, kind):
    if isinstance(value, str):
        return value
    if kind == "rate":
        return f"{value:,.0f}"
    return f"{value:,.1f}" if value < 100 else f"{value:,.0f}"


def ratio(a, b):
    if isinstance(a, str) or isinstance(b, str) or b < 0.05:
        return "—"  # no number, or a denominator that displays as 0.0 (e.g. raw's stdlib-only import)
    return "%.2f×" % (a / b)


def table(rows, cell, skip_empty=False):
    """Markdown table lines: one row per (key, label, kind), cell(client, key) per client, then the ratios."""
    lines = [
        "| scenario | raw | official SDK | mcpsync | mcpsync/raw | mcpsync/official |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for key, label, kind in rows:
        raw, official, sync = (cell(c, key) for c in CLIENTS)
        if skip_empty and all(v in ("—", "skipped", "n/a") for v in (raw, official, sync)):
            continue  # no numbers at all, e.g. the import row under --no-import
        lines.append(
            "| %s | %s | %s | %s | %s | %s |"
            % (label, fmt(raw, kind), fmt(official, kind), fmt(sync, kind), ratio(sync, raw), ratio(sync, official))
        )
    return lines


def notes(data, error_order=None, extra=None):
    """Lines under the table: each requested client's note and errors (sorted by error_order if given),
    extra(name, entry)'s lines, then the warnings."""
    lines = []
    for name in CLIENTS:
        entry = data["clients"][name]
        if entry["status"] == "not requested":
            continue
        lines.append("- %s%s: %s" % (name, " (SKIPPED)" if entry["status"] == "skipped" else "", entry["note"]))
        errors = entry["errors"].items()
        if error_order is not None:
            errors = sorted(errors, key=lambda kv: error_order.index(kv[0]))
        for key, message in errors:
            lines.append("  - error in %s: %s" % (key, message))
        if extra is not None:
            lines.extend(extra(name, entry))
    for warning in data["warnings"]:
        lines.append("- WARNING: %s" % warning)
    return lines


def report(data, as_json, markdown):
    """Print the results (JSON, or markdown(data)); return the exit status: 1 on any error or warning."""
    if as_json:
        print(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        print(markdown(data))
    failed = any(entry["errors"] for entry in data["clients"].values() if entry["status"] == "ok") or bool(
        data["warnings"]
    )
    return 1 if failed else 0


# --------------------------------------------------------------------------
# left-over processes
# --------------------------------------------------------------------------


def child_processes():
    """(pid, state, cmdline) of this process's children, from /proc (Linux only)."""
    if not os.path.isdir("/proc"):
        return []
    me = os.getpid()
    children = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            if int(fields[1]) != me:
                continue
            with open("/proc/%s/cmdline" % entry, "rb") as f:
                cmdline = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
        except (OSError, IndexError, ValueError):
            continue
        children.append((int(entry), fields[0], cmdline))
    return children


def clean_up_children():
    """Reap or kill (by pid) any child this run left behind; return warnings."""
    warnings = []
    for pid, state, cmdline in child_processes():
        warnings.append("left-over child process %d (state %s): %s" % (pid, state, cmdline))
        try:
            if state != "Z":
                os.kill(pid, 9)
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline:
                if os.waitpid(pid, os.WNOHANG)[0] == pid:
                    break
                time.sleep(0.01)
        except (OSError, ChildProcessError):
            pass
    return warnings
