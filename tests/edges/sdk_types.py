"""Does a dict have the shape a model SDK's own type declares? For the vendors' ``TypedDict`` params,
which pydantic checks only loosely: every key declared, the required ones there, literals equal, and
the same all the way down; pydantic models (Gemini's) are validated by their own ``model_validate``."""

from __future__ import annotations

import collections.abc
import typing
from typing import Any

from pydantic import BaseModel
from typing_extensions import is_typeddict

#: Required[...], NotRequired[...], Annotated[...]: the type inside is what counts.
_WRAPPERS = tuple(w for w in (getattr(typing, n, None) for n in ("Required", "NotRequired", "Annotated")) if w)


def problems(value: Any, kind: Any, path: str = "$") -> list[str]:
    """What in ``value`` does not fit ``kind`` (empty: it fits)."""
    origin = typing.get_origin(kind)
    args = typing.get_args(kind)
    if kind is Any or kind is object:
        return []
    if origin in _WRAPPERS:
        return problems(value, args[0], path)
    if origin is typing.Union:
        found = [problems(value, member, path) for member in args]
        if any(not p for p in found):
            return []
        return [f"{path}: fits none of {len(args)} types: " + "; ".join(min(found, key=len))]
    if origin is typing.Literal:
        return [] if value in args else [f"{path}: {value!r} is not one of {args}"]
    if kind is type(None):
        return [] if value is None else [f"{path}: expected None"]
    if is_typeddict(kind):
        return _typed_dict(value, kind, path)
    if isinstance(kind, type) and issubclass(kind, BaseModel):
        try:
            kind.model_validate(value)
        except Exception as exc:
            return [f"{path}: {exc}"]
        return []
    if origin in (list, collections.abc.Iterable, collections.abc.Sequence):
        if not isinstance(value, list):
            return [f"{path}: expected a list, got {type(value).__name__}"]
        return [p for i, item in enumerate(value) for p in problems(item, args[0] if args else Any, f"{path}[{i}]")]
    if origin in (dict, collections.abc.Mapping) or kind in (dict, typing.Dict):
        return [] if isinstance(value, dict) else [f"{path}: expected an object"]
    if kind is float:
        return [] if isinstance(value, (int, float)) and not isinstance(value, bool) else [f"{path}: not a number"]
    if isinstance(kind, type):
        return [] if isinstance(value, kind) else [f"{path}: expected {kind.__name__}, got {type(value).__name__}"]
    return []  # a form this checker does not know: not a claim either way


def _typed_dict(value: Any, kind: Any, path: str) -> list[str]:
    """Every key declared, the required ones there, each value of its declared type."""
    if not isinstance(value, dict):
        return [f"{path}: expected an object, got {type(value).__name__}"]
    hints = typing.get_type_hints(kind, include_extras=True)
    found = [f"{path}: unknown key {key!r}" for key in value if key not in hints]
    found += [f"{path}: missing {key!r}" for key in kind.__required_keys__ if key not in value]
    for key, item in value.items():
        if key in hints:
            found += problems(item, hints[key], f"{path}.{key}")
    return found


def assert_fits(value: Any, kind: Any) -> None:
    found = problems(value, kind)
    assert not found, "\n".join(found)
