"""The errors of MCP's features, which the session raises above the exchange of messages.

A server that does not declare or serve what a method needs (a capability, an extension), shares
no protocol version, sends a listing, a tool result or a skill that breaks its rules, or a tool
call's task that is cancelled or unknown; a tool that reports failure; a handler of the server's
requests whose answer the schema does not allow. Their place in the tree of ``MCPError`` is drawn
in ``mcpsync._core.errors``, which holds the roots and the errors of the connection and exchange.
"""

from __future__ import annotations

from typing import Any, Optional

from .errors import MCPError, ProtocolError, ServerError

__all__ = [
    "CapabilityNotDeclared",
    "CapabilityNotServed",
    "ExtensionNotDeclared",
    "HandlerResultError",
    "OutputSchemaError",
    "PageLimitExceeded",
    "SkillVerificationError",
    "TaskCancelled",
    "TaskNotFound",
    "ToolError",
    "UnsupportedProtocolVersion",
]


class TaskNotFound(ServerError, LookupError):
    """-32602 to ``tasks/get`` for a task id: the server knows no such task (never made, made by
    another server or user, or expired and purged); also a ``LookupError``.

    Attributes:
        task_id: the id asked for.
        server: the server's name as configured.
    """

    def __init__(self, code: int, message: str, data: Any = None, *, task_id: str = "", server: str = "") -> None:
        super().__init__(code, message, data)
        self.task_id = task_id
        self.server = server

    def __str__(self) -> str:
        return (
            f"{self.server}: no task {self.task_id!r} on this server ({super().__str__()}); a task id is "
            "valid on the server that made it, for the same user, until its ttl runs out"
        )


class OutputSchemaError(ProtocolError):
    """A tool's ``structuredContent`` does not match the ``outputSchema`` it declared.

    Attributes:
        tool: the tool's name.
        result: the ``CallToolResult`` (so the content is not lost).
    """

    def __init__(self, tool: str, reason: str, result: Any = None) -> None:
        super().__init__(f"tool {tool!r}: structuredContent does not match its outputSchema: {reason}")
        self.tool = tool
        self.result = result


class PageLimitExceeded(ProtocolError):
    """A listing took its page limit (``max_pages``, or ``MAX_PAGES``) and the server still had a cursor.

    Attributes:
        method: the listing's method, e.g. ``tools/list``.
        max_pages: the limit that was reached.
        next_cursor: the cursor the server sent for the page after the last one read.
    """

    def __init__(self, method: str, max_pages: int, next_cursor: Optional[str] = None) -> None:
        super().__init__(
            f"{method}: the server sent {max_pages} pages and a cursor for more; stopped "
            "(raise max_pages=, or page with the *_page methods)"
        )
        self.method = method
        self.max_pages = max_pages
        self.next_cursor = next_cursor


class UnsupportedProtocolVersion(ProtocolError):
    """The server and this client share no protocol version.

    Two cases: a legacy server's ``initialize`` answer chose a version this client does not speak
    (``version``: that one; ``supported``: the client's), or (2026-07-28) the server refused the
    version sent, with -32022 or a ``server/discover`` answer without it (``sent``: that one, also
    ``version``; ``supported``: what the server listed; ``retried``: the versions sent again before
    giving up, in order).
    """

    def __init__(
        self,
        version: Any,
        supported: tuple[str, ...],
        *,
        sent: Optional[str] = None,
        retried: tuple[str, ...] = (),
    ) -> None:
        if sent is None:
            message = f"server answered with protocol version {version!r}; mcpsync supports {', '.join(supported)}"
        else:
            listed = ", ".join(supported) if supported else "nothing"
            message = f"the server does not take protocol version {sent!r}; it lists {listed} as supported"
            if retried:
                message += f"; retried {', '.join(repr(v) for v in retried)} under a new request id, refused again"
            else:
                message += "; mcpsync speaks none of them"
        super().__init__(message)
        self.version = version
        self.supported = supported
        self.sent = sent
        self.retried = retried


class ExtensionNotDeclared(MCPError):
    """The server does not declare the extension a method belongs to (``capabilities.extensions``).

    Attributes:
        extension: the extension's identifier, e.g. ``io.modelcontextprotocol/skills``.
    """

    def __init__(self, message: str, *, extension: str) -> None:
        super().__init__(message)
        self.extension = extension


