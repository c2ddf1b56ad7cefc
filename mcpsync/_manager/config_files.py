"""Configuration files as other MCP clients write them: find, read, check, expand.

Shapes read (one JSON object a file; other top-level members are ignored):

- ``{"mcpServers": {name: entry}}``: Claude Desktop, Claude Code's ``.mcp.json``,
  Cursor's ``mcp.json``, Gemini CLI's ``settings.json``.
- ``{"servers": {name: entry}, "inputs": [...]}``: VS Code's ``.vscode/mcp.json``.
- A top-level ``disabledServers: [name, ...]`` switches off those servers of the file.

An entry is what ``mcpsync.config.server_config_from_dict`` reads (``type``,
``command``, ``args``, ``env``, ``cwd``, ``url``, ``headers``, ``timeout`` in
milliseconds; mcpsync's own ``connectTimeout``, in milliseconds, and ``stderr``), plus:

- ``enabled: false`` or ``disabled: true`` switches the server off; it is then
  neither checked beyond being an object nor expanded, and has no config.
- ``httpUrl`` (Gemini CLI) is the URL of a Streamable HTTP server.
- ``type`` ``"streamableHttp"`` (Cline) and ``"streamable-http"`` (Roo Code) mean ``"http"``.
- ``includeTools`` (Gemini CLI), ``excludeTools`` (Gemini CLI) and ``disabledTools`` (Roo Code,
  Kilo Code, Kiro): which of the server's tools are offered (``mcpsync._manager.tool_filter``).
- Members other clients write (``alwaysAllow``, ``autoApprove``, ``trust``,
  ``description``...: ``OTHER_CLIENTS_KEYS``) are ignored. An unknown member
  that is close to one mcpsync reads (``comand``, ``header``) is an error that
  suggests it; any other unknown member is ignored with a warning in the log.

Without ``type``, ``url`` means Streamable HTTP, as Claude Code reads it, and
HTTP+SSE when the POST is refused with 400, 404 or 405 (Gemini CLI and Cline
read a bare ``url`` as HTTP+SSE): such a server is reached either way;
``"type": "sse"`` skips the refused POST.

``${VAR}``, ``${VAR:-default}`` (the default also replaces an empty value, as in
a shell) and VS Code's ``${env:VAR}`` are replaced by environment variables in
``command``, ``args``, ``env`` and ``headers`` values, ``cwd``, ``url`` and
``httpUrl``. An unset variable without a default is an error; so is VS Code's
``${input:...}``, which would prompt the user.

Entries are checked against ``mcp-config.schema.json`` (beside this module) (before
expansion) and then by ``server_config_from_dict`` (after it). Every error is a
``ConfigurationError`` that names the file, the server and the field.

Discovery, when ``load_config`` gets no path, reads every one of these that
exists, in this order; the first file that defines a server name wins:

1. the file named by ``$MCPSYNC_CONFIG`` (an error if it does not exist),
2. ``./.mcp.json``, 3. ``./mcp.json``,
4. ``mcp.json`` in ``mcpsync.paths.user_config_dir()``: ``~/.config/mcpsync/mcp.json``
   on Linux, ``~/Library/Application Support/mcpsync/mcp.json`` on macOS,
   ``%APPDATA%\\mcpsync\\mcp.json`` on Windows.

A later file's entry for a name an earlier file defined is skipped (neither checked
nor expanded), and ``disabledServers`` applies to the servers of its own file.
"""

from __future__ import annotations

import copy
import functools
import json
import logging
import os
import re
from collections.abc import Container, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Union

from .._core import jsonrpc
from .._core.errors import ConfigurationError
from .._core.paths import user_config_dir
from .._core.text import cut, did_you_mean
from .._wire.config import ServerConfig, server_config_from_dict
from .config_check import plainly_valid

__all__ = [
    "CONFIG_ENV_VAR",
    "LoadedConfig",
    "ServerEntry",
    "discover_config_files",
    "load_config",
    "parse_config",
]

logger = logging.getLogger(__name__)

#: The environment variable naming a configuration file to read first.
CONFIG_ENV_VAR = "MCPSYNC_CONFIG"
#: The files looked for in the working directory, in order.
PROJECT_FILES = (".mcp.json", "mcp.json")
#: The file looked for in the user's configuration directory.
USER_FILE = "mcp.json"
#: ``source`` of servers given as a dict rather than read from a file.
DICT_SOURCE = "<dict>"

