"""The API's smaller corners: ``meta=`` on every request, paging by hand, page caps, against the test
server and mocked HTTP servers (``responses``) that misbehave."""

from __future__ import annotations

import json
import sys
from typing import Any, Callable

import pytest
import responses

import mcpsync
from mcpsync.testing import server_config
from tests.helpers import scripted_server
from tests.interop.official import SERVER_SCRIPT

pytestmark = pytest.mark.usefixtures("server_in_thread")

URL = "http://mcp.test/mcp"
T = 10
VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
CAPABILITIES = {"tools": {}, "resources": {}, "prompts": {}, "completions": {}}
DISCOVER = {
    "resultType": "complete",
    "supportedVersions": ["2026-07-28"],
    "capabilities": CAPABILITIES,
    "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "mock", "version": "9"}},
}

Answer = Callable[[dict[str, Any]], Any]


def mocked(seen: list[dict[str, Any]], answer: Answer, discover: Any = DISCOVER) -> Callable[..., Any]:
    """A modern server over HTTP: ``server/discover`` gets ``discover``, every other request
    ``answer(message)`` (a result, or ``("error", object)``); each message goes to ``seen``."""

    def reply(request: Any) -> tuple[int, dict[str, str], str]:
        message = json.loads(request.body)
        seen.append(message)
        if "id" not in message:
            return (202, {}, "")
        result = discover if message["method"] == "server/discover" else answer(message)
        body = {"error": result[1]} if isinstance(result, tuple) else {"result": result}
        return (200, {"Content-Type": "application/json"}, json.dumps({"jsonrpc": "2.0", "id": message["id"], **body}))

    return reply


def sent(seen: list[dict[str, Any]], method: str) -> list[dict[str, Any]]:
    return [m.get("params") or {} for m in seen if m.get("method") == method]


def complete(**result: Any) -> dict[str, Any]:
    return {"resultType": "complete", **result}


# -- meta= --------------------------------------------------------------------------------------


def everything(message: dict[str, Any]) -> Any:
    method = message["method"]
    return {
        "tools/list": complete(tools=[{"name": "t", "inputSchema": {"type": "object"}}]),
        "resources/list": complete(resources=[{"uri": "a://1", "name": "one"}]),
        "resources/templates/list": complete(resourceTemplates=[{"uriTemplate": "a://{x}", "name": "x"}]),
        "resources/read": complete(contents=[{"uri": "a://1", "text": "hi"}]),
        "prompts/list": complete(prompts=[{"name": "p"}]),
        "prompts/get": complete(messages=[]),
        "completion/complete": complete(completion={"values": ["v"]}),
    }.get(method, complete())


@responses.activate
def test_meta_goes_with_every_typed_request_under_the_eras_own_keys():
    """Each typed method sends meta= as the request's _meta, beside the modern era's keys, which win."""
    seen: list[dict[str, Any]] = []
    responses.add_callback(responses.POST, URL, callback=mocked(seen, everything))
    meta = {"trace": "abc", VERSION_KEY: "1999-01-01"}
    with mcpsync.connect(URL, protocol="modern", auth=False, timeout=T) as client:
        client.ping(meta=meta)
        client.list_tools(meta=meta)
        client.list_resources(meta=meta)
        client.list_resource_templates(meta=meta)
        client.read_resource("a://1", meta=meta)
        client.list_prompts(meta=meta)
        client.get_prompt("p", meta=meta)
        client.complete({"type": "ref/prompt", "name": "p"}, ("a", "b"), meta=meta)
    methods = [
        "tools/list",
        "resources/list",
        "resources/templates/list",
        "resources/read",
        "prompts/list",
        "prompts/get",
        "completion/complete",
    ]
    for method in methods:
        (params,) = sent(seen, method)
        assert params["_meta"]["trace"] == "abc", method
        assert params["_meta"][VERSION_KEY] == "2026-07-28", method
    pings = sent(seen, "server/discover")
    assert pings[-1]["_meta"]["trace"] == "abc"


