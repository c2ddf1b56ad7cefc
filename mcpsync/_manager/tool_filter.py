"""Which of a server's tools a manager offers: the filters of configuration files and of ``Manager(...)``.

A server entry may say which of its tools are wanted, in the spellings other clients write:

- ``includeTools`` (Gemini CLI) and ``enabled_tools`` (Codex): only these;
- ``excludeTools`` (Gemini CLI), ``disabledTools`` (Roo Code, Kilo Code, Kiro) and ``disabled_tools``
  (Codex): not these.

``Manager(include_tools=, exclude_tools=)`` adds rules of the same kinds, for one server
(``{"github": ["search_*"]}``) or, as a list, for every server. A tool is offered when every
include rule that applies to its server matches it and no exclude rule does: a deny always
wins, and two allow-lists together keep only what both allow (as Gemini CLI merges them).

Each entry is a tool's own name (not the qualified ``server__tool``) or a glob pattern
(``fnmatch``, case-sensitive: ``*``, ``?``, ``[abc]``). The clients above match exact names
only; a name is a pattern that matches itself (the spec's tool names have no ``*?[``), so a
file written for them means the same here. A filtered-out tool is neither listed nor callable.
"""

from __future__ import annotations

import fnmatch
import weakref
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Optional, Protocol, Union

from .._core.errors import ConfigurationError
from .._core.text import did_you_mean
from .config_files import DICT_SOURCE

__all__ = [
    "EXCLUDE_KEYS",
    "INCLUDE_KEYS",
    "Patterns",
    "Rule",
    "ToolFilter",
    "bind_filter",
    "filters_for",
    "unmatched_patterns",
    "why_filtered",
]

#: Members of a server entry that list the tools to offer (Codex's ``config.toml`` writes ``enabled_tools``).
INCLUDE_KEYS = ("includeTools", "enabled_tools")
#: Members of a server entry that list the tools not to offer.
EXCLUDE_KEYS = ("excludeTools", "disabledTools", "disabled_tools")

#: What ``Manager(include_tools=, exclude_tools=)`` takes: patterns for every server, or by server name.
Patterns = Union[Sequence[str], Mapping[str, Sequence[str]], None]


def matches(pattern: str, name: str) -> bool:
    """Whether a tool's own ``name`` is ``pattern`` or matches it as a glob."""
    return pattern == name or fnmatch.fnmatchcase(name, pattern)


@dataclass(frozen=True)
class Rule:
    """One list of patterns and where it was written.

    Attributes:
        member: what wrote it: ``"includeTools"``, ``"excludeTools"``, ``"disabledTools"``,
            ``"include_tools"`` or ``"exclude_tools"``.
        patterns: tool names or glob patterns.
        source: the file, or ``"Manager(...)"``.
        shared: a ``Manager`` list for every server (a pattern then need match a tool of one server only).
    """

    member: str
    patterns: tuple[str, ...]
    source: str
    shared: bool = False

    def match(self, name: str) -> bool:
        return any(matches(pattern, name) for pattern in self.patterns)

    def describe(self) -> str:
        """The rule as messages name it: ``excludeTools ['x'] in /p/.mcp.json``, ``Manager(exclude_tools=) ['x']``."""
        if self.member in ("include_tools", "exclude_tools"):
            return f"{self.source} {list(self.patterns)}"
        if self.source == DICT_SOURCE:
            return f"{self.member} {list(self.patterns)} of its entry"
        return f"{self.member} {list(self.patterns)} in {self.source}"


class ToolFilter:
    """The include and exclude rules of one server; a tool passes when all includes match and no exclude does."""

    def __init__(self, includes: Sequence[Rule] = (), excludes: Sequence[Rule] = ()) -> None:
        self.includes = tuple(includes)
        self.excludes = tuple(excludes)

    @property
    def active(self) -> bool:
        """Whether any rule applies (else every tool passes)."""
        return bool(self.includes or self.excludes)

    @property
    def rules(self) -> tuple[Rule, ...]:
        return self.includes + self.excludes

    def why_not(self, name: str) -> Optional[str]:
        """Why the tool named ``name`` is filtered out (which rule, written where), or ``None`` if it passes."""
        for rule in self.excludes:  # a deny wins, whatever the includes say
            if rule.match(name):
                return f"excluded by {rule.describe()}"
        for rule in self.includes:
            if not rule.match(name):
                return f"not in {rule.describe()}"
        return None

    def allows(self, name: str) -> bool:
        """Whether the tool named ``name`` is offered."""
        return self.why_not(name) is None

    def unmatched(self, names: Iterable[str], *, shared: bool) -> list[tuple[Rule, str]]:
        """``(rule, pattern)`` of the patterns that match none of ``names``, of the shared rules or the others."""
        known = list(names)
        return [
            (rule, pattern)
            for rule in self.rules
            if rule.shared is shared
            for pattern in rule.patterns
            if not any(matches(pattern, name) for name in known)
        ]


