"""Servers started on first use: the time from ``Manager(...)`` to the first tool result, and what the tools cost.

    python benchmarks/lazy_start.py [--rounds 7] [--servers 10] [--tools 200] [--json]

A synthetic configuration: ``--servers`` copies of mcpsync's test server over stdio, each told to
offer its share of ``--tools`` made-up tools (``python -m mcpsync.testing --tools N --tool-prefix
P``: names such as ``crm_list_customers``, a sentence of description, an input schema of a real
API's kind). The tool cache is warmed once, before the rounds, by an eager manager over the same
configuration (it writes every server's list to a cache file of this run), so every manager
below reads the same fresh cache.

Each round, in turn (the order changes every round, so neither gets the warmer machine):

eager         ``Manager(config)`` as by default (``start="eager"``: every server started at
              once, the constructor waits for them, up to its ``startup_timeout`` of 3 s), then one call
eager, no wait  the same with ``startup_timeout=0``: the call waits for its own server alone, while
              the nine others start beside it
lazy          ``Manager(config, start="lazy")``: no server started; the call starts its own

The figure is the time from the constructor's call to the call's result (closing is not counted);
the medians of the rounds, and eager / lazy as a ratio (target: at least 5 times). Then the size of every
tool definition a model is handed per turn without a search: the JSON of
``ToolBox(manager).openai()``, in characters and in tokens estimated as characters / 4.

The exit status is 1 if a call gave a wrong answer or a server process was left behind.
"""

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import mcpsync

ROOT = Path(__file__).resolve().parents[1]
#: The servers' names (and their tools' prefixes), as a user's ten might be.
NAMES = ("tracker", "crm", "docs", "billing", "calendar", "chat", "deploy", "files", "alerts", "reports")
STARTUP_TIMEOUT = 60.0
CALL_TIMEOUT = 60.0
TARGET = 5.0