_SCHEMA_FILE = "mcp-config.schema.json"
#: ``type`` values other clients write for Streamable HTTP.
_HTTP_ALIASES = frozenset({"streamableHttp", "streamable-http"})
#: Members that make a dict a server entry, for the bare ``{name: entry}`` form.
_ENTRY_KEYS = ("command", "url", "httpUrl", "type")
#: What each member must be, for error messages (the schema says the same to the validator).
_EXPECTED = {
    "mcpServers": "an object mapping server names to servers",
    "servers": "an object mapping server names to servers",
    "disabledServers": "a list of server names",
    "inputs": "a list",
    "enabled": "true or false",
    "disabled": "true or false",
    "type": "'stdio', 'http' or 'sse'",
    "command": "a non-empty string",
    "args": "a list of strings",
    "env": "an object of strings",
    "cwd": "a string",
    "url": "a string",
    "httpUrl": "a string",
    "headers": "an object of strings",
    "timeout": "a positive number of milliseconds",
    "connectTimeout": "a positive number of milliseconds",
    "stderr": "'inherit', 'log' or 'quiet'",
    "inheritEnv": "true or false",
    "maxMessageSize": "a positive whole number of bytes",
    "oauth": "an object of OAuth settings (clientId, clientSecret, scopes, callbackPort, ...)",
    "includeTools": "a list of tool names or glob patterns",
    "excludeTools": "a list of tool names or glob patterns",
    "disabledTools": "a list of tool names or glob patterns",
}
#: Members of a server entry that other clients write and mcpsync ignores (no warning, no typo check).
OTHER_CLIENTS_KEYS = frozenset(
    {
        "alwaysAllow",  # Cline, Roo Code
        "autoApprove",  # Cline, Amazon Q
        "trust",  # Gemini CLI
        "description",
        "name",
        "envFile",  # VS Code
        "dev",
        "gallery",
        "version",
        "networkTimeout",
        "transportType",
        "serverUrl",  # Windsurf
        "authProviderType",
        "targetAudience",
        "targetServiceAccount",
    }
)
#: How close (difflib's ratio) an unknown member must be to a known one to be taken for its typo.
TYPO_RATIO = 0.8
#: The longest value an error message quotes.
_SHOW_LIMIT = 60
#: Levels of nesting a configuration may have; deeper is not a configuration (and would exhaust the stack).
MAX_DEPTH = 64

_REFERENCE = re.compile(r"\$\{([^}]*)\}")
_VARIABLE = re.compile(r"(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-(.*))?", re.DOTALL)


@dataclass(frozen=True)
class ServerEntry:
    """One server of a configuration, switched on or off.

    Attributes:
        name: the server's name (its key in the file).
        config: what to start or where to connect, ``${VAR}`` expanded;
            ``None`` when the server is switched off.
        enabled: ``False`` for ``enabled: false``, ``disabled: true`` or a
            name in ``disabledServers``.
        source: the file it came from, or ``"<dict>"``.
        raw: the entry as written, before expansion (left out of ``repr``: it
            may hold secrets).
    """

    name: str
    config: Optional[ServerConfig]
    enabled: bool
    source: str
    raw: Mapping[str, Any] = field(repr=False)


@dataclass(frozen=True)
class LoadedConfig:
    """The servers of one or more configuration files.

    Attributes:
        servers: every server by name, switched off ones included; in file
            order, the first file's servers first.
        sources: the files read, in discovery order (empty when none was found).
    """

    servers: dict[str, ServerEntry]
    sources: tuple[str, ...]

    def enabled(self) -> dict[str, ServerConfig]:
        """The configs of the servers that are switched on, by name, in order."""
        return {name: entry.config for name, entry in self.servers.items() if entry.config is not None}


