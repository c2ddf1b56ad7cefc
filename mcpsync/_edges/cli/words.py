"""The words of the ``mcpsync`` command line that are no options: how a wrong one is said (``UsageError``),
and a tool call's arguments, ``key=value`` words or one JSON object (``-``: from stdin), typed by the
tool's input schema and checked against its names before anything is sent."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from typing import Any, Union

from ..._core import jsonrpc
from ..._core.text import cut, did_you_mean

__all__ = [
    "UsageError",
    "check_argument_names",
    "missing_required",
    "quoted",
    "split_tool_arguments",
    "stdin_unread",
    "tool_arguments",
]

#: The longest argument an error message quotes.
_SHOW_LIMIT = 60


class UsageError(Exception):
    """The command line asks for something impossible (exit code 2)."""


def quoted(word: str) -> str:
    """A word of the command line as an error message quotes it (cut to ``_SHOW_LIMIT``)."""
    return repr(cut(word, _SHOW_LIMIT))


#: The most of stdin ``-`` reads as a call's JSON arguments (bytes).
MAX_STDIN_ARGUMENTS = 16 << 20


def split_tool_arguments(words: Sequence[str]) -> Union[dict[str, Any], list[tuple[str, str]]]:
    """Check the arguments' form before any server starts: one JSON object (``-``: read from stdin),
    or ``key=value`` pairs."""
    if list(words) == ["-"]:
        return _stdin_arguments()
    if len(words) == 1 and words[0].lstrip().startswith("{"):
        try:
            value = jsonrpc.decode(words[0])
        except ValueError as exc:
            raise UsageError(f"argument {quoted(words[0])}: not valid JSON: {exc}") from None
        if not isinstance(value, dict):
            raise UsageError(f"argument {quoted(words[0])}: must be a JSON object")
        return value
    pairs: list[tuple[str, str]] = []
    for word in words:
        key, found, text = word.partition("=")
        if not found or not key:
            raise UsageError(f"argument {quoted(word)}: expected key=value, or one JSON object as the only argument")
        if any(key == seen for seen, _ in pairs):
            raise UsageError(f"argument {quoted(word)}: {key!r} is given twice")
        pairs.append((key, text))
    return pairs


def _stdin_arguments() -> dict[str, Any]:
    """``-``: one JSON object read from stdin (at most ``MAX_STDIN_ARGUMENTS`` bytes)."""

    stream = sys.stdin.buffer if sys.stdin is not None else None
    data = stream.read(MAX_STDIN_ARGUMENTS + 1) if stream is not None else b""
    if len(data) > MAX_STDIN_ARGUMENTS:
        raise UsageError(f"argument '-': stdin holds more than {MAX_STDIN_ARGUMENTS} bytes of arguments")
    try:
        value = jsonrpc.decode(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise UsageError(f"argument '-': stdin is not one JSON object: {exc}") from None
    if not isinstance(value, dict):
        raise UsageError("argument '-': stdin must hold one JSON object")
    return value


def stdin_unread() -> bool:
    """Whether stdin is piped or redirected from a non-empty file (and not read: ``-`` was not given)."""
    import stat
    import sys

    try:
        fd = sys.stdin.fileno() if sys.stdin is not None else -1
        mode = os.fstat(fd).st_mode if fd >= 0 else 0
        size = os.fstat(fd).st_size if fd >= 0 else 0
    except (OSError, ValueError, AttributeError):
        return False
    return stat.S_ISFIFO(mode) or (stat.S_ISREG(mode) and size > 0)


def missing_required(arguments: Mapping[str, Any], input_schema: Mapping[str, Any], what: str) -> None:
    """Refuse a call given no arguments while the tool requires some and stdin went unread: the arguments
    were surely piped, and ``-`` reads them.

    Raises:
        UsageError: naming the required parameters and ``-``.
    """
    required = input_schema.get("required")
    names = [name for name in required if isinstance(name, str)] if isinstance(required, list) else []
    if arguments or not names or not stdin_unread():
        return
    raise UsageError(
        f"{what} requires {', '.join(map(repr, names))}, and none was given; stdin is piped but not read: "
        f"give - as the only argument to read the arguments from it as one JSON object"
    )


def _is_string(schema: Any) -> bool:
    kind = schema.get("type") if isinstance(schema, Mapping) else None
    return kind == "string" or (isinstance(kind, list) and set(kind) == {"string"})


def tool_arguments(
    split: Union[dict[str, Any], list[tuple[str, str]]], input_schema: Mapping[str, Any]
) -> dict[str, Any]:
    """The arguments of a call from what ``split_tool_arguments`` found, typed by the tool's input schema.

    Raises:
        UsageError: a value starts like JSON (``{`` or ``[``) but is not valid JSON.
    """
    if isinstance(split, dict):
        return split
    properties = input_schema.get("properties")
    properties = properties if isinstance(properties, Mapping) else {}
    arguments: dict[str, Any] = {}
    for key, text in split:
        if _is_string(properties.get(key)):
            arguments[key] = text
            continue
        try:
            arguments[key] = jsonrpc.decode(text)
        except ValueError as exc:
            if text.lstrip().startswith(("{", "[")):
                raise UsageError(f"argument {quoted(f'{key}={text}')}: not valid JSON: {exc}") from None
            arguments[key] = text
    return arguments


def check_argument_names(names: Sequence[str], input_schema: Mapping[str, Any], what: str) -> None:
    """Refuse an argument name the schema does not list, suggesting the closest ones, before anything is sent.

    Only a schema that lists ``properties`` and allows no others (no
    ``additionalProperties`` that is ``true`` or a schema, no
    ``patternProperties``) is checked: what it does not list cannot be meant.
    ``what`` names the tool or prompt in the message (``tool 'echo'``).

    Raises:
        UsageError: the first name the schema does not list.
    """
    properties = input_schema.get("properties")
    if not isinstance(properties, Mapping) or not properties:
        return
    more = input_schema.get("additionalProperties")
    if more is True or isinstance(more, Mapping) or "patternProperties" in input_schema:
        return
    for name in names:
        if name not in properties:
            hint = did_you_mean(name, properties) or f"; its parameters: {', '.join(properties)}"
            raise UsageError(f"{name!r} is not a parameter of {what}{hint}")
