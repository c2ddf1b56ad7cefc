"""Configuration files as MCP clients write them: find, read, check, expand.

Shapes read (other top-level members are ignored):

- ``{"mcpServers": {name: entry}}``: Claude Desktop, Claude Code's ``.mcp.json`` and
  ``~/.claude.json`` (also under ``projects[<dir>]``), Cursor's and Windsurf's files,
  Gemini CLI's ``settings.json``.
- ``{"servers": {name: entry}, "inputs": [...]}``: VS Code's ``mcp.json``.
- Codex's ``config.toml``: ``[mcp_servers.<name>]`` tables (``client_files.codex_entry``).
- A top-level ``disabledServers: [name, ...]`` switches off those servers of the file.

An entry is what ``mcpsync.config.server_config_from_dict`` reads (``type``,
``command``, ``args``, ``env``, ``cwd``, ``url``, ``headers``, ``timeout`` in
milliseconds; mcpsync's own ``connectTimeout``, in milliseconds, and ``stderr``), plus:

- ``enabled: false`` or ``disabled: true`` switches the server off; it is then
  neither checked beyond being an object nor expanded, and has no config.
- ``httpUrl`` (Gemini CLI) is the URL of a Streamable HTTP server; ``serverUrl`` (Windsurf) is
  a URL as ``url`` is.
- ``type`` ``"streamableHttp"`` (Cline) and ``"streamable-http"`` (Roo Code) mean ``"http"``.
- ``includeTools`` (Gemini CLI), ``excludeTools`` (Gemini CLI), ``disabledTools`` (Roo Code,
  Kilo Code, Kiro), ``enabled_tools`` and ``disabled_tools`` (Codex): which of the server's
  tools are offered (``mcpsync._manager.tool_filter``).
- Members other clients write (``alwaysAllow``, ``autoApprove``, ``trust``,
  ``description``...: ``OTHER_CLIENTS_KEYS``) are ignored. An unknown member
  that is close to one mcpsync reads (``comand``, ``header``) is an error that
  suggests it; any other unknown member is ignored with a warning in the log.

Without ``type``, ``url`` means Streamable HTTP, as Claude Code reads it, and
HTTP+SSE when the POST is refused with 400, 404 or 405 (Gemini CLI and Cline
read a bare ``url`` as HTTP+SSE): such a server is reached either way;
``"type": "sse"`` skips the refused POST.

References to variables are replaced in ``command``, ``args``, ``env`` and ``headers`` values,
``cwd``, ``url``, ``httpUrl`` and ``serverUrl``, as the file's client expands them
(``client_files.Variables``): in mcpsync's own files (and a file given by a name no other client
uses) ``${VAR}``, ``${VAR:-default}`` (the default also replaces an empty value, as in a shell)
and ``${env:VAR}``; in VS Code's and Cursor's ``${workspaceFolder}`` and their other variables;
nothing in Claude Desktop's and Codex's. An unset variable without a default is an error; so is
a reference the client does not expand, and VS Code's ``${input:...}``, which would prompt the user.

Entries are checked against ``mcp-config.schema.json`` (beside this module) (before
expansion) and then by ``server_config_from_dict`` (after it). Every error is a
``ConfigurationError`` that names the file, the server and the field.

Discovery, when ``load_config`` gets no path, reads every one of these that
exists, in this order; the first file that defines a server name wins:

1. the file named by ``$MCPSYNC_CONFIG`` (an error if it does not exist),
2. ``./.mcp.json``, 3. ``./mcp.json``,
4. ``mcp.json`` in ``mcpsync.paths.user_config_dir()``: ``~/.config/mcpsync/mcp.json``
   on Linux, ``~/Library/Application Support/mcpsync/mcp.json`` on macOS,
   ``%APPDATA%\\mcpsync\\mcp.json`` on Windows,
5. the other clients' project files: ``./.cursor/mcp.json``, ``./.vscode/mcp.json``,
   ``./.gemini/settings.json``,
6. the other clients' user files: Claude Code's ``~/.claude.json`` (its local scope for the
   working directory, then its user scope), Claude Desktop's, Cursor's, VS Code's, Windsurf's,
   Gemini CLI's and Codex's (where each is: ``client_files``).

``clients=`` (``--from`` on the command line) keeps the files of those clients alone
(``client_files.CLIENTS``; ``./.mcp.json`` is mcpsync's and Claude Code's). A later file's entry
for a name an earlier file defined is skipped (neither checked nor expanded), and
``disabledServers`` applies to the servers of its own file.
"""

from __future__ import annotations

import copy
import functools
import json
import logging
import os
from collections.abc import Container, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Optional, Union

