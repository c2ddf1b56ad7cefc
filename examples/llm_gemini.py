"""MCP tools handed to a Gemini model: ``tools=``, its ``function_call`` parts run by mcpsync.

    python examples/llm_gemini.py

Runs without an API key: ``fake_model`` answers as ``generate_content`` would.
With the SDK and a key, use the real one instead::

    from google import genai
    model = genai.Client()
    def ask(contents, tools):
        config = genai.types.GenerateContentConfig(tools=tools)
        return model.models.generate_content(model="gemini-2.5-flash", contents=contents,
                                             config=config).model_dump(exclude_none=True)
"""

import json
import sys

import mcpsync


def fake_model(contents, tools):
    """A generate_content response: first a function_call of ``add``, then, given its response, the answer."""
    last = contents[-1]["parts"][0]
    if "function_response" in last:
        total = last["function_response"]["response"]["output"]["sum"]
        parts = [{"text": f"The sum is {total}."}]
    else:
        assert any(d["name"] == "add" for tool in tools for d in tool["function_declarations"])
        parts = [{"function_call": {"name": "add", "args": {"a": 2, "b": 40}}}]
    return {"candidates": [{"content": {"role": "model", "parts": parts}}]}


def main(ask=fake_model):
    with mcpsync.connect([sys.executable, "-m", "mcpsync.testing"]) as client:
        box = mcpsync.ToolBox(client)
        tools = box.gemini()
        contents = [{"role": "user", "parts": [{"text": "What is 2 + 40? Use the add tool."}]}]
        while True:
            content = ask(contents, tools)["candidates"][0]["content"]
            contents.append(content)
            calls = [part for part in content["parts"] if "function_call" in part]
            if not calls:
                break
            for part in calls:
                print("tool call:", part["function_call"]["name"], json.dumps(part["function_call"]["args"]))
            contents.append({"role": "user", "parts": [box.run(part) for part in calls]})  # function_response parts
        print("model:", content["parts"][0]["text"])


if __name__ == "__main__":
    main()
