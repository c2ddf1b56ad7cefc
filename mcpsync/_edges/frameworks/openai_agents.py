"""The OpenAI Agents SDK (``openai-agents``) over a ``ToolBox``: the SDK's own MCP server interface, and
plain ``FunctionTool``s.

``box.openai_agents_server()`` is an ``agents.mcp.MCPServer`` (``Agent(mcp_servers=[...])``): it lists
the box's tools on each run (``cache_tools_list=True`` keeps the first list until
``invalidate_tools_cache()``), applies the SDK's ``tool_filter`` (static or callable), and hands the
SDK ``mcp.types`` results, which the SDK turns into text, images and, with
``use_structured_content=True``, the structured content. ``box.openai_agents()`` gives the same tools
as ``FunctionTool``s, for agents built without MCP servers.

Each call runs through ``acall``: a thread of its own, cancelled on the server when the run's task is
cancelled (or Ctrl-C ends ``Runner.run_sync``). What the model can act on (the server refused its
arguments, the call timed out, a tool failed) reaches it as the tool's output; what it cannot (the
connection is gone, authorization is needed) ends the run with that exception as the cause.
"""

from __future__ import annotations

import copy
import functools
import inspect
import json
import logging
from typing import Any, Optional

from ..._core.errors import MCPError
from ..._core.timeouts import USE_DEFAULT, Timeout
from ..._session.content import ImageContent
from ..._session.models import CallToolResult
from .common import Box, OfferedTool, acall, adapted, arun, content_parts, error_text, model_can_fix, need

__all__ = ["openai_agents_server", "openai_agents_tools"]

logger = logging.getLogger("mcpsync.frameworks.openai_agents")

#: The package to install for this integration.
PACKAGE = "openai-agents"
#: ``failure_error_function`` not given: mcpsync's (``_failure_text``) is used.
_UNSET: Any = object()


def openai_agents_server(
    box: Box,
    *,
    name: str = "mcpsync",
    cache_tools_list: bool = False,
    tool_filter: Any = None,
    use_structured_content: bool = False,
    failure_error_function: Any = _UNSET,
    timeout: Timeout = USE_DEFAULT,
    **options: Any,
) -> Any:
    """The box as the Agents SDK's ``MCPServer`` (``ToolBox.openai_agents_server``)."""
    need("agents.mcp", PACKAGE)
    if failure_error_function is not _UNSET:  # unset: the agent's (``mcp_config``) decides, as for the SDK's servers
        options["failure_error_function"] = failure_error_function
    return _server_class()(
        box,
        name=name,
        cache_tools_list=cache_tools_list,
        tool_filter=tool_filter,
        use_structured_content=use_structured_content,
        timeout=timeout,
        **options,
    )


def openai_agents_tools(box: Box, *, timeout: Timeout = USE_DEFAULT) -> list[Any]:
    """The box's tools as the Agents SDK's ``FunctionTool``s (``ToolBox.openai_agents``)."""
    agents = need("agents", PACKAGE)
    return adapted("OpenAI Agents", box.offered(), lambda offered: _function_tool(agents, box, offered, timeout))


# -- the MCP server interface ---------------------------------------------------


