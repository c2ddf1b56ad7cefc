"""Reading the edges of a message too large to decode: is it a response, and to which request?

A message over ``max_message_size`` is discarded without being held whole,
but the caller waiting for it must still be told. Its first few kilobytes
usually show its outermost members and its ``id``; TypeScript servers write
the ``id`` last, so the last bytes are looked at too. Only the outermost
object counts: a tool result may hold an ``"id"`` of its own.
"""

from __future__ import annotations

import json
import re
from typing import Any, Optional

__all__ = ["json_scalar", "top_level_members", "trailing_id"]

# One JSON token (a string, a number, punctuation, a literal), for reading the start of a message
# that is too large to decode.
_JSON_TOKEN = re.compile(
    rb'\s*(?:("(?:[^"\\]|\\.)*")|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|([{}\[\]:,])|(true|false|null))'
)
# The last member of a message's outermost object, when it is the id (TypeScript servers write it last).
_TRAILING_ID = re.compile(rb'"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*\}\s*$')


def trailing_id(tail: bytes) -> Any:
    """The ``id`` when it is the last member of the message ``tail`` ends; ``None`` if it is not."""
    match = _TRAILING_ID.search(tail)
    return None if match is None else json_scalar(match.group(1))


def json_scalar(token: bytes) -> Any:
    """A JSON string or number token as a value; ``None`` if it cannot be read."""
    try:
        return json.loads(token)
    except ValueError:
        return None


def top_level_members(head: bytes) -> tuple[set[str], Any]:
    """What the first bytes of a JSON object show: its member names, and its ``id`` (``None`` if not shown).

    Only members of the outermost object count (a tool result may hold an
    ``"id"`` of its own); reading stops where ``head`` is cut off.
    """
    names: set[str] = set()
    found: Any = None
    depth = 0
    name_next = False  # at depth 1, the next string is a member name
    member: Optional[str] = None  # the member whose value comes next, at depth 1
    position = 0
    while True:
        token = _JSON_TOKEN.match(head, position)
        if token is None:
            break
        position = token.end()
        string, number, punctuation, _ = token.groups()
        if punctuation is not None:
            if punctuation in b"{[":
                if depth == 0 and punctuation != b"{":
                    break  # not an object
                depth += 1
                name_next = depth == 1
                if depth > 1:
                    member = None
            elif punctuation in b"}]":
                depth -= 1
                if depth <= 0:
                    break
            elif punctuation == b",":
                name_next = depth == 1
            continue
        if depth == 0:
            break  # not an object
        if depth == 1 and name_next and string is not None:
            name = json_scalar(string)
            if not isinstance(name, str):
                break
            names.add(name)
            member, name_next = name, False
            continue
        if depth == 1 and member == "id" and (string is not None or number is not None):
            found = json_scalar(string if string is not None else number)
        member = None
    return names, found
