"""Texts cut to a readable length, for logs, errors, reprs and tables: one way to do it."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Optional, Union

__all__ = [
    "EXCERPT_LIMIT",
    "SHORTEN_LIMIT",
    "cut",
    "did_you_mean",
    "excerpt",
    "first_line",
    "for_terminal",
    "shorten",
]

#: How much of an offending message goes into logs and exception texts.
SHORTEN_LIMIT = 300
#: Characters of a body (an HTTP error page, say) quoted in an exception text.
EXCERPT_LIMIT = 200

_HIDDEN = re.compile(r"<(script|style|head)\b.*?</\1\s*>|<!--.*?-->", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"<[^>]*>")
_SPACE = re.compile(r"\s+")
#: What a terminal would act on rather than show: the C0 controls but tab and newline (ESC starts every
#: sequence: a window title, the clipboard, a hyperlink, a cleared screen, moved cursor), a carriage
#: return not ending a line (it rewrites the line: a forged ``[name]`` prefix), DEL, the C1 controls
#: (``\x9b`` is an 8-bit CSI), and the bidirectional overrides that reorder what is shown.
_TERMINAL_CONTROLS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]|\r(?!\n)")


def cut(text: str, limit: int) -> str:
    """``text``, or its first ``limit - 3`` characters and ``...`` when it is longer than ``limit``."""
    return text if len(text) <= limit else text[: max(0, limit - 3)] + "..."


def did_you_mean(word: str, known: Iterable[str], *, n: int = 3, cutoff: float = 0.6) -> str:
    """``"; did you mean 'x'?"`` naming the ``known`` names closest to ``word`` (difflib), or ``""`` for none."""
    import difflib  # lazily: only a wrong name needs it

    close = difflib.get_close_matches(word, list(known), n=n, cutoff=cutoff)
    return f"; did you mean {', '.join(map(repr, close))}?" if close else ""


def excerpt(text: str, limit: int = EXCERPT_LIMIT) -> str:
    """The readable words of a body, on one line: an HTML page's tags (and its head, scripts and styles)
    left out, entities decoded, white space collapsed, cut to ``limit``."""
    if "<" in text and ">" in text:
        import html  # lazily: only an error body that is a page needs it (`import mcpsync` stays light)

        text = html.unescape(_TAG.sub(" ", _HIDDEN.sub(" ", text)))
    return cut(_SPACE.sub(" ", text).strip(), limit)


def first_line(text: Optional[str], limit: int = 80) -> str:
    """The first non-blank line of ``text``, cut to ``limit`` (``""`` for none)."""
    lines = (text or "").strip().splitlines()
    return cut(lines[0].strip() if lines else "", limit)


def for_terminal(text: str) -> str:
    """``text`` with what a terminal would act on shown instead (``\\x1b``, ``\\r``, ``\\x9b``,
    ``\\u202e``): for every text a server controls that mcpsync writes to a terminal. Tab, newline and
    a CR before a newline stay; everything else passes unchanged (and at no cost when nothing is there)."""
    if _TERMINAL_CONTROLS.search(text) is None:
        return text
    return _TERMINAL_CONTROLS.sub(_shown, text)


def _shown(found: re.Match[str]) -> str:
    code = ord(found.group())
    if code == 0x0D:
        return "\\r"
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def shorten(text: Union[str, bytes], limit: int = SHORTEN_LIMIT, *, size: Optional[int] = None) -> str:
    """A message's text quoted (``repr``) and cut to ``limit`` characters, saying how long it was
    (``size``: the bytes it came as, for text decoded from the wire)."""
    total = len(text) if size is None else size
    unit = "bytes" if isinstance(text, bytes) or size is not None else "characters"
    if isinstance(text, bytes):
        text = text[: limit * 4].decode("utf-8", "replace")
    if total <= limit:
        return repr(text)
    return f"{text[:limit]!r}... ({total} {unit} in all)"