def parse_config(
    data: Mapping[str, Any], *, source: str = DICT_SOURCE, environ: Optional[Mapping[str, str]] = None
) -> LoadedConfig:
    """Read a configuration already decoded from JSON.

    Besides the file shapes (see the module docstring), ``data`` may be a bare
    ``{name: entry}`` mapping when every entry has ``command``, ``url``,
    ``httpUrl`` or ``type``.

    Args:
        data: the decoded document.
        source: what error messages and ``ServerEntry.source`` call it.
        environ: the variables ``${VAR}`` reads (default ``os.environ``).

    Returns:
        The servers; ``sources`` is ``()`` for the default ``source``, else ``(source,)``.

    Raises:
        ConfigurationError: the message names the source, the server and the field.
    """
    if jsonrpc.nesting_depth(data, MAX_DEPTH) > MAX_DEPTH:
        raise ConfigurationError(f"{source}: nested deeper than {MAX_DEPTH} levels; not a server configuration")
    if isinstance(data, Mapping) and _is_bare(data):
        data = {"mcpServers": data}
    servers = _read_servers(data, source, os.environ if environ is None else environ, taken=())
    return LoadedConfig(servers, () if source == DICT_SOURCE else (source,))


def load_config(
    path: Union[str, os.PathLike[str], None] = None,
    *,
    environ: Optional[Mapping[str, str]] = None,
    cwd: Union[str, os.PathLike[str], None] = None,
) -> LoadedConfig:
    """Read a configuration file, or every file discovery finds.

    Args:
        path: the file to read (relative to ``cwd``); ``None`` to discover
            them (see the module docstring).
        environ: the environment: ``$MCPSYNC_CONFIG``, the user directory and
            ``${VAR}`` expansion read it (default ``os.environ``).
        cwd: the directory for relative paths and project files (default: the
            current one).

    Returns:
        The servers. Without ``path`` and with no file found, an empty config
        with ``sources == ()``: the caller decides whether that is an error.

    Raises:
        ConfigurationError: a file is missing, unreadable, not JSON or not a
            valid configuration; the message names the file (and the line and
            column, or the server and the field).
    """
    environ = os.environ if environ is None else environ
    if path is not None:
        files = [_resolve(path, cwd)]
        if not files[0].is_file():
            raise ConfigurationError(f"{files[0]}: no such configuration file")
    else:
        files = discover_config_files(environ=environ, cwd=cwd)
    servers: dict[str, ServerEntry] = {}
    for file in files:
        servers.update(_read_servers(_read_json(file), str(file), environ, taken=servers))
    logger.debug("configuration: %d servers from %s", len(servers), [str(f) for f in files])
    return LoadedConfig(servers, tuple(str(f) for f in files))


def discover_config_files(
    *, environ: Optional[Mapping[str, str]] = None, cwd: Union[str, os.PathLike[str], None] = None
) -> list[Path]:
    """The configuration files that exist, in the order ``load_config`` reads them.

    Args:
        environ: where ``$MCPSYNC_CONFIG`` and the user directory are read
            (default ``os.environ``).
        cwd: the directory of the project files and of a relative
            ``$MCPSYNC_CONFIG`` (default: the current one).

    Raises:
        ConfigurationError: ``$MCPSYNC_CONFIG`` names a file that does not exist.
    """
    environ = os.environ if environ is None else environ
    base = Path.cwd() if cwd is None else Path(cwd)
    candidates = []
    named = environ.get(CONFIG_ENV_VAR)
    if named:
        chosen = _resolve(named, base)
        if not chosen.is_file():
            raise ConfigurationError(f"${CONFIG_ENV_VAR} names {chosen}, which is not a file")
        candidates.append(chosen)
    candidates.extend(base / name for name in PROJECT_FILES)
    candidates.append(user_config_dir(environ=environ) / USER_FILE)
    found: list[Path] = []
    seen = set()
    for candidate in candidates:
        # $MCPSYNC_CONFIG may name one of the other files: read it once.
        key = candidate.resolve()
        if key not in seen and candidate.is_file():
            seen.add(key)
            found.append(candidate)
    return found


def _resolve(path: Union[str, os.PathLike[str]], cwd: Union[str, os.PathLike[str], None]) -> Path:
    return Path(path) if cwd is None else Path(cwd) / path


