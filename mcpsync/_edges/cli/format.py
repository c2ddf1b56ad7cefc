"""How the ``mcpsync`` command shows things: aligned tables, tool results, JSON, progress.

Nothing here talks to a server; every function takes values and a stream, so
the rendering can be tested (and reused by ``mcpsync.demo``) without one.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Optional, TextIO

from ..._core.text import for_terminal
from ..._session.content import (
    AudioContent,
    ContentBlock,
    EmbeddedResource,
    ImageContent,
    ResourceContents,
    ResourceLink,
    TextContent,
)
from ..._session.models import CallToolResult, GetPromptResult

if TYPE_CHECKING:
    from ..._manager.manager import ServerStatus

__all__ = [
    "ProgressLine",
    "TerminalText",
    "describe_contents",
    "is_terminal",
    "status_dict",
    "table",
    "write_json",
    "write_prompt",
    "write_tool_result",
]

#: The longest description or error a table cell shows.
CELL_LIMIT = 80


class TerminalText:
    """A text stream that shows, rather than passes on, what a terminal would act on (``for_terminal``):
    the command line's stdout and stderr, where every text a server controls ends up (tool lists,
    results, error messages, task ids and statuses, the servers' stderr lines). ``unescaped`` is the
    stream itself, for the control sequences of our own (the progress line's) and for ``--json``."""

    def __init__(self, stream: TextIO) -> None:
        self.unescaped = stream

    def write(self, text: str) -> int:
        return self.unescaped.write(for_terminal(text))

    def __getattr__(self, name: str) -> Any:  # flush, isatty, fileno, buffer (binary output: --output)
        return getattr(self.unescaped, name)


def unescaped(stream: Any) -> TextIO:
    """The stream under a ``TerminalText`` (or ``stream`` itself)."""
    return getattr(stream, "unescaped", stream)  # type: ignore[no-any-return]


def is_terminal(stream: TextIO) -> bool:
    """Whether ``stream`` is a terminal (``False`` for a pipe, a file, or a stream without ``isatty``)."""
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def table(rows: Sequence[tuple[str, ...]], out: TextIO, *, indent: str = "  ") -> None:
    """Write ``rows`` as aligned columns; the first row is the header, underlined with dashes."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for n, row in enumerate(rows):
        out.write(indent + "  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() + "\n")
        if n == 0:
            out.write(indent + "  ".join("-" * width for width in widths) + "\n")


def write_json(value: Any, out: TextIO) -> None:
    """Write ``value`` as indented JSON and a newline."""
    out.write(json.dumps(value, indent=2, ensure_ascii=False) + "\n")


def status_dict(status: ServerStatus) -> dict[str, Any]:
    """One server's status as plain JSON values (``serverInfo`` as the server sent it)."""
    info = status.server_info
    return {
        "name": status.name,
        "state": status.state.value,
        "transport": status.transport,
        "source": status.source,
        "tools": status.tools,
        "tools_from_cache": status.tools_from_cache,
        "error": status.error,
        "stderr_tail": list(status.stderr_tail),
        "attempts": status.attempts,
        "retry_in": status.retry_in,
        "server_info": dict(info.raw) if info is not None else None,
    }


def describe_contents(item: ResourceContents) -> str:
    """A one-line stand-in for binary resource contents: ``[binary image/png, 68 bytes]``."""
    return f"[binary {item.mime_type or 'data'}, {len(item.data)} bytes]"


def _block_text(block: ContentBlock) -> str:
    if isinstance(block, TextContent):
        return block.text
    if isinstance(block, (ImageContent, AudioContent)):
        return f"[{block.type} {block.mime_type}, {len(block.data)} bytes]"
    if isinstance(block, ResourceLink):
        return f"[resource link {block.uri}" + (f" ({block.mime_type})" if block.mime_type else "") + "]"
    if isinstance(block, EmbeddedResource):
        contents = block.resource
        if contents.text is not None:
            return contents.text
        return f"[resource {contents.uri}: {describe_contents(contents)[1:-1]}]"
    return f"[{block.type} content: {json.dumps(dict(block.raw), ensure_ascii=False)}]"


def write_tool_result(result: CallToolResult, out: TextIO) -> None:
    """Write a tool's result for a person: each content block (binary ones as a summary line),
    then the structured content unless a text block already carries the same JSON."""
    shown_structured = False
    for block in result.content:
        text = _block_text(block)
        out.write(text if text.endswith("\n") else text + "\n")
        if isinstance(block, TextContent) and result.has_structured_content:
            try:
                shown_structured = shown_structured or _same_json(json.loads(block.text), result.structured_content)
            except ValueError:
                pass
    if result.has_structured_content and not shown_structured:
        write_json(result.structured_content, out)


def _same_json(a: Any, b: Any) -> bool:
    """Equality as JSON has it (``true`` is not ``1``): compared as canonical JSON text."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def write_prompt(result: GetPromptResult, out: TextIO) -> None:
    """Write a prompt's messages for a person: each as ``role: text``, a blank line between."""
    for n, message in enumerate(result.messages):
        text = _block_text(message.content)
        out.write(("\n" if n else "") + f"{message.role}: " + (text if text.endswith("\n") else text + "\n"))


def _columns(stream: TextIO) -> int:
    """The width of the terminal ``stream`` writes to (``shutil``'s asks stdout's, which may be a pipe
    while stderr is the terminal): its own, else ``$COLUMNS`` or 80 as ``shutil`` says."""
    try:
        return os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, ValueError, OSError):
        return shutil.get_terminal_size().columns


class ProgressLine:
    """Shows a call's progress notifications on ``stream`` (stderr).

    On a terminal it is one line, rewritten in place and cleared by
    ``finish()``; elsewhere (a pipe, a log file) each update is a line of its own.
    Use the instance as the ``on_progress`` callback.
    """

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.interactive = is_terminal(stream)
        self._showing = False

    def __call__(self, progress: float, total: Optional[float], message: Optional[str]) -> None:
        text = f"progress {progress:g}" + (f"/{total:g}" if total is not None else "")
        if message:
            text += f" {message}"
        if self.interactive:
            # A line longer than the terminal would wrap, and "\r" would no longer rewrite it.
            width = _columns(self.stream) - 1
            unescaped(self.stream).write("\r" + for_terminal(text)[:width] + "\x1b[K")
            self._showing = True
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def finish(self) -> None:
        """Clear the progress line from the terminal (nothing to do elsewhere)."""
        if self._showing:
            unescaped(self.stream).write("\r\x1b[K")
            self.stream.flush()
            self._showing = False