@responses.activate
def test_a_listing_with_meta_asks_the_server_and_leaves_the_cache_alone():
    """meta may change what a server lists: such a listing is never served from, nor put in, the cache."""
    seen: list[dict[str, Any]] = []

    def answer(message: dict[str, Any]) -> Any:
        name = "mine" if "who" in message["params"]["_meta"] else "all"
        return complete(tools=[{"name": name, "inputSchema": {"type": "object"}}], ttlMs=60_000)

    responses.add_callback(responses.POST, URL, callback=mocked(seen, answer))
    with mcpsync.connect(URL, protocol="modern", auth=False, timeout=T) as client:
        assert [t.name for t in client.list_tools()] == ["all"]
        assert [t.name for t in client.list_tools(meta={"who": "me"})] == ["mine"]
        assert [t.name for t in client.list_tools(meta={"who": "me"})] == ["mine"]  # asked again
        assert [t.name for t in client.list_tools()] == ["all"]  # the cache still holds the plain list
        assert [t.name for t in client.cached_lists["tools"]] == ["all"]
    assert len(sent(seen, "tools/list")) == 3


def test_meta_reaches_a_legacy_server_and_a_bad_meta_is_refused():
    """Over the handshake era too, meta= is the request's _meta; a meta that is not a mapping is a TypeError."""
    with mcpsync.connect(server_config("--legacy-only"), timeout=T) as client:
        assert client.era == "legacy"
        client.set_logging_level("info", meta={"trace": "x"})
        assert client.read_resource("text://greeting", meta={"trace": "x"}).text
        with pytest.raises(TypeError, match="meta must be a mapping"):
            client.list_prompts(meta=["not", "a", "mapping"])  # type: ignore[arg-type]


# -- pages --------------------------------------------------------------------------------------


def test_pages_by_hand_and_lazily_match_the_whole_listing():
    """list_*_page walks the cursors one request at a time, iter_* lazily; both give what list_* gives."""
    with mcpsync.connect(server_config("--page-size", "1"), timeout=T) as client:
        whole = [t.name for t in client.list_tools()]
        assert len(whole) > 2
        names, cursor, pages = [], None, 0
        while True:
            page = client.list_tools_page(cursor)
            pages += 1
            names += [t.name for t in page.items]
            cursor = page.next_cursor
            if cursor is None:
                break
        assert names == whole and pages == len(whole)
        assert repr(page) == "<Page 1 items>"
        assert [t.name for t in client.iter_tools()] == whole
        lazy = client.iter_prompts()
        assert next(lazy).name == client.list_prompts()[0].name
        lazy.close()
        assert [r.uri for r in client.iter_resources()] == [r.uri for r in client.list_resources()]
        assert client.list_resources_page().next_cursor is not None
        templates = client.list_resource_templates_page()
        assert [t.name for t in templates.items] == [t.name for t in client.list_resource_templates()][:1]
        assert [t.name for t in client.iter_resource_templates()] == [t.name for t in client.list_resource_templates()]
        assert client.list_prompts_page(client.list_prompts_page().next_cursor).items


def test_max_pages_stops_a_listing_with_an_error_that_says_where():
    """A listing longer than max_pages raises PageLimitExceeded (a ProtocolError) with the next cursor."""
    with mcpsync.connect(server_config("--page-size", "1"), timeout=T) as client:
        total = len(client.list_tools(cache=False))
        assert len(client.list_tools(cache=False, max_pages=total)) == total
        with pytest.raises(mcpsync.PageLimitExceeded) as caught:
            client.list_tools(cache=False, max_pages=2)
        assert isinstance(caught.value, mcpsync.ProtocolError)
        assert caught.value.method == "tools/list" and caught.value.max_pages == 2
        assert caught.value.next_cursor is not None and "max_pages" in str(caught.value)
        with pytest.raises(mcpsync.PageLimitExceeded):
            list(client.iter_tools(max_pages=1))
        with pytest.raises(ValueError, match="max_pages"):
            client.list_prompts(max_pages=0)


