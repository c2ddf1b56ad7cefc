"""A server's tool schemas built to break a ToolBox (issue 36, point 1): too deep for Python's recursion,
a ``$ref`` fan-out that inlines to billions of nodes in 300 bytes, a ``$ref`` back into itself. Promise:
the box is made at once, every other tool (and every other server's) is offered in every format and to
every framework, and the tools that cannot be handed on are held back with the reason, never raised."""

from __future__ import annotations

import json
import logging
import sys
import tracemalloc
from typing import Any

import pytest

import mcpsync
from mcpsync import ToolBox
from mcpsync._edges.frameworks.common import OfferedTool, adapted
from mcpsync._edges.toolbox.schemas import FORMATS, MAX_NODES, MAX_SCHEMA_DEPTH, adapt_schema, over_budget
from mcpsync._session.models import Tool
from mcpsync.testing import server_command
from tests.deferred import deferred
from tests.helpers import scripted_server

T = 20
genai_types = deferred("google.genai.types")


def nested(depth: int) -> dict[str, Any]:
    """An object schema ``depth`` properties deep (two containers a level)."""
    schema: dict[str, Any] = {"type": "object"}
    for _ in range(depth):
        schema = {"type": "object", "properties": {"x": schema}}
    return schema


def fan_out(levels: int) -> dict[str, Any]:
    """``$ref``s that each name the next level twice: 2 ** ``levels`` nodes inlined, 70 bytes a level."""
    defs: dict[str, Any] = {
        f"d{i}": {"anyOf": [{"$ref": f"#/$defs/d{i + 1}"}, {"$ref": f"#/$defs/d{i + 1}"}]} for i in range(levels)
    }
    defs[f"d{levels}"] = {"type": "string"}
    return {"type": "object", "properties": {"a": {"$ref": "#/$defs/d0"}}, "$defs": defs}


