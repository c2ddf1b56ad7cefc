"""The test server's command line: parse the options, then serve on stdin/stdout or over HTTP.

    python -m mcpsync.testing [--name NAME] [--page-size N] [--protocol-version V] [--ignore-sigterm]
                              [--start-delay SECONDS] [--die-after SECONDS] [--http PORT [--json]]
                              [--tools-change-after-list] [--legacy-only] [--modern-versions V,...]
                              [--ttl-ms N] [--omit-result-type] [--bad-header-tools] [--no-skills]
                              [--skill-lie KIND] [--minimal] [--tools N [--tool-prefix P]]
                              [--mark-start FILE]

It serves the demo and mcpsync's own tests, and you can use it to test code that talks to MCP
servers. ``--start-delay`` makes a slow starter, ``--die-after`` a server that crashes on schedule
(exit code 3), ``--ignore-sigterm`` one that must be killed. ``--tools N`` lists N made-up tools
(``mcpsync.testing.synthetic``) in place of its own, ``--mark-start FILE`` appends a line (its pid)
to FILE when the process starts: proof, from outside, of when a server was started.
``--http PORT`` serves Streamable HTTP (see ``mcpsync.testing.http``), ``--minimal`` only what the
schema requires (see ``mcpsync.testing.minimal``); the other options are the server's
(``mcpsync.testing.server``).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
import time
from typing import Any, Optional

from . import server, tools
from .minimal import make_server
from .protocol import MODERN_VERSIONS
from .skills import LIES

__all__ = ["main", "parse", "server_options"]


def parse(argv: Optional[list[str]] = None) -> argparse.Namespace:
    """The command line's options (``argv``: the arguments after ``-m mcpsync.testing``)."""
    parser = argparse.ArgumentParser(
        prog="python -m mcpsync.testing",
        description="\n".join(str(module.__doc__) for module in (sys.modules[__name__], tools, server)),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--name", default="mcpsync-test-server")
    parser.add_argument("--page-size", type=int, default=None, help="page tools/list by this many tools")
    parser.add_argument(
        "--protocol-version", default=None, help="answer initialize with this version, whatever is asked"
    )
    parser.add_argument("--ignore-sigterm", action="store_true", help="ignore SIGTERM (tests the kill path)")
    parser.add_argument("--http", type=int, metavar="PORT", help="serve Streamable HTTP on 127.0.0.1:PORT (0: any)")
    parser.add_argument("--json", action="store_true", help="with --http: answer with JSON bodies, not SSE")
    parser.add_argument("--start-delay", type=float, default=0.0, metavar="SECONDS", help="wait before serving")
    parser.add_argument(
        "--tools-change-after-list", action="store_true", help="add a tool after the first tools/list, and say so"
    )
    parser.add_argument(
        "--die-after", type=float, default=None, metavar="SECONDS", help="exit with code 3 this long after starting"
    )
    parser.add_argument("--legacy-only", action="store_true", help="serve the legacy era only (no server/discover)")
    parser.add_argument(
        "--modern-versions",
        default=",".join(MODERN_VERSIONS),
        metavar="V,...",
        help="the 2026-07-28-style versions accepted (comma-separated; others get -32022)",
    )
    parser.add_argument("--ttl-ms", type=int, default=0, help="the ttlMs of modern lists, reads and discovery")
    parser.add_argument("--omit-result-type", action="store_true", help="no resultType in modern results")
    parser.add_argument(
        "--bad-header-tools", action="store_true", help="also list tools whose x-mcp-header breaks the rules"
    )
    parser.add_argument("--no-skills", action="store_true", help="do not declare or serve the skills extension")
    parser.add_argument(
        "--skill-lie", action="append", default=[], choices=LIES, help="make the skills listing lie (repeatable)"
    )
    parser.add_argument(
        "--minimal", action="store_true", help="send only what the schema requires (see mcpsync.testing.minimal)"
    )
    parser.add_argument(
        "--tools", type=int, default=0, metavar="N", help="list N made-up tools in place of its own (0: its own)"
    )
    parser.add_argument("--tool-prefix", default="demo", metavar="P", help="with --tools: their names start P_")
    parser.add_argument("--mark-start", metavar="FILE", help="append this process's pid to FILE when it starts")
    return parser.parse_args(argv)


def server_options(args: argparse.Namespace) -> dict[str, Any]:
    """What ``make_server`` takes of the parsed options (the rest is the process's: signals, timers, HTTP)."""
    options: dict[str, Any] = {
        "page_size": args.page_size,
        "protocol_version": args.protocol_version,
        "tools_change_after_list": args.tools_change_after_list,
        "legacy_only": args.legacy_only,
        "modern_versions": tuple(v for v in args.modern_versions.split(",") if v),
        "ttl_ms": args.ttl_ms,
        "omit_result_type": args.omit_result_type,
        "bad_header_tools": args.bad_header_tools,
        "skills": not args.no_skills,
        "skill_lies": tuple(args.skill_lie),
    }
    if args.tools:
        options["synthetic_tools"] = args.tools
        options["tool_prefix"] = args.tool_prefix
    if args.minimal:
        options["minimal"] = True
    return options


def main(argv: Optional[list[str]] = None) -> None:
    """Run the test server on stdin/stdout (or, with ``--http``, on 127.0.0.1) until its input ends."""
    args = parse(argv)
    options = server_options(args)
    if args.mark_start:
        with open(args.mark_start, "a", encoding="utf-8") as marker:
            marker.write(f"{os.getpid()}\n")
    if args.ignore_sigterm:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if args.die_after is not None:
        timer = threading.Timer(args.die_after, lambda: (print("dying on schedule", file=sys.stderr), os._exit(3)))
        timer.daemon = True
        timer.start()
    time.sleep(args.start_delay)
    if args.http is not None:
        from .http import serve_http  # here: a stdio server starts without loading http.server

        try:
            serve_http(args.http, args.name, json_replies=args.json, options=options)
        except KeyboardInterrupt:
            pass
        return
    stdio_server = make_server(args.name, options)
    try:
        stdio_server.serve()
    except (BrokenPipeError, KeyboardInterrupt):
        pass


if __name__ == "__main__":
    main()
