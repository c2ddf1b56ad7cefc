"""Every benchmark in one run, then one summary: mcpsync vs the official SDK vs a raw client, and the targets.

Usage::

    python benchmarks/bench_all.py [--quick] [--no-validation] [--json]

Runs, one after the other, in this process:

1. ``bench_stdio.py``: sequential, 100 in flight, 16 callers, over stdio
   (``minimal_server.py``);
2. ``bench_http.py``: sequential and 10 in flight over Streamable HTTP
   (``minimal_http_server.py``), JSON and SSE replies;
3. ``bench_process.py``: start-up to the first result in a fresh process,
   import cost, peak memory;
4. ``bench_validation.py`` (a child process): what envelope validation costs.

Each prints its own table as it finishes. The scenarios are measured in
rounds, the clients interleaved in every round (their order rotated, so
drift in a shared machine's load hits them alike), and every number in the
summary is a median over the rounds; a ratio is mcpsync's median divided by
the other's. The summary starts with the machine (CPU model, cores, Python,
date), then the table, then each target of issue #7 with PASS or MISS next
to the measured ratio. The import target is checked on the import's own
time, measured inside a fresh interpreter (what ``-X importtime`` adds up);
the wall-time difference to ``python -c pass`` is shown too, and also
carries the interpreter's extra work at exit and the machine's noise.

``--quick`` runs fewer calls and rounds (a smoke test, not for quoting).
The exit status is 1 if a client gave a wrong answer or failed, or a child
process was left behind; a missed target is reported, not an error.
"""

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import bench_http  # noqa: E402
import bench_process  # noqa: E402
import bench_stdio  # noqa: E402
from benchlib import CLIENTS, REPO, clean_up_children, official_version  # noqa: E402

# (label, section, key, other client, comparison, bound): mcpsync/other must be >= or <= the bound,
# or for "import" the mcpsync value itself in ms.
TARGETS = [
    ("stdio sequential ≥ 0.5× raw", "stdio", "sequential", "raw", ">=", 0.5),
    ("stdio sequential ≥ 4× official", "stdio", "sequential", "official", ">=", 4.0),
    ("stdio 100 in flight ≥ 0.7× raw", "stdio", "inflight", "raw", ">=", 0.7),
    ("stdio 100 in flight ≥ 10× official", "stdio", "inflight", "official", ">=", 10.0),
    ("import mcpsync < 80 ms (timed inside a fresh interpreter)", "process", "import_in_process_ms", None, "<", 80.0),
    ("start-up to first result < 1/5 of official", "process", "startup_ms", "official", "<", 0.2),
    ("peak RSS < 1/2 of official", "process", "rss_mb", "official", "<", 0.5),
    ("HTTP sequential, JSON replies ≥ 2× official", "http", "sequential_json", "official", ">=", 2.0),
    ("HTTP sequential, SSE replies ≥ 2× official", "http", "sequential_sse", "official", ">=", 2.0),
]

# (label, section, key, unit kind): the summary's rows.
SUMMARY_ROWS = [
    ("stdio sequential (calls/s)", "stdio", "sequential", "rate"),
    ("stdio 100 in flight (calls/s)", "stdio", "inflight", "rate"),
    ("stdio 16 callers (calls/s) ¹", "stdio", "threads", "rate"),
    ("stdio sequential: client CPU (µs/call)", "stdio", "sequential_cpu_us_per_call", "time"),
    ("HTTP sequential, JSON replies (calls/s)", "http", "sequential_json", "rate"),
    ("HTTP sequential, SSE replies (calls/s)", "http", "sequential_sse", "rate"),
    ("HTTP 10 in flight, JSON replies (calls/s)", "http", "inflight_json", "rate"),
    ("HTTP 10 in flight, SSE replies (calls/s)", "http", "inflight_sse", "rate"),
    ("HTTP sequential, JSON: client CPU (µs/call)", "http", "sequential_json_cpu_us_per_call", "time"),
    ("start-up to first result, fresh process (ms)", "process", "startup_ms", "time"),
    ("import cost: wall time over `python -c pass` (ms)", "process", "import_ms", "time"),
    ("import cost: timed inside the interpreter (ms)", "process", "import_in_process_ms", "time"),
    ("peak RSS, connect + 1000 calls (MB)", "process", "rss_mb", "time"),
]


