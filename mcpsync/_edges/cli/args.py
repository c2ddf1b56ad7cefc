"""The ``mcpsync`` command's arguments: the parser, and which servers and names they give (a tool
call's own arguments: ``words``).

Nothing here starts a server: what the words say is checked first, so that a
typo fails at once (exit code 2) rather than after every server has started.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Optional, Union

from ..._core.errors import ConfigurationError, UnknownNameError
from ..._core.text import did_you_mean
from ..._manager.client_files import CLIENTS, check_clients
from ..._manager.config_files import LoadedConfig, ServerEntry, load_config
from ..._manager.discovery_report import places_looked_at
from ..._manager.naming import server_prefix
from ..._version import __version__
from ..._wire.config import HTTPServerConfig, StdioServerConfig, server_config_from
from .words import UsageError, quoted, split_tool_arguments

__all__ = [
    "INLINE_NAME",
    "build_parser",
    "load_servers",
    "only_server",
    "place_positionals",
    "root_uris",
]

#: The name of a server given with --stdio or --url (unless --name says otherwise).
INLINE_NAME = "inline"
#: ``source`` of an inline server in ``servers``.
INLINE_SOURCE = "<command line>"

#: The end of ``mcpsync --help`` (a ``str.format`` template: the clients are CLIENTS).
EPILOG = """\
servers:
  --config PATH, else the first file that defines each name: mcpsync's ($MCPSYNC_CONFIG,
  ./.mcp.json, ./mcp.json, the user's mcp.json), then the other clients' project files
  (./.cursor, ./.vscode, ./.gemini), then their user files; --from CLIENT reads only those
  clients' ({clients}); `mcpsync config` lists them all.
  Or one server inline: --stdio "command args" | --url URL.
  SERVER may be left out when only one server is enabled (or given inline);
  call and prompt also take the names tools and prompts print (SERVER__TOOL),
  or a bare TOOL that only one server has.

tool arguments:
  one JSON object ('{{"a": 1, "b": 2}}'), or key=value pairs: a value is JSON if it
  parses (n=3, flag=true, tags='["x"]'), else text (text=hello); a parameter of type
  string always gets the text (text=42 sends "42"). A name the tool's schema
  does not list is an error (unless the schema allows more).

exit codes:
  0  success
  1  the tool returned isError; a server failed, went away, or did not answer in time
     (without SERVER: any enabled server was unavailable; 'servers' always exits 0)
  2  bad options or arguments, bad JSON, configuration error, unknown server, tool,
     prompt or argument name, a name several servers have
  130 interrupted

examples:
  mcpsync servers
  mcpsync tools github
  mcpsync call github search_issues query="is:open label:bug" limit=5
  mcpsync call github__search_issues query="is:open"
  mcpsync prompt greet name=Ada
  mcpsync complete prompt greet name=Al
  mcpsync complete resource 'echo://{{text}}' text=he
  mcpsync --stdio "python -m mcpsync.testing" call add a=2 b=40
  mcpsync task github wait 786512e2-9e0d-44bd-8f29-789f320fe840 --timeout 600
  mcpsync --url https://example.com/mcp --header "Authorization: Bearer $TOKEN" tools
  mcpsync login --url https://example.com/mcp    (once; later runs use the kept token)