def _read_json(path: Path) -> Any:
    try:
        # utf-8-sig: Windows editors may start the file with a byte order mark.
        text = path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise ConfigurationError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise ConfigurationError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    try:
        data = jsonrpc.decode(text)
    except json.JSONDecodeError as exc:
        raise ConfigurationError(
            f"{path}: not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"
        ) from None
    except ValueError as exc:  # nested too deeply, NaN
        raise ConfigurationError(f"{path}: not valid JSON: {exc}") from None
    if jsonrpc.nesting_depth(data, MAX_DEPTH) > MAX_DEPTH:
        raise ConfigurationError(f"{path}: nested deeper than {MAX_DEPTH} levels; not a server configuration")
    return data


def _is_bare(data: Mapping[str, Any]) -> bool:
    """Whether ``data`` is ``{name: entry}`` rather than a file's top level."""
    if "mcpServers" in data or "servers" in data:
        return False
    return all(isinstance(entry, Mapping) and any(key in entry for key in _ENTRY_KEYS) for entry in data.values())


def _read_servers(data: Any, source: str, environ: Mapping[str, str], taken: Container[str]) -> dict[str, ServerEntry]:
    """Check a document and build its servers, leaving out the names in ``taken``."""
    if isinstance(data, Mapping) and not isinstance(data, dict):
        data = dict(data)  # jsonschema's "object" is a dict
    _check("file", data, source)
    entries = data.get("mcpServers", data.get("servers"))
    switched_off = set(data.get("disabledServers", ()))
    servers = {}
    for name, raw in entries.items():
        if name in taken:
            logger.debug("%s: server %r is already defined in an earlier file; ignored", source, name)
            continue
        where = f"{source}: server {name!r}"
        _check("entry", raw, where)
        _check_members(raw, where)
        enabled = raw.get("enabled") is not False and raw.get("disabled") is not True and name not in switched_off
        config = None
        if enabled:
            _check("server", raw, where)
            config = _build(raw, name, environ, where, source)
        servers[name] = ServerEntry(name, config, enabled, source, copy.deepcopy(raw))
    return servers


def _check_members(raw: Mapping[str, Any], where: str) -> None:
    """Refuse a member that looks like a typo of one mcpsync reads; log a warning for any other unknown one."""
    known = _known_members()
    for key in raw:
        if key in known or key in OTHER_CLIENTS_KEYS:
            continue
        hint = did_you_mean(key, known, n=1, cutoff=TYPO_RATIO)
        if hint:
            raise ConfigurationError(f"{where}: unknown member {key!r}{hint}")
        logger.warning("%s: unknown member %r, ignored", where, key)


@functools.cache
def _known_members() -> tuple[str, ...]:
    """The members of a server entry that the schema describes."""
    definitions = _schema()["$defs"]
    return tuple(dict.fromkeys([*definitions["entry"]["properties"], *definitions["server"]["properties"]]))


def _build(raw: Mapping[str, Any], name: str, environ: Mapping[str, str], where: str, source: str) -> ServerConfig:
    entry = _expand_entry(raw, environ, where)
    if entry.get("type") in _HTTP_ALIASES:
        entry["type"] = "http"
    if "httpUrl" in entry:
        entry["url"] = entry.pop("httpUrl")
        entry.setdefault("type", "http")
    try:
        return server_config_from_dict(entry, name)
    except ConfigurationError as exc:
        # Its message names the server and the field; add the file.
        raise ConfigurationError(f"{source}: {exc}") from None


def _expand_entry(raw: Mapping[str, Any], environ: Mapping[str, str], where: str) -> dict[str, Any]:
    """A copy of a checked entry with ``${...}`` replaced in the fields that take it."""
    entry = dict(raw)
    for key in ("command", "cwd", "url", "httpUrl"):
        if key in entry:
            entry[key] = _expand(entry[key], environ, f"{where}: {key}")
    if "args" in entry:
        entry["args"] = [_expand(arg, environ, f"{where}: args[{i}]") for i, arg in enumerate(entry["args"])]
    for key in ("env", "headers"):
        if key in entry:
            entry[key] = {k: _expand(v, environ, f"{where}: {key}.{k}") for k, v in entry[key].items()}
    if isinstance(entry.get("oauth"), dict):  # a client secret belongs in the environment, not the file
        entry["oauth"] = {
            k: _expand(v, environ, f"{where}: oauth.{k}") if isinstance(v, str) else v
            for k, v in entry["oauth"].items()
        }
    return entry


