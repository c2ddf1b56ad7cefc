"""A skill's SKILL.md frontmatter (the Skills extension): parsed safely and within bounds, and compared
field by field with the frontmatter its entry lists.

The frontmatter is parsed with PyYAML's safe loader (imported when first
needed), timestamps left as the text they are (the listing carries fields
verbatim, as JSON, which has no dates), in at most ``MAX_FRONTMATTER`` bytes
and ``MAX_FRONTMATTER_VALUES`` values (aliases counted each time they are used).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Mapping
from typing import Any, Callable

from .._core.feature_errors import SkillVerificationError
from .._core.text import cut

__all__ = ["MAX_FRONTMATTER", "MAX_FRONTMATTER_DEPTH", "MAX_FRONTMATTER_VALUES", "differences", "parse_frontmatter"]

#: Bytes of YAML frontmatter we parse, at most.
MAX_FRONTMATTER = 256 * 1024
#: Values (scalars, lists, mappings) the frontmatter may hold, each use of an alias counted again.
MAX_FRONTMATTER_VALUES = 10_000
#: How deeply the frontmatter's lists and mappings may nest.
MAX_FRONTMATTER_DEPTH = 32

# Checked with fullmatch: ``$`` would also match before a final newline.
_DELIMITER = re.compile(r"---[ \t]*\r?")


def parse_frontmatter(text: str, skill_uri: str = "", file_uri: str = "") -> tuple[dict[str, Any], str]:
    """A SKILL.md's YAML frontmatter (a mapping) and its body.

    Raises:
        SkillVerificationError: no frontmatter, one that does not end, is not YAML, is not a
            mapping, or is over the bounds (``MAX_FRONTMATTER``, ``MAX_FRONTMATTER_VALUES``,
            ``MAX_FRONTMATTER_DEPTH``).
    """

    def refuse(reason: str) -> SkillVerificationError:
        return SkillVerificationError(reason, skill_uri=skill_uri, file_uri=file_uri)

    lines = text.lstrip("\ufeff").split("\n")
    if not lines or not _DELIMITER.fullmatch(lines[0]):
        raise refuse("it has no YAML frontmatter (the first line is not '---')")
    end = next((n for n, line in enumerate(lines[1:], 1) if _DELIMITER.fullmatch(line)), None)
    if end is None:
        raise refuse("its YAML frontmatter does not end (no closing '---' line)")
    block = "\n".join(lines[1:end])
    if len(block.encode("utf-8")) > MAX_FRONTMATTER:
        raise refuse(f"its YAML frontmatter is over {MAX_FRONTMATTER} bytes")
    import yaml  # lazily: only loading a skill needs it

    try:
        parsed = yaml.load(block, Loader=_loader())  # a subclass of SafeLoader: no arbitrary objects
    except RecursionError:
        raise refuse("its YAML frontmatter nests too deeply") from None
    except yaml.YAMLError as exc:
        raise refuse(f"its frontmatter is not valid YAML: {cut(str(exc), 200)}") from None
    if not isinstance(parsed, dict):
        raise refuse(f"its YAML frontmatter is not a mapping but {type(parsed).__name__}")
    _check_bounds(parsed, refuse)
    return parsed, "\n".join(lines[end + 1 :])


def _check_bounds(value: Any, refuse: Callable[[str], SkillVerificationError]) -> None:
    """Walk the parsed frontmatter (aliases as often as they are used); refuse it past the bounds."""
    count = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        count += 1
        if count > MAX_FRONTMATTER_VALUES:
            raise refuse(f"its YAML frontmatter holds more than {MAX_FRONTMATTER_VALUES} values (aliases counted)")
        if depth > MAX_FRONTMATTER_DEPTH:
            raise refuse(f"its YAML frontmatter nests deeper than {MAX_FRONTMATTER_DEPTH}")
        if isinstance(item, dict):
            stack.extend((child, depth + 1) for pair in item.items() for child in pair)
        elif isinstance(item, list):
            stack.extend((child, depth + 1) for child in item)


_LOADER: list[type] = []
_LOADER_LOCK = threading.Lock()


def _loader() -> type:
    """PyYAML's safe loader without its timestamp resolver: a date stays the text it is."""
    with _LOADER_LOCK:
        if not _LOADER:
            import yaml

            class _VerbatimLoader(yaml.SafeLoader):  # type: ignore[misc]  # PyYAML ships no types
                pass

            _VerbatimLoader.yaml_implicit_resolvers = {
                first: [(tag, pattern) for tag, pattern in resolvers if tag != "tag:yaml.org,2002:timestamp"]
                for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
            }
            _LOADER.append(_VerbatimLoader)
        return _LOADER[0]


def differences(listed: Mapping[str, Any], found: Mapping[Any, Any]) -> list[tuple[str, Any, Any]]:
    """The fields where the entry's frontmatter and SKILL.md's differ: (field, listed, in the file)."""
    missing = object()
    keys = sorted({*listed, *found}, key=str)
    differing = []
    for key in keys:
        expected, got = listed.get(key, missing), found.get(key, missing)
        if not _same(expected, got):
            differing.append(
                (str(key), None if expected is missing else expected, "(absent)" if got is missing else got)
            )
    return differing


def _same(a: Any, b: Any) -> bool:
    """Equality as JSON has it: ``True`` is not ``1``, and a list is a list."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, (Mapping, list, tuple)) or isinstance(b, (Mapping, list, tuple)):
        return False
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    return type(a) is type(b) and bool(a == b)
