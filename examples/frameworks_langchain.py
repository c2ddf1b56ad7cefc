"""MCP tools in a LangChain agent (a LangGraph graph underneath): ``box.langchain()``, sync and async.

    pip install -e . langchain    # in mcpsync's checkout; langchain brings langchain-core and langgraph
    python examples/frameworks_langchain.py

Runs without an API key: ``OfflineModel`` is a chat model of LangChain's own interface that asks
for the ``add`` tool, then answers with its result. With a real model instead::

    from langchain.chat_models import init_chat_model
    main(init_chat_model("anthropic:claude-sonnet-4-5"))
"""

import asyncio
import json
import sys

from langchain.agents import create_agent
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult

import mcpsync


class OfflineModel(BaseChatModel):
    """First a tool call of ``add``; given its result, the answer."""

    @property
    def _llm_type(self):
        return "offline"

    def bind_tools(self, tools, **kwargs):
        assert any(tool.name == "add" for tool in tools)
        return self

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        last = messages[-1]
        if isinstance(last, ToolMessage):
            message = AIMessage(content=f"The sum is {last.artifact['structured_content']['sum']}.")
        else:
            call = {"name": "add", "args": {"a": 2, "b": 40}, "id": "call_1", "type": "tool_call"}
            message = AIMessage(content="", tool_calls=[call])
        return ChatResult(generations=[ChatGeneration(message=message)])


def main(model=None):
    with mcpsync.connect([sys.executable, "-m", "mcpsync.testing"]) as client:
        box = mcpsync.ToolBox(client)
        agent = create_agent(model or OfflineModel(), box.langchain())
        question = {"messages": [{"role": "user", "content": "What is 2 + 40? Use the add tool."}]}

        state = agent.invoke(question)  # sync: the call blocks this thread; Ctrl-C cancels it on the server
        for message in state["messages"]:
            if isinstance(message, ToolMessage):
                print("tool call:", message.name, json.dumps(message.artifact))
        print("model:", state["messages"][-1].content)

        # async: the call runs on a thread of its own; cancelling the task cancels it on the server
        state = asyncio.run(agent.ainvoke(question))
        print("model:", state["messages"][-1].content)


if __name__ == "__main__":
    main()
