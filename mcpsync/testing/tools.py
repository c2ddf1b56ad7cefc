"""The test server's tools, as code: ``Tools.tool_<name>(call, **arguments)`` returns the call's result.

Tools:
    echo(text)                  returns the text
    add(a, b)                   returns the sum, also as structured content {"sum": ...}
    wrong_output()              structured content that breaks its declared outputSchema
    fail(message)               a tool failure (``isError: true``)
    sleep(seconds, ignore_cancel)  waits; stops early, without answering, when cancelled
                                (unless ignore_cancel: then it answers late, as some servers do)
    progress(steps, delay)      sends ``notifications/progress`` when asked for, then "done"
    log(message, level)         sends ``notifications/message`` before answering
    stderr(text, lines)         writes lines to stderr (fast: 100 MB in well under a second)
    crash(code, message)        writes message to stderr and exits mid-call
    cancelled_requests()        the request ids the client has cancelled so far
    environment(names)          the server's working directory and the named environment variables
    ask_client(method, params)  sends a request to the client and returns its answer
    ask_then_cancel(method, params, wait)  sends a request, cancels it at once, says whether it was answered
    notify_client(method, params)  sends the client a notification
    misbehave(kind, size)       writes something broken, or breaks the call (``mcpsync.testing.misbehaviour``)
                                as fast as the pipe takes them, then the answer
    region_echo(text, region)   echoes; ``region`` is annotated ``x-mcp-header: Region`` (over HTTP the
                                server checks ``Mcp-Param-Region`` against it)
    ask_in_rounds(rounds, kinds, delay)  2026-07-28 only: answers ``input_required`` ``rounds`` times
                                (default 1), each round asking the client for every kind in ``kinds``
                                ("elicitation", "sampling", "roots"; default all three), after ``delay``
                                seconds; checks that ``requestState`` comes back byte for byte and that
                                each ``inputResponses`` key is there; then returns what the client answered
    no_result_type(text)        echoes, without ``resultType`` even in the 2026-07-28 era
    retire_version(version)     the server stops accepting that modern version (its later requests get -32022)
    skill_lie(kind, on)         the skills listing tells (or, with on: false, stops telling) a lie
                                (see ``mcpsync.testing.skills``; ``--skill-lie KIND`` from the start)
    resources_read()            the URI of every ``resources/read`` so far, in order
    users(), word_count(text)   structured content that is an array of users, a number, each with its
                                outputSchema (2026-07-28; to a legacy client as {"result": ...})
    show_dashboard(), refresh_dashboard()  MCP Apps tools (``_meta.ui``): for the model and the app, and
                                for the app alone (``visibility: ["app"]``); show_dashboard's structured
                                content says the client's io.modelcontextprotocol/ui settings (null: none)
    dashboard_export()          an MCP Apps tool for the model alone (``visibility: ["model"]``)


What each tool declares (its schema, its icon) is in ``mcpsync.testing.catalogue``.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
from typing import Any, Callable, Optional

from .._core import jsonrpc as messages
from .._core.jsonrpc import LOG_LEVELS, ErrorCode
from .calls import (
    NoResultType,
    RequestError,
    ToolCall,
    ToolFailure,
    ToolHost,
    any_json_result,
    ask,
    structured_result,
    text_result,
)
from .misbehaviour import HUGE_SIZE, misbehave
from .protocol import CLIENT_CAPABILITIES_KEY, LOG_LEVEL_KEY, MISSING_CAPABILITY, UI_EXTENSION
from .skills import LIES

__all__ = ["INPUT_KINDS", "Tools"]

#: What ``ask_in_rounds`` asks for, by kind: the input request, and the client capability it needs.
INPUT_KINDS: dict[str, tuple[str, dict[str, Any]]] = {
    "elicitation": (
        "elicitation/create",
        {
            "mode": "form",
            "message": "Your name?",
            "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}},
        },
    ),
    "sampling": (
        "sampling/createMessage",
        {"messages": [{"role": "user", "content": {"type": "text", "text": "Say hi"}}], "maxTokens": 10},
    ),
    "roots": ("roots/list", {}),
}
#: Bytes ``tool_stderr`` writes at a time.
STDERR_BLOCK = 1 << 20


class Tools:
    """The code of the tools the server lists; each gets the ``ToolCall`` and the arguments."""

    def __init__(self, host: ToolHost) -> None:
        self.host = host
        self._state_key = os.urandom(16)  # signs ask_in_rounds' requestState

    def find(self, name: Any) -> Optional[Callable[..., Optional[dict[str, Any]]]]:
        """The code of the tool ``name``, if there is any."""
        tool: Optional[Callable[..., Optional[dict[str, Any]]]] = getattr(self, f"tool_{name}", None)
        return tool

    def tool_echo(self, call: ToolCall, text: str) -> dict[str, Any]:
        return text_result(text)

    def tool_add(self, call: ToolCall, a: float, b: float) -> dict[str, Any]:
        return structured_result({"sum": a + b})

    def tool_wrong_output(self, call: ToolCall) -> dict[str, Any]:
        return structured_result({"sum": "not a number"})

    def tool_fail(self, call: ToolCall, message: str = "failed") -> dict[str, Any]:
        raise ToolFailure(message)

    def tool_sleep(self, call: ToolCall, seconds: float, ignore_cancel: bool = False) -> dict[str, Any]:
        if ignore_cancel:
            self.host.exited.wait(seconds)  # deaf to all but its end
            call.cancel.clear()
        else:
            call.cancel.wait(seconds)
        return text_result(f"slept {seconds}s")

    def tool_progress(self, call: ToolCall, steps: int = 3, delay: float = 0.01) -> dict[str, Any]:
        token = call.meta.get("progressToken")
        for step in range(1, steps + 1):
            if call.cancel.wait(delay):
                break
            if token is not None:
                self.host.send(
                    messages.notification(
                        "notifications/progress",
                        {
                            "progressToken": token,
                            "progress": step,
                            "total": steps,
                            "message": f"step {step} of {steps}",
                        },
                    )
                )
        return text_result("done")

    def tool_log(self, call: ToolCall, message: str, level: str = "info") -> dict[str, Any]:
        threshold = self.host.log_level
        if call.modern is not None:
            # 2026-07-28: no message for a request that asks for no level; else the level it asks for.
            asked = call.meta.get(LOG_LEVEL_KEY)
            threshold = asked if isinstance(asked, str) else ""
            if threshold not in LOG_LEVELS:
                return text_result("no log level asked for: not sent")
        if level in LOG_LEVELS and LOG_LEVELS.index(level) < LOG_LEVELS.index(threshold):
            return text_result("below the log level: not sent")
        self.host.send(
            messages.notification("notifications/message", {"level": level, "logger": self.host.name, "data": message})
        )
        return text_result("logged")

    def tool_stderr(self, call: ToolCall, text: str, lines: int = 1) -> dict[str, Any]:
        line = (text + "\n").encode("utf-8", "replace")
        per_block = max(1, STDERR_BLOCK // len(line))
        block = line * min(per_block, lines)
        stderr = self.host.stderr
        for _ in range(lines // per_block):
            stderr.write(block)
        stderr.write(line * (lines % per_block))
        stderr.flush()
        return text_result(f"wrote {lines} lines")

    def tool_crash(self, call: ToolCall, code: int = 3, message: str = "crashing on purpose") -> dict[str, Any]:
        self.host.stderr.write((message + "\n").encode("utf-8", "replace"))
        self.host.exit(code)
        return text_result("exited")  # nobody reads it: the server's output is closed

    def tool_cancelled_requests(self, call: ToolCall) -> dict[str, Any]:
        with self.host.lock:
            cancelled = list(self.host.cancelled)
        return structured_result({"cancelled": cancelled})

    def tool_environment(self, call: ToolCall, names: Optional[list[str]] = None) -> dict[str, Any]:
        found = {"cwd": os.getcwd(), "env": {name: os.environ.get(name) for name in names or []}}
        return structured_result(found)

    def tool_ask_client(self, call: ToolCall, method: str, params: Optional[dict[str, Any]] = None) -> dict[str, Any]:
        return ask(self.host, messages.request(self.host.next_request_id(), method, params))

    def tool_notify_client(
        self, call: ToolCall, method: str, params: Optional[dict[str, Any]] = None
    ) -> dict[str, Any]:
        self.host.send(messages.notification(method, params))
        return text_result(f"sent {method}")

    def tool_ask_then_cancel(
        self, call: ToolCall, method: str, params: Optional[dict[str, Any]] = None, wait: float = 1.0
    ) -> dict[str, Any]:
        request = messages.request(self.host.next_request_id(), method, params)
        return structured_result({"answered": self.host.send_and_wait(request, wait, cancel=True) is not None})

    def tool_region_echo(self, call: ToolCall, text: str, region: Optional[str] = None) -> dict[str, Any]:
        return structured_result({"text": text, "region": region})

    def tool_no_result_type(self, call: ToolCall, text: str) -> dict[str, Any]:
        return NoResultType(text_result(text))

    def tool_skill_lie(self, call: ToolCall, kind: str, on: bool = True) -> dict[str, Any]:
        if kind not in LIES:
            raise ToolFailure(f"unknown lie {kind!r}; one of {', '.join(LIES)}")
        with self.host.lock:
            (self.host.skill_lies.add if on else self.host.skill_lies.discard)(kind)
            lies = sorted(self.host.skill_lies)
        return structured_result({"lies": lies})

    def tool_resources_read(self, call: ToolCall) -> dict[str, Any]:
        with self.host.lock:
            reads = list(self.host.reads)
        return structured_result({"read": reads})

    def tool_retire_version(self, call: ToolCall, version: str) -> dict[str, Any]:
        with self.host.lock:
            if version in self.host.modern_versions:
                self.host.modern_versions.remove(version)
            left = list(self.host.modern_versions)
        return structured_result({"accepted": left})

    def tool_users(self, call: ToolCall) -> dict[str, Any]:
        return any_json_result(call, [{"id": "1", "name": "Alice"}, {"id": "2", "name": "Bob"}])

    def tool_word_count(self, call: ToolCall, text: str) -> dict[str, Any]:
        return any_json_result(call, len(text.split()))

    def tool_show_dashboard(self, call: ToolCall, **arguments: Any) -> dict[str, Any]:
        # Whether the client declared the MCP Apps extension: in a modern request's _meta, else at initialize.
        declared = call.meta.get(CLIENT_CAPABILITIES_KEY) if call.modern else self.host.client_capabilities
        extensions = declared.get("extensions") if isinstance(declared, dict) else None
        ui = extensions.get(UI_EXTENSION) if isinstance(extensions, dict) else None
        result = text_result("the dashboard is shown")
        result["structuredContent"] = {"uiExtension": ui, "visitors": 42}
        return result

    def tool_refresh_dashboard(self, call: ToolCall) -> dict[str, Any]:
        return text_result("the dashboard's data is refreshed")

    def tool_dashboard_export(self, call: ToolCall) -> dict[str, Any]:
        return text_result("the dashboard's data, exported")

    def tool_ask_in_rounds(
        self, call: ToolCall, rounds: int = 1, kinds: Optional[list[str]] = None, delay: float = 0.0
    ) -> dict[str, Any]:
        if call.modern is None:
            raise ToolFailure("ask_in_rounds needs the 2026-07-28 revision (input_required results)")
        kinds = list(kinds if kinds is not None else INPUT_KINDS)
        declared = call.meta.get(CLIENT_CAPABILITIES_KEY)
        declared = declared if isinstance(declared, dict) else {}
        missing: dict[str, Any] = {kind: {} for kind in kinds if kind not in declared}
        if missing:
            raise RequestError(
                MISSING_CAPABILITY,
                f"ask_in_rounds needs the client capabilities {sorted(missing)}",
                {"requiredCapabilities": missing},
            )
        state = call.params.get("requestState")
        answers: list[Any] = []
        done = 0
        if state is not None:
            payload = self._open_state(state)
            responses = call.params.get("inputResponses")
            if not isinstance(responses, dict) or any(key not in responses for key in payload["asked"]):
                raise RequestError(ErrorCode.INVALID_PARAMS, f"inputResponses must answer {payload['asked']}")
            done = payload["round"]
            answers = [*payload["answers"], {key: responses[key] for key in payload["asked"]}]
        elif "inputResponses" in call.params:
            raise RequestError(ErrorCode.INVALID_PARAMS, "inputResponses without the requestState they answer")
        if done >= rounds:
            return structured_result({"rounds": done, "answers": answers})
        if delay and call.cancel.wait(delay):
            return text_result("cancelled")
        asked = {
            f"{kind}-{done + 1}": {"method": INPUT_KINDS[kind][0], "params": INPUT_KINDS[kind][1]} for kind in kinds
        }
        payload = {"round": done + 1, "asked": sorted(asked), "answers": answers}
        return {"resultType": "input_required", "inputRequests": asked, "requestState": self._seal_state(payload)}

    def _seal_state(self, payload: dict[str, Any]) -> str:
        """An opaque ``requestState``: the payload, some characters a careless echo would change, a signature."""
        body = json.dumps(payload, ensure_ascii=False, sort_keys=True) + "  ü\t✓ "
        return body + "~" + hmac.new(self._state_key, body.encode(), hashlib.sha256).hexdigest()

    def _open_state(self, state: Any) -> dict[str, Any]:
        """The payload of a ``requestState`` this server sealed, exactly as it was sent (else -32602)."""
        body, _, signature = state.rpartition("~") if isinstance(state, str) else ("", "", "")
        expected = hmac.new(self._state_key, body.encode(), hashlib.sha256).hexdigest()
        if not body or not hmac.compare_digest(signature, expected):
            raise RequestError(ErrorCode.INVALID_PARAMS, "requestState did not come back byte for byte")
        payload: dict[str, Any] = json.loads(body[: body.rindex("}") + 1])
        return payload

    def tool_misbehave(self, call: ToolCall, kind: str, size: int = HUGE_SIZE) -> Optional[dict[str, Any]]:
        return misbehave(self.host, call, kind, size)
