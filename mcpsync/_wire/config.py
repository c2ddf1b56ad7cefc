"""Server configurations: what to start or where to connect, and with which limits.

Units: seconds (floats) in the Python API; ``timeout=None`` means no limit and
``USE_DEFAULT`` (the default) means ``DEFAULT_TIMEOUT``, 30 s. In JSON
configuration (the ``mcpServers`` entries other MCP clients write)
``timeout`` and ``connectTimeout`` are milliseconds, and ``server_config_from_dict``
converts them (a ``timeout`` under 1000 gets a ``ConfigurationWarning``: seconds
written where milliseconds belong).

One meaning of ``timeout``: the default bound of every request to the server,
the handshake included; ``connect_timeout`` (when given) bounds connecting instead.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Optional, Union

from .._core.errors import ConfigurationError, ConfigurationWarning
from .._core.text import did_you_mean
from .._core.timeouts import USE_DEFAULT, Timeout, UseDefault, check_timeout
from .._core.user_warnings import warn_at_caller

__all__ = [
    "STDERR_MODES",
    "HTTPServerConfig",
    "MessageSize",
    "ServerConfig",
    "StdioServerConfig",
    "check_max_message_size",
    "server_config_from",
    "server_config_from_dict",
]

HTTP_TYPES = ("http", "sse")
#: The members of an entry's ``oauth`` object that mcpsync uses, and the ``mcpsync.OAuth`` argument each sets.
OAUTH_SETTINGS = {
    "clientId": "client_id",
    "clientSecret": "client_secret",
    "scopes": "scopes",
    "redirectUri": "redirect_uri",
    "callbackPort": "redirect_port",
    "clientMetadataUrl": "client_metadata_url",
    "issuer": "issuer",
    "dpop": "dpop",
}
#: Members other clients write that mcpsync has no use for: it discovers the endpoints.
OAUTH_IGNORED = ("enabled", "authorizationUrl", "tokenUrl", "audiences", "tokenParamName", "registrationUrl")
#: Programs that start the real server named by their first argument.
_LAUNCHERS = frozenset({"node", "npx", "uvx", "uv", "bunx", "deno", "pipx", "docker"})

#: What a stdio server's stderr may do: ``"inherit"`` (the default: each line on our ``sys.stderr``,
#: the server's name in front), ``"log"`` (the logger ``mcpsync.server.<name>`` at INFO) or ``"quiet"``
#: (neither). The last lines are kept for the error of a server that dies, whatever the mode.
STDERR_MODES = ("inherit", "log", "quiet")
#: A config entry's ``timeout`` below this many milliseconds was likely meant as seconds.
LIKELY_SECONDS = 1000
#: The keywords of a command (stdio) target and of a URL (HTTP) target that set its configuration.
STDIO_OPTIONS = ("env", "cwd", "inherit_env", "stderr")
HTTP_OPTIONS = ("headers", "oauth")

#: What ``max_message_size`` takes: bytes, ``None`` (no limit) or ``USE_DEFAULT`` (64 MiB).
MessageSize = Union[int, None, Literal[UseDefault.USE_DEFAULT]]


def check_max_message_size(value: MessageSize, where: str) -> None:
    """Refuse a ``max_message_size`` that is not a positive number of bytes (``None`` and ``USE_DEFAULT`` pass)."""
    if value is None or value is USE_DEFAULT:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ConfigurationError(f"{where}: max_message_size must be a positive number of bytes, not {value!r}")


@dataclass(frozen=True)
class StdioServerConfig:
    """A server started as a child process and spoken to over its stdin/stdout.

    Args:
        command: the program to run (looked up on ``PATH``).
        args: its arguments.
        env: variables added to the child's environment.
        cwd: the child's working directory (default: ours).
        timeout: default request timeout in seconds (``None``: no limit; ``USE_DEFAULT``: 30 s).
        name: the server's name in logs and thread names (default: the program's name).
        inherit_env: pass our whole environment to the child instead of the
            safe default set (see ``mcpsync._wire.stdio.DEFAULT_INHERITED_ENV_VARS``).
        max_message_size: bytes one message from the server may have
            (``None``: no limit; ``USE_DEFAULT``: 64 MiB).
        connect_timeout: seconds for connecting (starting, the handshake); ``USE_DEFAULT``: ``timeout``.
        stderr: what the server's stderr does: ``"inherit"`` (default), ``"log"`` or ``"quiet"``
            (see ``STDERR_MODES``).
    """

    command: str
    args: Sequence[str] = ()
    env: Optional[Mapping[str, str]] = None
    cwd: Optional[str] = None
    timeout: Timeout = USE_DEFAULT
    name: Optional[str] = None
    inherit_env: bool = False
    max_message_size: MessageSize = USE_DEFAULT
    connect_timeout: Timeout = USE_DEFAULT
    stderr: str = "inherit"
    #: Where ``timeout`` came from, when a request's timeout should say it (a file's ``"timeout": 30``:
    #: milliseconds); ``""`` else.
    timeout_note: str = field(default="", init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        where = f"server {self.name!r}" if self.name else "stdio server"
        if self.stderr not in STDERR_MODES:
            raise ConfigurationError(f"{where}: 'stderr' must be one of {STDERR_MODES}, not {self.stderr!r}")
        object.__setattr__(self, "connect_timeout", check_timeout(self.connect_timeout, where))
        if not isinstance(self.command, str) or not self.command.strip():
            raise ConfigurationError(f"{where}: 'command' must be a non-empty string, not {self.command!r}")
        if isinstance(self.args, str) or not all(isinstance(a, str) for a in self.args):
            raise ConfigurationError(f"{where}: 'args' must be a list of strings, not {self.args!r}")
        object.__setattr__(self, "args", tuple(self.args))
        if self.env is not None:
            if not isinstance(self.env, Mapping) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in self.env.items()
            ):
                raise ConfigurationError(f"{where}: 'env' must map strings to strings, not {self.env!r}")
            object.__setattr__(self, "env", dict(self.env))
        if self.cwd is not None and not isinstance(self.cwd, (str, os.PathLike)):
            raise ConfigurationError(f"{where}: 'cwd' must be a path, not {self.cwd!r}")
        object.__setattr__(self, "timeout", check_timeout(self.timeout, where))
        check_max_message_size(self.max_message_size, where)

    @property
    def display_name(self) -> str:
        """The configured name, else a name taken from the command line.

        For launchers (``python -m pkg``, ``npx pkg``, ``uvx pkg``, ``node
        file.js``) the package or script names the server better than the
        launcher does.
        """
        if self.name:
            return self.name
        program = os.path.basename(self.command)
        args = list(self.args)
        if program.startswith("python") and args[:1] == ["-m"] and len(args) > 1:
            return args[1]
        if program.split(".")[0] in _LAUNCHERS or program.startswith("python"):
            for arg in args:
                if not arg.startswith("-"):
                    return os.path.basename(arg).rsplit("@", 1)[0] or program
        return program


@dataclass(frozen=True)
class HTTPServerConfig:
    """A server reached over HTTP: ``type="http"`` (Streamable HTTP) or ``"sse"`` (HTTP+SSE, 2024-11-05).

    Args:
        url: the MCP endpoint (``http://`` or ``https://``).
        headers: extra headers sent with every request.
        type: ``"http"`` or ``"sse"``.
        timeout: default request timeout in seconds (``None``: no limit; ``USE_DEFAULT``: 30 s).
        name: the server's name in logs and thread names (default: the URL's host).
        max_message_size: bytes one message from the server may have
            (``None``: no limit; ``USE_DEFAULT``: 64 MiB).
        oauth: OAuth settings, as an ``mcpServers`` entry's ``oauth`` object has them
            (``clientId``, ``clientSecret``, ``scopes``, ``redirectUri``, ``callbackPort``,
            ``clientMetadataUrl``, ``issuer``, ``dpop``; ``"enabled": false`` turns OAuth off).
        connect_timeout: seconds for connecting (the handshake); ``USE_DEFAULT``: ``timeout``.
        type_given: whether ``type`` was chosen (the default); ``False`` for a bare URL and an
            entry without ``type``: ``mcpsync.connect`` and the manager then try HTTP+SSE when the
            Streamable HTTP POST is refused with 400, 404 or 405. Not compared.
    """

    url: str
    headers: Optional[Mapping[str, str]] = None
    type: str = "http"
    timeout: Timeout = USE_DEFAULT
    name: Optional[str] = None
    max_message_size: MessageSize = USE_DEFAULT
    oauth: Optional[Mapping[str, Any]] = None
    type_given: bool = field(default=True, compare=False, repr=False)
    connect_timeout: Timeout = USE_DEFAULT
    #: As ``StdioServerConfig.timeout_note``.
    timeout_note: str = field(default="", init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        where = f"server {self.name!r}" if self.name else "http server"
        object.__setattr__(self, "connect_timeout", check_timeout(self.connect_timeout, where))
        if not isinstance(self.url, str) or not self.url.startswith(("http://", "https://")):
            raise ConfigurationError(f"{where}: 'url' must be an http:// or https:// URL, not {self.url!r}")
        if self.type not in HTTP_TYPES:
            raise ConfigurationError(f"{where}: 'type' must be one of {HTTP_TYPES}, not {self.type!r}")
        if self.headers is not None:
            if not isinstance(self.headers, Mapping) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in self.headers.items()
            ):
                raise ConfigurationError(f"{where}: 'headers' must map strings to strings")
            object.__setattr__(self, "headers", dict(self.headers))
        object.__setattr__(self, "timeout", check_timeout(self.timeout, where))
        check_max_message_size(self.max_message_size, where)
        if self.oauth is not None:
            object.__setattr__(self, "oauth", _check_oauth(self.oauth, where))

    @property
    def oauth_options(self) -> Optional[dict[str, Any]]:
        """The ``mcpsync.OAuth`` arguments of the ``oauth`` settings; ``None`` when OAuth is turned off."""
        settings = self.oauth or {}
        if settings.get("enabled") is False:
            return None
        return {OAUTH_SETTINGS[k]: v for k, v in settings.items() if k in OAUTH_SETTINGS}

    @property
    def display_name(self) -> str:
        """The configured name, or the URL's host."""
        if self.name:
            return self.name
        rest = self.url.split("://", 1)[1]
        return rest.split("/", 1)[0].rsplit("@", 1)[-1] or self.url


