"""MCP tools handed to a model (``mcpsync.ToolBox``): each vendor's definitions and tool results checked
against that vendor's own SDK types, the SDKs' tool-call objects run as they come, names made safe,
schemas adapted (and what was dropped said), errors the model can read, failures it cannot fix raised.

The SDKs (openai, anthropic, google-genai) are test-only dependencies; mcpsync imports none of them.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import mcpsync
from mcpsync import CallToolResult, ToolBox
from mcpsync._edges.toolbox.formats import tool_result as _tool_result
from mcpsync._edges.toolbox.schemas import FORMATS, MAX_NAME, adapt_schema, safe_names
from mcpsync.testing import server_command, server_config
from tests.deferred import deferred
from tests.edges.sdk_types import assert_fits

openai_chat = deferred("openai.types.chat")
openai_responses = deferred("openai.types.responses")
anthropic_types = deferred("anthropic.types")
genai_types = deferred("google.genai.types")
input_items = deferred("openai.types.responses.response_input_item_param")

# One worker runs the module (xdist_group): one worker, not each, imports its libraries (0.5-3.3 s).
pytestmark = [pytest.mark.usefixtures("server_in_thread"), pytest.mark.xdist_group("model_sdks")]

T = 20
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
#: The function-name rules of the APIs: OpenAI and Anthropic, and Gemini's.
NAME_RULES = (re.compile(r"^[a-zA-Z0-9_-]{1,64}$"), re.compile(r"^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$"))
PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="


@pytest.fixture(scope="module")
def client():
    with mcpsync.connect(server_config(name="llm"), timeout=T) as client:
        yield client


@pytest.fixture(scope="module")
def box(client):
    return ToolBox(client, timeout=T)


def test_definitions_fit_each_vendors_own_types(box) -> None:
    for definition in box.openai():
        assert_fits(definition, openai_chat.ChatCompletionFunctionToolParam)
        openai_chat.ChatCompletionFunctionTool.model_validate(definition)
    for definition in box.openai_responses():
        assert_fits(definition, openai_responses.FunctionToolParam)
        openai_responses.FunctionTool.model_validate(definition)
    for definition in box.anthropic():
        assert_fits(definition, anthropic_types.ToolParam)
    gemini = box.gemini()
    assert len(gemini) == 1
    tool = genai_types.Tool.model_validate(gemini[0])  # Gemini's models forbid unknown fields
    assert {d.name for d in tool.function_declarations} == set(box.names)
    names = {d["function"]["name"] for d in box.openai()}
    assert names == {d["name"] for d in box.anthropic()} == set(box.names) and "echo" in names
    echo = next(d for d in box.anthropic() if d["name"] == "echo")
    assert echo["input_schema"]["properties"] == {"text": {"type": "string"}}


def test_the_sdks_own_tool_call_objects_run_and_the_results_fit_their_types(box) -> None:
    chat_call = openai_chat.ChatCompletionMessageToolCall(
        id="call_1", type="function", function={"name": "echo", "arguments": '{"text": "hi"}'}
    )
    message = box.run(chat_call)
    assert message == {"role": "tool", "tool_call_id": "call_1", "content": "hi"}
    assert_fits(message, openai_chat.ChatCompletionToolMessageParam)

    item = openai_responses.ResponseFunctionToolCall(
        call_id="fc_1", name="add", arguments='{"a": 2, "b": 40}', type="function_call"
    )
    output = box.run(item)
    assert output == {"type": "function_call_output", "call_id": "fc_1", "output": '{"sum": 42}'}
    assert_fits(output, input_items.FunctionCallOutput)

    use = anthropic_types.ToolUseBlock(id="toolu_1", name="add", input={"a": 1, "b": 2}, type="tool_use")
    block = box.run(use)
    assert block == {
        "type": "tool_result",
        "tool_use_id": "toolu_1",
        "content": [{"type": "text", "text": '{"sum": 3}'}],
    }
    assert_fits(block, anthropic_types.ToolResultBlockParam)

    part = genai_types.Part(function_call=genai_types.FunctionCall(id="g1", name="add", args={"a": 5, "b": 5}))
    answer = box.run(part)
    assert answer == {"function_response": {"name": "add", "response": {"output": {"sum": 10}}, "id": "g1"}}
    genai_types.Part.model_validate(answer)
    plain = box.run(genai_types.FunctionCall(name="echo", args={"text": "yo"}))
    assert plain == {"function_response": {"name": "echo", "response": {"output": "yo"}}}


def test_a_tools_failure_and_the_models_mistakes_come_back_as_errors_it_can_read(box) -> None:
    failed = box.run({"type": "tool_use", "id": "t1", "name": "fail", "input": {"message": "disk full"}})
    assert failed == {
        "type": "tool_result",
        "tool_use_id": "t1",
        "content": [{"type": "text", "text": "disk full"}],
        "is_error": True,
    }
    unknown = box.run({"id": "c", "type": "function", "function": {"name": "ech", "arguments": "{}"}})
    assert (
        unknown["content"].startswith("Error: There is no tool named 'ech'. The tools: add, ")
        and "echo" in unknown["content"]
    )
    not_json = box.run({"type": "function_call", "call_id": "f", "name": "echo", "arguments": '{"text": '})
    assert not_json["output"].startswith("Error: The arguments are not valid JSON")
    not_object = box.run({"name": "echo", "args": ["x"]})
    assert not_object == {
        "function_response": {"name": "echo", "response": {"error": "The arguments must be a JSON object."}}
    }
    refused = box.run({"id": "c", "type": "function", "function": {"name": "add", "arguments": '{"a": 1}'}})
    assert refused["content"].startswith("Error: ") and "'b'" in refused["content"]
    with pytest.raises(ValueError, match=r"not a tool call .* keys \['role', 'text'\]"):
        box.run({"role": "user", "text": "hello"})
    with pytest.raises(ValueError, match="not a tool call: int"):
        box.run(42)


def test_structured_content_that_is_not_an_object_reaches_every_format(box) -> None:
    """2026-07-28 ``structuredContent`` of any JSON value (the test server's ``users`` array and
    ``word_count`` number, over the modern era): each format gets it as JSON text, Gemini under
    ``output``, each fitting the vendor's type. The unfixed box got a ProtocolError instead."""
    users = [{"id": "1", "name": "Alice"}, {"id": "2", "name": "Bob"}]
    message = box.run({"id": "c", "type": "function", "function": {"name": "users", "arguments": "{}"}})
    assert json.loads(message["content"]) == users
    assert_fits(message, openai_chat.ChatCompletionToolMessageParam)
    output = box.run({"type": "function_call", "call_id": "f", "name": "word_count", "arguments": '{"text": "a b c"}'})
    assert output == {"type": "function_call_output", "call_id": "f", "output": "3"}
    assert_fits(output, input_items.FunctionCallOutput)
    block = box.run({"type": "tool_use", "id": "t", "name": "users", "input": {}})
    assert json.loads(block["content"][0]["text"]) == users and "is_error" not in block
    assert_fits(block, anthropic_types.ToolResultBlockParam)
    for name, arguments, value in (("users", {}, users), ("word_count", {"text": "a b"}, 2)):
        answer = box.run({"name": name, "args": arguments})
        assert answer == {"function_response": {"name": name, "response": {"output": value}}}
        genai_types.Part.model_validate(answer)
    # Only structured content, no text: the JSON text of any value (null too) is what the model reads.
    for value, text in (([1, 2], "[1, 2]"), (None, "null"), ("x", '"x"')):
        alone = CallToolResult.from_dict({"content": [], "structuredContent": value}, "t")
        assert _tool_result("openai", "c", "t", alone)["content"] == text


