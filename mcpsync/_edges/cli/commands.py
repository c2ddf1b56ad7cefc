"""The ``mcpsync`` commands that start servers and talk to them, each a function of a ``Run``.

``Run`` is what every command works with: its parsed arguments, the ``Manager``
of the servers it started, the output streams, and what the commands share
(waiting for servers, finding a tool or prompt by name, listings and their exit
codes). ``COMMANDS`` maps a command's name to its function; ``cli.main`` parses
the command line, builds the manager and runs one. The commands are described in
``cli``'s docstring.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Callable, Optional, TextIO, TypeVar

from ..._core.errors import MCPError, UnknownNameError
from ..._core.text import did_you_mean, first_line
from ..._core.timeouts import DEFAULT_TIMEOUT, USE_DEFAULT, Timeout
from ..._manager.manager import Manager, ServerState, ServerStatus
from ..._manager.naming import server_prefix
from ..._session.client import Client
from ..._session.models import CallToolResult, parameters_signature
from ..._session.server_capabilities import items_served
from ..._session.tasks import status_as_progress
from .format import (
    ProgressLine,
    describe_contents,
    is_terminal,
    status_dict,
    table,
    write_json,
    write_prompt,
    write_tool_result,
)
from .words import UsageError, check_argument_names, missing_required, tool_arguments

__all__ = ["CAPABILITY_OPTIONS", "COMMANDS", "EXIT_FAILURE", "EXIT_OK", "Run"]

EXIT_OK = 0
#: A tool error, or a server that failed, went away or did not answer.
EXIT_FAILURE = 1
#: Seconds waited past the connect timeout for a failed attempt to end (its server stopped) and be told.
ATTEMPT_GRACE = 5.0

#: What the client may declare so that a server shows it more, and the option that declares it.
CAPABILITY_OPTIONS = {"elicitation": "--elicit", "roots": "--roots DIR"}

_T = TypeVar("_T")


# -- what every command works with ----------------------------------------------------------------


@dataclass
class Run:
    """What a command works with: its arguments, the manager, and where output goes."""

    args: argparse.Namespace
    manager: Manager
    out: TextIO
    err: TextIO

    @property
    def server(self) -> Optional[str]:
        """The server the command names (or the inline one); ``None``: every server."""
        server: Optional[str] = self.args.server
        return server

    @property
    def timeout(self) -> Timeout:
        """Each request's timeout: ``--timeout``, else the server's default."""
        return self.args.timeout if self.args.timeout is not None else USE_DEFAULT

    def client(self) -> Client:
        """The named server's client, once it is connected (within the timeout)."""
        assert self.server is not None
        config = self.manager.config.enabled().get(self.server)
        return self.manager.client(self.server, timeout=self._attempt_wait([config] if config else []))

    def wait_for_all(self) -> None:
        """Wait until every server has connected or failed: ``--timeout``, else the longest configured timeout."""
        self.manager.wait_until_ready(self._attempt_wait(list(self.manager.config.enabled().values())))

    def _attempt_wait(self, configs: list[Any]) -> Optional[float]:
        """How long connecting may take: ``--timeout``, else the longest timeout of ``configs`` (``None``
        when one has no limit), and ``ATTEMPT_GRACE`` more, so that an attempt that fails at its
        timeout is reported as what it was rather than as "still connecting"."""
        if self.args.timeout is not None:
            seconds: float = self.args.timeout
        else:
            configured = [DEFAULT_TIMEOUT if c.timeout is USE_DEFAULT else c.timeout for c in configs]
            limits = [t for t in configured if t is not None]
            if len(limits) < len(configured):
                return None  # a server configured with no limit (None) is waited for without one
            seconds = max(limits, default=DEFAULT_TIMEOUT)
        return seconds + ATTEMPT_GRACE

    def unavailable(self) -> list[ServerStatus]:
        """The enabled servers that are not connected, each reported as a warning on stderr."""
        missing = [
            s for s in self.manager.status().values() if s.state not in (ServerState.CONNECTED, ServerState.DISABLED)
        ]
        for status in missing:
            why = f": {first_line(status.error, 200)}" if status.error else ""
            self.err.write(f"mcpsync: warning: server {status.name!r} is unavailable ({status.state.value}){why}\n")
        return missing

    def collect(
        self,
        method: str,
        of_client: Callable[[Client], list[_T]],
        of_manager: Callable[[Manager], list[tuple[str, _T]]],
    ) -> list[tuple[str, _T]]:
        """``(server, item)`` pairs of the named server (none if it does not serve the listing ``method``),
        or of every server."""
        if self.server is None:
            self.wait_for_all()
            return of_manager(self.manager)
        client = self.client()
        served = items_served(
            lambda: of_client(client), client.server_capabilities, method, strict=client.strict_capabilities
        )
        return [(self.server, item) for item in served]

    def find(
        self, kind: str, listing: Callable[[], list[tuple[str, str, _T]]], own: Callable[[_T], str]
    ) -> tuple[str, _T]:
        """The server and the ``kind`` (tool, prompt) that ``args.name`` names, as its own or its qualified name.

        ``listing`` gives ``(server, qualified name, item)`` of the servers the
        command started; without SERVER they are all waited for first.

        Raises:
            UnknownNameError: no such name, or several servers have it.
        """
        word: str = self.args.name
        if self.server is None:
            self.wait_for_all()
        else:
            self.client()
        found = [(s, q, item) for s, q, item in listing() if self.server is None or s == self.server]

        def named(server: str, qualified: str, item: _T) -> bool:
            name = own(item)
            return word in (name, qualified) or (self.server is not None and word == server_prefix(server) + name)

        matches = [(s, item) for s, q, item in found if named(s, q, item)]
        if len(matches) == 1:
            return matches[0]
        if matches:
            names = ", ".join(q for s, q, item in found if named(s, q, item))
            raise UnknownNameError(f"several servers have a {kind} named {word!r}: {names}; name one of these")
        filtered = self.manager.filtered_out(word, self.server) if kind == "tool" else None
        if filtered is not None:
            raise UnknownNameError(f"the tool {word!r} is not offered: {filtered}")
        if self.server is not None:
            known = [own(item) for _, _, item in found]
            hint = did_you_mean(word, known)
            if not hint:
                hint = f"; its {kind}s: {', '.join(known)}" if known else f" (it lists no {kind}s)"
                hint += self.capability_note(kind)
            raise UnknownNameError(f"server {self.server!r} has no {kind} named {word!r}{hint}")
        known = [q for _, q, _ in found]
        hint = did_you_mean(word, known) or did_you_mean(word, dict.fromkeys(own(item) for _, _, item in found))
        down = [s.name for s in self.unavailable()]
        also = f" (unavailable: {', '.join(down)})" if down else ""
        raise UnknownNameError(f"no server has a {kind} named {word!r}{also}{hint}")

    def capability_note(self, kind: str) -> str:
        """What the client did not declare that might make a server offer more, and the options that do."""
        if kind != "tool":
            return ""
        missing = [c for c in CAPABILITY_OPTIONS if not (self.args.elicit if c == "elicitation" else self.args.roots)]
        if not missing:
            return ""
        options = " and ".join(CAPABILITY_OPTIONS[c] for c in missing)
        return (
            "\nnote: some servers offer tools only to clients that can answer elicitation, sampling or roots"
            f" requests; {options} declare {' and '.join(missing)} (mcpsync cannot answer sampling)"
        )

    def listed(self, what: str, rows: Sequence[tuple[str, ...]], header: tuple[str, ...]) -> int:
        """Write a listing's table (or say it is empty); returns its exit code (see ``done``)."""
        if rows:
            table([header, *rows], self.out, indent="")
        else:
            self.out.write(f"no {what}\n")
        return self.done()

    def listed_json(self, items: list[dict[str, Any]]) -> int:
        """Write a listing as JSON; returns its exit code (see ``done``)."""
        write_json(items, self.out)
        return self.done()

    def done(self) -> int:
        """A listing's exit code: 1 when, without SERVER, an enabled server was unavailable (each is warned about)."""
        return EXIT_FAILURE if self.server is None and self.unavailable() else EXIT_OK


