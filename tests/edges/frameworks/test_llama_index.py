"""``box.llama_index()``: MCP tools as LlamaIndex ``FunctionTool``s, run by a real ``FunctionAgent`` loop
whose LLM is LlamaIndex's own ``MockFunctionCallingLLM`` with a scripted response generator, over stdio,
Streamable HTTP and a Manager of two servers: results (text, structured content, images), ``call`` and
``acall``, 20 concurrent runs on one client, tool errors, a lost connection, list changes, cancellation,
timeouts."""

from __future__ import annotations

import asyncio
import base64
import json
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

llama_tools = deferred("llama_index.core.tools")
llama_workflow = deferred("llama_index.core.agent.workflow")
llama_types = deferred("llama_index.core.base.llms.types")
llama_llms = deferred("llama_index.core.llms")
llama_mock = deferred("llama_index.core.llms.mock")
workflow_errors = deferred("workflows.errors")

# LlamaIndex's workflows read every attribute of the agent (a pydantic model) to find its steps, and
# pydantic warns of its deprecated ones: LlamaIndex's own doing, not ours.
pytestmark = [
    pytest.mark.filterwarnings("ignore::pydantic.warnings.PydanticDeprecationWarning"),
    pytest.mark.usefixtures("server_in_thread"),
    pytest.mark.xdist_group("llama_index"),  # one worker imports LlamaIndex (1.7 s), not each
]


def script(messages: Any, **kwargs: Any) -> llama_llms.ChatMessage:
    """The model: call the tool the user message names (``{"tool": ..., "args": ...}``), then say what it
    returned."""
    last = messages[-1]
    if last.role == llama_llms.MessageRole.TOOL:
        return llama_llms.ChatMessage(role=llama_llms.MessageRole.ASSISTANT, content=f"tool said: {last.content}")
    order = json.loads(last.content)
    call = llama_types.ToolCallBlock(tool_call_id="call_1", tool_name=order["tool"], tool_kwargs=order["args"])
    return llama_llms.ChatMessage(role=llama_llms.MessageRole.ASSISTANT, blocks=[call])


def agent_of(box: mcpsync.ToolBox) -> Any:
    return llama_workflow.FunctionAgent(
        tools=box.llama_index(), llm=llama_mock.MockFunctionCallingLLM(response_generator=script)
    )


async def run(agent: Any, tool: str, **args: Any) -> tuple[str, list[Any]]:
    """One agent run asking for ``tool(**args)``: its final answer and its tool outputs."""
    handler = agent.run(user_msg=json.dumps({"tool": tool, "args": args}))
    outputs = [
        event.tool_output async for event in handler.stream_events() if isinstance(event, llama_workflow.ToolCallResult)
    ]
    result = await asyncio.wait_for(handler, T)
    return result.response.content, outputs


def one_tool(target: Target, tool: str) -> Any:
    return next(t for t in target.box.llama_index() if t.metadata.name == target.name(tool))


def test_the_tools_are_function_tools_with_the_metadata_agents_read(target: Target) -> None:
    """Every tool is a ``FunctionTool`` under the box's name, with the description, and a ``fn_schema``
    whose parameters (as LlamaIndex hands them to a model) are the MCP input schema."""
    tools = target.box.llama_index()
    assert [t.metadata.name for t in tools] == [offered.name for offered in target.box.offered()]
    assert all(isinstance(t, llama_tools.FunctionTool) for t in tools)
    add = one_tool(target, "add")
    offered = next(o for o in target.box.offered() if o.name == target.name("add"))
    assert add.metadata.description == offered.description
    assert add.metadata.get_parameters_dict() == offered.input_schema
    assert add.metadata.to_openai_tool()["function"]["parameters"] == offered.input_schema


def test_an_agent_calls_a_tool_and_gets_its_text_and_structured_content(target: Target) -> None:
    """The agent's model calls ``add``: the tool output's text goes to the model, its ``raw_output`` is
    the ``CallToolResult`` with the structured content."""
    answer, (output,) = asyncio.run(run(agent_of(target.box), target.name("add"), a=2, b=40))
    assert (output.content, output.is_error) == ('{"sum": 42}', False)
    assert output.raw_output.structured_content == {"sum": 42}
    assert answer == 'tool said: {"sum": 42}'


def test_call_and_acall_give_the_same_output(target: Target) -> None:
    """The sync entry point (``call``, as LlamaIndex's sync paths use) and the async one (``acall``)."""
    add = one_tool(target, "add")
    for output in (add.call(a=1, b=2), asyncio.run(add.acall(a=1, b=2))):
        assert (output.content, output.tool_name, output.raw_input) == (
            '{"sum": 3}',
            add.metadata.name,
            {"args": (), "kwargs": {"a": 1, "b": 2}},
        )


