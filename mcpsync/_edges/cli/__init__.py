"""The ``mcpsync`` command (also ``python -m mcpsync``): look at MCP servers and call them from a terminal.

Commands::

    mcpsync servers                      each server: state, transport, tools, source, error
    mcpsync config                       each file discovery looks at: client, found, its servers
    mcpsync tools [SERVER]               tools: name, parameters, description
    mcpsync call [SERVER] TOOL [ARG ...] call a tool: ARG is one JSON object, or key=value pairs
    mcpsync resources [SERVER]           resources: URI, name, MIME type, description
    mcpsync read [SERVER] URI            a resource's contents
    mcpsync prompts [SERVER]             prompts: name, arguments, description
    mcpsync prompt [SERVER] PROMPT [ARG ...]  a prompt's messages, filled in with key=value pairs
    mcpsync complete [SERVER] prompt PROMPT | resource TEMPLATE key=value ...
                                         completions of the last key=value (the others are context)
    mcpsync ping [SERVER]                round-trip time to each server
    mcpsync call --no-wait [SERVER] TOOL [ARG ...]   a call the server runs as a task: print its id
    mcpsync task [SERVER] status|wait|cancel ID
                                         a tool call's task by its id: its status, its result
                                         (printed as call prints one), or cancel it
    mcpsync login [SERVER] / logout      log in to an HTTP server (OAuth), or forget its token
    mcpsync auth                         the stored logins (server, issuer, scopes, expiry)
    mcpsync demo                         the demo against the bundled test server

Which servers: those of ``--config PATH``, else of the files discovery finds
(``$MCPSYNC_CONFIG``, ``./.mcp.json``, ``./mcp.json``, the user's ``mcp.json``, then the
project files and the user files of Claude Code, Claude Desktop, Cursor, VS Code, Windsurf,
Gemini CLI and Codex; see ``mcpsync._manager.config_files``); ``--from CLIENT`` keeps only
those clients' files. Or one server given inline: ``--stdio "command
args"`` (``--env KEY=VALUE``), or ``--url URL`` (``--header "Name: value"``,
``--sse`` for the HTTP+SSE transport), called ``inline`` unless ``--name`` says
otherwise. SERVER may be left out with an inline server or when only one
server is enabled. Only the named server is started when a command names one;
without SERVER every enabled server is. With an inline server the tool cache
is neither read nor written.

Without SERVER, ``tools`` and ``prompts`` show qualified names
(``server__tool``), as ``Manager.list_tools`` does; with SERVER, the server's own.
``call``, ``prompt`` and ``complete prompt`` take either, and also a bare name
that only one server has (every server is then started to find it; a name
several servers have is an error listing them).

An argument name the tool's input schema (or the prompt's list of arguments)
does not have is an error, with the closest names, before anything is sent;
a schema without ``properties``, or one that allows others, takes any name.

What the client offers the servers: ``--elicit`` answers elicitation requests
by asking on the terminal (stderr, and lines from stdin; the end of stdin
declines), ``--roots DIR`` offers directories as roots. Some servers list
some tools only to clients that declare these.

Tool arguments: one JSON object (``'{"a": 1}'``), or ``key=value`` pairs. A
value is JSON when it parses as JSON (``n=3``, ``flag=true``, ``tags=["a"]``),
else the text itself (``text=hello``); a parameter whose schema type is
``string`` always gets the text as written (``text=42`` sends ``"42"``). A
value that starts with ``{`` or ``[`` but is not valid JSON is an error.

Output: tables for people; ``--json`` writes JSON to stdout instead (call and
read: the result as the server sent it; the listings: a list of objects).
Errors go to stderr as ``mcpsync: error: ...`` (``--debug`` adds the
traceback). Progress of a call goes to stderr, with or without ``--json``: on
a terminal one line updated in place, otherwise a line per update. ``read``
writes text as it is (a newline added on a terminal) and binary contents as
raw bytes when stdout is not a terminal; ``--output FILE`` saves them.
``-v`` logs to stderr what happens, the servers' stderr and every message
sent (``-->``) and received (``<--``).

``--timeout SECONDS`` bounds each request and the wait for servers to start
(default: each server's configured timeout, else 30 s).

Exit codes:

- 0: success.
- 1: the tool returned ``isError``; a server failed to start, went away,
  answered with an error or not in time; without SERVER: any enabled server
  was unavailable (the output still lists the others). ``servers`` exits 0
  whatever the servers' states: reporting them is its job.
- 2: usage: bad options or arguments, bad JSON, a configuration error, an
  unknown server, tool, prompt or argument name, a name several servers have, or no
  server configured at all; ``config``: a file it lists cannot be used.
- 130: interrupted (Ctrl-C).
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import traceback
from typing import Any, Callable, Optional, TextIO

from ..._core.errors import ConfigurationError, MCPError, MissingClientCapability, UnknownNameError
from ..._core.timeouts import USE_DEFAULT, Timeout
from ..._manager.manager import Manager
from ..._manager.trust import TrustStore
from ..logs import TerminalFormatter
from .args import (
    build_parser,
    load_servers,
    only_server,
    place_positionals,
    root_uris,
    task_id_as_word,
)
from .commands import CAPABILITY_OPTIONS, COMMANDS, EXIT_FAILURE, Run
from .elicit import TerminalElicitation
from .format import TerminalText, is_terminal
from .trust import check_project_trust
from .words import UsageError

__all__ = ["main"]

#: Bad usage, configuration, or name (success and failure: see ``cli.commands``).
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


# -- running ---------------------------------------------------------------------------------------


def _log_verbosely() -> None:
    handler = logging.StreamHandler()
    handler.setFormatter(TerminalFormatter("%(name)s: %(message)s"))
    logging.basicConfig(level=logging.WARNING, handlers=[handler])
    logging.getLogger("mcpsync").setLevel(logging.INFO)
    logging.getLogger("mcpsync.traffic").setLevel(logging.DEBUG)


def _ask_on_terminal(err: TextIO) -> Optional[Callable[[str], str]]:
    """A way to ask the person at the terminal, or ``None`` when nobody is there (a pipe, cron, CI)."""
    if not (is_terminal(sys.stdin) and is_terminal(err)):
        return None

    def ask(question: str) -> str:
        err.write(question)
        err.flush()
        return sys.stdin.readline()

    return ask


def _run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    config, inline = load_servers(args)
    place_positionals(args, config, inline)
    client_options: dict[str, Any] = {}
    if args.roots:
        client_options["roots"] = root_uris(args.roots)
    if args.elicit:
        client_options["elicitation"] = TerminalElicitation(sys.stdin, err)
    if args.server is not None:
        config = only_server(config, args.server, inline)
    if inline is None and args.config is None:  # found by discovery: a project file may not be the user's
        check_project_trust(config, trust_given=args.trust, store=TrustStore(), ask=_ask_on_terminal(err), err=err)
    manager = Manager(
        config,
        startup_timeout=0,  # each command waits for the servers it needs, and no others
        connect_timeout=_connect_timeout(args),
        # -v shows the servers' stderr through the log, with everything else it shows.
        stderr=args.stderr if args.stderr is not None else ("log" if args.verbose else None),
        tool_cache=inline is None,  # an inline server is a one-off: keep it out of the user's cache
        reconnect=False,  # a command is short: a server that fails is reported, not retried
        client_options=client_options,
    )
    try:
        return COMMANDS[args.command](Run(args, manager, out, err))
    finally:
        manager.close()


def _connect_timeout(args: argparse.Namespace) -> Timeout:
    """How long a server may take to connect: ``--connect-timeout``, else ``--timeout``, else the entry's."""
    if args.connect_timeout is not None:
        return float(args.connect_timeout)
    return float(args.timeout) if args.timeout is not None else USE_DEFAULT


