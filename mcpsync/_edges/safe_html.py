"""Safe HTML for the notebook views: every piece escapes what it is given, and the two kinds of
attribute that carry server data are checked.

Nothing here needs a third-party package. A notebook runs whatever HTML an
output carries, so everything a server sends (names, descriptions, schemas,
tool output, URIs, MIME types, error messages) is escaped with
``html.escape`` before it goes into the page, and it never goes into an
attribute, with two checked exceptions:

- links (``href``) only to ``http://`` and ``https://`` URLs; any other URI
  is shown as text (``uri_html``);
- media only as ``data:`` URLs whose type comes from our allow-list (PNG,
  JPEG, GIF and WebP images; WAV, MP3 and Ogg audio; never SVG, which can
  carry script), checked against the bytes themselves, and whose base64 is
  encoded again from the decoded bytes (``media_html``).

No output has ``<script>``, event handler attributes or styles from a server;
very long texts are cut with a visible note. The views of each type, built
from these pieces, are in ``display``.
"""

from __future__ import annotations

import base64
import html
import json
import re
from collections.abc import Sequence
from typing import Any, Optional, Union

from .._core.errors import ProtocolError
from .._session.content import AudioContent, ImageContent, ResourceContents

__all__ = [
    "AUDIO_TYPES",
    "CELL_LIMIT",
    "ERROR_BOX",
    "IMAGE_TYPES",
    "MEDIA_LIMIT",
    "RED",
    "ROW_LIMIT",
    "TEXT_LIMIT",
    "WRAP",
    "badge",
    "box",
    "description_html",
    "details_html",
    "esc",
    "heading",
    "json_pre",
    "json_text",
    "key_table",
    "left_out",
    "media_html",
    "muted",
    "name_cell",
    "pre",
    "required_mark",
    "state_badge",
    "table_html",
    "text_html",
    "uri_html",
]

#: Image types shown inline. Not SVG: an SVG document can carry script.
IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
#: Audio types given a player.
AUDIO_TYPES = frozenset({"audio/wav", "audio/mpeg", "audio/ogg"})
#: Other names servers use for the allowed types.
_MIME_ALIASES = {
    "image/jpg": "image/jpeg",
    "audio/x-wav": "audio/wav",
    "audio/wave": "audio/wav",
    "audio/mp3": "audio/mpeg",
}
#: Longer texts (tool output, resource text, JSON) are cut, with a note saying so.
TEXT_LIMIT = 10_000
#: Longer descriptions in table cells are cut.
CELL_LIMIT = 1_000
#: Tables show at most this many rows, then say how many were left out.
ROW_LIMIT = 500
#: Larger media are described, not embedded (the notebook file would carry them).
MEDIA_LIMIT = 5_000_000
#: The only links made clickable; checked on the raw string, before any browser clean-up.
_WEB_URL = re.compile(r"https?://[^\s\"'<>\\`\x00-\x1f\x7f]+", re.IGNORECASE)

_STATE_COLOURS = {
    "connected": "#2e7d32",
    "open": "#2e7d32",
    "connecting": "#ef6c00",
    "reconnecting": "#ef6c00",
    "failed": "#c62828",
    "lost": "#c62828",
    "disabled": "#757575",
    "closed": "#757575",
    "unopened": "#757575",
}

_MUTED = "color:#777"
RED = "#c62828"
_BOX = "border:1px solid #ccc;border-radius:4px;padding:4px 8px;margin:2px 0"
ERROR_BOX = f"border:2px solid {RED};border-radius:4px;padding:4px 8px;margin:2px 0"
_TABLE = "border-collapse:collapse;margin:2px 0"
_CELL = "border:1px solid #ddd;padding:2px 8px;text-align:left;vertical-align:top"
_PRE = "white-space:pre-wrap;word-break:break-word;margin:2px 0;padding:4px;background:rgba(127,127,127,0.08)"
WRAP = "white-space:pre-wrap"


# -- small pieces ------------------------------------------------------------------------------


def esc(value: Any) -> str:
    """``value`` as text, escaped for HTML (quotes too)."""
    return html.escape(str(value), quote=True)


def text_html(value: Any, limit: int = TEXT_LIMIT) -> str:
    """``value`` escaped, cut at ``limit`` characters with a note saying how much is left out."""
    text = str(value)
    if len(text) <= limit:
        return esc(text)
    return esc(text[:limit]) + f"\n{muted(f'... ({len(text) - limit} more characters not shown)')}"


def muted(inner_html: str) -> str:
    """``inner_html`` (already safe) in grey."""
    return f'<span style="{_MUTED}">{inner_html}</span>'


def pre(text: str) -> str:
    """``text`` escaped and cut, in a wrapping ``<pre>`` block."""
    return f'<pre style="{_PRE}">{text_html(text)}</pre>'


def json_text(value: Any) -> str:
    """``value`` as indented JSON text (not escaped)."""
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


def json_pre(value: Any) -> str:
    """``value`` as indented JSON in a ``<pre>`` block."""
    return pre(json_text(value))


def details_html(summary: str, inner_html: str) -> str:
    """``inner_html`` folded under a ``<details>`` summary (escaped)."""
    return f"<details><summary>{muted(esc(summary))}</summary>{inner_html}</details>"


