"""Tool calls run as tasks, against scripted servers (``responses``) that do what real ones rarely do:
pace their polls oddly, ask twice, fail, cancel on their own, and lie about the task.

The real servers are in tests/interop/test_fastmcp_tasks.py (the tasks
extension) and tests/interop/test_everything_tasks.py (2025-11-25 tasks).
"""

from __future__ import annotations

import json
import time
from typing import Any, Optional

import pytest
import responses

import mcpsync
from mcpsync import NotSupportedError, ProtocolError, RequestTimeout, ServerError, TaskCancelled
from mcpsync._session.tasks import MAX_POLL_INTERVAL

URL = "http://mcp.test/mcp"
T = 10
TASK_ID = "task-7"
TOOL = {"name": "job", "inputSchema": {"type": "object"}}


def snapshot(status: str, **fields: Any) -> dict[str, Any]:
    return {"taskId": TASK_ID, "status": status, "ttlMs": 60000, "pollIntervalMs": 50, **fields}


class TaskServer:
    """A modern server whose ``tools/call`` makes a task and whose ``tasks/get`` says what it is told to."""

    def __init__(self, snapshots: list[dict[str, Any]], created: Optional[dict[str, Any]] = None) -> None:
        self.snapshots = list(snapshots)
        self.created = created or snapshot("working")
        self.seen: list[tuple[float, dict[str, str], dict[str, Any]]] = []

    def methods(self) -> list[str]:
        return [message["method"] for _, _, message in self.seen if "method" in message]

    def sent(self, method: str) -> list[tuple[float, dict[str, str], dict[str, Any]]]:
        return [entry for entry in self.seen if entry[2].get("method") == method]

    def __call__(self, request: Any) -> tuple[int, dict[str, str], str]:
        message = json.loads(request.body)
        self.seen.append((time.monotonic(), dict(request.headers), message))
        method = message["method"]
        if method == "server/discover":
            result: dict[str, Any] = {
                "supportedVersions": ["2026-07-28"],
                "capabilities": {"tools": {}, "prompts": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}},
                "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "tasks", "version": "1"}},
            }
        elif method == "tools/list":
            result = {"tools": [TOOL]}
        elif method == "tools/call":
            result = {**self.created, "resultType": "task"}
        elif method == "prompts/get":
            result = {**snapshot("working"), "resultType": "task"}
        elif method == "tasks/get":
            result = self.snapshots.pop(0) if len(self.snapshots) > 1 else self.snapshots[0]
        else:  # tasks/update, tasks/cancel: an empty acknowledgement
            result = {}
        body = {"jsonrpc": "2.0", "id": message["id"], "result": {"resultType": "complete", **result}}
        return 200, {"Content-Type": "application/json"}, json.dumps(body)


def serve(server: TaskServer) -> None:
    responses.add_callback(responses.POST, URL, callback=server)


def connect(**options: Any) -> mcpsync.Client:
    return mcpsync.connect(URL, protocol="modern", auth=False, timeout=T, **options)


@responses.activate
def test_polls_keep_the_servers_pace_and_its_status_messages_are_the_calls_progress():
    done = {"content": [{"type": "text", "text": "done"}]}
    server = TaskServer(
        [
            snapshot("working", pollIntervalMs=200, statusMessage="step 1"),
            snapshot("working", pollIntervalMs=200, statusMessage="step 2"),
            snapshot("working", pollIntervalMs=200, statusMessage="step 2"),
            snapshot("completed", result=done),
        ],
        created=snapshot("working", pollIntervalMs=200),
    )
    serve(server)
    progress: list[tuple[float, Optional[float], Optional[str]]] = []
    with connect() as client:
        result = client.call_tool("job", timeout=T, on_progress=lambda *step: progress.append(step))
    assert result.text == "done"
    polls = [at for at, _, _ in server.sent("tasks/get")]
    assert len(polls) == 4
    assert all(later - earlier >= 0.18 for earlier, later in zip(polls, polls[1:]))  # never sooner than asked
    assert progress == [(1, None, "step 1"), (2, None, "step 2")]  # a message said twice is one step
    for _, headers, message in server.sent("tasks/get"):
        assert headers["Mcp-Name"] == TASK_ID and headers["Mcp-Method"] == "tasks/get"  # routable by the task
        assert message["params"] == {"taskId": TASK_ID, "_meta": message["params"]["_meta"]}


