"""MCP tools in an OpenAI Agents SDK agent: ``box.openai_agents_server()`` is the SDK's own MCP server,
for ``Agent(mcp_servers=[...])`` (``box.openai_agents()`` gives plain ``FunctionTool``s instead).

    pip install -e . openai-agents    # in mcpsync's checkout
    python examples/frameworks_openai_agents.py

Runs without an API key: ``OfflineModel`` is a model of the SDK's own interface that asks for the
``add`` tool, then answers with its result. With a real model instead (``OPENAI_API_KEY`` set)::

    main("gpt-5")
"""

import json
import sys

from agents import Agent, RunConfig, Runner
from agents.items import ModelResponse
from agents.models.interface import Model
from agents.usage import Usage
from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText

import mcpsync


class OfflineModel(Model):
    """First a call of ``add``; given its output, the answer."""

    async def get_response(
        self, system_instructions, input, model_settings, tools, output_schema, handoffs, tracing, **kwargs
    ):
        outputs = [
            item["output"] for item in input if isinstance(item, dict) and item.get("type") == "function_call_output"
        ]
        if outputs:  # use_structured_content=True: the output is the structured content, as JSON
            text = f"The sum is {json.loads(outputs[-1])['sum']}."
            content = [ResponseOutputText(type="output_text", text=text, annotations=[])]
            item = ResponseOutputMessage(
                id="msg_1", type="message", role="assistant", status="completed", content=content
            )
        else:
            arguments = json.dumps({"a": 2, "b": 40})
            item = ResponseFunctionToolCall(type="function_call", call_id="call_1", name="add", arguments=arguments)
        return ModelResponse(output=[item], usage=Usage(), response_id=None)

    def stream_response(self, *args, **kwargs):
        raise NotImplementedError("this example does not stream")


def main(model=None):
    with mcpsync.connect([sys.executable, "-m", "mcpsync.testing"]) as client:
        box = mcpsync.ToolBox(client)
        server = box.openai_agents_server(use_structured_content=True)  # listed again on each run
        agent = Agent(
            name="calculator", instructions="Use the tools.", model=model or OfflineModel(), mcp_servers=[server]
        )
        # Offline, there is nothing to trace to; Ctrl-C (or cancelling Runner.run's task) cancels a call on the server.
        result = Runner.run_sync(
            agent, "What is 2 + 40? Use the add tool.", run_config=RunConfig(tracing_disabled=model is None)
        )
        for item in result.new_items:
            if item.type == "tool_call_item":
                print("tool call:", item.raw_item.name, item.raw_item.arguments)
        print("model:", result.final_output)


if __name__ == "__main__":
    main()
