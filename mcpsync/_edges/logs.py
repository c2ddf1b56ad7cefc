"""Showing mcpsync's logs to a person: ``mcpsync.show_logs("INFO")``.

It sends mcpsync's log records (the servers' stderr lines and log messages
included) to the current ``sys.stderr``, which a notebook shows under the cell.
The package itself installs only a ``NullHandler``; this is for people who ask.
"""

from __future__ import annotations

import logging
import sys
from typing import Any, Optional

__all__ = ["show_logs"]


class _CurrentStderr(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to whatever ``sys.stderr`` is at the time of each record (notebooks and tests replace it)."""

    def emit(self, record: logging.LogRecord) -> None:
        self.stream = sys.stderr  # handle() holds this handler's lock around emit()
        super().emit(record)


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
        _handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
        root.addHandler(_handler)
    numeric = logging.getLevelName(level.upper()) if isinstance(level, str) else level
    if not isinstance(numeric, int):
        raise ValueError(f"unknown logging level {level!r}")
    root.setLevel(numeric)
    logging.getLogger("mcpsync.traffic").setLevel(logging.DEBUG if traffic else logging.NOTSET)
    _handler.setLevel(logging.DEBUG if traffic else numeric)  # the loggers' levels decide what reaches it
    return _handler
