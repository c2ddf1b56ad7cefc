"""The test server's protocol loop: it reads JSON-RPC lines, serves both eras and writes the answers.

``TestServer(name, **options).serve()`` reads stdin until it closes (``mcpsync.testing.http`` gives it
other streams). ``initialize`` opens the legacy era. A request whose ``_meta`` carries
``io.modelcontextprotocol/protocolVersion`` is served statelessly, as the 2026-07-28 revision says (no
``initialize``): every result has ``resultType`` (and the server's identity in ``_meta``), lists and
reads ``ttlMs`` (``ttl_ms``, default 0) and ``cacheScope``; ``server/discover`` names the versions
(``modern_versions``, default 2026-07-28, and the handshake versions); a version it does not accept gets
-32022 with ``data.supported``; the methods the revision removed (``ping``, ``logging/setLevel``,
``resources/subscribe`` ...) get -32601; log messages go only to requests that ask for a ``logLevel``;
a tool that asks for input needs the client capability (else -32021); ``subscriptions/listen`` is
acknowledged and stays open, and list changes (``tools_change_after_list``) go to the subscriptions
that asked for them, tagged with their id. ``legacy_only`` serves the legacy era alone
(``server/discover`` gets -32601), ``omit_result_type`` leaves ``resultType`` out of every modern
result, ``bad_header_tools`` lists ``catalogue.BAD_HEADER_TOOLS`` beside the good ones.
``synthetic_tools=N`` lists N made-up tools (``mcpsync.testing.synthetic``, named
``<tool_prefix>_<verb>_<noun>``) in place of the catalogue's.

Skills (the ``io.modelcontextprotocol/skills`` extension, declared in both eras unless ``skills`` is
false, with ``directoryRead``): ``skills/list`` (paged with ``page_size``) and ``skills/get`` serve the
skills of ``mcpsync.testing.skills``, whose files ``resources/read`` reads and whose directories
``resources/directory/read`` lists (paged too). ``logging/setLevel`` filters what the ``log`` tool
sends. ``page_size`` pages every list. ``tools_change_after_list`` adds a tool (``late``, listed only)
right after answering the first ``tools/list`` and sends ``notifications/tools/list_changed``.

What it serves is in ``mcpsync.testing.catalogue``, the tools' code in ``mcpsync.testing.tools``.
Quick tools run on the reading thread; slow ones (``catalogue.SLOW_TOOLS``) on a thread of their own,
so the server keeps reading (and sees cancellations) while they run.
"""

from __future__ import annotations

import itertools
import json
import os
import sys
import threading
import time
from typing import Any, Callable, ClassVar, Optional

from .._core import jsonrpc as messages
from .._core.jsonrpc import LOG_LEVELS, ErrorCode
from .._version import __version__
from . import catalogue, synthetic
from .calls import NoResultType, RequestError, ToolCall, ToolFailure
from .protocol import (
    CACHEABLE,
    HANDSHAKE_VERSIONS,
    LISTEN_FILTERS,
    MODERN_METHODS,
    MODERN_REMOVED,
    MODERN_VERSIONS,
    PROTOCOL_VERSION_KEY,
    SERVER_INFO_KEY,
    SUBSCRIPTION_ID_KEY,
    UNSUPPORTED_VERSION,
)
from .skills import SKILLS_EXTENSION
from .tools import Tools

__all__ = ["TestServer"]