@functools.cache
def _server_class() -> type:
    """The ``MCPServer`` subclass, made once the SDK is imported (its base class comes from the SDK)."""
    from agents.exceptions import UserError
    from agents.mcp import MCPServer
    from agents.mcp.util import ToolFilterContext

    class MCPSyncServer(MCPServer):
        """A ``ToolBox`` as the Agents SDK's MCP server: ``Agent(mcp_servers=[box.openai_agents_server()])``.

        Attributes:
            cache_tools_list: keep the first list (the SDK's flag): a server's later changes are not
                seen until ``invalidate_tools_cache()``; default ``False``, list on each run.
            tool_filter: the SDK's filter: ``{"allowed_tool_names": [...], "blocked_tool_names": [...]}``
                or a callable ``(ToolFilterContext, tool) -> bool`` (may be async), by the names the
                box offers (qualified ``server__tool`` with a Manager).
        """

        def __init__(
            self,
            box: Box,
            *,
            name: str,
            cache_tools_list: bool,
            tool_filter: Any,
            timeout: Timeout,
            **options: Any,
        ) -> None:
            super().__init__(**options)
            self._own_failure_function = "failure_error_function" in options
            self.box = box
            self.cache_tools_list = cache_tools_list
            self.tool_filter = tool_filter
            self._name = name
            self._timeout = timeout
            self._tools: Optional[list[Any]] = None
            self._generation = 0

        @property
        def name(self) -> str:
            return self._name

        def _get_failure_error_function(self, agent_function: Any) -> Any:
            """The SDK's choice (the server's own function, else the agent's ``mcp_config``), with
            mcpsync's ``_failure_text`` in place of the SDK's default: what the model cannot fix is raised."""
            from agents.tool import default_tool_error_function

            chosen = super()._get_failure_error_function(agent_function)
            if self._own_failure_function or chosen is not default_tool_error_function:
                return chosen
            return _failure_text

        async def connect(self) -> None:
            """Nothing to do: the box's clients are opened (and closed) by their owner."""

        async def cleanup(self) -> None:
            """Nothing to do: the box's clients are closed by their owner."""

        @property
        def cached_tools(self) -> Optional[list[Any]]:
            return None if self._tools is None else copy.deepcopy(self._tools)

        def invalidate_tools_cache(self) -> None:
            """Forget the kept list: the next run lists the tools again."""
            self._generation += 1
            self._tools = None

        async def list_tools(self, run_context: Any = None, agent: Any = None) -> list[Any]:
            """The box's tools as ``mcp.types.Tool``s, read again unless ``cache_tools_list`` keeps them,
            and filtered by ``tool_filter``."""
            tools = self._tools if self.cache_tools_list else None
            if tools is None:
                generation = self._generation
                offered = await arun(lambda: _refreshed(self.box), "mcpsync-refresh")
                tools = adapted("OpenAI Agents", offered, _mcp_tool)
                if generation == self._generation:
                    self._tools = tools
            return copy.deepcopy(await self._filtered(tools, run_context, agent))

        async def _filtered(self, tools: list[Any], run_context: Any, agent: Any) -> list[Any]:
            given = self.tool_filter
            if given is None:
                return tools
            if isinstance(given, dict):
                if "allowed_tool_names" in given:
                    tools = [tool for tool in tools if tool.name in given["allowed_tool_names"]]
                if "blocked_tool_names" in given:
                    tools = [tool for tool in tools if tool.name not in given["blocked_tool_names"]]
                return tools
            if run_context is None or agent is None:
                raise UserError("run_context and agent are required for dynamic tool filtering")
            context = ToolFilterContext(run_context=run_context, agent=agent, server_name=self.name)
            kept = []
            for tool in tools:
                try:
                    verdict = given(context, copy.deepcopy(tool))
                    if inspect.isawaitable(verdict):
                        verdict = await verdict
                except Exception:  # as the SDK's own servers do: a filter that fails leaves the tool out
                    logger.exception("the tool filter failed on %r; the tool is left out", tool.name)
                    continue
                if verdict:
                    kept.append(tool)
            return kept

        async def call_tool(self, tool_name: str, arguments: Optional[dict[str, Any]], meta: Any = None) -> Any:
            """Call the tool on its server; ``meta`` (the SDK's ``tool_meta_resolver``'s and the tool's
            own ``_meta``, merged by the SDK) is the request's ``_meta``."""
            # What fails goes up as it is: the SDK's failure pipeline hands it to ``failure_error_function``.
            return _mcp_result(await acall(self.box, tool_name, arguments or {}, self._timeout, meta))

        async def list_prompts(self) -> Any:
            """Not offered: a box hands a model tools only."""
            raise NotImplementedError("mcpsync's OpenAI Agents server offers tools only (no prompts)")

        async def get_prompt(self, name: str, arguments: Optional[dict[str, Any]] = None) -> Any:
            """Not offered: a box hands a model tools only."""
            raise NotImplementedError("mcpsync's OpenAI Agents server offers tools only (no prompts)")

    MCPSyncServer.__module__ = __name__
    MCPSyncServer.__qualname__ = "MCPSyncServer"
    return MCPSyncServer