from .._core import jsonrpc
from .._core.errors import ConfigurationError, ConfigurationWarning
from .._core.paths import user_config_dir
from .._core.text import cut, did_you_mean
from .._core.user_warnings import warn_at_caller
from .._wire.config import ServerConfig, server_config_from_dict
from .client_files import (
    CLIENTS,
    CODEX_IGNORED,
    CODEX_MEMBERS,
    ClientFile,
    Variables,
    check_clients,
    codex_entry,
    config_text,
    files_named,
    other_project_files,
    other_user_files,
    read_toml,
)
from .config_check import plainly_valid

__all__ = [
    "CONFIG_ENV_VAR",
    "LoadedConfig",
    "ServerEntry",
    "candidate_files",
    "discover_config_files",
    "load_config",
    "parse_config",
    "read_config_file",
]

logger = logging.getLogger(__name__)

#: The environment variable naming a configuration file to read first.
CONFIG_ENV_VAR = "MCPSYNC_CONFIG"
#: The files looked for in the working directory, in order.
PROJECT_FILES = (".mcp.json", "mcp.json")
#: The other clients that write one of those files (``.mcp.json`` is Claude Code's project file).
_ALSO = {".mcp.json": ("claude-code",)}
#: The file looked for in the user's configuration directory.
USER_FILE = "mcp.json"
#: ``source`` of servers given as a dict rather than read from a file.
DICT_SOURCE = "<dict>"

_SCHEMA_FILE = "mcp-config.schema.json"
#: ``type`` values other clients write for Streamable HTTP.
_HTTP_ALIASES = frozenset({"streamableHttp", "streamable-http"})
#: Members that make a dict a server entry, for the bare ``{name: entry}`` form.
_ENTRY_KEYS = ("command", "url", "httpUrl", "serverUrl", "type")
#: The members that hold a server's URL: each is ``url`` once read (see the module docstring).
_URL_KEYS = ("url", "httpUrl", "serverUrl")
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
    "serverUrl": "a string",
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
    "enabled_tools": "a list of tool names or glob patterns",
    "disabled_tools": "a list of tool names or glob patterns",
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
    ``httpUrl``, ``serverUrl`` or ``type``. Its variables are mcpsync's own.

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
    variables = Variables("mcpsync", os.environ if environ is None else environ, None)
    servers = _read_servers(data, source, variables, taken=())
    return LoadedConfig(servers, () if source == DICT_SOURCE else (source,))


def load_config(
    path: Union[str, os.PathLike[str], None] = None,
    *,
    environ: Optional[Mapping[str, str]] = None,
    cwd: Union[str, os.PathLike[str], None] = None,
    clients: Union[str, Iterable[str], None] = None,
) -> LoadedConfig:
    """Read a configuration file, or every file discovery finds.

    Args:
        path: the file to read (relative to ``cwd``), as the client whose name and folder it has
            reads it (``*.toml`` as Codex's); ``None`` to discover them (see the module docstring).
        environ: the environment: ``$MCPSYNC_CONFIG``, the user directories and
            ``${VAR}`` expansion read it (default ``os.environ``).
        cwd: the directory for relative paths and project files (default: the
            current one).
        clients: discover only these clients' files (names of ``CLIENTS``, or one comma-separated
            string: ``"cursor,vscode"``); ``None``: every client's.

    Returns:
        The servers. Without ``path`` and with no file found, an empty config
        with ``sources == ()``: the caller decides whether that is an error.

    Raises:
        ConfigurationError: a file is missing, unreadable, not JSON (TOML) or not a
            valid configuration (the message names the file, and the line and
            column, or the server and the field); an unknown client name.
    """
    environ = os.environ if environ is None else environ
    if path is not None:
        if clients is not None:
            raise ConfigurationError("clients= chooses among the files discovery finds; give it or a path, not both")
        named = _resolve(path, cwd)
        if not named.is_file():
            raise ConfigurationError(f"{named}: no such configuration file")
        files = files_named(named, environ, _base(cwd))
    else:
        files = _discovered(environ, cwd, clients)
    servers: dict[str, ServerEntry] = {}
    read: list[ClientFile] = []
    for file in files:
        try:
            servers.update(read_config_file(file, environ, taken=servers))
        except ConfigurationError as exc:
            if path is not None or clients is not None or file.client == "mcpsync":
                raise  # a file asked for, or mcpsync's own: its error is the caller's
            # Another client's file that every command now reads (~/.cursor/mcp.json, say) must not
            # stop mcpsync in every project: left out, loudly; `mcpsync config` shows its error.
            logger.warning("configuration: %s; this %s file is left out", exc, file.client)
            warn_at_caller(f"{exc}; this {file.client} file is left out", ConfigurationWarning)
            continue
        read.append(file)
    sources = tuple(dict.fromkeys(str(file.path) for file in read))
    logger.debug("configuration: %d servers from %s", len(servers), list(sources))
    return LoadedConfig(servers, sources)