def box(title_html: str, body_html: str) -> str:
    """A bordered box around a title and a body (both already safe)."""
    return f'<div style="{_BOX}">{title_html}{body_html}</div>'


def heading(kind: str, name: str, title: Optional[str] = None) -> str:
    """A box's first line: the kind in grey, the name in bold, the title in grey."""
    extra = f" {muted(esc(title))}" if title else ""
    return f"<div>{muted(esc(kind))} <b>{esc(name)}</b>{extra}</div>"


def badge(text: str, colour: str) -> str:
    """``text`` in a small framed label of ``colour``."""
    # ``colour`` is one of our constants, never server text.
    return f'<span style="color:{colour};border:1px solid {colour};border-radius:3px;padding:0 3px">{esc(text)}</span>'


def state_badge(state: str) -> str:
    """A connection state as a badge in its colour."""
    return badge(state, _STATE_COLOURS.get(state, "#757575"))


def required_mark(required: bool) -> str:
    """The mark of a required parameter in a list (the tables of one tool say "yes")."""
    return f'<b style="color:{RED}">*</b>' if required else ""


def name_cell(name: str, title: Optional[str]) -> str:
    """A table cell: the name in bold, the title below it when it says more."""
    return f"<b>{esc(name)}</b>" + (f"<br>{muted(esc(title))}" if title and title != name else "")


def description_html(text: Optional[str]) -> str:
    """A description cut to ``CELL_LIMIT``, keeping its line breaks; ``""`` for none."""
    return f'<div style="{WRAP}">{text_html(text, CELL_LIMIT)}</div>' if text else ""


def uri_html(uri: str) -> str:
    """A link for ``http(s)`` URLs (checked on the raw text); any other URI as plain text."""
    if _WEB_URL.fullmatch(uri):
        return f'<a href="{esc(uri)}" target="_blank" rel="noopener noreferrer"><code>{esc(uri)}</code></a>'
    return f"<code>{text_html(uri, CELL_LIMIT)}</code>"


def table_html(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A table of HTML cells (already escaped); at most ``ROW_LIMIT`` rows, then a note."""
    head = "".join(f'<th style="{_CELL}">{esc(h)}</th>' for h in headers)
    body = "".join(
        "<tr>" + "".join(f'<td style="{_CELL}">{cell}</td>' for cell in row) + "</tr>" for row in rows[:ROW_LIMIT]
    )
    table = f'<table style="{_TABLE}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'
    return table + left_out(len(rows) - ROW_LIMIT, "rows")


def key_table(rows: Sequence[tuple[str, str]]) -> str:
    """A two-column table: escaped keys, values already HTML."""
    body = "".join(f'<tr><th style="{_CELL}">{esc(k)}</th><td style="{_CELL}">{v}</td></tr>' for k, v in rows)
    return f'<table style="{_TABLE}"><tbody>{body}</tbody></table>'


def left_out(count: int, what: str) -> str:
    """The note that ``count`` more ``what`` are not shown; ``""`` when none are left out."""
    return f"<div>{muted(f'... and {count} more {what}')}</div>" if count > 0 else ""


# -- media -------------------------------------------------------------------------------------


def media_html(kind: str, declared: str, holder: Union[ImageContent, AudioContent, ResourceContents]) -> str:
    """An image or audio player for allowed types whose bytes match, else a line with type and size."""
    label = esc(" ".join(filter(None, (kind, declared))))
    try:
        data = holder.data
    except ProtocolError:
        return f"<div>{muted(label + ': not valid base64')}</div>"
    summary = muted(f"{label}, {len(data)} bytes")
    mime = declared.split(";")[0].strip().lower()
    mime = _MIME_ALIASES.get(mime, mime)
    actual = _sniff(data) if len(data) <= MEDIA_LIMIT else None
    # The type in the URL comes from our allow-list (what the bytes are), the base64 from the bytes: no server text.
    if mime in IMAGE_TYPES and actual in IMAGE_TYPES:
        return f'<div><img src="{_data_url(actual, data)}" alt="image" style="max-width:100%"><br>{summary}</div>'
    if mime in AUDIO_TYPES and actual in AUDIO_TYPES:
        return f'<div><audio controls src="{_data_url(actual, data)}"></audio><br>{summary}</div>'
    if mime.startswith("image/"):
        summary += " " + muted("(not shown: only PNG, JPEG, GIF and WebP images are)")
    elif mime.startswith("audio/"):
        summary += " " + muted("(no player: only WAV, MP3 and Ogg audio get one)")
    return f"<div>{summary}</div>"


def _data_url(mime: Optional[str], data: bytes) -> str:
    return esc(f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}")


def _sniff(data: bytes) -> Optional[str]:
    """The allowed media type the bytes are, by their signature; ``None`` for anything else."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    if data[:4] == b"RIFF" and data[8:12] == b"WAVE":
        return "audio/wav"
    if data[:4] == b"OggS":
        return "audio/ogg"
    if data[:3] == b"ID3" or (len(data) > 1 and data[0] == 0xFF and data[1] & 0xE0 == 0xE0):
        return "audio/mpeg"
    return None
