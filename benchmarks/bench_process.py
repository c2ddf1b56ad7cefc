"""What a program pays before and around its calls: start-up, import time, peak memory.

Usage::

    python benchmarks/bench_process.py [--runs N] [--calls C] [--clients raw,official,mcpsync] [--json]

Every number comes from fresh processes, so nothing is warm:

start-up to first result
    Wall time from starting ``python benchmarks/process_child.py CLIENT
    startup`` to reading its ``ok`` line: the interpreter starts, imports
    the client, starts ``minimal_server.py``, initializes and gets the
    first ``echo`` result (median of N runs).
import cost
    The wall time of ``python -c "<import>"`` minus that of a ``python -c
    pass`` started just before it, median of N such pairs (raw: ``import
    json, subprocess``; official: ``from mcp.client import Client`` and its
    stdio parameters; mcpsync: ``import mcpsync``); it includes the extra
    work at interpreter exit. Next to it the import alone, timed with
    ``perf_counter`` inside the child. A ``-X importtime`` run names the
    modules that cost mcpsync the most.
peak memory
    The peak RSS (``VmHWM``) of a child that connects and makes C sequential calls
    (default 1000), the server not included (median of min(N, 3) runs); a
    bare interpreter is shown for scale.

The clients take turns in every run (their order rotated), so drift in the
machine's load hits them alike. One untimed run of each client comes first
(bytecode caches written, files in the page cache). Ratios are mcpsync ÷ other: below 1 means
mcpsync is cheaper.
"""

import argparse
import os
import select
import statistics
import subprocess
import sys
import time

from benchlib import (
    CLIENTS,
    REPO,
    choose_subset,
    clean_up_children,
    describe,
    logger,
    machine,
    new_data,
    official_version,
    page,
    report,
    require_positive,
    rotated,
    summarise,
    table,
)
from benchlib import cell_value as table_cell

HERE = os.path.dirname(os.path.abspath(__file__))
CHILD = os.path.join(HERE, "process_child.py")
CHILD_TIMEOUT = 120.0
#: The children's environment: ours, but allowed to write bytecode caches, so that after the
#: warm-up run every import loads a .pyc as it would from an installed package (a checkout being
#: edited, under PYTHONDONTWRITEBYTECODE, would otherwise compile changed modules every time).
CHILD_ENV = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}

IMPORTS = {
    "raw": "import json, subprocess",
    "official": "from mcp.client import Client; from mcp.client.stdio import StdioServerParameters",
    "mcpsync": "import mcpsync",
}


def child(client, task, calls=0):
    """Run process_child.py; return (seconds until its first line, all its output). Bounded."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, CHILD, client, task, str(calls)],
        cwd=REPO,
        env=CHILD_ENV,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        fd = proc.stdout.fileno()
        first = None
        data = b""
        deadline = time.monotonic() + CHILD_TIMEOUT
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([fd], [], [], remaining)[0]:
                raise TimeoutError("%s %s: no output within %ss" % (client, task, CHILD_TIMEOUT))
            chunk = os.read(fd, 4096)
            if not chunk:
                break
            data += chunk
            if first is None and b"\n" in data:
                first = time.perf_counter() - t0
        code = proc.wait(CHILD_TIMEOUT)
        errors = proc.stderr.read().decode(errors="replace")
        if code != 0 or first is None:
            raise RuntimeError("%s %s exited with %s: %s" % (client, task, code, errors.strip()[-500:]))
        return first, data.decode()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
        proc.stdout.close()
        proc.stderr.close()


def startup_ms(client):
    seconds, output = child(client, "startup")
    if not output.startswith("ok"):
        raise RuntimeError("%s: unexpected output %r" % (client, output[:200]))
    return seconds * 1000


def peak_rss_mb(client, calls):
    _, output = child(client, "memory", calls)
    for line in output.splitlines():
        if line.startswith("maxrss "):
            return int(line.split()[1]) / 1024
    raise RuntimeError("%s: no maxrss line in %r" % (client, output[:200]))


def interpreter_ms(statement):
    t0 = time.perf_counter()
    subprocess.run(
        [sys.executable, "-c", statement],
        cwd=REPO,
        env=CHILD_ENV,
        check=True,
        timeout=CHILD_TIMEOUT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return (time.perf_counter() - t0) * 1000


def in_process_import_ms(statement):
    """The import's own time, timed inside a fresh interpreter (no start-up, no exit)."""
    timed = "import time as _t; _s = _t.perf_counter(); %s; print((_t.perf_counter() - _s) * 1000)" % statement
    result = subprocess.run(
        [sys.executable, "-c", timed],
        cwd=REPO,
        env=CHILD_ENV,
        check=True,
        timeout=CHILD_TIMEOUT,
        capture_output=True,
        text=True,
    )
    return float(result.stdout.split()[-1])