def discover_config_files(
    *,
    environ: Optional[Mapping[str, str]] = None,
    cwd: Union[str, os.PathLike[str], None] = None,
    clients: Union[str, Iterable[str], None] = None,
) -> list[Path]:
    """The configuration files that exist, in the order ``load_config`` reads them.

    Args:
        environ: where ``$MCPSYNC_CONFIG`` and the user directories are read
            (default ``os.environ``).
        cwd: the directory of the project files and of a relative
            ``$MCPSYNC_CONFIG`` (default: the current one).
        clients: only these clients' files (as ``load_config`` takes them); ``None``: every client's.

    Raises:
        ConfigurationError: ``$MCPSYNC_CONFIG`` names a file that does not exist; an unknown client name.
    """
    environ = os.environ if environ is None else environ
    return list(dict.fromkeys(file.path for file in _discovered(environ, cwd, clients)))


def candidate_files(
    *,
    environ: Optional[Mapping[str, str]] = None,
    cwd: Union[str, os.PathLike[str], None] = None,
    clients: Union[str, Iterable[str], None] = None,
    platform: Optional[str] = None,
) -> list[ClientFile]:
    """Every place discovery looks, in its order, whether a file is there or not (see the module docstring).

    Raises:
        ConfigurationError: an unknown client name.
    """
    environ = os.environ if environ is None else environ
    wanted = set(CLIENTS if clients is None else check_clients(clients))
    base = _base(cwd)
    own: list[ClientFile] = []
    named = environ.get(CONFIG_ENV_VAR)
    if named:
        for file in files_named(_resolve(named, base), environ, base):  # mcpsync's, whoever wrote the file
            own.append(replace(file, also=("mcpsync",)) if file.client != "mcpsync" else file)
    own += [ClientFile("mcpsync", base / name, "project", base, also=_ALSO.get(name, ())) for name in PROJECT_FILES]
    own.append(ClientFile("mcpsync", user_config_dir(environ=environ, platform=platform) / USER_FILE, "user", base))
    users = other_user_files(environ, base, platform)
    # In the home directory a project's .cursor/mcp.json is the user's own: read once, as a user file.
    theirs = {file.path.resolve() for file in users}
    projects = [file for file in other_project_files(base) if file.path.resolve() not in theirs]
    return [file for file in [*own, *projects, *users] if wanted.intersection(file.clients)]


def _discovered(
    environ: Mapping[str, str], cwd: Union[str, os.PathLike[str], None], clients: Union[str, Iterable[str], None]
) -> list[ClientFile]:
    """The candidates that exist, each file (and part of one) once."""
    found: list[ClientFile] = []
    seen = set()
    for file in candidate_files(environ=environ, cwd=cwd, clients=clients):
        if file.scope == "named" and not file.path.is_file():
            raise ConfigurationError(f"${CONFIG_ENV_VAR} names {file.path}, which is not a file")
        # $MCPSYNC_CONFIG may name one of the other files: read it once.
        key = (file.path.resolve(), file.project)
        if key not in seen and file.path.is_file():
            seen.add(key)
            found.append(file)
    return found


def read_config_file(
    file: ClientFile, environ: Mapping[str, str], taken: Container[str], skipped: Optional[list[str]] = None
) -> dict[str, ServerEntry]:
    """The servers of one file (or one part of ``~/.claude.json``), leaving out the names in ``taken``
    (appended to ``skipped``); its variables as its client expands them.

    Raises:
        ConfigurationError: as ``load_config``.
    """
    source = str(file.path)
    variables = Variables(file.client, environ, file.workspace)
    if file.client == "codex":
        data = read_toml(file.path)
        if jsonrpc.nesting_depth(data, MAX_DEPTH) > MAX_DEPTH:
            raise ConfigurationError(f"{source}: nested deeper than {MAX_DEPTH} levels; not a server configuration")
        return _read_servers(data, source, variables, taken, skipped=skipped, optional=True)
    data = _read_json(file.path)
    label = source
    if file.project is not None:  # Claude Code's local scope: the servers of this project
        projects = data.get("projects") if isinstance(data, Mapping) else None
        if not isinstance(projects, Mapping):
            return {}
        data = projects.get(file.project, projects.get(str(Path(file.project).resolve())))
        label = f"{source}: {file.part}"
        if data is None:
            return {}
    return _read_servers(data, source, variables, taken, skipped=skipped, optional=file.servers_optional, label=label)


