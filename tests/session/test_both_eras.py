"""The issue's "done when": the same user script runs unchanged against an old-era and a new-era server.

examples/both_eras.py (also in the README) runs one function against the
test server as a 2025-11-25 server (``--legacy-only``) and as a 2026-07-28
one; the official SDK's dual-era server is reached in both eras as well.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import mcpsync
from tests.interop.official import SERVER_SCRIPT

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "both_eras.py"
T = 30


@pytest.mark.slow("runs examples/both_eras.py in a new Python, which starts the test server twice")
def test_the_example_gets_the_same_answers_from_a_server_of_each_era() -> None:
    done = subprocess.run([sys.executable, str(EXAMPLE)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    old, new = done.stdout.split("a 2026-07-28 server: ")
    assert old.startswith("a 2025-11-25 server: the legacy era, protocol 2025-11-25\n")
    assert new.startswith("the modern era, protocol 2026-07-28\n")
    assert old.splitlines()[1:] == new.splitlines()[1:]  # every answer the same
    assert "    {'sum': 42}" in new.splitlines() and "    done after [1, 2, 3]" in new.splitlines()


def use(client: mcpsync.Client) -> list[Any]:
    client.ping(timeout=T)
    return [
        sorted(tool.name for tool in client.list_tools(timeout=T)),
        client.call_tool("echo", {"text": "hello"}, timeout=T).text,
        client.call_tool("add", {"a": 2, "b": 40}, timeout=T).structured_content,
    ]


@pytest.mark.official
def test_the_official_sdks_server_answers_the_same_in_both_eras() -> None:
    pytest.importorskip("mcp.server.mcpserver")
    command = [sys.executable, str(SERVER_SCRIPT), "stdio"]
    answers = {}
    for protocol in ("legacy", "auto"):
        with mcpsync.connect(command, timeout=T, protocol=protocol) as client:
            answers[client.era] = use(client)
    assert set(answers) == {"legacy", "modern"}
    assert answers["legacy"] == answers["modern"]
    assert answers["modern"][1:] == ["hello", {"total": 42}]
