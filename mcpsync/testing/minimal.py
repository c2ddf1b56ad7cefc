"""The test server's ``--minimal`` mode: every message holds only what the schema requires.

    python -m mcpsync.testing --minimal [--http PORT [--json]] [other options]

A legal server may send no more than its revision's schema requires, and a client must work
with it. This server serves the same tools, resources, prompts and completions as the full one
(``mcpsync.testing.catalogue``), in both eras, but:

- ``initialize`` answers ``protocolVersion``, ``capabilities: {}`` and ``serverInfo`` with
  ``name`` and ``version`` only; ``server/discover`` answers ``supportedVersions``,
  ``capabilities: {}`` and the 2026-07-28 revision's ``resultType``, ``ttlMs`` and ``cacheScope``,
  with no ``_meta`` (no ``io.modelcontextprotocol/serverInfo``) and no ``instructions``;
- every capability goes undeclared while tools, resources, prompts, completion and logging are
  served (no skills extension);
- tools have a ``name`` and an ``inputSchema``, resources a ``uri`` and a ``name``, templates a
  ``uriTemplate`` and a ``name``, prompts a ``name``: no titles, descriptions, icons,
  annotations, ``outputSchema``, prompt ``arguments`` or ``mimeType``;
- results carry only their required members (``resultType`` and the cache hints where the
  2026-07-28 revision requires them, no ``_meta``, no ``nextCursor`` unless there is a next
  page, ``isError`` only when true, no ``total``/``hasMore`` in completions); content blocks and
  resource contents too;
- ``notifications/progress`` has no ``total`` or ``message``, ``notifications/message`` no ``logger``;
- one more tool, ``numbers(count)``, answers ``structuredContent`` as an array ``[1, ..., count]``
  in the 2026-07-28 era (which allows any JSON value there; earlier revisions only an object, so
  it sends none); the other tools' structured content, always an object, is left out with their
  ``outputSchema``.

A result that asks for more (``input_required``) is sent as it is: its requests are the point.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Optional

from .._core import jsonrpc as messages
from .._version import __version__
from .calls import ToolCall
from .protocol import HANDSHAKE_VERSIONS
from .server import TestServer
from .tools import Tools

__all__ = ["MINIMAL_TOOL", "MinimalServer", "MinimalTools", "make_server"]

#: The tool only the minimal server has: structured content that is an array.
MINIMAL_TOOL: dict[str, Any] = {
    "name": "numbers",
    "inputSchema": {"type": "object", "properties": {"count": {"type": "integer"}}},
}

#: The members each listed item keeps, by the listing's key.
_ITEM_KEYS: Mapping[str, tuple[str, ...]] = {
    "tools": ("name", "inputSchema"),
    "resources": ("uri", "name"),
    "resourceTemplates": ("uriTemplate", "name"),
    "prompts": ("name",),
}
#: The members each content block keeps, by its type.
_BLOCK_KEYS: Mapping[str, tuple[str, ...]] = {
    "text": ("type", "text"),
    "image": ("type", "data", "mimeType"),
    "audio": ("type", "data", "mimeType"),
    "resource_link": ("type", "uri", "name"),
    "resource": ("type", "resource"),
}
#: The members each result keeps, by method (``resultType`` and the cache hints come later).
_RESULT_KEYS: Mapping[str, tuple[str, ...]] = {
    "tools/list": ("tools", "nextCursor"),
    "resources/list": ("resources", "nextCursor"),
    "resources/templates/list": ("resourceTemplates", "nextCursor"),
    "prompts/list": ("prompts", "nextCursor"),
    "resources/read": ("contents",),
    "prompts/get": ("messages",),
    "completion/complete": ("completion",),
    "server/discover": ("supportedVersions", "capabilities"),
}
#: The members a notification's params keep, by method (others are sent as they are).
_NOTIFICATION_KEYS: Mapping[str, tuple[str, ...]] = {
    "notifications/progress": ("progressToken", "progress", "_meta"),
    "notifications/message": ("level", "data", "_meta"),
}


def _only(data: Mapping[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    return {key: data[key] for key in keys if key in data}


def _contents(item: Mapping[str, Any]) -> dict[str, Any]:
    """A resource's contents: its ``uri``, and its ``text`` or ``blob``."""
    return _only(item, ("uri", "text", "blob"))


