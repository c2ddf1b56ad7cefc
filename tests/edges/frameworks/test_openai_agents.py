"""The OpenAI Agents SDK over mcpsync: ``box.openai_agents_server()`` is the SDK's own ``MCPServer`` (so
``Agent(mcp_servers=[...])`` works), ``box.openai_agents()`` its plain ``FunctionTool``s; a real agent
loop (``Runner.run`` / ``Runner.run_sync``) with a scripted ``Model`` of the SDK's own interface, against
the bundled server over stdio and Streamable HTTP, and a Manager of two servers.
"""

from __future__ import annotations

import asyncio
import json
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

oa = deferred("agents")
oa_items = deferred("agents.items")
oa_mcp = deferred("agents.mcp")
oa_interface = deferred("agents.models.interface")
oa_usage = deferred("agents.usage")
oa_responses = deferred("openai.types.responses")

scripted = deferred("tests.edges.frameworks.openai_agents_model")

# One worker runs the module (xdist_group): one worker, not each, imports its libraries (0.5-3.3 s).
pytestmark = [pytest.mark.usefixtures("server_in_thread"), pytest.mark.xdist_group("openai_agents")]

#: A call's timeout longer than any wait of a test: a cancellation the server sees came from the cancel.
SLOW = 60


#: Tracing off: the SDK's trace exporter is a thread of its own, and the tests send nothing anywhere.
def offline() -> Any:
    return oa.RunConfig(tracing_disabled=True)


def texts(output: Any) -> list[str]:
    """The text parts of a tool output as the model got it (a string, or a list of ``input_*`` items)."""
    if isinstance(output, str):
        return [output]
    return [item["text"] for item in output if item.get("type") == "input_text"]


@pytest.fixture(scope="module")
def stdio() -> Iterator[Target]:
    """The bundled server over stdio, for the tests that need one client."""
    with target_of("stdio") as made:
        yield made


def tools_of(box: ToolBox, kind: str) -> dict[str, Any]:
    """An ``Agent``'s arguments for the box's tools: as its MCP server, or as function tools."""
    return {"mcp_servers": [box.openai_agents_server()]} if kind == "server" else {"tools": box.openai_agents()}


def agent(model: oa_interface.Model, name: str = "a", **tools: Any) -> oa.Agent:
    return oa.Agent(name=name, model=model, **tools)


def test_the_box_is_the_sdks_own_mcp_server_and_an_agent_calls_through_it(target: Target) -> None:
    """``Agent(mcp_servers=[box.openai_agents_server()])``: the server is an ``agents.mcp.MCPServer``; the
    model is offered the box's tools (qualified with a Manager), calls two, and gets their results, by
    ``Runner.run_sync`` and by ``await Runner.run``; stdio, Streamable HTTP and a Manager of two servers."""
    server = target.box.openai_agents_server()
    assert isinstance(server, oa_mcp.MCPServer)
    model = scripted.ScriptedModel((target.name("add"), {"a": 2, "b": 40}), (target.name("echo"), {"text": "hi"}))
    assert oa.Runner.run_sync(agent(model, mcp_servers=[server]), "add", run_config=offline()).final_output == "done"
    assert model.offered[0] == sorted(offered.name for offered in target.box.offered())
    assert [texts(output) for output in model.outputs] == [['{"sum": 42}'], ["hi"]]
    model = scripted.ScriptedModel((target.name("echo"), {"text": "async"}))
    assert run(oa.Runner.run(agent(model, mcp_servers=[server]), "echo", run_config=offline())).final_output == "done"
    assert [texts(output) for output in model.outputs] == [["async"]]