def test_tools_for_the_app_alone_are_held_back_from_the_model_and_refused(box) -> None:
    """MCP Apps: ``refresh_dashboard`` (``_meta.ui.visibility: ["app"]``) is never handed to a model
    (the extension's MUST for hosts), ``held_back`` says so and why, and a model's call of it is
    refused without calling it; ``show_dashboard`` (model and app) is offered as any tool is."""
    assert set(box.held_back) == {"refresh_dashboard"}
    assert "visibility is ['app'], without 'model'" in box.held_back["refresh_dashboard"]
    for format in FORMATS:
        definitions = box.definitions(format)
        assert "refresh_dashboard" not in json.dumps(definitions) and "show_dashboard" in json.dumps(definitions)
        assert definitions.held_back == box.held_back
    refused = box.run({"type": "tool_use", "id": "t", "name": "refresh_dashboard", "input": {}})
    assert refused["is_error"] is True
    assert refused["content"][0]["text"].startswith("The tool 'refresh_dashboard' is not for the model: its _meta.ui")
    assert box.run({"type": "tool_use", "id": "t", "name": "show_dashboard", "input": {}})["content"] == [
        {"type": "text", "text": "the dashboard is shown"}
    ]


@pytest.mark.parametrize(
    "meta, visibility",
    [
        (None, ("model", "app")),
        ({"ui": {"resourceUri": "ui://x"}}, ("model", "app")),
        ({"ui": {"visibility": ["model"]}}, ("model",)),
        ({"ui": {"visibility": []}}, ()),
        ({"ui": {"visibility": "model"}}, ()),
        ({"ui": "garbage"}, ("model", "app")),
    ],
)
def test_a_tools_visibility_is_read_from_its_meta(meta, visibility) -> None:
    """``Tool.visibility``: both audiences when the tool says nothing; a value that is not a list of
    strings is no one's (a model never gets a tool nobody can tell is for it)."""
    data = {"name": "t", "inputSchema": {"type": "object"}, **({"_meta": meta} if meta is not None else {})}
    assert mcpsync.Tool.from_dict(data).visibility == visibility


