"""The exceptions mcpsync raises.

Every exception is an ``MCPError``; catch that to catch them all::

    MCPError
    ├── ServerError                  the server answered with a JSON-RPC error object
    │   ├── HeaderMismatch           -32020: a header differs from the body (2026-07-28)
    │   ├── MissingClientCapability  -32021: the request needs a capability we did not declare
    │   ├── CapabilityNotServed      -32601 to a method whose capability the server did not declare
    │   │                            (also a CapabilityNotDeclared)
    │   ├── TaskNotFound             -32602 to a task's id: no such task on the server (also a LookupError)
    │   └── URLElicitationRequired   -32042: the user must open a URL first (2025-11-25)
    ├── TransportError               the connection could not carry the message
    │   ├── TransportClosed          the connection is gone ("Transport closed")
    │   ├── ConnectError             the server could not be started or reached
    │   ├── HTTPStatusError          an HTTP request got a non-2xx status
    │   │   └── AuthorizationRequired  401/403: a login is needed (also an AuthorizationError)
    │   ├── SessionExpired           an HTTP session id was refused with 404
    │   ├── WriteTimeout             the server did not take our message in time (also a TimeoutError)
    │   ├── NoResponseError          a stream ended before the response arrived
    │   └── ServerUnavailable        a managed server is failed, disabled, or did not connect in time
    ├── RequestTimeout               no answer within the timeout (also a TimeoutError)
    ├── ProtocolError                the peer broke the protocol
    │   ├── InvalidMessage           a message failed the JSON-RPC envelope schema
    │   ├── MessageTooLarge          a message was over ``max_message_size`` and was discarded
    │   ├── OutputSchemaError        a tool's structuredContent does not match its outputSchema
    │   ├── SkillVerificationError   a skill's entry or file is not what it must be; it is not used
    │   ├── PageLimitExceeded        a listing needed more pages than allowed (``max_pages``)
    │   └── UnsupportedProtocolVersion
    ├── AuthorizationError           OAuth could not authorize: a refusal, a failed grant
    │   └── TokenStoreError          the token store's directory or a file in it is not safe to use
    ├── ConfigurationError           bad configuration (also a ValueError)
    ├── NotSupportedError            a feature mcpsync does not offer yet (also a NotImplementedError)
    ├── ExtensionNotDeclared         the server does not declare the extension a method belongs to
    ├── CapabilityNotDeclared        the server does not declare the capability a method needs (strict: not sent)
    ├── UnknownNameError             no server, tool or prompt of that name (also a LookupError)
    ├── HandlerResultError           a handler's answer to the server is not what the schema allows
    │                                (also a TypeError)
    ├── TaskCancelled                a tool call's task was cancelled on the server
    └── ToolError                    a tool call returned ``isError: true``

Warnings (Python's ``warnings``, shown without any logging set up; filter them by category)::

    MCPWarning (a UserWarning)
    ├── ProtocolWarning              a server sent junk, an invalid message or a stray response (the
    │                                first of each kind per connection; the rest are counted in ``stats``)
    └── ConfigurationWarning         a configuration that works but likely says what was not meant

A local timeout is always a ``RequestTimeout``, never dressed up as a server
error: the server did not say anything, so nothing pretends it did.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Optional

__all__ = [
    "AuthorizationError",
    "AuthorizationRequired",
    "CapabilityNotDeclared",
    "CapabilityNotServed",
    "ConfigurationError",
    "ConfigurationWarning",
    "ConnectError",
    "ExtensionNotDeclared",
    "HTTPStatusError",
    "HandlerResultError",
    "HeaderMismatch",
    "InvalidMessage",
    "MCPError",
    "MCPWarning",
    "MessageTooLarge",
    "MissingClientCapability",
    "NoResponseError",
    "NotSupportedError",
    "OutputSchemaError",
    "PageLimitExceeded",
    "ProtocolError",
    "ProtocolWarning",
    "RequestTimeout",
    "ServerError",
    "ServerUnavailable",
    "SessionExpired",
    "SkillVerificationError",
    "TaskCancelled",
    "TaskNotFound",
    "TokenStoreError",
    "ToolError",
    "TransportClosed",
    "TransportError",
    "URLElicitationRequired",
    "UnknownNameError",
    "UnsupportedProtocolVersion",
    "WriteTimeout",
]


class MCPError(Exception):
    """Base class of every error mcpsync raises."""


class ServerError(MCPError):
    """The server answered a request with a JSON-RPC error object.

    Attributes:
        code: the JSON-RPC error code (see ``mcpsync.messages.ErrorCode``).
        message: the server's message text.
        data: the optional ``data`` member, as sent.
    """

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        prefix = f"MCP error {code}:"
        # Servers built on the official SDKs often write the prefix into the message themselves.
        super().__init__(message if str(message).startswith(prefix) else f"{prefix} {message}")
        self.code = code
        self.message = message
        self.data = data

    @classmethod
    def from_error_object(cls, error: dict[str, Any]) -> ServerError:
        """Build from the ``error`` member of a JSON-RPC error response (the 2026-07-28 revision's
        own codes as their subclasses)."""
        kind = _SERVER_ERRORS.get(error["code"], cls) if cls is ServerError else cls
        return kind(error["code"], error["message"], error.get("data"))


class HeaderMismatch(ServerError):
    """-32020 (2026-07-28): an HTTP header of the request differs from its body, as the server reads them."""

    def __str__(self) -> str:
        return (
            f"{super().__str__()} (the server read an HTTP header, such as MCP-Protocol-Version, Mcp-Method "
            "or Mcp-Name, that differs from the request body; a proxy that rewrites headers does this)"
        )


class MissingClientCapability(ServerError):
    """-32021 (2026-07-28): the request needs a client capability the client did not declare.

    Attributes:
        required: the capabilities the server wants (``data.requiredCapabilities``).
    """

    @property
    def required(self) -> dict[str, Any]:
        data = self.data if isinstance(self.data, dict) else {}
        wanted = data.get("requiredCapabilities")
        return dict(wanted) if isinstance(wanted, dict) else {}

    def __str__(self) -> str:
        names = ", ".join(sorted(self.required)) or "one it did not name"
        hints = {"elicitation": "elicitation=", "sampling": "sampling=", "roots": "roots="}
        give = [hints[n] for n in sorted(self.required) if n in hints]
        how = f"; pass {' and '.join(give)} to Client" if give else ""
        return f"{super().__str__()} (the server needs the client capability {names}{how})"


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


class URLElicitation(NamedTuple):
    """One URL a server wants the user to open (an ``ElicitRequestURLParams`` of a -32042 error).

    Not an exception (so not in ``__all__`` here): what ``URLElicitationRequired`` carries.
    """

    url: str
    elicitation_id: str
    message: str


class URLElicitationRequired(ServerError):
    """-32042 (2025-11-25): the request needs the user to open a URL first (to sign in, to pay, ...).

    The server names them in ``data.elicitations``; open them (after asking the user), wait for
    ``notifications/elicitation/complete`` with their ids, and send the request again.

    Attributes:
        elicitations: the URLs, as ``URLElicitation(url, elicitation_id, message)``; entries
            without a string ``url`` are left out (they are in ``data`` as sent).
    """

    @property
    def elicitations(self) -> tuple[URLElicitation, ...]:
        data = self.data if isinstance(self.data, dict) else {}
        entries = data.get("elicitations")
        found = []
        for entry in entries if isinstance(entries, list) else ():
            if not isinstance(entry, dict) or not isinstance(entry.get("url"), str):
                continue
            elicitation_id, message = entry.get("elicitationId"), entry.get("message")
            found.append(
                URLElicitation(
                    entry["url"],
                    elicitation_id if isinstance(elicitation_id, str) else "",
                    message if isinstance(message, str) else "",
                )
            )
        return tuple(found)

    @property
    def urls(self) -> tuple[str, ...]:
        """The URLs alone, in the server's order."""
        return tuple(elicitation.url for elicitation in self.elicitations)

    def __str__(self) -> str:
        urls = self.urls
        shown = ", ".join(urls[:3]) + (f" and {len(urls) - 3} more" if len(urls) > 3 else "")
        what = f"open {shown}" if urls else "it named no URL to open"
        return f"{super().__str__()} (the server needs the user to visit a URL first: {what})"


