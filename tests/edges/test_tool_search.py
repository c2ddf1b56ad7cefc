"""``ToolBox(..., search=True)``: the model is handed a few always-on tools and ``search_tools``; a search
ranks the box's tools (BM25 over names, titles, descriptions, argument names) and hands back the best
ones' definitions, which are offered from then on and routed to their own server. A search calls no
server: over a lazily started Manager it starts none; calling a found tool starts its server. The
vendors' own deferred forms (Anthropic's tool search tool, OpenAI Responses' ``tool_search`` with
``defer_loading``) and every result are checked against the SDKs' own types.

Most tests use a stand-in Manager (the surface a ToolBox reads: ``list_tools``, ``call_tool``) holding
the synthetic tools of three servers (``mcpsync.testing.synthetic``); the lazy-start test uses real ones.
"""

from __future__ import annotations

import json
import sys
import tracemalloc
import warnings
from pathlib import Path
from typing import Any

import pytest

import mcpsync
from mcpsync import CallToolResult, ConfigurationWarning, ToolBox
from mcpsync._edges.toolbox.search import MAX_INDEXED, ToolIndex, words
from mcpsync._manager.records import ManagedTool
from mcpsync._session.models import Tool
from mcpsync.testing.synthetic import answer, synthetic_tools
from tests.deferred import deferred
from tests.edges.sdk_types import assert_fits

openai_chat = deferred("openai.types.chat")
openai_responses = deferred("openai.types.responses")
anthropic_types = deferred("anthropic.types")
genai_types = deferred("google.genai.types")
input_items = deferred("openai.types.responses.response_input_item_param")
tool_search_items = deferred("openai.types.responses.response_tool_search_output_item_param_param")

# One worker runs the module (xdist_group): one worker, not each, imports its libraries (0.5-3.3 s).
pytestmark = [pytest.mark.usefixtures("server_in_thread"), pytest.mark.xdist_group("model_sdks")]

T = 20.0
SERVERS = ("tracker", "crm", "billing")
SERVER_ENV = {"PYTHONPATH": str(Path(mcpsync.__file__).resolve().parents[1])}


class StandInManager:
    """What a ToolBox reads of a Manager: 20 synthetic tools on each of ``SERVERS``; each call recorded."""

    def __init__(self) -> None:
        self.clients: dict[str, Any] = {}
        self.tools = [
            ManagedTool(f"{server}__{tool['name']}", server, Tool.from_dict(tool))
            for server in SERVERS
            for tool in synthetic_tools(20, server)
        ]
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def list_tools(self) -> list[ManagedTool]:
        return list(self.tools)

    def call_tool(self, name: str, arguments: dict[str, Any], **options: Any) -> CallToolResult:
        self.calls.append((name, arguments))
        return CallToolResult.from_dict(answer(name, arguments), name)


def searching(**options: Any) -> tuple[ToolBox, StandInManager]:
    manager = StandInManager()
    return ToolBox(manager, search=True, **options), manager


def index() -> ToolIndex:
    manager = StandInManager()
    return ToolIndex((tool.name, tool.tool, tool.tool.input_schema) for tool in manager.tools)


