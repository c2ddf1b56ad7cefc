"""Qualified tool names: one flat namespace for the tools of many servers.

A tool ``search`` of server ``github`` becomes ``github__search``. The name is
what an LLM API accepts as a function name: characters outside
``[A-Za-z0-9_-]`` become ``_``, digits stay (even in front), and a name longer
than 64 characters is cut and ends in a short hash of the full name, so two
long names that share a beginning stay apart.

When two (server, tool) pairs still end up with the same name (``a.b`` and
``a_b`` both become ``a_b``), the pair that comes first (servers in
configuration order, then tool names in order) keeps it and every other one
gets a suffix made from a hash of its own server and tool name. The outcome
depends only on the names, never on which server answered first.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = ["DEFAULT_SEPARATOR", "MAX_NAME_LENGTH", "Collision", "qualified_name", "qualify_all", "server_prefix"]

DEFAULT_SEPARATOR = "__"
#: The longest function name the common LLM APIs accept.
MAX_NAME_LENGTH = 64
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
_HASH_LENGTH = 8


def _short_hash(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode("utf-8")).hexdigest()[:_HASH_LENGTH]


def _fit(name: str, suffix: str = "") -> str:
    """``name`` + ``suffix``, cut so that the whole is at most MAX_NAME_LENGTH (the suffix is kept)."""
    return name[: MAX_NAME_LENGTH - len(suffix)] + suffix


def server_prefix(server: str, separator: str = DEFAULT_SEPARATOR) -> str:
    """How the qualified names of ``server``'s tools begin (unless shortened)."""
    if not separator or _UNSAFE.search(separator):
        raise ValueError(f"the separator {separator!r} must be letters, digits, '_' or '-' (at least one)")
    return _UNSAFE.sub("_", server) + separator


def qualified_name(server: str, tool: str, separator: str = DEFAULT_SEPARATOR) -> str:
    """``<server><separator><tool>``, made safe and at most 64 characters long (no collision handling)."""
    name = server_prefix(server, separator) + _UNSAFE.sub("_", tool)
    if len(name) > MAX_NAME_LENGTH:
        name = _fit(name, "_" + _short_hash(server, tool))
    return name


@dataclass(frozen=True)
class Collision:
    """Several tools wanted the same qualified name; ``kept`` got it, each of ``renamed`` another."""

    name: str
    kept: tuple[str, str]
    renamed: tuple[tuple[str, str, str], ...]  # (server, tool, the name it got instead)

    def __str__(self) -> str:
        others = ", ".join(f"{server!r}/{tool!r} -> {name!r}" for server, tool, name in self.renamed)
        return f"{self.name!r} is {self.kept[0]!r}/{self.kept[1]!r}; renamed {others}"


def qualify_all(
    tools: Iterable[tuple[str, str]], separator: str = DEFAULT_SEPARATOR
) -> tuple[dict[str, tuple[str, str]], list[Collision]]:
    """Give every (server, tool) pair a unique qualified name.

    ``tools`` must come in a deterministic order (servers in configuration
    order, each server's tools sorted); on a clash the earlier pair keeps the name.

    Returns:
        ``{qualified name: (server, tool)}`` and the collisions that were resolved.
    """
    pairs: Sequence[tuple[str, str]] = list(dict.fromkeys(tools))
    wanted: dict[str, list[tuple[str, str]]] = {}
    for pair in pairs:
        wanted.setdefault(qualified_name(*pair, separator=separator), []).append(pair)
    names: dict[str, tuple[str, str]] = {name: claimants[0] for name, claimants in wanted.items()}
    collisions = []
    for name, claimants in wanted.items():
        if len(claimants) == 1:
            continue
        renamed = []
        for server, tool in claimants[1:]:
            salt = ""
            while True:  # a clash with the new name too is astronomically unlikely, but cheap to rule out
                candidate = _fit(name, "_" + _short_hash(server, tool, salt))
                if candidate not in names:
                    break
                salt += "+"
            names[candidate] = (server, tool)
            renamed.append((server, tool, candidate))
        collisions.append(Collision(name, claimants[0], tuple(renamed)))
    return names, collisions