def test_a_lost_connection_is_raised_not_handed_to_the_model() -> None:
    with mcpsync.connect(server_config(name="gone"), timeout=T) as client:
        box = ToolBox(client, timeout=T)
    with pytest.raises(mcpsync.TransportClosed):
        box.run({"type": "tool_use", "id": "t", "name": "echo", "input": {"text": "x"}})


def test_images_go_where_the_format_takes_them_and_are_said_to_be_left_out_elsewhere() -> None:
    result = CallToolResult.from_dict(
        {"content": [{"type": "text", "text": "a pixel"}, {"type": "image", "data": PIXEL, "mimeType": "image/png"}]},
        "draw",
    )
    block = _tool_result("anthropic", "t", "draw", result)
    assert block["content"][1] == {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": PIXEL},
    }
    assert_fits(block, anthropic_types.ToolResultBlockParam)
    output = _tool_result("openai-responses", "f", "draw", result)
    assert output["output"] == [
        {"type": "input_text", "text": "a pixel"},
        {"type": "input_image", "image_url": f"data:image/png;base64,{PIXEL}"},
    ]
    assert_fits(output, input_items.FunctionCallOutput)
    message = _tool_result("openai", "c", "draw", result)
    assert message["content"] == "a pixel\n[an image, image/png, 70 bytes: this API takes no images in a tool result]"
    gemini = _tool_result("gemini", None, "draw", result)
    assert "70 bytes" in gemini["function_response"]["response"]["output"]
    genai_types.Part.model_validate(gemini)


def test_names_are_safe_unique_and_short_enough_for_every_api() -> None:
    names = ["github__search_issues", "a.b", "a_b", "1st", "dé jà", "x" * 100, "x" * 100 + "y", "a_b"]
    safe = safe_names(names)
    assert safe["github__search_issues"] == "github__search_issues"
    assert safe["1st"] == "_1st" and safe["dé jà"] == "d__j_"
    assert len({safe[n] for n in set(names)}) == len(set(names)), "two tools, one name"
    for name in safe.values():
        assert all(rule.match(name) for rule in NAME_RULES), name
        assert len(name) <= MAX_NAME
    assert safe_names(names) == safe, "the same list gives the same names"


