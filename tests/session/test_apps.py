"""MCP Apps in the session layer: the extension's types read liberally, the declaration in both eras,
and ``result.ui`` with its security policy, against the bundled test server."""

from __future__ import annotations

import warnings
from typing import Optional

import pytest

import mcpsync
from mcpsync import AppView, ProtocolWarning, ToolUi, UiCsp, UiResourceMeta
from mcpsync._session.app_resources import AppResources
from mcpsync._session.app_view import with_policy
from mcpsync.testing import server_config

pytestmark = pytest.mark.usefixtures("server_in_thread")

T = 10
UI = "io.modelcontextprotocol/ui"


def tool(meta: object) -> mcpsync.Tool:
    return mcpsync.Tool.from_dict({"name": "t", "inputSchema": {"type": "object"}, "_meta": meta})


def test_a_tools_ui_is_read_with_its_default_visibility():
    """_meta.ui with a resourceUri and no visibility: the view's URI, for the model and the app."""
    assert tool({"ui": {"resourceUri": "ui://a/b"}}).ui == ToolUi("ui://a/b", ("model", "app"))
    assert tool({"ui": {"visibility": ["app"]}}).ui == ToolUi(None, ("app",))
    assert tool({"other": 1}).ui is None
    assert tool({"ui/resourceUri": "ui://old"}).ui == ToolUi("ui://old", ("model", "app"))  # the deprecated form


def test_a_malformed_tool_ui_is_left_out_with_a_warning_not_an_error():
    """A resourceUri that is no ui:// URI and a visibility that is no list: each left out, warned of."""
    with pytest.warns(ProtocolWarning, match="resourceUri"):
        assert tool({"ui": {"resourceUri": "https://evil.example/x"}}).ui == ToolUi(None, ("model", "app"))
    with pytest.warns(ProtocolWarning, match="visibility"):
        assert tool({"ui": {"resourceUri": "ui://a", "visibility": "app"}}).ui == ToolUi("ui://a", ())
    with pytest.warns(ProtocolWarning, match="_meta.ui must be an object"):
        assert tool({"ui": 7}).ui == ToolUi(None, ("model", "app"))


def test_a_resources_meta_is_read_liberally():
    """Good fields kept, bad ones (a csp list that is a string, an unknown permission, a border that is
    a string) left out with a warning."""
    meta = {
        "ui": {
            "csp": {"connectDomains": ["https://api.example.com"], "resourceDomains": "https://cdn.example.com"},
            "permissions": {"camera": {}, "teleport": {}},
            "domain": "x.example",
            "prefersBorder": "yes",
        }
    }
    with pytest.warns(ProtocolWarning) as caught:
        read = UiResourceMeta.from_meta(meta)
    assert read == UiResourceMeta(UiCsp(connect_domains=("https://api.example.com",)), ("camera",), "x.example", None)
    said = " ".join(str(w.message) for w in caught)
    assert "resourceDomains" in said and "teleport" in said and "prefersBorder" in said


def view(
    csp: Optional[UiCsp] = None, permissions: tuple[str, ...] = (), html: str = "<html><body>x</body></html>"
) -> AppView:
    return AppView("t", {}, None, "ui://v", html, UiResourceMeta(csp or UiCsp(), permissions))


def test_the_policy_allows_nothing_but_what_the_csp_declares():
    """No csp: every source 'none' but inline scripts and styles (and data: images and media)."""
    assert view().content_security_policy == (
        "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; "
        "font-src 'none'; media-src data:; connect-src 'none'; frame-src 'none'; base-uri 'none'; webrtc 'block'"
    )
    policy = view(
        UiCsp(
            connect_domains=("https://api.example.com", "wss://live.example.com:8443"),
            resource_domains=("https://*.cdn.example.com",),
            frame_domains=("https://www.youtube.com",),
            base_uri_domains=("https://base.example.com",),
        )
    ).content_security_policy
    directives = dict(d.split(" ", 1) for d in policy.split("; "))
    assert directives["connect-src"] == "https://api.example.com wss://live.example.com:8443"
    assert directives["script-src"] == "'unsafe-inline' https://*.cdn.example.com"
    assert directives["frame-src"] == "https://www.youtube.com"
    assert directives["base-uri"] == "https://base.example.com"


@pytest.mark.parametrize(
    "bad",
    ["*", "'self'", "https://a.com; script-src *", "https://a.com https://b.com", "data:", "'unsafe-eval'", 'a"b'],
)
def test_a_domain_that_could_widen_the_policy_is_dropped_with_a_warning(bad):
    """Quotes, ';', spaces, a bare '*' or a scheme alone never reach the policy."""
    with pytest.warns(ProtocolWarning, match="dropped"):
        policy = view(UiCsp(connect_domains=(bad, "https://ok.example.com"))).content_security_policy
    assert "connect-src https://ok.example.com;" in policy
    assert policy.count(";") == 9 and "*" not in policy and "unsafe-eval" not in policy


