"""The model of the OpenAI Agents SDK tests, of the SDK's own interface: imported when a test first runs one
(tests/deferred.py), not when pytest collects."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import agents.items as oa_items
import agents.models.interface as oa_interface
import agents.usage as oa_usage
import openai.types.responses as oa_responses


class ScriptedModel(oa_interface.Model):
    """A ``Model`` of the Agents SDK's own interface: it calls the tools of ``calls`` one after another,
    then answers ``done``. It keeps the tool names it was offered on each turn and each tool's output."""

    def __init__(self, *calls: tuple[str, dict[str, Any]]) -> None:
        self.calls = list(calls)
        self.offered: list[list[str]] = []
        self.outputs: list[Any] = []
        self.asked = asyncio.Event()

    async def get_response(  # type: ignore[override]
        self, system_instructions, input, model_settings, tools, output_schema, handoffs, tracing, **_: Any
    ) -> oa_items.ModelResponse:
        self.offered.append(sorted(tool.name for tool in tools))
        items = input if isinstance(input, list) else []
        self.outputs = [
            item["output"] for item in items if isinstance(item, dict) and item.get("type") == "function_call_output"
        ]
        turn = len(self.outputs)
        if turn < len(self.calls):
            name, arguments = self.calls[turn]
            self.asked.set()
            call = oa_responses.ResponseFunctionToolCall(
                type="function_call", call_id=f"call_{turn}", name=name, arguments=json.dumps(arguments)
            )
            return oa_items.ModelResponse(output=[call], usage=oa_usage.Usage(), response_id=None)
        text = oa_responses.ResponseOutputText(type="output_text", text="done", annotations=[])
        message = oa_responses.ResponseOutputMessage(
            id="m", type="message", role="assistant", status="completed", content=[text]
        )
        return oa_items.ModelResponse(output=[message], usage=oa_usage.Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("the tests run the agent without streaming")
