"""Pydantic AI (``pydantic-ai-slim``) over a ``ToolBox``: a toolset of the framework's own kind
(``pydantic_ai.toolsets.AbstractToolset``), ``Agent(model, toolsets=[box.pydantic_ai()])``.

Dynamic: the box's tools are read again at the start of each run (``for_run``), so a server's list
change is seen by the next run. Each call runs through ``acall`` (a thread of its own, cancelled on the
server when the run's task is cancelled, by the run's ``timeout=`` too; the agent's ``tool_timeout`` is
for its own function tools only, and does not reach a toolset). The framework's
retry semantics, as its own ``MCPToolset`` has them: the server's refusal of the model's arguments
(``-32602``, any error answer) and a timed-out call raise ``ModelRetry``, so the model is asked again
(up to ``max_retries``); a tool's own failure (``isError``) too, or ``ToolFailed`` with
``tool_error_behavior="failed"``; a lost connection or missing authorization is raised out of the run.
Results are mapped as ``MCPToolset`` maps them: the structured content when every block is text, else
text (JSON decoded when it is JSON) and images (``BinaryImage``).
"""

from __future__ import annotations

import base64
import functools
import json
from typing import Any, Optional

from ..._core.errors import MCPError, RequestTimeout
from ..._core.timeouts import USE_DEFAULT, Timeout
from ..._session.content import ImageContent, TextContent
from ..._session.models import CallToolResult
from .common import Box, OfferedTool, acall, adapted, arun, content_parts, error_text, model_can_fix, need

__all__ = ["pydantic_ai_toolset"]

#: The package to install for this integration.
PACKAGE = "pydantic-ai-slim"
#: What a tool's own failure (``isError``) raises: ``ModelRetry`` (the model tries again) or ``ToolFailed``.
TOOL_ERROR_BEHAVIORS = ("retry", "failed")


def pydantic_ai_toolset(
    box: Box,
    *,
    id: Optional[str] = None,
    max_retries: Optional[int] = None,
    tool_error_behavior: str = "retry",
    timeout: Timeout = USE_DEFAULT,
) -> Any:
    """The box as a Pydantic AI toolset (``ToolBox.pydantic_ai``)."""
    need("pydantic_ai.toolsets", PACKAGE)
    if tool_error_behavior not in TOOL_ERROR_BEHAVIORS:
        raise ValueError(
            f"tool_error_behavior must be one of {', '.join(TOOL_ERROR_BEHAVIORS)}, not {tool_error_behavior!r}"
        )
    return _toolset_class()(
        box, id=id, max_retries=max_retries, tool_error_behavior=tool_error_behavior, timeout=timeout
    )


@functools.cache
def _toolset_class() -> type:
    """The ``AbstractToolset`` subclass, made once the framework is imported (its base comes from it)."""
    import pydantic_core
    from pydantic_ai.exceptions import ModelRetry, ToolFailed
    from pydantic_ai.tools import ToolDefinition
    from pydantic_ai.toolsets import AbstractToolset, ToolsetTool

    # Arguments are checked by the server against the tool's schema (a refusal comes back as ModelRetry);
    # here only that they are an object, as the framework's own MCPToolset does.
    arguments_validator = pydantic_core.SchemaValidator(
        pydantic_core.core_schema.dict_schema(
            pydantic_core.core_schema.str_schema(), pydantic_core.core_schema.any_schema()
        )
    )

    class MCPSyncToolset(AbstractToolset):
        """A ``ToolBox`` as a Pydantic AI toolset: ``Agent(model, toolsets=[box.pydantic_ai()])``.

        Attributes:
            box: the ``ToolBox``.
            max_retries: the retries a tool gets after ``ModelRetry`` (``None``: the agent's).
            tool_error_behavior: ``"retry"`` (a tool's failure raises ``ModelRetry``) or ``"failed"``
                (``ToolFailed``: the model sees the failure, and is not asked to retry).
        """

        def __init__(
            self,
            box: Box,
            *,
            id: Optional[str],
            max_retries: Optional[int],
            tool_error_behavior: str,
            timeout: Timeout,
        ) -> None:
            self.box = box
            self.max_retries = max_retries
            self.tool_error_behavior = tool_error_behavior
            self._id = id
            self._timeout = timeout

        @property
        def id(self) -> Optional[str]:
            return self._id

        async def for_run(self, ctx: Any) -> Any:
            """Read the box's tools again: a server's list change is seen by the next run."""
            await arun(self.box.refresh, "mcpsync-refresh")
            return self

        async def get_tools(self, ctx: Any) -> dict[str, Any]:
            retries = self.max_retries if self.max_retries is not None else ctx.max_retries

            def tool(offered: OfferedTool) -> tuple[str, Any]:
                definition = _definition(ToolDefinition, offered)
                made = ToolsetTool(
                    toolset=self, tool_def=definition, max_retries=retries, args_validator=arguments_validator
                )
                return offered.name, made

            return dict(adapted("Pydantic AI", self.box.offered(), tool))

        async def call_tool(self, name: str, tool_args: dict[str, Any], ctx: Any, tool: Any) -> Any:
            # A timeout the framework set on the definition (a ``prepared`` toolset's) is the call's, as
            # for the framework's own function tools; else the box's.
            given = tool.tool_def.timeout
            try:
                result = await acall(self.box, name, tool_args, self._timeout if given is None else given)
            except RequestTimeout as exc:
                if given is None:
                    raise ModelRetry(str(exc)) from exc
                raise ModelRetry(f"Timed out after {given} seconds.") from exc
            except MCPError as exc:
                if model_can_fix(exc):  # refused arguments: the model may do better
                    raise ModelRetry(str(exc)) from exc
                raise
            if result.is_error:
                if self.tool_error_behavior == "failed":
                    raise ToolFailed(error_text(result))
                raise ModelRetry(error_text(result))
            return _mapped(result)

    MCPSyncToolset.__module__ = __name__
    MCPSyncToolset.__qualname__ = "MCPSyncToolset"
    return MCPSyncToolset


def _definition(kind: type, offered: OfferedTool) -> Any:
    """A ``ToolDefinition`` for an offered tool; its ``timeout`` left unset (the box's applies)."""
    tool = offered.tool
    annotations = tool.raw.get("annotations")
    metadata = {"meta": tool.raw.get("_meta"), "annotations": annotations if isinstance(annotations, dict) else None}
    return kind(
        name=offered.name,
        description=offered.description or None,
        parameters_json_schema=offered.input_schema,
        metadata=metadata,
    )


def _mapped(result: CallToolResult) -> Any:
    """A result as the framework's ``MCPToolset`` hands it to the model."""
    from pydantic_ai.messages import BinaryImage

    if result.has_structured_content and all(isinstance(block, TextContent) for block in result.content):
        structured = result.structured_content
        # Servers on the official SDKs wrap a value that is not an object as {"result": value}.
        if isinstance(structured, dict) and set(structured) == {"result"}:
            return structured["result"]
        return structured
    parts: list[Any] = []
    for part in content_parts(result):
        if isinstance(part, ImageContent):
            parts.append(BinaryImage(data=base64.b64decode(part.base64_data), media_type=part.mime_type))
        else:
            parts.append(_decoded(part))
    return parts[0] if len(parts) == 1 else parts


def _decoded(text: str) -> Any:
    """A text that is a JSON object or array as that value; any other text as it is."""
    if text.startswith(("[", "{")):
        try:
            return json.loads(text)
        except ValueError:
            pass
    return text