def _base(cwd: Union[str, os.PathLike[str], None]) -> Path:
    """The working directory as an absolute path (links kept: it is the name the user gave)."""
    return Path.cwd() if cwd is None else Path(os.path.abspath(cwd))


def _resolve(path: Union[str, os.PathLike[str]], cwd: Union[str, os.PathLike[str], None]) -> Path:
    return Path(path) if cwd is None else Path(cwd) / path


def _read_json(path: Path) -> Any:
    text = config_text(path)
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


def _read_servers(
    data: Any,
    source: str,
    variables: Variables,
    taken: Container[str],
    *,
    skipped: Optional[list[str]] = None,
    optional: bool = False,
    label: Optional[str] = None,
) -> dict[str, ServerEntry]:
    """Check a document and build its servers, leaving out the names in ``taken``.

    ``optional``: a document without its servers' member defines none (another client's settings);
    ``label``: what messages call the document (default ``source``).
    """
    label = label or source
    codex = variables.client == "codex"
    if isinstance(data, Mapping) and not isinstance(data, dict):
        data = dict(data)  # jsonschema's "object" is a dict
    if codex:
        entries = data.get("mcp_servers", {})
        if not isinstance(entries, dict):
            raise ConfigurationError(f"{label}: 'mcp_servers' must be a table of servers, not {_show(entries)}")
        switched_off: set[str] = set()
    else:
        if optional and isinstance(data, dict) and "mcpServers" not in data and "servers" not in data:
            return {}
        _check("file", data, label)
        entries = data.get("mcpServers", data.get("servers"))
        switched_off = set(data.get("disabledServers", ()))
    servers = {}
    for name, raw in entries.items():
        if name in taken:
            logger.debug("%s: server %r is already defined in an earlier file; ignored", label, name)
            if skipped is not None:
                skipped.append(name)
            continue
        where = f"{label}: server {name!r}"
        _check("entry", raw, where)
        if codex:
            _check_members(raw, where, CODEX_MEMBERS, CODEX_IGNORED)
        else:
            _check_members(raw, where, _known_members(), OTHER_CLIENTS_KEYS)
        enabled = raw.get("enabled") is not False and raw.get("disabled") is not True and name not in switched_off
        config = None
        if enabled:
            entry = codex_entry(raw, variables.environ, where) if codex else raw
            _check("server", entry, where)
            config = _build(entry, name, variables, where, label)
        servers[name] = ServerEntry(name, config, enabled, source, copy.deepcopy(raw))
    return servers


def _check_members(raw: Mapping[str, Any], where: str, known: Sequence[str], ignored: Container[str]) -> None:
    """Refuse a member that looks like a typo of one mcpsync reads; log a warning for any other unknown one."""
    for key in raw:
        if key in known or key in ignored:
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


def _build(raw: Mapping[str, Any], name: str, variables: Variables, where: str, source: str) -> ServerConfig:
    entry = _expand_entry(raw, variables, where)
    if entry.get("type") in _HTTP_ALIASES:
        entry["type"] = "http"
    if "httpUrl" in entry:
        entry["url"] = entry.pop("httpUrl")
        entry.setdefault("type", "http")
    if "serverUrl" in entry:  # Windsurf's: Streamable HTTP or HTTP+SSE, as a bare url is
        entry["url"] = entry.pop("serverUrl")
    try:
        return server_config_from_dict(entry, name)
    except ConfigurationError as exc:
        # Its message names the server and the field; add the file.
        raise ConfigurationError(f"{source}: {exc}") from None


def _expand_entry(raw: Mapping[str, Any], variables: Variables, where: str) -> dict[str, Any]:
    """A copy of a checked entry with ``${...}`` replaced in the fields that take it."""
    expand = variables.expand
    entry = dict(raw)
    for key in ("command", "cwd", *_URL_KEYS):
        if key in entry:
            entry[key] = expand(entry[key], f"{where}: {key}")
    if "args" in entry:
        entry["args"] = [expand(arg, f"{where}: args[{i}]") for i, arg in enumerate(entry["args"])]
    for key in ("env", "headers"):
        if key in entry:
            entry[key] = {k: expand(v, f"{where}: {key}.{k}") for k, v in entry[key].items()}
    if isinstance(entry.get("oauth"), dict):  # a client secret belongs in the environment, not the file
        entry["oauth"] = {
            k: expand(v, f"{where}: oauth.{k}") if isinstance(v, str) else v for k, v in entry["oauth"].items()
        }
    return entry


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
        both = [key for key in ("command", *_URL_KEYS) if key in instance]
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