WIDE = ["*.com", "https://*.com", "http://*.net:*", "wss://*.io", "https://*.co.uk", "*.github.io", "*.zz"]
PRIVATE = ["http://*.localhost:*", "127.0.0.1:*", "http://192.168.1.1:*", "localhost:3000", "10.0.0.1", "*.local"]


class Transport:
    """What ``is_local_server`` reads of a client's transport."""

    def __init__(self, kind: str, url: Optional[str] = None) -> None:
        self.kind, self.url = kind, url


class Client:
    def __init__(self, kind: str, url: Optional[str] = None) -> None:
        self.transport = Transport(kind, url)


def connect_sources(values: list[str], client: object = None) -> tuple[list[str], str]:
    """The connect-src of a view whose resource declares ``values`` (and one good domain), from ``client``'s
    server, and the warnings' text."""
    csp = UiCsp(connect_domains=(*values, "https://api.example.com"))
    made = AppView("t", {}, None, "ui://v", "<p>v</p>", UiResourceMeta(csp), {}, client)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        policy = made.content_security_policy
    assert all(issubclass(w.category, ProtocolWarning) for w in caught)
    directives = dict(d.split(" ", 1) for d in policy.split("; "))
    return directives["connect-src"].split(), " ".join(str(w.message) for w in caught)


@pytest.mark.parametrize("wide", WIDE)
def test_a_wildcard_over_a_whole_public_suffix_is_dropped_whatever_the_server(wide: str) -> None:
    """A wildcard wider than a registrable domain (the Public Suffix List's rules) is as open as '*':
    dropped, with a ``ProtocolWarning``."""
    for client in (None, Client("stdio"), Client("http", "https://mcp.example.com/mcp")):
        kept, said = connect_sources([wide], client)
        assert kept == ["https://api.example.com"], client
        assert "covers the whole public suffix" in said and "dropped" in said


@pytest.mark.parametrize("private", PRIVATE)
def test_a_loopback_or_private_host_is_dropped_unless_the_server_is_local(private: str) -> None:
    """For a remote server: dropped, with a ``ProtocolWarning``; for a local one: kept."""
    remote = Client("http", "https://mcp.example.com/mcp")
    kept, said = connect_sources([private], remote)
    assert kept == ["https://api.example.com"] and "dropped" in said
    for local in (Client("stdio"), Client("http", "http://127.0.0.1:8000/mcp"), Client("sse", "http://10.1.2.3/sse")):
        kept, _ = connect_sources([private], local)
        if private in ("http://*.localhost:*", "*.local"):  # wildcards over a public suffix: never
            assert kept == ["https://api.example.com"]
        else:
            assert kept == [private, "https://api.example.com"], local


def test_a_wildcard_under_a_registrable_domain_is_kept() -> None:
    kept, said = connect_sources(["https://*.example.com:8443", "*.cdn.example.co.uk", "wss://*.live.example.io"])
    assert kept == [
        "https://*.example.com:8443",
        "*.cdn.example.co.uk",
        "wss://*.live.example.io",
        "https://api.example.com",
    ]
    assert said == ""


def test_the_sandbox_never_allows_same_origin_or_top_navigation():
    """allow-scripts alone, whatever the permissions; they become the iframe's allow features."""
    asked = view(permissions=("camera", "clipboardWrite"))
    assert asked.sandbox == "allow-scripts"
    assert asked.allow == "camera; clipboard-write"


@pytest.mark.parametrize(
    "html",
    [
        "<!DOCTYPE html><html><head><title>x</title></head><body></body></html>",
        "<!-- <head> --><html><head></head></html>",  # a fake head in a comment
        "<body>no head at all</body>",
    ],
)
def test_the_policy_is_the_first_element_of_head_whatever_the_document(html):
    """The meta goes before everything but a leading doctype: the parser opens <head> for it."""
    doc = view(html=html).srcdoc()
    body = doc[len("<!DOCTYPE html>") :] if doc.upper().startswith("<!DOCTYPE HTML>") else doc
    assert body.startswith('<meta http-equiv="Content-Security-Policy" content="default-src &#x27;none&#x27;;')
    assert with_policy(html, "p").count("Content-Security-Policy") == 1


@pytest.mark.parametrize("protocol", ["legacy", "modern"])
@pytest.mark.parametrize("apps", [True, False])
def test_the_extension_is_declared_in_both_eras_when_asked(protocol, apps):
    """Client(apps=True) declares io.modelcontextprotocol/ui with the MCP App MIME type; the test
    server's show_dashboard says what it was told (initialize, or the modern request's _meta)."""
    with mcpsync.connect(server_config(), protocol=protocol, apps=apps, timeout=T) as client:
        told = client.call_tool("show_dashboard", timeout=T).structured_content["uiExtension"]
    assert told == ({"mimeTypes": ["text/html;profile=mcp-app"]} if apps else None)