def rules_of_entry(raw: Mapping[str, Any], source: str) -> tuple[list[Rule], list[Rule]]:
    """The include and exclude rules a (checked) server entry writes."""
    includes = [Rule(key, tuple(raw[key]), source) for key in INCLUDE_KEYS if key in raw]
    excludes = [Rule(key, tuple(raw[key]), source) for key in EXCLUDE_KEYS if key in raw]
    return includes, excludes


def _option_rules(option: str, value: Patterns, servers: Sequence[str], owner: str) -> dict[str, list[Rule]]:
    """``{server: [rule]}`` of ``Manager(include_tools=)`` or ``exclude_tools=`` (``owner``: ``"Manager"``...)."""
    if value is None:
        return {}
    where = f"{owner}({option}=)"
    if isinstance(value, Mapping):
        found: dict[str, list[Rule]] = {}
        for server, patterns in value.items():
            if server not in servers:
                hint = did_you_mean(server, list(servers)) or f" (the servers: {', '.join(servers) or 'none'})"
                raise ConfigurationError(f"{where}: no server named {server!r}{hint}")
            found[server] = [Rule(option, _patterns(patterns, f"{where}[{server!r}]"), where)]
        return found
    rule = Rule(option, _patterns(value, where), where, shared=True)
    return {server: [rule] for server in servers}


def _patterns(value: Any, where: str) -> tuple[str, ...]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise ConfigurationError(f"{where}: expected a list of tool names or glob patterns, not {value!r}")
    patterns = tuple(value)
    for pattern in patterns:
        if not isinstance(pattern, str) or not pattern:
            raise ConfigurationError(f"{where}: {pattern!r} is not a tool name or glob pattern")
    return patterns


def filters_for(
    entries: Mapping[str, tuple[Mapping[str, Any], str]],
    include_tools: Patterns,
    exclude_tools: Patterns,
    owner: str = "Manager",
) -> dict[str, ToolFilter]:
    """The filter of each server: ``entries`` maps its name to (its entry as written, its file), and
    ``owner`` (``"Manager"``, ``"ToolBox"``) took the options.

    Raises:
        ConfigurationError: an option names a server that is not configured, or is not a list of strings.
    """
    names = list(entries)
    includes = _option_rules("include_tools", include_tools, names, owner)
    excludes = _option_rules("exclude_tools", exclude_tools, names, owner)
    filters = {}
    for name, (raw, source) in entries.items():
        file_includes, file_excludes = rules_of_entry(raw, source)
        filters[name] = ToolFilter([*file_includes, *includes.get(name, ())], [*file_excludes, *excludes.get(name, ())])
    return filters


def unmatched_patterns(
    known: Mapping[str, Sequence[str]], filters: Mapping[str, ToolFilter], *, every_server_known: bool
) -> list[tuple[tuple[str, str, str], str]]:
    """What to warn about: the patterns that match none of their server's tools.

    Args:
        known: each server whose tools are known, and their names.
        filters: each of those servers' filter.
        every_server_known: whether ``known`` has every enabled server; a pattern of a list for every
            server is reported only then, when it matched no tool of any.

    Returns:
        ``(key, message)`` each; ``key`` (server or ``""``, rule, pattern) tells one warning from another.
    """
    found: list[tuple[tuple[str, str, str], str]] = []
    for server, names in known.items():
        for rule, pattern in filters[server].unmatched(names, shared=False):
            found.append(
                (
                    (server, rule.describe(), pattern),
                    f"server {server!r}: the tool filter pattern {pattern!r} ({rule.describe()}) "
                    f"matches none of its {len(names)} tools",
                )
            )
    if known and every_server_known:
        misses: dict[tuple[str, str], int] = {}
        for server, names in known.items():
            for rule, pattern in filters[server].unmatched(names, shared=True):
                misses[(rule.describe(), pattern)] = misses.get((rule.describe(), pattern), 0) + 1
        for (rule_text, pattern), count in misses.items():
            if count == len(known):
                found.append(
                    (
                        ("", rule_text, pattern),
                        f"the tool filter pattern {pattern!r} ({rule_text}) matches no tool of any server "
                        f"({', '.join(known)})",
                    )
                )
    return found


class _HasFilter(Protocol):
    tool_filter: ToolFilter


#: The owner (a Manager's server record) whose ``tool_filter`` rules each managed client's tools, held
#: weakly both ways: what else reaches a client's tools (an MCP Apps view's ``tools/call``) asks it.
_OWNERS: weakref.WeakKeyDictionary[Any, weakref.ref[_HasFilter]] = weakref.WeakKeyDictionary()


def bind_filter(client: Any, owner: _HasFilter) -> None:
    """Make ``owner.tool_filter`` (read at each question: a reloaded configuration's rules apply) the rule
    for ``client``'s tools."""
    _OWNERS[client] = weakref.ref(owner)


def why_filtered(client: Any, name: str) -> Optional[str]:
    """Why the Manager that made ``client`` does not offer its tool ``name`` (``excluded by ...``), or
    ``None`` (it does, or no Manager made the client)."""
    found = _OWNERS.get(client)
    owner = found() if found is not None else None
    return None if owner is None else owner.tool_filter.why_not(name)
