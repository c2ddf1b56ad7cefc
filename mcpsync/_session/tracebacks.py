"""Ctrl-C as a user sees it: a short ``KeyboardInterrupt`` from the method they called.

An interrupted call raises ``KeyboardInterrupt`` (after the request is given
up and the server told: see channel.py). Its traceback would run through
half a dozen frames of mcpsync's own; in a notebook that is a screenful for
one keypress. ``shorten_interrupts`` wraps a class's public methods so that
the ``KeyboardInterrupt`` leaves them with its message and one frame of
ours, the chain of internal ones cut (``from None``). Nothing else changes:
it is still a ``KeyboardInterrupt``, raised at the same moment.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any, Callable

__all__ = ["shorten_interrupts"]


def _short(function: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(function)
    def public(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except KeyboardInterrupt as exc:
            raise KeyboardInterrupt(*exc.args) from None

    return public


def shorten_interrupts(cls: type, names: Iterable[str]) -> None:
    """Wrap ``cls``'s methods ``names`` (see the module docstring)."""
    for name in names:
        setattr(cls, name, _short(getattr(cls, name)))
