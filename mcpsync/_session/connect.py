"""``mcpsync.connect``: from what the user has (a config, a URL, a command) to an initialized ``Client``."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping
from typing import Any, Callable, Literal, Optional, Union

from .._core.authorizer import Authorizer
from .._core.errors import ConfigurationError, HTTPStatusError, MCPError
from .._core.text import EXCERPT_LIMIT, cut, first_line
from .._core.timeouts import USE_DEFAULT, Deadline, Timeout, resolve_timeout
from .._wire import create_transport
from .._wire.config import (
    HTTP_OPTIONS,
    STDERR_MODES,
    STDIO_OPTIONS,
    HTTPServerConfig,
    ServerConfig,
    StdioServerConfig,
    server_config_from,
)
from .._wire.http.auth import as_authorizer
from .client import Client

__all__ = ["SSE_FALLBACK_STATUSES", "connect", "handshake", "transport_auth"]

logger = logging.getLogger("mcpsync.client")

#: Answers to our first POST that mean "this is an HTTP+SSE (2024-11-05) server".
SSE_FALLBACK_STATUSES = (400, 404, 405)


def transport_auth(config: HTTPServerConfig, auth: object = None) -> Union[Authorizer, Literal[False], None]:
    """The ``auth=`` of the transport of ``config``: the caller's (as an ``Authorizer``; ``False``: no
    auth at all); else an ``OAuth`` of the config's ``oauth`` settings (``False`` when they turn it
    off); else ``None``: the default.

    Raises:
        TypeError: the caller's ``auth`` is none of what ``auth=`` takes (``_wire.http.auth``).
    """
    if auth is False:
        return False
    if auth is not None or config.oauth is None:
        return as_authorizer(auth)
    options = config.oauth_options
    if options is None:
        return False
    from .._auth import OAuth

    return OAuth(**options)


def connect(
    target: Any,
    *,
    name: Optional[str] = None,
    timeout: Timeout = USE_DEFAULT,
    connect_timeout: Timeout = USE_DEFAULT,
    auth: object = None,
    env: Optional[Mapping[str, str]] = None,
    cwd: Optional[str] = None,
    inherit_env: Optional[bool] = None,
    stderr: Optional[str] = None,
    headers: Optional[Mapping[str, str]] = None,
    oauth: Optional[Mapping[str, Any]] = None,
    **client_kwargs: Any,
) -> Client:
    """Start or reach one server, run the handshake, and return the ready ``Client``.

    Args:
        target: an ``mcpServers``-style dict (``{"command": ..., "args": [...]}``),
            a ``StdioServerConfig`` / ``HTTPServerConfig``, a URL, a command
            line string, or a list ``[command, *args]``. A bare URL (or an entry without
            ``type``) is tried as Streamable HTTP first, then as HTTP+SSE if the POST gets 400, 404
            or 405 (see ``handshake``).
        name: the server's name in logs and thread names.
        timeout: the client's default timeout for every request, the handshake included, in seconds
            (default: the config's timeout, else 30 s; ``None``: no limit); a call's own ``timeout=``
            overrides it.
        connect_timeout: seconds for connecting (starting the server, the handshake), when that
            bound should differ from ``timeout`` (default: the config's ``connect_timeout``, else ``timeout``).
        env, cwd, inherit_env, stderr: for a command (a stdio server), as ``StdioServerConfig`` has them;
            they replace the target's own. ``stderr``: ``"inherit"`` (the default: each line on
            ``sys.stderr`` with the server's name in front), ``"log"`` (the logger
            ``mcpsync.server.<name>``) or ``"quiet"``.
        headers, oauth: for a URL (an HTTP server), as ``HTTPServerConfig`` has them.
        auth: for an HTTP server, an ``mcpsync.OAuth`` (or another grant), or any ``requests`` auth
            object. Default: ``OAuth()`` unless the headers carry ``Authorization``: a server that
            answers 401 gets a login when someone is there, else ``AuthorizationRequired``.
        **client_kwargs: passed to ``Client``.

    Raises:
        ConfigurationError: ``target`` is not a valid server description, or a keyword does not fit it
            (``env=`` for a URL, ``headers=`` for a command).
        HTTPStatusError: an HTTP server refused (the text carries the auth hints).
        AuthorizationRequired: the server wants a login, and nobody is here to give one.
        AuthorizationError: authorizing failed (a refusal: the text says what did not match).
        ConnectError, TransportClosed, RequestTimeout, ProtocolError: as ``Client.initialize``.
        NotSupportedError: a server command on a platform mcpsync cannot run one on yet (Windows).
    """
    config = server_config_from(target, name)
    given = {"env": env, "cwd": cwd, "inherit_env": inherit_env, "stderr": stderr, "headers": headers, "oauth": oauth}
    config = with_options(config, {k: v for k, v in given.items() if v is not None})
    if timeout is not USE_DEFAULT:
        config = dataclasses.replace(config, timeout=timeout)
    if connect_timeout is not USE_DEFAULT:
        config = dataclasses.replace(config, connect_timeout=connect_timeout)
    transport_options: dict[str, Any] = {}
    if auth is not None and not isinstance(config, HTTPServerConfig):
        raise ConfigurationError(f"{config.display_name}: auth= is for HTTP servers; a stdio server takes env=")
    if isinstance(config, HTTPServerConfig):
        chosen = transport_auth(config, auth)
        if chosen is not None:
            transport_options["auth"] = chosen

    def make(chosen: ServerConfig) -> Client:
        return Client(
            create_transport(chosen, **transport_options), connect_timeout=chosen.connect_timeout, **client_kwargs
        )

    return handshake(make(config), config, config.connect_timeout, make)


def with_options(config: ServerConfig, options: Mapping[str, Any]) -> ServerConfig:
    """``config`` with the transport's ``options`` (``env``, ``cwd``... for a command; ``headers``,
    ``oauth`` for a URL) in place of its own.

    Raises:
        ConfigurationError: an option that does not fit the kind of server, named.
    """
    if not options:
        return config
    fits, kind = (
        (STDIO_OPTIONS, "a command (a stdio server)")
        if isinstance(config, StdioServerConfig)
        else (HTTP_OPTIONS, "a URL (an HTTP server)")
    )
    if not isinstance(config, StdioServerConfig):
        # What a helper passes for every server, as the Manager takes it: ``stderr=`` (a mode, checked)
        # and the stdio options at their defaults mean nothing for a URL, and are ignored.
        stderr = options.get("stderr", STDERR_MODES[0])
        if stderr not in STDERR_MODES:
            raise ConfigurationError(f"{config.display_name}: stderr= must be one of {STDERR_MODES}, not {stderr!r}")
        options = {key: value for key, value in options.items() if key != "stderr" and not _at_default(key, value)}
    wrong = [key for key in options if key not in fits]
    if wrong:
        takes = ", ".join(f"{k}=" for k in fits)
        raise ConfigurationError(
            f"{config.display_name}: {', '.join(f'{k}=' for k in wrong)} "
            f"{'does' if len(wrong) == 1 else 'do'} not fit {kind}, which takes {takes}"
        )
    return dataclasses.replace(config, **options)


def _at_default(key: str, value: Any) -> bool:
    """Whether a stdio option is at its default (``env=None``, ``cwd=None``, ``inherit_env=False``)."""
    return key in STDIO_OPTIONS and (value is None or value is False)


def handshake(
    client: Client, config: ServerConfig, timeout: Timeout, again: Callable[[HTTPServerConfig], Client]
) -> Client:
    """Run ``client``'s handshake (``Client.initialize``) and return the client that got through.

    An HTTP server whose type was not given (``config.type_given`` false: a bare URL, an entry
    without ``type``) may be an old HTTP+SSE one: the spec tells clients to try Streamable HTTP
    first and fall back when the POST is refused with 400, 404 or 405. ``again(config)`` makes the
    client of the HTTP+SSE config. A type that was given is kept, and a refusal says which other
    type the server looks like. ``timeout`` bounds both attempts together, and every step of each
    (probe, ``initialize``, ``notifications/initialized``, the GET stream's answer).

    Raises:
        as ``Client.initialize``; when both transports were refused, the first answer's
        ``HTTPStatusError`` (the likelier truth: a 404 for a wrong path, say), saying what the other got.
    """
    # One deadline for both attempts; a person who logs in meanwhile is not the caller's time.
    deadline = Deadline(resolve_timeout(timeout, client.transport.default_timeout), client._channel)
    try:
        client.initialize(timeout=deadline.seconds)
        return client
    except HTTPStatusError as exc:
        if not isinstance(config, HTTPServerConfig) or exc.status_code not in SSE_FALLBACK_STATUSES:
            raise
        if config.type_given:
            other = _other_type(exc, config)
            if other is None:
                raise
            raise exc.retold(f"{exc} ({other})") from exc
        first = exc
    logger.info("server %r: POST refused with %d; trying the HTTP+SSE transport", client.name, first.status_code)
    sse = again(dataclasses.replace(config, type="sse"))
    try:
        sse.initialize(timeout=deadline.left())
    except MCPError as sse_error:
        raise first.retold(f"{first}; tried as HTTP+SSE too: {_briefly(sse_error)}") from sse_error
    return sse


def _other_type(error: HTTPStatusError, config: HTTPServerConfig) -> Optional[str]:
    """What to say when a type given explicitly is refused and the server looks like the other type."""
    from urllib.parse import urlsplit  # lazily: an HTTP server's connect; `import mcpsync` needs none

    path = urlsplit(config.url).path.rstrip("/")
    if config.type == "http" and (error.status_code == 405 or path.endswith("/sse")):
        return 'this looks like an HTTP+SSE server: use type "sse"'
    if config.type == "http" and error.status_code == 404 and path.endswith("/mcp"):
        return 'if it is an HTTP+SSE server, use type "sse" (its endpoint is usually /sse)'
    if config.type == "sse" and (error.status_code in (400, 405) or path.endswith("/mcp")):
        return 'this looks like a Streamable HTTP server: use type "http"'
    return None


def _briefly(error: MCPError) -> str:
    """The other transport's failure in a few words: an HTTP answer's status and request, no second excerpt."""
    if isinstance(error, HTTPStatusError) and error.method:
        return f"HTTP {error.status_code} from {error.method} {error.url}"
    return cut(first_line(str(error)), EXCERPT_LIMIT)
