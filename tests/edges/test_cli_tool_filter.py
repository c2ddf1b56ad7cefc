"""The ``mcpsync`` command honours the tool filters of the configuration file it reads."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.edges.test_cli import RUNS_THE_CLI, SERVER_ENV, lines, run


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """An empty working directory, which is also HOME and holds the XDG directories."""
    return tmp_path


def write_filtered_config(home: Path) -> Path:
    """A server with 20 made-up tools whose file excludes the deleting ones (Gemini CLI's spelling)."""
    args = ["-m", "mcpsync.testing", "--tools", "20", "--tool-prefix", "t"]
    server = {"command": sys.executable, "args": args, "env": SERVER_ENV, "excludeTools": ["t_delete_*"]}
    path = home / ".mcp.json"
    path.write_text(json.dumps({"mcpServers": {"s": server}}))
    return path


@pytest.mark.slow(RUNS_THE_CLI)
def test_tools_leaves_out_what_the_file_filters(home: Path) -> None:
    """``mcpsync tools`` lists 18 of the 20 tools: the two the file's excludeTools names are not there."""
    write_filtered_config(home)
    done = run(home, "tools")
    assert done.returncode == 0, done.stderr
    names = [row[0] for row in lines(done.stdout)[2:]]
    assert len(names) == 18 and "s__t_get_issue" in names
    assert not [name for name in names if "delete" in name]


@pytest.mark.slow(RUNS_THE_CLI)
def test_calling_a_filtered_tool_says_it_is_filtered_and_by_what(home: Path) -> None:
    """``mcpsync call`` of a tool the file excludes is a usage error naming the rule and the file, not a call."""
    path = write_filtered_config(home)
    done = run(home, "call", "s", "t_delete_issue", "id=1")
    assert done.returncode == 2
    assert "'t_delete_issue' is not offered" in done.stderr
    assert f"excluded by excludeTools ['t_delete_*'] in {path}" in done.stderr
    assert run(home, "call", "s__t_get_issue", "id=1").returncode == 0
