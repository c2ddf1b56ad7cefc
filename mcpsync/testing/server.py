"""A small, real MCP server over stdio, built on ``mcpsync.messages``.

It serves the demo and mcpsync's own tests, and you can use it to test code
that talks to MCP servers::

    python -m mcpsync.testing [--name NAME] [--page-size N] [--protocol-version V] [--ignore-sigterm]
                              [--start-delay SECONDS] [--die-after SECONDS] [--http PORT [--json]]
                              [--tools-change-after-list] [--legacy-only] [--modern-versions V,...]
                              [--ttl-ms N] [--omit-result-type] [--bad-header-tools] [--minimal]

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
    misbehave(kind, size)       writes something broken: "garbage", "invalid", "unknown_id",
                                "bad_response" (an invalid answer to this very call),
                                "invalid_request" (a request with array params; returns the answer);
                                chaos for this call: "sigkill" (the server kills itself),
                                "half_line" (half of the answer, no newline, then a stall),
                                "stall" (never answers, whatever the client says),
                                "wrong_id" (the answer carries another id), "duplicate_id" (the
                                answer twice), "result_and_error" (an answer with both);
                                ``size`` bytes (default 50 MB) on one line: "huge" (a valid answer,
                                its text that long; "huge_id_last" with the id written last, as
                                TypeScript servers do), "huge_notification", "huge_garbage" (not JSON);
                                "flood": ``size`` log notifications (default 50 MB of them: pass one)
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
                                for the app alone (``visibility: ["app"]``)

Skills (the ``io.modelcontextprotocol/skills`` extension, declared in both eras unless
``--no-skills``, with ``directoryRead``): ``skills/list`` (paged with ``--page-size``) and
``skills/get`` serve the skills of ``mcpsync.testing.skills``, whose files ``resources/read``
reads and whose directories ``resources/directory/read`` lists (paged too).

Both eras. A request whose ``_meta`` carries ``io.modelcontextprotocol/protocolVersion``
is served statelessly, as the 2026-07-28 revision says (no ``initialize``): every
result has ``resultType`` (and the server's identity in ``_meta``), lists and reads
``ttlMs`` (``--ttl-ms``, default 0) and ``cacheScope``; ``server/discover`` names the
versions (``--modern-versions``, default 2026-07-28, and the handshake versions);
a version it does not accept gets -32022 with ``data.supported``; the methods the
revision removed (``ping``, ``logging/setLevel``, ``resources/subscribe`` ...) get
-32601; log messages go only to requests that ask for a ``logLevel``; a tool that
asks for input needs the client capability (else -32021); ``subscriptions/listen`` is
acknowledged and stays open, and list changes (``--tools-change-after-list``) go to the
subscriptions that asked for them, tagged with their id. ``initialize`` opens the
legacy era as before. ``--legacy-only`` serves the legacy era alone (``server/discover``
gets -32601), ``--omit-result-type`` leaves ``resultType`` out of every modern result,
``--bad-header-tools`` lists tools whose ``x-mcp-header`` annotations break the rules
(``bad_header_empty``, ``bad_header_chars``, ``bad_header_duplicate``, ``bad_header_object``)
beside the good ones. ``--minimal`` sends only what the schema requires in every message of
both eras, declaring no capability while serving all (see ``mcpsync.testing.minimal``).

Resources: ``text://greeting`` (text), ``binary://pixel`` (a PNG, as a blob) and the
template ``echo://{text}``; a prompt ``greet(name, style?)``; the ``echo`` tool, the
greeting, the template and the prompt have an icon (``ICON``, a 1x1 PNG ``data:`` URI);
completion for the prompt's arguments and the template's ``text``; ``logging/setLevel`` filters what
the ``log`` tool sends. ``--page-size`` pages every list. ``--start-delay`` makes a
slow starter, ``--die-after`` a server that crashes on schedule (exit code 3).
``--tools-change-after-list`` adds a tool (``late``, listed only) right after
answering the first ``tools/list`` and sends ``notifications/tools/list_changed``.

Quick tools run on the reading thread; slow ones on a thread of their own, so
the server keeps reading (and sees cancellations) while they run.
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import json
import os
import signal
import sys
import threading
import time
from typing import Any, Callable, Optional

from .._core import jsonrpc as messages
from .._core.jsonrpc import LOG_LEVELS, ErrorCode
from .._version import __version__
from .skills import LIES, SKILLS_EXTENSION, skill_directory, skill_entries, skill_file

HANDSHAKE_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
#: The stateless revisions served by default (``--modern-versions``).
MODERN_VERSIONS = ("2026-07-28",)
PROTOCOL_VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
CLIENT_CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"
SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo"
LOG_LEVEL_KEY = "io.modelcontextprotocol/logLevel"
SUBSCRIPTION_ID_KEY = "io.modelcontextprotocol/subscriptionId"
#: What a ``subscriptions/listen`` filter may ask for.
LISTEN_FILTERS = ("toolsListChanged", "promptsListChanged", "resourcesListChanged", "resourceSubscriptions")
#: The 2026-07-28 revision's own JSON-RPC errors.
MISSING_CAPABILITY = -32021
UNSUPPORTED_VERSION = -32022
#: What the 2026-07-28 revision removed: a modern request for one gets -32601.
MODERN_REMOVED = frozenset(
    {
        "initialize",
        "ping",
        "logging/setLevel",
        "resources/subscribe",
        "resources/unsubscribe",
    }
)
#: The methods a modern request may name (any other gets -32601; over HTTP with 404).
MODERN_METHODS = frozenset(
    {
        "server/discover",
        "tools/list",
        "tools/call",
        "resources/list",
        "resources/templates/list",
        "resources/read",
        "prompts/list",
        "prompts/get",
        "completion/complete",
        "skills/list",
        "skills/get",
        "resources/directory/read",
        "subscriptions/listen",
    }
)
#: Results that carry the caching hints (``ttlMs``, ``cacheScope``).
CACHEABLE = frozenset(
    {
        "server/discover",
        "tools/list",
        "prompts/list",
        "resources/list",
        "resources/templates/list",
        "resources/read",
        "skills/list",
        "skills/get",
    }
)
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
#: What ``misbehave`` can do (see the module docstring).
MISBEHAVIOURS = (
    "garbage",
    "invalid",
    "unknown_id",
    "bad_response",
    "invalid_request",
    "sigkill",
    "half_line",
    "stall",
    "wrong_id",
    "duplicate_id",
    "result_and_error",
    "huge",
    "huge_id_last",
    "huge_notification",
    "huge_garbage",
    "flood",
)
#: Bytes of the line the "huge" kinds of ``misbehave`` write, unless told otherwise.
HUGE_SIZE = 50_000_000
#: Bytes ``tool_stderr`` writes at a time.
STDERR_BLOCK = 1 << 20

_TEXT = {"type": "string"}
_NUMBER = {"type": "number"}
_INTEGER = {"type": "integer"}


def _schema(properties: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(required)}


# A 1x1 transparent PNG, for the binary resource and the icon.
PIXEL_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
#: The icon of the echo tool, the greeting resource, the echo template and the greet prompt.
ICON: dict[str, Any] = {
    "src": "data:image/png;base64," + PIXEL_PNG,
    "mimeType": "image/png",
    "sizes": ["1x1"],
    "theme": "light",
}

TOOLS: list[dict[str, Any]] = [
    {
        "name": "echo",
        "description": "Return the text you send.",
        "inputSchema": _schema({"text": _TEXT}, ("text",)),
        "icons": [ICON],
    },
    {
        "name": "add",
        "description": "Add two numbers.",
        "inputSchema": _schema({"a": _NUMBER, "b": _NUMBER}, ("a", "b")),
        "outputSchema": _schema({"sum": _NUMBER}, ("sum",)),
    },
    {
        "name": "wrong_output",
        "description": "Structured content that breaks its own outputSchema.",
        "inputSchema": _schema({}),
        "outputSchema": _schema({"sum": _NUMBER}, ("sum",)),
    },
    {
        "name": "fail",
        "description": "Fail with the given message (isError: true).",
        "inputSchema": _schema({"message": _TEXT}),
    },
    {
        "name": "sleep",
        "description": "Wait for the given seconds, then answer.",
        "inputSchema": _schema({"seconds": _NUMBER, "ignore_cancel": {"type": "boolean"}}, ("seconds",)),
    },
    {
        "name": "progress",
        "description": "Report progress in steps, then answer 'done'.",
        "inputSchema": _schema({"steps": _INTEGER, "delay": _NUMBER}),
    },
    {
        "name": "log",
        "description": "Send a log notification to the client, then answer.",
        "inputSchema": _schema({"message": _TEXT, "level": _TEXT}, ("message",)),
    },
    {
        "name": "stderr",
        "description": "Write lines to the server's stderr.",
        "inputSchema": _schema({"text": _TEXT, "lines": _INTEGER}, ("text",)),
    },
    {
        "name": "crash",
        "description": "Exit in the middle of the call.",
        "inputSchema": _schema({"code": _INTEGER, "message": _TEXT}),
    },
    {
        "name": "cancelled_requests",
        "description": "The request ids the client cancelled so far.",
        "inputSchema": _schema({}),
    },
    {
        "name": "environment",
        "description": "The working directory and the named environment variables.",
        "inputSchema": _schema({"names": {"type": "array", "items": _TEXT}}),
    },
    {
        "name": "ask_client",
        "description": "Send a request to the client; return its answer.",
        "inputSchema": _schema({"method": _TEXT, "params": {"type": "object"}}, ("method",)),
    },
    {
        "name": "notify_client",
        "description": "Send the client a notification.",
        "inputSchema": _schema({"method": _TEXT, "params": {"type": "object"}}, ("method",)),
    },
    {
        "name": "ask_then_cancel",
        "description": "Ask the client something, cancel at once; say if it answered.",
        "inputSchema": _schema({"method": _TEXT, "params": {"type": "object"}, "wait": _NUMBER}, ("method",)),
    },
    {
        "name": "misbehave",
        "description": "Write a broken message (for testing clients).",
        "inputSchema": _schema({"kind": {"enum": list(MISBEHAVIOURS)}, "size": _INTEGER}, ("kind",)),
    },
    {
        "name": "region_echo",
        "description": "Return the text; the region goes as a header too (x-mcp-header).",
        "inputSchema": _schema({"text": _TEXT, "region": {"type": "string", "x-mcp-header": "Region"}}, ("text",)),
    },
    {
        "name": "ask_in_rounds",
        "description": "Ask the client for input in rounds (2026-07-28: input_required), then say what it answered.",
        "inputSchema": _schema(
            {
                "rounds": _INTEGER,
                "kinds": {"type": "array", "items": {"enum": ["elicitation", "sampling", "roots"]}},
                "delay": _NUMBER,
            }
        ),
    },
    {
        "name": "no_result_type",
        "description": "Return the text in a result without resultType.",
        "inputSchema": _schema({"text": _TEXT}, ("text",)),
    },
    {
        "name": "skill_lie",
        "description": "Make the skills listing lie (see mcpsync.testing.skills), or stop (on: false).",
        "inputSchema": _schema({"kind": {"enum": list(LIES)}, "on": {"type": "boolean"}}, ("kind",)),
    },
    {
        "name": "resources_read",
        "description": "The URIs of every resources/read so far, in order.",
        "inputSchema": _schema({}),
    },
    {
        "name": "retire_version",
        "description": "Stop accepting a modern protocol version.",
        "inputSchema": _schema({"version": _TEXT}, ("version",)),
    },
]

# Issue 21's tools: structured content that is not an object (2026-07-28; to a 2025-11-25 client,
# whose outputSchema is an object, wrapped as {"result": ...}, as the official SDKs do), and MCP
# Apps tools, one for the app's interface alone.
_USER = _schema({"id": _TEXT, "name": _TEXT}, ("id", "name"))
_APP_UI = "ui://dashboard/view.html"
TOOLS += [
    {
        "name": "users",
        "description": "The users, as a structuredContent array (2026-07-28).",
        "inputSchema": _schema({}),
        "outputSchema": {"type": "array", "items": _USER},
    },
    {
        "name": "word_count",
        "description": "The words of a text, counted: structuredContent is a number (2026-07-28).",
        "inputSchema": _schema({"text": _TEXT}, ("text",)),
        "outputSchema": {"type": "integer", "minimum": 0},
    },
    {
        "name": "show_dashboard",
        "description": "Show the dashboard (an MCP App: for the model and the app).",
        "inputSchema": _schema({}),
        "_meta": {"ui": {"resourceUri": _APP_UI, "visibility": ["model", "app"]}},
    },
    {
        "name": "refresh_dashboard",
        "description": "Refresh the dashboard's data (for the app's interface alone).",
        "inputSchema": _schema({}),
        "_meta": {"ui": {"resourceUri": _APP_UI, "visibility": ["app"]}},
    },
]
#: The tools whose structuredContent is not an object: a legacy client gets it as {"result": ...}.
WRAPPED_FOR_LEGACY = frozenset({"users", "word_count"})


def _legacy_tool(tool: dict[str, Any]) -> dict[str, Any]:
    """A tool as a 2025-11-25 client is told of it: an outputSchema that is not an object, wrapped."""
    if tool["name"] not in WRAPPED_FOR_LEGACY:
        return tool
    return {**tool, "outputSchema": _schema({"result": tool["outputSchema"]}, ("result",))}


#: The tools ``--bad-header-tools`` adds: each breaks one rule of ``x-mcp-header``.
BAD_HEADER_TOOLS: list[dict[str, Any]] = [
    {
        "name": "bad_header_empty",
        "description": "An empty x-mcp-header.",
        "inputSchema": _schema({"a": {"type": "string", "x-mcp-header": ""}}),
    },
    {
        "name": "bad_header_chars",
        "description": "An x-mcp-header with characters a header name cannot have.",
        "inputSchema": _schema({"a": {"type": "string", "x-mcp-header": "Bad Header:"}}),
    },
    {
        "name": "bad_header_duplicate",
        "description": "Two properties with the same x-mcp-header, but for case.",
        "inputSchema": _schema(
            {"a": {"type": "string", "x-mcp-header": "Tenant"}, "b": {"type": "string", "x-mcp-header": "tenant"}}
        ),
    },
    {
        "name": "bad_header_object",
        "description": "An x-mcp-header on an object property.",
        "inputSchema": _schema({"a": {"type": "object", "x-mcp-header": "Thing"}}),
    },
]

RESOURCES: list[dict[str, Any]] = [
    {
        "uri": "text://greeting",
        "name": "greeting",
        "title": "A greeting",
        "mimeType": "text/plain",
        "description": "A short text resource.",
        "icons": [ICON],
    },
    {"uri": "binary://pixel", "name": "pixel", "mimeType": "image/png", "description": "A 1x1 PNG (binary)."},
]
RESOURCE_TEMPLATES: list[dict[str, Any]] = [
    {
        "uriTemplate": "echo://{text}",
        "name": "echo",
        "mimeType": "text/plain",
        "description": "A resource whose text is the text in its URI.",
        "icons": [ICON],
    },
]
PROMPTS: list[dict[str, Any]] = [
    {
        "name": "greet",
        "title": "Greet someone",
        "description": "Ask for a greeting.",
        "arguments": [
            {"name": "name", "description": "Who to greet", "required": True},
            {"name": "style", "description": "formal or casual", "required": False},
        ],
        "icons": [ICON],
    },
]
#: What completion/complete offers, by (reference, argument).
COMPLETIONS: dict[tuple[str, str], list[str]] = {
    ("ref/prompt:greet", "name"): ["Ada", "Alan", "Alonzo", "Barbara", "Grace"],
    ("ref/prompt:greet", "style"): ["casual", "formal"],
    ("ref/resource:echo://{text}", "text"): ["hello", "help", "world"],
}

#: The tool ``--tools-change-after-list`` adds (listed only: calling it is an unknown tool).
LATE_TOOL: dict[str, Any] = {
    "name": "late",
    "description": "Added after the first tools/list.",
    "inputSchema": {"type": "object"},
}

#: The list methods: the key of their items, and the items (paged with --page-size).
LISTS: dict[str, tuple[str, list[dict[str, Any]]]] = {
    "tools/list": ("tools", TOOLS),
    "resources/list": ("resources", RESOURCES),
    "resources/templates/list": ("resourceTemplates", RESOURCE_TEMPLATES),
    "prompts/list": ("prompts", PROMPTS),
}

SLOW_TOOLS = frozenset({"sleep", "progress", "ask_client", "ask_then_cancel", "misbehave", "ask_in_rounds"})


class ToolCall:
    """What a tool knows about the call it serves."""

    def __init__(self, request_id: Any, meta: dict[str, Any], params: Optional[dict[str, Any]] = None) -> None:
        self.request_id = request_id
        self.meta = meta
        #: The request's params (a modern retry's ``inputResponses`` and ``requestState`` are there).
        self.params = params or {}
        #: The modern protocol version the request names; ``None`` in the legacy era.
        self.modern = meta.get(PROTOCOL_VERSION_KEY) if isinstance(meta.get(PROTOCOL_VERSION_KEY), str) else None
        #: Set when the client cancels the request.
        self.cancel = threading.Event()


class _RequestError(Exception):
    """Raised by a request handler to answer with a JSON-RPC error."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.data = data


