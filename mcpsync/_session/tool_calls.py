"""A ``tools/call`` from its arguments to the typed result or the task: ``Client.call_tool``,
``start_tool`` and ``task`` (``ToolMethods``, a part of ``Client``: its base) over ``ToolCalls``.

``ToolCalls`` asks for a task where a 2025-11-25 tool wants one (``execution.taskSupport``, the
server's ``tasks.requests.tools.call``), says an unknown name with the closest names the held tool
list has, checks structured content against the tool's ``outputSchema``, and hands a task the server
made to a ``ToolTask`` (tasks.py). The request itself is the client's (``Client._exchange``), called
straight from here: no frame between.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from typing import Any, Callable, Optional, Protocol, Union

from .._core.eras import MODERN_VERSIONS
from .._core.errors import MCPError, ProtocolError, RequestTimeout, ServerError, UnknownNameError
from .._core.feature_errors import TaskNotFound
from .._core.jsonrpc import ErrorCode
from .._core.text import cut, did_you_mean
from .._core.timeouts import USE_DEFAULT, Timeout, resolve_timeout
from .._wire.base import Transport
from . import server_capabilities
from .models import CallOrigin, CallToolResult, Tool, typed_call_result
from .origins import key_of
from .progress import ProgressCallback
from .progress_bars import progress_bar_for
from .structured_output import OutputSchemas
from .tasks import AnswerInput, OnStatus, ToolTask, created_task, status_as_progress
from .tracebacks import short_interrupts

__all__ = ["Exchange", "ToolCalls", "ToolMethods"]

logger = logging.getLogger("mcpsync.client")


#: ``(method, params, seconds, on_progress, max_total_timeout, progress_resets_timeout) -> result``:
#: the client's request, to its final answer.
Exchange = Callable[
    [str, Optional[dict[str, Any]], Optional[float], Optional[ProgressCallback], Optional[float], Optional[bool]],
    dict[str, Any],
]


class ToolMethods:
    """A ``Client``'s tool calls (see the module docstring)."""

    # What they use of their Client.
    transport: Transport
    _tool_calls: ToolCalls

    @short_interrupts
    def call_tool(
        self,
        name: str,
        arguments: Optional[Mapping[str, Any]] = None,
        *,
        timeout: Timeout = USE_DEFAULT,
        meta: Optional[Mapping[str, Any]] = None,
        on_progress: Optional[ProgressCallback] = None,
        max_total_timeout: Optional[float] = None,
        progress_resets_timeout: Optional[bool] = None,
        progress_bar: Optional[bool] = None,
    ) -> CallToolResult:
        """Call a tool and block for its result.

        A tool's own failure comes back as ``result.is_error`` (call
        ``result.raise_for_error()`` to raise ``ToolError``); a JSON-RPC error
        (bad arguments, say) raises ``ServerError``. A name the server does not
        list raises ``UnknownNameError`` with the closest names, whether the
        server answered with an error or with an ``is_error`` result (most do),
        and whether or not the tools were listed first (if not, a failed call
        lists them once to decide): a typo is never a result to overlook.

        A call the server runs as a task (the tasks extension on 2026-07-28, or
        a 2025-11-25 tool whose ``execution.taskSupport`` asks for one) is
        waited for here: the task is polled at the server's pace, the input it
        asks for goes to the same handlers, and its result comes back as if the
        call had been synchronous. Its status messages are progress (a bar,
        ``on_progress(step, None, message)``). A timeout or Ctrl-C cancels the
        task on the server. ``start_tool`` gives you the task instead.

        Args:
            arguments: the tool's arguments (a JSON object).
            timeout: seconds; ``None`` for no limit; default: the transport's. It
                covers the whole call, a task's too.
            meta: passed through as the request's ``_meta``.
            on_progress, max_total_timeout, progress_resets_timeout: as for ``request``.
            progress_bar: show the server's progress as a bar (tqdm): ``True``,
                ``False``, or ``None`` for the global setting, which by default
                shows bars only when someone watches (``mcpsync.set_progress_bars``).
                A bar never changes the timeout: the same call times out the
                same way in a terminal, a notebook, and under cron.

        Raises:
            UnknownNameError: the server's tool list has no tool ``name``, and the call failed.
            ServerError: the server answered with a JSON-RPC error.
            OutputSchemaError: the tool declared an ``outputSchema`` that its
                ``structuredContent`` does not match (``validate_structured_output``
                turns the check off). The result is on the error's ``result``.
            TaskCancelled: the call's task was cancelled on the server.
        """
        seconds = resolve_timeout(timeout, self.transport.default_timeout)
        started = time.monotonic()
        if progress_resets_timeout is None:
            # Decided by the caller's own arguments, before a bar (there only when someone watches) joins in.
            progress_resets_timeout = on_progress is not None or max_total_timeout is not None
        bar = progress_bar_for(progress_bar, name, on_progress)
        progress = bar.update if bar else on_progress
        try:
            on_status = status_as_progress(progress) if progress else None
            done = self._tool_calls.start(
                name,
                arguments,
                meta,
                seconds,
                progress,
                max_total_timeout,
                progress_resets_timeout,
                on_status,
                False,
                started,
            )
            if isinstance(done, CallToolResult):
                return done
            return self._tool_calls.wait(done, seconds, started)
        finally:
            if bar is not None:
                bar.close()

    @short_interrupts
    def start_tool(
        self,
        name: str,
        arguments: Optional[Mapping[str, Any]] = None,
        *,
        timeout: Timeout = USE_DEFAULT,
        meta: Optional[Mapping[str, Any]] = None,
        on_status: Optional[OnStatus] = None,
    ) -> ToolTask:
        """Call a tool and return its task (a ``ToolTask``) as soon as the server has taken the call.

        A server that answers at once gives a task that is done already. On
        2025-11-25, a task is asked for when the server runs tools as tasks and
        the tool allows it (``execution.taskSupport``); on 2026-07-28 the server
        decides. ``task.result(timeout=)`` waits for the end (the input the task
        asks for goes to the client's handlers), ``task.cancel()`` ends it,
        ``task.status`` / ``task.status_message`` say where it is, and
        ``on_status(task)`` hears each change. ``timeout`` bounds this call only.
        """
        seconds = resolve_timeout(timeout, self.transport.default_timeout)
        started = self._tool_calls.start(name, arguments, meta, seconds, on_status=on_status, ask_for_task=True)
        return started if isinstance(started, ToolTask) else self._tool_calls.task(name, None, on_status, done=started)

    @short_interrupts
    def task(
        self,
        task_id: str,
        *,
        tool: Optional[str] = None,
        timeout: Timeout = USE_DEFAULT,
        on_status: Optional[OnStatus] = None,
    ) -> ToolTask:
        """Re-attach to a task by its id: the ``ToolTask`` that ``start_tool`` gave, from any client of the
        same server (another connection, another process, after a crash), as the tasks extension means
        task ids to be kept.

        The task is asked for at once (``tasks/get``), so ``task.status`` is the server's word of now;
        ``task.refresh()``, ``task.result(timeout=)`` and ``task.cancel()`` work as on a task just
        started. Works with the tasks extension (2026-07-28) and the 2025-11-25 tasks (``tasks/get``,
        ``tasks/result``), where the server keeps tasks beyond the session that made them.

        Args:
            task_id: the server's task id (``ToolTask.id``).
            tool: the tool's name, if known: its result is then checked against the tool's
                ``outputSchema``, as ``call_tool`` does (the server does not say which tool a task runs).
            timeout: seconds for the ``tasks/get``; default: the transport's.
            on_status: ``fn(task)`` on each change of status, as for ``start_tool``.

        Raises:
            TaskNotFound: the server knows no task of that id (-32602: never made, another
                server's or user's, or expired).
            ServerError: the server refused otherwise (-32601: it runs no tasks).
            ProtocolError: the server's ``tasks/get`` described another task (nothing is done with that
                one: no ``ToolTask`` for it, nothing cancelled).
        """
        seconds = resolve_timeout(timeout, self.transport.default_timeout)
        return self._tool_calls.attach(task_id, tool, seconds, on_status)


