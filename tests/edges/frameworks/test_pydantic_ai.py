"""Pydantic AI over mcpsync: ``box.pydantic_ai()`` is a toolset of the framework's own kind, run in a real
agent loop (``agent.run_sync`` / ``await agent.run``) with the framework's offline models (``TestModel``,
``FunctionModel``), against the bundled server over stdio and Streamable HTTP, and a Manager of two
servers; the framework's retry semantics for a model's bad arguments, and its own tool timeout.
"""

from __future__ import annotations

import asyncio
import base64
import dataclasses
from collections.abc import Iterator
from typing import Any

import pytest

import mcpsync
from mcpsync import ToolBox
from tests.deferred import deferred
from tests.edges.frameworks.conftest import KINDS, PIXEL, T, Target, drawing_box, target_of
from tests.edges.frameworks.loops import (  # noqa: F401 (the fixture)
    check_a_cancelled_run_cancels,
    default_loop,
    run,
    run_example,
)
from tests.helpers import ctrl_c_after, in_flight, scripted_server

pai = deferred("pydantic_ai")
pai_messages = deferred("pydantic_ai.messages")
pai_function = deferred("pydantic_ai.models.function")
pai_test = deferred("pydantic_ai.models.test")
pai_toolsets = deferred("pydantic_ai.toolsets")

# One worker runs the module (xdist_group): one worker, not each, imports its libraries (0.5-3.3 s).
pytestmark = [pytest.mark.usefixtures("server_in_thread"), pytest.mark.xdist_group("pydantic_ai")]

#: A call's timeout longer than any wait of a test: a cancellation the server sees came from the cancel.
SLOW = 60


class Script:
    """A ``FunctionModel`` script (async: no worker thread): it calls the tools of ``calls`` one after
    another, then answers ``done``. It keeps the tool names offered on each turn and each tool's answer
    (the ``ToolReturnPart``, whose ``outcome`` says success, retried or failed)."""

    def __init__(self, *calls: tuple[str, dict[str, Any]]) -> None:
        self.calls = list(calls)
        self.offered: list[list[str]] = []
        self.returns: list[pai_messages.ToolReturnPart] = []
        self.asked = asyncio.Event()

    async def __call__(self, messages: list[Any], info: pai_function.AgentInfo) -> pai_messages.ModelResponse:
        self.offered.append(sorted(tool.name for tool in info.function_tools))
        self.returns = [
            part for message in messages for part in message.parts if isinstance(part, pai_messages.ToolReturnPart)
        ]
        turn = len(self.returns)
        if turn < len(self.calls):
            name, arguments = self.calls[turn]
            self.asked.set()
            return pai_messages.ModelResponse(
                parts=[pai_messages.ToolCallPart(name, arguments, tool_call_id=f"call_{turn}")]
            )
        return pai_messages.ModelResponse(parts=[pai_messages.TextPart("done")])

    def agent(self, *toolsets: Any, **options: Any) -> pai.Agent:
        return pai.Agent(pai_function.FunctionModel(self), toolsets=list(toolsets), **options)


class FakeContext:
    """What ``get_tools`` reads of a run context."""

    max_retries = 1


@pytest.fixture(scope="module")
def stdio() -> Iterator[Target]:
    """The bundled server over stdio, for the tests that need one client."""
    with target_of("stdio") as made:
        yield made


def test_the_box_is_a_toolset_and_an_agent_calls_through_it_sync_and_async(target: Target) -> None:
    """``box.pydantic_ai()`` is an ``AbstractToolset``; ``run_sync`` and ``await run`` each call a tool and
    get its result (structured content as the value, text as text, an array as the array); stdio,
    Streamable HTTP and a Manager of two servers."""
    toolset = target.box.pydantic_ai()
    assert isinstance(toolset, pai_toolsets.AbstractToolset)
    script = Script((target.name("add"), {"a": 2, "b": 40}), (target.name("echo"), {"text": "hi"}))
    assert script.agent(toolset).run_sync("add").output == "done"
    assert script.offered[0] == sorted(offered.name for offered in target.box.offered())
    assert [(part.outcome, part.content) for part in script.returns] == [("success", {"sum": 42}), ("success", "hi")]
    script = Script((target.name("users"), {}))
    assert run(script.agent(toolset).run("who")).output == "done"
    assert script.returns[0].content == [{"id": "1", "name": "Alice"}, {"id": "2", "name": "Bob"}]


def test_the_frameworks_test_model_calls_the_tools_it_is_told_to(stdio: Target) -> None:
    """``TestModel`` (the framework's own offline model) calls ``add`` and ``echo`` with arguments it makes
    from their schemas: the toolset's definitions are what it reads, and both calls succeed."""
    agent = pai.Agent(pai_test.TestModel(call_tools=["add", "echo"]), toolsets=[stdio.box.pydantic_ai()])
    messages = agent.run_sync("go").all_messages()
    returns = {
        part.tool_name: part
        for message in messages
        for part in message.parts
        if isinstance(part, pai_messages.ToolReturnPart)
    }
    assert set(returns) == {"add", "echo"} and all(part.outcome == "success" for part in returns.values())
    assert set(returns["add"].content) == {"sum"}


