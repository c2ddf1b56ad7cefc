"""The MCP JSON schemas as published, read from the pinned conformance package (tests/conformance).

``npm ci --prefix tests/conformance`` installs ``@modelcontextprotocol/conformance``, whose bundle
holds every revision's schema; tests/conformance/published_schemas.mjs prints them as JSON with
the Node 22 installed beside it. Nothing of a schema is copied into the project by hand. A test
that calls ``published()`` is skipped, saying why, when the package is not installed.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

import pytest

CONFORMANCE = Path(__file__).resolve().parent / "conformance"
NODE = CONFORMANCE / "node_modules" / "node" / "bin" / "node"
BUNDLE = CONFORMANCE / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
EXTRACTOR = CONFORMANCE / "published_schemas.mjs"


@lru_cache(maxsize=1)
def _load() -> dict[str, Any]:
    out = subprocess.run([str(NODE), str(EXTRACTOR), str(BUNDLE)], capture_output=True, text=True, timeout=60)
    if out.returncode != 0:
        raise RuntimeError(f"{EXTRACTOR.name} failed: {out.stderr}")
    schemas: dict[str, Any] = json.loads(out.stdout)
    return schemas


def published() -> dict[str, Any]:
    """Every revision's schema, by revision (``"2025-11-25"``, ``"2026-07-28"``, ...)."""
    if not NODE.exists() or not BUNDLE.exists():
        pytest.skip("the conformance package is not installed (npm ci --prefix tests/conformance)")
    return _load()


def definitions(revision: str) -> Mapping[str, Any]:
    """A revision's definitions (``$defs``; ``definitions`` in 2025-06-18 and before)."""
    schema = published()[revision]
    return schema.get("$defs") or schema["definitions"]


def resolve(revision: str, node: Mapping[str, Any]) -> Mapping[str, Any]:
    """``node`` with its ``$ref`` followed."""
    while "$ref" in node:
        node = definitions(revision)[node["$ref"].rsplit("/", 1)[-1]]
    return node
