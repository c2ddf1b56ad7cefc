"""``box.langchain()``: MCP tools as LangChain ``StructuredTool``s, run by a real LangChain agent loop
(``langchain.agents.create_agent``, a LangGraph graph) whose chat model is scripted, over stdio, Streamable
HTTP and a Manager of two servers: results (text, structured content, images), ``invoke`` and ``ainvoke``,
20 concurrent runs on one client, tool errors, a lost connection, list changes, cancellation, timeouts."""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

import pytest

import mcpsync
from tests.deferred import deferred
from tests.edges.frameworks.conftest import (
    KINDS,
    PIXEL,
    T,
    Target,
    check_a_list_change_is_seen_after_refresh,
    check_ctrl_c_cancels_on_the_server,
    drawing_box,
    target_of,
)
from tests.helpers import in_flight, wait_for

langchain_tools = deferred("langchain_core.tools")
agents = deferred("langchain.agents")
lc_models = deferred("langchain_core.language_models.chat_models")
lc_messages = deferred("langchain_core.messages")
lc_content = deferred("langchain_core.messages.content")
lc_outputs = deferred("langchain_core.outputs")
lc_functions = deferred("langchain_core.utils.function_calling")

scripted = deferred("tests.edges.frameworks.langchain_model")

# One worker runs the module (xdist_group): one worker, not each, imports its libraries (0.5-3.3 s).
pytestmark = [pytest.mark.usefixtures("server_in_thread"), pytest.mark.xdist_group("langchain")]


def agent_of(target_box: mcpsync.ToolBox) -> Any:
    return agents.create_agent(scripted.ScriptedChatModel(), target_box.langchain())


def order(tool: str, **args: Any) -> dict[str, Any]:
    """The agent's input: a user message asking for ``tool(**args)``."""
    return {"messages": [{"role": "user", "content": json.dumps({"tool": tool, "args": args})}]}


def tool_message(state: dict[str, Any]) -> lc_messages.ToolMessage:
    messages = [m for m in state["messages"] if isinstance(m, lc_messages.ToolMessage)]
    assert len(messages) == 1, state["messages"]
    return messages[0]


def one_tool(target: Target, tool: str) -> Any:
    return next(t for t in target.box.langchain() if t.name == target.name(tool))


def test_the_tools_are_structured_tools_with_the_servers_names_and_schemas(target: Target) -> None:
    """Every tool the box offers is a ``StructuredTool`` under the box's name, its ``args_schema`` the MCP
    input schema, which LangChain's own conversion hands a model unchanged."""
    tools = target.box.langchain()
    assert [t.name for t in tools] == [offered.name for offered in target.box.offered()]
    assert all(isinstance(t, langchain_tools.StructuredTool) for t in tools)
    add = one_tool(target, "add")
    schema = next(o.input_schema for o in target.box.offered() if o.name == target.name("add"))
    assert add.args_schema == schema and add.response_format == "content_and_artifact"
    assert lc_functions.convert_to_openai_tool(add)["function"]["parameters"] == schema
    assert target.name("refresh_dashboard") not in {t.name for t in tools}  # MCP Apps: for the app alone


def test_an_agent_calls_a_tool_and_gets_its_text_and_structured_content(target: Target) -> None:
    """The agent's ``invoke`` (sync): the model calls ``add``; the tool message carries the text, the
    artifact the structured content, and the model answers with it."""
    state = agent_of(target.box).invoke(order(target.name("add"), a=2, b=40))
    message = tool_message(state)
    assert (message.status, message.content) == ("success", '{"sum": 42}')
    assert message.artifact == {"structured_content": {"sum": 42}}
    assert state["messages"][-1].content == 'success: {"sum": 42}'


def test_twenty_concurrent_async_runs_share_one_client_and_each_gets_its_own_answer(target: Target) -> None:
    """20 ``ainvoke`` runs at once over the one client: none deadlocks, each gets its own echo back."""
    agent = agent_of(target.box)

    async def main() -> list[Any]:
        runs = [agent.ainvoke(order(target.name("echo"), text=f"run {n}")) for n in range(20)]
        return await asyncio.wait_for(asyncio.gather(*runs), T)

    states = asyncio.run(main())
    assert [state["messages"][-1].content for state in states] == [f"success: run {n}" for n in range(20)]


def test_direct_invoke_and_ainvoke_of_a_tool_call_give_the_same_tool_message(target: Target) -> None:
    """A tool called as LangGraph's tool node calls it (a ``ToolCall``), sync and async: the same
    ``ToolMessage`` with its artifact."""
    add = one_tool(target, "add")
    call = {"type": "tool_call", "id": "c1", "name": add.name, "args": {"a": 1, "b": 2}}
    sync = add.invoke(call)
    asynchronous = asyncio.run(add.ainvoke(call))
    for message in (sync, asynchronous):
        assert isinstance(message, lc_messages.ToolMessage)
        assert (message.content, message.artifact, message.tool_call_id) == (
            '{"sum": 3}',
            {"structured_content": {"sum": 3}},
            "c1",
        )


def test_an_image_is_an_image_block_for_the_model_and_in_the_artifact() -> None:
    """A result with text, an image and a resource link: the content is LangChain's text and image
    blocks, the artifact holds the structured content, the image and the link."""
    with drawing_box() as box:
        (draw,) = box.langchain()
        message = draw.invoke({"type": "tool_call", "id": "d", "name": "draw", "args": {}})
    assert message.content == [
        {"type": "text", "text": "a pixel"},
        {"type": "image", "base64": PIXEL, "mime_type": "image/png"},
        {"type": "text", "text": "[resource file:///pixel.png: pixel.png]"},
    ]
    assert lc_content.is_data_content_block(message.content[1])  # LangChain's own reading: a standard image block
    assert message.artifact == {
        "structured_content": {"width": 1, "height": 1},
        "images": [{"base64": PIXEL, "mime_type": "image/png"}],
        "resource_links": [
            {"uri": "file:///pixel.png", "name": "pixel.png", "mime_type": "image/png", "description": None}
        ],
    }


