"""The client's features against a server that sends only what the schema requires.

``python -m mcpsync.testing --minimal`` declares ``capabilities: {}`` while serving everything,
sends no ``serverInfo`` in ``server/discover``'s ``_meta`` and no optional member in any message
(see mcpsync/testing/minimal.py). Each feature test runs against it and against the full test
server, over stdio and Streamable HTTP, in both eras; its assertions hold for any legal server.
The first tests check that the minimal server really is minimal: every message it sends is valid
against the published schema (tests/published_schemas.py) and has no member the schema leaves
optional.
"""

from __future__ import annotations

import io
import json
import threading
from collections.abc import Iterator, Mapping
from typing import Any

import jsonschema
import pytest

import mcpsync
from mcpsync.testing.minimal import MinimalServer
from tests.http_server import server_target
from tests.published_schemas import definitions, published, resolve

pytestmark = pytest.mark.usefixtures("server_in_thread")

T = 20
LEGACY, MODERN = "2025-11-25", "2026-07-28"
SERVER_NAME = "mcpsync-test-server"

# -- the minimal server is minimal ------------------------------------------------------------

#: The schema definition of each method's result, and of each notification's params.
RESULTS = {
    "initialize": "InitializeResult",
    "server/discover": "DiscoverResult",
    "tools/list": "ListToolsResult",
    "tools/call": "CallToolResult",
    "resources/list": "ListResourcesResult",
    "resources/templates/list": "ListResourceTemplatesResult",
    "resources/read": "ReadResourceResult",
    "prompts/list": "ListPromptsResult",
    "prompts/get": "GetPromptResult",
    "completion/complete": "CompleteResult",
    "notifications/progress": "ProgressNotificationParams",
    "notifications/message": "LoggingMessageNotificationParams",
}
#: Members whose contents the protocol does not shape (a tool's schemas and output, log data,
#: capabilities, _meta): not looked into.
OPAQUE = {"inputSchema", "outputSchema", "structuredContent", "data", "capabilities", "_meta"}
#: Optional members that carry the answer itself: the failure of a tool that failed, the cursor of
#: a page that has a next one, the numbers tool's array.
MEANINGFUL = {"isError", "nextCursor", "structuredContent"}