_SERVER_ERRORS: dict[int, type[ServerError]] = {
    -32020: HeaderMismatch,
    -32021: MissingClientCapability,
    -32042: URLElicitationRequired,
}


class TransportError(MCPError):
    """The transport could not carry a message."""


class TransportClosed(TransportError):
    """The connection is closed; pending and new requests fail with this.

    Attributes:
        exit_code: for stdio, the server process's exit code if it had exited.
        stderr_tail: for stdio, the last lines the server wrote to stderr.
    """

    def __init__(
        self,
        detail: str = "",
        *,
        exit_code: Optional[int] = None,
        stderr_tail: tuple[str, ...] = (),
    ) -> None:
        text = "Transport closed"
        if detail:
            text += f": {detail}"
        super().__init__(text + stderr_text(stderr_tail))
        self.detail = detail
        self.exit_code = exit_code
        self.stderr_tail = stderr_tail

    def copy(self) -> TransportClosed:
        """A new exception saying the same (each waiting caller gets its own)."""
        return type(self)(self.detail, exit_code=self.exit_code, stderr_tail=self.stderr_tail)


def stderr_text(tail: tuple[str, ...]) -> str:
    """The lines a stdio server last wrote to stderr, as an exception text ends with them (``""`` for none)."""
    if not tail:
        return ""
    return "\nlast stderr lines of the server:\n" + "\n".join("  " + line for line in tail)