class ToolClient(Protocol):
    """What ``ToolCalls`` needs of its client."""

    @property
    def name(self) -> str: ...

    @property
    def era(self) -> Optional[str]: ...

    protocol_version: Optional[str]
    server_capabilities: dict[str, Any]
    validate_structured_output: bool

    def list_tools(self, *, timeout: Timeout = USE_DEFAULT, cache: bool = True) -> list[Tool]: ...

    def request(
        self, method: str, params: Optional[dict[str, Any]] = None, *, timeout: Timeout = USE_DEFAULT
    ) -> dict[str, Any]: ...


class ToolCalls:
    """A client's ``tools/call``, from its arguments to the typed result or the ``ToolTask``: a task asked
    for where a 2025-11-25 tool wants one, an unknown name said with the closest names, the structured
    content checked against the tool's ``outputSchema``.

    Args:
        client: the ``Client``.
        exchange: its request, to the final answer (progress, renegotiation, ``input_required`` rounds).
        require: ``fn(method)``: the client is open and may send ``method``.
        held_tools: ``fn() -> the tool list the client holds``, if any.
        output_schemas: the client's tool output schemas.
        answer: answers one input request with the client's handlers.
        default_timeout: ``fn() -> seconds``, the transport's default timeout (a task's own requests).
    """

    def __init__(
        self,
        client: ToolClient,
        exchange: Exchange,
        require: Callable[[str], None],
        held_tools: Callable[[], Optional[list[Tool]]],
        output_schemas: OutputSchemas,
        answer: AnswerInput,
        default_timeout: Callable[[], Optional[float]],
    ) -> None:
        self._default_timeout = default_timeout
        self._client = client
        self._client_key = key_of(client)  # what its results' origin names it by
        self._exchange = exchange
        self._require = require
        self._held_tools = held_tools
        self._output_schemas = output_schemas
        self._answer = answer

    def start(
        self,
        name: str,
        arguments: Optional[Mapping[str, Any]],
        meta: Optional[Mapping[str, Any]],
        seconds: Optional[float],
        on_progress: Optional[ProgressCallback] = None,
        max_total_timeout: Optional[float] = None,
        progress_resets_timeout: Optional[bool] = None,
        on_status: Optional[OnStatus] = None,
        ask_for_task: bool = False,
        started: Optional[float] = None,
    ) -> Union[CallToolResult, ToolTask]:
        """``tools/call``, as a task where the 2025-11-25 tool asks for one (or allows one, with
        ``ask_for_task``): the result when the server answered at once, else the ``ToolTask``.
        ``started``: the ``time.monotonic()`` the call's ``seconds`` count from (default: now)."""
        if arguments is not None and type(arguments) is not dict and not isinstance(arguments, Mapping):
            raise TypeError(f"arguments must be a mapping, not {type(arguments).__name__}")
        self._require("tools/call")
        client = self._client
        if started is None:
            started = time.monotonic()
        params: dict[str, Any] = {"name": name, "arguments": dict(arguments or {})}
        if meta is not None:
            params["_meta"] = dict(meta)
        modern = client.protocol_version in MODERN_VERSIONS
        left = seconds
        wanted = ("required", "optional") if ask_for_task else ("required",)
        if modern or "tasks" in client.server_capabilities:  # else (the usual) no listing, and no task
            # Once: a modern listing says which headers go with a call (x-mcp-header) and which names are
            # unknown; a 2025-11-25 server that runs tools as tasks says in its listing which tools need one.
            runs_tasks = not modern and self.runs_tasks()
            if (modern or runs_tasks) and self._held_tools() is None:
                # A server that does not declare tools may list them all the same (strict: _require refused).
                server_capabilities.items_served(
                    lambda: client.list_tools(timeout=seconds), client.server_capabilities, "tools/list", strict=False
                )
                left = _left(seconds, started)
            if runs_tasks and self.legacy_task_support(name) in wanted:
                params["task"] = {}
        while True:  # twice at most: a 2025-11-25 tool that runs only as a task goes again as one
            try:
                result = self._exchange(
                    "tools/call", params, left, on_progress, max_total_timeout, progress_resets_timeout
                )
                break
            except RequestTimeout as exc:
                if seconds is None or left == seconds or exc.timeout != left:
                    raise  # the caller's figure already (or max_total_timeout's)
                raise RequestTimeout(exc.method, seconds) from None  # the caller's figure, not what was left of it
            except ServerError as exc:
                # -32602 is what the spec has a server answer for an unknown tool; other errors say something else.
                unknown = (
                    self.unknown_tool(name, exc.message, _left(seconds, started))
                    if type(exc) is ServerError and exc.code == -32602
                    else None
                )
                if unknown is not None:
                    raise unknown from exc
                # A 2025-11-25 tool that runs only as a task, called before its listing said so: list, and again.
                if modern or "task" in params or exc.code != -32601 or not self.runs_tasks():
                    raise
                client.list_tools(timeout=_left(seconds, started), cache=False)
                if self.legacy_task_support(name) not in wanted:
                    raise
                params = {**params, "task": {}}
                left = _left(seconds, started)
        # A task is made only where the result says so: a modern resultType, a legacy task member.
        snapshot = created_task(result, modern=modern) if ("resultType" if modern else "task") in result else None
        if snapshot is None:
            if result.get("isError") is True:
                unknown = self.unknown_tool(name, CallToolResult.from_dict(result, name).text, _left(seconds, started))
                if unknown is not None:
                    raise unknown
            return self.result(result, name, seconds, CallOrigin(self._client_key, params["arguments"]))
        return self.task(name, snapshot, on_status, origin=CallOrigin(self._client_key, params["arguments"]))

    @staticmethod
    def wait(task: ToolTask, seconds: Optional[float], started: float) -> CallToolResult:
        """A blocking call's task, waited for within what is left of ``seconds``; given up (cancelled on
        the server) if it fails, times out or is interrupted."""
        try:
            return task.result(timeout=_left(seconds, started))  # type: ignore[no-any-return]
        except RequestTimeout as exc:
            task.give_up()
            raise RequestTimeout(exc.method, seconds or 0.0) from None  # the caller's figure
        except BaseException:  # Ctrl-C, a handler's failure, a server's lie: the task is not left running
            task.give_up()
            raise

    def attach(
        self, task_id: str, tool: Optional[str], seconds: Optional[float], on_status: Optional[OnStatus]
    ) -> ToolTask:
        """A task re-attached by its id (``Client.task``), asked for at once with ``tasks/get``."""
        if not isinstance(task_id, str) or not task_id:
            raise TypeError(f"task_id must be a non-empty string, not {task_id!r}")
        try:
            snapshot = self._client.request("tasks/get", {"taskId": task_id}, timeout=seconds)
        except ServerError as exc:
            if exc.code != ErrorCode.INVALID_PARAMS:
                raise
            raise TaskNotFound(exc.code, exc.message, exc.data, task_id=task_id, server=self._client.name) from None
        described = snapshot.get("taskId") if isinstance(snapshot, dict) else None
        if described != task_id:  # as a running task's answers are checked (ToolTask._take): never another's
            raise ProtocolError(
                f"{self._client.name}: tasks/get {cut(task_id, 120)!r}: the server described task "
                f"{cut(str(described), 120)!r} instead"
            )
        return self.task(tool, snapshot, on_status)

    def unknown_tool(self, name: str, said: str, timeout: Optional[float]) -> Optional[UnknownNameError]:
        """The error for a failed call of a tool the server's tool list does not name (``None``: it names
        it, or the list cannot be had). ``said``: the server's words, whose start the message quotes.

        With no list held yet, the tools are listed once, within ``timeout``: a typo is the same
        ``UnknownNameError`` whether or not the caller listed the tools first (a list that fails,
        or a server that lists none, leaves the server's answer as it was)."""
        tools = self._held_tools()
        if tools is None:
            try:
                tools = self._client.list_tools(timeout=timeout)
            except MCPError as exc:  # the server's own answer stands; why the typo check could not run is logged
                logger.debug("server %r: tools/list to check the tool name %r failed: %s", self._client.name, name, exc)
                return None
        if any(tool.name == name for tool in tools):
            return None
        known = [tool.name for tool in tools]
        hint = did_you_mean(name, known) or (f"; its tools: {cut(', '.join(known), 200)}" if known else "")
        answered = f" (it answered: {cut(said, 120)!r})" if said else ""
        return UnknownNameError(f"server {self._client.name!r} lists no tool named {name!r}{hint}{answered}")

    def task(
        self,
        name: Optional[str],
        snapshot: Optional[dict[str, Any]],
        on_status: Optional[OnStatus],
        done: Optional[CallToolResult] = None,
        origin: Optional[CallOrigin] = None,
    ) -> ToolTask:
        """The ``ToolTask`` of a call: the server's task, or (``done``) a call it answered at once;
        ``name`` ``None``: a task re-attached by id, its tool unknown (no ``outputSchema`` check).
        ``origin``: the call its result comes from (``None``: re-attached, its arguments unknown)."""
        client = self._client
        seconds = self._default_timeout()

        def finish(final: dict[str, Any]) -> CallToolResult:
            if name is None:
                return CallToolResult.from_dict(final, "")
            return self.result(final, name, seconds, origin)

        return ToolTask(
            name or "",
            snapshot or {},
            modern=client.era == "modern",
            request=lambda method, params, left: client.request(method, params, timeout=left),
            answer=self._answer,
            finish=finish,
            default_timeout=seconds,
            server=client.name,
            on_status=on_status,
            done=done,
        )

    def runs_tasks(self) -> bool:
        """Whether a 2025-11-25 server runs tool calls as tasks (``tasks.requests.tools.call``)."""
        tasks = self._client.server_capabilities.get("tasks")
        if tasks is None:
            return False  # the usual: no tasks at all (asked on every legacy call)
        requests = tasks.get("requests") if isinstance(tasks, dict) else None
        tools = requests.get("tools") if isinstance(requests, dict) else None
        return isinstance(tools, dict) and "call" in tools

    def legacy_task_support(self, name: str) -> str:
        """A 2025-11-25 tool's ``taskSupport``, as its listing says (``"forbidden"`` when unknown)."""
        if not self.runs_tasks():
            return "forbidden"
        for tool in self._held_tools() or ():
            if tool.name == name:
                return str(tool.task_support)
        return "forbidden"

    def result(
        self, result: dict[str, Any], name: str, timeout: Optional[float], origin: Optional[CallOrigin] = None
    ) -> CallToolResult:
        """A ``tools/call`` result, typed (from the call ``origin``), its structured content checked
        against the tool's schema."""
        typed = typed_call_result(result, name, origin)
        self.check_structured(typed, name, timeout)
        return typed

    def check_structured(self, typed: CallToolResult, name: str, timeout: Optional[float]) -> None:
        """Check a typed result's structured content against its tool's ``outputSchema`` (``OutputSchemaError``)."""
        if not self._client.validate_structured_output:
            return
        schemas = self._output_schemas
        declared = schemas.declared
        # Checked when it carries structured content, or when its tool declares a schema (which then
        # demands some); a result of neither kind, the usual, is not looked at again.
        if "structuredContent" in typed.raw or (declared is not None and name in declared):
            if declared is None:
                self._client.list_tools(timeout=timeout)  # once: the schemas are kept until the tool list changes
            schemas.check(typed)


def _left(seconds: Optional[float], started: float) -> Optional[float]:
    """What is left of ``seconds`` counted from ``started`` (``None``: no limit); at least a millisecond."""
    return None if seconds is None else max(0.001, seconds - (time.monotonic() - started))