def import_breakdown(top=6):
    """The mcpsync modules with the largest cumulative import time (µs), from one ``-X importtime`` run."""
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import mcpsync"],
        cwd=REPO,
        env=CHILD_ENV,
        capture_output=True,
        text=True,
        timeout=CHILD_TIMEOUT,
    )
    rows = []
    for line in result.stderr.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and parts[2].strip().startswith("mcpsync"):
            try:
                rows.append((int(parts[1]), int(parts[0].split(":")[1]), parts[2].strip()))
            except ValueError:
                continue
    rows.sort(reverse=True)
    return rows[:top]


def available(name):
    if name == "official":
        try:
            return True, "mcp %s" % official_version()
        except Exception as exc:
            return False, "mcp not installed: %s" % describe(exc)
    return True, ""


def run(args):
    log = logger(args)
    data = new_data(runs=args.runs, calls=args.calls, statistic="median of runs")
    names = []
    for name in CLIENTS:
        entry = {"status": "not requested", "note": "", "errors": {}}
        data["clients"][name] = entry
        if name in args.clients:
            ok, note = available(name)
            entry.update(status="ok" if ok else "skipped", note=note)
            if ok:
                names.append(name)
    samples = {name: {"startup_ms": [], "import_ms": [], "import_in_process_ms": [], "rss_mb": []} for name in names}
    bare = {"import": [], "rss": []}
    memory_runs = min(args.runs, 3)
    for name in names:  # warm-up, untimed: bytecode caches written, files in the page cache
        try:
            child(name, "startup")
        except Exception as exc:
            data["clients"][name]["errors"]["warm-up"] = describe(exc)
            log("%s: warm-up failed: %s" % (name, describe(exc)))
    for run_index in range(args.runs):
        t0 = time.perf_counter()
        for name in rotated(names, run_index):
            errors = data["clients"][name]["errors"]
            measures = {"startup_ms": (startup_ms, name), "rss_mb": (peak_rss_mb, name, args.calls)}
            if run_index >= memory_runs:
                del measures["rss_mb"]
            for key, (measure, *measure_args) in measures.items():
                if key in errors:
                    continue
                try:
                    value = measure(*measure_args)
                except Exception as exc:
                    errors[key] = describe(exc)
                    log("%s: %s failed: %s" % (name, key, errors[key]))
                    continue
                samples[name][key].append(value)
        if run_index < memory_runs:
            bare["rss"].append(peak_rss_mb("bare", 0))
        log("run %d/%d: %.1fs" % (run_index + 1, args.runs, time.perf_counter() - t0))
    # Imports apart, after the heavier children (and their servers) are gone: each import run is
    # paired with a bare interpreter started right before it, and the pair's difference counts.
    t0 = time.perf_counter()
    for run_index in range(args.runs):
        for name in rotated(names, run_index):
            errors = data["clients"][name]["errors"]
            if "import_ms" in errors:
                continue
            try:
                bare_ms = interpreter_ms("pass")
                samples[name]["import_ms"].append(max(0.0, interpreter_ms(IMPORTS[name]) - bare_ms))
                samples[name]["import_in_process_ms"].append(in_process_import_ms(IMPORTS[name]))
            except Exception as exc:
                errors["import_ms"] = describe(exc)
                log("%s: import_ms failed: %s" % (name, errors["import_ms"]))
                continue
            bare["import"].append(bare_ms)
    log("import runs: %.1fs" % (time.perf_counter() - t0))
    data["meta"]["bare_interpreter_ms"] = statistics.median(bare["import"]) if bare["import"] else None
    data["meta"]["bare_rss_mb"] = statistics.median(bare["rss"]) if bare["rss"] else None
    for name in names:
        entry = data["clients"][name]
        for key in samples[name]:
            entry[key] = summarise(samples[name][key], statistics.median)
    if "mcpsync" in names and not args.no_breakdown:
        data["meta"]["mcpsync_import_breakdown_us"] = import_breakdown()
    data["warnings"].extend(clean_up_children())
    return data