"""


# -- the command line -------------------------------------------------------------------------


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not value > 0:  # also refuses NaN
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, not {text!r}")
    return value


def _add_common_options(parser: argparse.ArgumentParser, *, top: bool) -> None:
    """The options every command takes, before or after the command's name.

    Only the top-level parser sets defaults: a subcommand's parser would
    otherwise reset what was given before the command's name.
    """

    def default(value: Any) -> Any:
        return value if top else argparse.SUPPRESS

    servers = parser.add_argument_group("which servers")
    servers.add_argument("--config", metavar="PATH", default=default(None), help="the configuration file to read")
    servers.add_argument(
        "--stdio", metavar="COMMAND", default=default(None), help='an inline server: a command line ("prog args")'
    )
    servers.add_argument("--url", default=default(None), help="an inline server: its Streamable HTTP URL")
    servers.add_argument("--sse", action="store_true", default=default(False), help="--url is an HTTP+SSE server")
    servers.add_argument(
        "--header", metavar="NAME:VALUE", action="append", default=default([]), help="with --url (repeatable)"
    )
    servers.add_argument(
        "--env", metavar="KEY=VALUE", action="append", default=default([]), help="with --stdio (repeatable)"
    )
    servers.add_argument("--name", default=default(None), help=f"the inline server's name (default: {INLINE_NAME})")
    servers.add_argument(
        "--trust",
        action="store_true",
        default=default(False),
        help="trust the project configuration found in this directory (remembered until the file changes)",
    )
    servers.add_argument(
        "--from",
        dest="clients",
        metavar="CLIENT",
        action="append",
        type=_client_names,
        default=default([]),
        help="discover only this client's files (repeatable, or CLIENT,CLIENT; see below)",
    )
    output = parser.add_argument_group("output")
    output.add_argument("--json", action="store_true", default=default(False), help="machine output (JSON on stdout)")
    output.add_argument(
        "--timeout",
        metavar="SECONDS",
        type=_seconds,
        default=default(None),
        help="per request, and for servers to start (default: the server's, else 30)",
    )
    output.add_argument(
        "--connect-timeout",
        metavar="SECONDS",
        type=_seconds,
        default=default(None),
        help="for servers to start, when it should differ from --timeout (default: the server's connectTimeout)",
    )
    output.add_argument(
        "--stderr",
        choices=("inherit", "log", "quiet"),
        default=default(None),
        help="the servers' stderr: on ours, a line at a time with the server's name in front (inherit, the "
        "default), to the log (log: shown with -v), or nowhere (quiet); the last lines are shown when one fails",
    )
    output.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        default=default(False),
        help="log to stderr: servers' stderr and every message sent and received",
    )
    output.add_argument("--debug", action="store_true", default=default(False), help="show tracebacks of errors")
    client = parser.add_argument_group("what the client offers the servers")
    client.add_argument(
        "--elicit",
        action="store_true",
        default=default(False),
        help="answer a server's elicitation requests by asking on the terminal (end of input declines)",
    )
    client.add_argument(
        "--roots",
        metavar="DIR",
        action="append",
        default=default([]),
        help=f"offer DIR to the servers as a root (repeatable; or DIR{os.pathsep}DIR)",
    )


class Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` that keeps every option string it, its groups and its commands' parsers
    take, in ``options`` (argparse keeps them only in private members)."""

    def __init__(self, *args: Any, options: Optional[set[str]] = None, **kwargs: Any) -> None:
        self.options: set[str] = set() if options is None else options  # before __init__ adds -h
        super().__init__(*args, **kwargs)

    def add_argument(self, *args: Any, **kwargs: Any) -> argparse.Action:
        return _kept(super().add_argument(*args, **kwargs), self.options)

    def add_argument_group(self, *args: Any, **kwargs: Any) -> Any:
        group, options = super().add_argument_group(*args, **kwargs), self.options
        add = group.add_argument
        group.add_argument = lambda *args, **kwargs: _kept(add(*args, **kwargs), options)  # type: ignore[method-assign]
        return group

    def add_subparsers(self, **kwargs: Any) -> Any:
        kwargs["parser_class"] = functools.partial(Parser, options=self.options)
        return super().add_subparsers(**kwargs)


def _kept(action: argparse.Action, options: set[str]) -> argparse.Action:
    options.update(action.option_strings)
    return action


