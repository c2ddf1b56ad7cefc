"""Warnings told at the user's line: ``warn_at_caller``."""

from __future__ import annotations

import inspect
import warnings

__all__ = ["warn_at_caller"]


def warn_at_caller(text: str, category: type[Warning]) -> None:
    """``warnings.warn`` at the first frame outside mcpsync: the user's line that led here, however
    many of mcpsync's own frames lie between (a file read by ``Manager.from_config``, say)."""
    level, frame = 1, inspect.currentframe()
    while frame is not None and str(frame.f_globals.get("__name__", "")).partition(".")[0] == "mcpsync":
        frame = frame.f_back
        level += 1
    del frame
    warnings.warn(text, category, stacklevel=level)