def test_plain_function_tools_are_the_sdks_own_and_run_sync_and_async(target: Target) -> None:
    """``box.openai_agents()``: ``FunctionTool``s under the box's names with the tools' schemas, run by
    ``Runner.run_sync`` and by ``await Runner.run``; the SDK's own tool timeout (none) is left as it is."""
    tools = target.box.openai_agents()
    assert all(isinstance(tool, oa.FunctionTool) for tool in tools)
    assert [tool.name for tool in tools] == [offered.name for offered in target.box.offered()]
    add = next(tool for tool in tools if tool.name == target.name("add"))
    assert set(add.params_json_schema["properties"]) == {"a", "b"} and add.description
    assert all(tool.timeout_seconds is None for tool in tools)
    model = scripted.ScriptedModel((target.name("add"), {"a": 1, "b": 2}))
    oa.Runner.run_sync(agent(model, tools=tools), "add", run_config=offline())
    assert [texts(output) for output in model.outputs] == [['{"sum": 3}']]
    model = scripted.ScriptedModel((target.name("echo"), {"text": "async"}))
    run(oa.Runner.run(agent(model, tools=tools), "echo", run_config=offline()))
    assert [texts(output) for output in model.outputs] == [["async"]]


def test_structured_content_is_handed_over_when_the_server_is_told_to(stdio: Target) -> None:
    """``use_structured_content=True`` (the SDK's own flag): the model gets the structured content as JSON,
    also where it is not an object (``users``, an array); without it, the content blocks."""
    users = [{"id": "1", "name": "Alice"}, {"id": "2", "name": "Bob"}]
    for flag in (True, False):
        model = scripted.ScriptedModel(("users", {}))
        server = stdio.box.openai_agents_server(use_structured_content=flag)
        oa.Runner.run_sync(agent(model, mcp_servers=[server]), "who", run_config=offline())
        (output,) = model.outputs
        assert json.loads(output if flag else texts(output)[0]) == users
        assert isinstance(output, str) is flag


@pytest.mark.parametrize("kind", ["server", "function tools"])
def test_an_image_reaches_the_model_as_an_image(kind: str) -> None:
    """A tool answering a text, a PNG and a resource link: the model gets the text, then an
    ``input_image`` whose data URL is the PNG's."""
    with drawing_box() as box:
        model = scripted.ScriptedModel(("draw", {}))
        oa.Runner.run_sync(agent(model, **tools_of(box, kind)), "draw", run_config=offline())
    (output,) = model.outputs
    assert [item["type"] for item in output] == ["input_text", "input_image", "input_text"]
    assert output[0]["text"] == "a pixel" and output[1]["image_url"] == f"data:image/png;base64,{PIXEL}"
    assert "pixel.png" in output[2]["text"]


@pytest.mark.parametrize("kind", ["server", "function tools"])
def test_twenty_concurrent_runs_share_one_client_and_each_gets_its_own_answer(stdio: Target, kind: str) -> None:
    """20 ``Runner.run`` at once over one client: no deadlock, and each run's model gets its own echo."""
    tools = tools_of(stdio.box, kind)

    async def one_run(i: int) -> Any:
        model = scripted.ScriptedModel(("echo", {"text": f"run {i}"}))
        await oa.Runner.run(agent(model, f"a{i}", **tools), "echo", run_config=offline())
        return texts(model.outputs[0])

    async def all_runs() -> list[Any]:
        return await asyncio.wait_for(asyncio.gather(*(one_run(i) for i in range(20))), T)

    assert run(all_runs()) == [[f"run {i}"] for i in range(20)]


@pytest.mark.parametrize("kind", ["server", "function tools"])
def test_a_failing_tool_reaches_the_model_as_a_tool_error(stdio: Target, kind: str) -> None:
    """A tool's failure (``isError``) is a tool output the model reads, with the tool's words (the function
    tools say it is an error); the run goes on to its answer."""
    model = scripted.ScriptedModel(("fail", {"message": "disk full"}), ("add", {"a": 1}))
    result = oa.Runner.run_sync(agent(model, **tools_of(stdio.box, kind)), "go", run_config=offline())
    assert result.final_output == "done"
    failed, bad_arguments = (" ".join(texts(output)) for output in model.outputs)
    assert failed == ("disk full" if kind == "server" else "Error: disk full")
    assert "missing 1 required positional argument: 'b'" in bad_arguments