REQUESTS: list[tuple[str, dict[str, Any]]] = [
    ("tools/list", {}),
    ("tools/call", {"name": "echo", "arguments": {"text": "hi"}}),
    ("tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}}),
    ("tools/call", {"name": "fail", "arguments": {"message": "no"}}),
    ("tools/call", {"name": "numbers", "arguments": {}}),
    ("tools/call", {"name": "progress", "arguments": {"steps": 2}, "_meta": {"progressToken": "p"}}),
    ("tools/call", {"name": "log", "arguments": {"message": "m", "level": "error"}}),
    ("resources/list", {}),
    ("resources/templates/list", {}),
    ("resources/read", {"uri": "text://greeting"}),
    ("resources/read", {"uri": "binary://pixel"}),
    ("prompts/list", {}),
    ("prompts/get", {"name": "greet", "arguments": {"name": "Ada"}}),
    (
        "completion/complete",
        {"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "name", "value": "A"}},
    ),
]


def sent_by_minimal_server(revision: str) -> list[tuple[str, Any]]:
    """(what, body) of every result and notification the minimal server sends for ``REQUESTS``
    (and the handshake or discovery) in ``revision``, the server run in-process over pipes."""
    if revision == MODERN:
        meta = {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/logLevel": "debug"}
        asked = [("server/discover", {}), *REQUESTS]
        asked = [(method, {**params, "_meta": {**params.get("_meta", {}), **meta}}) for method, params in asked]
    else:
        handshake = {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}
        asked = [("initialize", handshake), *REQUESTS]
    lines = [json.dumps({"jsonrpc": "2.0", "id": n, "method": m, "params": p}) for n, (m, p) in enumerate(asked)]
    out = io.BytesIO()
    MinimalServer(stdin=io.BytesIO("\n".join(lines).encode() + b"\n"), stdout=out).serve()
    sent = []
    for line in out.getvalue().splitlines():
        message = json.loads(line)
        assert "error" not in message, message
        if "id" in message:
            sent.append((asked[message["id"]][0], message["result"]))
        else:
            sent.append((message["method"], message["params"]))
    assert {what for what, _ in sent} >= {"notifications/progress", "notifications/message", "tools/call"}
    return sent


def validator(revision: str, node: Mapping[str, Any]) -> Any:
    """A validator of ``node`` within the revision's schema (its references resolve there)."""
    root = published()[revision]
    schema = {key: value for key, value in root.items() if key in ("$schema", "$defs", "definitions")}
    return jsonschema.validators.validator_for(root)({**schema, **node})


def optional_members(revision: str, value: Any, node: Mapping[str, Any], where: str) -> list[str]:
    """Where ``value`` has a member its schema ``node`` leaves optional."""
    node = resolve(revision, node)
    for choice in ("anyOf", "oneOf"):
        if choice in node:
            fits = [alt for alt in node[choice] if validator(revision, alt).is_valid(value)]
            return optional_members(revision, value, fits[0], where) if fits else []
    found = []
    if isinstance(value, dict) and "properties" in node:
        for key, member in value.items():
            if key in OPAQUE and key not in MEANINGFUL:
                continue
            if key not in node.get("required", ()) and key not in MEANINGFUL:
                found.append(f"{where}.{key}")
            if key in node["properties"] and key not in OPAQUE:
                found += optional_members(revision, member, node["properties"][key], f"{where}.{key}")
    elif isinstance(value, list) and isinstance(node.get("items"), dict):
        for n, item in enumerate(value):
            found += optional_members(revision, item, node["items"], f"{where}[{n}]")
    return found


@pytest.mark.parametrize("revision", [LEGACY, MODERN])
def test_every_message_of_the_minimal_server_is_valid_and_has_only_what_is_required(revision: str) -> None:
    """Each result and notification the minimal server sends validates against the published schema
    of its revision, and holds no member that schema leaves optional."""
    for what, body in sent_by_minimal_server(revision):
        node = {"$ref": f"#/$defs/{RESULTS[what]}"}
        errors = [error.message for error in validator(revision, node).iter_errors(body)]
        assert not errors, (what, body, errors)
        assert optional_members(revision, body, definitions(revision)[RESULTS[what]], what) == [], body


def test_the_full_server_is_not_minimal() -> None:
    """The check above finds what the full server sends beyond the schema's requirements (it can fail)."""
    listing = {"tools": [{"name": "t", "description": "d", "inputSchema": {"type": "object"}}]}
    assert optional_members(LEGACY, listing, definitions(LEGACY)["ListToolsResult"], "tools/list") == [
        "tools/list.tools[0].description"
    ]


# -- the client's features against both servers ----------------------------------------------


@pytest.fixture(scope="module", params=["full", "minimal"])
def flavour(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="module", params=["stdio", "http"])
def target(request: pytest.FixtureRequest, flavour: str) -> Iterator[Any]:
    """The test server (full or minimal, listings paged by 4), over stdio or Streamable HTTP."""
    options = ("--page-size", "4", *(("--minimal",) if flavour == "minimal" else ()))
    with server_target(str(request.param), *options) as where:
        yield where


@pytest.fixture(params=["legacy", "modern"])
def era(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def handlers(seen: list[str]) -> dict[str, Any]:
    """Answers to the server's requests: roots, sampling and elicitation."""

    def sampling(params: dict[str, Any]) -> dict[str, Any]:
        seen.append("sampling")
        return {"role": "assistant", "content": {"type": "text", "text": "42"}, "model": "test"}

    def elicitation(params: dict[str, Any]) -> dict[str, Any]:
        seen.append("elicitation")
        return {"action": "accept", "content": {"name": "Ada"}}

    return {"roots": ["file:///work"], "sampling": sampling, "elicitation": elicitation}


@pytest.fixture
def client(target: Any, era: str) -> Iterator[mcpsync.Client]:
    with mcpsync.connect(target, protocol=era, name="minimal", timeout=T, **handlers([])) as connected:
        yield connected


def test_the_handshake_takes_what_the_server_says(client: mcpsync.Client, era: str, flavour: str) -> None:
    """The era is the one asked for; a server of no capabilities, no instructions and (modern
    minimal) no serverInfo connects, and answers a ping."""
    assert client.era == era
    assert client.server_info is not None
    if flavour == "minimal":
        assert client.server_capabilities == {} and client.instructions is None
        assert client.server_info.name == ("" if era == "modern" else SERVER_NAME)
        assert ("server='?'" in repr(client)) is (era == "modern")  # an empty ServerInfo says so
    else:
        assert client.server_info.name == SERVER_NAME and "tools" in client.server_capabilities
    client.ping(timeout=T)


def test_tools_are_listed_across_pages_and_called(client: mcpsync.Client) -> None:
    """Every tool over the pages; a call's text; a failure as data; an unknown tool as an error."""
    names = [tool.name for tool in client.list_tools(timeout=T)]
    assert {"echo", "add", "fail", "progress", "log"} <= set(names) and len(names) > 4
    assert client.call_tool("echo", {"text": "hello"}, timeout=T).text == "hello"
    added = client.call_tool("add", {"a": 2, "b": 40}, timeout=T)
    assert json.loads(added.text) == {"sum": 42}
    assert added.structured_content in (None, {"sum": 42})
    failed = client.call_tool("fail", {"message": "broken"}, timeout=T)
    assert failed.is_error and failed.text == "broken"
    with pytest.raises(mcpsync.ToolError, match="broken"):
        failed.raise_for_error()
    with pytest.raises(mcpsync.UnknownNameError, match="Unknown tool") as info:  # the tools are listed above
        client.call_tool("no_such_tool", timeout=T)
    assert isinstance(info.value.__cause__, mcpsync.ServerError)


def test_resources_templates_and_reads(client: mcpsync.Client) -> None:
    """Resources and templates are listed; text, binary and templated reads; a missing one is -32002."""
    assert {r.uri for r in client.list_resources(timeout=T)} == {"text://greeting", "binary://pixel"}
    assert [t.uri_template for t in client.list_resource_templates(timeout=T)] == ["echo://{text}"]
    assert client.read_resource("text://greeting", timeout=T).text == "Hello from a resource"
    assert client.read_resource("binary://pixel", timeout=T).contents[0].data.startswith(b"\x89PNG")
    assert client.read_resource("echo://anything", timeout=T).text == "anything"
    with pytest.raises(mcpsync.ServerError) as caught:
        client.read_resource("nope://x", timeout=T)
    assert caught.value.code == -32002


def test_prompts_and_completion(client: mcpsync.Client) -> None:
    """A prompt is listed and got; completion offers values for its argument."""
    assert [p.name for p in client.list_prompts(timeout=T)] == ["greet"]
    result = client.get_prompt("greet", {"name": "Ada", "style": "formal"}, timeout=T)
    assert [(m.role, m.text) for m in result.messages] == [("user", "Write a formal greeting for Ada.")]
    completion = client.complete({"type": "ref/prompt", "name": "greet"}, ("name", "Al"), timeout=T)
    assert completion.values == ["Alan", "Alonzo"]


def test_progress_and_log_messages_reach_their_callbacks(target: Any, era: str) -> None:
    """Progress (with or without a total) reaches on_progress, a log message reaches on_log."""
    logged: list[tuple[str, Any]] = []
    arrived = threading.Event()

    def on_log(level: str, source: Any, data: Any) -> None:
        logged.append((level, data))
        arrived.set()

    with mcpsync.connect(target, protocol=era, timeout=T, on_log=on_log) as client:
        steps: list[float] = []
        done = client.call_tool("progress", {"steps": 3}, timeout=T, on_progress=lambda p, total, m: steps.append(p))
        assert done.text == "done" and steps == [1, 2, 3]
        client.set_logging_level("warning", timeout=T)
        client.call_tool("log", {"message": "kept", "level": "error"}, timeout=T)
        assert arrived.wait(T)
    assert logged == [("error", "kept")]


def test_the_servers_requests_reach_the_handlers(client: mcpsync.Client, era: str) -> None:
    """Roots, sampling and elicitation: asked by the server's own requests (legacy) or as input_required
    rounds (modern), answered by the client's handlers."""
    if era == "legacy":
        asked = client.call_tool("ask_client", {"method": "roots/list"}, timeout=T)
        assert json.loads(asked.text)["result"] == {"roots": [{"uri": "file:///work"}]}
        return
    result = client.call_tool("ask_in_rounds", {"rounds": 1}, timeout=T)
    (answers,) = json.loads(result.text)["answers"]
    assert answers["roots-1"] == {"roots": [{"uri": "file:///work"}]}
    assert answers["elicitation-1"] == {"action": "accept", "content": {"name": "Ada"}}


def test_a_manager_lists_everything_the_server_serves(target: Any) -> None:
    """The Manager lists the tools, prompts and resources of a server that declares none of them."""
    config = {"mcpServers": {"srv": target if isinstance(target, dict) else _entry(target)}}
    with mcpsync.Manager(config, startup_timeout=T) as manager:
        assert "srv__echo" in [tool.name for tool in manager.list_tools()]
        assert [p.name for p in manager.list_prompts(timeout=T)] == ["srv__greet"]
        assert len(manager.list_resources(timeout=T)) == 2


def _entry(target: Any) -> dict[str, Any]:
    if isinstance(target, str):
        return {"type": "http", "url": target}
    command, *args = target
    return {"command": command, "args": args}


def test_strict_capabilities_refuse_what_the_minimal_server_does_not_declare(target: Any, flavour: str) -> None:
    """Against the minimal server strict_capabilities refuses list_tools before sending; the full server
    declares tools."""
    with mcpsync.connect(target, timeout=T, strict_capabilities=True) as client:
        if flavour == "full":
            assert client.list_tools(timeout=T)
            return
        sent = client.stats.sent
        with pytest.raises(mcpsync.CapabilityNotDeclared):
            client.list_tools(timeout=T)
        assert client.stats.sent == sent


@pytest.mark.parametrize(
    "flavour", ["minimal"], indirect=True, scope="module"
)  # the numbers tool is the minimal server's
def test_structured_content_may_be_an_array_in_the_modern_era(target: Any, flavour: str) -> None:
    """The minimal server's numbers tool answers structuredContent [1, 2, 3] (2026-07-28)."""
    with mcpsync.connect(target, protocol="modern", timeout=T) as client:
        assert client.call_tool("numbers", {"count": 3}, timeout=T).structured_content == [1, 2, 3]


def test_a_tools_header_annotations_are_honoured_without_the_tools_capability(target: Any, era: str) -> None:
    """A modern call of a tool with an ``x-mcp-header`` argument sends its Mcp-Param header (over HTTP
    the server checks it against the body) though the server declared no tools: the listing that
    says which headers go with it is fetched all the same."""
    with mcpsync.connect(target, protocol=era, timeout=T) as client:
        result = client.call_tool("region_echo", {"text": "hi", "region": "eu-west"}, timeout=T)
        assert json.loads(result.raise_for_error().text) == {"text": "hi", "region": "eu-west"}
