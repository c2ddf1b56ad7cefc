"""The paging rules on plain values: a fake ``request`` answers from a table of pages, no server, no thread."""

from __future__ import annotations

from typing import Any, Optional

import pytest

import mcpsync
from mcpsync._session import paging


def server(pages: dict[Optional[str], dict[str, Any]], asked: list[Any]) -> paging.Request:
    def request(method: str, params: Optional[dict[str, Any]], timeout: Any) -> dict[str, Any]:
        asked.append(params)
        return pages[(params or {}).get("cursor")]

    return request


def test_the_pages_follow_the_cursors_with_meta_on_each_request():
    """Each page is asked for with the cursor before it, and the same _meta."""
    asked: list[Any] = []
    request = server({None: {"xs": [1], "nextCursor": "a"}, "a": {"xs": [2, 3]}}, asked)
    got = [items for items, _ in paging.pages(request, "x/list", "xs", None, meta={"m": 1})]
    assert got == [[1], [2, 3]]
    assert asked == [{"_meta": {"m": 1}}, {"cursor": "a", "_meta": {"m": 1}}]


def test_a_cursor_seen_before_ends_the_listing_and_max_pages_caps_it():
    """a -> b -> a is a loop, stopped at the repeat; a longer chain than max_pages is PageLimitExceeded."""
    loop = {None: {"xs": [], "nextCursor": "a"}, "a": {"xs": [], "nextCursor": "b"}, "b": {"xs": [], "nextCursor": "a"}}
    with pytest.raises(mcpsync.ProtocolError, match="repeated nextCursor 'a'"):
        list(paging.pages(server(loop, []), "x/list", "xs", None))
    with pytest.raises(mcpsync.PageLimitExceeded) as caught:
        list(paging.pages(server(loop, []), "x/list", "xs", None, max_pages=2))
    assert caught.value.next_cursor == "b"
    for bad in (0, -1, True, 1.5):
        with pytest.raises(ValueError, match="max_pages"):
            list(paging.pages(server(loop, []), "x/list", "xs", None, max_pages=bad))  # type: ignore[arg-type]


def test_one_page_types_its_items_and_keeps_the_result():
    """one_page builds each item and hands back the cursor and the raw result."""
    result = {"xs": ["a", "b"], "nextCursor": "n", "extra": 1}
    page = paging.one_page(server({"c": result}, []), "x/list", "xs", lambda item, where: item.upper(), "c", None)
    assert (page.items, page.next_cursor, page.raw) == (["A", "B"], "n", result)
    assert repr(page) == "<Page 2 items next_cursor='n'>"


def test_with_meta_leaves_params_alone_without_meta():
    """No meta: the params object itself; with meta: a copy with _meta set."""
    params = {"uri": "u"}
    assert paging.with_meta(params, None) is params
    assert paging.with_meta(None, {"k": "v"}) == {"_meta": {"k": "v"}}
    assert params == {"uri": "u"}
