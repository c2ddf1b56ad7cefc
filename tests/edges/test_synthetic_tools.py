"""The test server's made-up tools (``--tools N``): as many as asked, each named once, each a valid tool."""

from __future__ import annotations

import mcpsync
from mcpsync.testing.synthetic import answer, synthetic_tools


def test_any_number_of_tools_have_distinct_names_and_valid_schemas() -> None:
    """450 tools (past the 200 the verbs and nouns make, names get a number): all distinct, all readable
    as MCP tools, each schema's required arguments among its properties, each with a description."""
    tools = synthetic_tools(450, "crm")
    names = [tool["name"] for tool in tools]
    assert len(set(names)) == 450
    assert names[:3] == ["crm_list_issues", "crm_get_issue", "crm_create_issue"]
    assert "crm_list_issues_2" in names
    for raw in tools:
        tool = mcpsync.Tool.from_dict(raw)
        schema = tool.input_schema
        assert schema["type"] == "object" and set(schema["required"]) <= set(schema["properties"])
        assert tool.description and tool.name.startswith("crm_")
    assert synthetic_tools(20, "crm") == tools[:20]  # the same every time


def test_a_call_answers_with_its_name_and_arguments() -> None:
    """What a synthetic tool returns: text naming it and its arguments, and them as structured content."""
    result = answer("crm_get_issue", {"id": "7"})
    assert result["content"] == [{"type": "text", "text": 'crm_get_issue: done ({"id": "7"})'}]
    assert result["structuredContent"] == {"tool": "crm_get_issue", "arguments": {"id": "7"}}
