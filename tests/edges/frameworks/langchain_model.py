"""The chat model of the LangChain tests, of LangChain's own interface: imported when a test first runs one
(tests/deferred.py), not when pytest collects."""

from __future__ import annotations

import json
from typing import Any

import langchain_core.language_models.chat_models as lc_models
import langchain_core.messages as lc_messages
import langchain_core.outputs as lc_outputs


class ScriptedChatModel(lc_models.BaseChatModel):
    """A chat model of LangChain's own interface that calls the tool its user message names
    (``{"tool": ..., "args": ...}`` as JSON), then answers with what the tool returned."""

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: Any, **kwargs: Any) -> ScriptedChatModel:
        return self

    def _generate(
        self, messages: list[lc_messages.BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> Any:
        last = messages[-1]
        if isinstance(last, lc_messages.ToolMessage):
            message = lc_messages.AIMessage(content=f"{last.status}: {last.text}")
        else:
            order = json.loads(last.text)
            call = {"name": order["tool"], "args": order["args"], "id": "call_1", "type": "tool_call"}
            message = lc_messages.AIMessage(content="", tool_calls=[call])
        return lc_outputs.ChatResult(generations=[lc_outputs.ChatGeneration(message=message)])

    async def _agenerate(
        self, messages: list[lc_messages.BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> Any:
        return self._generate(messages)


class PlannedChatModel(lc_models.BaseChatModel):
    """A chat model of LangChain's own interface whose user message is a plan: a JSON list of
    ``{"tool": ..., "args": ...}``, called one after the other in one run (each after the answer to
    the one before); then it answers with the last tool's text."""

    @property
    def _llm_type(self) -> str:
        return "planned"

    def bind_tools(self, tools: Any, **kwargs: Any) -> PlannedChatModel:
        return self

    def _generate(
        self, messages: list[lc_messages.BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> Any:
        plan = json.loads(next(m for m in messages if isinstance(m, lc_messages.HumanMessage)).text)
        done = [m for m in messages if isinstance(m, lc_messages.ToolMessage)]
        if len(done) >= len(plan):
            message = lc_messages.AIMessage(content=done[-1].text if done else "")
        else:
            step = plan[len(done)]
            call = {"name": step["tool"], "args": step["args"], "id": f"call_{len(done)}", "type": "tool_call"}
            message = lc_messages.AIMessage(content="", tool_calls=[call])
        return lc_outputs.ChatResult(generations=[lc_outputs.ChatGeneration(message=message)])
