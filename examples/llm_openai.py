"""MCP tools handed to an OpenAI model (Chat Completions): ``tools=``, and its ``tool_calls`` run by mcpsync.

    python examples/llm_openai.py

Runs without an API key: ``fake_model`` answers as Chat Completions would.
With the SDK and a key, use the real one instead::

    import openai
    model = openai.OpenAI()
    def ask(messages, tools):
        return model.chat.completions.create(model="gpt-4.1", messages=messages, tools=tools).model_dump()
"""

import json
import sys

import mcpsync


def fake_model(messages, tools):
    """A Chat Completions response: first a tool call of ``add``, then, given its result, the answer."""
    if messages[-1]["role"] == "tool":
        total = json.loads(messages[-1]["content"])["sum"]
        message = {"role": "assistant", "content": f"The sum is {total}."}
    else:
        assert any(tool["function"]["name"] == "add" for tool in tools)
        call = {"id": "call_01", "type": "function", "function": {"name": "add", "arguments": '{"a": 2, "b": 40}'}}
        message = {"role": "assistant", "content": None, "tool_calls": [call]}
    return {"choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}


def main(ask=fake_model):
    with mcpsync.connect([sys.executable, "-m", "mcpsync.testing"]) as client:
        box = mcpsync.ToolBox(client)
        tools = box.openai()
        messages = [{"role": "user", "content": "What is 2 + 40? Use the add tool."}]
        while True:
            message = ask(messages, tools)["choices"][0]["message"]
            messages.append(message)
            if not message.get("tool_calls"):
                break
            for call in message["tool_calls"]:
                print("tool call:", call["function"]["name"], call["function"]["arguments"])
                messages.append(box.run(call))  # a role "tool" message; a failure reads "Error: ..."
        print("model:", message["content"])


if __name__ == "__main__":
    main()
