"""Texts cut to a readable length, for logs, errors, reprs and tables: one way to do it."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import Optional, Union

__all__ = ["SHORTEN_LIMIT", "cut", "did_you_mean", "first_line", "shorten"]

#: How much of an offending message goes into logs and exception texts.
SHORTEN_LIMIT = 300


def cut(text: str, limit: int) -> str:
    """``text``, or its first ``limit - 3`` characters and ``...`` when it is longer than ``limit``."""
    return text if len(text) <= limit else text[: max(0, limit - 3)] + "..."


def did_you_mean(word: str, known: Iterable[str], *, n: int = 3, cutoff: float = 0.6) -> str:
    """``"; did you mean 'x'?"`` naming the ``known`` names closest to ``word`` (difflib), or ``""`` for none."""
    close = difflib.get_close_matches(word, list(known), n=n, cutoff=cutoff)
    return f"; did you mean {', '.join(map(repr, close))}?" if close else ""


def first_line(text: Optional[str], limit: int = 80) -> str:
    """The first non-blank line of ``text``, cut to ``limit`` (``""`` for none)."""
    lines = (text or "").strip().splitlines()
    return cut(lines[0].strip() if lines else "", limit)


def shorten(text: Union[str, bytes], limit: int = SHORTEN_LIMIT) -> str:
    """A message's text quoted (``repr``) and cut to ``limit`` characters, saying how long it was."""
    total = len(text)
    unit = "bytes" if isinstance(text, bytes) else "characters"
    if isinstance(text, bytes):
        text = text[: limit * 4].decode("utf-8", "replace")
    if total <= limit:
        return repr(text)
    return f"{text[:limit]!r}... ({total} {unit} in all)"
