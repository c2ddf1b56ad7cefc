"""The trusted-projects file when it is not what mcpsync wrote: corrupt, of another format, not a file,
or not writable. Whatever it holds, nothing is trusted that was not trusted with this content
(fail closed), a file that cannot be read says so in a warning, and trusting again writes a good
file in its place; a store that cannot be written warns and raises nothing."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from mcpsync._manager.trust import TrustStore

CONTENT = b'{"mcpServers": {"repo": {"command": "x"}}}'


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "repo" / ".mcp.json"
    path.parent.mkdir()
    path.write_bytes(CONTENT)
    return path


@pytest.mark.parametrize(
    ("stored", "warned"),
    [
        (b"{not json", True),
        (b"\xff\xfe\x00garbage", True),
        (b"", True),
        (json.dumps({"version": 2, "files": {}}).encode(), False),
        (json.dumps({"version": 1, "files": ["a"]}).encode(), False),
        (json.dumps([1, 2]).encode(), False),
    ],
    ids=["not-json", "not-utf8", "empty", "other-version", "files-not-a-dict", "not-an-object"],
)
def test_a_corrupt_or_foreign_trust_file_trusts_nothing_and_is_replaced_on_the_next_trust(
    tmp_path, project, caplog, stored, warned
):
    """The store file holds garbage (or another format): the project is not trusted (the command line
    asks again), the store says why (``problem``, which the command line shows), garbage is
    logged as unreadable, and trusting writes a good file that holds."""
    path = tmp_path / "data" / "trusted-projects.json"
    path.parent.mkdir()
    path.write_bytes(stored)
    store = TrustStore(path)
    with caplog.at_level(logging.WARNING, logger="mcpsync.manager"):
        assert store.is_trusted(project, CONTENT) is False
    assert any("unreadable, ignored" in r.getMessage() for r in caplog.records) is warned
    assert store.problem is not None and str(path) in store.problem
    store.trust(project, CONTENT)
    again = TrustStore(path)
    assert again.is_trusted(project, CONTENT) and again.problem is None
    assert json.loads(path.read_text())["version"] == 1


def test_a_trust_file_entry_for_the_path_with_another_digest_or_type_is_not_trust(tmp_path, project):
    """An entry for the file whose value is not this content's digest (or not a string) trusts nothing."""
    path = tmp_path / "trusted-projects.json"
    for value in ("sha256:" + "0" * 64, 1, None, {"sha256": "x"}):
        path.write_text(json.dumps({"version": 1, "files": {str(project.resolve()): value}}))
        assert TrustStore(path).is_trusted(project, CONTENT) is False


def test_a_trust_file_that_cannot_be_read_or_written_warns_and_trusts_nothing(tmp_path, project, caplog):
    """A directory stands where the file should be: reading warns and trusts nothing; trusting
    warns that it could not be remembered, raises nothing, and leaves no temporary file behind."""
    path = tmp_path / "data" / "trusted-projects.json"
    path.mkdir(parents=True)
    store = TrustStore(path)
    with caplog.at_level(logging.WARNING, logger="mcpsync.manager"):
        assert store.is_trusted(project, CONTENT) is False
        store.trust(project, CONTENT)
    messages = [r.getMessage() for r in caplog.records]
    assert any("unreadable, ignored" in m for m in messages)
    assert any("could not remember the trusted project" in m for m in messages)
    assert store.is_trusted(project, CONTENT) is False
    assert sorted(p.name for p in path.parent.iterdir()) == ["trusted-projects.json"]


def test_a_trust_store_whose_directory_cannot_be_made_warns_and_raises_nothing(tmp_path, project, caplog):
    """The data directory's place is taken by a file: trusting warns and raises nothing."""
    (tmp_path / "data").write_text("a file")
    store = TrustStore(tmp_path / "data" / "trusted-projects.json")
    with caplog.at_level(logging.WARNING, logger="mcpsync.manager"):
        store.trust(project, CONTENT)
    assert any("could not remember the trusted project" in r.getMessage() for r in caplog.records)
    assert store.is_trusted(project, CONTENT) is False
