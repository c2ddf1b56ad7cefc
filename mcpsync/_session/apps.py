"""The MCP Apps extension (``io.modelcontextprotocol/ui``) as the wire says it: what a client declares,
a tool's ``_meta.ui`` (``ToolUi``) and a UI resource's ``_meta.ui`` (``UiResourceMeta``, ``UiCsp``).

Read liberally: a field that is missing or of the wrong shape is left out with a ``ProtocolWarning``
(the first of each place), never an error: a tool whose view metadata is broken is still a tool.
Whether the client declares the extension (``Client(apps=)``): ``wanted`` decides, ``None`` meaning
"when a notebook host is in use" (an IPython kernel, with anywidget importable).
"""

from __future__ import annotations

import importlib.util
import sys
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Optional

from .._core.errors import ProtocolWarning

__all__ = [
    "CSP_LISTS",
    "UI_EXTENSION",
    "UI_MIME_TYPE",
    "ToolUi",
    "UiCsp",
    "UiResourceMeta",
    "declared",
    "notebook_host_in_use",
    "tool_ui",
    "visibility_of",
    "wanted",
]

#: The extension's identifier, declared in the client capabilities' ``extensions``.
UI_EXTENSION = "io.modelcontextprotocol/ui"
#: The MIME type of an MCP App's HTML view.
UI_MIME_TYPE = "text/html;profile=mcp-app"
#: The settings a client declares for the extension: the view types it renders.
UI_SETTINGS: dict[str, Any] = {"mimeTypes": [UI_MIME_TYPE]}
#: The visibility a tool has when it says none (``["model", "app"]``).
DEFAULT_VISIBILITY = ("model", "app")
#: The permissions a view may ask for, by their wire names.
PERMISSIONS = ("camera", "microphone", "geolocation", "clipboardWrite")
#: The CSP lists of ``_meta.ui.csp``, wire name -> ``UiCsp`` field.
CSP_LISTS = {
    "connectDomains": "connect_domains",
    "resourceDomains": "resource_domains",
    "frameDomains": "frame_domains",
    "baseUriDomains": "base_uri_domains",
}


def _warn(where: str, message: str) -> None:
    warnings.warn(f"{where}: {message}; left out", ProtocolWarning, stacklevel=3)


@dataclass(frozen=True)
class ToolUi:
    """A tool's ``_meta.ui`` (the MCP Apps extension): the view it renders with, and who may call it.

    Attributes:
        resource_uri: the ``ui://`` resource of its view; ``None`` for a tool without a view of its own
            (an app-only helper, say).
        visibility: ``"model"``, ``"app"`` or both (the default when the tool says nothing).
    """

    resource_uri: Optional[str] = None
    visibility: tuple[str, ...] = DEFAULT_VISIBILITY


@dataclass(frozen=True)
class UiCsp:
    """A UI resource's ``_meta.ui.csp``: the origins its view may reach, by kind (each list as sent,
    the policy checks each value: ``AppView.content_security_policy``)."""

    connect_domains: tuple[str, ...] = ()
    resource_domains: tuple[str, ...] = ()
    frame_domains: tuple[str, ...] = ()
    base_uri_domains: tuple[str, ...] = ()


@dataclass(frozen=True)
class UiResourceMeta:
    """A UI resource's ``_meta.ui``: its ``csp``, the browser ``permissions`` it asks for (a subset of
    camera, microphone, geolocation, clipboardWrite), the dedicated ``domain`` it would like (host-
    dependent: a notebook has none to give) and whether it ``prefers_border`` (``None``: no preference)."""

    csp: UiCsp = field(default_factory=UiCsp)
    permissions: tuple[str, ...] = ()
    domain: Optional[str] = None
    prefers_border: Optional[bool] = None

    @classmethod
    def from_meta(cls, meta: Any, where: str = "UI resource") -> UiResourceMeta:
        """Read a ``_meta`` (the whole of it: ``ui`` is looked up inside) liberally: each field that is
        missing is left at its default, each that is malformed too, with a ``ProtocolWarning``."""
        ui = meta.get("ui") if isinstance(meta, Mapping) else None
        if ui is None:
            return cls()
        if not isinstance(ui, Mapping):
            _warn(where, f"_meta.ui must be an object, got {type(ui).__name__}")
            return cls()
        return cls(
            csp=_csp(ui.get("csp"), where),
            permissions=_permissions(ui.get("permissions"), where),
            domain=_optional(ui, "domain", str, where),
            prefers_border=_optional(ui, "prefersBorder", bool, where),
        )


