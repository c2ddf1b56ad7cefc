"""``box.smolagents()``: MCP tools as smolagents ``Tool``s, run by a real ``ToolCallingAgent`` loop whose
model is a scripted ``Model`` of smolagents' own interface, over stdio, Streamable HTTP and a Manager of two
servers: what smolagents checks of a tool, results (text, structured content, an image), 20 concurrent runs
on one client (smolagents runs synchronously: on 20 threads), tool errors, a lost connection, list
changes, Ctrl-C and a ``CancelScope``, timeouts."""

from __future__ import annotations

import json
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

import mcpsync
from tests.deferred import deferred
from tests.edges.frameworks.conftest import (
    KINDS,
    T,
    Target,
    check_a_list_change_is_seen_after_refresh,
    check_ctrl_c_cancels_on_the_server,
    drawing_box,
    target_of,
)
from tests.helpers import in_flight, scripted_server, wait_for

smolagents = deferred("smolagents")
smol_types = deferred("smolagents.agent_types")
smol_models = deferred("smolagents.models")
smol_tools = deferred("smolagents.tools")

scripted = deferred("tests.edges.frameworks.smolagents_model")

# One worker runs the module (xdist_group): one worker, not each, imports its libraries (0.5-3.3 s).
pytestmark = [pytest.mark.usefixtures("server_in_thread"), pytest.mark.xdist_group("smolagents")]


def agent_of(box: mcpsync.ToolBox) -> Any:
    return smolagents.ToolCallingAgent(
        tools=box.smolagents(), model=scripted.ScriptedModel(), max_steps=3, verbosity_level=-1
    )


def run(agent: Any, tool: str, **args: Any) -> str:
    """One agent run asking for ``tool(**args)``: its final answer."""
    return str(agent.run(json.dumps({"tool": tool, "args": args})))


def one_tool(target: Target, tool: str) -> Any:
    return next(t for t in target.box.smolagents() if t.mcp_name == target.name(tool))


def test_the_tools_pass_smolagents_own_checks_and_keep_the_schema(target: Target) -> None:
    """Every tool is a smolagents ``Tool`` (made, it passed smolagents' checks), its inputs of the types
    smolagents knows, and the schema smolagents hands a model has the MCP tool's properties and required."""
    tools = target.box.smolagents()
    assert [t.mcp_name for t in tools] == [offered.name for offered in target.box.offered()]
    for tool in tools:
        assert isinstance(tool, smolagents.Tool) and tool.name.isidentifier()
        assert tool.output_type in smol_tools.AUTHORIZED_TYPES
        assert all(entry["type"] in smol_tools.AUTHORIZED_TYPES for entry in tool.inputs.values())
    add = one_tool(target, "add")
    offered = next(o for o in target.box.offered() if o.name == target.name("add"))
    parameters = smol_models.get_tool_json_schema(add)["function"]["parameters"]
    assert {name: p["type"] for name, p in parameters["properties"].items()} == {"a": "number", "b": "number"}
    assert sorted(parameters["required"]) == sorted(offered.input_schema["required"])
    assert (add.output_type, add.output_schema) == ("object", offered.tool.output_schema)


def test_names_and_schemas_smolagents_would_refuse_are_made_acceptable() -> None:
    """Tool names that are no Python identifiers (``my-tool``, ``class``, ``2x``) and schemas with a
    union, an optional argument and no types: each tool is accepted and still calls its own tool."""
    schema = {
        "type": "object",
        "properties": {
            "mode": {"enum": ["a", "b"]},
            "limit": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
            "tags": {"type": "array", "items": {"type": "string"}, "description": "Tags."},
        },
        "required": ["mode"],
    }
    names = ["my-tool", "my_tool", "class", "2x"]
    listing = {"tools": [{"name": name, "inputSchema": schema} for name in names]}
    answer = {"content": [{"type": "text", "text": "done"}]}
    command = scripted_server({"tools/list": [listing], "tools/call": [answer]})
    with mcpsync.connect(command, timeout=T) as client:
        tools = mcpsync.ToolBox(client, timeout=T).smolagents()
        assert [(t.name, t.mcp_name) for t in tools] == [
            ("my_tool", "my-tool"),
            ("my_tool_2", "my_tool"),
            ("_class", "class"),
            ("_2x", "_2x"),
        ]
        inputs = tools[0].inputs
        assert inputs["mode"] == {"enum": ["a", "b"], "type": "any", "description": "the mode argument"}
        assert inputs["limit"] == {"type": "integer", "description": "the limit argument", "nullable": True}
        assert inputs["tags"] == {
            "type": "array",
            "items": {"type": "string"},
            "description": "Tags.",
            "nullable": True,
        }
        assert tools[0](mode="a") == "done"


def test_three_names_that_differ_only_in_punctuation_get_three_identifiers(tmp_path: Path) -> None:
    """``my-tool-x``, ``my_tool-x``, ``my-tool_x`` and ``my_tool_x_2`` (each a name the box keeps) all read as
    ``my_tool_x`` or its first free variant: each gets an identifier of its own (a mutant that looked for a
    free name once, not until it found one, gave two of them one name), and each calls its own tool."""
    names = ["my-tool-x", "my_tool-x", "my-tool_x", "my_tool_x_2"]
    listing = {"tools": [{"name": name, "inputSchema": {"type": "object"}} for name in names]}
    log = tmp_path / "received.jsonl"
    answer = {"content": [{"type": "text", "text": "done"}]}
    command = scripted_server({"tools/list": [listing], "tools/call": [answer]}, log_file=log)
    with mcpsync.connect(command, timeout=T) as client:
        tools = mcpsync.ToolBox(client, timeout=T).smolagents()
        given = [t.name for t in tools]
        assert len(set(given)) == len(names), given
        assert all(name.isidentifier() for name in given)
        assert [t.mcp_name for t in tools] == names
        assert [t() for t in reversed(tools)] == ["done"] * len(names)
    received = [json.loads(line) for line in log.read_text().splitlines()]
    called = [m["params"]["name"] for m in received if m.get("method") == "tools/call"]
    assert called == names[::-1]


