"""docs/architecture.md names every module of the package, in the row of its layer, in the order
tests/test_layers.py checks: a module added, moved or renamed without the map fails here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.test_layers import LAYERS, PACKAGE

DOC = PACKAGE.parent / "docs" / "architecture.md"


#: The most lines a module may have: past it, a module has grown a second job (issue 24).
MAX_LINES = 650


def layer_rows() -> dict[str, str]:
    """Each row of the layer table: the package it names (``mcpsync/_core``) -> the row's text."""
    rows: dict[str, str] = {}
    for line in DOC.read_text(encoding="utf-8").splitlines():
        if not line.startswith("| "):
            continue
        for package in re.findall(r"`(mcpsync/[\w]+)`", line.split("|")[2]):
            rows[package] = line
    return rows


def paragraphs_of(package: str) -> str:
    """The paragraphs that open as a package's own: ``**The ...** (`mcpsync/testing`...``."""
    found = []
    for paragraph in DOC.read_text(encoding="utf-8").split("\n\n"):
        if paragraph.startswith("**") and f"(`{package}`" in paragraph.split("\n", 1)[0]:
            found.append(paragraph)
    return "\n".join(found)


def packages() -> list[Path]:
    return sorted(p for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists())


@pytest.mark.parametrize("package", packages(), ids=lambda p: p.name)
def test_every_module_is_named_in_its_layers_row(package: Path) -> None:
    """Each module of a package appears as `name` (in backticks) in the table row of that package
    (or in a paragraph of its own that opens with the package's path)."""
    rows = layer_rows()
    key = f"mcpsync/{package.name}"
    assert key in rows, f"docs/architecture.md has no row for {key}"
    named = set(re.findall(r"`([\w.]+)`", rows[key] + paragraphs_of(key)))
    missing = [p.stem for p in sorted(package.glob("*.py")) if p.stem != "__init__" and p.stem not in named]
    assert not missing, f"docs/architecture.md does not name {key}'s modules {missing}"


def test_every_top_level_module_is_named() -> None:
    """``mcpsync/__init__.py`` and the other modules at the top are named by their path."""
    text = DOC.read_text(encoding="utf-8")
    missing = [p.name for p in sorted(PACKAGE.glob("*.py")) if f"mcpsync/{p.name}" not in text]
    assert not missing, f"docs/architecture.md does not name {missing}"


def test_the_table_lists_the_layers_bottom_up_as_the_layer_test_does() -> None:
    """The rows come in the order of tests/test_layers.py's LAYERS, each package once."""
    order = [p.split("/", 1)[1] for p in layer_rows()]
    expected = [name for name, _ in sorted(LAYERS.items(), key=lambda item: item[1]) if (PACKAGE / name).is_dir()]
    assert order == expected


def test_no_module_is_over_the_line_limit() -> None:
    """Every module of the package has at most MAX_LINES lines (docs/architecture.md says so)."""
    long = {
        str(p.relative_to(PACKAGE)): n
        for p in PACKAGE.rglob("*.py")
        if (n := len(p.read_text("utf-8").splitlines())) > MAX_LINES
    }
    assert not long, f"modules over {MAX_LINES} lines: {long}"