class ToolFailure(Exception):
    """Raised by a tool to answer with ``isError: true``."""


class _NoResultType(dict):  # type: ignore[type-arg]
    """A result to send without ``resultType``, whatever the era (``no_result_type``)."""


class TestServer:
    """The server's state and handlers; ``serve()`` runs it on stdin/stdout."""

    def __init__(
        self,
        name: str = "mcpsync-test-server",
        page_size: Optional[int] = None,
        protocol_version: Optional[str] = None,
        stdin: Any = None,
        stdout: Any = None,
        tools_change_after_list: bool = False,
        legacy_only: bool = False,
        modern_versions: tuple[str, ...] = MODERN_VERSIONS,
        ttl_ms: int = 0,
        omit_result_type: bool = False,
        bad_header_tools: bool = False,
        skills: bool = True,
        skill_lies: tuple[str, ...] = (),
    ) -> None:
        self.name = name
        self.page_size = page_size
        self.protocol_version = protocol_version
        self.tools = list(TOOLS) + (list(BAD_HEADER_TOOLS) if bad_header_tools else [])
        #: Serve the legacy era only (``server/discover`` gets -32601).
        self.legacy_only = legacy_only
        #: The modern versions accepted now (``retire_version`` takes one away).
        self.modern_versions = list(modern_versions)
        self.ttl_ms = ttl_ms
        self.omit_result_type = omit_result_type
        self._modern: dict[Any, str] = {}  # request id -> the modern version it named, until answered
        self._listening: dict[Any, dict[str, Any]] = {}  # subscriptions/listen request id -> its filter
        self._unheard: list[tuple[str, str]] = []  # modern list changes no subscription has heard yet
        self._state_key = os.urandom(16)  # signs ask_in_rounds' requestState
        #: Whether the skills extension is declared (and served).
        self.skills = skills
        self.skill_lies = set(skill_lies)
        #: The URI of every resources/read, in order (the ``resources_read`` tool).
        self.reads: list[str] = []
        self._tools_change_after_list = tools_change_after_list
        self._stdin = stdin if stdin is not None else sys.stdin.buffer
        self._stdout = stdout if stdout is not None else sys.stdout.buffer
        self._write_lock = threading.Lock()
        self._lock = threading.Lock()
        self._running: dict[Any, threading.Event] = {}
        self._cancelled: list[Any] = []
        self._client_answers: dict[str, tuple[threading.Event, list[dict[str, Any]]]] = {}
        self._client_request_ids = iter(range(1, 1 << 62))
        self._workers: list[threading.Thread] = []
        #: Set when the input ends: stalled tools give up then, so the server can exit.
        self.stopping = threading.Event()
        self.log_level = "debug"

    # -- wire -----------------------------------------------------------------

    def send(self, message: dict[str, Any]) -> None:
        self.send_raw(messages.encode(message))

    def send_raw(self, *pieces: bytes) -> None:
        """Write bytes as they are (the pieces one after the other, nothing in between)."""
        with self._write_lock:
            for piece in pieces:
                self._stdout.write(piece)
            self._stdout.flush()

    def serve(self) -> None:
        """Read requests until stdin closes, then wait (bounded) for running tools."""
        for line in iter(self._stdin.readline, b""):
            if line.strip():
                self.handle_line(line)
        self.stopping.set()
        deadline = time.monotonic() + 5
        for worker in self._workers:
            worker.join(max(0.0, deadline - time.monotonic()))

    def handle_line(self, line: bytes) -> None:
        try:
            message = json.loads(line)
        except ValueError as exc:
            self.send(messages.error_response(None, ErrorCode.PARSE_ERROR, f"Parse error: {exc}"))
            return
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            self.send(messages.error_response(None, ErrorCode.INVALID_REQUEST, "Invalid Request"))
            return
        method = message.get("method")
        if method is None:
            self._client_answered(message)
        elif "id" not in message:
            self._notification(method, message.get("params") or {})
        else:
            self._request(message["id"], method, message.get("params") or {})

    # -- dispatch -------------------------------------------------------------

    def _notification(self, method: str, params: dict[str, Any]) -> None:
        if method == "notifications/cancelled":
            request_id = params.get("requestId")
            with self._lock:
                self._cancelled.append(request_id)
                if self._listening.pop(request_id, None) is not None:
                    self._modern.pop(request_id, None)  # a subscription ends, unanswered
                event = self._running.get(request_id)
            if event is not None:
                event.set()

    def _client_answered(self, message: dict[str, Any]) -> None:
        with self._lock:
            waiting = self._client_answers.get(message.get("id"))  # type: ignore[arg-type]
        if waiting is not None:
            waiting[1].append(message)
            waiting[0].set()

    # -- the 2026-07-28 revision ---------------------------------------------------

    def modern_version(self, params: Any) -> Optional[str]:
        """The modern version a request's ``_meta`` names (``None``: a legacy request, or ``--legacy-only``)."""
        meta = params.get("_meta") if isinstance(params, dict) else None
        version = meta.get(PROTOCOL_VERSION_KEY) if isinstance(meta, dict) else None
        if self.legacy_only or version is None:
            return None
        return version if isinstance(version, str) else repr(version)

    def modern_refusal(self, method: str, version: str) -> Optional[tuple[int, str, Any]]:
        """The error a modern request gets before it is served, if any: (code, message, data)."""
        with self._lock:
            accepted = list(self.modern_versions)
        if version not in accepted:
            supported = [*accepted, *HANDSHAKE_VERSIONS]
            return (
                UNSUPPORTED_VERSION,
                f"Unsupported protocol version: {version}",
                {
                    "supported": supported,
                    "requested": version,
                },
            )
        if method in MODERN_REMOVED or method not in MODERN_METHODS:
            return ErrorCode.METHOD_NOT_FOUND, f"Method not found: {method}", None
        return None

    def _discover(self) -> dict[str, Any]:
        with self._lock:
            accepted = list(self.modern_versions)
        return {
            "supportedVersions": [*accepted, *HANDSHAKE_VERSIONS],
            "capabilities": self._capabilities(modern=True),
            "instructions": "A server for testing MCP clients.",
        }

    def _capabilities(self, modern: bool = False) -> dict[str, Any]:
        capabilities: dict[str, Any] = {
            "tools": {"listChanged": self._tools_change_after_list},
            "logging": {},
            "completions": {},
            "resources": {"subscribe": False, "listChanged": False},
            "prompts": {"listChanged": False},
        }
        if self.skills:
            capabilities["extensions"] = {SKILLS_EXTENSION: {"directoryRead": True}}
        if modern:
            del capabilities["logging"]  # no logging/setLevel: a request asks for its level in _meta
            capabilities["resources"] = {"listChanged": False}
        return capabilities

    def _answer(self, request_id: Any, method: str, result: dict[str, Any]) -> None:
        """Send a result; a modern request's gets ``resultType``, the caching hints, the server's identity."""
        with self._lock:
            version = self._modern.pop(request_id, None)
        if version is not None:
            bare = isinstance(result, _NoResultType) or self.omit_result_type
            result = dict(result)
            if not bare:
                result.setdefault("resultType", "complete")
            if method in CACHEABLE and result.get("resultType", "complete") == "complete":
                result.setdefault("ttlMs", self.ttl_ms)
                result.setdefault("cacheScope", "public")
            meta = {**self._result_meta(), **(result.get("_meta") or {})}
            if meta:
                result["_meta"] = meta
        self.send(messages.success_response(request_id, result))

    def _fail(self, request_id: Any, code: int, message: str, data: Any = None) -> None:
        with self._lock:
            self._modern.pop(request_id, None)
        self.send(messages.error_response(request_id, code, message, data))

    def _server_info(self) -> dict[str, Any]:
        return {"name": self.name, "version": __version__, "title": "mcpsync test server"}

    def _result_meta(self) -> dict[str, Any]:
        """The ``_meta`` of every modern result: the server's identity."""
        return {SERVER_INFO_KEY: self._server_info()}

    # -- requests -------------------------------------------------------------------

    def _request(self, request_id: Any, method: str, params: dict[str, Any]) -> None:
        version = self.modern_version(params)
        if version is None and method == "server/discover" and not self.legacy_only:
            version = ""  # a discovery that names no version: told which ones there are
        if version is not None:
            refusal = self.modern_refusal(method, version)
            if refusal is not None:
                self._fail(request_id, *refusal)
                return
            with self._lock:
                self._modern[request_id] = version
            if method == "server/discover":
                self._answer(request_id, method, self._discover())
                return
            if method == "subscriptions/listen":
                self._listen(request_id, params)
                return
        self._serve(request_id, method, params)

    def _listen(self, request_id: Any, params: dict[str, Any]) -> None:
        """Open a subscription: acknowledge what of its filter we honour; it stays open, unanswered."""
        wanted = params.get("notifications")
        wanted = wanted if isinstance(wanted, dict) else {}
        agreed = {key: wanted[key] for key in LISTEN_FILTERS if key in wanted}
        with self._lock:
            self._listening[request_id] = agreed
            unheard = [change for change in self._unheard if agreed.get(change[0])]
            self._unheard = [change for change in self._unheard if change not in unheard]
        tag = {SUBSCRIPTION_ID_KEY: request_id}
        self.send(
            messages.notification("notifications/subscriptions/acknowledged", {"_meta": tag, "notifications": agreed})
        )
        for _, method in unheard:  # a change made before anyone listened for it
            self.send(messages.notification(method, {"_meta": tag}))

    def _list_changed(self, filter_key: str, method: str, modern: bool) -> None:
        """Tell of a list change: as ever to a legacy client; in the modern era, to each subscription
        that asked for it (or, if none has yet, to the first that will)."""
        if not modern:
            self.send(messages.notification(method))
            return
        with self._lock:
            listeners = [sid for sid, wanted in self._listening.items() if wanted.get(filter_key)]
            if not listeners:
                self._unheard.append((filter_key, method))
        for sid in listeners:
            self.send(messages.notification(method, {"_meta": {SUBSCRIPTION_ID_KEY: sid}}))

    def _serve(self, request_id: Any, method: str, params: dict[str, Any]) -> None:
        if method == "initialize":
            asked = params.get("protocolVersion")
            version = self.protocol_version or (asked if asked in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[0])
            self.send(
                messages.success_response(
                    request_id,
                    {
                        "protocolVersion": version,
                        "capabilities": self._capabilities(),
                        "serverInfo": self._server_info(),
                        "instructions": "A server for testing MCP clients.",
                    },
                )
            )
        elif method == "ping":
            self.send(messages.success_response(request_id, {}))
        elif method == "logging/setLevel":
            if params.get("level") not in LOG_LEVELS:
                self.send(
                    messages.error_response(
                        request_id, ErrorCode.INVALID_PARAMS, f"unknown level {params.get('level')!r}"
                    )
                )
                return
            self.log_level = params["level"]
            self.send(messages.success_response(request_id, {}))
        elif method in LISTS:
            key, items = LISTS[method]
            with self._lock:
                modern = request_id in self._modern
            if method == "tools/list":
                items = self.tools if modern else [_legacy_tool(tool) for tool in self.tools]
            self._answer(request_id, method, self._page(key, items, params.get("cursor")))
            if method == "tools/list" and self._tools_change_after_list:
                self._tools_change_after_list = False
                self.tools = [*self.tools, LATE_TOOL]
                self._list_changed("toolsListChanged", "notifications/tools/list_changed", modern)
        elif method in ("resources/read", "prompts/get", "completion/complete") or (
            self.skills and method in ("skills/list", "skills/get", "resources/directory/read")
        ):
            handler = {
                "resources/read": self._read_resource,
                "prompts/get": self._get_prompt,
                "completion/complete": self._complete,
                "skills/list": self._list_skills,
                "skills/get": self._get_skill,
                "resources/directory/read": self._read_directory,
            }[method]
            try:
                self._answer(request_id, method, handler(params))
            except _RequestError as exc:
                self._fail(request_id, exc.code, str(exc), exc.data)
        elif method == "tools/call":
            name = params.get("name")
            if name in SLOW_TOOLS:
                worker = threading.Thread(target=self._call_tool, args=(request_id, params), daemon=True)
                self._workers = [w for w in self._workers if w.is_alive()] + [worker]
                worker.start()
            else:
                self._call_tool(request_id, params)
        else:
            self._fail(request_id, ErrorCode.METHOD_NOT_FOUND, f"Method not found: {method}")

    def _page(self, key: str, items: list[dict[str, Any]], cursor: Optional[str]) -> dict[str, Any]:
        if self.page_size is None:
            return {key: items}
        start = int(cursor or 0)
        end = start + self.page_size
        result: dict[str, Any] = {key: items[start:end]}
        if end < len(items):
            result["nextCursor"] = str(end)
        return result

    def _list_skills(self, params: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            lies = frozenset(self.skill_lies)
        result = self._page("skills", skill_entries(lies), params.get("cursor"))
        result.setdefault("ttlMs", self.ttl_ms)
        result.setdefault("cacheScope", "public")
        return result

    def _get_skill(self, params: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            lies = frozenset(self.skill_lies)
        for entry in skill_entries(lies):
            if entry["uri"] == params.get("uri"):
                return {"skill": entry}
        raise _RequestError(ErrorCode.INVALID_PARAMS, f"Unknown skill: {params.get('uri')}", {"uri": params.get("uri")})

    def _read_directory(self, params: dict[str, Any]) -> dict[str, Any]:
        uri = params.get("uri")
        with self._lock:
            lies = frozenset(self.skill_lies)
        children = skill_directory(uri, lies) if isinstance(uri, str) else None
        if children is None:
            raise _RequestError(ErrorCode.INVALID_PARAMS, f"Not a directory: {uri}", {"uri": uri})
        return self._page("resources", children, params.get("cursor"))

    def _read_resource(self, params: dict[str, Any]) -> dict[str, Any]:
        uri = params.get("uri")
        with self._lock:
            reads = sum(1 for seen in self.reads if seen == uri)
            self.reads.append(str(uri))
            lies = frozenset(self.skill_lies)
        if self.skills and isinstance(uri, str) and uri.startswith("skill://"):
            contents = skill_file(uri, lies, reads)
            if contents is not None:
                return {"contents": [contents]}
        if uri == "text://greeting":
            return {"contents": [{"uri": uri, "mimeType": "text/plain", "text": "Hello from a resource"}]}
        if uri == "binary://pixel":
            return {"contents": [{"uri": uri, "mimeType": "image/png", "blob": PIXEL_PNG}]}
        if isinstance(uri, str) and uri.startswith("echo://"):
            return {"contents": [{"uri": uri, "mimeType": "text/plain", "text": uri[len("echo://") :]}]}
        raise _RequestError(ErrorCode.RESOURCE_NOT_FOUND, "Resource not found", {"uri": uri})

    def _get_prompt(self, params: dict[str, Any]) -> dict[str, Any]:
        if params.get("name") != "greet":
            raise _RequestError(ErrorCode.INVALID_PARAMS, f"Unknown prompt: {params.get('name')}")
        arguments = params.get("arguments") or {}
        if "name" not in arguments:
            raise _RequestError(ErrorCode.INVALID_PARAMS, "Missing required argument: name")
        style = arguments.get("style", "casual")
        text = f"Write a {style} greeting for {arguments['name']}."
        return {
            "description": "A greeting request",
            "messages": [{"role": "user", "content": {"type": "text", "text": text}}],
        }

    def _complete(self, params: dict[str, Any]) -> dict[str, Any]:
        ref = params.get("ref") or {}
        argument = params.get("argument") or {}
        key = (f"{ref.get('type')}:{ref.get('name') or ref.get('uri')}", argument.get("name", ""))
        prefix = str(argument.get("value", ""))
        values = [v for v in COMPLETIONS.get(key, []) if v.lower().startswith(prefix.lower())]
        return {"completion": {"values": values, "total": len(values), "hasMore": False}}

    def _call_tool(self, request_id: Any, params: dict[str, Any]) -> None:
        name = params.get("name")
        tool: Optional[Callable[..., dict[str, Any]]] = getattr(self, f"tool_{name}", None)
        if tool is None or not any(t["name"] == name for t in self.tools):
            self._fail(request_id, ErrorCode.INVALID_PARAMS, f"Unknown tool: {name}")
            return
        call = ToolCall(request_id, params.get("_meta") or {}, params)
        with self._lock:
            self._running[request_id] = call.cancel
        try:
            result = tool(call, **(params.get("arguments") or {}))
        except _RequestError as exc:
            self._fail(request_id, exc.code, str(exc), exc.data)
            return
        except ToolFailure as exc:
            result = {"content": [{"type": "text", "text": str(exc)}], "isError": True}
        except TypeError as exc:
            result = {"content": [{"type": "text", "text": f"bad arguments: {exc}"}], "isError": True}
        finally:
            with self._lock:
                self._running.pop(request_id, None)
        if call.cancel.is_set() or result is None:
            with self._lock:
                self._modern.pop(request_id, None)
            return  # cancelled: the spec says not to answer
        self._answer(request_id, "tools/call", result)

    # -- tools ----------------------------------------------------------------
    # Each gets the ToolCall and the arguments, and returns a result dict.

    @staticmethod
    def _text(text: str) -> dict[str, Any]:
        return {"content": [{"type": "text", "text": text}], "isError": False}

    @staticmethod
    def _structured(data: dict[str, Any]) -> dict[str, Any]:
        # Structured content, and the same as JSON text for clients that read only text.
        return {"content": [{"type": "text", "text": json.dumps(data)}], "structuredContent": data, "isError": False}

    def tool_echo(self, call: ToolCall, text: str) -> dict[str, Any]:
        return self._text(text)

    def tool_add(self, call: ToolCall, a: float, b: float) -> dict[str, Any]:
        return self._structured({"sum": a + b})

    def tool_wrong_output(self, call: ToolCall) -> dict[str, Any]:
        return self._structured({"sum": "not a number"})

    def tool_fail(self, call: ToolCall, message: str = "failed") -> dict[str, Any]:
        raise ToolFailure(message)

    def tool_sleep(self, call: ToolCall, seconds: float, ignore_cancel: bool = False) -> dict[str, Any]:
        if ignore_cancel:
            time.sleep(seconds)
            call.cancel.clear()
        else:
            call.cancel.wait(seconds)
        return self._text(f"slept {seconds}s")

    def tool_progress(self, call: ToolCall, steps: int = 3, delay: float = 0.01) -> dict[str, Any]:
        token = call.meta.get("progressToken")
        for step in range(1, steps + 1):
            if call.cancel.wait(delay):
                break
            if token is not None:
                self.send(
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
        return self._text("done")

    def tool_log(self, call: ToolCall, message: str, level: str = "info") -> dict[str, Any]:
        threshold = self.log_level
        if call.modern is not None:
            # 2026-07-28: no message for a request that asks for no level; else the level it asks for.
            asked = call.meta.get(LOG_LEVEL_KEY)
            threshold = asked if isinstance(asked, str) else ""
            if threshold not in LOG_LEVELS:
                return self._text("no log level asked for: not sent")
        if level in LOG_LEVELS and LOG_LEVELS.index(level) < LOG_LEVELS.index(threshold):
            return self._text("below the log level: not sent")
        self.send(
            messages.notification("notifications/message", {"level": level, "logger": self.name, "data": message})
        )
        return self._text("logged")

    def tool_stderr(self, call: ToolCall, text: str, lines: int = 1) -> dict[str, Any]:
        line = (text + "\n").encode("utf-8", "replace")
        per_block = max(1, STDERR_BLOCK // len(line))
        block = line * min(per_block, lines)
        stderr = sys.stderr.buffer
        sys.stderr.flush()
        for _ in range(lines // per_block):
            stderr.write(block)
        stderr.write(line * (lines % per_block))
        stderr.flush()
        return self._text(f"wrote {lines} lines")

    def tool_crash(self, call: ToolCall, code: int = 3, message: str = "crashing on purpose") -> dict[str, Any]:
        sys.stderr.write(message + "\n")
        sys.stderr.flush()
        os._exit(code)

    def tool_cancelled_requests(self, call: ToolCall) -> dict[str, Any]:
        with self._lock:
            cancelled = list(self._cancelled)
        return self._structured({"cancelled": cancelled})

    def tool_environment(self, call: ToolCall, names: Optional[list[str]] = None) -> dict[str, Any]:
        found = {"cwd": os.getcwd(), "env": {name: os.environ.get(name) for name in names or []}}
        return self._structured(found)

    def tool_ask_client(self, call: ToolCall, method: str, params: Optional[dict[str, Any]] = None) -> dict[str, Any]:
        return self._ask(messages.request(f"s-{next(self._client_request_ids)}", method, params))

    def _ask(self, request: dict[str, Any]) -> dict[str, Any]:
        """Send a request to the client and return its answer as the tool's result."""
        answer = self._send_and_wait(request, 10.0)
        if answer is None:
            raise ToolFailure(f"the client did not answer {request['method']!r} within 10s")
        return self._structured(answer)

    def _send_and_wait(self, request: dict[str, Any], wait: float, cancel: bool = False) -> Optional[dict[str, Any]]:
        """Send a request to the client (then cancel it, if asked); its answer, or None after ``wait`` seconds."""
        answered = threading.Event()
        answers: list[dict[str, Any]] = []
        with self._lock:
            self._client_answers[request["id"]] = (answered, answers)
        try:
            self.send(request)
            if cancel:
                self.send(
                    messages.notification(
                        "notifications/cancelled", {"requestId": request["id"], "reason": "changed my mind"}
                    )
                )
            return answers[0] if answered.wait(wait) else None
        finally:
            with self._lock:
                self._client_answers.pop(request["id"], None)

    def tool_notify_client(
        self, call: ToolCall, method: str, params: Optional[dict[str, Any]] = None
    ) -> dict[str, Any]:
        self.send(messages.notification(method, params))
        return self._text(f"sent {method}")

    def tool_ask_then_cancel(
        self, call: ToolCall, method: str, params: Optional[dict[str, Any]] = None, wait: float = 1.0
    ) -> dict[str, Any]:
        request = messages.request(f"s-{next(self._client_request_ids)}", method, params)
        return self._structured({"answered": self._send_and_wait(request, wait, cancel=True) is not None})

    def tool_region_echo(self, call: ToolCall, text: str, region: Optional[str] = None) -> dict[str, Any]:
        return self._structured({"text": text, "region": region})

    def tool_no_result_type(self, call: ToolCall, text: str) -> dict[str, Any]:
        return _NoResultType(self._text(text))

    def tool_skill_lie(self, call: ToolCall, kind: str, on: bool = True) -> dict[str, Any]:
        if kind not in LIES:
            raise ToolFailure(f"unknown lie {kind!r}; one of {', '.join(LIES)}")
        with self._lock:
            (self.skill_lies.add if on else self.skill_lies.discard)(kind)
            lies = sorted(self.skill_lies)
        return self._structured({"lies": lies})

    def tool_resources_read(self, call: ToolCall) -> dict[str, Any]:
        with self._lock:
            reads = list(self.reads)
        return self._structured({"read": reads})

    def tool_retire_version(self, call: ToolCall, version: str) -> dict[str, Any]:
        with self._lock:
            if version in self.modern_versions:
                self.modern_versions.remove(version)
            left = list(self.modern_versions)
        return self._structured({"accepted": left})

    @staticmethod
    def _any_json(call: ToolCall, value: Any) -> dict[str, Any]:
        """Structured content of any JSON value (2026-07-28); ``{"result": value}`` in the legacy era."""
        structured = value if call.modern is not None else {"result": value}
        return {"content": [{"type": "text", "text": json.dumps(value)}], "structuredContent": structured}

    def tool_users(self, call: ToolCall) -> dict[str, Any]:
        return self._any_json(call, [{"id": "1", "name": "Alice"}, {"id": "2", "name": "Bob"}])

    def tool_word_count(self, call: ToolCall, text: str) -> dict[str, Any]:
        return self._any_json(call, len(text.split()))

    def tool_show_dashboard(self, call: ToolCall) -> dict[str, Any]:
        return self._text("the dashboard is shown")

    def tool_refresh_dashboard(self, call: ToolCall) -> dict[str, Any]:
        return self._text("the dashboard's data is refreshed")

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
            raise _RequestError(
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
                raise _RequestError(ErrorCode.INVALID_PARAMS, f"inputResponses must answer {payload['asked']}")
            done = payload["round"]
            answers = [*payload["answers"], {key: responses[key] for key in payload["asked"]}]
        elif "inputResponses" in call.params:
            raise _RequestError(ErrorCode.INVALID_PARAMS, "inputResponses without the requestState they answer")
        if done >= rounds:
            return self._structured({"rounds": done, "answers": answers})
        if delay and call.cancel.wait(delay):
            return self._text("cancelled")
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
            raise _RequestError(ErrorCode.INVALID_PARAMS, "requestState did not come back byte for byte")
        payload: dict[str, Any] = json.loads(body[: body.rindex("}") + 1])
        return payload

    def tool_misbehave(self, call: ToolCall, kind: str, size: int = HUGE_SIZE) -> Optional[dict[str, Any]]:
        request_id = call.request_id
        if kind in _CHAOS:
            return _CHAOS[kind](self, call, size)
        if kind == "garbage":
            self.send_raw(b"this is not json {\n")
        elif kind == "invalid":
            self.send_raw(b'{"jsonrpc":"2.0","method":42}\n')
        elif kind == "unknown_id":
            self.send(messages.success_response(987654321, {}))
        elif kind == "bad_response":
            self.send_raw(messages.encode({"jsonrpc": "2.0", "id": request_id, "result": "not an object"}))
            return None  # that was the answer
        elif kind == "invalid_request":
            # params must be an object: a client should answer -32600
            request_id = f"s-{next(self._client_request_ids)}"
            return self._ask({"jsonrpc": "2.0", "id": request_id, "method": "roots/list", "params": [1]})
        else:
            raise ToolFailure(f"unknown kind {kind!r}")
        return self._text(f"sent {kind}")

    # -- chaos: misbehave kinds that break the call they serve ------------------------------

    def _sigkill(self, call: ToolCall, size: int) -> None:
        os.kill(os.getpid(), getattr(signal, "SIGKILL", signal.SIGTERM))
        self.stopping.wait()  # not reached: the signal cannot be caught

    def _half_line(self, call: ToolCall, size: int) -> None:
        answer = messages.encode(messages.success_response(call.request_id, self._text("never finished")))
        self.send_raw(answer[: len(answer) // 2])
        self.stopping.wait()  # stalled mid-line; later messages run into this one

    def _stall(self, call: ToolCall, size: int) -> None:
        self.stopping.wait()  # deaf to cancellation; gives up only when the input ends

    def _wrong_id(self, call: ToolCall, size: int) -> None:
        wrong = call.request_id + 1_000_000 if isinstance(call.request_id, int) else f"{call.request_id}-wrong"
        self.send(messages.success_response(wrong, self._text("answer with a wrong id")))

    def _duplicate_id(self, call: ToolCall, size: int) -> None:
        self.send(messages.success_response(call.request_id, self._text("first answer")))
        self.send(messages.success_response(call.request_id, self._text("second answer")))

    def _result_and_error(self, call: ToolCall, size: int) -> None:
        self.send(
            {
                "jsonrpc": "2.0",
                "id": call.request_id,
                "result": self._text("both"),
                "error": {"code": ErrorCode.INTERNAL_ERROR, "message": "both"},
            }
        )

    def _huge(self, call: ToolCall, size: int, id_last: bool = False) -> None:
        start, end = b'{"content":[{"type":"text","text":"', b'"}],"isError":false}'
        request_id = json.dumps(call.request_id).encode()
        if id_last:
            before, after = b'{"result":' + start, end + b',"jsonrpc":"2.0","id":' + request_id + b"}\n"
        else:
            before, after = b'{"jsonrpc":"2.0","id":' + request_id + b',"result":' + start, end + b"}\n"
        self.send_raw(before, *_filler(size - len(before) - len(after)), after)

    def _huge_id_last(self, call: ToolCall, size: int) -> None:
        self._huge(call, size, id_last=True)

    def _huge_notification(self, call: ToolCall, size: int) -> dict[str, Any]:
        before = b'{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"'
        self.send_raw(before, *_filler(size - len(before) - 4), b'"}}\n')
        return self._text("sent huge_notification")

    def _huge_garbage(self, call: ToolCall, size: int) -> dict[str, Any]:
        self.send_raw(b"not json ", *_filler(size - 10), b"\n")
        return self._text("sent huge_garbage")

    def _flood(self, call: ToolCall, size: int) -> dict[str, Any]:
        line = b'{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"flood"}}\n'
        batch = line * 1000
        for _ in range(size // 1000):
            self.send_raw(batch)
        self.send_raw(line * (size % 1000))
        return self._text(f"sent {size} notifications")


def _filler(size: int, piece: int = 1 << 20) -> list[bytes]:
    """``size`` bytes of "x" in pieces of at most ``piece`` bytes, all the same object: cheap in memory."""
    block = b"x" * min(max(size, 0), piece)
    pieces = [block] * (max(size, 0) // piece)
    rest = max(size, 0) % piece
    return [*pieces, block[:rest]] if rest else pieces


_CHAOS: dict[str, Callable[[TestServer, ToolCall, int], Optional[dict[str, Any]]]] = {
    "sigkill": TestServer._sigkill,
    "half_line": TestServer._half_line,
    "stall": TestServer._stall,
    "wrong_id": TestServer._wrong_id,
    "duplicate_id": TestServer._duplicate_id,
    "result_and_error": TestServer._result_and_error,
    "huge": TestServer._huge,
    "huge_id_last": TestServer._huge_id_last,
    "huge_notification": TestServer._huge_notification,
    "huge_garbage": TestServer._huge_garbage,
    "flood": TestServer._flood,
}


def main(argv: Optional[list[str]] = None) -> None:
    """Run the test server on stdin/stdout."""
    parser = argparse.ArgumentParser(
        prog="python -m mcpsync.testing", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--name", default="mcpsync-test-server")
    parser.add_argument("--page-size", type=int, default=None, help="page tools/list by this many tools")
    parser.add_argument(
        "--protocol-version", default=None, help="answer initialize with this version, whatever is asked"
    )
    parser.add_argument("--ignore-sigterm", action="store_true", help="ignore SIGTERM (tests the kill path)")
    parser.add_argument("--http", type=int, metavar="PORT", help="serve Streamable HTTP on 127.0.0.1:PORT (0: any)")
    parser.add_argument("--json", action="store_true", help="with --http: answer with JSON bodies, not SSE")
    parser.add_argument("--start-delay", type=float, default=0.0, metavar="SECONDS", help="wait before serving")
    parser.add_argument(
        "--tools-change-after-list", action="store_true", help="add a tool after the first tools/list, and say so"
    )
    parser.add_argument(
        "--die-after", type=float, default=None, metavar="SECONDS", help="exit with code 3 this long after starting"
    )
    parser.add_argument("--legacy-only", action="store_true", help="serve the legacy era only (no server/discover)")
    parser.add_argument(
        "--modern-versions",
        default=",".join(MODERN_VERSIONS),
        metavar="V,...",
        help="the 2026-07-28-style versions accepted (comma-separated; others get -32022)",
    )
    parser.add_argument("--ttl-ms", type=int, default=0, help="the ttlMs of modern lists, reads and discovery")
    parser.add_argument("--omit-result-type", action="store_true", help="no resultType in modern results")
    parser.add_argument(
        "--bad-header-tools", action="store_true", help="also list tools whose x-mcp-header breaks the rules"
    )
    parser.add_argument("--no-skills", action="store_true", help="do not declare or serve the skills extension")
    parser.add_argument(
        "--skill-lie", action="append", default=[], choices=LIES, help="make the skills listing lie (repeatable)"
    )
    parser.add_argument(
        "--minimal", action="store_true", help="send only what the schema requires (see mcpsync.testing.minimal)"
    )
    args = parser.parse_args(argv)
    options: dict[str, Any] = {
        "page_size": args.page_size,
        "protocol_version": args.protocol_version,
        "tools_change_after_list": args.tools_change_after_list,
        "legacy_only": args.legacy_only,
        "modern_versions": tuple(v for v in args.modern_versions.split(",") if v),
        "ttl_ms": args.ttl_ms,
        "omit_result_type": args.omit_result_type,
        "bad_header_tools": args.bad_header_tools,
        "skills": not args.no_skills,
        "skill_lies": tuple(args.skill_lie),
    }
    if args.minimal:
        options["minimal"] = True
    if args.ignore_sigterm:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if args.die_after is not None:
        timer = threading.Timer(args.die_after, lambda: (print("dying on schedule", file=sys.stderr), os._exit(3)))
        timer.daemon = True
        timer.start()
    time.sleep(args.start_delay)
    if args.http is not None:
        from .http import serve_http

        try:
            serve_http(args.http, args.name, json_replies=args.json, options=options)
        except KeyboardInterrupt:
            pass
        return
    from .minimal import make_server  # the minimal mode builds on this module

    server = make_server(args.name, options)
    try:
        server.serve()
    except (BrokenPipeError, KeyboardInterrupt):
        pass
