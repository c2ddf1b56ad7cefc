"""MCP tools handed straight to a model: definitions in each vendor's function-calling format, and the
model's tool calls run on the right server, their results in that vendor's shape.

No model SDK is needed (nor imported): everything is plain dicts, as each
SDK accepts them; the SDKs' own objects are accepted as tool calls too (by
their ``model_dump()``).

    box = mcpsync.ToolBox(client_or_manager)
    tools = box.anthropic()                  # or .openai(), .openai_responses(), .gemini()
    ... the model answers with a tool call ...
    message = box.run(tool_call)             # the tool_result block (or tool message, ...) to send back

The formats (``format=``): ``"openai"`` (Chat Completions: a ``tool_calls``
entry in, a ``role: tool`` message out), ``"openai-responses"`` (a
``function_call`` item in, a ``function_call_output`` item out),
``"anthropic"`` (a ``tool_use`` block in, a ``tool_result`` block out),
``"gemini"`` (a ``function_call`` in, a ``function_response`` part out).
``run`` tells them apart by their shape.

What a tool returns goes back as the format can carry it: text as text,
images as images where the format takes them in a tool result (Anthropic,
OpenAI Responses; elsewhere a line saying an image was left out), structured
content as JSON (Gemini: as the response object). A tool's failure, and a
call the model got wrong (an unknown tool, arguments that are not JSON, a
server's ``-32602``), come back as errors the model can read and act on;
what the model cannot fix (the connection is gone, authorization is needed,
Ctrl-C) is raised.
"""

from __future__ import annotations

import copy
import json
import logging
import warnings
from collections.abc import Iterable, Mapping
from typing import Any, Callable, Optional

from ..._core.errors import (
    AuthorizationError,
    ConfigurationError,
    ConfigurationWarning,
    MCPError,
    TransportError,
    UnknownNameError,
)
from ..._core.timeouts import USE_DEFAULT, Timeout
from ..._manager.naming import qualify_all
from ..._manager.tool_filter import Patterns, ToolFilter, filters_for, unmatched_patterns
from ..._session.client import Client
from ..._session.models import CallToolResult, Tool
from ..frameworks.common import OfferedTool
from .formats import as_dict, definition, read_call, result_of, tool_result
from .schemas import FORMATS, adapt_schema, over_budget, safe_names
from .search import DEFAULT_LIMIT, VENDOR_SEARCH, ToolSearch

__all__ = ["FORMATS", "ToolBox", "ToolDefinitions"]

logger = logging.getLogger("mcpsync.llm")
#: The fields of Gemini's ``FunctionCall``.


class ToolDefinitions(list):  # type: ignore[type-arg]
    """The tools in one format (a list of dicts, ready for the SDK), and what the format could not carry.

    Attributes:
        format: the format's name.
        dropped: ``{function name: [paths of the schema keywords left out]}``, for the tools that lost any.
        held_back: ``{tool name: why}``, the tools left out whole (``ToolBox.held_back``).
    """

    def __init__(
        self,
        items: Iterable[dict[str, Any]],
        format: str,
        dropped: dict[str, list[str]],
        held_back: Optional[dict[str, str]] = None,
    ) -> None:
        super().__init__(items)
        self.format = format
        self.dropped = dropped
        self.held_back = dict(held_back or {})


class _Entry:
    """One tool: how to call it, and what it is."""

    def __init__(self, name: str, tool: Tool, call: Callable[..., Any], server: str = ""):
        self.name = name
        self.tool = tool
        self.server = server  # the server (or client) it comes from
        self.description = tool.description or ""
        self.schema = tool.input_schema
        self.visibility = tool.visibility
        self.call = call


