"""What a ``Manager`` reports: each server's state, and tools, prompts and resources under qualified names."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Optional

from .._session.models import Prompt, Resource, ServerInfo, Tool

__all__ = ["ManagedPrompt", "ManagedResource", "ManagedTool", "ServerState", "ServerStatus"]


class ServerState(str, enum.Enum):
    """Where a managed server is."""

    IDLE = "idle"  # not started: its tools come from the tool cache; the first call starts it (start="lazy")
    CONNECTING = "connecting"  # first connection under way
    CONNECTED = "connected"
    RECONNECTING = "reconnecting"  # the connection was lost; attempts with backoff under way
    FAILED = "failed"  # no connection; slow retries continue (see ``ServerStatus.retry_in``)
    DISABLED = "disabled"  # switched off in the configuration
    CLOSED = "closed"  # the manager is closed


@dataclass(frozen=True)
class ServerStatus:
    """One server, as ``Manager.status()`` reports it."""

    name: str
    state: ServerState
    source: str  # the file that configured it
    transport: str  # "stdio", "http", "sse" ("" when disabled)
    error: Optional[str] = None  # why it failed, or why the last connection was lost
    stderr_tail: tuple[str, ...] = ()  # stdio: the last lines the server wrote to stderr
    tools: int = 0  # how many tools it offers (cached ones while idle or connecting), after the tool filters
    tools_from_cache: bool = False
    attempts: int = 0  # failed attempts since the last success
    retry_in: Optional[float] = None  # seconds until the next attempt
    server_info: Optional[ServerInfo] = None
    #: With ``start="lazy"``: why the server runs instead of being idle ("first used", "started at
    #: once: no tool list cached yet", "started on every run: its tool list is private ...").
    not_idle: Optional[str] = None


@dataclass(frozen=True)
class ManagedTool:
    """A tool of one managed server under its qualified name."""

    name: str  # qualified: "<server>__<tool>"
    server: str
    tool: Tool  # as the server describes it (``tool.name`` is the server's own name)
    deferred: bool = False  # from the cache or a lost connection: calling it waits for (or starts) the server

    @property
    def description(self) -> Optional[str]:
        return self.tool.description

    @property
    def input_schema(self) -> Mapping[str, Any]:
        return self.tool.input_schema

    @property
    def output_schema(self) -> Optional[Mapping[str, Any]]:
        return self.tool.output_schema


@dataclass(frozen=True)
class ManagedPrompt:
    """A prompt of one managed server under its qualified name."""

    name: str
    server: str
    prompt: Prompt


@dataclass(frozen=True)
class ManagedResource:
    """A resource of one managed server (resources keep their URIs; the server tells them apart)."""

    server: str
    resource: Resource

    @property
    def uri(self) -> str:
        return self.resource.uri
