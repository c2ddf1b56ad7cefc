"""``ToolBox(..., include_tools=, exclude_tools=)``: over clients, the box filters their tools as a
``Manager`` filters its servers'; a tool taken out is held back from the model and refused."""

from __future__ import annotations

import warnings

import pytest

import mcpsync
from mcpsync.testing import server_config

pytestmark = pytest.mark.usefixtures("server_in_thread")

T = 20.0


def tool_server(name: str) -> mcpsync.StdioServerConfig:
    """The test server with 20 made-up tools named ``t_<verb>_issue(s)`` / ``t_<verb>_project(s)``."""
    return server_config("--tools", "20", "--tool-prefix", "t", name=name)


def test_a_box_over_clients_filters_their_tools_and_refuses_the_ones_taken_out() -> None:
    """A list for every client and a mapping for one: what they take out is neither offered nor called,
    and the refusal (box.call, box.run) names the rule."""
    with mcpsync.connect(tool_server("a"), timeout=T) as a, mcpsync.connect(tool_server("b"), timeout=T) as b:
        box = mcpsync.ToolBox([a, b], include_tools=["t_get_*", "t_list_*"], exclude_tools={"b": ["t_list_*"]})
        assert sorted(box.names.values()) == [
            "a__t_get_issue",
            "a__t_get_project",
            "a__t_list_issues",
            "a__t_list_projects",
            "b__t_get_issue",
            "b__t_get_project",
        ]
        assert box.held_back["b__t_list_issues"] == "excluded by ToolBox(exclude_tools=) ['t_list_*']"
        assert box.held_back["a__t_delete_issue"] == "not in ToolBox(include_tools=) ['t_get_*', 't_list_*']"
        assert len(box.openai()) == 6
        with pytest.raises(mcpsync.UnknownNameError, match=r"excluded by ToolBox\(exclude_tools=\)"):
            box.call("b__t_list_issues", {})
        reply = box.run({"id": "c1", "type": "function", "function": {"name": "a__t_delete_issue", "arguments": "{}"}})
        assert "not in ToolBox(include_tools=)" in reply["content"]
        assert box.call("a__t_get_issue", {"id": "1"}).structured_content == {
            "tool": "t_get_issue",
            "arguments": {"id": "1"},
        }


def test_a_box_over_one_client_warns_of_a_pattern_that_matches_nothing_and_names_a_wrong_client() -> None:
    """A pattern that matches none of the client's tools is a ConfigurationWarning naming it; a mapping
    naming no client of the box is a ConfigurationError."""
    with mcpsync.connect(tool_server("solo"), timeout=T) as client:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            box = mcpsync.ToolBox(client, exclude_tools=["t_delete_*", "t_remove_*"])
        assert [str(w.message) for w in caught] == [
            "ToolBox: the tool filter pattern 't_remove_*' (ToolBox(exclude_tools=) ['t_delete_*', 't_remove_*']) "
            "matches no tool of any server (solo)"
        ]
        assert len(box.names) == 18
        with pytest.raises(mcpsync.ConfigurationError, match=r"ToolBox\(include_tools=\): no server named 'other'"):
            mcpsync.ToolBox(client, include_tools={"other": ["x"]})
