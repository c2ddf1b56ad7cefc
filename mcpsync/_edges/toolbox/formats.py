"""The vendors' shapes of function calling: a tool's definition, a model's tool call read, a tool's
result made, for ``"openai"`` (Chat Completions), ``"openai-responses"``, ``"anthropic"`` and ``"gemini"``.

Plain dicts, as each SDK accepts them; no SDK is imported. ``ToolBox`` (``box``) decides what to hand
over and where a call goes; this module only knows how each vendor spells it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..._session.content import ImageContent
from ..._session.models import CallToolResult
from ..frameworks.common import content_parts, image_line

__all__ = ["as_dict", "definition", "read_call", "result_of", "tool_result"]

_GEMINI_CALL_KEYS = frozenset({"id", "name", "args", "partial_args", "partialArgs", "will_continue", "willContinue"})


def definition(format: str, name: str, description: str, schema: dict[str, Any]) -> dict[str, Any]:
    if format == "openai":
        return {"type": "function", "function": {"name": name, "description": description, "parameters": schema}}
    if format == "openai-responses":
        return {"type": "function", "name": name, "description": description, "parameters": schema, "strict": False}
    if format == "anthropic":
        return {"name": name, "description": description, "input_schema": schema}
    return {"name": name, "description": description, "parameters": schema}


def as_dict(call: Any) -> dict[str, Any]:
    """A tool call as a dict: as given, or an SDK object's ``model_dump()``."""
    if isinstance(call, Mapping):
        return dict(call)
    dump = getattr(call, "model_dump", None)
    if callable(dump):
        data = dump(exclude_none=True)
        if isinstance(data, dict):
            return data
    raise ValueError(f"not a tool call: {type(call).__name__}")


def read_call(call: dict[str, Any]) -> tuple[str, Any, str, Any]:
    """``(format, call id, name, arguments)`` of a tool call, told apart by its shape."""
    kind = call.get("type")
    if kind == "function" and isinstance(call.get("function"), Mapping):
        function = call["function"]
        return "openai", call.get("id"), str(function.get("name")), function.get("arguments")
    if kind == "function_call" and "name" in call:
        return "openai-responses", call.get("call_id"), str(call["name"]), call.get("arguments")
    if kind == "tool_use" and "name" in call:
        return "anthropic", call.get("id"), str(call["name"]), call.get("input", {})
    gemini = call.get("function_call", call.get("functionCall"))
    if isinstance(gemini, Mapping):  # a Part
        call = dict(gemini)
    if kind is None and "name" in call and set(call) <= _GEMINI_CALL_KEYS:
        return "gemini", call.get("id"), str(call["name"]), call.get("args") or {}
    raise ValueError(
        "not a tool call of OpenAI (tool_calls entry, function_call item), Anthropic (tool_use) or Gemini "
        f"(function_call): keys {sorted(call)}"
    )


def tool_result(format: str, call_id: Any, name: str, result: CallToolResult) -> dict[str, Any]:
    """A ``CallToolResult`` in the format's shape."""
    parts = content_parts(result)
    if format == "gemini" and result.has_structured_content and not result.is_error:
        # Any JSON value (an array, a string, null): Gemini's response is an object, so it goes under "output".
        response = {"output": result.structured_content}
        return {"function_response": _gemini_response(call_id, name, response)}
    return result_of(format, call_id, name, parts, result.is_error)


def result_of(format: str, call_id: Any, name: str, parts: list[Any], is_error: bool) -> dict[str, Any]:
    """Text and images as the format's tool result."""
    if format == "anthropic":
        content: list[dict[str, Any]] = []
        for part in parts:
            if isinstance(part, ImageContent):
                source = {"type": "base64", "media_type": part.mime_type, "data": part.base64_data}
                content.append({"type": "image", "source": source})
            else:
                content.append({"type": "text", "text": part})
        block = {"type": "tool_result", "tool_use_id": call_id, "content": content}
        if is_error:
            block["is_error"] = True
        return block
    if format == "openai-responses":
        items: list[dict[str, Any]] = []
        for part in parts:
            if isinstance(part, ImageContent):
                items.append({"type": "input_image", "image_url": f"data:{part.mime_type};base64,{part.base64_data}"})
            else:
                items.append({"type": "input_text", "text": _error_text(part) if is_error else part})
        if all(item["type"] == "input_text" for item in items):
            output: Any = "\n".join(item["text"] for item in items)
        else:
            output = items
        return {"type": "function_call_output", "call_id": call_id, "output": output}
    text = "\n".join(_text_of(part) for part in parts)
    if format == "openai":
        return {"role": "tool", "tool_call_id": call_id, "content": _error_text(text) if is_error else text}
    response = {"error": text} if is_error else {"output": text}
    return {"function_response": _gemini_response(call_id, name, response)}


def _gemini_response(call_id: Any, name: str, response: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"name": name, "response": response}
    if call_id:
        out["id"] = call_id
    return out


def _text_of(part: Any) -> str:
    if isinstance(part, ImageContent):
        return image_line(part, "this API takes no images in a tool result")
    return str(part)


def _error_text(text: str) -> str:
    return text if text.startswith("Error") else f"Error: {text}"
