"""Resources, prompts, completion and logging, against our test server and the official SDK's, over stdio and HTTP."""

import logging
import sys
import threading
import time

import pytest

import mcpsync
from mcpsync.testing import server_config
from tests.helpers import cancelled_on_server
from tests.http_server import running_http_server
from tests.interop.official import SERVER_SCRIPT

pytestmark = pytest.mark.usefixtures("server_in_thread")

T = 20


@pytest.fixture(scope="module", params=["stdio", "http"])
def target(request):
    if request.param == "stdio":
        yield server_config(name="features")
    else:
        with running_http_server() as base:
            yield {"type": "http", "url": f"{base}/mcp"}


@pytest.fixture
def client(target):
    with mcpsync.connect(target, name="features", timeout=T) as c:
        yield c


def test_resources_and_templates(client):
    resources = {r.uri: r for r in client.list_resources(timeout=T)}
    assert resources["text://greeting"].title == "A greeting"
    assert resources["binary://pixel"].mime_type == "image/png"
    (template,) = client.list_resource_templates(timeout=T)
    assert template.uri_template == "echo://{text}" and template.name == "echo"


def test_read_text_binary_and_templated_resources(client):
    text = client.read_resource("text://greeting", timeout=T)
    assert text.text == "Hello from a resource" and not text.contents[0].is_binary
    binary = client.read_resource("binary://pixel", timeout=T).contents[0]
    assert binary.is_binary and binary.data.startswith(b"\x89PNG\r\n\x1a\n")
    assert client.read_resource("echo://anything", timeout=T).text == "anything"
    with pytest.raises(mcpsync.ServerError) as info:
        client.read_resource("nope://x", timeout=T)
    assert info.value.code == -32002 and info.value.data == {"uri": "nope://x"}


def test_prompts(client):
    (prompt,) = client.list_prompts(timeout=T)
    assert prompt.name == "greet" and [(a.name, a.required) for a in prompt.arguments] == [
        ("name", True),
        ("style", False),
    ]
    result = client.get_prompt("greet", {"name": "Ada", "style": "formal"}, timeout=T)
    assert result.description == "A greeting request"
    assert [(m.role, m.text) for m in result.messages] == [("user", "Write a formal greeting for Ada.")]
    with pytest.raises(mcpsync.ServerError, match="Missing required argument: name"):
        client.get_prompt("greet", {}, timeout=T)
    with pytest.raises(TypeError, match="prompt arguments must be strings"):
        client.get_prompt("greet", {"name": 3})  # type: ignore[dict-item]


def test_completion_for_prompts_and_templates(client):
    names = client.complete({"type": "ref/prompt", "name": "greet"}, ("name", "Al"), timeout=T)
    assert names.values == ["Alan", "Alonzo"] and names.total == 2 and not names.has_more
    words = client.complete(
        {"type": "ref/resource", "uri": "echo://{text}"}, {"name": "text", "value": "he"}, timeout=T
    )
    assert words.values == ["hello", "help"]


def test_log_messages_reach_python_logging_and_the_callback(target, caplog):
    seen = []
    done = threading.Event()

    def on_log(level, source, data):
        seen.append((level, data))
        if data == "last":
            done.set()

    with caplog.at_level(logging.DEBUG, logger="mcpsync.server.features"):
        with mcpsync.connect(target, name="features", timeout=T, on_log=on_log) as client:
            client.set_logging_level("warning", timeout=T)
            for level, text in [("info", "dropped by the server"), ("error", "kept"), ("emergency", "last")]:
                client.call_tool("log", {"message": text, "level": level}, timeout=T)
            assert done.wait(T)
            with pytest.raises(ValueError, match="unknown logging level 'loud'"):
                client.set_logging_level("loud")
    assert seen == [("error", "kept"), ("emergency", "last")]
    records = [(r.levelno, r.getMessage()) for r in caplog.records if r.name == "mcpsync.server.features"]
    assert (logging.ERROR, "[mcpsync-test-server] kept") in records
    assert (logging.CRITICAL + 10, "[mcpsync-test-server] last") in records


# -- the official SDK's server ------------------------------------------------------------------


def official_target(mode, port=None):
    script = str(SERVER_SCRIPT)
    return [sys.executable, script, mode] + ([str(port)] if port else [])


