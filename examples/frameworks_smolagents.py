"""MCP tools in a smolagents agent: ``box.smolagents()`` gives ``Tool``s for a ``ToolCallingAgent``.

    pip install -e . smolagents    # in mcpsync's checkout
    python examples/frameworks_smolagents.py

Runs without an API key: ``OfflineModel`` is a model of smolagents' own interface that asks for the
``add`` tool, then gives its result as the final answer. With a real model instead::

    from smolagents import InferenceClientModel
    main(InferenceClientModel())
"""

import ast
import sys

from smolagents import ToolCallingAgent
from smolagents.models import ChatMessage, ChatMessageToolCall, ChatMessageToolCallFunction, MessageRole, Model

import mcpsync


class OfflineModel(Model):
    """First a tool call of ``add``; given its result, the final answer."""

    def generate(self, messages, stop_sequences=None, response_format=None, tools_to_call_from=None, **kwargs):
        last = messages[-1]
        if last.role == MessageRole.TOOL_RESPONSE:  # "Observation:\n{'sum': 42}"
            observed = ast.literal_eval(last.content[0]["text"].split("\n", 1)[1])
            function = ChatMessageToolCallFunction(
                name="final_answer", arguments={"answer": f"The sum is {observed['sum']}."}
            )
        else:
            function = ChatMessageToolCallFunction(name="add", arguments={"a": 2, "b": 40})
        call = ChatMessageToolCall(id=f"call_{len(messages)}", type="function", function=function)
        return ChatMessage(role=MessageRole.ASSISTANT, content="", tool_calls=[call])


def main(model=None):
    with mcpsync.connect([sys.executable, "-m", "mcpsync.testing"]) as client:
        box = mcpsync.ToolBox(client)
        tools = box.smolagents()  # add has an outputSchema: it returns its structured content
        agent = ToolCallingAgent(tools=tools, model=model or OfflineModel(), verbosity_level=-1)
        answer = agent.run("What is 2 + 40? Use the add tool.")  # Ctrl-C cancels a call on the server
        for step in agent.memory.steps[1:]:
            for call in getattr(step, "tool_calls", None) or []:
                print("tool call:", call.name, call.arguments)
        print("model:", answer)


if __name__ == "__main__":
    main()