RECURSIVE = {
    "type": "object",
    "properties": {"root": {"$ref": "#/$defs/node"}},
    "$defs": {"node": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}},
}
HOSTILE = [
    {"name": "deep", "inputSchema": nested(300)},
    {"name": "fan", "inputSchema": fan_out(30)},
    {"name": "tree", "inputSchema": RECURSIVE},
    {"name": "plain", "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}},
]


def hostile_server() -> list[str]:
    return scripted_server({"tools/list": [{"tools": HOSTILE}]})


def test_the_budget_says_why_and_costs_no_more_than_it_allows() -> None:
    """``over_budget``: too deep and too large (inlined) are told apart; the fan-out's 2 ** 30 nodes
    cost the walk no more than ``MAX_NODES`` steps' memory; a recursive ``$ref`` and a schema just within
    the depth are fine."""
    assert over_budget(nested(300)) == f"nested deeper than {MAX_SCHEMA_DEPTH}"
    assert over_budget(nested(MAX_SCHEMA_DEPTH // 2 - 1)) is None
    assert len(json.dumps(fan_out(30))) < 2500  # 2 ** 30 leaves inlined
    tracemalloc.start()
    try:
        assert over_budget(fan_out(30)) == f"larger than {MAX_NODES} values with its $refs inlined"
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 5_000_000, f"the walk of a 1 kB schema took {peak} bytes"
    assert over_budget(fan_out(8)) is None  # 256 leaves inlined: within the budget
    assert over_budget(RECURSIVE) is None
    assert over_budget({"type": "object", "properties": {"a": {"$ref": "#/$defs/missing"}}}) is None


def test_a_box_over_a_hostile_server_holds_back_its_two_bad_tools_and_offers_the_rest() -> None:
    with mcpsync.connect(hostile_server(), timeout=T) as client:
        box = ToolBox(client, timeout=T)
    assert box.held_back == {
        "deep": f"its inputSchema is nested deeper than {MAX_SCHEMA_DEPTH}",
        "fan": f"its inputSchema is larger than {MAX_NODES} values with its $refs inlined",
    }
    assert [tool.name for tool in box.offered()] == ["tree", "plain"]
    for format in FORMATS:
        definitions = box.definitions(format)
        assert definitions.held_back == box.held_back
        names = json.dumps(definitions)
        assert '"tree"' in names and '"plain"' in names and '"deep"' not in names and '"fan"' not in names
    assert box.dropped == {"gemini": {"tree": ["properties.root.properties.kids.items.$ref (recursive)"]}}
    (gemini,) = box.gemini()
    for declaration in gemini["function_declarations"]:
        genai_types.Schema.model_validate(declaration["parameters"])


def test_a_call_of_a_held_back_tool_is_refused_with_the_reason() -> None:
    with mcpsync.connect(hostile_server(), timeout=T) as client:
        box = ToolBox(client, timeout=T)
        with pytest.raises(mcpsync.UnknownNameError, match="nested deeper than 64"):
            box.call("deep", {})
        answer = box.run({"type": "tool_use", "id": "t1", "name": "fan", "input": {}})
        assert answer["is_error"] is True and "larger than" in json.dumps(answer)


def test_one_hostile_server_in_a_manager_costs_the_others_none_of_their_tools() -> None:
    """The Manager's box: every tool of the bundled server is there, in every format and framework."""
    hostile, (command, *args) = hostile_server(), server_command()
    servers = {"bad": {"command": hostile[0], "args": hostile[1:]}, "good": {"command": command, "args": args}}
    with mcpsync.Manager({"mcpServers": servers}) as manager:
        assert manager.wait_until_ready(timeout=T)
        box = ToolBox(manager, timeout=T)
        good = {tool.name for tool in manager.list_tools() if tool.server == "good"} - set(box.held_back)
        offered = {tool.name for tool in box.offered()}
        assert good and good <= offered and {"bad__tree", "bad__plain"} <= offered
        assert {"bad__deep", "bad__fan"} <= set(box.held_back)
        for format in FORMATS:
            assert len(box.definitions(format if format != "gemini" else "openai")) == len(offered)
        assert box.call("good__echo", {"text": "still here"}).text == "still here"


@pytest.mark.parametrize(
    ("framework", "module"),
    [
        ("langchain", "langchain_core"),
        ("llama_index", "llama_index.core"),
        ("smolagents", "smolagents"),
        ("openai_agents", "agents"),
    ],
)
def test_every_framework_gets_the_tools_that_can_be_handed_on(framework: str, module: str) -> None:
    pytest.importorskip(module)
    with mcpsync.connect(hostile_server(), timeout=T) as client:
        tools = getattr(ToolBox(client, timeout=T), framework)()
        assert len(tools) == 2


def test_a_tool_a_framework_refuses_is_left_out_and_said_not_raised(caplog: pytest.LogCaptureFixture) -> None:
    tool = Tool.from_dict({"name": "x", "inputSchema": {"type": "object"}})
    offered = [OfferedTool(name, "", {"type": "object"}, tool) for name in ("a", "b", "c")]

    def adapt(one: OfferedTool) -> str:
        if one.name == "b":
            raise RecursionError("maximum recursion depth exceeded")
        return one.name.upper()

    with caplog.at_level(logging.WARNING, logger="mcpsync.frameworks"):
        assert adapted("LangChain", offered, adapt) == ["A", "C"]
    assert "LangChain: tool 'b' left out, the framework refused it: RecursionError" in caplog.text


def test_adapting_a_schema_at_the_budget_stays_within_the_recursion_limit() -> None:
    """The deepest schema the budget lets through adapts in every format with room to spare."""
    deepest = nested(MAX_SCHEMA_DEPTH // 2 - 1)
    assert over_budget(deepest) is None
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(400)
    try:
        for format in FORMATS:
            adapt_schema(deepest, format)
    finally:
        sys.setrecursionlimit(limit)