@responses.activate
def test_a_server_that_repeats_a_cursor_is_stopped_at_once():
    """A cursor loop (a, b, a, ...) ends the listing at the first repeat, whole or lazy."""
    seen: list[dict[str, Any]] = []
    following = {None: "a", "a": "b", "b": "a"}

    def loop(message: dict[str, Any]) -> Any:
        cursor = (message.get("params") or {}).get("cursor")
        return complete(prompts=[{"name": f"p{len(seen)}"}], nextCursor=following[cursor])

    responses.add_callback(responses.POST, URL, callback=mocked(seen, loop))
    with mcpsync.connect(URL, protocol="modern", auth=False, timeout=T) as client:
        with pytest.raises(mcpsync.ProtocolError, match="repeated nextCursor 'a'"):
            client.list_prompts()
        assert len(sent(seen, "prompts/list")) == 3
        with pytest.raises(mcpsync.ProtocolError, match="repeated nextCursor"):
            list(client.iter_prompts())
        assert client.list_prompts_page("b").next_cursor == "a"  # by hand, the caller decides


@responses.activate
def test_a_page_with_a_bad_cursor_or_items_is_a_protocol_error():
    """A nextCursor that is not a string, or items that are not a list, are refused on a single page too."""
    seen: list[dict[str, Any]] = []
    answers = iter([complete(tools=[], nextCursor=7), complete(tools={"name": "t"})])
    responses.add_callback(responses.POST, URL, callback=mocked(seen, lambda m: next(answers)))
    with mcpsync.connect(URL, protocol="modern", auth=False, timeout=T) as client:
        with pytest.raises(mcpsync.ProtocolError, match="bad nextCursor 7"):
            client.list_tools_page()
        with pytest.raises(mcpsync.ProtocolError, match="must be a list"):
            client.list_tools_page()
        with pytest.raises(TypeError, match="cursor"):
            client.list_tools_page(3)  # type: ignore[arg-type]


# -- -32042 -------------------------------------------------------------------------------------


def legacy(seen: list[dict[str, Any]], answer: Answer, capabilities: Any = None) -> Callable[..., Any]:
    """A 2025-11-25 server over HTTP (no server/discover; the handshake), answering as ``mocked``."""
    initialize = {
        "protocolVersion": "2025-11-25",
        "capabilities": CAPABILITIES if capabilities is None else capabilities,
        "serverInfo": {"name": "old", "version": "1"},
    }

    def answer_legacy(message: dict[str, Any]) -> Any:
        if message["method"] == "initialize":
            return initialize
        return answer(message)

    return mocked(seen, answer_legacy, discover=("error", {"code": -32601, "message": "Method not found"}))


def legacy_routes(seen: list[dict[str, Any]], answer: Answer, capabilities: Any = None) -> None:
    responses.add_callback(responses.POST, URL, callback=legacy(seen, answer, capabilities))
    responses.add(responses.GET, URL, status=405)
    responses.add(responses.DELETE, URL, status=204)


@responses.activate
def test_url_elicitation_required_carries_the_urls_to_open():
    """A -32042 to a tool call is a URLElicitationRequired with each URL, its id and message."""
    data = {
        "elicitations": [
            {"mode": "url", "url": "https://pay.example/1", "elicitationId": "e1", "message": "Pay first"},
            {"mode": "url", "url": "https://login.example", "elicitationId": "e2", "message": "Sign in"},
        ]
    }
    error = {"code": -32042, "message": "URL elicitation required", "data": data}
    legacy_routes([], lambda m: ("error", error))
    with mcpsync.connect(URL, protocol="auto", auth=False, timeout=T) as client:
        assert client.era == "legacy"
        with pytest.raises(mcpsync.URLElicitationRequired) as caught:
            client.call_tool("buy", {})
    exc = caught.value
    assert isinstance(exc, mcpsync.ServerError) and exc.code == -32042
    assert exc.elicitations == (
        mcpsync.URLElicitation("https://pay.example/1", "e1", "Pay first"),
        mcpsync.URLElicitation("https://login.example", "e2", "Sign in"),
    )
    assert exc.urls == ("https://pay.example/1", "https://login.example")
    assert str(exc).startswith("MCP error -32042: URL elicitation required")
    assert "https://pay.example/1, https://login.example" in str(exc)


