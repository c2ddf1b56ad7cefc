"""Texts cut to a readable length, for logs, errors, reprs and tables: one way to do it."""

from __future__ import annotations

from typing import Optional, Union

__all__ = ["SHORTEN_LIMIT", "cut", "first_line", "shorten"]

#: How much of an offending message goes into logs and exception texts.
SHORTEN_LIMIT = 300


def cut(text: str, limit: int) -> str:
    """``text``, or its first ``limit - 3`` characters and ``...`` when it is longer than ``limit``."""
    return text if len(text) <= limit else text[: max(0, limit - 3)] + "..."


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
