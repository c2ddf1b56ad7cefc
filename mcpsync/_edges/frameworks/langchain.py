"""LangChain and LangGraph: a box's tools as ``StructuredTool``s (``ToolBox.langchain()``), sync and async.

    tools = box.langchain()                      # needs langchain-core
    agent = langchain.agents.create_agent(model, tools)   # or LangGraph's prebuilt agents

Each tool's ``args_schema`` is the MCP tool's input schema (a JSON Schema dict, which langchain-core
takes as it is), every argument goes to the server, even one named ``config`` or ``callbacks``, which
LangChain keeps for itself in tools made from a function. ``.invoke`` blocks on the caller's thread
(Ctrl-C cancels the call on the server); ``.ainvoke`` runs the call on a thread of its own and cancels
it on the server when the awaiting task is cancelled (``common.acall``).

Results are ``response_format="content_and_artifact"``: the content is the text (with the images as
LangChain image blocks when there are any), the artifact a dict of what a program may want beside it:
``structured_content``, ``images`` (``{"base64", "mime_type"}``) and ``resource_links``. A tool's failure,
and a call the model got wrong (bad arguments, a timeout), raise ``ToolException``, which the tool hands
to the model as its result (``handle_tool_error=True``, status ``"error"``); a lost connection or an
authorization needed is raised to the program.
"""

from __future__ import annotations

import functools
from typing import Any, NoReturn, Optional

from ..._core.errors import MCPError
from ..._core.timeouts import USE_DEFAULT, Timeout
from ..._session.content import ImageContent
from ..._session.models import CallToolResult
from .common import (
    Box,
    OfferedTool,
    acall,
    adapted,
    content_parts,
    error_text,
    model_can_fix,
    need,
    result_images,
    result_links,
)

__all__ = ["langchain_tools"]

PACKAGE = "langchain-core"


def langchain_tools(box: Box, timeout: Timeout = USE_DEFAULT) -> list[Any]:
    """The tools ``box`` offers, as LangChain ``StructuredTool``s (see the module's docstring)."""
    tool_class = _tool_class()
    exception = need("langchain_core.tools", PACKAGE).ToolException
    return adapted("LangChain", box.offered(), lambda offered: _tool(tool_class, exception, box, offered, timeout))


@functools.lru_cache(maxsize=1)
def _tool_class() -> Any:
    structured = need("langchain_core.tools", PACKAGE).StructuredTool

    class MCPStructuredTool(structured):  # type: ignore[misc,valid-type]
        """A ``StructuredTool`` whose keyword arguments are all the MCP tool's: with neither ``run_manager``
        nor a ``RunnableConfig`` in these signatures, LangChain adds none of its own to them."""

        def _run(self, *args: Any, **arguments: Any) -> Any:
            return self.func(**arguments)

        async def _arun(self, *args: Any, **arguments: Any) -> Any:
            return await self.coroutine(**arguments)

    return MCPStructuredTool


def _tool(tool_class: Any, exception: type[Exception], box: Box, offered: OfferedTool, timeout: Timeout) -> Any:
    name = offered.name

    def run(**arguments: Any) -> tuple[Any, Optional[dict[str, Any]]]:
        try:
            result = box.call(name, arguments, timeout=timeout)
        except MCPError as exc:
            _raise(exc, exception)
        return _answer(result, exception)

    async def arun(**arguments: Any) -> tuple[Any, Optional[dict[str, Any]]]:
        try:
            result = await acall(box, name, arguments, timeout)
        except MCPError as exc:
            _raise(exc, exception)
        return _answer(result, exception)

    return tool_class(
        name=name,
        description=offered.description,
        args_schema=offered.input_schema,
        func=run,
        coroutine=arun,
        response_format="content_and_artifact",
        handle_tool_error=True,
        metadata={"mcp_tool": offered.tool.name},
    )


def _raise(exc: MCPError, exception: type[Exception]) -> NoReturn:
    """A failed call: ``ToolException`` when the model can act on it, else the error itself."""
    if model_can_fix(exc):
        raise exception(f"The call failed: {exc}") from exc
    raise exc


def _answer(result: CallToolResult, exception: type[Exception]) -> tuple[Any, Optional[dict[str, Any]]]:
    """``(content, artifact)`` of a result; ``ToolException`` for a tool's failure."""
    if result.is_error:
        raise exception(error_text(result))
    parts = content_parts(result)
    content: Any
    if any(isinstance(part, ImageContent) for part in parts):
        content = [
            {"type": "image", "base64": part.base64_data, "mime_type": part.mime_type}
            if isinstance(part, ImageContent)
            else {"type": "text", "text": part}
            for part in parts
        ]
    else:
        content = "\n".join(part for part in parts if isinstance(part, str))
    artifact: dict[str, Any] = {}
    if result.has_structured_content:
        artifact["structured_content"] = result.structured_content
    images = result_images(result)
    if images:
        artifact["images"] = [{"base64": image.base64, "mime_type": image.mime_type} for image in images]
    links = result_links(result)
    if links:
        artifact["resource_links"] = [link._asdict() for link in links]
    return content, artifact or None
