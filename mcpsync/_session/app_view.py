"""An MCP App's view of one tool call (``AppView``, what ``CallToolResult.ui`` gives) and the security
policy a host renders it under: the Content-Security-Policy built from the resource's ``_meta.ui.csp``
alone, the iframe ``sandbox`` and ``allow`` attributes, and the ``srcdoc`` with the policy in it.

No I/O here: the view is made by ``app_resources`` from what the client read.

The rules (docs/api.md, "MCP Apps: a tool's view"): ``default-src 'none'``; scripts and styles inline
and from ``resourceDomains``; images, fonts and media from ``resourceDomains`` (images and media from
``data:`` too, as the extension's restrictive default has it); ``connect-src`` only ``connectDomains``,
``frame-src`` only ``frameDomains``, ``base-uri`` only ``baseUriDomains``, each ``'none'`` when empty.
Every domain is checked first: an origin or host pattern (``https://api.example.com``,
``https://*.example.com:8443``, ``cdn.example.com``), no quotes, no ``;``, no spaces, no bare ``*``,
no scheme-only source (``data:``, ``blob:``); no wildcard over a whole public suffix (``*.com``,
``https://*.co.uk``, ``*.github.io``: as open as the bare ``*``; the Public Suffix List as the
``publicsuffixlist`` package ships it); no loopback or private host (``localhost``, ``127.0.0.1:*``,
``http://192.168.1.1:*``, ``*.local``) unless the MCP server itself is local (stdio, or an HTTP server
on such a host): a view must not reach the user's machine or network for a remote server. A value
that fails is dropped with a ``ProtocolWarning`` saying why.
The sandbox is ``allow-scripts`` alone: never ``allow-same-origin`` (the view would share the host
page's origin), never ``allow-top-navigation``, no popups, no forms.
"""

from __future__ import annotations

import functools
import html as html_text
import json
import re
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Optional

from .._core.errors import ProtocolWarning
from .apps import CSP_LISTS, UiResourceMeta

__all__ = ["AppView", "checked_csp", "checked_domains", "content_security_policy", "policy_of", "with_policy"]

#: The one sandbox token a view gets: its scripts run, in an origin of its own (opaque).
SANDBOX = "allow-scripts"
#: The Permission Policy feature of each permission a view may ask for (the iframe's ``allow``).
PERMISSION_FEATURES = {
    "camera": "camera",
    "microphone": "microphone",
    "geolocation": "geolocation",
    "clipboardWrite": "clipboard-write",
}
#: An origin or host pattern: an optional http(s)/ws(s) scheme, a host (``*.`` may lead), an optional port.
_DOMAIN = re.compile(
    r"(?:(?:https?|wss?)://)?"
    r"(?:\*\.)?[A-Za-z0-9](?:[A-Za-z0-9-]{0,62})(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}))*"
    r"(?::(?:[0-9]{1,5}|\*))?/?",
    re.ASCII,
)
#: A leading doctype (after white space and a byte-order mark), kept first when the policy goes in.
_DOCTYPE = re.compile(r"\A[\ufeff\s]*(<!doctype[^>]*>)", re.IGNORECASE)


def checked_domains(values: tuple[str, ...], kind: str, where: str, server_is_local: bool = False) -> list[str]:
    """The ``values`` of one CSP list that a view may be given (the module docstring's rules); each
    other is dropped with a ``ProtocolWarning`` naming it and why (``kind``: its wire name; ``where``:
    the resource; ``server_is_local``: loopback and private hosts are allowed)."""
    kept = []
    for value in values:
        why = _refused(value, server_is_local)
        if why is None:
            kept.append(value.rstrip("/"))
        else:
            warnings.warn(f"{where}: _meta.ui.csp.{kind} value {value!r:.80} {why}; dropped", ProtocolWarning, 3)
    return kept


