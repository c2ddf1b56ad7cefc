"""Tool filters: ``includeTools`` / ``excludeTools`` / ``disabledTools`` of configuration files and
``Manager(include_tools=, exclude_tools=)`` decide which tools a manager lists and lets be called.

The servers are mcpsync's test server with 20 made-up tools (``--tools 20 --tool-prefix t``):
``t_<verb>_issue(s)`` and ``t_<verb>_project(s)`` for ten verbs (list, get, create, update, delete,
search, archive, export, count, assign).
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

import mcpsync
from mcpsync._manager.tool_filter import Rule, ToolFilter
from mcpsync.testing.synthetic import synthetic_tools

pytestmark = pytest.mark.usefixtures("server_in_thread")

T = 20.0
#: The test server must import this mcpsync (a server gets no PYTHONPATH of ours unless told).
SERVER_ENV = {"PYTHONPATH": str(Path(mcpsync.__file__).resolve().parents[1])}
ALL = {tool["name"] for tool in synthetic_tools(20, "t")}


def entry(**members: Any) -> dict[str, Any]:
    """An mcpServers entry for the test server with the 20 made-up tools, plus ``members``."""
    args = ["-m", "mcpsync.testing", "--tools", "20", "--tool-prefix", "t"]
    return {"command": sys.executable, "args": args, "env": SERVER_ENV, **members}


def manager_of(config: Any, tmp_path: Path, **options: Any) -> mcpsync.Manager:
    return mcpsync.Manager(config, tool_cache=tmp_path / "tools.json", startup_timeout=T, **options)


def own_names(manager: mcpsync.Manager, server: str = "s") -> set[str]:
    return {tool.tool.name for tool in manager.list_tools() if tool.server == server}


@pytest.mark.parametrize(
    ("member", "patterns", "offered"),
    [
        ("includeTools", ["t_get_*", "t_list_issues"], {"t_get_issue", "t_get_project", "t_list_issues"}),
        ("excludeTools", ["t_delete_*"], ALL - {"t_delete_issue", "t_delete_project"}),
        ("disabledTools", ["t_delete_issue"], ALL - {"t_delete_issue"}),
    ],
)
def test_each_spelling_of_a_configuration_file_filters_the_list_and_the_calls(
    member: str, patterns: list[str], offered: set[str], tmp_path: Path
) -> None:
    """A file's filter (Gemini CLI's includeTools/excludeTools, Roo Code's disabledTools): the tools it takes
    out are neither listed nor callable, and the error says which member of which file took them out."""
    path = tmp_path / ".mcp.json"
    path.write_text(json.dumps({"mcpServers": {"s": entry(**{member: patterns})}}))
    with manager_of(mcpsync.load_config(path), tmp_path) as manager:
        assert own_names(manager) == offered
        assert manager.status()["s"].tools == len(offered)
        hidden = sorted(ALL - offered)[0]
        with pytest.raises(mcpsync.UnknownNameError) as caught:
            manager.call_tool(f"s__{hidden}", {"id": "1"})
        message = str(caught.value)
        assert f"{member} {patterns}" in message and str(path) in message and hidden in message
        kept = sorted(offered)[0]
        assert manager.call_tool(f"s__{kept}", {"id": "1", "fields": {}, "query": "q", "format": "csv"}).text


def test_exclude_wins_over_include_and_python_options_narrow_the_files(tmp_path: Path) -> None:
    """A deny wins over an allow; Manager(include_tools=) keeps only what the file's includeTools allows too;
    one list applies to every server, a mapping to the servers it names."""
    config = {
        "mcpServers": {
            "s": entry(includeTools=["t_get_*", "t_list_*"], excludeTools=["t_get_project"]),
            "other": entry(),
        }
    }
    with manager_of(
        config, tmp_path, include_tools=["t_*_issue", "t_*_issues"], exclude_tools={"other": ["t_delete_*"]}
    ) as manager:
        assert own_names(manager) == {"t_get_issue", "t_list_issues"}
        assert own_names(manager, "other") == {
            name for name in ALL if name.endswith(("_issue", "_issues")) and "delete" not in name
        }
        why = manager.filtered_out("s__t_get_project")
        assert why is not None and "excluded by excludeTools ['t_get_project']" in why
        why = manager.filtered_out("t_list_projects", "s")
        assert why is not None and "not in Manager(include_tools=)" in why
        assert manager.filtered_out("s__t_get_issue") is None


def test_a_filter_applies_to_cached_tools_of_a_server_not_yet_connected(tmp_path: Path) -> None:
    """The tools offered from the cache before the server is up pass the same filter as its live ones."""
    config = {"mcpServers": {"s": entry(excludeTools=["t_delete_*", "t_archive_*"])}}
    with manager_of(config, tmp_path):
        pass  # fills the cache
    with manager_of(config, tmp_path, start="lazy") as manager:
        assert manager.status()["s"].state is mcpsync.ServerState.IDLE
        assert own_names(manager) == {n for n in ALL if "delete" not in n and "archive" not in n}
        assert all(tool.deferred for tool in manager.list_tools())


def test_a_pattern_that_matches_no_tool_is_a_warning_naming_the_server_and_the_pattern(tmp_path: Path) -> None:
    """A pattern with a typo would silently filter nothing (or everything): it is a ConfigurationWarning,
    once, naming the server and the pattern; a list for every server is warned about only when no server matched it."""
    config = {"mcpServers": {"s": entry(excludeTools=["t_delete_*", "t_remove_*"]), "other": entry()}}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with manager_of(config, tmp_path, include_tools=["t_get_*", "z_*"]) as manager:
            manager.list_tools()
            manager.list_tools()
    texts = [str(w.message) for w in caught if issubclass(w.category, mcpsync.ConfigurationWarning)]
    assert len(texts) == 2, texts
    assert any("server 's'" in text and "'t_remove_*'" in text and "excludeTools" in text for text in texts)
    assert any("'z_*'" in text and "no tool of any server" in text for text in texts)


def test_wrong_filters_are_configuration_errors_that_say_where(tmp_path: Path) -> None:
    """A file's filter that is not a list of strings, a mapping naming no configured server, a bare string."""
    with pytest.raises(mcpsync.ConfigurationError, match=r"server 's': 'excludeTools' must be a list of tool names"):
        mcpsync.Manager({"mcpServers": {"s": entry(excludeTools="t_delete_issue")}}, tool_cache=False)
    with pytest.raises(mcpsync.ConfigurationError, match=r"Manager\(exclude_tools=\): no server named 'x'"):
        mcpsync.Manager({"mcpServers": {"s": entry()}}, tool_cache=False, exclude_tools={"x": ["a"]})
    with pytest.raises(mcpsync.ConfigurationError, match=r"expected a list of tool names or glob patterns"):
        mcpsync.Manager({"mcpServers": {"s": entry()}}, tool_cache=False, include_tools="t_get_*")