def _expand(text: str, environ: Mapping[str, str], where: str) -> str:
    """Replace every ``${...}`` in ``text``; ``where`` starts the error messages."""

    def substitute(match: re.Match[str]) -> str:
        reference, inside = match.group(0), match.group(1)
        if inside.startswith("input:"):
            raise ConfigurationError(
                f"{where}: {reference} asks the user for a value (VS Code 'inputs'), which is not supported;"
                " write the value, or ${NAME} to read an environment variable"
            )
        variable = _VARIABLE.fullmatch(inside)
        if variable is None:
            raise ConfigurationError(f"{where}: {reference} is not a variable; write ${{NAME}} or ${{NAME:-default}}")
        name, default = variable.groups()
        value = environ.get(name)
        if default is not None and not value:
            return default
        if value is None:
            raise ConfigurationError(f"{where}: {reference} is not set")
        return value

    return _REFERENCE.sub(substitute, text)


def _check(part: str, instance: Any, where: str) -> None:
    """Check ``instance`` against a part of the schema; raise for its first error.

    ``part`` is ``"file"`` (the top level), ``"entry"`` (any server entry) or
    ``"server"`` (a switched-on one); ``where`` starts the message.
    """
    if plainly_valid(part, instance):  # most are: jsonschema (its import) only for the others
        return
    errors = list(_validators()[part].iter_errors(instance))
    if errors:
        # One error, the same every run: the object's own (a missing member)
        # first, then its members' in the order the file writes them.
        order = list(instance) if isinstance(instance, dict) else []

        def place(error: Any) -> tuple[int, int]:
            path = error.absolute_path
            return (len(path), order.index(path[0]) if path else -1)

        error = min(errors, key=place)
        raise ConfigurationError(f"{where}: {_describe(error, instance, part)}")


def _describe(error: Any, instance: Any, part: str) -> str:
    """Say in the file's terms what a schema error means."""
    path = list(error.absolute_path)
    if path:
        key = path[0]
        expected = _EXPECTED.get(key)
        if expected is None:  # a member the schema checks but this table forgot
            return f"{key}: {error.message}"
        if len(path) == 1:
            return f"{key!r} must be {expected}, not {_show(error.instance)}"
        inner = "".join(f"[{step}]" if isinstance(step, int) else f".{step}" for step in path[1:])
        return f"{key!r} must be {expected}: {key}{inner} is {_show(error.instance)}"
    if error.validator == "type":
        if part == "file":
            return f"expected a JSON object with 'mcpServers' or 'servers', not {_json_type(instance)}"
        return f"expected an object, not {_json_type(instance)}"
    if part == "file":
        if error.validator == "not":
            return "has both 'mcpServers' and 'servers'; keep one"
        return "no 'mcpServers' or 'servers' object at the top level"
    if error.validator == "not":
        both = [key for key in ("command", "url", "httpUrl") if key in instance]
        return f"has both {both[0]!r} and {both[1]!r}; give one"
    # What is left is a member the server's type requires.
    kind = instance.get("type")
    if kind == "stdio":
        return "a stdio server needs 'command'"
    if kind == "sse":
        return "an sse server needs 'url'"
    if kind is not None:
        return "an http server needs 'url' (or 'httpUrl')"
    return "needs 'command' (a stdio server) or 'url' (an http server)"


def _show(value: Any) -> str:
    text = repr(value)
    return cut(text, _SHOW_LIMIT)


def _json_type(value: Any) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean", type(None): "null"}
    return names.get(type(value), "a number")


@functools.cache
def _validators() -> dict[str, Any]:
    """Compile (once) a validator for each part of the shipped schema a file is checked against."""
    from jsonschema import Draft202012Validator  # lazily: `import mcpsync` stays fast

    schema = _schema()
    Draft202012Validator.check_schema(schema)
    return {
        part: Draft202012Validator({"$ref": f"#/$defs/{part}", "$defs": schema["$defs"]})
        for part in ("file", "entry", "server")
    }


@functools.cache
def _schema() -> dict[str, Any]:
    """The shipped schema, read once."""
    from importlib import resources

    schema: dict[str, Any] = json.loads(resources.files(__package__).joinpath(_SCHEMA_FILE).read_text("utf-8"))
    return schema