@pytest.mark.official
def test_official_server_resources_prompts_and_completion():
    pytest.importorskip("mcp.server.mcpserver")
    with mcpsync.connect(official_target("stdio"), name="official", timeout=T) as client:
        uris = {r.uri for r in client.list_resources(timeout=T)}
        assert {"data://greeting", "data://pixel"} <= uris
        assert [t.uri_template for t in client.list_resource_templates(timeout=T)] == ["greet://{name}"]
        assert client.read_resource("data://greeting", timeout=T).text == "hello from a resource"
        assert client.read_resource("data://pixel", timeout=T).contents[0].data == bytes(
            [137, 80, 78, 71, 13, 10, 26, 10]
        )
        assert client.read_resource("greet://Ada", timeout=T).text == "hello, Ada"
        (prompt,) = client.list_prompts(timeout=T)
        assert prompt.name == "review" and prompt.arguments[0].required
        got = client.get_prompt("review", {"code": "x = 1"}, timeout=T)
        assert got.messages[0].text == "Please review: x = 1"
        assert client.complete({"type": "ref/prompt", "name": "review"}, ("code", "A"), timeout=T).values == [
            "Ada",
            "Alan",
        ]


# -- progress and the timeouts it moves ----------------------------------------------------------


def test_progress_reaches_the_callback_on_the_dispatch_thread_before_the_call_returns(client):
    seen = []

    def on_progress(progress, total, message):
        time.sleep(0.05)  # a slow callback (a progress bar redrawing) still sees every step before the result
        seen.append((progress, total, message, threading.current_thread().name))

    result = client.call_tool("progress", {"steps": 3, "delay": 0}, on_progress=on_progress, timeout=T)
    assert result.text == "done"
    assert [s[:3] for s in seen] == [(1, 3, "step 1 of 3"), (2, 3, "step 2 of 3"), (3, 3, "step 3 of 3")]
    assert {s[3] for s in seen} == {"mcpsync-dispatch-features"}


@pytest.mark.slow("the tool works 2.4 s (8 steps of 0.3 s) under a 1.2 s timeout")
def test_progress_keeps_a_slow_call_alive(client):
    """2.4 s of work with a 1.2 s timeout succeeds while progress arrives every 0.3 s."""
    result = client.call_tool("progress", {"steps": 8, "delay": 0.3}, on_progress=lambda *a: None, timeout=1.2)
    assert result.text == "done"


def test_without_reset_the_timeout_holds_and_the_server_is_told(client):
    with pytest.raises(mcpsync.RequestTimeout, match=r"after 0\.6s"):
        client.call_tool(
            "progress",
            {"steps": 6, "delay": 0.25},
            on_progress=lambda *a: None,
            timeout=0.6,
            progress_resets_timeout=False,
        )
    assert len(cancelled_on_server(client)) == 1


def test_the_hard_cap_is_never_extended_by_progress(client):
    started = time.monotonic()
    with pytest.raises(mcpsync.RequestTimeout, match=r"after 0\.7s"):
        client.call_tool(
            "progress", {"steps": 20, "delay": 0.1}, on_progress=lambda *a: None, timeout=5, max_total_timeout=0.7
        )
    assert time.monotonic() - started < 3


@pytest.mark.parametrize("cap", [0, -1, float("nan"), "5"])
def test_a_cap_that_is_no_positive_number_of_seconds_is_refused_before_anything_is_sent(client, cap):
    """max_total_timeout is checked as a timeout is: 0, a negative, NaN or a string is a ConfigurationError
    naming it, and the server sees no call (a cap of 0 used to send the request and time out at once)."""
    client.list_tools(timeout=5)  # (a modern call lists the tools first: that goes out, the call must not)
    sent = client.transport.stats.sent
    with pytest.raises(mcpsync.ConfigurationError, match="max_total_timeout"):
        client.call_tool("echo", {"text": "x"}, timeout=5, max_total_timeout=cap)
    with pytest.raises(mcpsync.ConfigurationError, match="max_total_timeout"):
        client.request("ping", timeout=5, max_total_timeout=cap)
    assert client.transport.stats.sent == sent
    assert client.call_tool("echo", {"text": "y"}, timeout=5, max_total_timeout=float("inf")).text == "y"