# -- the commands --------------------------------------------------------------------------------


def _run_servers(run: Run) -> int:
    run.wait_for_all()
    statuses = list(run.manager.status().values())
    if run.args.json:
        write_json([status_dict(s) for s in statuses], run.out)
        return EXIT_OK
    if not statuses:
        run.out.write(f"no servers configured in {', '.join(run.manager.config.sources)}\n")
        return EXIT_OK
    rows = [("name", "state", "transport", "tools", "server", "source", "error")]
    for s in statuses:
        tools = str(s.tools) + (" (cached)" if s.tools_from_cache else "") if s.tools or s.server_info else ""
        info = str(s.server_info) if s.server_info else ""
        rows.append((s.name, s.state.value, s.transport, tools, info, s.source, first_line(s.error)))
    table(rows, run.out, indent="")
    for s in statuses:
        if s.stderr_tail and s.state is not ServerState.CONNECTED:
            run.out.write(f"\n{s.name}: the last lines of its stderr:\n")
            run.out.writelines(f"  {line}\n" for line in s.stderr_tail)
    return EXIT_OK


def _run_tools(run: Run) -> int:
    if run.server is not None:
        run.client()
        tools = [(t.tool.name, t) for t in run.manager.list_tools() if t.server == run.server]
    else:
        run.wait_for_all()
        tools = [(t.name, t) for t in run.manager.list_tools()]
    if run.args.json:
        return run.listed_json(
            [{"server": t.server, "name": name, "deferred": t.deferred, "tool": dict(t.tool.raw)} for name, t in tools]
        )
    rows = [
        (name + (" (cached)" if t.deferred else ""), parameters_signature(t.input_schema), first_line(t.description))
        for name, t in tools
    ]
    return run.listed("tools", rows, ("name", "parameters", "description"))