class ToolBox:
    """The tools of a ``Client``, a ``Manager``, or several clients, for a model's function calling.

    The tool lists are read when the box is made (a client's ``list_tools``, a
    manager's qualified tools); ``refresh()`` reads them again. Each tool gets
    a function name every format accepts (``names`` maps them back). The tools of
    several clients are named as a ``Manager`` names them: ``<client>__<tool>``, and
    where two would get the same name (server ``a``'s ``b__c``, server ``a__b``'s
    ``c``), the later one ends in a short hash of its own: every tool is there,
    and every call goes to its own server. Two different clients with the same
    ``name`` are refused (``ConfigurationError``).

    A tool that the MCP Apps extension marks as not for the model (its
    ``_meta.ui.visibility`` lacks ``"model"``: an app's own button, say) is never
    handed to a model: ``held_back`` maps its (qualified) name to the reason, and a
    call of it through ``run`` gets an error result saying so; it is not called.

    ``include_tools`` / ``exclude_tools`` filter the tools as ``Manager(include_tools=,
    exclude_tools=)`` does (a list of tool names or glob patterns for every server, or
    ``{client name: [patterns]}``, matched against a tool's own name): a tool they take out is
    held back too, the rule as its reason. Over a ``Manager`` the manager's own filters (its
    configuration files') have already applied.

    ``search=True``: a model is handed the tools named in ``always`` (box names), a ``search_tools(query)``
    tool (``run`` and ``call`` answer it: the best ``search_limit`` tools by BM25, ``tool_search``; no
    server is called; a lazy ``Manager`` starts the found tools' servers, without waiting) and, from then
    on, the tools found: in the definitions and in ``offered()``. Any tool is still routed by name.
    """

    def __init__(
        self,
        source: Any,
        *,
        timeout: Timeout = USE_DEFAULT,
        include_tools: Patterns = None,
        exclude_tools: Patterns = None,
        search: bool = False,
        always: Iterable[str] = (),
        search_limit: int = DEFAULT_LIMIT,
    ) -> None:
        self._source = source
        self._search = ToolSearch(always, search_limit, self._start_servers) if search else None
        not_listed = None if isinstance(source, Client) else getattr(source, "not_listed", None)
        if self._search is not None and callable(not_listed):  # a Manager's servers still starting
            self._search.missing = not_listed
        self._always = tuple(always)
        self._timeout = timeout
        self._filter_options = (include_tools, exclude_tools)
        self._warned: set[tuple[str, str, str]] = set()
        self._entries: dict[str, _Entry] = {}
        self.names: dict[str, str] = {}
        #: ``{tool name: why}`` for the tools never handed to a model (MCP Apps: not visible to it).
        self.held_back: dict[str, str] = {}
        self._dropped: Optional[dict[str, dict[str, list[str]]]] = None
        self.refresh()

    @property
    def dropped(self) -> dict[str, dict[str, list[str]]]:
        """``{format: {function name: [schema keywords left out]}}``: what each format cannot tell the
        model, for the formats and tools that lose anything (``{}``: nothing lost anywhere). Worked out
        when first read (each format's definitions say their own: ``ToolDefinitions.dropped``)."""
        if self._dropped is None:
            dropped: dict[str, dict[str, list[str]]] = {}
            for format in FORMATS:
                lost = {name: adapt_schema(entry.schema, format)[1] for name, entry in self._entries.items()}
                lost = {name: paths for name, paths in lost.items() if paths}
                if lost:
                    dropped[format] = lost
            self._dropped = dropped
        return self._dropped

    def refresh(self) -> None:
        """Read the tool lists again (after a server's list changed, say)."""
        entries: list[tuple[str, _Entry]] = []
        held_back: dict[str, str] = {}
        listed = list(self._tools())
        filters = self._filters(listed)
        for qualified, entry in listed:
            why = filters[entry.server].why_not(entry.tool.name) if filters else None
            if why is not None:
                held_back[qualified] = why
                continue
            if "model" not in entry.visibility:
                held_back[qualified] = (
                    f"its _meta.ui.visibility is {list(entry.visibility)}, without 'model' (MCP Apps)"
                )
                logger.info("tool %r not handed to the model: %s", qualified, held_back[qualified])
                continue
            too_big = over_budget(entry.schema)
            if too_big is not None:  # one server's schema never costs the others their tools
                held_back[qualified] = f"its inputSchema is {too_big}"
                logger.warning("tool %r not handed to the model: its inputSchema is %s", qualified, too_big)
                continue
            entries.append((qualified, entry))
        names = safe_names(qualified for qualified, _ in entries)
        self._entries = {names[qualified]: entry for qualified, entry in entries}
        self.names = {names[qualified]: qualified for qualified, _ in entries}
        self.held_back = held_back
        self._dropped = None
        if self._search is not None:
            self._search.rebuild({name: (entry.tool, entry.schema) for name, entry in self._entries.items()})

    def _start_servers(self, found: list[str]) -> None:
        """A search found ``found``: a lazy ``Manager`` starts their idle servers now, without waiting."""
        start = None if isinstance(self._source, Client) else getattr(self._source, "start_server", None)
        if start is None:
            return
        for server in dict.fromkeys(self._entries[name].server for name in found):
            try:
                start(server)
            except MCPError as exc:  # a server gone from the configuration: its call will say so
                logger.info("tool search: server %r not started: %s", server, exc)

    def _shown(self) -> list[str]:
        """The names of the tools a model is handed now (with a search: always-on and found)."""
        return list(self._entries) if self._search is None else self._search.shown(self._entries)

    def _filters(self, listed: list[tuple[str, _Entry]]) -> dict[str, ToolFilter]:
        """The filter of each server (client) of ``listed`` (none without ``include_tools``/``exclude_tools``);
        a ``ConfigurationWarning`` (once) for a pattern that matches none of its server's tools."""
        if self._filter_options == (None, None):
            return {}
        known: dict[str, list[str]] = {}
        for _, entry in listed:
            known.setdefault(entry.server, []).append(entry.tool.name)
        filters = filters_for(dict.fromkeys(known, ({}, "ToolBox")), *self._filter_options, owner="ToolBox")
        for key, text in unmatched_patterns(known, filters, every_server_known=True):
            if key not in self._warned:
                self._warned.add(key)
                warnings.warn(f"ToolBox: {text}", ConfigurationWarning, stacklevel=4)
        return filters

    def _tools(self) -> Iterable[tuple[str, _Entry]]:
        source = self._source
        if isinstance(source, Client):
            yield from self._client_tools(source)
        elif hasattr(source, "list_tools") and hasattr(source, "clients"):  # a Manager
            for tool in source.list_tools():
                server = getattr(tool, "server", "")  # a ManagedTool; a duck-typed manager may lack it
                yield tool.name, _Entry(tool.name, tool.tool, _caller(source, tool.name), server)
        elif isinstance(source, Iterable):
            yield from self._clients_tools(list(source))
        else:
            raise TypeError(f"ToolBox takes a Client, a Manager or clients, not {type(source).__name__}")

    def _clients_tools(self, clients: list[Any]) -> Iterable[tuple[str, _Entry]]:
        """The tools of several clients, with the Manager's unique qualified names (``qualify_all``)."""
        by_name: dict[str, Client] = {}
        for client in clients:
            if not isinstance(client, Client):
                raise TypeError(f"ToolBox takes clients, not {type(client).__name__}")
            if by_name.setdefault(client.name, client) is not client:
                raise ConfigurationError(
                    f"ToolBox: two clients are named {client.name!r}; their tools could not be told apart "
                    "(give each client its own name)"
                )
        listed = {name: client.list_tools(timeout=self._timeout) for name, client in by_name.items()}
        names, collisions = qualify_all(
            (name, tool) for name, tools in listed.items() for tool in sorted(t.name for t in tools)
        )
        for collision in collisions:
            logger.warning("ToolBox: tool names collide: %s", collision)
        qualified = {pair: name for name, pair in names.items()}
        for name, tools in listed.items():
            for tool in tools:
                given = qualified[(name, tool.name)]
                yield given, _Entry(given, tool, _caller(by_name[name], tool.name), name)

    def _client_tools(self, client: Client) -> Iterable[tuple[str, _Entry]]:
        for tool in client.list_tools(timeout=self._timeout):
            yield tool.name, _Entry(tool.name, tool, _caller(client, tool.name), client.name)

    # -- definitions ----------------------------------------------------------

    def definitions(self, format: str, *, deferred: bool = False) -> ToolDefinitions:
        """The tools a model is handed now in ``format`` (see ``FORMATS``); with ``search=True``:
        ``search_tools`` first, then the always-on tools and the ones found.

        ``deferred=True`` (``"anthropic"``, ``"openai-responses"``): the vendor's own deferred form. Its
        hosted tool search first (Anthropic's ``tool_search_tool_bm25``, OpenAI's ``tool_search``), the
        ``always`` tools, every other one ``"defer_loading": True``: the vendor searches. With
        ``search=True``, OpenAI Responses: ``{"type": "tool_search", "execution": "client"}`` and the
        ``always`` tools: the box searches (``run`` answers a ``tool_search_call``), OpenAI loads.
        """
        if format not in FORMATS:
            raise ValueError(f"format must be one of {', '.join(FORMATS)}, not {format!r}")
        if deferred and format not in VENDOR_SEARCH:
            raise ValueError(f"deferred=True: only {' and '.join(VENDOR_SEARCH)} defer tools, not {format!r}")
        search, client = self._search, deferred and self._search is not None and format == "openai-responses"
        items: list[dict[str, Any]] = [dict(VENDOR_SEARCH[format])] if deferred and not client else []
        if search is not None and (client or not deferred):
            items.append(search.client_tool() if client else definition(format, *search.parts()))
            if not client:  # OpenAI loads what its client-executed search found: no dispatcher needed
                items.append(definition(format, *search.dispatcher_parts()))
        dropped: dict[str, list[str]] = {}
        everyone = [name for name in self._entries if name in self._always] if client else list(self._entries)
        for name in everyone if deferred else self._shown():
            item, lost = self._one(format, name)
            if lost:
                dropped[name] = lost
            if deferred and not client and name not in self._always:
                item["defer_loading"] = True
            items.append(item)
        if format == "gemini":
            items = [{"function_declarations": items}] if items else []
        return ToolDefinitions(items, format, dropped, self.held_back)

    def _one(self, format: Optional[str], name: str) -> tuple[dict[str, Any], list[str]]:
        """The tool ``name`` in ``format`` (``None``: as MCP lists it), and its schema's keywords left out."""
        entry = self._entries[name]
        if format is None:
            return {"name": name, "description": entry.description, "inputSchema": dict(entry.schema)}, []
        schema, lost = adapt_schema(entry.schema, format)
        if lost:
            logger.info("tool %r for %s: left out of its schema: %s", entry.name, format, ", ".join(lost))
        return definition(format, name, entry.description, schema), lost

    def openai(self) -> ToolDefinitions:
        """OpenAI Chat Completions ``tools=``: ``{"type": "function", "function": {...}}`` each."""
        return self.definitions("openai")

    def openai_responses(self, *, deferred: bool = False) -> ToolDefinitions:
        """OpenAI Responses ``tools=``: ``{"type": "function", "name", ...}`` each; ``deferred``: ``definitions``."""
        return self.definitions("openai-responses", deferred=deferred)

    def anthropic(self, *, deferred: bool = False) -> ToolDefinitions:
        """Anthropic Messages ``tools=``: ``{"name", "description", ...}`` each; ``deferred``: ``definitions``."""
        return self.definitions("anthropic", deferred=deferred)

    def gemini(self) -> ToolDefinitions:
        """Gemini ``tools=``: one ``{"function_declarations": [...]}`` (a ``types.Tool``)."""
        return self.definitions("gemini")

    def offered(self) -> list[OfferedTool]:
        """The tools this box offers a model now, each under the name ``call`` takes.

        Every agent framework's tools are made from this list (``box.langchain()``, ...), so what a
        box offers is decided here alone: the tools held back from models are not in it, and
        ``refresh()`` brings a server's changes to it. With ``search=True``: ``search_tools`` first, then
        the always-on tools and those found so far (ask again after a search).
        """
        search = self._search
        offered = (
            []
            if search is None
            else [OfferedTool(*search.parts(), search.tool), OfferedTool(*search.dispatcher_parts(), search.dispatcher)]
        )
        for name in self._shown():
            entry = self._entries[name]
            offered.append(OfferedTool(name, entry.description, copy.deepcopy(dict(entry.schema)), entry.tool))
        return offered

    # -- agent frameworks (mcpsync/_edges/frameworks: each imported only when its method is called) --

    def langchain(self, *, timeout: Timeout = USE_DEFAULT) -> list[Any]:
        """The tools as LangChain ``StructuredTool``s, for LangChain and LangGraph agents (needs ``langchain-core``).

        ``.invoke`` and ``.ainvoke`` both work (cancelling the awaiting task cancels the call on the
        server); results are ``content_and_artifact`` (the artifact: structured content, images, resource
        links); a tool's failure reaches the model as a ``ToolException``; a lost connection is raised.

        Raises:
            ImportError: langchain-core is not installed (the message says ``pip install langchain-core``).
        """
        from ..frameworks.langchain import langchain_tools

        return langchain_tools(self, timeout)

    def llama_index(self, *, timeout: Timeout = USE_DEFAULT) -> list[Any]:
        """The tools as LlamaIndex ``FunctionTool``s, for its agents (needs ``llama-index-core``).

        Each has a sync and an async function (the async one cancels the call on the server when its
        task is cancelled) and the ``ToolMetadata`` the agents read (name, description, ``fn_schema``
        giving the input schema); the output's blocks are the result's text and images, its
        ``raw_output`` the ``CallToolResult``; a tool's failure raises ``ToolError``.

        Raises:
            ImportError: llama-index-core is not installed (the message says ``pip install llama-index-core``).
        """
        from ..frameworks.llama_index import llama_index_tools

        return llama_index_tools(self, timeout)

    def smolagents(self, *, timeout: Timeout = USE_DEFAULT) -> list[Any]:
        """The tools as smolagents ``Tool``s, for its agents (needs ``smolagents``).

        Their ``inputs`` and ``output_type`` pass smolagents' own checks (names made Python identifiers,
        ``mcp_name`` keeping the box's); a tool with an ``outputSchema`` returns its structured content,
        others their text (or a result's lone image, as a PIL image); a tool's failure raises ``ToolError``.

        Raises:
            ImportError: smolagents is not installed (the message says ``pip install smolagents``).
        """
        from ..frameworks.smolagents import smolagents_tools

        return smolagents_tools(self, timeout)

    def openai_agents_server(
        self,
        *,
        name: str = "mcpsync",
        cache_tools_list: bool = False,
        tool_filter: Any = None,
        use_structured_content: bool = False,
        timeout: Timeout = USE_DEFAULT,
        **options: Any,
    ) -> Any:
        """The box as the OpenAI Agents SDK's own MCP server: ``Agent(mcp_servers=[box.openai_agents_server()])``.

        An ``agents.mcp.MCPServer`` (``pip install openai-agents``). It lists the box's tools on each
        run, so a server's list change is seen by the next one, unless ``cache_tools_list`` keeps the
        first list (until ``invalidate_tools_cache()``). ``connect()`` and ``cleanup()`` do nothing:
        the box's clients are opened and closed by their owner.

        Args:
            name: the server's name in the SDK (its traces, its errors).
            cache_tools_list: keep the first list (the SDK's flag).
            tool_filter: the SDK's filter: ``{"allowed_tool_names": [...], "blocked_tool_names": [...]}``,
                or a callable ``(ToolFilterContext, tool) -> bool`` (may be async); by the box's names.
            use_structured_content: hand the model the structured content, as JSON, instead of the
                content blocks (the SDK's flag).
            timeout: each call's; default: the box's.
            options: the SDK's other ``MCPServer`` options (``require_approval``,
                ``failure_error_function``, ``tool_meta_resolver``, ``tool_input_guardrails``, ...).
                Without a ``failure_error_function`` (here or in the agent's ``mcp_config``), what the
                model can fix (a refused argument, a timeout) reaches it as the tool's output, with the
                server's words, and a lost connection or missing authorization ends the run.

        Raises:
            ImportError: ``openai-agents`` is not installed.
        """
        from ..frameworks.openai_agents import openai_agents_server

        return openai_agents_server(
            self,
            name=name,
            cache_tools_list=cache_tools_list,
            tool_filter=tool_filter,
            use_structured_content=use_structured_content,
            timeout=timeout,
            **options,
        )

    def openai_agents(self, *, timeout: Timeout = USE_DEFAULT) -> list[Any]:
        """The tools as the OpenAI Agents SDK's ``FunctionTool``s: ``Agent(tools=box.openai_agents())``.

        Each runs its call on a thread of its own, cancelled on the server when the run is; the SDK's own
        tool timeout (``timeout_seconds``, none by default) is left as it is. A tool's failure, refused
        arguments and a timeout reach the model as ``Error: ...`` outputs; a lost connection ends the run.
        The list is the box's now: ``refresh()`` and ask again after a server's list changed.

        Raises:
            ImportError: ``openai-agents`` is not installed.
        """
        from ..frameworks.openai_agents import openai_agents_tools

        return openai_agents_tools(self, timeout=timeout)

    def pydantic_ai(
        self,
        *,
        id: Optional[str] = None,
        max_retries: Optional[int] = None,
        tool_error_behavior: str = "retry",
        timeout: Timeout = USE_DEFAULT,
    ) -> Any:
        """The box as a Pydantic AI toolset: ``Agent(model, toolsets=[box.pydantic_ai()])``.

        A ``pydantic_ai.toolsets.AbstractToolset`` (``pip install pydantic-ai-slim``) that reads the
        box's tools again at the start of each run. The server's refusal of the model's arguments and a
        timed-out call raise ``ModelRetry`` (the model is asked again); a tool's own failure too, or
        ``ToolFailed`` with ``tool_error_behavior="failed"``; a lost connection ends the run. The
        definitions leave ``timeout`` unset; a timeout set on one (a ``prepared`` toolset's) is the call's.
        The agent's ``tool_timeout`` does not apply: the framework gives it to its own function tools only.

        Args:
            id: the toolset's id (the framework's; needed for durable execution).
            max_retries: the retries a tool gets after ``ModelRetry`` (default: the agent's).
            tool_error_behavior: ``"retry"`` or ``"failed"``.
            timeout: each call's; default: the box's.

        Raises:
            ImportError: ``pydantic-ai-slim`` is not installed.
            ValueError: ``tool_error_behavior`` is neither.
        """
        from ..frameworks.pydantic_ai import pydantic_ai_toolset

        return pydantic_ai_toolset(
            self, id=id, max_retries=max_retries, tool_error_behavior=tool_error_behavior, timeout=timeout
        )

    # -- calls ----------------------------------------------------------------

    def call(
        self,
        name: str,
        arguments: Optional[Mapping[str, Any]] = None,
        *,
        timeout: Timeout = USE_DEFAULT,
        meta: Optional[Mapping[str, Any]] = None,
    ) -> CallToolResult:
        """Call the tool offered as ``name`` (an ``OfferedTool.name``) on its own server; block for its result.

        A tool's own failure comes back as ``result.is_error``, as from ``Client.call_tool``.

        Args:
            arguments: the tool's arguments (a JSON object).
            timeout: seconds; ``None`` for no limit; default: the box's (else the client's).
            meta: the request's ``_meta`` (as ``Client.call_tool``'s).

        Raises:
            UnknownNameError: no tool is offered as ``name`` (the message says why: held back from
                models, or not there, with the names that are).
            MCPError: as ``Client.call_tool`` raises (``ServerError``, ``RequestTimeout``,
                ``TransportError``, ...).
        """
        if self._search is not None and name == self._search.name:
            text, error = self._search.answer(dict(arguments or {}), lambda found: self._one(None, found)[0])
            return _text_result(name, text, error)
        if self._search is not None and name == self._search.dispatcher.name:  # a found tool, by its name
            try:
                name, arguments = self._search.dispatched(dict(arguments or {}))
            except ValueError as exc:
                return _text_result(name, str(exc), True)
        entry = self._entries.get(name)
        if entry is None:
            if name in self.held_back:
                raise UnknownNameError(f"the tool {name!r} is not for models: {self.held_back[name]}")
            known = ", ".join(sorted(self._entries)) or "none"
            raise UnknownNameError(f"no tool is offered as {name!r}; the tools: {known}")
        result: CallToolResult = entry.call(
            dict(arguments or {}), self._timeout if timeout is USE_DEFAULT else timeout, meta
        )
        return result

    def run(self, call: Any, *, timeout: Timeout = USE_DEFAULT) -> dict[str, Any]:
        """Run one tool call of the model's and return the result in the same API's shape.

        ``call``: an OpenAI ``tool_calls`` entry, an OpenAI Responses ``function_call``
        item, an Anthropic ``tool_use`` block, or a Gemini ``function_call`` (or a
        ``Part`` holding one); a dict or the SDK's object.

        Raises:
            ValueError: ``call`` is none of these.
            TransportError, AuthorizationError, KeyboardInterrupt: what the model cannot fix.
        """
        data = as_dict(call)
        if data.get("type") == "tool_search_call" and self._search is not None:  # OpenAI's, execution "client"
            return self._search.output(data, lambda found: self._one("openai-responses", found)[0])
        format, call_id, name, arguments = read_call(data)
        shown = name  # the answer goes under the name the model called (the dispatcher's, say)
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments) if arguments.strip() else {}
            except ValueError as exc:
                return result_of(format, call_id, shown, [f"The arguments are not valid JSON: {exc}"], True)
        if not isinstance(arguments, dict):
            return result_of(format, call_id, shown, ["The arguments must be a JSON object."], True)
        if self._search is not None and name == self._search.dispatcher.name:
            try:
                name, arguments = self._search.dispatched(arguments)
            except ValueError as exc:
                return result_of(format, call_id, shown, [str(exc)], True)
        entry = self._entries.get(name)
        search = self._search if self._search is not None and name == self._search.name else None
        known = ", ".join(sorted(self._entries)) or "none" if self._search is None else f"ask {self._search.name}"
        if entry is None and name in self.held_back:
            refusal = f"The tool {name!r} is not for the model: {self.held_back[name]}. It was not called."
            return result_of(format, call_id, shown, [refusal], True)
        if entry is None and search is None:
            return result_of(format, call_id, shown, [f"There is no tool named {name!r}. The tools: {known}."], True)
        if search is not None:
            text, error = search.answer(arguments, lambda found: self._one(format, found)[0])
            return result_of(format, call_id, shown, [text], error)
        assert entry is not None
        try:
            result = entry.call(arguments, self._timeout if timeout is USE_DEFAULT else timeout)
        except (TransportError, AuthorizationError):
            raise
        except MCPError as exc:  # the server refused the call (bad arguments, say), or it timed out
            return result_of(format, call_id, shown, [f"The call failed: {exc}"], True)
        return tool_result(format, call_id, shown, result)


def _text_result(name: str, text: str, is_error: bool) -> CallToolResult:
    """A result of the box's own (a search's answer, a refusal) as a ``CallToolResult`` of one text block."""
    return CallToolResult.from_dict({"content": [{"type": "text", "text": text}], "isError": is_error}, name)


def _caller(target: Any, name: str) -> Callable[[dict[str, Any], Timeout], CallToolResult]:
    def call(arguments: dict[str, Any], timeout: Timeout, meta: Optional[Mapping[str, Any]] = None) -> CallToolResult:
        return target.call_tool(name, arguments, timeout=timeout, meta=meta)  # type: ignore[no-any-return]

    return call