SCHEMA_2020 = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {"when": {"type": "string", "format": "date-time"}},
    "properties": {
        "at": {"$ref": "#/$defs/when"},
        "note": {"type": ["string", "null"]},
        "mode": {"const": "fast"},
        "shape": {"oneOf": [{"type": "integer"}, {"type": "string"}]},
        "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
    },
    "if": {"properties": {"mode": {"const": "fast"}}},
    "then": {"required": ["at"]},
    "required": ["mode"],
}


def test_schemas_are_adapted_per_format_and_what_was_dropped_is_said() -> None:
    anthropic_schema, dropped = adapt_schema(SCHEMA_2020, "anthropic")
    assert dropped == []  # $schema is left out, unreported: it tells the model nothing
    assert "$schema" not in anthropic_schema
    assert anthropic_schema["$defs"] == SCHEMA_2020["$defs"] and "if" in anthropic_schema  # JSON Schema kept
    assert SCHEMA_2020["$schema"], "the tool's own schema is untouched"

    gemini_schema, dropped = adapt_schema(SCHEMA_2020, "gemini")
    assert gemini_schema["properties"]["at"] == {"type": "string", "format": "date-time"}  # the $ref inlined
    assert gemini_schema["properties"]["note"] == {"nullable": True, "type": "string"}
    assert gemini_schema["properties"]["mode"] == {"enum": ["fast"]}
    assert gemini_schema["properties"]["shape"] == {"anyOf": [{"type": "integer"}, {"type": "string"}]}
    assert sorted(dropped) == sorted(["properties.shape.oneOf (as anyOf)", "properties.tags.uniqueItems", "if", "then"])
    genai_types.Schema.model_validate(gemini_schema)

    root_union = {"anyOf": [{"type": "object"}, {"type": "string"}]}
    openai_schema, dropped = adapt_schema(root_union, "openai")
    assert openai_schema == {"type": "object", "properties": {}} and dropped == ["anyOf"]


def test_the_box_says_what_each_format_loses_and_not_what_changes_nothing() -> None:
    """Schemas as many servers send them (``$schema``, ``$id``, ``$comment`` on every tool): the box's
    ``.dropped`` names only what a model would not be told, per format and tool; a plain tool is absent."""
    plain = {"type": "object", "properties": {"text": {"type": "string"}}}
    dialect = {"$schema": "http://json-schema.org/draft-07/schema#", "$id": "urn:x", "$comment": "generated"}
    tools = {
        "plain": {**dialect, **plain},
        "dated": {**dialect, "type": "object", "properties": {"at": {"type": "string", "format": "date-time"}}},
        "either": {**dialect, "anyOf": [{"type": "object"}, {"type": "string"}]},
        "unique": {**dialect, **plain, "properties": {"tags": {"type": "array", "uniqueItems": True}}},
    }

    class Listed:  # what a Manager's list_tools gives: a qualified name and the tool
        def __init__(self, name: str, schema: dict) -> None:
            self.name = name
            self.tool = mcpsync.Tool.from_dict({"name": name, "inputSchema": schema})

    class FakeManager:
        def __init__(self) -> None:
            self.clients: dict = {}

        def list_tools(self) -> list:
            return [Listed(name, schema) for name, schema in tools.items()]

    box = ToolBox(FakeManager())
    assert box.dropped == {
        "openai": {"either": ["anyOf"]},
        "openai-responses": {"either": ["anyOf"]},
        "anthropic": {"either": ["anyOf"]},
        "gemini": {"either": ["(root type: object)"], "unique": ["properties.tags.uniqueItems"]},
    }
    assert box.definitions("gemini").dropped == box.dropped["gemini"]
    assert "$schema" not in json.dumps(box.anthropic())


def test_a_recursive_schema_is_cut_for_gemini_and_says_so() -> None:
    tree = {"type": "object", "$defs": {"node": {"type": "object", "properties": {"child": {"$ref": "#/$defs/node"}}}}}
    tree["properties"] = {"root": {"$ref": "#/$defs/node"}}
    schema, dropped = adapt_schema(tree, "gemini")
    genai_types.Schema.model_validate(schema)
    assert dropped == ["properties.root.properties.child.$ref (recursive)"]
    assert schema["properties"]["root"] == {"type": "object", "properties": {"child": {}}}