@pytest.mark.parametrize("kind", ["server", "function tools"])
def test_arguments_the_server_refuses_reach_the_model_with_the_servers_words(kind: str) -> None:
    """The server answers the call with -32602 (invalid params): the model reads the server's error as
    the tool's output (not an exception out of the run), and its next call is answered."""
    listing = {"tools": [{"name": "add", "inputSchema": {"type": "object"}}]}
    refusal = {"error": {"code": -32602, "message": "b is required"}}
    script = {"tools/list": [listing], "tools/call": [refusal, {"content": [{"type": "text", "text": "3"}]}]}
    with mcpsync.connect(scripted_server(script), name="strict", timeout=T) as strict:
        model = scripted.ScriptedModel(("add", {"a": 1}), ("add", {"a": 1, "b": 2}))
        oa.Runner.run_sync(agent(model, **tools_of(ToolBox(strict, timeout=T), kind)), "add", run_config=offline())
    assert [texts(output) for output in model.outputs] == [
        ["Error: the call failed: MCP error -32602: b is required"],
        ["3"],
    ]


@pytest.mark.parametrize("kind", ["server", "function tools"])
def test_a_lost_connection_is_raised_out_of_the_run(kind: str) -> None:
    """The server is gone: the run fails with an exception caused by ``mcpsync.TransportClosed`` (through
    the SDK's own failure pipeline for the server); the model is not told a story about it."""
    with target_of("stdio") as target:
        tools = tools_of(target.box, kind)
        if kind == "server":  # its list is read on each run: read it now and keep it, to reach the call
            tools["mcp_servers"][0].cache_tools_list = True
            run(tools["mcp_servers"][0].list_tools())
    model = scripted.ScriptedModel(("echo", {"text": "x"}))
    with pytest.raises(Exception) as raised:
        oa.Runner.run_sync(agent(model, **tools), "echo", run_config=offline())
    assert any(isinstance(error, mcpsync.TransportClosed) for error in causes(raised.value)), raised.value
    assert model.outputs == []


def causes(error: BaseException) -> list[BaseException]:
    """An exception and its causes (or contexts), in order."""
    chain: list[BaseException] = []
    while error is not None and error not in chain:
        chain.append(error)
        error = error.__cause__ or error.__context__  # type: ignore[assignment]
    return chain


def test_a_list_change_is_seen_on_the_next_run() -> None:
    """The server adds a tool (``late``) after the box's first listing and says so: the next run is
    offered it, without a reconnect or a ``refresh()`` by hand."""
    with target_of("stdio", "--tools-change-after-list") as target:
        assert "late" not in {tool.name for tool in target.box.offered()}
        model = scripted.ScriptedModel()
        server = target.box.openai_agents_server()
        oa.Runner.run_sync(agent(model, mcp_servers=[server]), "hi", run_config=offline())
        assert "late" in model.offered[0]


def test_the_sdks_cache_flag_keeps_the_list_until_it_is_invalidated() -> None:
    """``cache_tools_list=True``: the list read first is kept (``cached_tools``), a later change is not
    seen until ``invalidate_tools_cache()``; a server without the flag sees it at once."""
    tool = {"name": "echo", "inputSchema": {"type": "object"}}
    before, after = {"tools": [tool]}, {"tools": [tool, {**tool, "name": "late"}]}
    # The box's own listing, the cached server's first one, then the changed list for every later one.
    script = {"tools/list": [before, before, after]}
    with mcpsync.connect(scripted_server(script), name="changing", timeout=T) as changing:
        box = ToolBox(changing, timeout=T)
        cached = box.openai_agents_server(cache_tools_list=True)
        assert cached.cached_tools is None
        assert [tool.name for tool in run(cached.list_tools())] == ["echo"]
        assert [tool.name for tool in cached.cached_tools] == ["echo"]
        for server, expected in ((box.openai_agents_server(), ["echo", "late"]), (cached, ["echo"])):
            model = scripted.ScriptedModel()
            oa.Runner.run_sync(agent(model, mcp_servers=[server]), "hi", run_config=offline())
            assert model.offered[0] == expected
        cached.invalidate_tools_cache()
        model = scripted.ScriptedModel()
        oa.Runner.run_sync(agent(model, mcp_servers=[cached]), "hi", run_config=offline())
        assert model.offered[0] == ["echo", "late"]


