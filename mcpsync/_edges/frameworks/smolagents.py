"""smolagents: a box's tools as smolagents ``Tool``s (``ToolBox.smolagents()``), which its own checks accept.

    tools = box.smolagents()                         # needs smolagents
    agent = ToolCallingAgent(tools=tools, model=model)

A tool's name is the box's, made a Python identifier where it is not one (smolagents insists:
``my-tool`` becomes ``my_tool``; ``mcp_name`` keeps the box's). Its ``inputs`` are the input schema's
properties, each with a ``type`` smolagents knows (one it does not know becomes ``"any"``), a
``description``, and ``nullable`` when not required; the rest of each property's schema (``enum``,
``items`` ...) is kept for the model. A tool with an ``outputSchema`` has ``output_type="object"`` and that
``output_schema``, and returns the structured content; any other has ``output_type="any"`` and returns
the text, or, when the result is one image and nothing else, the image (a PIL image, which smolagents
keeps in the agent's state).

smolagents runs tools synchronously: a call blocks on the calling thread (Ctrl-C on the main thread
cancels it on the server; a ``CancelScope`` entered around ``agent.run`` cancels it from any thread). A
tool's failure raises ``mcpsync.ToolError``; smolagents hands that, like every exception of a tool (a
lost connection's ``TransportError`` too, by its design), to the model as the step's error.
"""

from __future__ import annotations

import base64
import copy
import functools
import io
import keyword
import re
from typing import Any

from ..._core.timeouts import USE_DEFAULT, Timeout
from ..._session.content import ImageContent
from .common import Box, OfferedTool, adapted, need, result_text

__all__ = ["smolagents_tools"]

PACKAGE = "smolagents"
#: The types smolagents accepts for inputs and outputs (``smolagents.tools.AUTHORIZED_TYPES``).
TYPES = frozenset({"string", "boolean", "integer", "number", "image", "audio", "array", "object", "any", "null"})
#: JSON Schema types smolagents would misread as its own media types.
_MEDIA = frozenset({"image", "audio"})


def smolagents_tools(box: Box, timeout: Timeout = USE_DEFAULT) -> list[Any]:
    """The tools ``box`` offers, as smolagents ``Tool``s (see the module's docstring)."""
    tool_class = _tool_class()
    offered = box.offered()
    names = _identifiers([tool.name for tool in offered])
    return adapted("smolagents", offered, lambda tool: tool_class(box, tool, names[tool.name], timeout))


def _identifiers(names: list[str]) -> dict[str, str]:
    """Each name as a Python identifier that is no keyword, unique among them."""
    given: dict[str, str] = {}
    taken: set[str] = set()
    for name in names:
        base = re.sub(r"\W", "_", name, flags=re.ASCII)
        if not base or base[0].isdigit() or keyword.iskeyword(base):
            base = f"_{base}"
        candidate, n = base, 2
        while candidate in taken:
            candidate, n = f"{base}_{n}", n + 1
        taken.add(candidate)
        given[name] = candidate
    return given


@functools.lru_cache(maxsize=1)
def _tool_class() -> Any:
    tool_base = need("smolagents", PACKAGE).Tool

    class MCPTool(tool_base):  # type: ignore[misc,valid-type]
        """An MCP tool, called through its box."""

        # The arguments are the MCP tool's, not this method's parameters.
        skip_forward_signature_validation = True

        def __init__(self, box: Box, offered: OfferedTool, name: str, timeout: Timeout) -> None:
            self.name = name
            self.description = offered.description or f"The MCP tool {offered.name}."
            self.inputs = _inputs(offered.input_schema)
            output_schema = offered.tool.output_schema
            self.output_type = "object" if output_schema else "any"
            self.output_schema = dict(output_schema) if output_schema else None
            self.mcp_name = offered.name
            self._box = box
            self._timeout = timeout
            super().__init__()  # smolagents then runs its own checks of what a tool declares

        def forward(self, *args: Any, **arguments: Any) -> Any:
            if args:  # smolagents passes a lone non-dict argument positionally
                arguments = dict(zip(self.inputs, args), **arguments)
            result = self._box.call(self.mcp_name, arguments, timeout=self._timeout).raise_for_error()
            if self.output_schema is not None and result.has_structured_content:
                return result.structured_content
            if len(result.content) == 1 and isinstance(result.content[0], ImageContent):
                image = need("PIL.Image", "pillow")
                return image.open(io.BytesIO(base64.b64decode(result.content[0].base64_data)))
            return result_text(result)

    return MCPTool


def _inputs(schema: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """smolagents' ``inputs`` of an input schema."""
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return {}
    given_required = schema.get("required")
    required: list[Any] = given_required if isinstance(given_required, list) else []
    inputs: dict[str, dict[str, Any]] = {}
    for name, given in properties.items():
        prop = copy.deepcopy(given) if isinstance(given, dict) else {}
        kind, nullable = _type(prop)
        prop.pop("anyOf", None)
        prop.pop("oneOf", None)
        prop["type"] = kind
        prop["description"] = str(prop.get("description") or prop.get("title") or f"the {name} argument")
        if nullable or name not in required:
            prop["nullable"] = True
        inputs[str(name)] = prop
    return inputs


def _type(prop: dict[str, Any]) -> tuple[Any, bool]:
    """``(smolagents type, whether null is allowed)`` of a property: a type, a list of them, or ``"any"``."""
    given = prop.get("type")
    if given is None:
        options = prop.get("anyOf", prop.get("oneOf"))
        given = [o.get("type") for o in options if isinstance(o, dict)] if isinstance(options, list) else None
    names = [given] if isinstance(given, str) else given if isinstance(given, list) else []
    nullable = "null" in names
    kinds = [t for t in names if isinstance(t, str) and t in TYPES and t not in _MEDIA and t != "null"]
    if not kinds or len(kinds) != len([t for t in names if t != "null"]):
        return "any", nullable
    return (kinds[0] if len(kinds) == 1 else kinds), nullable
