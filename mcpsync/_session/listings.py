"""The server's listings as one table, read in three ways: all of them (cached), one page, or lazily.

Each listing method (``tools/list``, ``prompts/list``, ``resources/list``,
``resources/templates/list``, ``skills/list``) answers pages of items under
one key. ``LISTINGS`` says, for each, its method, its result key, the model
an item becomes, and where the client's ``ListCache`` holds it; a client's
``filters`` leave out what it may not offer (a modern tool whose headers break
the rules, a skill entry that breaks the extension's). The ``Client``'s
``list_X``, ``list_X_page`` and ``iter_X`` methods are one line each over here;
paging.py follows the cursors.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Callable, Optional

from .._core.eras import header_problems, name_header_problem
from .._core.text import shorten
from .._core.timeouts import Timeout, resolve_timeout
from . import paging
from .cache import SKILLS_KEY, TEMPLATES_KEY, Key, ListCache
from .models import Page, Prompt, Resource, ResourceTemplate, Tool

__all__ = ["LISTINGS", "Filter", "Listing", "Listings", "usable_tools"]

logger = logging.getLogger("mcpsync.client")

#: ``fn(items of one page, the index of its first item) -> the items offered``.
Filter = Callable[[list[Any], int], list[Any]]


@dataclass(frozen=True)
class Listing:
    """One listing method: its ``method``, the ``key`` of its items in a page, the ``model`` an item
    becomes (``None``: as it comes, for a filter to build), and where the cache holds it (``cached_as``)."""

    method: str
    key: str
    model: Optional[Callable[[Any, str], Any]]
    cached_as: Key


#: The listings, by the name their ``Client`` methods carry (``list_<name>``).
LISTINGS: dict[str, Listing] = {
    "tools": Listing("tools/list", "tools", Tool.from_dict, "tools"),
    "prompts": Listing("prompts/list", "prompts", Prompt.from_dict, "prompts"),
    "resources": Listing("resources/list", "resources", Resource.from_dict, "resources"),
    "resource_templates": Listing(
        "resources/templates/list", "resourceTemplates", ResourceTemplate.from_dict, TEMPLATES_KEY
    ),
    "skills": Listing("skills/list", "skills", None, SKILLS_KEY),
}


class Listings:
    """One client's listings.

    Args:
        request: ``fn(method, params, timeout) -> result``, the client's request.
        require: ``fn(method)``, raising when the method may not be sent (the client is not open; a
            capability or extension not declared).
        cache: the client's ``ListCache``.
        default_timeout: ``fn() -> seconds``, the transport's default timeout.
        filters: by listing name, what leaves out the items the client may not offer.
        checks: by listing name, ``fn()`` raising when the listing may not be asked for at all (an
            extension the server does not declare), checked before the cache too.
        on_fetched: by listing name, ``fn(items)`` after a whole listing was fetched to be cached.
    """

    def __init__(
        self,
        request: paging.Request,
        require: Callable[[str], None],
        cache: ListCache,
        default_timeout: Callable[[], Optional[float]],
        filters: Mapping[str, Filter],
        on_fetched: Mapping[str, Callable[[list[Any]], None]],
        checks: Mapping[str, Callable[[], None]],
    ) -> None:
        self._checks = checks
        self._request = request
        self._require = require
        self._cache = cache
        self._default_timeout = default_timeout
        self._filters = filters
        self._on_fetched = on_fetched

    def all(
        self, name: str, timeout: Timeout, cache: bool, meta: Optional[Mapping[str, Any]], max_pages: Optional[int]
    ) -> list[Any]:
        """Every item of every page (``timeout`` bounds the whole listing). Served from the cache while
        fresh (``cache``); fetched without ``meta``, cached for its ``ttlMs`` in its ``cacheScope``."""
        listing = self._checked(name)
        held = self._cache.fresh(listing.cached_as) if cache and meta is None else None
        if held is not None:
            return list(held)
        self._require(listing.method)
        context = self._cache.context()
        seconds = resolve_timeout(timeout, self._default_timeout())
        items: list[Any] = []
        results: list[Mapping[str, Any]] = []
        pages = paging.pages(self._request, listing.method, listing.key, seconds, meta=meta, max_pages=max_pages)
        for page, result in pages:
            results.append(result)
            items.extend(self._offered(name, listing, page, len(items)))
        if meta is None:
            if name in self._on_fetched:
                self._on_fetched[name](items)
            self._cache.store(listing.cached_as, items, results, context=context)
        return items  # the very list held: ``Client.tools`` serves it again

    def page(self, name: str, cursor: Optional[str], timeout: Timeout, meta: Optional[Mapping[str, Any]]) -> Page[Any]:
        """One page, asked for with ``cursor`` (``None``: the first); the cache is neither read nor changed."""
        listing = self._checked(name)
        self._require(listing.method)
        raw = paging.one_page(self._request, listing.method, listing.key, _as_is, cursor, timeout, meta)
        return Page(self._offered(name, listing, raw.items, 0), raw.next_cursor, raw.raw)

    def iterate(
        self, name: str, timeout: Timeout, meta: Optional[Mapping[str, Any]], max_pages: Optional[int]
    ) -> Iterator[Any]:
        """The items, a page asked for only when the one before is used up (``timeout`` bounds each
        page); the requirement is checked now, the first page asked for on first use."""
        listing = self._checked(name)
        self._require(listing.method)
        seconds = resolve_timeout(timeout, self._default_timeout())
        pages = paging.pages(
            self._request, listing.method, listing.key, seconds, meta=meta, max_pages=max_pages, per_page=True
        )
        return self._items(name, listing, pages)

    def _checked(self, name: str) -> Listing:
        """The listing of ``name``, once its ``checks`` (if any) let it be asked for."""
        check = self._checks.get(name)
        if check is not None:
            check()
        return LISTINGS[name]

    def _items(self, name: str, listing: Listing, pages: Iterator[tuple[list[Any], dict[str, Any]]]) -> Iterator[Any]:
        count = 0
        for page, _ in pages:
            yield from self._offered(name, listing, page, count)
            count += len(page)

    def _offered(self, name: str, listing: Listing, page: list[Any], start: int) -> list[Any]:
        """A page's items, typed, without those the client's filter leaves out."""
        model = listing.model
        typed = (
            page
            if model is None
            else [model(item, f"{listing.method} item #{start + n}") for n, item in enumerate(page)]
        )
        chosen = self._filters.get(name)
        return typed if chosen is None else chosen(typed, start)


def _as_is(item: Any, where: str) -> Any:
    return item


def usable_tools(tools: list[Tool], modern: bool, server: str) -> list[Tool]:
    """The tools a listing may offer: in the modern era, those whose name can travel as ``Mcp-Name``
    and whose ``x-mcp-header`` annotations keep the rules; one that breaks them is left out, logged."""
    if not modern:
        return tools
    usable = []
    for tool in tools:
        problems = header_problems(tool.input_schema)
        name_problem = name_header_problem(tool.name)
        if name_problem is not None:
            problems.insert(0, name_problem)
        for problem in problems:
            logger.warning("server %r: tool %s left out: %s", server, shorten(tool.name, 80), problem)
        if not problems:
            usable.append(tool)
    return usable