def test_the_sdks_tool_filters_are_honoured(stdio: Target) -> None:
    """A static filter (``allowed_tool_names`` / ``blocked_tool_names``) and a callable one (given the run
    context and agent; one that raises leaves its tool out, as the SDK's servers do) decide what the
    model is offered."""
    allowed = {"allowed_tool_names": ["echo", "add"], "blocked_tool_names": ["add"]}
    model = scripted.ScriptedModel()
    oa.Runner.run_sync(
        agent(model, mcp_servers=[stdio.box.openai_agents_server(tool_filter=allowed)]), "hi", run_config=offline()
    )
    assert model.offered[0] == ["echo"]
    asked: list[str] = []

    def only_for_b(context: Any, tool: Any) -> bool:
        asked.append(context.agent.name)
        if tool.name == "fail":
            raise RuntimeError("a filter's own bug")
        return tool.name in ("add", "fail") and context.agent.name == "b"

    dynamic = stdio.box.openai_agents_server(tool_filter=only_for_b)
    for name, offered in (("a", []), ("b", ["add"])):
        model = scripted.ScriptedModel()
        oa.Runner.run_sync(agent(model, name, mcp_servers=[dynamic]), "hi", run_config=offline())
        assert model.offered[0] == offered
    assert set(asked) == {"a", "b"}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("tools", ["server", "function tools"])
def test_cancelling_the_run_cancels_the_call_on_the_server(kind: str, tools: str) -> None:
    """The task of ``Runner.run`` is cancelled once its tool call is out: ``CancelledError``, and the
    server is sent ``notifications/cancelled`` for the call (its ``cancelled_requests`` shows it) long
    before the call's own timeout (a minute)."""
    with target_of(kind, timeout=SLOW) as target:
        given = tools_of(target.box, tools)
        model = scripted.ScriptedModel((target.name("sleep"), {"seconds": 60}))
        sleeper = agent(model, **given)
        check_a_cancelled_run_cancels(
            target, lambda: oa.Runner.run(sleeper, "sleep", run_config=offline()), model.asked
        )


def test_ctrl_c_in_run_sync_cancels_the_call_on_the_server() -> None:
    """Ctrl-C during ``Runner.run_sync`` while a tool call is in flight: ``KeyboardInterrupt`` is raised
    and the server is told the call was cancelled."""
    with target_of("stdio", timeout=SLOW) as target:
        model = scripted.ScriptedModel(("sleep", {"seconds": 60}))
        with ctrl_c_after(0.1, when=in_flight(target.client)):
            oa.Runner.run_sync(agent(model, mcp_servers=[target.box.openai_agents_server()]), "z", run_config=offline())
        assert len(target.cancelled_on_server(1)) == 1


@pytest.mark.parametrize("kind", ["server", "function tools"])
def test_the_calls_timeout_holds_and_the_model_is_told(kind: str) -> None:
    """A box made with ``timeout=0.5`` and a tool that sleeps a minute: the call ends at the timeout, the
    server is told to cancel it, and the model gets a tool output saying it timed out."""
    with target_of("stdio", timeout=0.5) as target:
        model = scripted.ScriptedModel(("sleep", {"seconds": 60}))

        async def bounded() -> Any:
            return await asyncio.wait_for(
                oa.Runner.run(agent(model, **tools_of(target.box, kind)), "z", run_config=offline()), T
            )

        assert run(bounded()).final_output == "done"
        (output,) = model.outputs
        assert texts(output) == ["Error: the call failed: Request timeout after 0.5s (tools/call)"]
        assert len(target.cancelled_on_server(1)) == 1


