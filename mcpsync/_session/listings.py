"""The server's listings as one table, read in three ways: all of them (cached), one page, or lazily.

Each listing method (``tools/list``, ``prompts/list``, ``resources/list``,
``resources/templates/list``, ``skills/list``) answers pages of items under
one key. ``LISTINGS`` says, for each, its method, its result key, the model
an item becomes, and where the client's ``ListCache`` holds it; a client's
``filters`` leave out what it may not offer (a modern tool whose headers break
the rules, a skill entry that breaks the extension's). The ``Client``'s
``list_X``, ``list_X_page`` and ``iter_X`` methods are one line each over here;
paging.py follows the cursors. ``ListingMethods`` holds those public methods (a part of ``Client``:
its base), with ``tools``, ``prompts``, ``resources``, ``cached_lists``, ``cache_scope`` and ``refresh``.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Callable, Optional

from .._core.eras import header_problems, name_header_problem
from .._core.text import shorten
from .._core.timeouts import USE_DEFAULT, Timeout, resolve_timeout
from . import paging
from .cache import SKILLS_KEY, TEMPLATES_KEY, Key, ListCache
from .models import Page, Prompt, Resource, ResourceTemplate, Tool
from .skills import Skill
from .tracebacks import short_interrupts

__all__ = ["LISTINGS", "Filter", "Listing", "ListingMethods", "Listings", "usable_tools"]

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


class ListingMethods:
    """A ``Client``'s listings, one line each over its ``Listings`` (a part of ``Client``: its base)."""

    # What they use of their Client.
    _listings: Listings
    _lists: ListCache

    @property
    def cached_lists(self) -> dict[str, list[Any]]:
        """The tools, prompts and resources lists the client holds now (fetched, and not changed since), by kind.

        Reading it never asks the server.
        """
        return self._lists.held()

    @short_interrupts
    def list_tools(
        self,
        *,
        timeout: Timeout = USE_DEFAULT,
        cache: bool = True,
        meta: Optional[Mapping[str, Any]] = None,
        max_pages: Optional[int] = None,
    ) -> list[Tool]:
        """All the server's tools, across every page (``timeout`` bounds the whole listing).

        Args:
            cache: serve the list fetched last while the server's ``ttlMs`` says it is fresh
                (2026-07-28; a list change ends that); ``False`` always asks the server.
            meta: sent as each page request's ``_meta`` (the modern era's own keys win over
                yours). A listing with ``meta`` always asks the server and is not kept: what the
                server answers may depend on it, and the cached list must not.
            max_pages: the most pages to read (default ``MAX_PAGES``, 1000).

        Raises:
            CapabilityNotServed: the server does not declare ``tools`` and answered -32601 (with
                ``strict_capabilities``, ``CapabilityNotDeclared`` and nothing is sent; every typed
                method treats the capability its request needs in the same way).
            PageLimitExceeded: the server still had a cursor after ``max_pages`` pages.
            ProtocolError: the server repeated a cursor (it would page forever)
                or sent a malformed tool.
        """
        return self._listings.all("tools", timeout, cache, meta, max_pages)

    def cache_scope(self, kind: str) -> Optional[str]:
        """The ``cacheScope`` of the ``"tools"``, ``"prompts"`` or ``"resources"`` list fetched last:
        ``"public"`` (any caller may be served it), ``"private"`` (only this authorization context),
        or ``None`` (the server said nothing, as servers before 2026-07-28 do; or none was fetched)."""
        return self._lists.scope(kind)

    @short_interrupts
    def list_tools_page(
        self, cursor: Optional[str] = None, *, timeout: Timeout = USE_DEFAULT, meta: Optional[Mapping[str, Any]] = None
    ) -> Page[Tool]:
        """One page of ``tools/list``: ``page.items`` and ``page.next_cursor`` (``None`` on the last).

        Asks the server every time; the cached list of ``list_tools`` is neither read nor changed.
        """
        return self._listings.page("tools", cursor, timeout, meta)

    def iter_tools(
        self,
        *,
        timeout: Timeout = USE_DEFAULT,
        meta: Optional[Mapping[str, Any]] = None,
        max_pages: Optional[int] = None,
    ) -> Iterator[Tool]:
        """The server's tools, a page asked for only when the one before is used up.

        ``timeout`` bounds each page; ``max_pages`` and the repeated-cursor check as for ``list_tools``.
        """
        return self._listings.iterate("tools", timeout, meta, max_pages)

    @property
    def tools(self) -> list[Tool]:
        """The server's tools, fetched once and again after ``notifications/tools/list_changed``."""
        cached = self._lists.get("tools")
        return cached if cached is not None else self.list_tools()

    @property
    def prompts(self) -> list[Prompt]:
        """The server's prompts, fetched once and again after ``notifications/prompts/list_changed``."""
        cached = self._lists.get("prompts")
        return cached if cached is not None else self.list_prompts()

    @property
    def resources(self) -> list[Resource]:
        """The server's resources, fetched once and again after ``notifications/resources/list_changed``."""
        cached = self._lists.get("resources")
        return cached if cached is not None else self.list_resources()

    @short_interrupts
    def list_resources(
        self,
        *,
        timeout: Timeout = USE_DEFAULT,
        cache: bool = True,
        meta: Optional[Mapping[str, Any]] = None,
        max_pages: Optional[int] = None,
    ) -> list[Resource]:
        """All the server's resources, across every page (``timeout`` bounds the whole listing;
        ``cache``, ``meta`` and ``max_pages`` as for ``list_tools``)."""
        return self._listings.all("resources", timeout, cache, meta, max_pages)

    @short_interrupts
    def list_resources_page(
        self, cursor: Optional[str] = None, *, timeout: Timeout = USE_DEFAULT, meta: Optional[Mapping[str, Any]] = None
    ) -> Page[Resource]:
        """One page of ``resources/list`` (as ``list_tools_page``)."""
        return self._listings.page("resources", cursor, timeout, meta)

    def iter_resources(
        self,
        *,
        timeout: Timeout = USE_DEFAULT,
        meta: Optional[Mapping[str, Any]] = None,
        max_pages: Optional[int] = None,
    ) -> Iterator[Resource]:
        """The server's resources, page by page as they are used (as ``iter_tools``)."""
        return self._listings.iterate("resources", timeout, meta, max_pages)

    @short_interrupts
    def list_resource_templates(
        self,
        *,
        timeout: Timeout = USE_DEFAULT,
        cache: bool = True,
        meta: Optional[Mapping[str, Any]] = None,
        max_pages: Optional[int] = None,
    ) -> list[ResourceTemplate]:
        """All the server's resource templates (``uriTemplate`` in RFC 6570 form), across every page
        (``meta`` and ``max_pages`` as for ``list_tools``). ``cache``: served again while the server's
        ``ttlMs`` says the listing is fresh (2026-07-28; a resource list change ends that)."""
        return self._listings.all("resource_templates", timeout, cache, meta, max_pages)

    @short_interrupts
    def list_resource_templates_page(
        self, cursor: Optional[str] = None, *, timeout: Timeout = USE_DEFAULT, meta: Optional[Mapping[str, Any]] = None
    ) -> Page[ResourceTemplate]:
        """One page of ``resources/templates/list`` (as ``list_tools_page``)."""
        return self._listings.page("resource_templates", cursor, timeout, meta)

    def iter_resource_templates(
        self,
        *,
        timeout: Timeout = USE_DEFAULT,
        meta: Optional[Mapping[str, Any]] = None,
        max_pages: Optional[int] = None,
    ) -> Iterator[ResourceTemplate]:
        """The server's resource templates, page by page as they are used (as ``iter_tools``)."""
        return self._listings.iterate("resource_templates", timeout, meta, max_pages)

    @short_interrupts
    def list_prompts(
        self,
        *,
        timeout: Timeout = USE_DEFAULT,
        cache: bool = True,
        meta: Optional[Mapping[str, Any]] = None,
        max_pages: Optional[int] = None,
    ) -> list[Prompt]:
        """All the server's prompts, across every page (``cache``, ``meta``, ``max_pages`` as for ``list_tools``)."""
        return self._listings.all("prompts", timeout, cache, meta, max_pages)

    @short_interrupts
    def list_prompts_page(
        self, cursor: Optional[str] = None, *, timeout: Timeout = USE_DEFAULT, meta: Optional[Mapping[str, Any]] = None
    ) -> Page[Prompt]:
        """One page of ``prompts/list`` (as ``list_tools_page``)."""
        return self._listings.page("prompts", cursor, timeout, meta)

    def iter_prompts(
        self,
        *,
        timeout: Timeout = USE_DEFAULT,
        meta: Optional[Mapping[str, Any]] = None,
        max_pages: Optional[int] = None,
    ) -> Iterator[Prompt]:
        """The server's prompts, page by page as they are used (as ``iter_tools``)."""
        return self._listings.iterate("prompts", timeout, meta, max_pages)

    @short_interrupts
    def list_skills(
        self,
        *,
        timeout: Timeout = USE_DEFAULT,
        cache: bool = True,
        meta: Optional[Mapping[str, Any]] = None,
        max_pages: Optional[int] = None,
    ) -> list[Skill]:
        """The server's skills, across every page; reads none of their files.

        An entry that breaks the extension's rules (its name not the last segment of its path, its
        files not all listed, over 512 files or 16 MiB) is left out, with a warning naming it and
        the rule. ``cache``, ``meta`` and ``max_pages`` as for ``list_tools`` (the listing's ``ttlMs``).

        Raises:
            ExtensionNotDeclared: the server does not declare ``io.modelcontextprotocol/skills``.
            PageLimitExceeded: the server still had a cursor after ``max_pages`` pages.
            ProtocolError: a malformed page, or a repeated cursor.
        """
        return self._listings.all("skills", timeout, cache, meta, max_pages)

    @short_interrupts
    def list_skills_page(
        self, cursor: Optional[str] = None, *, timeout: Timeout = USE_DEFAULT, meta: Optional[Mapping[str, Any]] = None
    ) -> Page[Skill]:
        """One page of ``skills/list`` (as ``list_tools_page``; entries that break the rules left out,
        as ``list_skills`` leaves them out)."""
        return self._listings.page("skills", cursor, timeout, meta)

    def refresh(self, kind: str) -> None:
        """Fetch the ``"tools"``, ``"prompts"`` or ``"resources"`` list again (as ``refresh_on_list_changed`` does)."""
        {"tools": self.list_tools, "prompts": self.list_prompts, "resources": self.list_resources}[kind]()