def _refused(value: str, server_is_local: bool) -> Optional[str]:
    """Why ``value`` may not be in a view's policy, or ``None``."""
    from .._auth.addresses import is_local  # lazily: the package imports requests, `import mcpsync` stays light

    if not _DOMAIN.fullmatch(value):
        return "is no origin or host pattern"
    host = _HOST.sub("", value).lower()
    if host.startswith("*."):
        suffix = host[2:]
        if _is_public_suffix(suffix):
            return f"covers the whole public suffix {suffix!r} (as open as '*')"
    if not server_is_local and is_local(host[2:] if host.startswith("*.") else host):
        return "is a loopback or private host, and the MCP server is not local"
    return None


#: A domain's scheme, port and path, to leave its host.
_HOST = re.compile(r"\A[a-z]+://|(?::(?:[0-9]*|\*))?/?\Z", re.IGNORECASE)


@functools.cache
def _suffixes() -> Any:
    """The Public Suffix List (``publicsuffixlist``, imported on the first wildcard), or ``None``."""
    try:
        from publicsuffixlist import PublicSuffixList
    except ImportError:
        return None
    return PublicSuffixList()


def _is_public_suffix(domain: str) -> bool:
    """Whether ``domain`` is a public suffix (``com``, ``co.uk``, ``github.io``; an unknown one counts):
    without the list at hand every wildcard counts as one, so none is let through unjudged."""
    suffixes = _suffixes()
    return True if suffixes is None else bool(suffixes.is_public(domain))


def is_local_server(client: Any) -> bool:
    """Whether ``client``'s MCP server runs on this machine or a private network: stdio, or HTTP to a
    loopback or private host (``False`` without a client)."""
    transport = getattr(client, "transport", None)
    if transport is None:
        return False
    if getattr(transport, "kind", "") == "stdio":
        return True
    from urllib.parse import urlsplit  # lazily, as is_local: `import mcpsync` needs neither

    from .._auth.addresses import is_local

    url = getattr(transport, "url", None)
    return isinstance(url, str) and is_local(urlsplit(url).hostname or "")


def checked_csp(
    meta: UiResourceMeta, where: str = "UI resource", server_is_local: bool = False
) -> dict[str, list[str]]:
    """``meta.csp``'s four lists by their wire names (``connectDomains``, ...), each value checked
    (``checked_domains``: a bad one dropped with a ``ProtocolWarning``)."""
    return {
        wire: checked_domains(getattr(meta.csp, name), wire, where, server_is_local) for wire, name in CSP_LISTS.items()
    }


def content_security_policy(meta: UiResourceMeta, where: str = "UI resource", server_is_local: bool = False) -> str:
    """The Content-Security-Policy for a view whose resource says ``meta`` (the module docstring's rules)."""
    return policy_of(checked_csp(meta, where, server_is_local))


def policy_of(lists: Mapping[str, list[str]]) -> str:
    """The Content-Security-Policy of ``checked_csp``'s lists (the module docstring's rules)."""
    resources = lists["resourceDomains"]
    connect = lists["connectDomains"]
    frames = lists["frameDomains"]
    bases = lists["baseUriDomains"]

    def sources(*values: str) -> str:
        return " ".join(values) if values else "'none'"

    directives = [
        "default-src 'none'",
        f"script-src {sources(chr(39) + 'unsafe-inline' + chr(39), *resources)}",
        f"style-src {sources(chr(39) + 'unsafe-inline' + chr(39), *resources)}",
        f"img-src {sources('data:', *resources)}",
        f"font-src {sources(*resources)}",
        f"media-src {sources('data:', *resources)}",
        f"connect-src {sources(*connect)}",
        f"frame-src {sources(*frames)}",
        f"base-uri {sources(*bases)}",
        # CSP Level 3's: no WebRTC, a channel connect-src does not cover. Debian's Chromium 156 does not
        # honour it yet (docs/api.md: what a policy cannot stop); a browser that does, blocks.
        "webrtc 'block'",
    ]
    return "; ".join(directives)