@pytest.mark.parametrize(
    "data",
    [
        None,
        "open something",
        {"elicitations": "https://x.example"},
        {"elicitations": [7, None, {"url": 3}, {"message": "no url"}]},
    ],
)
def test_url_elicitation_required_with_odd_data_has_no_urls_and_still_reads(data):
    """Data that is not what the schema says gives no URLs, never an error of its own."""
    exc = mcpsync.ServerError.from_error_object({"code": -32042, "message": "go", "data": data})
    assert isinstance(exc, mcpsync.URLElicitationRequired)
    assert exc.elicitations == () and exc.urls == ()
    assert "named no URL" in str(exc)


def test_url_elicitation_required_fills_in_what_an_entry_lacks():
    """An entry with a URL but no id or message keeps its URL; the message lists at most three."""
    entries = [{"url": f"https://x.example/{n}", "elicitationId": 5} for n in range(5)]
    exc = mcpsync.ServerError.from_error_object({"code": -32042, "message": "go", "data": {"elicitations": entries}})
    assert exc.elicitations[0] == mcpsync.URLElicitation("https://x.example/0", "", "")
    assert str(exc).endswith("https://x.example/2 and 2 more)")


# -- sub-capabilities ---------------------------------------------------------------------------


def capabilities_sent(tmp_path: Any, name: str, **kwargs: Any) -> tuple[dict[str, Any], list[str]]:
    """The capabilities a legacy client declares in initialize with ``kwargs``, and the methods it sent."""
    log = tmp_path / f"{name}.jsonl"
    with mcpsync.connect(scripted_server({}, log), timeout=T, protocol="legacy", **kwargs) as client:
        if "roots" in kwargs:
            client.set_roots(["file:///y"])
    sent = [json.loads(line) for line in log.read_text().splitlines()]
    return sent[0]["params"]["capabilities"], [m.get("method") for m in sent]


def test_sub_capabilities_are_declared_from_the_handler_options(tmp_path):
    """sampling_tools / sampling_context / elicitation_modes / roots_list_changed shape what is declared."""
    declared, _ = capabilities_sent(tmp_path, "sampling", sampling=dict, sampling_tools=True, sampling_context=True)
    assert declared == {"sampling": {"context": {}, "tools": {}}}
    declared, _ = capabilities_sent(tmp_path, "sampling-plain", sampling=dict)
    assert declared == {"sampling": {}}
    declared, _ = capabilities_sent(tmp_path, "form", elicitation=dict, elicitation_modes=["form"])
    assert declared == {"elicitation": {"form": {}}}
    declared, _ = capabilities_sent(tmp_path, "url", elicitation=dict, elicitation_modes="url")
    assert declared == {"elicitation": {"url": {}}}
    declared, methods = capabilities_sent(tmp_path, "roots", roots=[], roots_list_changed=False)
    assert declared == {"roots": {}}
    assert "notifications/roots/list_changed" not in methods  # not declared, so not sent
    declared, _ = capabilities_sent(
        tmp_path, "hand-made", sampling=dict, sampling_tools=True, capabilities={"sampling": {"x": {}}}
    )
    assert declared == {"sampling": {"x": {}}}  # a hand-made entry wins, whole


def test_the_modern_era_declares_the_same_sub_capabilities():
    """The modern era's _meta carries the same client capabilities as the handshake would."""
    with mcpsync.connect(server_config(), timeout=T, sampling=dict, sampling_tools=True) as client:
        assert client.era == "modern"
        assert client.capabilities["sampling"] == {"tools": {}}


@pytest.mark.parametrize(
    "kwargs, complaint",
    [
        ({"sampling_tools": True}, "sampling_tools=True needs its handler"),
        ({"sampling_context": True}, "sampling_context=True"),
        ({"roots_list_changed": False}, "roots_list_changed=False"),
        ({"elicitation_modes": ["form"]}, "elicitation_modes="),
        ({"elicitation": dict, "elicitation_modes": ["forms"]}, "one or both of form, url"),
        ({"elicitation": dict, "elicitation_modes": []}, "one or both of form, url"),
    ],
)
def test_a_sub_capability_without_its_handler_or_an_unknown_mode_is_refused(kwargs, complaint):
    """An option that would declare what no handler answers is a ConfigurationError, and leaves no thread."""
    with pytest.raises(mcpsync.ConfigurationError, match=complaint):
        mcpsync.Client(mcpsync.create_transport(server_config()), **kwargs)