def _managed_tools(run: Run) -> list[tuple[str, str, Any]]:
    return [(t.server, t.name, t.tool) for t in run.manager.list_tools()]


def _managed_prompts(run: Run) -> list[tuple[str, str, Any]]:
    return [(p.server, p.name, p.prompt) for p in run.manager.list_prompts(timeout=run.timeout)]


def _run_call(run: Run) -> int:
    server, tool = run.find("tool", lambda: _managed_tools(run), lambda tool: tool.name)
    client = run.manager.client(server, timeout=run.timeout)
    arguments = tool_arguments(run.args.arguments, tool.input_schema)
    check_argument_names(list(arguments), tool.input_schema, f"tool {tool.name!r}")
    if run.args.arguments == []:  # no ARG at all (``-`` or a JSON object, even an empty one, is a dict)
        missing_required(arguments, tool.input_schema, f"tool {tool.name!r}")
    if run.args.no_wait:
        task = client.start_tool(tool.name, arguments, timeout=run.timeout)
        if task.id is None:  # answered at once: the result is there
            return _tool_result_written(run, task.result())
        if run.args.json:
            write_json(task.snapshot, run.out)
        else:
            run.out.write(f"{task.id}\n")
        return EXIT_OK
    progress = ProgressLine(run.err)
    try:
        # The progress line is the command's own display: no progress bar beside it on the same terminal.
        result = client.call_tool(tool.name, arguments, timeout=run.timeout, on_progress=progress, progress_bar=False)
    finally:
        progress.finish()
    return _tool_result_written(run, result)


def _tool_result_written(run: Run, result: CallToolResult) -> int:
    """Write a tool's result (``--json``: as the server sent it); ``ToolError`` for ``isError``."""
    if run.args.json:
        write_json(dict(result.raw), run.out)
    elif not result.is_error:
        write_tool_result(result, run.out)
    result.raise_for_error()
    return EXIT_OK


def _run_task(run: Run) -> int:
    """``task [SERVER] status|wait|cancel ID``: a task re-attached by its id (``Client.task``)."""
    client = run.client()
    if run.args.action == "wait":
        progress = ProgressLine(run.err)
        try:
            task = client.task(run.args.task_id, timeout=run.timeout, on_status=status_as_progress(progress))
            result = task.result(timeout=run.timeout)
        finally:
            progress.finish()
        return _tool_result_written(run, result)
    task = client.task(run.args.task_id, timeout=run.timeout)
    if run.args.action == "cancel":
        task.cancel(timeout=run.timeout)
        task.refresh(timeout=run.timeout)  # the extension's cancel is an acknowledgement: ask where it is now
    if run.args.json:
        write_json(task.snapshot, run.out)
    else:
        message = f": {task.status_message}" if task.status_message else ""
        run.out.write(f"{task.status}{message}\n")
    return EXIT_OK


def _prompt_arguments(run: Run, prompt: Any, split: Any) -> dict[str, str]:
    """A prompt's arguments from key=value pairs (as text) or a JSON object (of strings), checked by name."""
    if isinstance(split, dict):
        bad = [key for key, value in split.items() if not isinstance(value, str)]
        if bad:
            raise UsageError(f"prompt arguments are strings; {bad[0]!r} is not")
        arguments: dict[str, str] = split
    else:
        arguments = dict(split)
    schema: dict[str, Any] = {"properties": {a.name: {} for a in prompt.arguments}}
    if arguments and not prompt.arguments:
        raise UsageError(f"prompt {prompt.name!r} takes no arguments")
    check_argument_names(list(arguments), schema, f"prompt {prompt.name!r}")
    return arguments


def _run_prompt(run: Run) -> int:
    server, prompt = run.find("prompt", lambda: _managed_prompts(run), lambda prompt: prompt.name)
    arguments = _prompt_arguments(run, prompt, run.args.arguments)
    client = run.manager.client(server, timeout=run.timeout)
    result = client.get_prompt(prompt.name, arguments, timeout=run.timeout)
    if run.args.json:
        write_json(dict(result.raw), run.out)
    else:
        write_prompt(result, run.out)
    return EXIT_OK


