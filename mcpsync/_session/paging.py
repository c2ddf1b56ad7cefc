"""Listings, page by page: following ``nextCursor``, within a page limit, and stopping a server that loops.

A listing method (``tools/list``, ``resources/list``, ...) answers one page at a time with an opaque
``nextCursor`` for the next. The client reads them all (``Client.list_tools``), one at a time as
they are used (``iter_tools``), or one by hand (``list_tools_page``); all three go through here
(listings.py says which listings there are). A server may hand out cursors for ever, fresh or
repeated: a cursor seen before ends the listing at once, and ``max_pages`` (by default ``MAX_PAGES``)
and ``MAX_LIST_ITEMS`` bound the rest.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from typing import Any, Callable, Optional, TypeVar

from .._core.errors import ProtocolError, RequestTimeout
from .._core.feature_errors import PageLimitExceeded
from .._core.timeouts import Timeout
from .models import Page

__all__ = [
    "MAX_LIST_ITEMS",
    "MAX_PAGES",
    "next_cursor",
    "one_page",
    "page_items",
    "pages",
    "with_meta",
]

#: Pages one listing may take unless told otherwise: a server that hands out a fresh cursor for ever is stopped there.
MAX_PAGES = 1000
#: Items one listing may hold, over all its pages.
MAX_LIST_ITEMS = 100_000

#: ``request(method, params, timeout) -> result``: the client's blocking request.
Request = Callable[[str, Optional[dict[str, Any]], Timeout], dict[str, Any]]
_Item = TypeVar("_Item")


def with_meta(params: Optional[dict[str, Any]], meta: Optional[Mapping[str, Any]]) -> Optional[dict[str, Any]]:
    """``params`` with ``meta`` as their ``_meta``; ``params`` as they are without ``meta``.

    The channel adds the modern era's own keys later, and those win.

    Raises:
        TypeError: ``meta`` is not a mapping.
    """
    if meta is None:
        return params
    if not isinstance(meta, Mapping):
        raise TypeError(f"meta must be a mapping, not {type(meta).__name__}")
    return {**(params or {}), "_meta": dict(meta)}


def pages(
    request: Request,
    method: str,
    key: str,
    seconds: Optional[float],
    *,
    meta: Optional[Mapping[str, Any]] = None,
    max_pages: Optional[int] = None,
    per_page: bool = False,
) -> Iterator[tuple[list[Any], dict[str, Any]]]:
    """The raw pages of a listing: each page's items (``result[key]``) and its result dict.

    ``seconds`` bounds the whole listing (``None``: no limit), or each page with ``per_page``.

    Raises:
        RequestTimeout: the listing took longer than ``seconds``.
        PageLimitExceeded: the server still had a cursor after ``max_pages`` pages.
        ProtocolError: a malformed page, a repeated cursor, or more than ``MAX_LIST_ITEMS`` items.
        ValueError: ``max_pages`` is not a positive integer.
    """
    limit = _page_limit(max_pages)
    deadline = None if seconds is None else time.monotonic() + seconds
    cursor: Optional[str] = None
    seen: set[str] = set()
    count = 0
    for _ in range(limit):
        if per_page and seconds is not None:
            deadline = time.monotonic() + seconds
        left = None if deadline is None else deadline - time.monotonic()
        if left is not None and left <= 0:
            raise RequestTimeout(method, seconds or 0.0)
        try:
            result = _ask(request, method, cursor, left, meta)
        except RequestTimeout:
            raise RequestTimeout(method, seconds or 0.0) from None  # the listing's timeout, not what was left
        items = page_items(method, key, result)
        count += len(items)
        if count > MAX_LIST_ITEMS:
            raise ProtocolError(f"{method}: the server listed more than {MAX_LIST_ITEMS} items; stopped")
        yield items, result
        cursor = next_cursor(method, result)
        if cursor is None:
            return
        if cursor in seen:
            # A server that hands back a cursor it gave before would page in a loop for ever.
            raise ProtocolError(f"{method} result: repeated nextCursor {cursor!r} (the pages loop)")
        seen.add(cursor)
    raise PageLimitExceeded(method, limit, cursor)


def one_page(
    request: Request,
    method: str,
    key: str,
    build: Callable[[Any, str], _Item],
    cursor: Optional[str],
    timeout: Timeout,
    meta: Optional[Mapping[str, Any]] = None,
) -> Page[_Item]:
    """One page of a listing, typed, asked for with ``cursor`` (``None``: the first page).

    Raises:
        TypeError: ``cursor`` is not a string.
        ProtocolError: a malformed page.
    """
    if cursor is not None and not isinstance(cursor, str):
        raise TypeError(f"cursor must be a string or None, not {type(cursor).__name__}")
    result = _ask(request, method, cursor, timeout, meta)
    typed = [build(item, f"{method} item #{n}") for n, item in enumerate(page_items(method, key, result))]
    return Page(typed, next_cursor(method, result), result)


def _ask(
    request: Request, method: str, cursor: Optional[str], timeout: Timeout, meta: Optional[Mapping[str, Any]]
) -> dict[str, Any]:
    """One page's result dict."""
    params = {"cursor": cursor} if cursor is not None else None
    return request(method, with_meta(params, meta), timeout)


def _page_limit(max_pages: Optional[int]) -> int:
    """The pages a listing may take: ``max_pages``, or ``MAX_PAGES`` for ``None``."""
    if max_pages is None:
        return MAX_PAGES
    if isinstance(max_pages, bool) or not isinstance(max_pages, int) or max_pages < 1:
        raise ValueError(f"max_pages must be a positive integer or None, not {max_pages!r}")
    return max_pages


def page_items(method: str, key: str, result: Mapping[str, Any]) -> list[Any]:
    """A page's list of items (``result[key]``), checked to be a list."""
    items = result.get(key, [])
    if not isinstance(items, list):
        raise ProtocolError(f"{method} result: '{key}' must be a list, got {items!r}")
    return items


def next_cursor(method: str, result: Mapping[str, Any]) -> Optional[str]:
    """A page's ``nextCursor``: a string, or ``None`` on the last page."""
    cursor = result.get("nextCursor")
    if cursor is not None and not isinstance(cursor, str):
        raise ProtocolError(f"{method} result: bad nextCursor {cursor!r}")
    return cursor
