"""Ctrl-C as a user sees it: a short ``KeyboardInterrupt`` from the method they called.

An interrupted call raises ``KeyboardInterrupt`` (after the request is given
up and the server told: see channel.py). Its traceback would run through
half a dozen frames of mcpsync's own; in a notebook that is a screenful for
one keypress. ``short_interrupts`` decorates each public method that may wait so that
the ``KeyboardInterrupt`` leaves them with its message and one frame of
ours, the chain of internal ones cut (``from None``). Nothing else changes:
it is still a ``KeyboardInterrupt``, raised at the same moment.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, TypeVar, cast

__all__ = ["short_interrupts"]

_Method = TypeVar("_Method", bound=Callable[..., Any])


def short_interrupts(function: _Method) -> _Method:
    """A public method's decorator: a ``KeyboardInterrupt`` leaves it short (see the module docstring)."""

    @functools.wraps(function)
    def public(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except KeyboardInterrupt as exc:
            raise KeyboardInterrupt(*exc.args) from None

    return cast(_Method, public)