def _run_complete(run: Run) -> int:
    pairs: list[tuple[str, str]] = run.args.arguments
    if run.args.kind == "prompt":
        server, prompt = run.find("prompt", lambda: _managed_prompts(run), lambda prompt: prompt.name)
        _prompt_arguments(run, prompt, pairs)
        ref: dict[str, Any] = {"type": "ref/prompt", "name": prompt.name}
    else:
        assert run.server is not None  # place_positionals asks for SERVER among several
        server, ref = run.server, {"type": "ref/resource", "uri": run.args.name}
    client = run.manager.client(server, timeout=run.timeout)
    *context, argument = pairs
    completion = client.complete(ref, argument, dict(context) if context else None, timeout=run.timeout)
    if run.args.json:
        write_json(dict(completion.raw), run.out)
        return EXIT_OK
    run.out.writelines(f"{value}\n" for value in completion.values)
    total = completion.total if completion.total is not None else len(completion.values)
    if completion.has_more or total > len(completion.values):
        run.err.write(f"({len(completion.values)} of {total if total > len(completion.values) else 'more'})\n")
    return EXIT_OK


def _run_resources(run: Run) -> int:
    found = run.collect(
        "resources/list",
        lambda client: client.list_resources(timeout=run.timeout),
        lambda manager: [(m.server, m.resource) for m in manager.list_resources(timeout=run.timeout)],
    )
    if run.args.json:
        return run.listed_json([{"server": server, "resource": dict(r.raw)} for server, r in found])
    header: tuple[str, ...] = ("uri", "name", "type", "description")
    rows: list[tuple[str, ...]] = [(r.uri, r.name, r.mime_type or "", first_line(r.description)) for _, r in found]
    if run.server is None:
        header = ("server", *header)
        rows = [(server, *row) for (server, _), row in zip(found, rows)]
    return run.listed("resources", rows, header)


def _run_read(run: Run) -> int:
    result = run.client().read_resource(run.args.uri, timeout=run.timeout)
    if run.args.json:
        write_json(dict(result.raw), run.out)
        return EXIT_OK
    if run.args.output is not None:
        data = b"".join(item.data for item in result.contents)
        with open(run.args.output, "wb") as file:
            file.write(data)
        run.err.write(f"wrote {len(data)} bytes to {run.args.output}\n")
        return EXIT_OK
    interactive = is_terminal(run.out)
    binary_out = getattr(run.out, "buffer", None)
    for item in result.contents:
        if not item.is_binary:
            # Ended by a newline as every command's text is (--output FILE keeps the exact bytes).
            text = item.text or ""
            run.out.write(text if text.endswith("\n") else text + "\n")
        elif interactive or binary_out is None:
            run.out.write(f"{describe_contents(item)} (--output FILE saves it)\n")
        else:
            run.out.flush()
            binary_out.write(item.data)
            binary_out.flush()
    return EXIT_OK


def _run_prompts(run: Run) -> int:
    # Without SERVER the names are qualified, as tools' are.
    found = run.collect(
        "prompts/list",
        lambda client: [(p.name, p) for p in client.list_prompts(timeout=run.timeout)],
        lambda manager: [(m.server, (m.name, m.prompt)) for m in manager.list_prompts(timeout=run.timeout)],
    )
    if run.args.json:
        return run.listed_json([{"server": server, "name": name, "prompt": dict(p.raw)} for server, (name, p) in found])
    rows = [
        (name, ", ".join(a.name + ("" if a.required else "?") for a in p.arguments), first_line(p.description))
        for _, (name, p) in found
    ]
    return run.listed("prompts", rows, ("name", "arguments", "description"))


def _run_ping(run: Run) -> int:
    if run.server is not None:
        run.client()
    else:
        run.wait_for_all()
    clients = run.manager.clients
    results: list[dict[str, Any]] = []
    for status in run.manager.status().values():
        ms: Optional[float] = None
        error: Optional[str] = None
        client = clients.get(status.name)
        if client is not None:
            started = time.perf_counter()
            try:
                client.ping(timeout=run.timeout)
                ms = round((time.perf_counter() - started) * 1000, 3)
            except MCPError as exc:
                error = str(exc)
        elif status.state is not ServerState.DISABLED:
            error = status.error or f"still {status.state.value}"
        results.append({"server": status.name, "state": status.state.value, "ms": ms, "error": error})
    if run.args.json:
        write_json(results, run.out)
    else:
        rows = [("server", "round trip")]
        for r in results:
            shown = f"{r['ms']:.1f} ms" if r["ms"] is not None else f"{r['state']}: {first_line(r['error'])}"
            rows.append((r["server"], "disabled" if r["state"] == "disabled" else shown))
        table(rows, run.out, indent="")
    return EXIT_FAILURE if any(r["error"] is not None for r in results) else EXIT_OK


COMMANDS: dict[str, Callable[[Run], int]] = {
    "servers": _run_servers,
    "tools": _run_tools,
    "call": _run_call,
    "resources": _run_resources,
    "read": _run_read,
    "prompts": _run_prompts,
    "prompt": _run_prompt,
    "complete": _run_complete,
    "ping": _run_ping,
    "task": _run_task,
}
