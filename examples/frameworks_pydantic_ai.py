"""MCP tools in a Pydantic AI agent: ``box.pydantic_ai()`` is a toolset, for ``Agent(toolsets=[...])``.

    pip install -e . pydantic-ai-slim    # in mcpsync's checkout
    python examples/frameworks_pydantic_ai.py

Runs without an API key: ``offline_model`` (in Pydantic AI's own ``FunctionModel``) asks for the ``add``
tool, then answers with its result. With a real model instead (``pip install "pydantic-ai-slim[openai]"``,
``OPENAI_API_KEY`` set)::

    main("openai:gpt-5")
"""

import sys

from pydantic_ai import Agent
from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import FunctionModel

import mcpsync


async def offline_model(messages, info):
    """First a call of ``add``; given its result (the structured content), the answer."""
    returned = [part for message in messages for part in message.parts if isinstance(part, ToolReturnPart)]
    if returned:
        return ModelResponse(parts=[TextPart(f"The sum is {returned[-1].content['sum']}.")])
    return ModelResponse(parts=[ToolCallPart("add", {"a": 2, "b": 40})])


def main(model=None):
    with mcpsync.connect([sys.executable, "-m", "mcpsync.testing"]) as client:
        toolset = mcpsync.ToolBox(client).pydantic_ai()  # the tools are read again at each run's start
        agent = Agent(model or FunctionModel(offline_model), toolsets=[toolset])
        result = agent.run_sync("What is 2 + 40? Use the add tool.")  # Ctrl-C cancels a call on the server
        for message in result.all_messages():
            for part in message.parts:
                if isinstance(part, ToolCallPart):
                    print("tool call:", part.tool_name, part.args)
        print("model:", result.output)


if __name__ == "__main__":
    main()