def _optional(ui: Mapping[str, Any], key: str, kind: type, where: str) -> Any:
    value = ui.get(key)
    if value is None or isinstance(value, kind):
        return value
    _warn(where, f"_meta.ui.{key} must be a {kind.__name__}, got {value!r:.60}")
    return None


def _csp(value: Any, where: str) -> UiCsp:
    if value is None:
        return UiCsp()
    if not isinstance(value, Mapping):
        _warn(where, f"_meta.ui.csp must be an object, got {value!r:.60}")
        return UiCsp()
    lists: dict[str, tuple[str, ...]] = {}
    for wire, name in CSP_LISTS.items():
        items = value.get(wire)
        if items is None:
            continue
        if not isinstance(items, list):
            _warn(where, f"_meta.ui.csp.{wire} must be a list of strings, got {items!r:.60}")
            continue
        lists[name] = tuple(item for item in items if isinstance(item, str))
        if len(lists[name]) != len(items):
            _warn(where, f"_meta.ui.csp.{wire} has values that are no strings")
    return UiCsp(**lists)


def _permissions(value: Any, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, Mapping):
        _warn(where, f"_meta.ui.permissions must be an object, got {value!r:.60}")
        return ()
    unknown = [key for key in value if key not in PERMISSIONS]
    if unknown:
        _warn(where, f"_meta.ui.permissions names unknown permissions {unknown!r:.80}")
    return tuple(name for name in PERMISSIONS if name in value)


def visibility_of(meta: Any) -> tuple[str, ...]:
    """Who a tool is for, by its ``_meta.ui.visibility``: ``"model"``, ``"app"`` or both, the default
    when it says nothing; ``()`` when the value is not a list of strings (no one can tell)."""
    ui = meta.get("ui") if isinstance(meta, Mapping) else None
    value = ui.get("visibility") if isinstance(ui, Mapping) else None
    if value is None:
        return DEFAULT_VISIBILITY
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return tuple(value)
    return ()


def tool_ui(meta: Any, where: str = "tool") -> Optional[ToolUi]:
    """A tool's ``ToolUi`` from its ``_meta`` (``None``: it says nothing of the extension). The
    deprecated flat ``_meta["ui/resourceUri"]`` is read too; a URI that is no ``ui://`` one is left out."""
    if not isinstance(meta, Mapping):
        return None
    ui = meta.get("ui")
    flat = meta.get("ui/resourceUri")
    if ui is None and flat is None:
        return None
    if ui is not None and not isinstance(ui, Mapping):
        _warn(where, f"_meta.ui must be an object, got {type(ui).__name__}")
        ui = {}
    ui = ui or {}
    uri = ui.get("resourceUri", flat)
    if uri is not None and not (isinstance(uri, str) and uri.startswith("ui://")):
        _warn(where, f"_meta.ui.resourceUri must be a ui:// URI, got {uri!r:.80}")
        uri = None
    seen = visibility_of(meta)
    if not seen and ui.get("visibility") != []:
        # No one can tell whom it is for: the model never gets it, nor may the app call it.
        _warn(where, f"_meta.ui.visibility must be a list of strings, got {ui.get('visibility')!r:.60}")
    return ToolUi(resource_uri=uri, visibility=seen)


def notebook_host_in_use() -> bool:
    """Whether this process is a notebook host: an IPython kernel is running (a shell with a
    ``kernel``) and anywidget can be imported (it is looked for, not imported)."""
    ipython = sys.modules.get("IPython")
    get_shell = getattr(ipython, "get_ipython", None)
    shell = get_shell() if callable(get_shell) else None
    if shell is None or getattr(shell, "kernel", None) is None:
        return False
    try:
        return importlib.util.find_spec("anywidget") is not None
    except (ImportError, ValueError):
        return False


def wanted(apps: Optional[bool]) -> bool:
    """Whether a client given ``apps=`` declares the extension (``None``: ``notebook_host_in_use()``)."""
    if apps is None:
        return notebook_host_in_use()
    if not isinstance(apps, bool):
        raise TypeError(f"apps must be True, False or None, not {apps!r}")
    return apps


def declared(capabilities: Optional[Mapping[str, Any]], apps: Optional[bool]) -> Optional[Mapping[str, Any]]:
    """``capabilities`` with the extension declared in its ``extensions`` when ``wanted(apps)``, unless
    an entry for it is there already (a hand-made one wins, whole); else ``capabilities`` as given."""
    if not wanted(apps):
        return capabilities
    capabilities = dict(capabilities or {})
    extensions = capabilities.get("extensions")
    extensions = dict(extensions) if isinstance(extensions, Mapping) else {}
    extensions.setdefault(UI_EXTENSION, {"mimeTypes": list(UI_SETTINGS["mimeTypes"])})
    return {**capabilities, "extensions": extensions}