def _refreshed(box: Box) -> list[OfferedTool]:
    box.refresh()
    return box.offered()


def _mcp_tool(offered: OfferedTool) -> Any:
    """An offered tool as an ``mcp.types.Tool``, under the name the box offers it as."""
    from mcp.types import Tool
    from pydantic import ValidationError

    fields = {"name": offered.name, "description": offered.description, "inputSchema": offered.input_schema}
    try:
        return Tool.model_validate({**offered.tool.raw, **fields})
    except ValidationError:  # a field the SDK's model does not take (liberal in what we accept): leave the rest
        return Tool.model_validate(fields)


def _mcp_result(result: CallToolResult) -> Any:
    """A result as an ``mcp.types.CallToolResult``, as the SDK's own servers hand it over."""
    from mcp.types import CallToolResult as SDKResult
    from pydantic import ValidationError

    try:
        return SDKResult.model_validate(dict(result.raw))
    except ValidationError:  # a content block the SDK's model does not know: the parts as text and images
        blocks = [
            {"type": "image", "data": part.base64_data, "mimeType": part.mime_type}
            if isinstance(part, ImageContent)
            else {"type": "text", "text": part}
            for part in content_parts(result)
        ]
        return SDKResult.model_validate({"content": blocks, "isError": result.is_error})


def _failure_text(context: Any, error: Exception) -> str:
    """The SDK's ``failure_error_function``: what went wrong, for the model; raise what it cannot fix."""
    cause = _mcpsync_error(error)
    if cause is None:
        from agents.tool import default_tool_error_function

        return default_tool_error_function(context, error)
    if not model_can_fix(cause):
        raise error
    return f"Error: the call failed: {cause}"


def _mcpsync_error(error: BaseException) -> Optional[MCPError]:
    """The mcpsync error that caused ``error`` (the SDK wraps what a server raises), if any."""
    seen: set[int] = set()
    found: Optional[BaseException] = error
    while found is not None and id(found) not in seen:
        if isinstance(found, MCPError):
            return found
        seen.add(id(found))
        found = found.__cause__ or found.__context__
    return None


# -- plain function tools -------------------------------------------------------


def _function_tool(agents: Any, box: Box, offered: OfferedTool, timeout: Timeout) -> Any:
    """One offered tool as a ``FunctionTool`` (the SDK's own default tool timeout, none, is kept)."""
    schema = dict(offered.input_schema)
    schema.setdefault("properties", {})  # the SDK's models need "properties" (MCP does not)
    name = offered.name

    async def invoke(context: Any, arguments: str) -> Any:
        try:
            given = json.loads(arguments) if arguments.strip() else {}
        except ValueError as exc:
            return f"Error: the arguments are not valid JSON: {exc}"
        if not isinstance(given, dict):
            return "Error: the arguments must be a JSON object."
        try:
            result = await acall(box, name, given, timeout)
        except MCPError as exc:
            if model_can_fix(exc):
                return f"Error: the call failed: {exc}"
            raise
        if result.is_error:
            return f"Error: {error_text(result)}"
        return _tool_output(result)

    return agents.FunctionTool(
        name=name,
        description=offered.description,
        params_json_schema=schema,
        on_invoke_tool=invoke,
        strict_json_schema=False,
    )


def _tool_output(result: CallToolResult) -> Any:
    """A result as the SDK's tool output: text and image items (one item alone as itself)."""
    items: list[dict[str, str]] = []
    for part in content_parts(result):
        if isinstance(part, ImageContent):
            items.append({"type": "image", "image_url": f"data:{part.mime_type};base64,{part.base64_data}"})
        else:
            items.append({"type": "text", "text": part})
    return items[0] if len(items) == 1 else items