# -- the server's capabilities ------------------------------------------------------------------


def test_a_method_the_server_did_not_declare_is_sent_and_a_minus_32601_names_the_capability():
    """The test server declares resources without subscribe: subscribe_resource is sent anyway, and the
    server's -32601 is a CapabilityNotServed (a CapabilityNotDeclared and a ServerError) naming it."""
    with mcpsync.connect(server_config("--legacy-only"), timeout=T) as client:
        sent_before = client.stats.sent
        with pytest.raises(mcpsync.CapabilityNotDeclared) as caught:
            client.subscribe_resource("text://greeting")
        assert client.stats.sent == sent_before + 1
        exc = caught.value
        assert isinstance(exc, mcpsync.CapabilityNotServed) and isinstance(exc, mcpsync.ServerError)
        assert (exc.server, exc.method, exc.capability, exc.code) == (
            "test-server",
            "resources/subscribe",
            "resources.subscribe",
            -32601,
        )
        assert "'resources.subscribe'" in str(exc) and "resources/subscribe" in str(exc)


def test_strict_capabilities_refuse_an_undeclared_method_before_anything_is_sent():
    """With strict_capabilities=True, subscribe_resource raises CapabilityNotDeclared and sends nothing."""
    with mcpsync.connect(server_config("--legacy-only"), strict_capabilities=True, timeout=T) as client:
        sent_before = client.stats.sent
        with pytest.raises(mcpsync.CapabilityNotDeclared) as caught:
            client.subscribe_resource("text://greeting")
        assert client.stats.sent == sent_before
        assert not isinstance(caught.value, mcpsync.ServerError)
        assert "not sent" in str(caught.value)
        with pytest.raises(mcpsync.ServerError, match="-32601"):
            client.request("resources/subscribe", {"uri": "text://greeting"})  # the escape hatch: unchecked


def _typed_calls(client: mcpsync.Client) -> list[tuple[Callable[[], Any], str]]:
    return [
        (client.list_tools, "tools"),
        (lambda: client.call_tool("t"), "tools"),
        (client.list_tools_page, "tools"),
        (lambda: list(client.iter_tools()), "tools"),
        (client.list_resources, "resources"),
        (client.list_resource_templates, "resources"),
        (lambda: list(client.iter_resource_templates()), "resources"),
        (lambda: client.read_resource("a://1"), "resources"),
        (lambda: client.unsubscribe_resource("a://1"), "resources.subscribe"),
        (client.list_prompts, "prompts"),
        (client.list_prompts_page, "prompts"),
        (lambda: client.get_prompt("p"), "prompts"),
        (lambda: client.complete({"type": "ref/prompt", "name": "p"}, ("a", "")), "completions"),
        (lambda: client.set_logging_level("info"), "logging"),
    ]


@responses.activate
def test_every_typed_method_is_sent_to_a_server_that_declares_nothing():
    """A server that declares nothing and serves everything: each typed method sends its request and
    returns the answer."""
    seen: list[dict[str, Any]] = []
    legacy_routes(seen, everything, capabilities={})
    with mcpsync.connect(URL, protocol="auto", auth=False, timeout=T) as client:
        for call, _ in _typed_calls(client):
            before = len(seen)
            call()
            assert len(seen) > before
        assert client.list_tools()[0].name == "t"


@responses.activate
def test_every_typed_method_checks_its_capability_when_strict_and_request_does_not():
    """strict_capabilities=True against a server that declares nothing: each typed method names what it
    lacks and sends nothing; ping needs nothing."""
    seen: list[dict[str, Any]] = []
    legacy_routes(seen, everything, capabilities={})
    with mcpsync.connect(URL, protocol="auto", auth=False, timeout=T, strict_capabilities=True) as client:
        before = len(seen)
        for call, capability in _typed_calls(client):
            with pytest.raises(mcpsync.CapabilityNotDeclared) as caught:
                call()
            assert caught.value.capability == capability
        assert len(seen) == before
        client.ping()
        assert client.request("tools/list")["tools"][0]["name"] == "t"


