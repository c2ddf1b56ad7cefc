"""MCP tools handed to an Anthropic model: the tools as ``tools=``, its ``tool_use`` blocks run by mcpsync.

    python examples/llm_anthropic.py

Runs without an API key: ``fake_model`` answers as the Messages API would.
With the SDK and a key, use the real one instead::

    import anthropic
    model = anthropic.Anthropic()
    def ask(messages, tools):
        return model.messages.create(model="claude-sonnet-4-5", max_tokens=1024, messages=messages,
                                     tools=tools).model_dump()
"""

import json
import sys

import mcpsync


def fake_model(messages, tools):
    """A Messages API response: first a tool_use block for ``add``, then, given its result, the answer."""
    last = messages[-1]["content"]
    if isinstance(last, list) and last[0].get("type") == "tool_result":
        total = json.loads(last[0]["content"][0]["text"])["sum"]
        answer = {"type": "text", "text": f"The sum is {total}."}
        return {"role": "assistant", "stop_reason": "end_turn", "content": [answer]}
    assert any(tool["name"] == "add" for tool in tools)
    call = {"type": "tool_use", "id": "toolu_01", "name": "add", "input": {"a": 2, "b": 40}}
    return {"role": "assistant", "stop_reason": "tool_use", "content": [call]}


def main(ask=fake_model):
    with mcpsync.connect([sys.executable, "-m", "mcpsync.testing"]) as client:
        box = mcpsync.ToolBox(client)
        tools = box.anthropic()
        messages = [{"role": "user", "content": "What is 2 + 40? Use the add tool."}]
        while True:
            reply = ask(messages, tools)
            messages.append({"role": "assistant", "content": reply["content"]})
            calls = [block for block in reply["content"] if block["type"] == "tool_use"]
            if not calls:
                break
            results = []
            for call in calls:
                print("tool call:", call["name"], json.dumps(call["input"]))
                results.append(box.run(call))  # a tool_result block, errors included as is_error
            messages.append({"role": "user", "content": results})
        print("model:", reply["content"][0]["text"])


if __name__ == "__main__":
    main()