def test_an_agent_calls_a_tool_and_gets_its_structured_content_and_text(target: Target) -> None:
    """The model calls ``add`` (with an ``outputSchema``: its structured content comes back) and ``echo``
    (its text)."""
    agent = agent_of(target.box)
    assert run(agent, target.name("add"), a=2, b=40) == "Observation:\n{'sum': 42}"
    assert run(agent, target.name("echo"), text="hello") == "Observation:\nhello"
    assert one_tool(target, "add")(a=1, b=2) == {"sum": 3}


def test_twenty_concurrent_runs_share_one_client_and_each_gets_its_own_answer(target: Target) -> None:
    """20 agents run at once on 20 threads over the one client: none deadlocks, each gets its own echo."""
    with ThreadPoolExecutor(20) as pool:
        runs = [pool.submit(run, agent_of(target.box), target.name("echo"), text=f"run {n}") for n in range(20)]
        answers = [done.result(timeout=T) for done in runs]
    assert answers == [f"Observation:\nrun {n}" for n in range(20)]


def test_a_lone_image_is_an_image_the_agent_keeps() -> None:
    """A result that is one image: the tool returns a PIL image, which the agent keeps in its state."""
    with drawing_box(only_image=True) as box:
        (draw,) = box.smolagents()
        assert draw().size == (1, 1)
        agent = smolagents.ToolCallingAgent(
            tools=[draw], model=scripted.ScriptedModel(), max_steps=3, verbosity_level=-1
        )
        assert run(agent, "draw") == "Observation:\nStored 'image.png' in memory."
        assert isinstance(agent.state["image.png"], smol_types.AgentImage)
    with drawing_box() as box:
        (draw,) = box.smolagents()
        assert draw() == "a pixel\n[an image, image/png, 70 bytes]\n[resource file:///pixel.png: pixel.png]"


def test_a_failing_tool_reaches_the_model_as_the_steps_error(target: Target) -> None:
    """``fail`` answers ``isError``: the tool raises ``ToolError``, which smolagents hands the model as the
    step's error; called directly, it raises."""
    agent = agent_of(target.box)
    answer = run(agent, target.name("fail"), message="boom")
    assert answer.startswith("Error:\n") and "ToolError: tool " in answer and "failed: boom" in answer
    assert isinstance(agent.memory.steps[1].error.__cause__, mcpsync.ToolError)
    with pytest.raises(mcpsync.ToolError, match="boom"):
        one_tool(target, "fail")(message="boom")


def test_a_lost_connection_is_an_exception() -> None:
    """The server dies mid-call (``crash``): the tool raises ``TransportClosed`` (smolagents, by its design,
    hands every tool exception to the model: the step's error carries it), and so does a direct call."""
    with target_of("stdio") as target:
        agent = agent_of(target.box)
        run(agent, "crash", message="bye")
        assert isinstance(agent.memory.steps[1].error.__cause__, mcpsync.TransportClosed)
        with pytest.raises(mcpsync.TransportClosed):
            one_tool(target, "echo")(text="anyone?")


@pytest.mark.parametrize("kind", KINDS)
def test_a_tool_list_change_reaches_the_tools_after_refresh(kind: str) -> None:
    """The server adds ``late`` after its first listing: after ``box.refresh()``, ``box.smolagents()`` has it."""
    check_a_list_change_is_seen_after_refresh(kind, lambda box: {t.mcp_name for t in box.smolagents()})


@pytest.mark.parametrize("kind", KINDS)
def test_ctrl_c_in_a_run_cancels_the_call_on_the_server(kind: str) -> None:
    """Ctrl-C while the agent's tool call waits on the main thread: ``KeyboardInterrupt`` leaves the run,
    and the server is told."""
    check_ctrl_c_cancels_on_the_server(kind, lambda target: run(agent_of(target.box), target.name("sleep"), seconds=60))


@pytest.mark.parametrize("kind", KINDS)
def test_a_cancel_scope_cancels_a_run_on_another_thread(kind: str) -> None:
    """An agent run on a thread inside a ``CancelScope``, cancelled once its call is out: the call ends
    (``RequestCancelled``, the step's error) and the server is told."""
    with target_of(kind) as target:
        agent = agent_of(target.box)
        scope = mcpsync.CancelScope()
        answers: list[str] = []

        def work() -> None:
            with scope:
                answers.append(run(agent, target.name("sleep"), seconds=60))

        worker = threading.Thread(target=work)
        worker.start()
        try:
            assert wait_for(in_flight(target.client), T)
            scope.cancel("stopped by the test")
        finally:
            worker.join(T)
        assert isinstance(agent.memory.steps[1].error.__cause__, mcpsync.RequestCancelled)
        assert "stopped by the test" in answers[0]
        assert len(target.cancelled_on_server(1)) == 1


@pytest.mark.parametrize("kind", KINDS)
def test_the_calls_timeout_holds_and_the_model_is_told(kind: str) -> None:
    """A box with a 0.5 s timeout and a tool that sleeps a minute: the call gives up at the timeout, the
    model reads that it timed out, and the server is told."""
    with target_of(kind, timeout=0.5) as target:
        agent = agent_of(target.box)
        assert "Request timeout after 0." in run(agent, target.name("sleep"), seconds=60)
        assert isinstance(agent.memory.steps[1].error.__cause__, mcpsync.RequestTimeout)
        assert len(target.cancelled_on_server(1)) == 1