def _block(block: Mapping[str, Any]) -> dict[str, Any]:
    kept = _only(block, _BLOCK_KEYS.get(block.get("type", ""), tuple(block)))
    if "resource" in kept:
        kept["resource"] = _contents(kept["resource"])
    return kept


def minimal_result(method: str, result: Mapping[str, Any]) -> dict[str, Any]:
    """``result`` with only what the schema requires of ``method``'s result (before the era's own members)."""
    if result.get("resultType", "complete") != "complete":
        return dict(result)  # input_required: its inputRequests and requestState are what it is for
    if method == "tools/call":
        kept: dict[str, Any] = {"content": [_block(block) for block in result.get("content", [])]}
        if result.get("isError") is True:
            kept["isError"] = True
        structured = result.get("structuredContent")
        if structured is not None and not isinstance(structured, Mapping):
            kept["structuredContent"] = structured  # the numbers tool's array
        return kept
    kept = _only(result, _RESULT_KEYS.get(method, ()))
    if method == "resources/read":
        kept["contents"] = [_contents(item) for item in kept["contents"]]
    elif method == "prompts/get":
        kept["messages"] = [{"role": m["role"], "content": _block(m["content"])} for m in kept["messages"]]
    elif method == "completion/complete":
        kept["completion"] = _only(kept["completion"], ("values",))
    for key, keys in _ITEM_KEYS.items():
        if key in kept:
            kept[key] = [_only(item, keys) for item in kept[key]]
    return kept


class MinimalTools(Tools):
    """The test server's tools, and ``numbers``."""

    def tool_numbers(self, call: ToolCall, count: int = 3) -> dict[str, Any]:
        numbers = list(range(1, count + 1))
        result: dict[str, Any] = {"content": [{"type": "text", "text": str(numbers)}]}
        if call.modern is not None:
            result["structuredContent"] = numbers  # 2025-11-25 and before: an object only, so none
        return result


class MinimalServer(TestServer):
    """The test server sending only what the schema requires (see the module docstring)."""

    tools_class: ClassVar[type[Tools]] = MinimalTools

    def __init__(self, name: str = "mcpsync-test-server", **options: Any) -> None:
        options["skills"] = False  # an extension is declared, or it is not served
        super().__init__(name, **options)
        self.tools = [*self.tools, MINIMAL_TOOL]

    def send(self, message: dict[str, Any]) -> None:
        keys = _NOTIFICATION_KEYS.get(message.get("method", "")) if "id" not in message else None
        if keys is not None and isinstance(message.get("params"), dict):
            message = {**message, "params": _only(message["params"], keys)}
        super().send(message)

    def _capabilities(self, modern: bool = False) -> dict[str, Any]:
        return {}

    def _server_info(self) -> dict[str, Any]:
        return {"name": self.name, "version": __version__}

    def _result_meta(self) -> dict[str, Any]:
        return {}  # no serverInfo in a modern result's _meta: it is optional

    def _answer(self, request_id: Any, method: str, result: dict[str, Any]) -> None:
        super()._answer(request_id, method, minimal_result(method, result))

    def _serve(self, request_id: Any, method: str, params: dict[str, Any]) -> None:
        if method != "initialize":
            super()._serve(request_id, method, params)
            return
        asked = params.get("protocolVersion")
        version = self.protocol_version or (asked if asked in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[0])
        result = {"protocolVersion": version, "capabilities": {}, "serverInfo": self._server_info()}
        self.send(messages.success_response(request_id, result))


def make_server(name: str, options: Optional[Mapping[str, Any]] = None, **extra: Any) -> TestServer:
    """A ``TestServer`` of the command line's ``options`` (``minimal``: a ``MinimalServer``)."""
    chosen = dict(options or {})
    kind = MinimalServer if chosen.pop("minimal", False) else TestServer
    return kind(name, **chosen, **extra)