def configuration(servers: int, tools: int) -> dict:
    """``servers`` test servers sharing ``tools`` made-up tools, as an ``mcpServers`` document."""
    names = [NAMES[i] if i < len(NAMES) else f"server{i}" for i in range(servers)]
    shares = [tools // servers + (1 if i < tools % servers else 0) for i in range(servers)]
    # The servers run this checkout's mcpsync: from its directory, with its path (a server gets no PYTHONPATH of ours).
    environment = {"PYTHONPATH": str(ROOT)}
    entries = {
        name: {
            "command": sys.executable,
            "args": ["-m", "mcpsync.testing", "--tools", str(share), "--tool-prefix", name],
            "cwd": str(ROOT),
            "env": environment,
            "stderr": "quiet",
        }
        for name, share in zip(names, shares)
    }
    return {"mcpServers": entries}


def first_result(config: dict, cache: Path, tool: str, **options) -> float:
    """Seconds from the manager's constructor to ``tool``'s result; the manager is closed after."""
    started = time.perf_counter()
    manager = mcpsync.Manager(config, tool_cache=cache, **options)
    try:
        result = manager.call_tool(tool, {"id": "42"}, timeout=CALL_TIMEOUT)
        took = time.perf_counter() - started
        if result.is_error or (result.structured_content or {}).get("arguments") != {"id": "42"}:
            raise SystemExit(f"wrong answer from {tool}: {result.raw}")
        return took
    finally:
        manager.close()


def definitions_size(config: dict, cache: Path) -> tuple[int, int]:
    """(tools, characters of the JSON of ``ToolBox(manager).openai()``), over a lazy manager (nothing started)."""
    with mcpsync.Manager(config, tool_cache=cache, start="lazy", startup_timeout=STARTUP_TIMEOUT) as manager:
        definitions = mcpsync.ToolBox(manager).openai()
        return len(definitions), len(json.dumps(list(definitions)))


def children() -> list[str]:
    """This process's child processes (Linux; elsewhere none are seen): each as "pid state command".

    Every thread's children: a server is the child of the supervisor thread that started it.
    """
    found = []
    for task in Path(f"/proc/{os.getpid()}/task").glob("*"):
        try:
            found.extend((task / "children").read_text().split())
        except OSError:
            continue
    described = []
    for pid in found:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().split()[2]
            command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue  # gone meanwhile
        described.append(f"{pid} {state} {command.strip()}")
    return described


def left_behind(wait: float = 5.0) -> list[str]:
    """The child processes still there after ``wait`` seconds at most (a server exiting may need a moment)."""
    deadline = time.monotonic() + wait
    while True:
        left = children()
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.1)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=7, help="rounds of each way (default 7)")
    parser.add_argument("--servers", type=int, default=10, help="servers in the configuration (default 10)")
    parser.add_argument("--tools", type=int, default=200, help="tools of all the servers together (default 200)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    config = configuration(args.servers, args.tools)
    first_server = next(iter(config["mcpServers"]))
    tool = f"{first_server}__{first_server}_get_issue"
    ways = {
        "eager": {},
        "eager, no wait": {"startup_timeout": 0},
        "lazy": {"start": "lazy"},
    }
    with tempfile.TemporaryDirectory(prefix="mcpsync-lazy-") as directory:
        cache = Path(directory) / "tools.json"
        warming = time.perf_counter()
        with mcpsync.Manager(config, tool_cache=cache, startup_timeout=STARTUP_TIMEOUT) as manager:
            states = {status.state for status in manager.status().values()}
            if states != {mcpsync.ServerState.CONNECTED}:
                raise SystemExit(f"the servers did not all start: {manager.status()}")
        warmed = time.perf_counter() - warming
        times: dict[str, list[float]] = {way: [] for way in ways}
        for round_number in range(args.rounds):
            order = list(ways)[round_number % len(ways) :] + list(ways)[: round_number % len(ways)]
            for way in order:
                times[way].append(first_result(config, cache, tool, **ways[way]))
        count, characters = definitions_size(config, cache)
    medians = {way: statistics.median(values) for way, values in times.items()}
    ratio = medians["eager"] / medians["lazy"]
    left = left_behind()
    figures = {
        "mcpsync": mcpsync.__version__,
        "servers": args.servers,
        "tools": count,
        "rounds": args.rounds,
        "cache_warmed_in_s": round(warmed, 3),
        "first_result_s": {way: [round(v, 4) for v in values] for way, values in times.items()},
        "median_s": {way: round(value, 4) for way, value in medians.items()},
        "eager_over_lazy": round(ratio, 2),
        "eager_no_wait_over_lazy": round(medians["eager, no wait"] / medians["lazy"], 2),
        "definitions_characters": characters,
        "definitions_tokens_estimated": characters // 4,
        "left_running": left,
    }
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        print(f"mcpsync {mcpsync.__version__} at {Path(mcpsync.__file__).parent}")
        print(f"{args.servers} stdio servers, {count} tools; tool cache warmed by one eager start ({warmed:.2f} s)")
        print(f"\nfrom Manager(...) to the first tool result, {args.rounds} rounds, median:")
        for way, value in medians.items():
            spread = ", ".join(f"{v * 1000:.0f}" for v in times[way])
            print(f"  {way:<15} {value * 1000:8.1f} ms   ({spread} ms)")
        verdict = "meets" if ratio >= TARGET else "misses"
        print(f"  eager / lazy    {ratio:8.1f}×     ({verdict} the target of {TARGET:g}×)")
        print(f"  eager, no wait / lazy {medians['eager, no wait'] / medians['lazy']:.1f}×")
        print(f"\ntool definitions per turn (ToolBox(manager).openai(), {count} tools):")
        print(f"  {characters} characters of JSON, ~{characters // 4} tokens (characters / 4)")
        if left:
            print("\nchild processes left running:", *left, sep="\n  ")
    return 1 if left else 0


if __name__ == "__main__":
    sys.exit(main())