ServerConfig = Union[StdioServerConfig, HTTPServerConfig]


def server_config_from_dict(entry: Mapping[str, Any], name: Optional[str] = None) -> ServerConfig:
    """Read one ``mcpServers`` entry (``timeout`` in milliseconds, as MCP client files write it).

    ``type`` may be omitted (stdio when ``command`` is set, http when ``url``
    is: then with the HTTP+SSE fallback, ``type_given=False``), ``"stdio"``,
    ``"http"`` or ``"sse"``. ``maxMessageSize`` (bytes) sets ``max_message_size``,
    ``connectTimeout`` (milliseconds) ``connect_timeout``, and a stdio entry's ``stderr``
    (``"inherit"``, ``"log"``, ``"quiet"``) what its stderr does. A ``timeout`` under 1000
    (``30``: seconds written as milliseconds?) gets a ``ConfigurationWarning`` naming the unit.

    Raises:
        ConfigurationError: the entry is not one of those shapes; the message names the field.
    """
    where = f"server {name!r}" if name else "server configuration"
    if not isinstance(entry, Mapping):
        raise ConfigurationError(f"{where}: expected an object, not {type(entry).__name__}")
    kind = entry.get("type")
    type_given = kind is not None
    if kind is None:
        if "command" in entry and "url" in entry:
            raise ConfigurationError(f"{where}: has both 'command' and 'url'; give one, or set 'type'")
        kind = "http" if "url" in entry else "stdio"
    timeout = _milliseconds(entry, "timeout", where)
    connect_timeout = _milliseconds(entry, "connectTimeout", where)
    value = entry.get("timeout")
    note = ""
    if isinstance(value, (int, float)) and _likely_seconds(value):
        note = f"the configured 'timeout' {value:g} is milliseconds: {value:g} seconds is {value * 1000:g}"
    max_message_size = entry.get("maxMessageSize", USE_DEFAULT)
    config: ServerConfig
    if kind == "stdio":
        if "command" not in entry:
            raise ConfigurationError(f"{where}: a stdio server needs 'command'")
        config = StdioServerConfig(
            command=entry["command"],
            args=entry.get("args") or (),
            env=entry.get("env"),
            cwd=entry.get("cwd"),
            timeout=timeout,
            name=name,
            inherit_env=bool(entry.get("inheritEnv", False)),
            max_message_size=max_message_size,
            connect_timeout=connect_timeout,
            stderr=entry.get("stderr", "inherit"),
        )
    elif kind in HTTP_TYPES:
        if "url" not in entry:
            raise ConfigurationError(f"{where}: an {kind} server needs 'url'")
        if "stderr" in entry:
            raise ConfigurationError(f"{where}: 'stderr' is for a stdio server; an {kind} server has none")
        config = HTTPServerConfig(
            url=entry["url"],
            headers=entry.get("headers"),
            type=kind,
            timeout=timeout,
            name=name,
            max_message_size=max_message_size,
            oauth=entry.get("oauth"),
            type_given=type_given,
            connect_timeout=connect_timeout,
        )
    else:
        raise ConfigurationError(f"{where}: unknown 'type' {kind!r}; expected 'stdio', 'http' or 'sse'")
    if note:  # not a parameter: what the file said, kept for the timeout's message
        object.__setattr__(config, "timeout_note", note)
    return config


