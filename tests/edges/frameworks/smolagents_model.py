"""The model of the smolagents tests, of smolagents' own interface: imported when a test first runs one
(tests/deferred.py), not when pytest collects."""

from __future__ import annotations

import json
from typing import Any

import smolagents.models as smol_models


class ScriptedModel(smol_models.Model):
    """A model of smolagents' own interface: it calls the tool the task names (``{"tool": ..., "args":
    ...}`` as JSON), then gives what the tool said (or the error) as the final answer."""

    def generate(
        self,
        messages: list[Any],
        stop_sequences: Any = None,
        response_format: Any = None,
        tools_to_call_from: Any = None,
        **kwargs: Any,
    ) -> smol_models.ChatMessage:
        last = messages[-1]
        text = last.content if isinstance(last.content, str) else "".join(c.get("text", "") for c in last.content)
        if last.role == smol_models.MessageRole.USER and text.startswith("New task:\n"):
            order = json.loads(text.split("\n", 1)[1])
            function = smol_models.ChatMessageToolCallFunction(name=order["tool"], arguments=order["args"])
        else:
            function = smol_models.ChatMessageToolCallFunction(name="final_answer", arguments={"answer": text})
        call = smol_models.ChatMessageToolCall(id=f"call_{len(messages)}", type="function", function=function)
        return smol_models.ChatMessage(role=smol_models.MessageRole.ASSISTANT, content="", tool_calls=[call])