def test_twenty_concurrent_runs_share_one_client_and_each_gets_its_own_answer(target: Target) -> None:
    """20 agent runs at once over the one client: none deadlocks, each gets its own echo back."""
    agent = agent_of(target.box)

    async def main() -> list[tuple[str, list[Any]]]:
        return await asyncio.gather(*(run(agent, target.name("echo"), text=f"run {n}") for n in range(20)))

    answers = [answer for answer, _ in asyncio.run(main())]
    assert answers == [f"tool said: run {n}" for n in range(20)]


def test_an_image_is_an_image_block() -> None:
    """A result with text, an image and a resource link: LlamaIndex's text and image blocks, in order."""
    with drawing_box() as box:
        (draw,) = box.llama_index()
        output = draw.call()
    text, image, link = output.blocks
    assert isinstance(text, llama_types.TextBlock) and text.text == "a pixel"
    assert isinstance(image, llama_types.ImageBlock) and image.image_mimetype == "image/png"
    assert base64.b64decode(image.image) == base64.b64decode(PIXEL)
    assert isinstance(link, llama_types.TextBlock) and link.text == "[resource file:///pixel.png: pixel.png]"
    assert output.raw_output.structured_content == {"width": 1, "height": 1}


def test_a_failing_tool_reaches_the_model_as_a_tool_error(target: Target) -> None:
    """``fail`` answers ``isError``: the tool raises ``ToolError``, which the agent hands to the model as
    an error output; called directly, it raises."""
    answer, (output,) = asyncio.run(run(agent_of(target.box), target.name("fail"), message="boom"))
    assert output.is_error and isinstance(output.exception, mcpsync.ToolError)
    assert answer.startswith("tool said: tool ") and answer.endswith("failed: boom")
    with pytest.raises(mcpsync.ToolError, match="boom"):
        one_tool(target, "fail").call(message="boom")


def test_a_lost_connection_is_an_exception() -> None:
    """The server dies mid-call (``crash``): the tool raises ``TransportClosed`` (a LlamaIndex agent, by
    its design, hands every tool exception to the model: the output carries it), and so does a direct call."""
    with target_of("stdio") as target:
        _, (output,) = asyncio.run(run(agent_of(target.box), "crash", message="bye"))
        assert output.is_error and isinstance(output.exception, mcpsync.TransportClosed)
        with pytest.raises(mcpsync.TransportClosed):
            one_tool(target, "echo").call(text="anyone?")


@pytest.mark.parametrize("kind", KINDS)
def test_a_tool_list_change_reaches_the_tools_after_refresh(kind: str) -> None:
    """The server adds ``late`` after its first listing: after ``box.refresh()``, ``box.llama_index()`` has it."""
    check_a_list_change_is_seen_after_refresh(kind, lambda box: {t.metadata.name for t in box.llama_index()})


@pytest.mark.parametrize("kind", KINDS)
def test_cancelling_the_async_call_cancels_it_on_the_server(kind: str) -> None:
    """A task awaiting a sleeping tool's ``acall``, and an agent run stopped with ``cancel_run``, once
    their calls are out: both end, and the server sees both calls cancelled (the box's timeout, two
    minutes, is far longer than the waits here: only the cancels can have ended the calls)."""
    with target_of(kind, timeout=120) as target:
        sleep = one_tool(target, "sleep")

        async def cancel_a_call() -> None:
            task = asyncio.ensure_future(sleep.acall(seconds=60))
            await target.until_in_flight()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await asyncio.wait_for(task, T)

        async def cancel_a_run() -> None:
            order = json.dumps({"tool": target.name("sleep"), "args": {"seconds": 60}})
            handler = agent_of(target.box).run(user_msg=order)
            await target.until_in_flight()
            await asyncio.wait_for(handler.cancel_run(), T)
            with pytest.raises(workflow_errors.WorkflowCancelledByUser):
                await asyncio.wait_for(handler, T)

        asyncio.run(cancel_a_call())
        assert len(target.cancelled_on_server(1)) == 1  # its notice is out: the next message sent is the run's
        asyncio.run(cancel_a_run())
        assert len(target.cancelled_on_server(2)) == 2


@pytest.mark.parametrize("kind", KINDS)
def test_ctrl_c_in_call_cancels_it_on_the_server(kind: str) -> None:
    """Ctrl-C while ``call`` waits on the main thread: ``KeyboardInterrupt``, and the server is told."""
    check_ctrl_c_cancels_on_the_server(kind, lambda target: one_tool(target, "sleep").call(seconds=60))


@pytest.mark.parametrize("kind", KINDS)
def test_the_calls_timeout_holds_and_the_model_is_told(kind: str) -> None:
    """A box with a 0.5 s timeout and a tool that sleeps a minute: the call gives up at the timeout, the
    model reads that it timed out, and the server is told."""
    with target_of(kind, timeout=0.5) as target:
        answer, (output,) = asyncio.run(run(agent_of(target.box), target.name("sleep"), seconds=60))
        assert output.is_error and isinstance(output.exception, mcpsync.RequestTimeout)
        assert "Request timeout after 0." in answer
        assert len(target.cancelled_on_server(1)) == 1
