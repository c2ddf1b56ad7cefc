"""Libraries a test module needs, imported when a test first uses them rather than when pytest collects.

Every xdist worker collects every module, and the frameworks and model SDKs the edge tests run against
take 0.5 to 2.4 s each to import: 11 s a worker at collection, paid again by each worker and by
``make check`` for modules whose tests it then runs on another worker. ``deferred("llama_index.core")``
is ``pytest.importorskip``'s promise without the import: the module is skipped at collection when the
distribution is not installed (found without importing it), and imported at the first attribute a test
reads.
"""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType
from typing import Any

import pytest


class Deferred:
    """A module, imported at the first attribute read from it."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attribute: str) -> Any:
        if attribute.startswith("_"):  # pytest looks for its markers on everything a module holds
            raise AttributeError(attribute)
        return getattr(self.module(), attribute)

    def module(self) -> ModuleType:
        return importlib.import_module(self._name)

    def __repr__(self) -> str:
        return f"<deferred {self._name}>"


def deferred(name: str) -> Any:
    """``name`` as a :class:`Deferred`; the calling test module is skipped when its top-level package is
    not installed (as ``pytest.importorskip`` would, without importing it)."""
    top = name.partition(".")[0]
    if importlib.util.find_spec(top) is None:
        pytest.skip(f"could not find {top!r}: {name} is not installed", allow_module_level=True)
    return Deferred(name)
