"""Tool calls that the server runs as tasks, in both eras.

A task is the server's handle on work that outlives one request. ``ToolTask``
is ours on the server's: its ``status``, ``result(timeout=)``, ``cancel()``.
Blocking ``call_tool`` drives one to its end and returns the final result as
if the call had been synchronous; ``start_tool`` hands it over.

Two designs are in use:

* The tasks extension (``io.modelcontextprotocol/tasks``, on 2026-07-28): the
  client declares the extension in every request's capabilities, and the
  server decides per call whether to answer ``tools/call`` with a task
  (``resultType: "task"``, the task's fields at the top level). ``tasks/get``
  tells its state and, at the end, carries the ``result`` (or the JSON-RPC
  ``error``) inline; input the task needs comes as ``inputRequests`` in
  ``tasks/get`` and is answered, once per key, with ``tasks/update``, by the
  client's own handlers (``elicitation=``, ``sampling=``, ``roots=``).
* The 2025-11-25 experimental tasks: the client asks for a task (``params.task``)
  when the tool's ``execution.taskSupport`` says so and the server declares
  ``tasks.requests.tools.call``; the answer is ``{"task": {...}}``. ``tasks/get``
  tells the state; ``tasks/result`` blocks until the end and returns the
  result (the server sends its elicitation requests while it waits, and they
  go to the same handlers as any other).

Polling honours the server's ``pollIntervalMs`` (``pollInterval``), within
``MIN_POLL_INTERVAL`` .. ``MAX_POLL_INTERVAL``, and never sleeps past the
caller's deadline. A blocking call that times out or is interrupted cancels
the task on the server (``tasks/cancel``, bounded by ``CANCEL_WAIT``) before it
raises.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Mapping
from typing import Any, Callable, Optional

from .._core.errors import MCPError, ProtocolError, RequestTimeout, ServerError
from .._core.feature_errors import TaskCancelled
from .._core.timeouts import USE_DEFAULT, Timeout, resolve_timeout
from .cancel_scope import outside_scopes, pause as sleep
from .input_required import too_many_inputs
from .progress import ProgressCallback
from .tracebacks import short_interrupts

__all__ = [
    "CANCEL_WAIT",
    "MAX_POLL_INTERVAL",
    "MIN_POLL_INTERVAL",
    "STATUSES",
    "TASKS_EXTENSION",
    "TERMINAL",
    "ToolTask",
    "created_task",
    "status_as_progress",
]

logger = logging.getLogger("mcpsync.client")

TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
STATUSES = ("working", "input_required", "completed", "failed", "cancelled")
TERMINAL = frozenset({"completed", "failed", "cancelled"})
#: Seconds between polls when the server suggests no interval.
DEFAULT_POLL_INTERVAL = 1.0
#: Bounds on the server's suggestion, in seconds: no busy loop, no hour-long sleep.
MIN_POLL_INTERVAL = 0.05
MAX_POLL_INTERVAL = 30.0
#: Seconds ``tasks/cancel`` may take when a blocking call gives up on its task.
CANCEL_WAIT = 2.0
#: Input-request keys a task may ask in its life before we call it a loop.
MAX_TASK_INPUTS = 100

#: ``(method, params, timeout) -> result``: the client's ``request``.
Request = Callable[[str, Optional[dict[str, Any]], Optional[float]], dict[str, Any]]
#: ``(method, params) -> response``: one input request answered by the client's handlers.
AnswerInput = Callable[[str, Optional[dict[str, Any]]], dict[str, Any]]
#: ``fn(task)``, called on the caller's thread whenever the status or its message changes.
OnStatus = Callable[["ToolTask"], None]


def created_task(result: Mapping[str, Any], *, modern: bool) -> Optional[dict[str, Any]]:
    """The task a ``tools/call`` result created (its fields), or ``None`` for an ordinary result."""
    if modern:
        return dict(result) if result.get("resultType") == "task" else None
    task = result.get("task")
    if isinstance(task, dict) and "content" not in result:
        return task
    return None


def status_as_progress(progress: ProgressCallback) -> OnStatus:
    """A task's status messages as progress steps: ``progress(step, None, message)``."""
    steps = [0]

    def on_status(task: ToolTask) -> None:
        if task.status_message:
            steps[0] += 1
            progress(steps[0], None, task.status_message)

    return on_status


