"""MCP tools handed to an OpenAI model (the Responses API): ``tools=``, its ``function_call`` items run
by mcpsync.

    python examples/llm_openai_responses.py

Runs without an API key: ``fake_model`` answers as the Responses API would.
With the SDK and a key, use the real one instead::

    import openai
    model = openai.OpenAI()
    def ask(items, tools):
        return model.responses.create(model="gpt-4.1", input=items, tools=tools).model_dump()
"""

import json
import sys

import mcpsync


def fake_model(items, tools):
    """A Responses API response: first a function_call of ``add``, then, given its output, the answer."""
    if items[-1].get("type") == "function_call_output":
        total = json.loads(items[-1]["output"])["sum"]
        text = {"type": "output_text", "text": f"The sum is {total}."}
        return {"output": [{"type": "message", "role": "assistant", "content": [text]}]}
    assert any(tool["name"] == "add" for tool in tools)
    call = {"type": "function_call", "call_id": "call_01", "name": "add", "arguments": '{"a": 2, "b": 40}'}
    return {"output": [call]}


def main(ask=fake_model):
    with mcpsync.connect([sys.executable, "-m", "mcpsync.testing"]) as client:
        box = mcpsync.ToolBox(client)
        tools = box.openai_responses()
        items = [{"role": "user", "content": "What is 2 + 40? Use the add tool."}]
        while True:
            output = ask(items, tools)["output"]
            items.extend(output)
            calls = [item for item in output if item["type"] == "function_call"]
            if not calls:
                break
            for call in calls:
                print("tool call:", call["name"], call["arguments"])
                items.append(box.run(call))  # a function_call_output item
        print("model:", output[-1]["content"][0]["text"])


if __name__ == "__main__":
    main()