# --------------------------------------------------------------------------
# the machine
# --------------------------------------------------------------------------


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine_facts():
    """What the README quotes with the numbers: CPU, cores, memory, Python, versions, date, load."""
    try:
        usable = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        usable = os.cpu_count()
    try:
        load = "%.2f %.2f %.2f" % os.getloadavg()
    except OSError:
        load = "?"
    memory = "?"
    try:
        with open("/proc/meminfo") as f:
            memory = "%.1f GB" % (int(f.readline().split()[1]) / 1024 / 1024)
    except (OSError, ValueError, IndexError):
        pass
    sys.path.insert(0, REPO)
    import mcpsync

    try:
        mcp = official_version()
    except Exception:
        mcp = "not installed"
    return {
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "usable_cores": usable,
        "memory": memory,
        "python": "%s %s" % (platform.python_implementation(), platform.python_version()),
        "platform": platform.platform(),
        "mcpsync": mcpsync.__version__,
        "mcp": mcp,
        "load_average_at_start": load,
    }


def facts_line(facts):
    return "%s | %s, %s cores (%s usable), %s RAM | %s | %s | mcpsync %s, mcp %s | load at start %s" % (
        facts["date"],
        facts["cpu"],
        facts["cores"],
        facts["usable_cores"],
        facts["memory"],
        facts["python"],
        facts["platform"],
        facts["mcpsync"],
        facts["mcp"],
        facts["load_average_at_start"],
    )


# --------------------------------------------------------------------------
# the runs
# --------------------------------------------------------------------------


def log(message):
    print(message, file=sys.stderr, flush=True)


def run_stdio(quick):
    argv = ["--median", "--no-import", "--startup-runs", "3"]
    argv += ["--calls", "500", "--repeat", "2"] if quick else ["--calls", "2000", "--repeat", "5"]
    args = bench_stdio.parse_args(argv)
    data = bench_stdio.run(args)
    print(bench_stdio.markdown(data) + "\n", flush=True)
    return data


def run_http(quick):
    argv = ["--median"] + (["--calls", "200", "--repeat", "2"] if quick else ["--calls", "1000", "--repeat", "3"])
    args = bench_http.parse_args(argv)
    servers = {}
    try:
        for mode in args.modes:
            servers[mode] = bench_http.ServerProcess(mode, args.timeout)
        data = bench_http.run(args, servers)
    finally:
        for server in servers.values():
            server.close()
    print(bench_http.markdown(data) + "\n", flush=True)
    return data


def run_process(quick):
    args = bench_process.parse_args(["--runs", "3" if quick else "7"])
    data = bench_process.run(args)
    print(bench_process.markdown(data) + "\n", flush=True)
    return data


def run_validation(quick):
    argv = [sys.executable, os.path.join(HERE, "bench_validation.py")]
    if quick:
        argv += ["--messages", "2000", "--calls", "300"]
    result = subprocess.run(argv, cwd=REPO, capture_output=True, text=True, timeout=600)
    text = (result.stdout + result.stderr).strip()
    print("envelope validation (bench_validation.py)\n\n" + text + "\n", flush=True)
    return {"exit_status": result.returncode, "output": text}


# --------------------------------------------------------------------------
# the summary
# --------------------------------------------------------------------------


def samples(results, section, client, key):
    entry = results[section]["clients"][client]
    value = entry.get(key) if entry["status"] == "ok" else None
    return list(value["samples"]) if value else []


def median_value(results, section, client, key):
    found = samples(results, section, client, key)
    return statistics.median(found) if found else None


def ratio(results, section, key, other):
    """mcpsync ÷ other, of the medians (as in the scenario tables above the summary)."""
    mine, theirs = median_value(results, section, "mcpsync", key), median_value(results, section, other, key)
    if mine is None or not theirs:
        return None
    return mine / theirs


