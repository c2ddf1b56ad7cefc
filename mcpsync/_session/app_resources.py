"""A client's MCP Apps views: the tool's ``_meta.ui`` found in the client's tool list, the ``ui://``
resource read (``resources/read``) and kept, and the ``AppView`` of a call made from them.

Caching, as the extension has it: a host "MAY prefetch and cache UI resource content", the static
template kept apart from the dynamic data each call brings. So each client keeps the HTML and
``_meta.ui`` of every view it has read, by URI, for the client's life (the HTML is a template: a
call's data reaches the view as messages, never in the HTML). ``AppResources.of(client).forget()``
drops them; a new client reads them again.

A result is data: its ``origin`` names its client by a key (``origins.key_of``), and
``view_of_result`` (the hook ``CallToolResult.ui`` calls) finds the client by it while the client
lives. Nothing here keeps a client or a result alive: clients are held weakly, and so are the views
made for results.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Mapping
from typing import Any, Optional

from .._core.errors import ProtocolError
from .._core.timeouts import USE_DEFAULT, Timeout
from .app_view import AppView
from .apps import UI_MIME_TYPE, UiResourceMeta
from .content import ResourceContents
from .models import CallToolResult, Tool
from .origins import client_of

__all__ = ["AppResources", "view_of", "view_of_result"]

#: Guards the making of each client's ``AppResources`` (one per client, made on first use).
_MAKING = threading.Lock()
#: Each client's ``AppResources``, for the client's life.
_RESOURCES: weakref.WeakKeyDictionary[Any, AppResources] = weakref.WeakKeyDictionary()
#: The view last made for each result, by the result's identity (a result is unhashable), while it is
#: held: a view refers to its result, so a cache that held views would keep every result alive.
_VIEWS: weakref.WeakValueDictionary[int, AppView] = weakref.WeakValueDictionary()


class AppResources:
    """One client's UI resources, read once each and kept by URI (the module docstring says why)."""

    def __init__(self, client: Any) -> None:
        self._client = weakref.proxy(client)  # it is the client's: it must not keep the client alive
        self._lock = threading.Lock()
        self._held: dict[str, tuple[str, UiResourceMeta]] = {}

    @classmethod
    def of(cls, client: Any) -> AppResources:
        """The ``AppResources`` of ``client``, made on first use."""
        with _MAKING:
            held = _RESOURCES.get(client)
            if held is None:
                held = _RESOURCES[client] = cls(client)
            return held

    def forget(self, uri: Optional[str] = None) -> None:
        """Drop the view read from ``uri`` (``None``: every one): the next use reads it again."""
        with self._lock:
            if uri is None:
                self._held.clear()
            else:
                self._held.pop(uri, None)

    def tool(self, name: str, timeout: Timeout = USE_DEFAULT) -> Optional[Tool]:
        """The tool ``name`` as the client's tool list has it (listed once if the client holds none)."""
        for tool in self._client.list_tools(timeout=timeout):
            if tool.name == name:
                return tool  # type: ignore[no-any-return]
        return None

    def resource(self, uri: str, timeout: Timeout = USE_DEFAULT) -> tuple[str, UiResourceMeta]:
        """The HTML of the view at ``uri`` and its ``_meta.ui``, read once (``resources/read``).

        Raises:
            ProtocolError: the resource holds no HTML view.
        """
        with self._lock:
            held = self._held.get(uri)
        if held is not None:
            return held
        read = self._client.read_resource(uri, timeout=timeout)
        where = f"UI resource {uri!r}"
        for contents in read.contents:
            if contents.mime_type is not None and contents.mime_type.replace(" ", "").lower() != UI_MIME_TYPE:
                continue
            html = contents.text if contents.text is not None else _decoded(contents, where)
            meta = UiResourceMeta.from_meta(contents.raw.get("_meta"), where)
            if meta == UiResourceMeta():
                meta = self._listed_meta(uri, where)
            with self._lock:
                self._held[uri] = (html, meta)
            return html, meta
        raise ProtocolError(f"{where}: resources/read gave no {UI_MIME_TYPE} contents")

    def _listed_meta(self, uri: str, where: str) -> UiResourceMeta:
        """The ``_meta.ui`` of the resource listing's entry for ``uri``, if the client holds a listing
        (no request: a server may leave UI resources out of its listing)."""
        for resource in self._client.cached_lists.get("resources", ()):
            if getattr(resource, "uri", None) == uri:
                return UiResourceMeta.from_meta(resource.raw.get("_meta"), where)
        return UiResourceMeta()


def _decoded(contents: ResourceContents, where: str) -> str:
    """A blob's HTML: ``ResourceContents.data`` (``ProtocolError`` for bad base64), read as UTF-8."""
    try:
        return contents.data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ProtocolError(f"{where}: its blob is no UTF-8 HTML ({exc})") from None


def view_of_result(result: CallToolResult) -> Optional[AppView]:
    """``result.ui``: the ``AppView`` of its call (``None``: its tool has none, or its client is gone);
    the one made before while anybody holds it."""
    held = _VIEWS.get(id(result))
    if held is not None and held.result is result:
        return held
    client = client_of(result)
    if client is None or result.origin is None:
        return None
    view = view_of(client, result.origin.arguments, result)
    if view is not None:
        _VIEWS[id(result)] = view
    return view


def view_of(
    client: Any, arguments: Optional[Mapping[str, Any]], result: CallToolResult, timeout: Timeout = USE_DEFAULT
) -> Optional[AppView]:
    """The ``AppView`` of a call ``client`` made (``None``: its tool has no view)."""
    resources = AppResources.of(client)
    tool = resources.tool(result.tool_name, timeout)
    ui = tool.ui if tool is not None else None
    if ui is None or ui.resource_uri is None:
        return None
    html, meta = resources.resource(ui.resource_uri, timeout)
    return AppView(
        tool_name=result.tool_name,
        arguments=dict(arguments or {}),
        result=result,
        resource_uri=ui.resource_uri,
        html=html,
        meta=meta,
        tool=dict(tool.raw) if tool is not None else {},
        client=client,
    )