@responses.activate
def test_input_asked_on_two_polls_is_answered_once_with_the_handlers_answer():
    ask = {"method": "elicitation/create", "params": {"message": "Sure?", "requestedSchema": {"type": "object"}}}
    roots = {"method": "roots/list"}
    server = TaskServer(
        [
            snapshot("input_required", inputRequests={"a": ask}),
            snapshot("input_required", inputRequests={"a": ask, "b": roots}),
            snapshot("completed", result={"content": []}),
        ]
    )
    serve(server)
    asked: list[str] = []

    def elicit(params: dict[str, Any]) -> dict[str, Any]:
        asked.append(params["message"])
        return {"action": "accept", "content": {}}

    with connect(elicitation=elicit, roots=["file:///w"]) as client:
        assert client.call_tool("job", timeout=T).content == []
    assert asked == ["Sure?"]
    updates = [message["params"] for _, _, message in server.sent("tasks/update")]
    assert [u["inputResponses"] for u in updates] == [
        {"a": {"action": "accept", "content": {}}},
        {"b": {"roots": [{"uri": "file:///w"}]}},
    ]
    assert all(u["taskId"] == TASK_ID for u in updates)


@responses.activate
def test_a_failed_task_raises_the_error_the_call_would_have_raised():
    serve(TaskServer([snapshot("failed", error={"code": -32603, "message": "rate limited"})]))
    with connect() as client:
        with pytest.raises(ServerError, match="rate limited") as info:
            client.call_tool("job", timeout=T)
    assert info.value.code == -32603


@responses.activate
def test_a_task_the_server_cancels_raises_task_cancelled_with_its_words():
    serve(TaskServer([snapshot("cancelled", statusMessage="an operator stopped it")]))
    with connect() as client:
        with pytest.raises(TaskCancelled, match="job: task task-7 was cancelled: an operator stopped it"):
            client.call_tool("job", timeout=T)


@pytest.mark.parametrize(
    ("lie", "complaint"),
    [
        (snapshot("sleeping"), r"unknown status 'sleeping'"),
        ({**snapshot("working"), "taskId": "someone-else"}, r"described task 'someone-else' instead"),
        (snapshot("completed"), r"completed, without a 'result' object"),
        (snapshot("failed", error="bad"), r"failed, without a JSON-RPC 'error'"),
        (snapshot("input_required", inputRequests=["x"]), r"without an 'inputRequests' object"),
        (snapshot("input_required", inputRequests={"k": {"params": {}}}), r"input request 'k' has no method"),
        (
            snapshot("input_required", inputRequests={f"k{n}": {"method": "roots/list"} for n in range(65)}),
            r"asked for 65 inputs at once; at most 64 are answered",
        ),
    ],
)
@responses.activate
def test_a_task_that_lies_is_a_protocol_error_and_is_cancelled(lie: dict[str, Any], complaint: str):
    server = TaskServer([lie])
    serve(server)
    with connect() as client:
        with pytest.raises(ProtocolError, match=complaint):
            client.call_tool("job", timeout=T)
    if lie.get("taskId") == TASK_ID and lie["status"] not in ("completed", "failed"):
        assert server.methods()[-1] == "tasks/cancel"  # not left running on the server


@responses.activate
def test_a_task_without_an_id_is_a_protocol_error():
    serve(TaskServer([snapshot("working")], created={"status": "working"}))
    with connect() as client:
        with pytest.raises(ProtocolError, match="made a task without a 'taskId'"):
            client.call_tool("job", timeout=T)


@responses.activate
def test_a_task_for_a_request_that_cannot_have_one_is_an_invalid_answer():
    serve(TaskServer([snapshot("working")]))
    with connect() as client:
        with pytest.raises(ProtocolError, match="prompts/get: the server answered with a task"):
            client.get_prompt("p", timeout=T)


