"""MCP tools in a LlamaIndex agent: ``box.llama_index()`` gives ``FunctionTool``s for a ``FunctionAgent``.

    pip install -e . llama-index-core    # in mcpsync's checkout
    python examples/frameworks_llama_index.py

Runs without an API key: the LLM is LlamaIndex's own ``MockFunctionCallingLLM``, scripted by
``offline_model`` to ask for the ``add`` tool, then answer with its result. With a real model instead::

    from llama_index.llms.anthropic import Anthropic
    main(Anthropic(model="claude-sonnet-4-5"))
"""

import asyncio
import json
import sys

from llama_index.core.agent.workflow import FunctionAgent, ToolCallResult
from llama_index.core.base.llms.types import ToolCallBlock
from llama_index.core.llms import ChatMessage, MessageRole
from llama_index.core.llms.mock import MockFunctionCallingLLM

import mcpsync


def offline_model(messages, **kwargs):
    """First a tool call of ``add``; given its result, the answer."""
    last = messages[-1]
    if last.role == MessageRole.TOOL:
        return ChatMessage(role=MessageRole.ASSISTANT, content=f"The sum is {json.loads(last.content)['sum']}.")
    call = ToolCallBlock(tool_call_id="call_1", tool_name="add", tool_kwargs={"a": 2, "b": 40})
    return ChatMessage(role=MessageRole.ASSISTANT, blocks=[call])


async def ask(agent, question):
    handler = agent.run(user_msg=question)
    async for event in handler.stream_events():
        if isinstance(event, ToolCallResult):  # raw_output is the CallToolResult
            print("tool call:", event.tool_name, json.dumps(event.tool_kwargs), event.tool_output.raw_output)
    return await handler


def main(llm=None):
    with mcpsync.connect([sys.executable, "-m", "mcpsync.testing"]) as client:
        box = mcpsync.ToolBox(client)
        tools = box.llama_index()  # each with a sync (tool.call) and an async (tool.acall) function
        agent = FunctionAgent(tools=tools, llm=llm or MockFunctionCallingLLM(response_generator=offline_model))
        answer = asyncio.run(ask(agent, "What is 2 + 40? Use the add tool."))
        print("model:", answer.response.content)


if __name__ == "__main__":
    main()