def fmt(value, kind):
    if value is None:
        return "—"
    if kind == "rate":
        return f"{value:,.0f}"
    return f"{value:,.1f}" if value < 100 else f"{value:,.0f}"


def summary_table(results):
    lines = [
        "| scenario | raw | official SDK | mcpsync | mcpsync/raw | mcpsync/official |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for label, section, key, kind in SUMMARY_ROWS:
        if section not in results:
            continue
        values = [fmt(median_value(results, section, client, key), kind) for client in CLIENTS]
        ratios = []
        for other in ("raw", "official"):
            r = ratio(results, section, key, other)
            ratios.append("—" if r is None or (key.startswith("import") and other == "raw") else "%.2f×" % r)
        lines.append("| %s | %s |" % (label, " | ".join(values + ratios)))
    return lines


def check_targets(results):
    """[(label, measured text, verdict)] for every target whose section ran."""
    checked = []
    for label, section, key, other, comparison, bound in TARGETS:
        if section not in results:
            continue
        if other is None:
            value = median_value(results, section, "mcpsync", key)
            measured = "—" if value is None else "%.1f ms" % value
        else:
            value = ratio(results, section, key, other)
            measured = "—" if value is None else "%.2f×" % value
        if value is None:
            verdict = "n/a"
        elif comparison == ">=":
            verdict = "PASS" if value >= bound else "MISS"
        else:
            verdict = "PASS" if value < bound else "MISS"
        checked.append((label, measured, verdict))
    return checked


def summary(results, facts, seconds):
    lines = [
        "## mcpsync benchmark summary",
        "",
        "Machine: " + facts_line(facts),
        "",
        "Medians over interleaved rounds (stdio: %s rounds of %s calls; HTTP: %s rounds of %s calls; "
        "process: %s fresh processes each); ratios are mcpsync's median ÷ the other's. Whole run: %.0f s."
        % (
            results.get("stdio", {}).get("meta", {}).get("repeat", "—"),
            results.get("stdio", {}).get("meta", {}).get("calls", "—"),
            results.get("http", {}).get("meta", {}).get("repeat", "—"),
            results.get("http", {}).get("meta", {}).get("calls", "—"),
            results.get("process", {}).get("meta", {}).get("runs", "—"),
            seconds,
        ),
        "",
        *summary_table(results),
        "",
        "¹ 16 callers sharing one client: raw = 16 threads serialised by one lock; official = 16 asyncio tasks "
        "on one event loop (it has no thread-safe synchronous client); mcpsync = 16 threads.",
        "",
        "| target (issue #7) | measured | verdict |",
        "|---|---:|---|",
    ]
    for label, measured, verdict in check_targets(results):
        lines.append("| %s | %s | %s |" % (label, measured, verdict))
    return "\n".join(lines)


def failed(results):
    for section, data in results.items():
        if section == "validation":
            if data["exit_status"] != 0:
                return True
            continue
        if data.get("warnings"):
            return True
        if any(entry["errors"] for entry in data["clients"].values() if entry["status"] == "ok"):
            return True
    return False


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer calls and rounds: a smoke test")
    parser.add_argument("--no-validation", action="store_true", help="skip bench_validation.py")
    parser.add_argument("--json", action="store_true", help="also write every number as JSON to this file's stdout")
    args = parser.parse_args(argv)
    facts = machine_facts()
    print("Machine: " + facts_line(facts) + "\n", flush=True)
    started = time.perf_counter()
    results = {}
    for section, run in (("stdio", run_stdio), ("http", run_http), ("process", run_process)):
        log("== %s" % section)
        results[section] = run(args.quick)
    if not args.no_validation:
        log("== validation")
        results["validation"] = run_validation(args.quick)
    leftovers = clean_up_children()
    print(summary(results, facts, time.perf_counter() - started), flush=True)
    for warning in leftovers:
        print("- WARNING: %s" % warning)
    if args.json:
        print(json.dumps({"machine": facts, "results": results}, indent=2, ensure_ascii=False, default=str))
    return 1 if failed(results) or leftovers else 0


if __name__ == "__main__":
    sys.exit(main())