class ToolTask:
    """A tool call the server runs as a task (from ``Client.start_tool``, inside ``call_tool``, or
    re-attached by its id with ``Client.task``).

    Attributes:
        id: the server's task id (``None`` when the server answered at once: then it is done already).
        tool: the tool's name (``""`` for a task re-attached by id without it: ``Client.task``).
        status: ``"working"``, ``"input_required"``, ``"completed"``, ``"failed"`` or ``"cancelled"``.
        status_message: the server's words on the state, if any.
        snapshot: the task as the server last described it (a dict).
    """

    def __init__(
        self,
        tool: str,
        snapshot: Mapping[str, Any],
        *,
        modern: bool,
        request: Request,
        answer: AnswerInput,
        finish: Callable[[dict[str, Any]], Any],
        default_timeout: Optional[float],
        server: str,
        on_status: Optional[OnStatus] = None,
        done: Any = None,
    ) -> None:
        self.tool = tool
        self.modern = modern
        self._request = request
        self._answer_input = answer
        self._finish = finish
        self._default_timeout = default_timeout
        self._server = server
        self._on_status = on_status
        self._answered: set[str] = set()
        self._result: Any = None
        self.snapshot: dict[str, Any] = {}
        self.id: Optional[str] = None
        self.status = "working"
        self.status_message: Optional[str] = None
        if done is not None:  # answered at once (the call's final result): no task
            self.status = "completed"
            self._result = done
            return
        self.id = _task_id(snapshot, f"{server}: tools/call {tool}")
        self._take(snapshot)

    @property
    def poll_interval(self) -> float:
        """Seconds the server would like between polls, within the bounds."""
        ms = self.snapshot.get("pollIntervalMs" if self.modern else "pollInterval")
        if not isinstance(ms, (int, float)) or isinstance(ms, bool) or not math.isfinite(ms) or ms < 0:
            return DEFAULT_POLL_INTERVAL
        return min(MAX_POLL_INTERVAL, max(MIN_POLL_INTERVAL, ms / 1000))

    @property
    def ttl(self) -> Optional[float]:
        """Seconds the server keeps the task from its creation (``None``: no limit, or not said)."""
        ms = self.snapshot.get("ttlMs" if self.modern else "ttl")
        return ms / 1000 if isinstance(ms, (int, float)) and not isinstance(ms, bool) else None

    @property
    def _call(self) -> str:
        return f"tools/call {self.tool}" if self.tool else "tools/call"

    def done(self) -> bool:
        """Whether the task has ended (completed, failed or cancelled), as last seen."""
        return self.status in TERMINAL

    def __repr__(self) -> str:
        message = f": {self.status_message}" if self.status_message else ""
        where = f" {self.id}" if self.id else ""
        return f"<ToolTask {self.tool!r}{where} {self.status}{message}>"

    # -- the server's side ------------------------------------------------------

    @short_interrupts
    def refresh(self, *, timeout: Timeout = USE_DEFAULT) -> str:
        """Ask the server for the task's state (``tasks/get``) and return its status.

        On 2026-07-28, input the task asks for is answered here (``tasks/update``), each request once.
        """
        if self.id is None or self.done():
            return self.status
        seconds = resolve_timeout(timeout, self._default_timeout)
        snapshot = self._request("tasks/get", {"taskId": self.id}, seconds)
        self._take(snapshot)
        return self.status

    @short_interrupts
    def cancel(self, *, timeout: Timeout = USE_DEFAULT) -> None:
        """Ask the server to cancel the task (``tasks/cancel``). Cancellation is the server's to
        honour: the task may still complete. Nothing happens for a task that has ended."""
        if self.id is None or self.done():
            return
        seconds = resolve_timeout(timeout, self._default_timeout)
        answer = self._request("tasks/cancel", {"taskId": self.id}, seconds)
        if not self.modern and isinstance(answer, dict) and answer.get("taskId") == self.id:
            self._take(answer)  # 2025-11-25 answers with the task

    @short_interrupts
    def result(self, *, timeout: Timeout = USE_DEFAULT, poll_interval: Optional[float] = None) -> Any:
        """Wait for the task's end and return the tool's result (a ``CallToolResult``).

        Args:
            timeout: seconds for the whole wait; ``None``: no limit; default: the transport's.
                Running out raises ``RequestTimeout`` and leaves the task running (``cancel()`` ends it).
            poll_interval: seconds between polls; default: the server's suggestion.

        Raises:
            ServerError: the task failed with a JSON-RPC error (as the call itself would have).
            TaskCancelled: the task was cancelled.
            RequestTimeout: the task did not end in time.
        """
        if self._result is not None:
            return self._result
        seconds = resolve_timeout(timeout, self._default_timeout)
        deadline = math.inf if seconds is None else time.monotonic() + seconds
        # 2025-11-25: input the task needs comes through tasks/result, so the polling stops there too.
        while not self.done() and (self.modern or self.status != "input_required"):
            pause = self.poll_interval if poll_interval is None else max(MIN_POLL_INTERVAL, poll_interval)
            sleep(max(0.0, min(pause, deadline - time.monotonic())), "tasks/get")  # a CancelScope cuts it short
            left = deadline - time.monotonic()
            if left <= 0:
                raise RequestTimeout(f"{self._call}: task {self.id} still {self.status}", seconds or 0.0)
            self.refresh(timeout=None if left == math.inf else left)
        self._result = self._final(deadline)
        return self._result

    def give_up(self) -> None:
        """Cancel the task on the server after a timeout or an interrupt: bounded, and quiet about failures."""
        try:
            with outside_scopes():  # a cancelled CancelScope is why we are here: the cancel must go
                self.cancel(timeout=CANCEL_WAIT)
        except (MCPError, OSError) as exc:
            logger.info("server %r: could not cancel task %s of %r: %s", self._server, self.id, self.tool, exc)

    # -- reading what the server says ----------------------------------------

    def _final(self, deadline: float) -> Any:
        where = f"{self._server}: {self._call}: task {self.id}"
        if self.status == "cancelled":
            raise TaskCancelled(self.tool, self.id or "", self.status_message)
        if not self.modern:
            left = deadline - time.monotonic()
            if left <= 0:
                raise RequestTimeout(f"{self._call}: task {self.id}", 0.0)
            result = self._request("tasks/result", {"taskId": self.id}, None if left == math.inf else left)
            self.status = "completed"
            return self._finish(result)
        if self.status == "failed":
            error = self.snapshot.get("error")
            if not isinstance(error, dict) or not isinstance(error.get("code"), int):
                raise ProtocolError(f"{where}: failed, without a JSON-RPC 'error'")
            raise ServerError.from_error_object(error)
        final = self.snapshot.get("result")
        if not isinstance(final, dict):
            raise ProtocolError(f"{where}: completed, without a 'result' object")
        return self._finish(final)

    def _take(self, snapshot: Mapping[str, Any]) -> None:
        """Take the server's description of the task: check it, note what changed, answer its input."""
        where = f"{self._server}: task {self.id}" + (f" of {self.tool!r}" if self.tool else "")
        if not isinstance(snapshot, Mapping):
            raise ProtocolError(f"{where}: the task is not an object")
        if snapshot.get("taskId") != self.id:
            raise ProtocolError(f"{where}: the server described task {snapshot.get('taskId')!r} instead")
        status = snapshot.get("status")
        if status not in STATUSES:
            raise ProtocolError(f"{where}: unknown status {status!r}; expected one of {', '.join(STATUSES)}")
        if self.done() and status != self.status:
            raise ProtocolError(f"{where}: went from {self.status} to {status}; an ended task does not change")
        message = snapshot.get("statusMessage")
        message = message if isinstance(message, str) else None
        changed = (status, message) != (self.status, self.status_message)
        self.snapshot = dict(snapshot)
        self.status, self.status_message = status, message
        if changed and self._on_status is not None:
            self._on_status(self)
        if self.modern and status == "input_required":
            self._answer(snapshot.get("inputRequests"), where)

    def _answer(self, requests: Any, where: str) -> None:
        """Answer the task's input requests we have not answered yet, in one ``tasks/update``."""
        if not isinstance(requests, dict):
            raise ProtocolError(f"{where}: input_required, without an 'inputRequests' object")
        new = {key: request for key, request in requests.items() if key not in self._answered}
        refused = too_many_inputs(new, where)
        if refused is not None:
            raise refused
        if len(self._answered) + len(new) > MAX_TASK_INPUTS:
            raise ProtocolError(f"{where}: asked for input {len(self._answered) + len(new)} times; given up")
        responses: dict[str, Any] = {}
        for key, request in new.items():  # one asked again while its answer is on its way: once is enough
            if not isinstance(request, dict) or not isinstance(request.get("method"), str):
                raise ProtocolError(f"{where}: input request {key!r} has no method")
            responses[key] = self._answer_input(request["method"], request.get("params"))
        if not responses:
            return
        self._answered.update(responses)
        self._request("tasks/update", {"taskId": self.id, "inputResponses": responses}, self._default_timeout)


def _task_id(snapshot: Mapping[str, Any], where: str) -> str:
    task_id = snapshot.get("taskId") if isinstance(snapshot, Mapping) else None
    if not isinstance(task_id, str) or not task_id:
        raise ProtocolError(f"{where}: the server made a task without a 'taskId'")
    return task_id