def test_an_image_reaches_the_model_as_an_image() -> None:
    """A tool answering a text, a PNG and a resource link: the model gets the text, a ``BinaryImage`` of
    the PNG's bytes, and a line for the link."""
    with drawing_box() as box:
        script = Script(("draw", {}))
        script.agent(box.pydantic_ai()).run_sync("draw")
    text, image, link = script.returns[0].content
    assert text == "a pixel" and "pixel.png" in link
    assert (
        isinstance(image, pai_messages.BinaryImage)
        and image.data == base64.b64decode(PIXEL)
        and image.media_type == "image/png"
    )


def test_twenty_concurrent_runs_share_one_client_and_each_gets_its_own_answer(stdio: Target) -> None:
    """20 ``agent.run`` at once over one client and one toolset: no deadlock, each its own echo."""
    toolset = stdio.box.pydantic_ai()

    async def one_run(i: int) -> Any:
        script = Script(("echo", {"text": f"run {i}"}))
        await script.agent(toolset).run("echo")
        return script.returns[0].content

    async def all_runs() -> list[Any]:
        return await asyncio.wait_for(asyncio.gather(*(one_run(i) for i in range(20))), T)

    assert run(all_runs()) == [f"run {i}" for i in range(20)]


def test_refused_arguments_make_the_model_try_again() -> None:
    """The server answers the model's call with -32602 (invalid params): the framework's ``ModelRetry``,
    so the model is asked again with the server's words, and its second call is answered."""
    listing = {"tools": [{"name": "add", "inputSchema": {"type": "object"}}]}
    refusal = {"error": {"code": -32602, "message": "b is required"}}
    script_ = {"tools/list": [listing], "tools/call": [refusal, {"content": [{"type": "text", "text": "3"}]}]}
    with mcpsync.connect(scripted_server(script_), name="strict", timeout=T) as strict:
        script = Script(("add", {"a": 1}), ("add", {"a": 1, "b": 2}))
        assert script.agent(ToolBox(strict, timeout=T).pydantic_ai()).run_sync("add").output == "done"
    refused, answered = script.returns
    assert (refused.outcome, refused.content) == ("retried", "MCP error -32602: b is required")
    assert (answered.outcome, answered.content) == ("success", "3")


def test_a_failing_tool_is_a_retry_or_a_failure_as_asked(stdio: Target) -> None:
    """A tool's own failure (``isError``): ``ModelRetry`` by default, as the framework's ``MCPToolset``
    does; ``ToolFailed`` with ``tool_error_behavior="failed"``; the model reads the tool's words either way.
    A model that keeps failing past ``max_retries`` ends the run, as the framework says."""
    for behavior, outcome in (("retry", "retried"), ("failed", "failed")):
        script = Script(("fail", {"message": "disk full"}))
        script.agent(stdio.box.pydantic_ai(tool_error_behavior=behavior)).run_sync("go")
        assert (script.returns[0].outcome, script.returns[0].content) == (outcome, "disk full")
    script = Script(*[("fail", {"message": "again"})] * 3)
    with pytest.raises(Exception, match="exceeded max retries"):
        script.agent(stdio.box.pydantic_ai(max_retries=1)).run_sync("go")
    with pytest.raises(ValueError, match="tool_error_behavior must be one of retry, failed, not 'error'"):
        stdio.box.pydantic_ai(tool_error_behavior="error")


def test_the_toolsets_max_retries_is_the_budget_not_the_agents() -> None:
    """``max_retries=3`` on the toolset, the agent's own budget being the default (1): a tool that fails
    three times and then succeeds ends the run with the model's answer; with ``max_retries=2`` the third
    failure ends the run, as the framework says (the toolset's number counts, not the agent's)."""
    with target_of("stdio") as target:
        failures = [("fail", {"message": "again"})] * 3
        script = Script(*failures, ("echo", {"text": "at last"}))
        assert script.agent(target.box.pydantic_ai(max_retries=3)).run_sync("go").output == "done"
        assert [part.outcome for part in script.returns] == ["retried"] * 3 + ["success"]
        with pytest.raises(Exception, match="exceeded max retries"):
            Script(*failures).agent(target.box.pydantic_ai(max_retries=2)).run_sync("go")


