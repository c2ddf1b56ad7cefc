"""Showing mcpsync's logs to a person: ``mcpsync.show_logs("INFO")``.

It sends mcpsync's log records (the servers' log messages included, and their
stderr lines when they are logged: ``stderr="log"``; by default those are
written to ``sys.stderr`` directly) to the current ``sys.stderr``. The package itself installs only a
``NullHandler``; this is for people who ask.

In a Jupyter kernel, a record that comes while a cell runs is written under
that cell: the kernel runs one cell at a time, so it is the cell whose call
the server is busy with. One that comes between cells (a server writing on
its own) would land under whichever cell ran last, or next; it goes instead
to one place, the output of the cell that called ``show_logs``, which keeps
the last ``AREA_LINES`` of them.
"""

from __future__ import annotations

import collections
import html
import logging
import sys
import threading
from typing import Any, Optional

from .._core.text import for_terminal

__all__ = ["AREA_LINES", "TerminalFormatter", "show_logs"]

#: Lines the notebook's log area keeps (the older ones are dropped, and counted).
AREA_LINES = 200


class TerminalFormatter(logging.Formatter):
    """Log lines with what a terminal would act on shown, not passed on (``for_terminal``): their texts
    come from servers (their stderr, their log messages)."""

    def format(self, record: logging.LogRecord) -> str:
        return for_terminal(super().format(record))


class _CurrentStderr(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to whatever ``sys.stderr`` is at the time of each record (notebooks and tests replace it);
    in a notebook, between cells, to the log area."""

    area: Optional[_LogArea] = None

    def emit(self, record: logging.LogRecord) -> None:
        area = self.area
        if area is not None and not area.cell_running:
            try:
                area.add(self.format(record))
            except Exception:  # a log line must never break the caller
                self.handleError(record)
            return
        self.stream = sys.stderr  # handle() holds this handler's lock around emit()
        super().emit(record)


class _LogArea:
    """The notebook output where log lines that come between cells go (see the module docstring)."""

    def __init__(self, shell: Any) -> None:
        from IPython.display import display

        self.cell_running = True  # show_logs is called from a cell
        self._lines: collections.deque[str] = collections.deque(maxlen=AREA_LINES)
        self._dropped = 0
        self._lock = threading.Lock()
        shell.events.register("pre_run_cell", self._started)
        shell.events.register("post_run_cell", self._ended)
        self._handle = display(self, display_id=True)  # type: ignore[no-untyped-call]

    def _started(self, *_: Any) -> None:
        self.cell_running = True

    def _ended(self, *_: Any) -> None:
        self.cell_running = False

    def add(self, line: str) -> None:
        with self._lock:
            if len(self._lines) == self._lines.maxlen:
                self._dropped += 1
            self._lines.append(line)
        self._handle.update(self)

    def _text(self) -> str:
        with self._lock:
            lines = list(self._lines)
            dropped = self._dropped
        head = f"({dropped} earlier lines dropped)\n" if dropped else ""
        return head + "\n".join(lines) if lines else "mcpsync: log lines that come between cells appear here"

    def __repr__(self) -> str:
        return self._text()

    def _repr_html_(self) -> str:
        return f"<pre style='margin:0;font-size:smaller'>{html.escape(self._text())}</pre>"


def _kernel_shell() -> Any:
    """The IPython shell of a Jupyter kernel, or ``None`` (a terminal IPython, a script)."""
    ipython = sys.modules.get("IPython")
    shell = getattr(ipython, "get_ipython", lambda: None)() if ipython is not None else None
    return shell if shell is not None and getattr(shell, "kernel", None) is not None else None


_handler: Optional[_CurrentStderr] = None


def show_logs(level: Any = "INFO", *, traffic: bool = False) -> logging.Handler:
    """Show mcpsync's log records, the servers' stderr and log messages included, on ``sys.stderr``.

    Calling it again changes the level; it never adds a second handler.

    Args:
        level: the least level shown (``"DEBUG"``, ``"INFO"``, ``logging.WARNING``...).
        traffic: also show every protocol message (the ``mcpsync.traffic`` logger at DEBUG).

    Returns:
        the handler, for ``logging.getLogger("mcpsync").removeHandler(...)``.
    """
    global _handler
    root = logging.getLogger("mcpsync")
    if _handler is None:
        _handler = _CurrentStderr()
        _handler.setFormatter(TerminalFormatter("%(levelname)s %(name)s: %(message)s"))
        root.addHandler(_handler)
        shell = _kernel_shell()
        if shell is not None:
            _handler.area = _LogArea(shell)
    numeric = logging.getLevelName(level.upper()) if isinstance(level, str) else level
    if not isinstance(numeric, int):
        raise ValueError(f"unknown logging level {level!r}")
    root.setLevel(numeric)
    logging.getLogger("mcpsync.traffic").setLevel(logging.DEBUG if traffic else logging.NOTSET)
    _handler.setLevel(logging.DEBUG if traffic else numeric)  # the loggers' levels decide what reaches it
    return _handler