def test_a_failing_tool_reaches_the_model_as_a_tool_error(target: Target) -> None:
    """``fail`` answers ``isError``: the tool raises ``ToolException``, which the tool hands the model as
    an error message; the run goes on. Called directly without a tool call, it is the same text."""
    state = agent_of(target.box).invoke(order(target.name("fail"), message="boom"))
    message = tool_message(state)
    assert (message.status, message.content) == ("error", "boom")
    assert state["messages"][-1].content == "error: boom"
    assert one_tool(target, "fail").invoke({"message": "boom"}) == "boom"


def test_a_lost_connection_is_raised_from_the_agent_not_handed_to_the_model() -> None:
    """The server dies mid-call (``crash``): the agent's run raises ``TransportClosed``, sync and async."""
    with target_of("stdio") as target:
        agent = agent_of(target.box)
        with pytest.raises(mcpsync.TransportClosed):
            agent.invoke(order("crash", message="bye"))
        with pytest.raises(mcpsync.TransportClosed):
            asyncio.run(agent.ainvoke(order("echo", text="anyone?")))


@pytest.mark.parametrize("kind", KINDS)
def test_a_tool_list_change_reaches_the_tools_after_refresh(kind: str) -> None:
    """The server adds ``late`` after its first listing: the tools made before do not have it; after
    ``box.refresh()``, ``box.langchain()`` does."""
    check_a_list_change_is_seen_after_refresh(kind, lambda box: {t.name for t in box.langchain()})


@pytest.mark.parametrize("kind", KINDS)
def test_cancelling_the_async_run_cancels_the_call_on_the_server(kind: str) -> None:
    """An ``ainvoke`` run whose tool sleeps is cancelled once its call is out: the run ends with
    ``CancelledError`` and the server sees the call cancelled (the box's timeout, two minutes, is far
    longer than the wait here: only the cancel can have ended the call)."""
    with target_of(kind, timeout=120) as target:
        agent = agent_of(target.box)

        async def main() -> None:
            run = asyncio.ensure_future(agent.ainvoke(order(target.name("sleep"), seconds=60)))
            await target.until_in_flight()
            run.cancel()
            with pytest.raises(asyncio.CancelledError):
                await asyncio.wait_for(run, T)

        asyncio.run(main())
        assert len(target.cancelled_on_server(1)) == 1


@pytest.mark.parametrize("kind", KINDS)
def test_ctrl_c_in_invoke_cancels_the_call_on_the_server(kind: str) -> None:
    """Ctrl-C while ``invoke`` waits on the main thread: ``KeyboardInterrupt``, and the server is told."""
    check_ctrl_c_cancels_on_the_server(kind, lambda target: one_tool(target, "sleep").invoke({"seconds": 60}))


@pytest.mark.parametrize("kind", KINDS)
def test_ctrl_c_in_an_async_run_cancels_the_call_on_the_server(kind: str) -> None:
    """Ctrl-C while ``asyncio.run(agent.ainvoke(...))`` waits: asyncio cancels the run's task, and with it
    the call on the server."""
    check_ctrl_c_cancels_on_the_server(
        kind, lambda target: asyncio.run(agent_of(target.box).ainvoke(order(target.name("sleep"), seconds=60)))
    )


@pytest.mark.parametrize("kind", KINDS)
def test_a_cancel_scope_around_a_sync_run_reaches_the_graphs_worker_threads(kind: str) -> None:
    """LangGraph's sync ``invoke`` calls tools on worker threads (Ctrl-C does not reach them), with the
    caller's context: a ``CancelScope`` entered around ``invoke`` and cancelled from elsewhere cancels the
    call on the server, and the run raises ``RequestCancelled`` (not handed to the model)."""
    with target_of(kind) as target:
        agent = agent_of(target.box)
        scope = mcpsync.CancelScope()
        watcher = threading.Thread(target=lambda: wait_for(in_flight(target.client), T) and scope.cancel("stopped"))
        watcher.start()
        try:
            with scope, pytest.raises(mcpsync.RequestCancelled, match="stopped"):
                agent.invoke(order(target.name("sleep"), seconds=60))
        finally:
            watcher.join(T)
        assert len(target.cancelled_on_server(1)) == 1


@pytest.mark.slow("waits out the 0.5 s call timeout twice (a sync and an async run), then for both cancellations")
@pytest.mark.parametrize("kind", KINDS)
def test_the_calls_timeout_holds_and_the_model_is_told(kind: str) -> None:
    """A box with a 0.5 s timeout and a tool that sleeps a minute: the call gives up at the timeout (the
    model reads that it timed out, as an error) and the server is told, in the sync and async runs."""
    with target_of(kind, timeout=0.5) as target:
        agent = agent_of(target.box)
        for run in (
            lambda: agent.invoke(order(target.name("sleep"), seconds=60)),
            lambda: asyncio.run(agent.ainvoke(order(target.name("sleep"), seconds=60))),
        ):
            message = tool_message(run())
            assert message.status == "error" and "Request timeout after 0." in message.content, message.content
        assert len(target.cancelled_on_server(2)) == 2