class CapabilityNotDeclared(MCPError):
    """The server does not declare the capability a method needs.

    With ``Client(strict_capabilities=True)`` this is raised before anything is sent. By default
    the request is sent anyway (many servers serve more than they declare), and only a server that
    then answers -32601 gets ``CapabilityNotServed``, a subclass of this one.

    Attributes:
        server: the server's name as configured.
        method: the request's method, e.g. ``resources/subscribe``.
        capability: the capability it needs, e.g. ``resources.subscribe``.
    """

    def __init__(self, server: str, method: str, capability: str) -> None:
        super().__init__(
            f"{server}: the server does not declare the {capability!r} capability, which {method} needs; "
            "not sent (strict_capabilities=True; client.request() sends it anyway)"
        )
        self.server = server
        self.method = method
        self.capability = capability


class CapabilityNotServed(CapabilityNotDeclared, ServerError):
    """The server did not declare the capability a method needs, was sent the request anyway, and
    answered -32601 (method not found): it does not serve that method.

    Both a ``CapabilityNotDeclared`` (``.server``, ``.method``, ``.capability``) and a
    ``ServerError`` (``.code``, ``.message``, ``.data``, as the server sent them).
    """

    def __init__(self, server: str, method: str, capability: str, error: ServerError) -> None:
        MCPError.__init__(
            self,
            f"{server}: {method} answered {error.code} ({error.message}); the server does not declare "
            f"the {capability!r} capability, which {method} needs",
        )
        self.server = server
        self.method = method
        self.capability = capability
        self.code = error.code
        self.message = error.message
        self.data = error.data


class SkillVerificationError(ProtocolError):
    """A skill (``io.modelcontextprotocol/skills``) is refused: its entry breaks a rule or a limit,
    or a file read is not what the entry lists. What was read is not used.

    Attributes:
        reason: what is wrong.
        skill_uri: the skill's SKILL.md URI (with the server, its identity).
        file_uri: the file concerned, if one is.
        expected, got: what the entry says and what came (``None`` when not about a value).
        field, fields: for a frontmatter that differs, the first field and all those that differ.
    """

    def __init__(
        self,
        reason: str,
        *,
        skill_uri: str = "",
        file_uri: str = "",
        expected: Any = None,
        got: Any = None,
        field: Optional[str] = None,
        fields: tuple[str, ...] = (),
    ) -> None:
        where = f"skill {skill_uri}" if skill_uri else "skill"
        if file_uri and file_uri != skill_uri:
            where += f", file {file_uri}"
        elif file_uri:
            where += " (its SKILL.md)"
        text = f"{where}: {reason}"
        if field is not None:
            text += f"; field {field!r}"
        if expected is not None or got is not None:
            text += f": expected {_short(expected)}, got {_short(got)}"
        super().__init__(text)
        self.reason = reason
        self.skill_uri = skill_uri
        self.file_uri = file_uri
        self.expected = expected
        self.got = got
        self.field = field
        self.fields = fields


def _short(value: Any, limit: int = 120) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


class HandlerResultError(MCPError, TypeError):
    """A handler of the server's requests (``sampling=``, ``elicitation=``, ``roots=``,
    ``request_handlers=``) returned what may not answer its method; nothing of it was sent.

    Attributes:
        method: the server's request method.
        handler: the handler's name.
        problem: what is wrong, by the schema (``content.text: 5 is not of type 'string'``).
    """

    def __init__(self, method: str, handler: str, problem: str) -> None:
        super().__init__(f"the {method} handler {handler} returned an answer the schema does not allow: {problem}")
        self.method = method
        self.handler = handler
        self.problem = problem

    def __reduce__(self) -> Any:
        return (type(self), (self.method, self.handler, self.problem))


class TaskCancelled(MCPError):
    """A tool call's task was cancelled (by us, by someone else, or by the server) before it ended.

    Attributes:
        tool: the tool's name.
        task_id: the server's task id.
        status_message: the server's words on it, if any.
    """

    def __init__(self, tool: str, task_id: str, status_message: Optional[str] = None) -> None:
        why = f": {status_message}" if status_message else ""
        call = f"tools/call {tool}: " if tool else ""
        super().__init__(f"{call}task {task_id} was cancelled{why}")
        self.tool = tool
        self.task_id = task_id
        self.status_message = status_message


class ToolError(MCPError):
    """A tool call returned ``isError: true``; raised by ``CallToolResult.raise_for_error()``.

    Attributes:
        result: the ``CallToolResult``.
    """

    def __init__(self, message: str, result: Any = None) -> None:
        super().__init__(message)
        self.result = result