def test_a_box_with_dropped_keywords_says_which_tool_lost_what() -> None:
    with mcpsync.connect(server_config(name="schemas"), timeout=T) as client:
        box = ToolBox([client], timeout=T)
        assert "schemas__echo" in box.names.values() and box.names["schemas__echo"] == "schemas__echo"
        assert box.gemini().dropped == {} and box.gemini().format == "gemini"
        # region_echo's x-mcp-header says how its argument travels over HTTP: none of the model's business.
        for format in ("openai-responses", "anthropic"):
            region = next(d for d in box.definitions(format) if d["name"] == "schemas__region_echo")
            assert "x-mcp-header" not in json.dumps(region["parameters" if "parameters" in region else "input_schema"])
        with pytest.raises(ValueError, match="format must be one of openai, openai-responses, anthropic, gemini"):
            box.definitions("llama")
    with pytest.raises(TypeError, match="ToolBox takes a Client, a Manager or clients, not int"):
        ToolBox(3)


def test_a_manager_s_tools_are_routed_to_their_own_servers(tmp_path) -> None:
    command, *args = server_command()
    entry = {"command": command, "args": args}
    with mcpsync.Manager({"mcpServers": {"one": entry, "two": entry}}) as manager:
        assert manager.wait_until_ready(timeout=T)
        box = ToolBox(manager, timeout=T)
        assert {"one__echo", "two__echo"} <= set(box.names)
        echoed = box.run({"type": "tool_use", "id": "t", "name": "one__echo", "input": {"text": "routed"}})
        assert echoed["content"] == [{"type": "text", "text": "routed"}]
        # MCP Apps: each server's app-only tool is held back under its qualified name, and refused.
        assert set(box.held_back) == {"one__refresh_dashboard", "two__refresh_dashboard"}
        refused = box.run({"type": "tool_use", "id": "t", "name": "two__refresh_dashboard", "input": {}})
        assert refused["is_error"] is True and "not for the model" in refused["content"][0]["text"]


@pytest.mark.slow("runs the example as a Python process (imports its model's SDK)")
@pytest.mark.parametrize("example", ["llm_openai.py", "llm_openai_responses.py", "llm_anthropic.py", "llm_gemini.py"])
def test_each_example_runs_without_an_api_key_against_its_fake_model(example: str) -> None:
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / example)],
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "model: The sum is 42.", done.stdout


def _named_server(name: str, tool: str) -> mcpsync.Client:
    """A scripted server with one tool, ``tool``, whose every call answers with the server's name."""
    from tests.helpers import scripted_server

    listing = {"tools": [{"name": tool, "inputSchema": {"type": "object"}}]}
    answer = {"content": [{"type": "text", "text": f"server {name}"}]}
    return mcpsync.connect(scripted_server({"tools/list": [listing], "tools/call": [answer]}), name=name, timeout=T)


def test_tools_of_two_clients_that_would_share_a_name_are_both_there_and_routed_right() -> None:
    """Server ``a`` has a tool ``b__c`` and server ``a__b`` a tool ``c``: both would be ``a__b__c``.
    Both are handed to the model under names of their own, and each call goes to its own server."""
    with _named_server("a", "b__c") as first, _named_server("a__b", "c") as second:
        box = ToolBox([first, second], timeout=T)
        assert len(box.names) == 2 and len(box.anthropic()) == 2
        assert sorted(box.names.values()) == sorted(box.names) and "a__b__c" in box.names
        answered = {}
        for name in box.names:
            result = box.run({"type": "tool_use", "id": "t", "name": name, "input": {}})
            answered[name] = result["content"][0]["text"]
        assert answered["a__b__c"] == "server a"
        (other,) = set(answered) - {"a__b__c"}
        assert other.startswith("a__b__c_") and answered[other] == "server a__b"


def test_two_clients_with_one_name_are_refused() -> None:
    """Two different clients named alike: their tools could not be told apart, so the box is refused."""
    with _named_server("same", "x") as first, _named_server("same", "y") as second:
        with pytest.raises(mcpsync.ConfigurationError, match="two clients are named 'same'"):
            ToolBox([first, second], timeout=T)
