"""The roots of mcpsync's exceptions and warnings, and the errors of the connection and exchange.

This module holds what every layer may raise: the roots, the server's error answers (one class
per code that ``ServerError.from_error_object`` reads), the transport's failures (HTTP status and
authorization among them), timeouts, broken messages, bad arguments, and the warnings.
``mcpsync._core.feature_errors`` holds the errors of MCP's features, which the session raises:
CapabilityNotDeclared, CapabilityNotServed, ExtensionNotDeclared, HandlerResultError,
OutputSchemaError, PageLimitExceeded, SkillVerificationError, TaskCancelled, TaskNotFound,
ToolError and UnsupportedProtocolVersion. The whole tree is drawn here.

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
    ├── RequestCancelled             the caller's CancelScope cancelled the request
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
    "ConfigurationError",
    "ConfigurationWarning",
    "ConnectError",
    "HTTPStatusError",
    "HeaderMismatch",
    "InvalidMessage",
    "MCPError",
    "MCPWarning",
    "MessageTooLarge",
    "MissingClientCapability",
    "NoResponseError",
    "NotSupportedError",
    "ProtocolError",
    "ProtocolWarning",
    "RequestCancelled",
    "RequestTimeout",
    "ServerError",
    "ServerUnavailable",
    "SessionExpired",
    "TokenStoreError",
    "TransportClosed",
    "TransportError",
    "URLElicitationRequired",
    "UnknownNameError",
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
    user owns it, it is a symbolic link): nothing was read from it or written to it. Also a save
    that failed (a full disk, a file where the directory should be): the entry is as it was.

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


class RequestCancelled(MCPError):
    """A request was cancelled by its caller's ``CancelScope`` (from another thread, say); the
    server was told with ``notifications/cancelled``.

    Attributes:
        method: the request's method.
        reason: the reason given to ``CancelScope.cancel``.
    """

    def __init__(self, method: str, reason: str) -> None:
        super().__init__(f"{method} cancelled: {reason}")
        self.method = method
        self.reason = reason


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


class ConfigurationError(MCPError, ValueError):
    """A server configuration is invalid; the message says which field and why."""


class NotSupportedError(MCPError, NotImplementedError):
    """A feature mcpsync does not offer (yet); the message says which."""


class UnknownNameError(MCPError, LookupError):
    """No server, tool or prompt of that name (the message suggests close matches)."""


class MCPWarning(UserWarning):
    """The base of mcpsync's warnings: ``warnings.simplefilter("ignore", mcpsync.MCPWarning)`` hides them all."""


class ProtocolWarning(MCPWarning):
    """A server sent something that was skipped: a line that is not JSON, a message that fails the
    schema, a response to no request. The first of each kind per connection; ``stats`` counts them all."""


class ConfigurationWarning(MCPWarning):
    """A configuration that works but likely says what was not meant (a timeout in the wrong unit)."""