class ServerUnavailable(TransportError):
    """A managed server cannot take the call: it is failed or disabled, or did not (re)connect in time.

    Attributes:
        state: the server's state then (``"failed"``, ``"disabled"``, ``"connecting"``...).
    """

    def __init__(self, message: str, *, state: Any = None) -> None:
        super().__init__(message)
        self.state = getattr(state, "value", state)


class ConnectError(TransportError):
    """The server could not be started or reached."""


class HTTPStatusError(TransportError):
    """An HTTP request got a non-2xx answer.

    Attributes:
        status_code: the HTTP status.
        body: the response body text.
        www_authenticate: the ``WWW-Authenticate`` header, if sent (where to authenticate).
        auth_server: the ``Mcp-Auth-Server`` header, if sent.
        method: the request's method (``"POST"``, ``"GET"``), ``""`` when not known.
        url: the URL it went to, without user, password or query (``""`` when not known).
    """

    def __init__(
        self,
        message: str,
        *,
        status_code: int,
        body: str = "",
        www_authenticate: Optional[str] = None,
        auth_server: Optional[str] = None,
        method: str = "",
        url: str = "",
    ) -> None:
        super().__init__(message)
        self.status_code = status_code
        self.body = body
        self.www_authenticate = www_authenticate
        self.auth_server = auth_server
        self.method = method
        self.url = url

    def retold(self, message: str) -> HTTPStatusError:
        """The same answer, told with another text (a hint added, say)."""
        return HTTPStatusError(
            message,
            status_code=self.status_code,
            body=self.body,
            www_authenticate=self.www_authenticate,
            auth_server=self.auth_server,
            method=self.method,
            url=self.url,
        )


class AuthorizationError(MCPError):
    """OAuth could not authorize against a server: the server or its authorization server broke a
    rule we check (a ``resource`` or ``issuer`` that does not match, no PKCE), or refused a grant.

    Attributes:
        server: the name of the MCP server it was for.
        error: the OAuth ``error`` code, when an authorization server sent one.
    """

    def __init__(self, message: str, *, server: str = "", error: Optional[str] = None) -> None:
        super().__init__(message)
        self.server = server
        self.error = error


class AuthorizationRequired(AuthorizationError, HTTPStatusError):
    """The server wants a login (``401``, or ``403`` for more scopes) and nobody is there to give one.

    Raised when no stored or refreshed token will do and mcpsync must not wait
    for a person (cron, CI, no terminal), or when the login itself was refused
    or cut short. The text names the server and the command that logs in once.

    Attributes:
        login_command: the command line that logs in (``mcpsync login NAME`` or ``--url``).
        scopes: the scopes the server asked for, if it said.
    """

    def __init__(
        self,
        message: str,
        *,
        server: str = "",
        status_code: int = 401,
        www_authenticate: Optional[str] = None,
        login_command: str = "",
        scopes: tuple[str, ...] = (),
    ) -> None:
        HTTPStatusError.__init__(self, message, status_code=status_code, www_authenticate=www_authenticate)
        self.server = server
        self.error = None
        self.login_command = login_command
        self.scopes = scopes

    def after(self, answer: str, body: str, auth_server: Optional[str]) -> AuthorizationRequired:
        """The same error, its text led by the HTTP answer that asked for it (``HTTP 401: ...``)."""
        error = self.retold(f"{answer}: {self}")
        error.body = body
        error.auth_server = auth_server
        return error

    def retold(self, message: str) -> AuthorizationRequired:
        """The same error, told with another text."""
        error = AuthorizationRequired(
            message,
            server=self.server,
            status_code=self.status_code,
            www_authenticate=self.www_authenticate,
            login_command=self.login_command,
            scopes=self.scopes,
        )
        error.body, error.auth_server = self.body, self.auth_server
        return error