def test_progress_tokens_unit():
    from mcpsync._session.progress import ProgressTokens, with_progress_token

    tokens = ProgressTokens()
    calls = []
    first, watch = tokens.open(lambda *a: calls.append(a))
    second, _ = tokens.open(None)
    assert first != second
    before = watch.last
    callback, args = tokens.notified({"progressToken": first, "progress": 2, "total": 4, "message": "half"})
    callback(*args)
    assert calls == [(2, 4, "half")] and watch.last >= before
    assert tokens.notified({"progressToken": second, "progress": 1}) is None  # no callback, but recorded
    assert tokens.notified({"progressToken": "unknown", "progress": 1}) is None
    assert tokens.notified({"progressToken": first, "progress": True}) is None
    tokens.close(first)
    assert tokens.notified({"progressToken": first, "progress": 3}) is None
    assert with_progress_token({"_meta": {"a": 1}, "x": 2}, "t") == {"_meta": {"a": 1, "progressToken": "t"}, "x": 2}


@pytest.mark.official
def test_official_server_progress_and_log_messages():
    """The official server's progress reaches on_progress, and its ctx.info reaches logging and on_log."""
    pytest.importorskip("mcp.server.mcpserver")
    progress, logs = [], []
    done = threading.Event()

    def on_progress(value, total, message):
        progress.append((value, total, message))
        if value == total:
            done.set()

    # The legacy era: the modern one sends log messages only to a request that asks for a level.
    with mcpsync.connect(
        official_target("stdio"), name="official", timeout=T, protocol="legacy", on_log=lambda *a: logs.append(a)
    ) as c:
        assert c.call_tool("progress", {"steps": 3}, on_progress=on_progress, timeout=T).text == "did 3 steps"
        assert done.wait(T)
    assert progress == [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")]
    assert logs and logs[0][0] == "info" and logs[0][2] == "starting 3 steps"


# -- structured output against outputSchema -------------------------------------------------------


def test_structured_output_is_checked_against_the_declared_schema(client):
    with pytest.raises(mcpsync.OutputSchemaError) as info:
        client.call_tool("wrong_output", timeout=T)
    assert "'not a number' is not of type 'number' (at $.sum)" in str(info.value)
    assert info.value.result.structured_content == {"sum": "not a number"}
    sent = client.transport.stats.sent
    assert client.call_tool("add", {"a": 1, "b": 2}, timeout=T).structured_content == {"sum": 3}
    assert client.transport.stats.sent == sent + 1, "the schemas were listed once and kept"


def test_the_check_can_be_turned_off(target):
    with mcpsync.connect(target, name="features", timeout=T, validate_structured_output=False) as client:
        assert client.call_tool("wrong_output", timeout=T).structured_content == {"sum": "not a number"}


def test_output_schemas_unit():
    from mcpsync._session.models import CallToolResult, Tool
    from mcpsync._session.structured_output import OutputSchemas

    schemas = OutputSchemas()
    assert not schemas.known
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    schemas.remember([Tool("t", None, {}, output_schema=schema), Tool("plain", None, {})])
    schemas.check(CallToolResult.from_dict({"content": [], "structuredContent": {"n": 1}}, "t"))
    schemas.check(CallToolResult.from_dict({"content": []}, "plain"))
    schemas.check(CallToolResult.from_dict({"content": [], "isError": True}, "t"))  # errors are not checked
    with pytest.raises(mcpsync.OutputSchemaError, match="sent no structuredContent"):
        schemas.check(CallToolResult.from_dict({"content": []}, "t"))
    with pytest.raises(mcpsync.OutputSchemaError, match="'n' is a required property"):
        schemas.check(CallToolResult.from_dict({"content": [], "structuredContent": {}}, "t"))
    schemas.forget()
    assert not schemas.known


# -- what the server asks of the client -------------------------------------------------------------


def test_roots_sampling_and_elicitation_handlers(target):
    sampled = []

    def sample(params):
        sampled.append(params)
        return {"role": "assistant", "content": {"type": "text", "text": "42"}, "model": "test-model"}

    def elicit(params):
        answers = mcpsync.elicitation_defaults(params["requestedSchema"])
        answers["name"] = "Ada"
        return {"action": "accept", "content": answers}

    roots = ["file:///work", {"uri": "file:///data", "name": "data"}]
    # Legacy: ask_client sends the server's own requests, which the 2026-07-28 revision has not.
    with mcpsync.connect(
        target, name="features", timeout=T, protocol="legacy", roots=roots, sampling=sample, elicitation=elicit
    ) as c:

        def ask(method, params=None):
            return c.call_tool("ask_client", {"method": method, "params": params or {}}, timeout=T).structured_content

        assert ask("roots/list")["result"] == {
            "roots": [{"uri": "file:///work"}, {"uri": "file:///data", "name": "data"}]
        }
        c.set_roots(lambda: ["file:///elsewhere"])
        assert ask("roots/list")["result"] == {"roots": [{"uri": "file:///elsewhere"}]}
        request = {
            "messages": [{"role": "user", "content": {"type": "text", "text": "meaning?"}}],
            "maxTokens": 5,
            "tools": [{"name": "calc", "inputSchema": {"type": "object"}}],
        }
        assert ask("sampling/createMessage", request)["result"]["model"] == "test-model"
        assert sampled[0]["tools"][0]["name"] == "calc"  # passed through
        schema = {
            "type": "object",
            "properties": {"name": {"type": "string"}, "age": {"type": "integer", "default": 36}},
        }
        answer = ask("elicitation/create", {"mode": "form", "message": "who?", "requestedSchema": schema})
        assert answer["result"] == {"action": "accept", "content": {"age": 36, "name": "Ada"}}


def test_capabilities_are_declared_only_for_what_is_supplied(tmp_path):
    import json

    from tests.helpers import scripted_server

    for kwargs, expected in [
        ({}, {}),
        ({"roots": []}, {"roots": {"listChanged": True}}),
        ({"sampling": dict, "elicitation": dict}, {"sampling": {}, "elicitation": {"form": {}, "url": {}}}),
    ]:
        log = tmp_path / f"log{len(expected)}.jsonl"
        with mcpsync.connect(scripted_server({}, log), timeout=T, protocol="legacy", **kwargs) as client:
            if "roots" in kwargs:
                client.set_roots(["file:///x"])
        sent = [json.loads(line) for line in log.read_text().splitlines()]
        assert sent[0]["params"]["capabilities"] == expected
        assert ("notifications/roots/list_changed" in log.read_text()) == ("roots" in kwargs)
    with (
        mcpsync.connect(scripted_server({}), timeout=T) as client,
        pytest.raises(mcpsync.ProtocolError, match="no roots"),
    ):
        client.set_roots([])


@pytest.mark.slow("the server waits its full 1 s to see that no answer comes")
def test_a_request_the_server_cancels_is_not_answered(target):
    release = threading.Event()

    def slow_roots():
        release.wait(T)
        return ["file:///late"]

    with mcpsync.connect(target, name="features", timeout=T, roots=slow_roots) as client:
        timer = threading.Timer(0.3, release.set)  # the handler answers after the server cancelled
        timer.start()
        got = client.call_tool("ask_then_cancel", {"method": "roots/list", "wait": 1.0}, timeout=T).structured_content
        timer.join(T)
        assert got == {"answered": False}


def test_list_changed_and_resource_updates_reach_their_callbacks(target):
    changed, updated = [], []
    done = threading.Event()

    def on_updated(uri):
        updated.append(uri)
        done.set()

    # Legacy: notify_client sends notifications unasked (a modern server: on a subscriptions/listen stream).
    with mcpsync.connect(
        target,
        name="features",
        timeout=T,
        protocol="legacy",
        on_list_changed=changed.append,
        on_resource_updated=on_updated,
    ) as client:
        client.list_tools(timeout=T)
        for kind in ("tools", "prompts", "resources"):
            client.call_tool("notify_client", {"method": f"notifications/{kind}/list_changed"}, timeout=T)
        client.call_tool(
            "notify_client",
            {"method": "notifications/resources/updated", "params": {"uri": "text://greeting"}},
            timeout=T,
        )
        assert done.wait(T)
        assert changed == ["tools", "prompts", "resources"] and updated == ["text://greeting"]
        sent = client.transport.stats.sent
        with pytest.raises(mcpsync.OutputSchemaError):
            client.call_tool("wrong_output", timeout=T)
        assert client.transport.stats.sent == sent + 2, "the tools changed: their schemas were listed again"


def test_elicitation_defaults_unit():
    schema = {"properties": {"a": {"type": "string", "default": "x"}, "b": {"type": "integer"}, "c": "bad"}}
    assert mcpsync.elicitation_defaults(schema) == {"a": "x"}
    assert mcpsync.elicitation_defaults({}) == {}


@pytest.mark.official
def test_official_server_asks_for_sampling_and_roots():
    """The official server's sampling and roots requests reach our handlers, and their answers reach its tools."""
    pytest.importorskip("mcp.server.mcpserver")
    questions = []

    def sample(params):
        questions.append(params["messages"][0]["content"]["text"])
        return {"role": "assistant", "content": {"type": "text", "text": "forty-two"}, "model": "stub"}

    with mcpsync.connect(  # the legacy era: the SDK's tools ask by requests of their own, not input_required
        official_target("stdio"),
        name="official",
        timeout=T,
        protocol="legacy",
        sampling=sample,
        roots=["file:///work", "file:///data"],
    ) as client:
        assert client.call_tool("ask_sampling", {"question": "meaning?"}, timeout=T).text == "stub: forty-two"
        assert client.call_tool("client_roots", timeout=T).text == "file:///work file:///data"
    assert questions == ["meaning?"]


@pytest.mark.official
def test_official_server_elicits_through_the_elicitation_handler():
    """ctx.elicit on the official server reaches Client(elicitation=...) with its schema; declining works too."""
    pytest.importorskip("mcp.server.mcpserver")
    asked = []

    def elicit(params):
        asked.append(params)
        if len(asked) == 1:
            return {
                "action": "accept",
                "content": {**mcpsync.elicitation_defaults(params["requestedSchema"]), "name": "Ada"},
            }
        return {"action": "decline"}

    # The legacy era: the SDK's ctx.elicit sends a request of its own, which the modern era has not.
    with mcpsync.connect(
        official_target("stdio"), name="official", timeout=T, protocol="legacy", elicitation=elicit
    ) as client:
        assert client.call_tool("ask_name", timeout=T).text == "hello Ada"
        assert client.call_tool("ask_name", timeout=T).text == "decline"
    assert asked[0]["message"] == "What is your name?"
    assert "name" in asked[0]["requestedSchema"]["properties"]


def test_cached_lists_go_stale_on_list_changed_and_refresh_on_use(target):
    # Legacy: notify_client sends notifications unasked (a modern server: on a subscriptions/listen stream).
    with mcpsync.connect(target, name="features", timeout=T, protocol="legacy") as client:
        check_cached_lists_go_stale(client)


def check_cached_lists_go_stale(client):
    first = client.tools
    sent = client.transport.stats.sent
    assert client.tools is first and client.transport.stats.sent == sent, "served from the cache"
    client.call_tool("notify_client", {"method": "notifications/tools/list_changed"}, timeout=T)
    import time

    deadline = time.monotonic() + T
    while "tools" in client.cached_lists and time.monotonic() < deadline:
        time.sleep(0.01)
    again = client.tools
    assert again is not first and [t.name for t in again] == [t.name for t in first]
    assert [p.name for p in client.prompts] == ["greet"] and client.prompts is client.prompts
    assert {r.uri for r in client.resources} == {"text://greeting", "binary://pixel"}


def test_lists_can_be_refreshed_eagerly(target):
    refreshed = threading.Event()
    with mcpsync.connect(  # legacy: notify_client's notifications come unasked
        target,
        name="features",
        timeout=T,
        protocol="legacy",
        refresh_on_list_changed=True,
        on_list_changed=lambda kind: refreshed.set(),
    ) as client:
        client.call_tool("notify_client", {"method": "notifications/prompts/list_changed"}, timeout=T)
        assert refreshed.wait(T)
        import time

        deadline = time.monotonic() + T
        while "prompts" not in client.cached_lists and time.monotonic() < deadline:
            time.sleep(0.01)
        assert [p.name for p in client.cached_lists["prompts"]] == ["greet"], "fetched before anyone asked"