@responses.activate
def test_input_without_a_handler_says_which_and_cancels_the_task():
    ask = {"method": "sampling/createMessage", "params": {"messages": [], "maxTokens": 5}}
    server = TaskServer([snapshot("input_required", inputRequests={"s": ask})])
    serve(server)
    with connect() as client:
        with pytest.raises(NotSupportedError, match=r"sampling/createMessage.*pass sampling= to Client"):
            client.call_tool("job", timeout=T)
    assert server.methods()[-1] == "tasks/cancel"


@pytest.mark.parametrize("interval", [1e12, 1e300, -5, "soon", None])
@responses.activate
def test_any_poll_interval_is_kept_in_bounds_and_the_callers_timeout_holds(interval: Any):
    server = TaskServer([snapshot("working", pollIntervalMs=interval)], created=snapshot("working"))
    serve(server)
    with connect() as client:
        task = client.start_tool("job", timeout=T)
        task.refresh(timeout=T)
        assert 0.05 <= task.poll_interval <= MAX_POLL_INTERVAL
        started = time.monotonic()
        with pytest.raises(RequestTimeout, match=r"after 0\.5s \(tools/call job: task task-7 still working\)"):
            task.result(timeout=0.5)
        assert time.monotonic() - started < T  # no sleep past the caller's deadline
        assert server.methods()[-1] != "tasks/cancel"  # the handle's own wait: the task runs on


@responses.activate
def test_a_timeout_of_a_blocking_call_cancels_the_task_and_says_the_callers_figure():
    server = TaskServer([snapshot("working")])
    serve(server)
    with connect() as client:
        with pytest.raises(RequestTimeout, match=r"after 0\.4s"):
            client.call_tool("job", timeout=0.4)
    assert server.methods()[-1] == "tasks/cancel"
    assert server.sent("tasks/cancel")[0][2]["params"]["taskId"] == TASK_ID


@responses.activate
def test_an_interrupt_while_waiting_cancels_the_task():
    server = TaskServer([snapshot("working", statusMessage="busy")])
    serve(server)

    def interrupt(*_: Any) -> None:
        raise KeyboardInterrupt

    with connect() as client:
        with pytest.raises(KeyboardInterrupt):
            client.call_tool("job", timeout=T, on_progress=interrupt)
    assert server.methods()[-1] == "tasks/cancel"


@responses.activate
def test_start_tool_on_an_ended_task_needs_no_more_requests():
    server = TaskServer([snapshot("completed", result={"content": [{"type": "text", "text": "ok"}]})])
    serve(server)
    with connect() as client:
        task = client.start_tool("job", timeout=T)
        assert repr(task) == "<ToolTask 'job' task-7 working>"
        assert task.result(timeout=T).text == "ok" and task.done()
        count = len(server.seen)
        task.cancel(timeout=T)  # ended: nothing to cancel
        assert task.result(timeout=T).text == "ok" and task.refresh(timeout=T) == "completed"
        assert len(server.seen) == count


def legacy_server(seen: list[str]) -> Any:
    """A 2025-11-25 server that runs ``job`` only as a task, and first lists it without saying so."""
    listings = [[TOOL], [{**TOOL, "execution": {"taskSupport": "required"}}]]
    task = {"taskId": TASK_ID, "status": "working", "ttl": 1000, "pollInterval": 50}

    def answer(request: Any) -> tuple[int, dict[str, str], str]:
        message = json.loads(request.body)
        if "id" not in message:
            return 202, {}, ""
        method = message["method"]
        seen.append(method + (" (task)" if "task" in message.get("params", {}) else ""))
        body: dict[str, Any]
        if method == "initialize":
            capabilities = {"tools": {}, "tasks": {"requests": {"tools": {"call": {}}}, "cancel": {}}}
            result = {"protocolVersion": "2025-11-25", "capabilities": capabilities, "serverInfo": {"name": "old"}}
            body = {"result": {**result, "serverInfo": {"name": "old", "version": "1"}}}
        elif method == "tools/list":
            body = {"result": {"tools": listings.pop(0) if len(listings) > 1 else listings[0]}}
        elif method == "tools/call" and "task" not in message["params"]:
            body = {"error": {"code": -32601, "message": "job requires task augmentation"}}
        elif method == "tools/call":
            body = {"result": {"task": task}}
        elif method == "tasks/get":
            body = {"result": {**task, "status": "completed"}}
        else:  # tasks/result
            body = {"result": {"content": [{"type": "text", "text": "from the task"}]}}
        headers = {"Content-Type": "application/json", "Mcp-Session-Id": "s"}
        return 200, headers, json.dumps({"jsonrpc": "2.0", "id": message["id"], **body})

    return answer