class TokenStoreError(AuthorizationError):
    """The token store refused its directory or a file in it (others can write or read it, another
    user owns it, it is a symbolic link): nothing was read from it or written to it.

    Attributes:
        path: the directory or file refused.
    """

    def __init__(self, message: str, *, path: str = "") -> None:
        super().__init__(message)
        self.path = path


class SessionExpired(TransportError):
    """The server answered 404 to a request that carried a session id."""


class WriteTimeout(TransportError, TimeoutError):
    """The server did not take a message within the write timeout: it stopped reading its input.

    Nothing of the message was sent, so the connection is still usable.
    """


class NoResponseError(TransportError):
    """A response stream ended before the response to a request arrived."""

    def __init__(self, request_id: Any) -> None:
        super().__init__(f"No response received for request ID {request_id}")
        self.request_id = request_id


class RequestTimeout(MCPError, TimeoutError):
    """No response arrived within the request's timeout.

    Attributes:
        method: the request's method.
        timeout: the seconds it was given.
        detail: what the server sent instead, when the transport could tell (``""`` else).
        stderr_tail: for stdio, the last lines the server wrote to stderr.
    """

    def __init__(self, method: str, timeout: float, *, detail: str = "", stderr_tail: tuple[str, ...] = ()) -> None:
        text = f"Request timeout after {timeout:g}s ({method})"
        if detail:
            text += f": {detail}"
        super().__init__(text + stderr_text(stderr_tail))
        self.method = method
        self.timeout = timeout
        self.detail = detail
        self.stderr_tail = stderr_tail


class ProtocolError(MCPError):
    """The peer broke the MCP or JSON-RPC protocol."""


class InvalidMessage(ProtocolError):
    """A message is not valid JSON-RPC 2.0 (undecodable, or fails the envelope schema).

    Attributes:
        raw: the offending text, cut to a readable length.
    """

    def __init__(self, reason: str, raw: str = "") -> None:
        text = f"invalid message: {reason}"
        if raw:
            text += f" in {raw}"
        super().__init__(text)
        self.reason = reason
        self.raw = raw


class MessageTooLarge(ProtocolError):
    """A message from the server was over the transport's ``max_message_size``; it was discarded unread.

    The request it answered fails with this at once, rather than timing out.

    Args:
        what: which message, e.g. ``"srv: the answer to request 5"``.

    Attributes:
        size: the message's size in bytes, or ``None`` when it was refused
            before its end arrived (it was larger than ``limit``).
        limit: the ``max_message_size`` in force, in bytes.
    """

    def __init__(self, what: str, size: Optional[int], limit: int) -> None:
        sized = f"{what} ({size} bytes)" if size is not None else what
        super().__init__(
            f"{sized} is over max_message_size ({limit} bytes) and was discarded; "
            "raise max_message_size (maxMessageSize in an mcpServers entry) to accept it"
        )
        self.size = size
        self.limit = limit


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


class ConfigurationError(MCPError, ValueError):
    """A server configuration is invalid; the message says which field and why."""


class NotSupportedError(MCPError, NotImplementedError):
    """A feature mcpsync does not offer (yet); the message says which."""


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


class UnknownNameError(MCPError, LookupError):
    """No server, tool or prompt of that name (the message suggests close matches)."""


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


class MCPWarning(UserWarning):
    """The base of mcpsync's warnings: ``warnings.simplefilter("ignore", mcpsync.MCPWarning)`` hides them all."""


class ProtocolWarning(MCPWarning):
    """A server sent something that was skipped: a line that is not JSON, a message that fails the
    schema, a response to no request. The first of each kind per connection; ``stats`` counts them all."""


class ConfigurationWarning(MCPWarning):
    """A configuration that works but likely says what was not meant (a timeout in the wrong unit)."""