def test_the_tools_come_from_offered_alone(stdio: Target, monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever ``offered()`` says is what the SDK gets: a box that offers fewer tools (as a tool search
    will) gives the server's listing and the function tools those tools and no others."""
    only = [tool for tool in stdio.box.offered() if tool.name in ("echo", "add")]
    monkeypatch.setattr(stdio.box, "offered", lambda: only)
    assert [tool.name for tool in stdio.box.openai_agents()] == ["echo", "add"]
    assert [tool.name for tool in run(stdio.box.openai_agents_server().list_tools())] == ["echo", "add"]


@pytest.mark.slow("runs the example as a Python process (imports the framework)")
def test_the_example_runs_without_an_api_key() -> None:
    """``examples/frameworks_openai_agents.py`` runs its agent against the bundled server with its offline
    model (in a subprocess, bounded), and the model answers with the tool's result."""
    done = run_example("frameworks_openai_agents.py")
    assert done.stdout.splitlines() == ['tool call: add {"a": 2, "b": 40}', "model: The sum is 42."], done.stdout


@pytest.mark.parametrize("configured", ["raise", "custom"])
def test_the_agents_own_failure_error_function_is_honoured(configured: str) -> None:
    """No ``failure_error_function`` given to the server: as for the SDK's own servers, the agent's
    ``mcp_config["failure_error_function"]`` decides what a refused call becomes: ``None`` raises it out of
    the run, a function of the agent's own writes the model's output."""
    listing = {"tools": [{"name": "add", "inputSchema": {"type": "object"}}]}
    refusal = {"error": {"code": -32602, "message": "b is required"}}
    script = {"tools/list": [listing], "tools/call": [refusal]}
    handler = None if configured == "raise" else (lambda context, error: f"custom: {type(error).__name__}")
    with mcpsync.connect(scripted_server(script), name="strict", timeout=T) as strict:
        server = ToolBox(strict, timeout=T).openai_agents_server()
        model = scripted.ScriptedModel(("add", {"a": 1}))
        configured_agent = oa.Agent(
            name="a", model=model, mcp_servers=[server], mcp_config={"failure_error_function": handler}
        )
        if configured == "raise":
            with pytest.raises(Exception) as raised:
                oa.Runner.run_sync(configured_agent, "add", run_config=offline())
            assert any(isinstance(error, mcpsync.ServerError) for error in causes(raised.value)), raised.value
            assert model.outputs == []
        else:
            oa.Runner.run_sync(configured_agent, "add", run_config=offline())
            assert [texts(output) for output in model.outputs] == [["custom: AgentsException"]]


def test_the_sdks_tool_meta_resolver_is_sent_with_the_call(tmp_path: Any) -> None:
    """``tool_meta_resolver`` (an ``MCPServer`` flag the SDK's own servers honour): the ``_meta`` it gives
    for a call goes to the server in the ``tools/call`` request's params, merged with the tool's own."""
    listing = {"tools": [{"name": "add", "inputSchema": {"type": "object"}, "_meta": {"static": 1}}]}
    script = {"tools/list": [listing], "tools/call": [{"content": [{"type": "text", "text": "3"}]}]}
    log = tmp_path / "received.jsonl"
    with mcpsync.connect(scripted_server(script, log), name="meta", timeout=T) as client:
        server = ToolBox(client, timeout=T).openai_agents_server(
            tool_meta_resolver=lambda context: {"tenant": context.tool_name}
        )
        model = scripted.ScriptedModel(("add", {"a": 1}))
        oa.Runner.run_sync(agent(model, mcp_servers=[server]), "add", run_config=offline())
    assert [texts(output) for output in model.outputs] == [["3"]]
    calls = [json.loads(line) for line in log.read_text().splitlines() if '"tools/call"' in line]
    assert calls[0]["params"]["_meta"] == {"tenant": "add", "static": 1}