def _exit_code(exc: BaseException) -> int:
    if isinstance(exc, (UsageError, ConfigurationError, UnknownNameError)):
        return EXIT_USAGE
    return EXIT_FAILURE


def _report(exc: BaseException, err: TextIO, debug: bool) -> None:
    if debug:
        traceback.print_exception(type(exc), exc, exc.__traceback__, file=err)
    if isinstance(exc, (MCPError, UsageError, OSError)):
        message = str(exc)
    else:  # a bug, most likely: say what it was even without the traceback
        message = f"{type(exc).__name__}: {exc}" + ("" if debug else " (--debug shows the traceback)")
    err.write(f"mcpsync: error: {message}\n")
    if isinstance(exc, MissingClientCapability):
        err.write(_capability_options_note(sorted(exc.required)))


def _capability_options_note(wanted: list[str]) -> str:
    """A line that says which options declare the capabilities a server wanted (``""`` when none can)."""
    offered = [name for name in wanted if name in CAPABILITY_OPTIONS]
    notes = []
    if offered:
        options = " and ".join(CAPABILITY_OPTIONS[name] for name in offered)
        notes.append(
            f"on the command line, {options} declare{'s' if len(offered) == 1 else ''} {' and '.join(offered)}"
        )
    if "sampling" in wanted:
        notes.append("mcpsync cannot answer sampling")
    return f"note: {'; '.join(notes)}\n" if notes else ""


def main(argv: Optional[list[str]] = None) -> int:
    """Run the command with ``argv`` (default: ``sys.argv[1:]``); returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(task_id_as_word(sys.argv[1:] if argv is None else argv, parser))
    if args.verbose:
        _log_verbosely()
    if args.command is None:
        parser.print_help()
        return EXIT_USAGE
    if args.command == "demo":
        from ..demo import run_demo

        return run_demo()
    # Plain text shows what a terminal would act on (escape sequences a server sent, say); --json is
    # the raw value as asked for (JSON escapes the C0 controls itself).
    err: TextIO = TerminalText(sys.stderr)  # type: ignore[assignment]
    out: TextIO = sys.stdout if getattr(args, "json", False) else TerminalText(sys.stdout)  # type: ignore[assignment]
    _warn_as_the_command(err)
    try:
        if args.command in ("login", "logout", "auth"):
            from .auth import run_auth_command

            return run_auth_command(args, out, err)
        if args.command == "config":
            from .config import run_config_command

            return run_config_command(args, out)
        return _run(args, out, err)
    except KeyboardInterrupt:
        err.write("mcpsync: interrupted\n")
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader of our output went away (`mcpsync tools | head`): stop quietly, and keep
        # Python's own flush at exit from failing again on the same pipe.
        _silence_stdout()
        return EXIT_FAILURE
    except Exception as exc:
        _report(exc, err, args.debug)
        return _exit_code(exc)


def _warn_as_the_command(err: TextIO) -> None:
    """mcpsync's warnings (a configuration file left out, a timeout in the wrong unit) as the command's
    own lines, ``mcpsync: warning: ...``: no Python file and line, which would name mcpsync's code."""
    import warnings

    from ..._core.errors import MCPWarning

    shown = warnings.showwarning

    def show(message: Any, category: Any, filename: str, lineno: int, file: Any = None, line: Any = None) -> None:
        if isinstance(category, type) and issubclass(category, MCPWarning):
            err.write(f"mcpsync: warning: {message}\n")
        else:
            shown(message, category, filename, lineno, file, line)

    warnings.showwarning = show


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
