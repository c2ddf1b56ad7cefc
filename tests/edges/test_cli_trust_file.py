"""The command line with a trusted-projects file that is corrupt: it fails closed (a project file is
asked about again, with nobody to ask it stops with exit code 2 and starts nothing), says the file
was unreadable, and ``--trust`` writes a good file in its place."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.edges.test_cli import RUNS_THE_CLI, run, write_project


@pytest.mark.slow(RUNS_THE_CLI)
def test_a_corrupt_trust_file_starts_nothing_until_trusted_again(tmp_path: Path) -> None:
    """Garbage in trusted-projects.json: exit 2 and no server started; then --trust repairs it."""
    marker = tmp_path / "it-ran"
    write_project(tmp_path, marker)
    store = tmp_path / "data" / "mcpsync" / "trusted-projects.json"
    store.parent.mkdir(parents=True)
    store.write_bytes(b'{"version": 1, "files": {"')
    done = run(tmp_path, "tools", trust=False)
    assert done.returncode == 2, done.stderr
    assert "that you have not trusted" in done.stderr and "--trust" in done.stderr
    assert "warning: the trusted projects file" in done.stderr and "is unreadable (JSONDecodeError)" in done.stderr
    assert not marker.exists(), "the project's command ran"
    assert run(tmp_path, "tools", trust=True).returncode == 0
    assert marker.exists()
    assert list(json.loads(store.read_text())["files"]) == [str((tmp_path / ".mcp.json").resolve())]