def build_parser() -> Parser:
    """The argument parser of ``mcpsync``."""
    parser = Parser(
        prog="mcpsync",
        description="Look at MCP servers and call their tools.",
        epilog=EPILOG.format(clients=", ".join(CLIENTS)),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"mcpsync {__version__}")
    _add_common_options(parser, top=True)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    def command(name: str, help: str, *, usage: Optional[str] = None) -> argparse.ArgumentParser:
        # A usage line of its own marks the commands whose SERVER may be left out (see place_positionals).
        epilog = "SERVER may be left out when only one server is enabled (or given inline)." if usage else None
        sub: argparse.ArgumentParser = commands.add_parser(
            name, help=help, description=help, usage=usage, epilog=epilog
        )
        _add_common_options(sub, top=False)
        return sub

    command("demo", "run the demo against the bundled test server")
    command("servers", "each server's state, transport, tools, source and error")
    command("config", "each file discovery looks at: its client, whether it is there, the servers it defines")
    for name, help in (
        ("tools", "list the tools of SERVER, or of every server"),
        ("resources", "list the resources of SERVER, or of every server"),
        ("prompts", "list the prompts of SERVER, or of every server"),
        ("ping", "round-trip time to SERVER, or to every server"),
    ):
        command(name, help).add_argument("server", nargs="?", metavar="SERVER")
    for name, help in (
        ("login", "log in to the HTTP server SERVER (or --url URL) and keep its token"),
        ("logout", "forget the token of SERVER (or --url URL)"),
    ):
        command(name, help).add_argument("server", nargs="?", metavar="SERVER")
    command("auth", "the stored logins: server, issuer, scopes, expiry (never a token)")
    call = command("call", "call a tool", usage="mcpsync call [options] [SERVER] TOOL [JSON | key=value ...]")
    call.add_argument("server", metavar="SERVER")
    call.add_argument("tool", nargs="?", metavar="TOOL")
    call.add_argument(
        "arguments", nargs="*", metavar="ARG", help="one JSON object (- reads it from stdin), or key=value pairs"
    )
    call.add_argument(
        "--no-wait",
        action="store_true",
        help="when the server runs the call as a task, print the task's id and return (mcpsync task picks it up)",
    )
    read = command("read", "read a resource", usage="mcpsync read [options] [SERVER] URI")
    read.add_argument("server", metavar="SERVER")
    read.add_argument("uri", nargs="?", metavar="URI")
    read.add_argument("-o", "--output", metavar="FILE", help="write the contents to FILE (bytes as they are)")
    prompt = command(
        "prompt",
        "get a prompt and print its messages",
        usage="mcpsync prompt [options] [SERVER] PROMPT [key=value ...]",
    )
    prompt.add_argument("server", metavar="SERVER")
    prompt.add_argument("tool", nargs="?", metavar="PROMPT")
    prompt.add_argument("arguments", nargs="*", metavar="ARG", help="key=value pairs, or one JSON object")
    task = command(
        "task",
        "a tool call's task by its id: its status, wait for its result, or cancel it",
        usage="mcpsync task [options] [SERVER] {status,wait,cancel} ID",
    )
    task.add_argument("server", metavar="SERVER")
    task.add_argument("words", nargs="+", metavar="WORD", help="status, wait or cancel, then the task's id")
    complete = command(
        "complete",
        "completions of an argument of a prompt or a resource template (the last key=value; the others are context)",
        usage="mcpsync complete [options] [SERVER] {prompt PROMPT | resource TEMPLATE} key=value ...",
    )
    complete.add_argument("server", metavar="SERVER")
    complete.add_argument("arguments", nargs="*", metavar="WORD")
    return parser


# -- which servers -------------------------------------------------------------------------------


def _inline_config(args: argparse.Namespace) -> Optional[LoadedConfig]:
    """The server given with --stdio or --url, as a configuration of one; ``None`` without one."""
    if args.stdio is not None and args.url is not None:
        raise UsageError("give --stdio or --url, not both")
    if args.config is not None and (args.stdio is not None or args.url is not None):
        raise UsageError("give --config or an inline server (--stdio, --url), not both")
    if args.clients and (args.config is not None or args.stdio is not None or args.url is not None):
        raise UsageError("--from chooses among the files discovery finds: give it without --config, --stdio or --url")
    if args.header and args.url is None:
        raise UsageError("--header goes with --url")
    if args.sse and args.url is None:
        raise UsageError("--sse goes with --url")
    if args.env and args.stdio is None:
        raise UsageError("--env goes with --stdio")
    if args.name is not None and args.stdio is None and args.url is None:
        raise UsageError("--name names an inline server (--stdio, --url)")
    name = args.name or INLINE_NAME
    config: Union[StdioServerConfig, HTTPServerConfig]
    if args.stdio is not None:
        stdio = server_config_from(args.stdio, name=name)
        if not isinstance(stdio, StdioServerConfig):
            raise UsageError(f"--stdio takes a command line, not a URL; use --url {args.stdio}")
        env = dict(_split_pair(item, "=", "--env", "KEY=VALUE") for item in args.env)
        config = dataclasses.replace(stdio, env=env) if env else stdio
    elif args.url is not None:
        pairs = (_split_pair(item, ":", "--header", "NAME:VALUE") for item in args.header)
        headers = {key: value.strip() for key, value in pairs}  # "Name: value", as HTTP writes it
        config = HTTPServerConfig(
            url=args.url,
            headers=headers or None,
            type="sse" if args.sse else "http",
            name=name,
            type_given=bool(args.sse),  # a bare --url falls back to HTTP+SSE, as mcpsync.connect(url) does
        )
    else:
        return None
    return LoadedConfig({name: ServerEntry(name, config, True, INLINE_SOURCE, raw={})}, ())


