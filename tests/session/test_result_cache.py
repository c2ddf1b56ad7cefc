"""The client's one cache (``cache.ListCache``): how long a listing or a read stays fresh (``ttlMs``,
the least of a listing's pages), whom it may be served to (``cacheScope``), and what a list change
ends. Plain values; the clock is a fake one that moves only when told."""

from __future__ import annotations

from typing import Any

import pytest

import mcpsync._session.cache as cache_module
from mcpsync._session.cache import (
    DISCOVER_KEY,
    MAX_READS_HELD,
    MAX_TTL,
    SKILLS_KEY,
    TEMPLATES_KEY,
    ListCache,
    least_ttl,
    ttl_of,
)


class Clock:
    """A fake ``time`` module."""

    def __init__(self) -> None:
        self.now = 500.0

    def monotonic(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(cache_module, "time", fake)
    return fake


def test_a_listing_is_fresh_for_the_least_ttl_of_its_pages_and_not_at_all_if_one_page_has_none():
    """Pages of 60 s and 5 s: 5 s; a page without ttlMs (or with a bad one): no freshness at all."""
    assert least_ttl([{"ttlMs": 60_000}, {"ttlMs": 5_000}]) == 5.0
    assert least_ttl([{"ttlMs": 60_000}, {}]) is None
    assert least_ttl([]) is None
    assert ttl_of({"ttlMs": True}) is None and ttl_of({"ttlMs": -1}) is None and ttl_of({"ttlMs": "9"}) is None
    assert ttl_of({"ttlMs": 10**12}) == MAX_TTL


def test_a_stored_listing_is_served_while_fresh_and_held_after(clock: Clock):
    """A tools listing of two pages (10 s and 3 s): fresh for 3 s; after that still held (``get``,
    for ``Client.tools``) but no longer fresh (``fresh``: the server is asked)."""
    cache = ListCache(lambda kind: None)
    cache.store("tools", ["t"], [{"ttlMs": 10_000}, {"ttlMs": 3_000}], context=None)
    clock.now += 2.9
    assert cache.fresh("tools") == ["t"]
    clock.now += 0.2
    assert cache.fresh("tools") is None and cache.get("tools") == ["t"]
    assert cache.held() == {"tools": ["t"]}


def test_what_is_not_a_list_is_kept_only_while_fresh(clock: Clock):
    """A read (or the templates) without ttlMs is not kept at all; with one, until it runs out."""
    cache = ListCache(lambda kind: None)
    cache.store("memo://a", "contents", [{}], context=None)
    assert cache.get("memo://a") is None
    cache.store(TEMPLATES_KEY, ["tpl"], [{"ttlMs": 1_000}], context=None)
    assert cache.fresh(TEMPLATES_KEY) == ["tpl"]
    clock.now += 1.0
    assert cache.fresh(TEMPLATES_KEY) is None


def test_a_list_change_ends_its_kind_and_a_resource_change_ends_reads_and_templates_only(clock: Clock):
    """tools/list_changed ends the tools only; resources/list_changed ends the resources, every read
    and the templates, and leaves the discover answer and the skills listing alone."""
    told: list[str] = []
    cache = ListCache(told.append)
    fresh = [{"ttlMs": 60_000}]
    for key in ("tools", "prompts", "resources", "memo://a", TEMPLATES_KEY, DISCOVER_KEY, SKILLS_KEY):
        cache.store(key, [key], fresh, context=None)
    cache.forget("tools")
    assert cache.get("tools") is None and cache.fresh("prompts") == ["prompts"] and told == ["tools"]
    cache.forget("resources")
    assert [cache.get(k) for k in ("resources", "memo://a", TEMPLATES_KEY)] == [None, None, None]
    assert cache.fresh(DISCOVER_KEY) == [DISCOVER_KEY] and cache.fresh(SKILLS_KEY) == [SKILLS_KEY]
    cache.forget_read("prompts")  # resources/updated naming a list's kind: lists are not reads
    assert cache.get("prompts") == ["prompts"]


def test_a_private_result_is_served_only_in_its_context_and_a_public_one_to_anyone(clock: Clock):
    """Fetched for alice, private (or unmarked): bob is not served it, and it is dropped; public: both."""
    who = ["alice"]
    cache = ListCache(lambda kind: None, context=lambda: who[0])
    cache.store("prompts", ["mine"], [{"ttlMs": 60_000, "cacheScope": "private"}], context="alice")
    cache.store("memo://x", "x", [{"ttlMs": 60_000}], context="alice")
    cache.store("tools", ["all"], [{"ttlMs": 60_000, "cacheScope": "public"}], context="alice")
    assert cache.scope("prompts") == "private" and cache.scope("tools") == "public"
    who[0] = "bob"
    assert cache.fresh("prompts") is None and cache.fresh("memo://x") is None
    assert cache.fresh("tools") == ["all"]
    who[0] = "alice"
    assert cache.get("prompts") is None, "dropped when bob was here, never served again"


def test_reads_are_bounded_and_the_oldest_goes_first(clock: Clock):
    """Past ``MAX_READS_HELD`` reads, the oldest read is dropped; the lists held are not counted."""
    cache = ListCache(lambda kind: None)
    cache.store("tools", ["t"], [{}], context=None)
    fresh: list[dict[str, Any]] = [{"ttlMs": 60_000}]
    for n in range(MAX_READS_HELD + 1):
        cache.store(f"memo://{n}", n, fresh, context=None)
    assert cache.fresh("memo://0") is None and cache.fresh("memo://1") == 1
    assert cache.fresh(f"memo://{MAX_READS_HELD}") == MAX_READS_HELD and cache.get("tools") == ["t"]