class TestServer:
    """The server's state and its loop; ``serve()`` runs it on stdin/stdout."""

    #: The code of the tools (a subclass may add its own).
    tools_class: ClassVar[type[Tools]] = Tools

    def __init__(
        self,
        name: str = "mcpsync-test-server",
        page_size: Optional[int] = None,
        protocol_version: Optional[str] = None,
        stdin: Any = None,
        stdout: Any = None,
        stderr: Any = None,
        on_exit: Optional[Callable[[int], None]] = None,
        tools_change_after_list: bool = False,
        legacy_only: bool = False,
        modern_versions: tuple[str, ...] = MODERN_VERSIONS,
        ttl_ms: int = 0,
        omit_result_type: bool = False,
        bad_header_tools: bool = False,
        skills: bool = True,
        skill_lies: tuple[str, ...] = (),
        synthetic_tools: int = 0,
        tool_prefix: str = "demo",
    ) -> None:
        self.name = name
        self.page_size = page_size
        self.protocol_version = protocol_version
        self.tools = list(catalogue.TOOLS) + (list(catalogue.BAD_HEADER_TOOLS) if bad_header_tools else [])
        #: The names of the made-up tools, listed in place of the catalogue's when there are any.
        self.synthetic: set[str] = set()
        if synthetic_tools:
            self.tools = synthetic.synthetic_tools(synthetic_tools, tool_prefix)
            self.synthetic = {tool["name"] for tool in self.tools}
        #: Serve the legacy era only (``server/discover`` gets -32601).
        self.legacy_only = legacy_only
        #: The modern versions accepted now (``retire_version`` takes one away).
        self.modern_versions = list(modern_versions)
        self.ttl_ms = ttl_ms
        self.omit_result_type = omit_result_type
        self._modern: dict[Any, str] = {}  # request id -> the modern version it named, until answered
        self._listening: dict[Any, dict[str, Any]] = {}  # subscriptions/listen request id -> its filter
        self._unheard: list[tuple[str, str]] = []  # modern list changes no subscription has heard yet
        #: Whether the skills extension is declared (and served).
        self.skills = skills
        self.skill_lies = set(skill_lies)
        #: The URI of every resources/read, in order (the ``resources_read`` tool).
        self.reads: list[str] = []
        self._tools_change_after_list = tools_change_after_list
        self._stdin = stdin if stdin is not None else sys.stdin.buffer
        self._stdout = stdout if stdout is not None else sys.stdout.buffer
        self._stderr = stderr
        self._on_exit = on_exit
        #: Set by ``exit``: what is sent after it goes nowhere, as from a process that is gone.
        self.exited = threading.Event()
        self._write_lock = threading.Lock()
        self.lock = threading.Lock()
        self._running: dict[Any, threading.Event] = {}
        self.cancelled: list[Any] = []
        self._client_answers: dict[str, tuple[threading.Event, list[dict[str, Any]]]] = {}
        self._client_request_ids = itertools.count(1)
        self._workers: list[threading.Thread] = []
        #: Set when the input ends: stalled tools give up then, so the server can exit.
        self.stopping = threading.Event()
        self.log_level = "debug"
        self.client_capabilities: Optional[dict[str, Any]] = None
        self.tool_code = self.tools_class(self)

    # -- wire -----------------------------------------------------------------

    def send(self, message: dict[str, Any]) -> None:
        self.send_raw(messages.encode(message))

    def send_raw(self, *pieces: messages.Data) -> None:
        """Write bytes as they are (the pieces one after the other, nothing in between)."""
        with self._write_lock:
            if self.exited.is_set():
                return
            for piece in pieces:
                self._stdout.write(piece)
            self._stdout.flush()

    @property
    def stderr(self) -> Any:
        """Where the server's own words go, as bytes (its process's stderr unless given another stream)."""
        return self._stderr if self._stderr is not None else sys.stderr.buffer

    def exit(self, code: int) -> None:
        """End the server at once, as a crash does: ``os._exit`` in a process of its own; with ``on_exit``
        (a server in a thread, ``mcpsync.testing.threaded``), nothing more is sent and ``on_exit`` ends it."""
        if self._on_exit is None:
            self.stderr.flush()
            os._exit(code)
        with self._write_lock:
            if self.exited.is_set():
                return
            self.exited.set()
        self.stopping.set()
        # Running tools and requests to the client stop waiting: a process would take their threads
        # with it, a server in a thread must not leave them behind.
        with self.lock:
            waiting = [event for event, _ in self._client_answers.values()] + list(self._running.values())
        for event in waiting:
            event.set()
        self._on_exit(code)

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
            with self.lock:
                self.cancelled.append(request_id)
                if self._listening.pop(request_id, None) is not None:
                    self._modern.pop(request_id, None)  # a subscription ends, unanswered
                event = self._running.get(request_id)
            if event is not None:
                event.set()

    def _client_answered(self, message: dict[str, Any]) -> None:
        with self.lock:
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
        with self.lock:
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
        with self.lock:
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
        with self.lock:
            version = self._modern.pop(request_id, None)
        if version is not None:
            bare = isinstance(result, NoResultType) or self.omit_result_type
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
        with self.lock:
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
            with self.lock:
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
        with self.lock:
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
        with self.lock:
            listeners = [sid for sid, wanted in self._listening.items() if wanted.get(filter_key)]
            if not listeners:
                self._unheard.append((filter_key, method))
        for sid in listeners:
            self.send(messages.notification(method, {"_meta": {SUBSCRIPTION_ID_KEY: sid}}))

    def _serve(self, request_id: Any, method: str, params: dict[str, Any]) -> None:
        if method == "initialize":
            declared = params.get("capabilities")
            self.client_capabilities = declared if isinstance(declared, dict) else {}
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
        elif method in catalogue.LISTS:
            key, items = catalogue.LISTS[method]
            with self.lock:
                modern = request_id in self._modern
            if method == "tools/list":
                items = self.tools if modern else [catalogue.legacy_tool(tool) for tool in self.tools]
            self._answer(request_id, method, catalogue.page(key, items, params.get("cursor"), self.page_size))
            if method == "tools/list" and self._tools_change_after_list:
                self._tools_change_after_list = False
                self.tools = [*self.tools, catalogue.LATE_TOOL]
                self._list_changed("toolsListChanged", "notifications/tools/list_changed", modern)
        elif method in ("resources/read", "prompts/get", "completion/complete") or (
            self.skills and method in ("skills/list", "skills/get", "resources/directory/read")
        ):
            try:
                self._answer(request_id, method, self._read(method, params))
            except RequestError as exc:
                self._fail(request_id, exc.code, str(exc), exc.data)
        elif method == "tools/call":
            name = params.get("name")
            if name in catalogue.SLOW_TOOLS:
                worker = threading.Thread(target=self._call_tool, args=(request_id, params), daemon=True)
                self._workers = [w for w in self._workers if w.is_alive()] + [worker]
                worker.start()
            else:
                self._call_tool(request_id, params)
        else:
            self._fail(request_id, ErrorCode.METHOD_NOT_FOUND, f"Method not found: {method}")

    def _read(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """The result of a request that reads what the server offers (``catalogue``, the skills)."""
        if method == "prompts/get":
            return catalogue.get_prompt(params)
        if method == "completion/complete":
            return catalogue.complete(params)
        uri = params.get("uri")
        with self.lock:
            lies = frozenset(self.skill_lies)
            times_read = sum(1 for seen in self.reads if seen == uri)
            if method == "resources/read":
                self.reads.append(str(uri))
        if method == "resources/read":
            return catalogue.read_resource(uri, self.skills, lies, times_read)
        if method == "skills/list":
            return catalogue.list_skills(params, lies, self.page_size, self.ttl_ms)
        if method == "skills/get":
            return catalogue.get_skill(params, lies)
        return catalogue.read_directory(params, lies, self.page_size)

    def _call_tool(self, request_id: Any, params: dict[str, Any]) -> None:
        name = params.get("name")
        if name in self.synthetic:
            self._answer(request_id, "tools/call", synthetic.answer(name, params.get("arguments") or {}))
            return
        tool = self.tool_code.find(name)
        if tool is None or not any(t["name"] == name for t in self.tools):
            self._fail(request_id, ErrorCode.INVALID_PARAMS, f"Unknown tool: {name}")
            return
        call = ToolCall(request_id, params.get("_meta") or {}, params)
        with self.lock:
            self._running[request_id] = call.cancel
        try:
            result = tool(call, **(params.get("arguments") or {}))
        except RequestError as exc:
            self._fail(request_id, exc.code, str(exc), exc.data)
            return
        except ToolFailure as exc:
            result = {"content": [{"type": "text", "text": str(exc)}], "isError": True}
        except TypeError as exc:
            result = {"content": [{"type": "text", "text": f"bad arguments: {exc}"}], "isError": True}
        finally:
            with self.lock:
                self._running.pop(request_id, None)
        if call.cancel.is_set() or result is None:
            with self.lock:
                self._modern.pop(request_id, None)
            return  # cancelled: the spec says not to answer
        self._answer(request_id, "tools/call", result)

    # -- requests to the client ---------------------------------------------------------

    def next_request_id(self) -> str:
        """A fresh id for a request to the client."""
        return f"s-{next(self._client_request_ids)}"

    def send_and_wait(self, request: dict[str, Any], wait: float, cancel: bool = False) -> Optional[dict[str, Any]]:
        """Send a request to the client (then cancel it, if asked); its answer, or None after ``wait`` seconds."""
        answered = threading.Event()
        answers: list[dict[str, Any]] = []
        with self.lock:
            self._client_answers[request["id"]] = (answered, answers)
        try:
            self.send(request)
            if cancel:
                self.send(
                    messages.notification(
                        "notifications/cancelled", {"requestId": request["id"], "reason": "changed my mind"}
                    )
                )
            if not self.exited.is_set():
                answered.wait(wait)
            return answers[0] if answers else None
        finally:
            with self.lock:
                self._client_answers.pop(request["id"], None)