def _split_pair(item: str, separator: str, option: str, form: str) -> tuple[str, str]:
    key, found, value = item.partition(separator)
    if not found or not key.strip():
        raise UsageError(f"{option} {item!r}: expected {form}")
    return key.strip(), value


def load_servers(args: argparse.Namespace) -> tuple[LoadedConfig, Optional[str]]:
    """The configuration to use, and the inline server's name (``None`` when read from files)."""
    inline = _inline_config(args)
    if inline is not None:
        return inline, next(iter(inline.servers))
    config = load_config(args.config, clients=args.clients or None)
    if args.config is None and not config.servers:
        found = (
            f"no server configured in {', '.join(config.sources)}" if config.sources else "no configuration file found"
        )
        looked = "".join(
            f"\n  {client}: {', '.join(places)}"
            for client, places in places_looked_at(clients=args.clients or None).items()
        )
        raise UsageError(
            f"{found}; looked for:{looked}\n"
            "give one with --config PATH, or a server with --stdio or --url (mcpsync config lists what was found)"
        )
    return config, None


def _client_names(text: str) -> str:
    """``--from``'s value, checked: client names (``CLIENTS``), comma-separated."""
    try:
        if not check_clients(text):
            raise ConfigurationError(f"expected a client's name ({', '.join(CLIENTS)})")
    except ConfigurationError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def _looks_like_argument(word: str) -> bool:
    return "=" in word or word.lstrip().startswith("{")


#: What each command that names one thing calls it, after SERVER.
_WHAT = {"call": "TOOL", "prompt": "PROMPT", "read": "URI", "complete": "prompt or resource"}
#: What ``task`` does with a task.
TASK_ACTIONS = ("status", "wait", "cancel")
#: What ``complete`` completes an argument of.
COMPLETE_KINDS = ("prompt", "resource")


def _names_server(command: str, words: Sequence[str]) -> bool:
    """Whether ``words[0]`` reads as SERVER, judged by what follows it."""
    if len(words) < 2:
        return False
    if command == "complete":
        return words[1] in COMPLETE_KINDS
    return command == "read" or not _looks_like_argument(words[1])


def _owner_by_prefix(word: str, servers: Sequence[str]) -> Optional[str]:
    """The one server whose qualified names (``server__tool``) ``word`` could be one of."""
    owners = [s for s in servers if word.startswith(server_prefix(s)) and len(word) > len(server_prefix(s))]
    return owners[0] if len(owners) == 1 else None


def task_id_as_word(argv: list[str], parser: Parser) -> list[str]:
    """``argv`` with ``--`` put before a task's ID that starts with ``-``, so that argparse reads it as
    the ID and not as an unknown option (a server's task ids are opaque: ``-TEc...`` is one).

    Only the last word, right after ``status``, ``wait`` or ``cancel`` of a ``task`` command, and only
    when it is no option of ``mcpsync``; ``--`` given already leaves ``argv`` as it is.
    """
    if len(argv) < 3 or "--" in argv or "task" not in argv[:-2] or argv[-2] not in TASK_ACTIONS:
        return argv
    last = argv[-1]
    if not last.startswith("-") or last.split("=", 1)[0] in parser.options:
        return argv
    return [*argv[:-1], "--", last]