#: The host's first script in a view, before any of the view's own: it keeps the host's window and,
#: when the view's document is about to go (``beforeunload``: a navigation of its frame starts, before
#: its request is even sent, so before any next page exists) and when it goes (``pagehide``), tells
#: the host, which then cuts the view off: a page the view navigated to never speaks for it, however
#: early, stopped or stalled the navigation. The view cannot take the listeners back (it has no
#: reference to them) nor reach the window through a ``parent`` it replaced.
#: A host that puts the view in several frames (a notebook cell shown twice) replaces ``VIEW_MARK`` in
#: ``srcdoc()`` (its first occurrence: the guard's) with an id of its own for each frame, so that one
#: frame's notice cuts off that frame alone.
VIEW_MARK = "__MCPSYNC_VIEW__"
PAGEHIDE_NOTICE = {"mcpsync": "pagehide", "view": VIEW_MARK}
_GUARD = (
    "<script>(function () { var host = window.parent;"
    f' function leaving() {{ host.postMessage({json.dumps(PAGEHIDE_NOTICE)}, "*"); }}'
    ' window.addEventListener("beforeunload", leaving, true); window.addEventListener("pagehide", leaving, true);'
    " })();</script>"
)


def with_policy(document: str, policy: str) -> str:
    """``document`` with ``policy`` as a ``<meta http-equiv="Content-Security-Policy">`` that is the
    first element of its ``<head>``, whatever the document holds (comments, a fake ``<head>``), and the
    host's guard script (``PAGEHIDE_NOTICE``) right after it: they go before everything but a leading
    doctype, where the HTML parser opens the head for them; the document's own ``<html>`` and
    ``<head>`` tags then merge into the ones already open."""
    meta = f'<meta http-equiv="Content-Security-Policy" content="{html_text.escape(policy, quote=True)}">' + _GUARD
    found = _DOCTYPE.match(document)
    if found is None:
        return "<!DOCTYPE html>" + meta + document
    return found.group(1) + meta + document[found.end() :]


@dataclass(frozen=True)
class AppView:
    """What a host needs to render a tool call's MCP App view: the call, the view's HTML, its policy.

    Attributes:
        tool_name: the tool that was called.
        arguments: the arguments it was called with.
        result: the ``CallToolResult``.
        resource_uri: the view's ``ui://`` resource.
        html: the view's HTML, as the server sent it (render ``srcdoc()``, never this).
        meta: the resource's ``_meta.ui`` (``UiResourceMeta``).
        tool: the tool as the server listed it (a dict: ``hostContext.toolInfo.tool``).
        client: the ``Client`` that made the call: the view's requests go to it (``AppBridge``).
    """

    tool_name: str
    arguments: Mapping[str, Any]
    result: Any
    resource_uri: str
    html: str
    meta: UiResourceMeta = field(default_factory=UiResourceMeta)
    tool: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)
    client: Any = field(default=None, repr=False, compare=False)

    @cached_property
    def csp_domains(self) -> dict[str, list[str]]:
        """``meta.csp``'s lists by their wire names, each value checked once per view (``checked_csp``):
        what the policy is built from, and what a host tells the view in ``ui/initialize``."""
        return checked_csp(self.meta, f"UI resource {self.resource_uri!r}", is_local_server(self.client))

    @property
    def content_security_policy(self) -> str:
        """The Content-Security-Policy built from ``meta.csp`` alone (the module docstring's rules)."""
        return policy_of(self.csp_domains)

    @property
    def sandbox(self) -> str:
        """The iframe's ``sandbox`` attribute: ``allow-scripts``, nothing more (the permissions a view
        asks for are Permission Policy features: ``allow``)."""
        return SANDBOX

    @property
    def allow(self) -> str:
        """The iframe's ``allow`` attribute: the Permission Policy features of the permissions the
        resource asks for (``camera; microphone``, say); ``""`` for none. A host may grant fewer."""
        return "; ".join(PERMISSION_FEATURES[name] for name in self.meta.permissions)

    def srcdoc(self) -> str:
        """The HTML to put in the iframe's ``srcdoc``: the view with its Content-Security-Policy as the
        first element of its ``<head>``."""
        return with_policy(self.html, self.content_security_policy)

    def __repr__(self) -> str:
        return f"<AppView {self.tool_name!r} {self.resource_uri!r}, {len(self.html)} characters of HTML>"