@responses.activate
def test_a_2025_tool_refused_without_a_task_is_listed_again_and_called_as_one():
    seen: list[str] = []
    responses.add_callback(responses.POST, URL, callback=legacy_server(seen))
    responses.add(responses.DELETE, URL, status=204)
    with mcpsync.connect(URL, protocol="legacy", auth=False, timeout=T) as client:
        assert client.call_tool("job", timeout=T).text == "from the task"
    assert seen[seen.index("tools/list") :] == [
        "tools/list",
        "tools/call",
        "tools/list",
        "tools/call (task)",
        "tasks/get",
        "tasks/result",
    ]


@responses.activate
def test_a_task_re_attached_by_id_is_asked_for_at_once_and_ends_as_a_started_one_would():
    """``client.task(id)``: one ``tasks/get`` before it returns (its status is the server's), no
    ``tools/call``; its cancellation is ``TaskCancelled`` naming the task, not a tool it cannot know."""
    server = TaskServer([snapshot("working"), snapshot("cancelled", statusMessage="stopped")])
    serve(server)
    with connect() as client:
        task = client.task(TASK_ID)
        assert (task.id, task.status, task.tool) == (TASK_ID, "working", "")
        assert server.methods() == ["server/discover", "tasks/get"]
        with pytest.raises(TaskCancelled) as info:
            task.result(timeout=T)
    assert str(info.value) == "task task-7 was cancelled: stopped"


@responses.activate
def test_a_task_re_attached_by_id_is_refused_when_the_server_describes_another_and_nothing_is_cancelled():
    """``client.task("A")`` on a server whose ``tasks/get`` describes task B: ``ProtocolError`` naming
    both, and no ``tasks/cancel`` (nor anything else) goes out for B."""
    server = TaskServer([snapshot("working", taskId="task-B")])
    serve(server)
    with connect() as client:
        with pytest.raises(ProtocolError, match=r"tasks/get 'task-7': the server described task 'task-B' instead"):
            client.task(TASK_ID)
    assert server.methods() == ["server/discover", "tasks/get"]