ROWS = [
    ("startup_ms", "start-up to first result, fresh process (ms)", "time"),
    ("import_ms", "import cost over a bare interpreter (ms)", "time"),
    ("import_in_process_ms", "import time inside the interpreter (ms)", "time"),
    ("rss_mb", "peak RSS, connect + {C} calls (MB)", "time"),
]


def no_import_ratio_to_raw(lines):
    """Blank the mcpsync/raw ratio of the import rows: raw imports two stdlib modules, a ratio to that says nothing."""
    out = []
    for line in lines:
        if line.startswith("| import"):
            cells = line.split(" | ")
            cells[-2] = "—"
            line = " | ".join(cells)
        out.append(line)
    return out


def markdown(data):
    meta = data["meta"]
    heading = "mcpsync process benchmark — %s | N=%d runs, median | memory: connect + %d calls, median of %d" % (
        machine(meta),
        meta["runs"],
        meta["calls"],
        min(meta["runs"], 3),
    )
    rows = [(key, label.format(C=meta["calls"]), kind) for key, label, kind in ROWS]
    lines = [
        "- bare interpreter: `python -c pass` %.1f ms; peak RSS %s MB"
        % (meta["bare_interpreter_ms"], "%.1f" % meta["bare_rss_mb"] if meta.get("bare_rss_mb") else "?")
    ]
    breakdown = meta.get("mcpsync_import_breakdown_us")
    if breakdown:
        lines.append(
            "- `import mcpsync`, largest cumulative (self) times from `-X importtime`: "
            + ", ".join(
                "%s %.1f (%.1f) ms" % (module, cumulative / 1000, own / 1000) for cumulative, own, module in breakdown
            )
            + " (one run, with importtime's own overhead)"
        )
    for name in CLIENTS:
        entry = data["clients"][name]
        for key, message in entry["errors"].items():
            lines.append("- %s: error in %s: %s" % (name, key, message))
    lines.extend("- WARNING: %s" % w for w in data["warnings"])
    return page(
        heading,
        no_import_ratio_to_raw(table(rows, lambda client, key: table_cell(data["clients"][client], key, key))),
        "Ratios are mcpsync ÷ other: below 1 means mcpsync is cheaper.",
        lines,
    )


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", "-n", type=int, default=7, help="runs per number; median (default 7)")
    parser.add_argument("--calls", "-c", type=int, default=1000, help="calls of the memory workload (default 1000)")
    parser.add_argument("--clients", default=",".join(CLIENTS), help="comma-separated subset of raw,official,mcpsync")
    parser.add_argument("--no-breakdown", action="store_true", help="skip the -X importtime breakdown")
    parser.add_argument("--json", action="store_true", help="print the numbers as JSON instead of Markdown")
    args = parser.parse_args(argv)
    choose_subset(parser, args, "clients", CLIENTS)
    require_positive(parser, args, ("runs", "calls"))
    return args


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    return report(run(args), args.json, markdown)


if __name__ == "__main__":
    sys.exit(main())