def test_toolbox_over_a_manager_offers_only_the_tools_that_pass(tmp_path: Path) -> None:
    """ToolBox follows the Manager: a filtered-out tool is not handed to a model, and a call of it is refused."""
    config = {"mcpServers": {"s": entry(includeTools=["t_search_*", "t_get_issue"])}}
    with manager_of(config, tmp_path) as manager:
        box = mcpsync.ToolBox(manager)
        assert sorted(box.names.values()) == ["s__t_get_issue", "s__t_search_issues", "s__t_search_projects"]
        with pytest.raises(mcpsync.UnknownNameError):
            box.call("s__t_delete_issue", {"id": "1"})


def test_a_rule_matches_names_and_globs_case_sensitively() -> None:
    """Patterns are fnmatch globs, case-sensitive; an exact name matches itself even with glob characters."""
    rule = ToolFilter(
        [Rule("includeTools", ("get_*", "odd[1]"), "f.json")], [Rule("excludeTools", ("get_secret",), "f.json")]
    )
    assert rule.allows("get_issue") and rule.allows("odd[1]")
    assert not rule.allows("Get_issue") and not rule.allows("list_issues")
    assert rule.why_not("get_secret") == "excluded by excludeTools ['get_secret'] in f.json"
    assert rule.why_not("list_issues") == "not in includeTools ['get_*', 'odd[1]'] in f.json"
    assert ToolFilter().allows("anything") and not ToolFilter().active
