"""What a client keeps of the server's answers, and for how long: ``ttlMs``, ``cacheScope`` and list changes.

One ``ListCache`` per client holds the listings it fetched last (tools, prompts,
resources, resource templates, skills), the resources it read, and the
``server/discover`` answer. The rules, each kept here only:

- **Held and fresh.** The tools, prompts and resources lists are *held* (for
  ``Client.tools``, ``cached_lists``, the tool-name hints) until the server
  says they changed. Anything is *fresh*, served without asking the server,
  for as long as its ``ttlMs`` says (2026-07-28; at most ``MAX_TTL``); a
  listing of many pages for the least ``ttlMs`` of its pages, and not at all
  when one page has none (``least_ttl``). What has no list to be held in is
  kept only while fresh.
- **List changes.** ``notifications/<kind>/list_changed`` ends the held list
  of its kind; a resources change also ends every read resource and the
  templates; ``notifications/resources/updated`` ends one read.
- **``cacheScope``.** A result that is not ``"public"`` (``"private"``, or none
  said) belongs to the authorization context it was fetched in (``context()``:
  the transport's fingerprint of the credentials it sends). It is kept only
  if the context did not change while it was fetched, and served only while
  the context is still the same; after that it is dropped, never served.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from typing import Any, Callable, Optional, Union

__all__ = [
    "DISCOVER_KEY",
    "LISTS",
    "MAX_READS_HELD",
    "MAX_TTL",
    "PRIVATE",
    "PUBLIC",
    "SKILLS_KEY",
    "TEMPLATES_KEY",
    "ListCache",
    "cache_scope",
    "least_ttl",
    "ttl_of",
]

#: Seconds a server's ``ttlMs`` may keep a result fresh, at most.
MAX_TTL = 24 * 3600.0
#: Results held at most beside the lists (read resources, mostly; each for its ``ttlMs``).
MAX_READS_HELD = 256
#: ``cacheScope`` values (2026-07-28): a result anyone may be served, or one for its authorization context only.
PUBLIC, PRIVATE = "public", "private"
#: The lists held until they change (not only while fresh), by the kind their list_changed names.
LISTS = ("tools", "prompts", "resources")
#: Where the ``server/discover`` answer is held (no list change ends it).
DISCOVER_KEY = ("server/discover",)
#: Where the resource templates are held (a resource list change ends them, as it ends the reads).
TEMPLATES_KEY = ("resources/templates/list",)
#: Where the skills listing is held (no list change ends it).
SKILLS_KEY = ("skills/list",)

Key = Union[str, tuple[str, ...]]
#: What no list change ends.
_UNCHANGED = (DISCOVER_KEY, SKILLS_KEY)


def ttl_of(result: Mapping[str, Any]) -> Optional[float]:
    """The seconds a result stays fresh by its ``ttlMs`` (2026-07-28); ``None`` without one, or a bad one."""
    value = result.get("ttlMs")
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        return None
    return min(float(value) / 1000.0, MAX_TTL)


def least_ttl(results: Iterable[Mapping[str, Any]]) -> Optional[float]:
    """How long a listing's pages together stay fresh: the least ``ttlMs`` of them; ``None`` when a
    page has none (or there is no page)."""
    ttls = [ttl_of(result) for result in results]
    if not ttls or None in ttls:
        return None
    return min(t for t in ttls if t is not None)


def cache_scope(results: Iterable[Mapping[str, Any]]) -> Optional[str]:
    """The ``cacheScope`` of a result, or of a listing's pages together: ``"public"`` only when every
    page says so, ``"private"`` when one does, ``None`` when none says (a server of an older era)."""
    scopes = {result.get("cacheScope") for result in results}
    if PRIVATE in scopes:
        return PRIVATE
    if scopes == {PUBLIC}:
        return PUBLIC
    return None


class ListCache:
    """A client's listings, reads and discover answer (see the module docstring).

    Args:
        on_forget: ``fn(kind)`` after a list change ended the list of ``kind``.
        context: ``fn() -> the authorization context now`` (a fingerprint; ``""`` for none).
    """

    def __init__(self, on_forget: Callable[[str], None], context: Callable[[], str] = lambda: "") -> None:
        self._held: dict[Key, tuple[Any, float]] = {}  # key -> (value, fresh until)
        self._owners: dict[Key, str] = {}  # the authorization context of what is not public
        self._scopes: dict[Key, Optional[str]] = {}
        self._on_forget = on_forget
        #: The authorization context now.
        self.context = context

    def store(self, key: Key, value: Any, results: Iterable[Mapping[str, Any]], *, context: Optional[str]) -> None:
        """Hold what the answers ``results`` (a listing's pages, or one result) gave, for their least
        ``ttlMs`` and in their ``cacheScope``; ``context``: the authorization context it was asked for in."""
        results = list(results)
        self.put(key, value, least_ttl(results), scope=cache_scope(results), context=context)

    def put(
        self,
        key: Key,
        value: Any,
        ttl: Optional[float] = None,
        *,
        scope: Optional[str] = None,
        context: Optional[str] = None,
    ) -> None:
        """Hold ``value``, fresh for ``ttl`` seconds (a list of ``LISTS`` is held without one too,
        anything else is not). ``scope``: its ``cacheScope``; ``context``: as for ``store``."""
        listed = key in LISTS
        if listed:
            self._scopes[key] = scope
        elif not ttl:
            return
        if scope == PUBLIC:
            self._owners.pop(key, None)
        else:
            now = self.context()
            if context is not None and context != now:
                return  # fetched for one context, and another is here now: keep it for no one
            self._owners[key] = now
        if not listed and key not in self._held:
            others = [k for k in self._held if k not in LISTS]
            if len(others) >= MAX_READS_HELD:
                self._drop(others[0])  # the oldest
        self._held[key] = (value, time.monotonic() + ttl if ttl else 0.0)

    def get(self, key: Key) -> Any:
        """What is held under ``key``, fresh or not, if the authorization context now may be served it."""
        held = self._held.get(key)
        if held is None:
            return None
        owner = self._owners.get(key)
        if owner is not None and owner != self.context():
            self._drop(key)  # another context's: never served
            return None
        return held[0]

    def fresh(self, key: Key) -> Any:
        """What is held under ``key`` if its ``ttlMs`` says it is still fresh (``None`` otherwise)."""
        value = self.get(key)
        if value is None or time.monotonic() >= self._held[key][1]:
            return None
        return value

    def scope(self, kind: str) -> Optional[str]:
        """The ``cacheScope`` of the list of ``kind`` fetched last, kept or not (``None``: none said)."""
        return self._scopes.get(kind)

    def forget_read(self, key: Any) -> None:
        """The server said the resource changed."""
        if key not in LISTS:
            self._drop(key)

    def forget(self, kind: str) -> None:
        """The server said the list of ``kind`` changed."""
        self._drop(kind)
        if kind == "resources":
            for key in [key for key in self._held if key not in LISTS and key not in _UNCHANGED]:
                self._drop(key)
        self._on_forget(kind)

    def held(self) -> dict[str, list[Any]]:
        """The lists held now (that the authorization context now may be served), by kind."""
        return {kind: list(items) for kind in LISTS if (items := self.get(kind)) is not None}

    def _drop(self, key: Key) -> None:
        self._held.pop(key, None)
        self._owners.pop(key, None)