@responses.activate
def test_a_task_re_attached_with_its_tool_has_its_result_checked_against_the_output_schema(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``client.task(id, tool=...)``: the result is checked against that tool's ``outputSchema``, as
    ``call_tool`` checks it; without ``tool=`` nothing says which schema applies, and it is not checked."""
    wrong = {"content": [], "structuredContent": {"total": "many"}}
    schema = {"type": "object", "properties": {"total": {"type": "integer"}}}
    monkeypatch.setitem(globals(), "TOOL", {**TOOL, "outputSchema": schema})  # what tools/list says
    serve(TaskServer([snapshot("completed", result=wrong)]))
    with connect() as client:
        with pytest.raises(mcpsync.OutputSchemaError):
            client.task(TASK_ID, tool="job").result(timeout=T)
        assert client.task(TASK_ID).result(timeout=T).structured_content == {"total": "many"}


@responses.activate
def test_an_id_the_server_does_not_know_is_task_not_found_and_other_refusals_stay_server_errors():
    """-32602 to ``tasks/get`` is ``TaskNotFound`` (the id, the server, the server's words); -32601
    (a server that runs no tasks) stays the plain ``ServerError``."""
    answers = iter([-32602, -32601])

    def refuse(request: Any) -> tuple[int, dict[str, str], str]:
        message = json.loads(request.body)
        if message["method"] == "server/discover":
            return TaskServer([])(request)
        error = {"code": next(answers), "message": "Task not found"}
        return (
            200,
            {"Content-Type": "application/json"},
            json.dumps({"jsonrpc": "2.0", "id": message["id"], "error": error}),
        )

    responses.add_callback(responses.POST, URL, callback=refuse)
    with connect() as client:
        with pytest.raises(mcpsync.TaskNotFound) as info:
            client.task("gone")
        with pytest.raises(ServerError) as other:
            client.task("gone")
    assert (info.value.task_id, info.value.server, info.value.code) == ("gone", client.name, -32602)
    assert "no task 'gone'" in str(info.value) and "Task not found" in str(info.value)
    assert type(other.value) is ServerError and other.value.code == -32601


@responses.activate
def test_a_cancel_scope_ends_a_task_wait_between_polls_and_cancels_the_task() -> None:
    """A task polled every 30 s (the server's pace), waited for on a worker thread inside a
    ``CancelScope``: cancelling the scope ends the pause at once, the call raises ``RequestCancelled``
    and the task is cancelled on the server (the cancel goes out although its scope is cancelled)."""
    import threading

    server = TaskServer([snapshot("working", pollIntervalMs=30000)], created=snapshot("working", pollIntervalMs=30000))
    serve(server)
    scope = mcpsync.CancelScope()
    outcome: list[BaseException] = []

    def work() -> None:
        with scope:
            try:
                client.call_tool("job", timeout=60)
            except BaseException as exc:
                outcome.append(exc)

    with connect() as client:
        thread = threading.Thread(target=work)
        thread.start()
        deadline = time.monotonic() + T
        while "tools/call" not in server.methods() and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.1)  # into the 30 s pause (a cancel before it is refused at the pause's start, as well)
        cancelled_at = time.monotonic()
        scope.cancel("stop")
        thread.join(T)
        assert not thread.is_alive()
        assert time.monotonic() - cancelled_at < 5
    assert [type(e) for e in outcome] == [mcpsync.RequestCancelled]
    assert server.methods()[-1] == "tasks/cancel"
    assert server.sent("tasks/cancel")[0][2]["params"]["taskId"] == TASK_ID


class InputRequiredServer:
    """A modern server whose ``tools/call`` answers ``input_required`` with ``count`` roots requests."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.calls = 0

    def __call__(self, request: Any) -> tuple[int, dict[str, str], str]:
        message = json.loads(request.body)
        method = message["method"]
        if method == "server/discover":
            result: dict[str, Any] = {"supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}}}
        elif method == "tools/list":
            result = {"tools": [TOOL]}
        else:
            self.calls += 1
            asks = {f"k{n}": {"method": "roots/list"} for n in range(self.count)}
            result = {"resultType": "input_required", "inputRequests": asks, "requestState": "s"}
        body = {"jsonrpc": "2.0", "id": message["id"], "result": {"resultType": "complete", **result}}
        return 200, {"Content-Type": "application/json"}, json.dumps(body)


@responses.activate
def test_a_round_of_20000_input_requests_is_refused_before_any_is_answered():
    """A 2026-07-28 server asking for 20,000 inputs in one ``input_required`` (the report: 200,000): ``ProtocolError`` at
    once, the handler never called, nothing sent again."""
    server = InputRequiredServer(20_000)
    responses.add_callback(responses.POST, URL, callback=server)
    asked: list[int] = []

    def roots() -> list[str]:
        asked.append(1)
        return ["file:///w"]

    with connect(roots=roots) as client:
        started = time.monotonic()
        with pytest.raises(ProtocolError, match=r"asked for 20000 inputs at once; at most 64 are answered"):
            client.call_tool("job", timeout=3)
        assert time.monotonic() - started < 3
    assert asked == [] and server.calls == 1


@responses.activate
def test_answering_input_requests_stays_within_the_calls_deadline():
    """Slow handlers (0.05 s each) for 60 input requests and a 0.5 s call: ``RequestTimeout`` at the
    deadline, checked between answers, not after all 60 (3 s)."""
    server = InputRequiredServer(60)
    responses.add_callback(responses.POST, URL, callback=server)
    asked: list[int] = []

    def roots() -> list[str]:
        asked.append(1)
        time.sleep(0.05)
        return ["file:///w"]

    with connect(roots=roots) as client:
        with pytest.raises(RequestTimeout):
            client.call_tool("job", timeout=0.5)
    assert 1 <= len(asked) < 40 and server.calls == 1
