"""LlamaIndex: a box's tools as ``FunctionTool``s (``ToolBox.llama_index()``), with a sync and an async function.

    tools = box.llama_index()                    # needs llama-index-core
    agent = FunctionAgent(tools=tools, llm=llm)  # or any agent that takes tools

Each tool's ``ToolMetadata`` has the box's name for it, its description, and an ``fn_schema`` whose JSON
Schema is the MCP tool's input schema (what ``get_parameters_dict`` and ``to_openai_tool`` hand a
model). ``tool.call`` blocks on the caller's thread; ``tool.acall`` (what the agents await) runs the call
on a thread of its own and cancels it on the server when the awaiting task is cancelled.

The ``ToolOutput``'s blocks are the result's text (``TextBlock``) and images (``ImageBlock``), its
``raw_output`` the ``CallToolResult`` (structured content and all). A tool's failure raises
``mcpsync.ToolError`` (LlamaIndex's agents hand a tool's exception to the model as an error output,
``is_error=True``); a lost connection raises ``TransportError``, which the agents hand on the same way
(their design: every exception of a tool goes to the model), with the exception in the output.
"""

from __future__ import annotations

import base64
import copy
import functools
from typing import Any, ClassVar

from ..._core.timeouts import USE_DEFAULT, Timeout
from ..._session.content import ImageContent
from ..._session.models import CallToolResult
from .common import Box, OfferedTool, acall, adapted, content_parts, need

__all__ = ["llama_index_tools"]

PACKAGE = "llama-index-core"


def llama_index_tools(box: Box, timeout: Timeout = USE_DEFAULT) -> list[Any]:
    """The tools ``box`` offers, as LlamaIndex ``FunctionTool``s (see the module's docstring)."""
    tool_class = _tool_class()
    metadata = need("llama_index.core.tools", PACKAGE).ToolMetadata
    return adapted("LlamaIndex", box.offered(), lambda offered: _tool(tool_class, metadata, box, offered, timeout))


@functools.lru_cache(maxsize=1)
def _tool_class() -> Any:
    function_tool = need("llama_index.core.tools", PACKAGE).FunctionTool
    blocks = need("llama_index.core.base.llms.types", PACKAGE)

    class MCPFunctionTool(function_tool):  # type: ignore[misc,valid-type]
        """A ``FunctionTool`` whose output blocks are an MCP result's text and images."""

        def _parse_tool_output(self, raw_output: Any) -> list[Any]:
            if not isinstance(raw_output, CallToolResult):
                return super()._parse_tool_output(raw_output)  # type: ignore[no-any-return]
            return [
                blocks.ImageBlock(image=base64.b64decode(part.base64_data), image_mimetype=part.mime_type)
                if isinstance(part, ImageContent)
                else blocks.TextBlock(text=part)
                for part in content_parts(raw_output)
            ]

    return MCPFunctionTool


@functools.lru_cache(maxsize=1)
def _schema_base() -> Any:
    pydantic = need("pydantic", PACKAGE)

    class MCPArguments(pydantic.BaseModel):  # type: ignore[misc,name-defined]
        """The arguments of an MCP tool: any, as its input schema says; ``model_json_schema`` gives that
        schema (LlamaIndex hands it to the model)."""

        model_config = pydantic.ConfigDict(extra="allow")
        input_schema: ClassVar[dict[str, Any]] = {}  # each tool's subclass sets its own

        @classmethod
        def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
            return copy.deepcopy(cls.input_schema)

    return MCPArguments


def _schema(offered: OfferedTool) -> Any:
    """A pydantic model of its own for one tool, its JSON Schema the tool's input schema."""
    return type(f"{offered.name}_arguments", (_schema_base(),), {"input_schema": offered.input_schema})


def _tool(tool_class: Any, metadata: Any, box: Box, offered: OfferedTool, timeout: Timeout) -> Any:
    name = offered.name

    def run(**arguments: Any) -> CallToolResult:
        return box.call(name, arguments, timeout=timeout).raise_for_error()

    async def arun(**arguments: Any) -> CallToolResult:
        return (await acall(box, name, arguments, timeout)).raise_for_error()

    described = metadata(name=name, description=offered.description, fn_schema=_schema(offered))
    return tool_class(fn=run, async_fn=arun, metadata=described)
