"""Every row of docs/faults.md names the tests that reproduce it, and those tests exist and agree.

A row ends with ``(test: `tests/<path>.py::<test name>`, ...)``. This test reads the tables of
docs/faults.md and fails when a row names no test, names a file or a test that does not exist
(found with ``ast``, without importing or running anything), or names an error of mcpsync's that
none of its tests mentions: a row that says ``RequestTimeout`` is reproduced by a test that
expects a ``RequestTimeout``.
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import pytest

import mcpsync

ROOT = Path(__file__).resolve().parent.parent
FAULTS = ROOT / "docs" / "faults.md"
REFERENCE = re.compile(r"`(tests/[\w/]+\.py)::(\w+)`")
#: mcpsync's public errors, by name.
ERRORS = {
    name
    for name in mcpsync._PUBLIC
    if isinstance(getattr(mcpsync, name), type) and issubclass(getattr(mcpsync, name), BaseException)
}


def table_rows() -> list[str]:
    """The rows of every table in docs/faults.md, without the header rows and separators."""
    lines = FAULTS.read_text(encoding="utf-8").splitlines()
    rows = []
    for number, line in enumerate(lines):
        if not line.startswith("|") or set(line) <= set("|-: "):
            continue
        following = lines[number + 1] if number + 1 < len(lines) else ""
        if following.startswith("|") and set(following) <= set("|-: "):
            continue  # a header
        rows.append(line)
    return rows


@functools.cache
def functions_of(path: str) -> dict[str, str]:
    """The test functions of a test file (``Class::method`` for methods), with their source; each
    file parsed once for all the rows that name it (many rows name the same few large files)."""
    source = (ROOT / path).read_text(encoding="utf-8")
    found: dict[str, str] = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
            found[node.name] = ast.get_source_segment(source, node) or ""
    return found


def errors_named(row: str) -> set[str]:
    """The mcpsync errors a row names in code spans, before its test references."""
    text = row.split("(test: ")[0]
    return {name for span in re.findall(r"`([^`]+)`", text) for name in re.findall(r"\w+", span) if name in ERRORS}


ROWS = table_rows()


def test_the_tables_were_read():
    """The parser finds the rows of every table (55 and more), so the checks below are not vacuous."""
    assert len(ROWS) >= 55


@pytest.mark.parametrize("row", ROWS, ids=lambda row: row[2:50])
def test_each_row_names_tests_that_exist_and_expect_its_errors(row: str):
    """A row: at least one test named; each file and test exists; each error it names is in one of its tests."""
    references = REFERENCE.findall(row)
    assert references, f"this row of docs/faults.md names no test: {row[:80]}"
    sources = []
    for path, name in references:
        assert (ROOT / path).is_file(), f"{path} does not exist (named in: {row[:60]})"
        functions = functions_of(path)
        assert name in functions, f"{path} has no test {name} (named in: {row[:60]})"
        sources.append(functions[name])
    for error in sorted(errors_named(row)):
        assert any(re.search(rf"\b{error}\b", source) for source in sources), (
            f"the row names {error} but none of its tests mentions it: {row[:80]}"
        )
