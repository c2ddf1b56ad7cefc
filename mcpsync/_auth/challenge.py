"""``WWW-Authenticate`` read as RFC 9110 §11.6.1 writes it: challenges, their schemes and parameters.

A header may hold several challenges (``Bearer ..., DPoP ...``), and a
response several headers (requests joins them with ``, ``). Parameter names
are compared without case; values may be tokens or quoted strings with
``\\`` escapes. What cannot be read is skipped, not guessed at: a server's
header never makes the parser fail.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

__all__ = ["Challenge", "bearer_challenge", "parse_www_authenticate"]

_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_TOKEN68 = re.compile(r"[A-Za-z0-9\-._~+/]+=*")
_SPACE = re.compile(r"[ \t]*")


@dataclass(frozen=True)
class Challenge:
    """One challenge: its scheme (lower case) and parameters (names lower case)."""

    scheme: str
    params: dict[str, str] = field(default_factory=dict)
    token68: Optional[str] = None

    def get(self, name: str) -> Optional[str]:
        return self.params.get(name.lower())

    @property
    def scopes(self) -> tuple[str, ...]:
        """The ``scope`` parameter, split on white space (RFC 6750 §3)."""
        return tuple((self.get("scope") or "").split())


def parse_www_authenticate(header: Optional[str]) -> list[Challenge]:
    """Every challenge of a ``WWW-Authenticate`` value, in order; ``[]`` for none."""
    if not header:
        return []
    challenges: list[Challenge] = []
    text, at = header, 0
    while at < len(text):
        at = _skip(text, at, ", \t")
        scheme = _TOKEN.match(text, at)
        if scheme is None:
            at = _next_comma(text, at)
            continue
        at = scheme.end()
        params: dict[str, str] = {}
        token68: Optional[str] = None
        after_space = _SPACE.match(text, at)
        at = after_space.end() if after_space else at
        # token68 (a bare value) or auth-params, until the next challenge begins.
        candidate = _TOKEN68.match(text, at)
        if candidate is not None and not _is_param(text, at) and _ends_value(text, candidate.end()):
            token68 = candidate.group()
            at = candidate.end()
        else:
            while at < len(text):
                at = _skip(text, at, ", \t")
                if not _is_param(text, at):
                    break  # the next challenge's scheme
                name = _TOKEN.match(text, at)
                assert name is not None
                at = _skip(text, name.end(), " \t") + 1  # past '='
                at = _skip(text, at, " \t")
                value, at = _value(text, at)
                if value is not None:
                    params.setdefault(name.group().lower(), value)
                else:
                    at = _next_comma(text, at)
        challenges.append(Challenge(scheme.group().lower(), params, token68))
    return challenges


def bearer_challenge(header: Optional[str]) -> Optional[Challenge]:
    """The ``DPoP`` challenge if there is one, else the ``Bearer`` one, else ``None``.

    MCP servers answer with one of the two (RFC 6750, RFC 9449 §7.1); both
    carry the same parameters (``resource_metadata``, ``scope``, ``error``).
    """
    found = {c.scheme: c for c in reversed(parse_www_authenticate(header))}
    return found.get("dpop") or found.get("bearer")


def _is_param(text: str, at: int) -> bool:
    """Whether ``name=`` starts at ``at`` (an auth-param rather than a scheme)."""
    name = _TOKEN.match(text, at)
    if name is None:
        return False
    rest = _skip(text, name.end(), " \t")
    return rest < len(text) and text[rest] == "=" and not text.startswith("==", rest)


def _ends_value(text: str, at: int) -> bool:
    rest = _skip(text, at, " \t")
    return rest >= len(text) or text[rest] == ","


def _value(text: str, at: int) -> tuple[Optional[str], int]:
    if at < len(text) and text[at] == '"':
        out: list[str] = []
        at += 1
        while at < len(text):
            ch = text[at]
            if ch == "\\" and at + 1 < len(text):
                out.append(text[at + 1])
                at += 2
            elif ch == '"':
                return "".join(out), at + 1
            else:
                out.append(ch)
                at += 1
        return None, at  # no closing quote
    token = _TOKEN.match(text, at)
    if token is None:
        return None, at
    return token.group(), token.end()


def _skip(text: str, at: int, chars: str) -> int:
    while at < len(text) and text[at] in chars:
        at += 1
    return at


def _next_comma(text: str, at: int) -> int:
    comma = text.find(",", at)
    return len(text) if comma < 0 else comma + 1