def use(name: str, **arguments: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": "toolu_1", "name": name, "input": arguments}


def found_in(text: str) -> list[str]:
    """The tool names in a search's answer (its JSON definitions, of any format)."""
    definitions = json.loads(text.split("\n", 1)[1])
    return [d.get("name") or d["function"]["name"] for d in definitions]


def test_words_are_split_at_underscores_and_camel_case_with_plurals_folded() -> None:
    """A tool's name, ``listCalendarEvents`` or ``crm__crm_list_customers``, gives the words a query uses."""
    assert words("listCalendarEvents") == ["list", "calendar", "event"]
    assert words("crm__crm_list_customers") == ["crm", "crm", "list", "customer"]
    assert words("Search the Issues by a query") == ["search", "issue", "query"]
    assert words("categories address") == ["category", "address"]


@pytest.mark.parametrize(
    ("query", "best"),
    [
        ("tracker list issues", "tracker__tracker_list_issues"),  # the name, server and all
        ("create a project in the crm", "crm__crm_create_project"),
        ("billing archive project", "billing__billing_archive_project"),
        ("hand the tracker issue over to a user, the assignee", "tracker__tracker_assign_issue"),  # argument name
        ("crm issues as CSV for a report", "crm__crm_export_issues"),  # description words
    ],
)
def test_the_best_match_of_a_realistic_query_comes_first(query: str, best: str) -> None:
    """Name, description and argument names all count; the tool that fits best is first."""
    assert index().search(query, 5)[0] == best


def test_a_description_alone_finds_tools_and_the_name_counts_more() -> None:
    """ "cannot be undone" is in the delete tools' descriptions alone: they, and only they, match; a word
    in a tool's name ranks it above a tool that has the word in its description only."""
    found = index().search("cannot be undone", 100)
    assert len(found) == 6 and all("_delete_" in name for name in found)
    tools = [
        {"name": "notify", "description": "Send a message to the user's phone.", "inputSchema": {"type": "object"}},
        {"name": "post_message", "description": "Post to a channel.", "inputSchema": {"type": "object"}},
        {"name": "ping", "description": "Check the link.", "inputSchema": {"properties": {"message": {}}}},
    ]
    small = ToolIndex((t["name"], Tool.from_dict(t), t["inputSchema"]) for t in tools)
    assert small.search("messages", 5) == ["post_message", "ping", "notify"]


def test_a_query_of_unknown_words_finds_nothing_and_the_limit_holds() -> None:
    """Words no tool has find nothing (not the first tools of the list); ``limit`` caps the answer."""
    assert index().search("weather forecast tomorrow", 5) == []
    assert len(index().search("issue", 3)) == 3
    assert index().search("", 5) == []


def test_the_model_is_handed_the_search_and_the_always_on_tools_only() -> None:
    """Of 60 tools, the definitions hold ``search_tools``, its dispatcher ``call_tool`` and the one named
    in ``always``; every format."""
    box, _ = searching(always=["crm__crm_get_issue"])
    shown = ["search_tools", "call_tool", "crm__crm_get_issue"]
    assert [d["name"] for d in box.anthropic()] == shown
    assert [d["function"]["name"] for d in box.openai()] == shown
    assert [d["name"] for d in box.openai_responses()] == shown
    declarations = box.gemini()[0]["function_declarations"]
    assert [d["name"] for d in declarations] == shown
    search = box.anthropic()[0]
    assert search["input_schema"]["required"] == ["query"]
    assert "59 further tools" in search["description"]  # 60, less the always-on one
    assert len(ToolBox(StandInManager()).anthropic()) == 60  # without search=True: all of them


def test_a_search_hands_back_definitions_and_the_found_tools_are_offered_and_routed() -> None:
    """The model searches (an Anthropic tool_use); the answer holds the found tools' definitions in the
    model's format; from then on they are in ``anthropic()``; calling one goes to its own server."""
    box, manager = searching(search_limit=2)
    block = box.run(use("search_tools", query="create an invoice for a billing customer"))
    assert "is_error" not in block
    text = block["content"][0]["text"]
    assert found_in(text) == ["billing__billing_create_issue", "billing__billing_create_project"]
    first = json.loads(text.split("\n", 1)[1])[0]
    assert set(first) == {"name", "description", "input_schema"}  # Anthropic's shape
    assert manager.calls == []  # a search calls no server
    assert [d["name"] for d in box.anthropic()] == ["search_tools", "call_tool", *found_in(text)]
    done = box.run(use("billing__billing_create_project", fields={"title": "Q3"}))
    assert manager.calls == [("billing__billing_create_project", {"fields": {"title": "Q3"}})]
    assert "is_error" not in done
    box.run(use("search_tools", query="tracker list issues"))
    assert "tracker__tracker_list_issues" in {d["name"] for d in box.anthropic()}  # found ones add up
    assert len(box.anthropic()) <= 2 + 2 + 2


def test_every_format_s_search_answer_is_in_its_own_shape() -> None:
    """OpenAI Chat, Responses and Gemini calls of ``search_tools`` get their definitions in their own format."""
    box, _ = searching(search_limit=1)
    chat = box.run(
        {"type": "function", "id": "c1", "function": {"name": "search_tools", "arguments": '{"query": "crm users"}'}}
    )
    assert json.loads(chat["content"].split("\n", 1)[1])[0]["type"] == "function"
    assert_fits(chat, openai_chat.ChatCompletionToolMessageParam)
    item = box.run(
        {"type": "function_call", "call_id": "f1", "name": "search_tools", "arguments": '{"query": "alerts"}'}
    )
    assert_fits(item, input_items.FunctionCallOutput)
    part = box.run({"function_call": {"name": "search_tools", "args": {"query": "delete a tracker project"}}})
    genai_types.Part.model_validate(part)
    declared = json.loads(part["function_response"]["response"]["output"].split("\n", 1)[1])
    assert declared[0]["name"] == "tracker__tracker_delete_project" and "parameters" in declared[0]


def test_a_search_without_a_query_is_an_error_the_model_can_read_and_no_match_says_so() -> None:
    """A call without a query is an error result; a query that finds nothing says so, offers nothing more;
    an unknown tool's error points to the search."""
    box, _ = searching()
    missing = box.run(use("search_tools"))
    assert missing["is_error"] is True and "'query'" in missing["content"][0]["text"]
    nothing = box.run(use("search_tools", query="weather forecast"))
    assert "is_error" not in nothing and "No tool matches" in nothing["content"][0]["text"]
    assert [d["name"] for d in box.anthropic()] == ["search_tools", "call_tool"]
    unknown = box.run(use("crm_get_issue"))  # a name it guessed: pointed to the search, not told all 60
    assert unknown["content"][0]["text"] == "There is no tool named 'crm_get_issue'. The tools: ask search_tools."


def test_definitions_and_answers_fit_the_vendors_own_types() -> None:
    """With a search and found tools, every definition fits its SDK's type, and so does each answer."""
    box, _ = searching(always=["crm__crm_get_issue"])
    block = box.run(
        anthropic_types.ToolUseBlock(id="t1", name="search_tools", input={"query": "issues"}, type="tool_use")
    )
    assert_fits(block, anthropic_types.ToolResultBlockParam)
    for definition in box.anthropic():
        assert_fits(definition, anthropic_types.ToolParam)
    for definition in box.openai():
        assert_fits(definition, openai_chat.ChatCompletionFunctionToolParam)
    for definition in box.openai_responses():
        assert_fits(definition, openai_responses.FunctionToolParam)
    genai_types.Tool.model_validate(box.gemini()[0])
    assert len(box.anthropic()) == 2 + 1 + 5


def test_the_vendors_deferred_forms_fit_their_types() -> None:
    """``deferred=True``: the vendor's own search tool first, the always-on tool as it is, every other
    tool with ``defer_loading``; Anthropic's ``ToolUnionParam`` and OpenAI's ``ToolParam`` take each item."""
    box = ToolBox(StandInManager(), always=["crm__crm_get_issue"])
    tools = box.anthropic(deferred=True)
    assert tools[0] == {"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"}
    assert len(tools) == 1 + 60
    for item in tools:
        assert_fits(item, anthropic_types.ToolUnionParam)
    plain = [item for item in tools[1:] if "defer_loading" not in item]
    assert [item["name"] for item in plain] == ["crm__crm_get_issue"]
    assert all(item["defer_loading"] is True for item in tools[1:] if item is not plain[0])
    responses = box.openai_responses(deferred=True)
    assert responses[0] == {"type": "tool_search"}
    for item in responses:
        assert_fits(item, openai_responses.ToolParam)
    assert sum(1 for item in responses if item.get("defer_loading")) == 59
    for format in ("openai", "gemini"):
        with pytest.raises(ValueError, match="only anthropic and openai-responses defer tools"):
            box.definitions(format, deferred=True)


def test_openai_s_client_executed_tool_search_is_answered_by_the_box() -> None:
    """``search=True`` with OpenAI Responses' ``deferred=True``: a ``tool_search`` with ``execution: "client"``
    (our query schema) and the always-on tools; the SDK's own ``tool_search_call`` item run through the box
    gets a ``tool_search_output`` item with the found tools' function definitions, and no server is called."""
    box, manager = searching(always=["crm__crm_get_issue"], search_limit=2)
    tools = box.openai_responses(deferred=True)
    assert tools[0]["type"] == "tool_search" and tools[0]["execution"] == "client"
    assert tools[0]["parameters"]["required"] == ["query"] and "59 further tools" in tools[0]["description"]
    assert [tool["name"] for tool in tools[1:]] == ["crm__crm_get_issue"] and "defer_loading" not in tools[1]
    for item in tools:
        assert_fits(item, openai_responses.ToolParam)
    call = openai_responses.ResponseToolSearchCall(
        id="ts_1",
        call_id="call_9",
        arguments={"query": "archive a billing project"},
        execution="client",
        status="completed",
        type="tool_search_call",
    )
    output = box.run(call)
    assert output["type"] == "tool_search_output" and output["call_id"] == "call_9"
    assert [tool["name"] for tool in output["tools"]] == [
        "billing__billing_archive_project",
        "billing__billing_archive_issue",
    ]
    assert_fits(output, tool_search_items.ResponseToolSearchOutputItemParamParam)
    assert manager.calls == []
    empty = box.run({"type": "tool_search_call", "call_id": "c", "arguments": "{}", "execution": "client"})
    assert empty["tools"] == []
    assert box.openai_responses(deferred=True) == tools  # the tools handed stay the same: OpenAI loads the found ones
    assert len(box.anthropic(deferred=True)) == 61  # Anthropic: its own hosted search, with or without search=True


def test_offered_follows_the_search_so_a_framework_gets_it() -> None:
    """``offered()``: the search tool, the always-on tools, then what was found; ``call`` runs the search
    (as a framework's tool does) and hands back the found definitions as MCP lists them; after
    ``refresh()`` the found tools still listed stay offered."""
    box, manager = searching(always=["tracker__tracker_get_issue"], search_limit=3)
    assert [o.name for o in box.offered()] == ["search_tools", "call_tool", "tracker__tracker_get_issue"]
    result = box.call("search_tools", {"query": "billing invoices customers export"})
    assert not result.is_error
    definitions = json.loads(result.content[0].text.split("\n", 1)[1])
    assert set(definitions[0]) == {"name", "description", "inputSchema"}
    names = [o.name for o in box.offered()]
    assert names[:3] == ["search_tools", "call_tool", "tracker__tracker_get_issue"] and len(names) == 6
    assert set(names[3:]) == {d["name"] for d in definitions}  # in the box's order
    box.call(names[3], {"format": "csv"})
    assert manager.calls == [(names[3], {"format": "csv"})]
    manager.tools = [tool for tool in manager.tools if tool.name != names[4]]  # the server dropped one
    box.refresh()
    assert [o.name for o in box.offered()] == [*names[:4], *names[5:]]  # the other found ones stay found


def test_the_dispatcher_calls_a_found_tool_by_name_in_every_path() -> None:
    """Issue 37, point 3: ``call_tool`` (the dispatcher) runs the tool it names: through ``call`` (the
    frameworks' way) and ``run`` (the vendors': the answer under the dispatcher's call id and name);
    the answer of a search says to use it; a call without a name, or with arguments that are no
    object, is an error the model can read, and a held-back tool stays refused."""
    box, manager = searching(search_limit=2)
    answer = box.call("search_tools", {"query": "create an invoice for a billing customer"}).content[0].text
    assert answer.startswith('Found 2 tool(s): call one through call_tool with {"name": <its name>, "arguments"')
    found = found_in(answer)
    result = box.call("call_tool", {"name": found[0], "arguments": {"fields": {"title": "Q3"}}})
    assert not result.is_error and manager.calls == [(found[0], {"fields": {"title": "Q3"}})]
    block = box.run({"type": "tool_use", "id": "toolu_1", "name": "call_tool", "input": {"name": found[1]}})
    assert block["tool_use_id"] == "toolu_1" and "is_error" not in block
    assert manager.calls[-1] == (found[1], {})
    part = box.run({"function_call": {"name": "call_tool", "args": {"name": found[1], "arguments": {"x": 1}}}})
    assert part["function_response"]["name"] == "call_tool"  # Gemini's answer names the call it answers
    assert box.call("call_tool", {}).is_error
    refused = box.run(
        {"type": "tool_use", "id": "t2", "name": "call_tool", "input": {"name": found[0], "arguments": [1]}}
    )
    assert refused["is_error"] is True and "'arguments' must be a JSON object" in refused["content"][0]["text"]
    unknown = box.run({"type": "tool_use", "id": "t3", "name": "call_tool", "input": {"name": "nope"}})
    assert unknown["content"][0]["text"].startswith("There is no tool named 'nope'")


def test_a_search_says_which_servers_are_not_searched_yet() -> None:
    """Issue 37, point 4: a Manager's servers still starting (``not_listed()``) are named in the answer
    the model reads, found tools or none."""
    manager = StandInManager()
    manager.not_listed = lambda: ["time"]  # type: ignore[attr-defined]  # as a Manager's, a server starting
    box = ToolBox(manager, search=True, search_limit=1)
    answer = box.call("search_tools", {"query": "billing customer"}).content[0].text
    assert "The tools of 'time' are not searched yet (still starting): search again soon." in answer.split("\n")[0]
    nothing = box.call("search_tools", {"query": "weather forecast"}).content[0].text
    assert nothing.endswith("The tools of 'time' are not searched yet (still starting): search again soon.")


def test_an_unknown_always_name_warns_a_bad_limit_is_refused_and_a_tool_named_search_tools_stays() -> None:
    """``always=`` naming no tool is a ``ConfigurationWarning``; a limit below 1 and a lone string are refused;
    a tool of the box named ``search_tools`` keeps its name, and the meta-tool takes another."""
    with pytest.warns(ConfigurationWarning, match="'nope'"):
        searching(always=["nope"])
    with pytest.raises(ValueError, match="search_limit"):
        searching(search_limit=0)
    with pytest.raises(TypeError, match="always="):
        searching(always="crm__crm_get_issue")
    own = {"name": "search_tools", "description": "The server's own search.", "inputSchema": {"type": "object"}}
    manager = StandInManager()
    manager.tools.append(ManagedTool("search_tools", "crm", Tool.from_dict(own)))  # as one client's tool is named
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        box = ToolBox(manager, search=True, always=["search_tools"])
    assert [o.name for o in box.offered()] == ["mcpsync_search_tools", "call_tool", "search_tools"]
    assert "matches" not in box.call("search_tools").content[0].text  # the server's own tool, called


def test_langchain_agent_searches_then_calls_the_found_tool_in_one_run() -> None:
    """Issue 37, point 3: one LangChain agent run (a scripted model of LangChain's own interface):
    ``search_tools``, then ``call_tool`` with the found tool's name. The run's tools were fixed at its
    start (``search_tools`` and ``call_tool`` alone), and the found tool is called on its server
    (before, the answer said "they can be called now", and LangChain refused the found tool's name)."""
    pytest.importorskip("langchain.agents")
    from langchain.agents import create_agent

    from tests.edges.frameworks.langchain_model import PlannedChatModel

    box, manager = searching(search_limit=2)
    assert [tool.name for tool in box.langchain()] == ["search_tools", "call_tool"]
    plan = [
        {"tool": "search_tools", "args": {"query": "crm list customers"}},
        {"tool": "call_tool", "args": {"name": "crm__crm_list_issues", "arguments": {"state": "open"}}},
    ]
    agent = create_agent(PlannedChatModel(), box.langchain())
    state = agent.invoke({"messages": [{"role": "user", "content": json.dumps(plan)}]})
    answers = [m for m in state["messages"] if type(m).__name__ == "ToolMessage"]
    assert [m.status for m in answers] == ["success", "success"], state["messages"]
    assert "call one through call_tool" in answers[0].text and "crm__crm_list_issues" in answers[0].text
    assert manager.calls == [("crm__crm_list_issues", {"state": "open"})]


def entry(marker: Path, prefix: str) -> dict[str, Any]:
    args = ["-m", "mcpsync.testing", "--tools", "20", "--tool-prefix", prefix, "--mark-start", str(marker)]
    return {"command": sys.executable, "args": args, "env": SERVER_ENV}


def starts(marker: Path) -> int:
    return len(marker.read_text().split()) if marker.exists() else 0


def test_over_a_lazy_manager_a_search_starts_the_found_tools_servers_only(tmp_path: Path) -> None:
    """Two servers, their tool lists cached: the box starts neither; a search whose tools are all
    ``billing``'s starts ``billing`` (without waiting for it: the answer comes from the cache), not
    ``crm``; the found tool's call then finds its server, started once, and gets its answer."""
    cache = tmp_path / "tools.json"
    markers = {name: tmp_path / f"{name}.started" for name in ("crm", "billing")}
    config = {"mcpServers": {name: entry(marker, name) for name, marker in markers.items()}}
    with mcpsync.Manager(config, tool_cache=cache, startup_timeout=T):
        pass
    for marker in markers.values():
        marker.unlink()
    with mcpsync.Manager(config, tool_cache=cache, start="lazy", startup_timeout=T) as manager:
        box = ToolBox(manager, search=True, search_limit=2, timeout=T)
        assert {name: starts(marker) for name, marker in markers.items()} == {"crm": 0, "billing": 0}
        block = box.run(use("search_tools", query="billing archive project"))
        found = found_in(block["content"][0]["text"])
        assert found[0] == "billing__billing_archive_project"
        assert all(name.startswith("billing__") for name in found), found
        assert manager.status()["billing"].state is not mcpsync.ServerState.IDLE
        assert manager.wait_until_ready(T)
        assert {name: starts(marker) for name, marker in markers.items()} == {"crm": 0, "billing": 1}
        done = box.run(use("billing__billing_archive_project", id="7"))
        assert "is_error" not in done and "billing_archive_project: done" in done["content"][0]["text"]
        assert {name: starts(marker) for name, marker in markers.items()} == {"crm": 0, "billing": 1}
        assert manager.status()["crm"].state == mcpsync.ServerState.IDLE


def test_a_search_over_huge_descriptions_costs_a_bounded_index_not_copies() -> None:
    """One server's 4 MB of descriptions (issue 36, point 10: the search cost 21 MB of peak memory per
    MB): a box with ``search=True`` costs at most 1 MB more at its peak than one without, and the words
    past the part each tool's description indexes (``MAX_INDEXED``) are not searched."""
    manager = StandInManager()
    vocabulary = [f"term{n}" for n in range(5000)]
    huge = " ".join(vocabulary[(n * 7919) % 5000] for n in range(500_000))[: 4 << 20] + " needle"
    manager.tools[0] = ManagedTool(
        "tracker__big", "tracker", Tool.from_dict({"name": "big", "description": huge, "inputSchema": {}})
    )

    def peak(search: bool) -> int:
        tracemalloc.start()
        try:
            ToolBox(manager, search=search)
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    assert peak(True) - peak(False) < 1 << 20
    box = ToolBox(manager, search=True)
    assert found_in(box.call("search_tools", {"query": "term0"}).text) == ["tracker__big"]  # the indexed start
    assert box.call("search_tools", {"query": "needle"}).text.startswith("No tool matches")
    assert len(huge) > MAX_INDEXED