def _milliseconds(entry: Mapping[str, Any], key: str, where: str) -> Timeout:
    """An entry's ``timeout`` or ``connectTimeout`` (milliseconds) as seconds; ``USE_DEFAULT`` when absent."""
    value = entry.get(key)
    if value is None:
        return USE_DEFAULT
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigurationError(f"{where}: {key!r} must be milliseconds (a number), not {value!r}")
    if _likely_seconds(value):
        warn_at_caller(
            f"{where}: {key!r} is {value:g} milliseconds ({value / 1000:g} s); MCP configuration gives "
            f"milliseconds: for {value:g} seconds write {value * 1000:g}",
            ConfigurationWarning,
        )
    return value / 1000.0


def _likely_seconds(value: Any) -> bool:
    """A ``timeout`` of milliseconds that looks like seconds (``30``)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and 0 < value < LIKELY_SECONDS


def _check_oauth(value: Any, where: str) -> dict[str, Any]:
    """The ``oauth`` settings, checked: the known members of the right types; an unknown one is an error."""
    if not isinstance(value, Mapping):
        raise ConfigurationError(f"{where}: 'oauth' must be an object")
    settings = dict(value)
    for key, item in settings.items():
        if key in OAUTH_IGNORED:
            continue
        if key not in OAUTH_SETTINGS:
            hint = did_you_mean(key, [*OAUTH_SETTINGS, *OAUTH_IGNORED], n=1) or f"; known: {', '.join(OAUTH_SETTINGS)}"
            raise ConfigurationError(f"{where}: unknown member 'oauth.{key}'{hint}")
        if key == "scopes":
            ok = isinstance(item, str) or (isinstance(item, list) and all(isinstance(s, str) for s in item))
        elif key == "callbackPort":
            ok = isinstance(item, int) and not isinstance(item, bool) and 0 < item < 65536
        elif key == "dpop":
            ok = isinstance(item, bool)
        else:
            ok = isinstance(item, str) and bool(item)
        if not ok:
            raise ConfigurationError(f"{where}: 'oauth.{key}' has the wrong type or value: {item!r}")
    if "enabled" in settings and not isinstance(settings["enabled"], bool):
        raise ConfigurationError(f"{where}: 'oauth.enabled' must be true or false")
    return settings


def server_config_from(target: Any, name: Optional[str] = None) -> ServerConfig:
    """Turn what ``mcpsync.connect`` accepts into a config.

    ``target`` may be a config object, an ``mcpServers``-style dict, an
    ``http(s)://`` URL, a command line string (split like a shell would), or a
    list ``[command, *args]``.
    """
    if isinstance(target, (StdioServerConfig, HTTPServerConfig)):
        return target
    if isinstance(target, Mapping):
        return server_config_from_dict(target, name)
    if isinstance(target, str):
        if target.startswith(("http://", "https://")):
            return HTTPServerConfig(url=target, name=name, type_given=False)
        parts = shlex.split(target)
        if not parts:
            raise ConfigurationError("empty command line")
        return StdioServerConfig(command=parts[0], args=parts[1:], name=name)
    if isinstance(target, Sequence) and not isinstance(target, (bytes, bytearray)):
        parts = list(target)
        if not parts:
            raise ConfigurationError("empty command list")
        return StdioServerConfig(command=parts[0], args=parts[1:], name=name)
    raise ConfigurationError(
        f"expected a server config, an mcpServers-style dict, a URL or a command, not {type(target).__name__}"
    )