@pytest.mark.official  # the official SDK's server, a process: a peer (not in make check)
def test_the_official_server_declares_what_its_methods_need():
    """Against the official SDK's server the checks let every declared feature through."""

    with mcpsync.connect([sys.executable, str(SERVER_SCRIPT), "stdio"], timeout=T) as client:
        assert client.list_tools() and client.list_prompts() and client.list_resources() is not None
        assert client.list_tools_page().items


# -- icons --------------------------------------------------------------------------------------


def test_icons_are_typed_on_tools_resources_templates_and_prompts_and_reprs_stay_short():
    """The test server's echo tool, greeting, template and prompt carry an icon; reprs do not show it."""
    with mcpsync.connect(server_config(), timeout=T) as client:
        (echo,) = [t for t in client.list_tools() if t.name == "echo"]
        greeting = next(r for r in client.list_resources() if r.uri == "text://greeting")
        (template,) = client.list_resource_templates()
        (prompt,) = client.list_prompts()
        pixel = next(r for r in client.list_resources() if r.uri == "binary://pixel")
    for item in (echo, greeting, template, prompt):
        (icon,) = item.icons
        assert icon.src.startswith("data:image/png;base64,")
        assert (icon.mime_type, icon.sizes, icon.theme) == ("image/png", ("1x1",), "light")
        assert "icon" not in repr(item).lower()
    assert pixel.icons == ()
    assert repr(echo) == "<Tool 'echo'(text): Return the text you send.>"
    assert repr(icon).startswith("<Icon 'data:image/png;base64,") and repr(icon).endswith(" image/png 1x1 light>")


@responses.activate
def test_odd_icons_are_left_out_and_the_server_info_has_its_own():
    """A malformed icon (no src, not an object) is left out, its entry kept; serverInfo's icons are typed."""
    discover = {
        **DISCOVER,
        "_meta": {
            "io.modelcontextprotocol/serverInfo": {
                "name": "mock",
                "version": "9",
                "icons": [{"src": "https://mock.example/icon.svg", "mimeType": "image/svg+xml", "sizes": ["any"]}],
            }
        },
    }
    odd = [7, {"mimeType": "image/png"}, {"src": 3}, {"src": "https://x.example/a.png", "sizes": "48x48", "theme": 1}]
    tools = [
        {"name": "t", "inputSchema": {"type": "object"}, "icons": odd},
        {"name": "u", "inputSchema": {}, "icons": {}},
    ]
    responses.add_callback(responses.POST, URL, callback=mocked([], lambda m: complete(tools=tools), discover=discover))
    with mcpsync.connect(URL, protocol="modern", auth=False, timeout=T) as client:
        t, u = client.list_tools()
        info = client.server_info
    assert t.icons == (mcpsync.Icon("https://x.example/a.png"),) and u.icons == ()
    assert info is not None and info.icons == (
        mcpsync.Icon("https://mock.example/icon.svg", "image/svg+xml", ("any",)),
    )
    assert repr(info) == "ServerInfo(name='mock', version='9', title=None)"


# -- skills -------------------------------------------------------------------------------------


def test_skills_page_by_hand_with_a_cap_and_meta_like_the_other_lists():
    """list_skills_page walks the skills' cursors; max_pages caps list_skills; meta= skips its cache."""
    with mcpsync.connect(server_config("--page-size", "1"), timeout=T) as client:
        whole = [s.uri for s in client.list_skills()]
        assert len(whole) > 1
        uris, cursor = [], None
        while True:
            page = client.list_skills_page(cursor, meta={"trace": "s"})
            uris += [s.uri for s in page.items]
            cursor = page.next_cursor
            if cursor is None:
                break
        assert uris == whole
        with pytest.raises(mcpsync.PageLimitExceeded, match="skills/list"):
            client.list_skills(cache=False, max_pages=1)
        assert [s.uri for s in client.list_skills(meta={"trace": "s"})] == whole
    with mcpsync.connect(server_config("--no-skills"), timeout=T) as client:
        with pytest.raises(mcpsync.ExtensionNotDeclared):
            client.list_skills_page()