def test_outside_a_notebook_the_default_declares_nothing():
    """apps=None, not in a kernel: not declared (a terminal cannot show a view)."""
    client = mcpsync.Client(mcpsync.create_transport(server_config()))
    try:
        assert UI not in client.capabilities.get("extensions", {})
    finally:
        client.close()


def test_result_ui_is_the_tools_view_read_once_per_client():
    """show_dashboard has a view: its HTML from resources/read, its meta, the call; a second call's
    view comes from the cache (the server counts the reads); a tool without a view has none."""
    with mcpsync.connect(server_config(), timeout=T) as client:
        result = client.call_tool("show_dashboard", {"title": "q"}, timeout=T)
        app = result.ui
        assert app is not None and result.ui is app  # the same view while it is held
        assert app.tool_name == "show_dashboard" and app.arguments == {"title": "q"} and app.result is result
        assert app.resource_uri == "ui://dashboard/view.html" and 'id="call"' in app.html
        assert app.meta.csp.connect_domains == ("https://api.dashboard.invalid",) and app.meta.prefers_border
        assert "connect-src https://api.dashboard.invalid;" in app.content_security_policy
        assert app.tool["name"] == "show_dashboard" and app.client is client
        assert client.call_tool("show_dashboard", timeout=T).ui is not None
        reads = client.call_tool("resources_read", timeout=T).structured_content
        assert [uri for uri in reads["read"] if uri.startswith("ui://")] == ["ui://dashboard/view.html"]
        assert client.call_tool("echo", {"text": "x"}, timeout=T).ui is None
        AppResources.of(client).forget()
        assert client.call_tool("show_dashboard", timeout=T).ui is not None
        reads = client.call_tool("resources_read", timeout=T).structured_content
        assert len([uri for uri in reads["read"] if uri.startswith("ui://")]) == 2


def test_a_views_meta_missing_from_its_read_is_taken_from_the_listing_the_client_holds():
    """A minimal server that puts the view's ``_meta.ui`` only on its ``resources/list`` entry (the spec
    allows either place): once the client holds that listing, the view's policy comes from it; before,
    the view has an empty policy (no request is made to find one)."""
    from tests.helpers import scripted_server

    view = "ui://minimal/view.html"
    listing = {"tools": [{"name": "show", "inputSchema": {"type": "object"}, "_meta": {"ui": {"resourceUri": view}}}]}
    resources = {
        "resources": [
            {"uri": view, "name": "view", "_meta": {"ui": {"csp": {"connectDomains": ["https://api.minimal.invalid"]}}}}
        ]
    }
    read = {"contents": [{"uri": view, "mimeType": "text/html;profile=mcp-app", "text": "<html></html>"}]}
    answer = {"content": [{"type": "text", "text": "shown"}]}
    script = {"tools/list": [listing], "resources/list": [resources], "resources/read": [read], "tools/call": [answer]}
    with mcpsync.connect(scripted_server(script), timeout=T) as client:
        assert client.call_tool("show", timeout=T).ui.meta.csp.connect_domains == ()  # type: ignore[union-attr]
        AppResources.of(client).forget()
        client.list_resources(timeout=T)
        app = client.call_tool("show", timeout=T).ui
        assert app is not None and app.meta.csp.connect_domains == ("https://api.minimal.invalid",)
        assert "connect-src https://api.minimal.invalid;" in app.content_security_policy


def test_a_result_is_data_that_names_its_client_and_finds_it_only_while_it_lives():
    """from_dict knows no client: no view. A client's result carries its origin as data (a key and the
    arguments): a pickled copy equals it and finds the same live client's view; once the client is
    gone, the copy and the result name nobody, and have no view (nothing here keeps a client alive)."""
    import gc
    import pickle
    import weakref

    from mcpsync._session.models import CallOrigin

    assert mcpsync.CallToolResult.from_dict({"content": []}, "show_dashboard").ui is None
    with mcpsync.connect(server_config(), timeout=T) as client:
        result = client.call_tool("show_dashboard", {"title": "q"}, timeout=T)
        copy = pickle.loads(pickle.dumps(result))
        assert copy == result and copy.origin == result.origin
        assert isinstance(copy.origin, CallOrigin) and copy.origin.arguments == {"title": "q"}
        view = copy.ui
        assert view is not None and view.client is client and view.result is copy
        assert "_app" not in "".join(vars(result))  # nothing hidden beside the fields
        del view
    gone = weakref.ref(client)
    del client
    gc.collect()
    assert gone() is None, "a result, its origin or the view caches kept the client alive"
    assert result.ui is None and copy.ui is None


def test_warnings_are_not_raised_for_a_good_view():
    """The bundled view's meta is well formed: reading it warns of nothing."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with mcpsync.connect(server_config(), timeout=T) as client:
            assert client.call_tool("show_dashboard", timeout=T).ui.srcdoc().count("Content-Security-Policy") == 1
