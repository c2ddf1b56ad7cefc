"""A tool search for the model (``ToolBox(..., search=True)``): what the tool definitions cost per turn
with and without it, and a scripted task that needs 3 of 200 tools done through it.

    python benchmarks/tool_search.py [--servers 10] [--tools 200] [--json]

The configuration of ``lazy_start.py``: ``--servers`` copies of mcpsync's test server over stdio,
sharing ``--tools`` made-up tools (``python -m mcpsync.testing --tools N --tool-prefix P``). Its
tool cache is warmed by one eager start; then a ``Manager(start="lazy")`` offers every tool from the
cache, with no server running.

Without a search, every turn hands the model the JSON of all the tools (``ToolBox(manager)``, each
format). With ``search=True`` an offline scripted model (Anthropic's Messages shape, as
``examples/llm_anthropic.py``'s fake model) does a task that needs three tools of three servers: for
each, it searches (``search_tools``), finds the tool among the definitions handed to it on the next
turn (it may call only those), and calls it. The figure is the characters of the definitions handed
to it on each turn of that run (tokens estimated as characters / 4), against the same without a
search; the target is at least 85 % fewer on every turn. The servers the task started are counted:
a search starts the servers of the tools it found (without waiting), a call its own if not yet started.

The exit status is 1 if the task did not complete, the target was missed, or a server was left running.
"""

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from lazy_start import STARTUP_TIMEOUT, configuration, left_behind

import mcpsync

TARGET = 0.85
FORMATS = ("openai", "openai-responses", "anthropic", "gemini")
#: The task: (what the model searches for, the tool it then calls, its arguments).
STEPS = (
    ("archive a project in the tracker", "tracker__tracker_archive_project", {"id": "7"}),
    ("export the billing issues as csv", "billing__billing_export_issues", {"format": "csv"}),
    ("assign a crm issue to a user", "crm__crm_assign_issue", {"id": "12", "assignee": "ana"}),
)


def size(definitions: list) -> int:
    return len(json.dumps(list(definitions)))


def scripted_model(messages: list, tools: list) -> dict:
    """A Messages API reply: for the next step not done, ``search_tools`` if its tool is not among ``tools``,
    else a call of it (with the tool's own name: only tools it was handed); then a closing answer."""
    handed = {tool["name"] for tool in tools}
    uses = [
        block for m in messages if m["role"] == "assistant" for block in m["content"] if block["type"] == "tool_use"
    ]
    done = sum(1 for use in uses if use["name"] != "search_tools")  # each call succeeded (run_task checks)
    if done == len(STEPS):
        return {"role": "assistant", "stop_reason": "end_turn", "content": [{"type": "text", "text": "All done."}]}
    query, tool, arguments = STEPS[done]
    if tool in handed:
        call = {"type": "tool_use", "id": f"toolu_{len(messages)}", "name": tool, "input": arguments}
    else:
        call = {"type": "tool_use", "id": f"toolu_{len(messages)}", "name": "search_tools", "input": {"query": query}}
    return {"role": "assistant", "stop_reason": "tool_use", "content": [call]}


def run_task(box: mcpsync.ToolBox) -> tuple[list[int], list[str], str, int]:
    """The scripted task through ``box``: (characters handed per turn, the calls made, the closing answer,
    the characters of the searches' answers, which enter the conversation once each)."""
    messages: list = [
        {"role": "user", "content": "Archive tracker project 7, export billing issues, assign crm issue 12."}
    ]
    per_turn, calls, answers = [], [], 0
    for _ in range(4 * len(STEPS)):
        tools = box.anthropic()  # asked again each turn: what a search found is handed from the next turn on
        per_turn.append(size(tools))
        reply = scripted_model(messages, tools)
        messages.append({"role": "assistant", "content": reply["content"]})
        uses = [block for block in reply["content"] if block["type"] == "tool_use"]
        if not uses:
            return per_turn, calls, reply["content"][0]["text"], answers
        results = []
        for use in uses:
            calls.append(use["name"])
            block = box.run(use)
            if block.get("is_error"):
                raise SystemExit(f"{use['name']} failed: {block}")
            if use["name"] == "search_tools":
                answers += len(block["content"][0]["text"])
            results.append(block)
        messages.append({"role": "user", "content": results})
    raise SystemExit(f"the task did not complete in {4 * len(STEPS)} turns: calls {calls}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--servers", type=int, default=10, help="servers in the configuration (default 10)")
    parser.add_argument("--tools", type=int, default=200, help="tools of all the servers together (default 200)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    config = configuration(args.servers, args.tools)
    with tempfile.TemporaryDirectory(prefix="mcpsync-search-") as directory:
        cache = Path(directory) / "tools.json"
        with mcpsync.Manager(config, tool_cache=cache, startup_timeout=STARTUP_TIMEOUT):
            pass
        with mcpsync.Manager(config, tool_cache=cache, start="lazy", startup_timeout=STARTUP_TIMEOUT) as manager:
            every = mcpsync.ToolBox(manager)
            without = {format: size(every.definitions(format)) for format in FORMATS}
            box = mcpsync.ToolBox(manager, search=True, timeout=STARTUP_TIMEOUT)
            first = {format: size(box.definitions(format)) for format in FORMATS}
            started = time.perf_counter()
            per_turn, calls, answer, answers = run_task(box)
            took = time.perf_counter() - started
            after = {format: size(box.definitions(format)) for format in FORMATS}
            running = sorted(n for n, s in manager.status().items() if s.state == mcpsync.ServerState.CONNECTED)
            count = len(every.names)
    left = left_behind()
    worst = max(per_turn)
    fewer = 1 - worst / without["anthropic"]
    completed = [c for c in calls if c != "search_tools"] == [tool for _, tool, _ in STEPS]
    figures = {
        "mcpsync": mcpsync.__version__,
        "servers": args.servers,
        "tools": count,
        "characters_without_search": without,
        "characters_with_search_first_turn": first,
        "characters_with_search_after_the_task": after,
        "task_characters_per_turn_anthropic": per_turn,
        "task_fewer_characters_worst_turn": round(fewer, 4),
        "task_search_answers_characters": answers,
        "task_calls": calls,
        "task_completed": completed,
        "task_seconds": round(took, 3),
        "servers_running_after_the_task": running,
        "left_running": left,
    }
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        print(f"mcpsync {mcpsync.__version__}: {args.servers} stdio servers, {count} tools (Manager(start='lazy'))")
        print("\ntool definitions per turn, characters of JSON (tokens ~ characters / 4):")
        print(f"  {'format':<18}{'every tool':>12}{'search, 1st turn':>18}{'after the task':>16}")
        for format in FORMATS:
            print(f"  {format:<18}{without[format]:>12}{first[format]:>18}{after[format]:>16}")
        print(f"\nthe task (3 tools of {count}, scripted Anthropic-shaped model, search=True):")
        print(f"  turns: {len(per_turn)}, calls: {', '.join(calls)}")
        print(f"  characters handed per turn: {per_turn}")
        print(f"  worst turn {worst} vs {without['anthropic']} without a search: {fewer:.1%} fewer", end=" ")
        print(f"({'meets' if fewer >= TARGET else 'misses'} the target of {TARGET:.0%})")
        print(f"  the 3 searches' answers (the found definitions, in the conversation once): {answers} characters")
        print(f"  completed: {completed} ({answer!r}) in {took:.2f} s; servers running after it: {', '.join(running)}")
        if left:
            print("\nchild processes left running:", *left, sep="\n  ")
    return 0 if completed and fewer >= TARGET and not left else 1


if __name__ == "__main__":
    sys.exit(main())