def test_a_lost_connection_is_raised_out_of_the_run() -> None:
    """The server is gone: ``run_sync`` raises ``mcpsync.TransportClosed`` (from the call; and from the
    listing at the next run's start); the model is not asked again."""
    with target_of("stdio") as target:
        toolset = target.box.pydantic_ai()
    script = Script(("echo", {"text": "x"}))
    echo = run(toolset.get_tools(FakeContext()))["echo"]
    with pytest.raises(mcpsync.TransportClosed):
        run(toolset.call_tool("echo", {"text": "x"}, FakeContext(), echo))
    with pytest.raises(mcpsync.TransportClosed):
        script.agent(toolset).run_sync("echo")
    assert script.offered == []


def test_a_list_change_is_seen_on_the_next_run() -> None:
    """The server adds a tool (``late``) after the box's first listing and says so: the next run is
    offered it, without a reconnect or a ``refresh()`` by hand."""
    with target_of("stdio", "--tools-change-after-list") as target:
        toolset = target.box.pydantic_ai()
        assert "late" not in {tool.name for tool in target.box.offered()}
        script = Script()
        script.agent(toolset).run_sync("hi")
        assert "late" in script.offered[0]


@pytest.mark.parametrize("kind", KINDS)
def test_cancelling_the_run_cancels_the_call_on_the_server(kind: str) -> None:
    """The task of ``agent.run`` is cancelled once its tool call is out: ``CancelledError``, and the server
    is sent ``notifications/cancelled`` (its ``cancelled_requests`` shows it) long before the call's own
    timeout (a minute)."""
    with target_of(kind, timeout=SLOW) as target:
        script = Script((target.name("sleep"), {"seconds": 60}))
        agent = script.agent(target.box.pydantic_ai())
        check_a_cancelled_run_cancels(target, lambda: agent.run("sleep"), script.asked)


def test_ctrl_c_in_run_sync_cancels_the_call_on_the_server() -> None:
    """Ctrl-C during ``agent.run_sync`` while a tool call is in flight: ``KeyboardInterrupt``, and the
    server is told the call was cancelled."""
    with target_of("stdio", timeout=SLOW) as target:
        with ctrl_c_after(0.1, when=in_flight(target.client)):
            Script(("sleep", {"seconds": 60})).agent(target.box.pydantic_ai()).run_sync("sleep")
        assert len(target.cancelled_on_server(1)) == 1


def test_the_calls_timeout_holds_and_the_model_is_asked_again() -> None:
    """A box made with ``timeout=0.5`` and a tool that sleeps a minute: the call ends at the timeout, the
    server is told to cancel it, and the model gets a retry prompt saying it timed out."""
    with target_of("stdio", timeout=0.5) as target:
        script = Script(("sleep", {"seconds": 60}))
        assert script.agent(target.box.pydantic_ai()).run_sync("sleep").output == "done"
        assert (script.returns[0].outcome, script.returns[0].content) == (
            "retried",
            "Request timeout after 0.5s (tools/call)",
        )
        assert len(target.cancelled_on_server(1)) == 1


def test_the_frameworks_own_tool_timeout_is_kept_and_cancels_on_the_server() -> None:
    """The definitions leave ``timeout`` unset (the framework's default: none); one set by the framework
    (a ``prepared`` toolset's 0.5 s, the box's own being a minute) is the call's: it ends then, the server
    is told to cancel it, and the model is asked again, as the framework's own function tools do."""
    with target_of("stdio", timeout=SLOW) as target:
        toolset = target.box.pydantic_ai()
        definitions = run(toolset.get_tools(FakeContext()))
        assert definitions and all(tool.tool_def.timeout is None for tool in definitions.values())
        hurried = toolset.prepared(lambda ctx, tools: [dataclasses.replace(tool, timeout=0.5) for tool in tools])
        script = Script(("sleep", {"seconds": 60}))
        assert script.agent(hurried).run_sync("sleep").output == "done"
        assert (script.returns[0].outcome, script.returns[0].content) == ("retried", "Timed out after 0.5 seconds.")
        assert len(target.cancelled_on_server(1)) == 1


def test_the_tools_come_from_offered_alone(stdio: Target, monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever ``offered()`` says is what the framework gets: a box that offers fewer tools (as a tool
    search will) gives the toolset those tools and no others."""
    only = [tool for tool in stdio.box.offered() if tool.name in ("echo", "add")]
    monkeypatch.setattr(stdio.box, "offered", lambda: only)
    script = Script()
    script.agent(stdio.box.pydantic_ai()).run_sync("hi")
    assert script.offered[0] == ["add", "echo"]


@pytest.mark.slow("runs the example as a Python process (imports the framework)")
def test_the_example_runs_without_an_api_key() -> None:
    """``examples/frameworks_pydantic_ai.py`` runs its agent against the bundled server with its offline
    model (in a subprocess, bounded), and the model answers with the tool's result."""
    done = run_example("frameworks_pydantic_ai.py")
    assert done.stdout.splitlines() == ["tool call: add {'a': 2, 'b': 40}", "model: The sum is 42."], done.stdout