def place_positionals(args: argparse.Namespace, config: LoadedConfig, inline: Optional[str]) -> None:
    """Decide which words are SERVER, the thing named (TOOL, PROMPT, URI) and the arguments, setting them on ``args``.

    SERVER may be left out with an inline server or a configuration of one
    enabled server. ``call`` and ``prompt`` also take a qualified name
    (``server__tool``, as ``tools`` prints it without SERVER; that server is
    then the only one started) or a bare name with none given, which every
    server is then asked for (``args.server`` is ``None``). Sets
    ``args.server``, ``args.name`` (as written) and ``args.arguments``; for
    ``complete`` also ``args.kind``; for ``read`` ``args.uri``.
    """
    command = args.command
    if command == "task":
        _place_task(args, config, inline)
        return
    if command not in _WHAT:
        # ``servers`` and ``auth`` have no SERVER: they report them all.
        named = getattr(args, "server", None)
        args.server = inline if named is None and command not in ("servers", "auth") else named
        return
    if command == "read":
        words = [w for w in (args.server, args.uri) if w is not None]
    elif command == "complete":
        words = [args.server, *args.arguments]
    else:
        words = [w for w in (args.server, args.tool) if w is not None] + args.arguments
    server: Optional[str]
    enabled = list(config.enabled())
    if words[0] in config.servers and (len(words) == 1 or _names_server(command, words)):
        server, rest = words[0], words[1:]
    elif inline is not None or len(enabled) == 1:
        server, rest = inline or enabled[0], words
    elif command in ("call", "prompt") and not _names_server(command, words):
        server, rest = _owner_by_prefix(words[0], list(config.servers)), words
    elif command == "complete" and words[0] == "prompt" and len(words) > 1:
        server, rest = _owner_by_prefix(words[1], list(config.servers)), words
    elif not _names_server(command, words):
        configured = ", ".join(config.servers) or "none"
        raise UsageError(f"{command} needs SERVER: more than one server is configured ({configured})")
    else:
        server, rest = words[0], words[1:]  # not a server's name: only_server says so
    if not rest:
        raise UsageError(f"{command} needs {_WHAT[command]}")
    args.server = server
    if command == "read":
        if len(rest) > 1:
            raise UsageError(f"read takes one URI; unexpected {rest[1]!r}")
        args.uri = rest[0]
        return
    if command == "complete":
        if rest[0] not in COMPLETE_KINDS or len(rest) < 2:
            raise UsageError("complete needs 'prompt PROMPT' or 'resource TEMPLATE', then key=value ...")
        args.kind, rest = rest[0], rest[1:]
        if len(rest) < 2:
            raise UsageError(f"complete {args.kind} {rest[0]!r} needs the argument to complete, as key=value")
    args.name, args.arguments = rest[0], split_tool_arguments(rest[1:])
    if command == "complete" and not isinstance(args.arguments, list):
        raise UsageError("complete takes key=value pairs, not a JSON object")


def _place_task(args: argparse.Namespace, config: LoadedConfig, inline: Optional[str]) -> None:
    """``task [SERVER] ACTION ID``: sets ``args.server``, ``args.action`` and ``args.task_id``."""
    words = [args.server, *args.words]
    if len(words) == 2:
        enabled = list(config.enabled())
        if inline is None and len(enabled) != 1:
            configured = ", ".join(config.servers) or "none"
            raise UsageError(f"task needs SERVER: more than one server is configured ({configured})")
        words.insert(0, inline or enabled[0])
    if len(words) != 3:
        raise UsageError(f"task takes [SERVER] {{{','.join(TASK_ACTIONS)}}} ID; got {' '.join(map(quoted, words))}")
    args.server, args.action, args.task_id = words
    if args.action not in TASK_ACTIONS:
        raise UsageError(f"task {quoted(args.action)}: expected one of {', '.join(TASK_ACTIONS)}")


def only_server(config: LoadedConfig, server: str, inline: Optional[str]) -> LoadedConfig:
    """The configuration with just ``server`` in it."""
    entry = config.servers.get(server)
    if entry is None:
        known = list(config.servers)
        if inline is not None:
            hint = f" (the inline server is {inline!r})"
        else:
            hint = did_you_mean(server, known) or f"; configured: {', '.join(known)}"
            hint = f" in {', '.join(config.sources)}{hint if known else ' (no servers)'}"
        raise UnknownNameError(f"no server named {server!r}{hint}")
    return LoadedConfig({server: entry}, config.sources)


def root_uris(dirs: Sequence[str]) -> list[dict[str, str]]:
    """``--roots`` as roots: a ``file://`` URI and a name for each directory (``os.pathsep`` separates several)."""
    roots = []
    for item in dirs:
        for part in item.split(os.pathsep):
            if not part:
                continue
            path = Path(part).expanduser().resolve()
            if not path.is_dir():
                raise UsageError(f"--roots {part!r}: not a directory")
            roots.append({"uri": path.as_uri(), "name": path.name or str(path)})
    return roots
