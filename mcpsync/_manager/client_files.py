"""The configuration files of other MCP clients: where each client keeps them, and how it reads ``${...}``.

Discovery (``mcpsync._manager.config_files``) reads mcpsync's own files first, then these:
the project files (in the working directory), then the user files, each client's in this order:

- ``claude-code``: ``./.mcp.json`` is read as mcpsync's own; ``~/.claude.json`` (in
  ``$CLAUDE_CONFIG_DIR`` when set): the local scope ``projects[<the working directory>].mcpServers``,
  then the user scope, its top-level ``mcpServers``.
- ``claude-desktop``: ``claude_desktop_config.json`` in ``~/Library/Application Support/Claude``
  (macOS), ``%APPDATA%\\Claude`` (Windows), ``$XDG_CONFIG_HOME/Claude`` or ``~/.config/Claude``.
- ``cursor``: ``./.cursor/mcp.json``; ``~/.cursor/mcp.json``.
- ``vscode``: ``./.vscode/mcp.json``; ``mcp.json`` in VS Code's user directory:
  ``~/Library/Application Support/Code/User`` (macOS), ``%APPDATA%\\Code\\User`` (Windows),
  ``$XDG_CONFIG_HOME/Code/User`` or ``~/.config/Code/User``.
- ``windsurf``: ``~/.codeium/windsurf/mcp_config.json`` (``serverUrl`` is a server's URL).
- ``gemini``: ``./.gemini/settings.json``; ``~/.gemini/settings.json``.
- ``codex``: ``~/.codex/config.toml`` (``$CODEX_HOME/config.toml``): ``[mcp_servers.<name>]``
  tables, made into server entries by ``codex_entry``.

A file of these clients without ``mcpServers`` (or ``servers``) defines no server: most of them
hold the client's other settings too.

Variables, as each client documents them (``Variables``), in the fields that take them:

- mcpsync's own files, and any file not recognised as another client's: ``${NAME}``,
  ``${NAME:-default}``, ``${env:NAME}``.
- Claude Code: ``${NAME}``, ``${NAME:-default}``.
- VS Code and Cursor: ``${env:NAME}``, ``${workspaceFolder}`` (the project directory of a project
  file; the working directory for a user file), ``${workspaceFolderBasename}``, ``${userHome}``,
  ``${pathSeparator}`` and ``${/}``. VS Code's ``${input:...}`` would prompt: not supported.
- Windsurf: ``${env:NAME}``. Gemini CLI: ``$NAME`` and ``${NAME}``.
- Claude Desktop and Codex expand nothing: their values are taken as written (Codex reads the
  environment through ``env_vars``, ``env_http_headers`` and ``bearer_token_env_var``).

An unset variable, and a reference the file's client does not expand, is a ``ConfigurationError``
that names the file, the server and the field.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Union

from .._core.errors import ConfigurationError
from .._core.paths import user_home_dir
from .._core.text import did_you_mean

__all__ = [
    "CLIENTS",
    "CLIENT_NAMES",
    "OTHER_PROJECT_FILES",
    "ClientFile",
    "Variables",
    "check_clients",
    "codex_entry",
    "config_text",
    "files_named",
    "other_project_files",
    "other_user_files",
    "read_toml",
]

#: The clients whose files discovery reads, in its order; ``--from`` and ``clients=`` take these names.
CLIENTS = ("mcpsync", "claude-code", "claude-desktop", "cursor", "vscode", "windsurf", "gemini", "codex")
#: What messages call each client.
CLIENT_NAMES = {
    "mcpsync": "mcpsync",
    "claude-code": "Claude Code",
    "claude-desktop": "Claude Desktop",
    "cursor": "Cursor",
    "vscode": "VS Code",
    "windsurf": "Windsurf",
    "gemini": "Gemini CLI",
    "codex": "Codex",
}
#: The other clients' project files, relative to the working directory, in discovery order.
OTHER_PROJECT_FILES = (
    (".cursor/mcp.json", "cursor"),
    (".vscode/mcp.json", "vscode"),
    (".gemini/settings.json", "gemini"),
)
#: Where Codex keeps its files, when not in ``~/.codex``.
CODEX_HOME_VAR = "CODEX_HOME"
#: Where Claude Code keeps ``.claude.json``, when not in the home directory.
CLAUDE_CONFIG_DIR_VAR = "CLAUDE_CONFIG_DIR"
#: The clients that expand no variables: what their files write is what their servers get.
LITERAL_CLIENTS = frozenset({"claude-desktop", "codex"})
#: VS Code's predefined variables that mean something outside the editor, which Cursor also expands.
EDITOR_VARIABLES = ("workspaceFolder", "workspaceFolderBasename", "userHome", "pathSeparator", "/")

_BRACED = re.compile(r"\$\{([^}]*)\}")
#: Gemini CLI's references: ``${NAME}`` and a bare ``$NAME``.
_DOLLAR = re.compile(r"\$(?:\{([^}]*)\}|([A-Za-z_][A-Za-z0-9_]*))")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: mcpsync's own references: ``NAME``, ``NAME:-default``, ``env:NAME`` (Claude Code's lack ``env:``).
_OWN = re.compile(r"(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-(.*))?", re.DOTALL)
_CLAUDE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(?::-(.*))?", re.DOTALL)
#: What each client's references look like, for the message about one it does not expand.
_SYNTAX = {
    "mcpsync": "${NAME} or ${NAME:-default}",
    "claude-code": "${NAME} or ${NAME:-default}",
    "cursor": "${env:NAME}, ${workspaceFolder}, ${workspaceFolderBasename}, ${userHome}, ${pathSeparator}, ${/}",
    "vscode": "${env:NAME}, ${workspaceFolder}, ${workspaceFolderBasename}, ${userHome}, ${pathSeparator}, ${/}",
    "windsurf": "${env:NAME}",
    "gemini": "$NAME or ${NAME}",
}


@dataclass(frozen=True)
class ClientFile:
    """A file discovery looks at (or one named), and whose it is.

    Attributes:
        client: the client whose file it is: its variables are read as that client reads them.
        path: where it is; it may not exist.
        scope: ``"named"`` (``$MCPSYNC_CONFIG``, a path given), ``"project"`` (found in the working
            directory: the command line asks before it starts its servers) or ``"user"``.
        workspace: what ``${workspaceFolder}`` is in it.
        project: in ``~/.claude.json``, the key of ``projects`` whose servers are read (the local
            scope); ``None`` for the file's top level.
        also: other clients that write the same file (``./.mcp.json`` is Claude Code's too).
    """

    client: str
    path: Path
    scope: str
    workspace: Path
    project: Optional[str] = None
    also: tuple[str, ...] = ()

    @property
    def clients(self) -> tuple[str, ...]:
        """Every client that writes this file, its own first."""
        return (self.client, *self.also)

    @property
    def part(self) -> str:
        """Which part of the file is read: ``""`` for all of it, else ``projects["<dir>"]``."""
        return f'projects["{self.project}"]' if self.project is not None else ""

    @property
    def servers_optional(self) -> bool:
        """Whether the file may lack ``mcpServers``: another client's file holds its other settings too."""
        return self.client != "mcpsync"


def check_clients(names: Union[str, Iterable[str]]) -> tuple[str, ...]:
    """The client names ``names`` gives (each may be a comma-separated list), checked, in order, once each.

    Raises:
        ConfigurationError: a name that is not one of ``CLIENTS`` (the closest is suggested).
    """
    chosen: list[str] = []
    for item in [names] if isinstance(names, str) else names:
        for name in (part.strip() for part in item.split(",")):
            if name and name not in CLIENTS:
                hint = did_you_mean(name, CLIENTS, n=1)
                raise ConfigurationError(f"unknown client {name!r}{hint} (known: {', '.join(CLIENTS)})")
            if name:
                chosen.append(name)
    return tuple(dict.fromkeys(chosen))


def other_project_files(base: Path) -> list[ClientFile]:
    """The other clients' project files in ``base`` (the working directory), in discovery order."""
    return [ClientFile(client, base / name, "project", base) for name, client in OTHER_PROJECT_FILES]


def other_user_files(environ: Mapping[str, str], cwd: Path, platform: Optional[str] = None) -> list[ClientFile]:
    """The other clients' user files, in discovery order; ``cwd`` is their ``${workspaceFolder}``.

    Args:
        environ: where the home directory and the clients' own directory variables are read.
        platform: a ``sys.platform`` value (default: this one).
    """
    home = user_home_dir(environ=environ)
    apps = _application_data(environ, home, sys.platform if platform is None else platform)
    claude = Path(environ[CLAUDE_CONFIG_DIR_VAR]) if environ.get(CLAUDE_CONFIG_DIR_VAR) else home
    codex = Path(environ[CODEX_HOME_VAR]) if environ.get(CODEX_HOME_VAR) else home / ".codex"
    return [
        *_claude_code_files(claude / ".claude.json", "user", cwd),
        ClientFile("claude-desktop", apps / "Claude" / "claude_desktop_config.json", "user", cwd),
        ClientFile("cursor", home / ".cursor" / "mcp.json", "user", cwd),
        ClientFile("vscode", apps / "Code" / "User" / "mcp.json", "user", cwd),
        ClientFile("windsurf", home / ".codeium" / "windsurf" / "mcp_config.json", "user", cwd),
        ClientFile("gemini", home / ".gemini" / "settings.json", "user", cwd),
        ClientFile("codex", codex / "config.toml", "user", cwd),
    ]


def files_named(path: Path, environ: Mapping[str, str], cwd: Path) -> list[ClientFile]:
    """A file given by name (``load_config(path)``, ``$MCPSYNC_CONFIG``), read as the client whose name
    and folder it has would read it; a name no other client uses is mcpsync's.

    ``*.toml`` is Codex's; ``.claude.json`` gives its local scope for ``cwd`` and its user scope; the
    ``${workspaceFolder}`` of ``<dir>/.vscode/mcp.json`` (``.cursor``, ``.gemini``) is ``<dir>``.
    """
    folder, name = path.parent.name, path.name
    if name == ".claude.json":
        return _claude_code_files(path, "named", cwd)
    client = "mcpsync"
    if path.suffix == ".toml":
        client = "codex"
    elif name == "claude_desktop_config.json":
        client = "claude-desktop"
    elif (folder, name) == ("windsurf", "mcp_config.json"):
        client = "windsurf"
    elif name == "mcp.json" and (folder == ".vscode" or (folder == "User" and path.parent.parent.name == "Code")):
        client = "vscode"
    elif name == "mcp.json" and folder == ".cursor":
        client = "cursor"
    elif (folder, name) == (".gemini", "settings.json"):
        client = "gemini"
    project = Path(os.path.abspath(path)).parent.parent
    in_project = folder in (".vscode", ".cursor", ".gemini") and project != user_home_dir(environ=environ)
    return [ClientFile(client, path, "named", project if in_project else cwd)]


def _claude_code_files(path: Path, scope: str, cwd: Path) -> list[ClientFile]:
    """``~/.claude.json`` as discovery reads it: the local scope of ``cwd`` first (Claude Code prefers it)."""
    return [ClientFile("claude-code", path, scope, cwd, project=str(cwd)), ClientFile("claude-code", path, scope, cwd)]


def _application_data(environ: Mapping[str, str], home: Path, platform: str) -> Path:
    """Where desktop applications (Electron's ``appData``: Claude Desktop, VS Code) keep their settings."""
    if platform == "darwin":
        return home / "Library" / "Application Support"
    if platform == "win32":
        return Path(environ["APPDATA"]) if environ.get("APPDATA") else home / "AppData" / "Roaming"
    value = environ.get("XDG_CONFIG_HOME")
    return Path(value) if value and os.path.isabs(value) else home / ".config"


@dataclass(frozen=True)
class Variables:
    """How one file's references are expanded: as its client documents them (see the module docstring).

    Attributes:
        client: the file's client (one of ``CLIENTS``).
        environ: the environment variables.
        workspace: what ``${workspaceFolder}`` is (VS Code, Cursor); ``None``: the current directory.
    """

    client: str
    environ: Mapping[str, str]
    workspace: Optional[Path]

    def expand(self, text: str, where: str) -> str:
        """``text`` with every reference replaced; ``where`` (file, server, field) starts the error messages.

        Raises:
            ConfigurationError: an unset variable, or a reference this client does not expand.
        """
        if self.client in LITERAL_CLIENTS:
            return text
        pattern = _DOLLAR if self.client == "gemini" else _BRACED
        return pattern.sub(lambda match: self._value(match, where), text)

    def _value(self, match: re.Match[str], where: str) -> str:
        reference = match.group(0)
        inside = match.group(1) if match.group(1) is not None else match.group(2)
        if inside.startswith("input:"):
            raise ConfigurationError(
                f"{where}: {reference} asks the user for a value (VS Code 'inputs'), which is not supported;"
                f" write the value, or {self._environment_reference()} to read an environment variable"
            )
        default: Optional[str] = None
        if self.client in ("vscode", "cursor", "windsurf"):
            if inside in EDITOR_VARIABLES and self.client != "windsurf":
                return self._editor_value(inside)
            name = inside[len("env:") :] if inside.startswith("env:") else ""
            if not _NAME.fullmatch(name):
                raise self._not_expanded(reference, where)
        elif self.client == "gemini":
            if not _NAME.fullmatch(inside):
                raise self._not_expanded(reference, where)
            name = inside
        else:
            variable = (_CLAUDE if self.client == "claude-code" else _OWN).fullmatch(inside)
            if variable is None:
                raise self._not_expanded(reference, where)
            name, default = variable.groups()
        value = self.environ.get(name)
        if default is not None and not value:
            return default
        if value is None:
            note = ""
            if name in EDITOR_VARIABLES:
                note = (
                    f" ({reference} is VS Code's and Cursor's variable, expanded in their files;"
                    f" in a file of {CLIENT_NAMES[self.client]}'s it names an environment variable)"
                )
            raise ConfigurationError(f"{where}: {reference} is not set{note}")
        return value

    def _editor_value(self, name: str) -> str:
        workspace = self.workspace or Path.cwd()
        if name == "workspaceFolder":
            return str(workspace)
        if name == "workspaceFolderBasename":
            return workspace.name
        if name == "userHome":
            return str(user_home_dir(environ=self.environ))
        return os.sep

    def _environment_reference(self) -> str:
        return _SYNTAX[self.client].split(", ")[0].split(" or ")[0]

    def _not_expanded(self, reference: str, where: str) -> ConfigurationError:
        if self.client == "mcpsync":
            return ConfigurationError(f"{where}: {reference} is not a variable; write ${{NAME}} or ${{NAME:-default}}")
        client = CLIENT_NAMES[self.client]
        return ConfigurationError(
            f"{where}: {reference} is not a variable {client} expands; it expands {_SYNTAX[self.client]}"
        )


# -- Codex's config.toml ---------------------------------------------------------------------------

#: The members of a Codex ``[mcp_servers.<name>]`` table that mcpsync reads.
CODEX_MEMBERS = (
    "command",
    "args",
    "env",
    "env_vars",
    "cwd",
    "url",
    "bearer_token_env_var",
    "http_headers",
    "env_http_headers",
    "enabled",
    "startup_timeout_sec",
    "startup_timeout_ms",
    "tool_timeout_sec",
    "enabled_tools",
    "disabled_tools",
    "scopes",
)
#: Members Codex writes that mcpsync has no use for (approvals, why a server is off, its OAuth table).
CODEX_IGNORED = frozenset(
    {
        "required",
        "disabled_reason",
        "default_tools_approval_mode",
        "tools",
        "oauth",
        "oauth_resource",
        "experimental_environment",
    }
)


def config_text(path: Path) -> str:
    """A configuration file's text (``utf-8-sig``: Windows editors may start it with a byte order mark).

    Raises:
        ConfigurationError: unreadable or not UTF-8; the message names the file.
    """
    try:
        return path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise ConfigurationError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise ConfigurationError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def read_toml(path: Path) -> Any:
    """A TOML file decoded: ``tomllib`` (Python 3.11 and up) or ``tomli``, imported on first use.

    Raises:
        ConfigurationError: unreadable, not UTF-8, or not TOML; the message names the file.
    """
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - the same module, released on its own for older Pythons
        import tomli as tomllib
    text = config_text(path)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigurationError(f"{path}: not valid TOML: {exc}") from None


def codex_entry(raw: Mapping[str, Any], environ: Mapping[str, str], where: str) -> dict[str, Any]:
    """A Codex server table as the server entry mcpsync reads (``mcpServers``' members).

    ``url`` is Streamable HTTP (Codex speaks no other HTTP transport); ``http_headers`` are sent as
    they are, ``env_http_headers`` and ``bearer_token_env_var`` name environment variables;
    ``env_vars`` passes those of the environment that are set; seconds become milliseconds.

    Raises:
        ConfigurationError: a member of the wrong type, or an unset variable that a header needs.
    """
    entry = {key: raw[key] for key in ("command", "args", "env", "cwd", "url") if key in raw}
    if "url" in raw:
        entry["type"] = "http"
    headers = dict(_table_of_strings(raw, "http_headers", where))
    for header, variable in _table_of_strings(raw, "env_http_headers", where).items():
        headers[header] = _set_variable(variable, environ, f"{where}: env_http_headers.{header}")
    if "bearer_token_env_var" in raw:
        variable = raw["bearer_token_env_var"]
        if not isinstance(variable, str) or not _NAME.fullmatch(variable):
            raise ConfigurationError(f"{where}: 'bearer_token_env_var' must be a variable's name, not {variable!r}")
        headers["Authorization"] = "Bearer " + _set_variable(variable, environ, f"{where}: bearer_token_env_var")
    if headers:
        entry["headers"] = headers
    passed = _passed_environment(raw, environ, where)
    if passed and isinstance(entry.get("env", {}), dict):  # what env writes wins over what is passed on
        entry["env"] = {**passed, **entry.get("env", {})}
    for key, factor, member in (
        ("startup_timeout_sec", 1000, "connectTimeout"),
        ("startup_timeout_ms", 1, "connectTimeout"),
        ("tool_timeout_sec", 1000, "timeout"),
    ):
        if key in raw:
            value = raw[key]
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
                raise ConfigurationError(f"{where}: {key!r} must be a positive number, not {value!r}")
            entry[member] = value * factor
    if "scopes" in raw:
        scopes = raw["scopes"]
        if not isinstance(scopes, list) or not all(isinstance(scope, str) for scope in scopes):
            raise ConfigurationError(f"{where}: 'scopes' must be a list of strings, not {scopes!r}")
        entry["oauth"] = {"scopes": scopes}
    return entry


def _table_of_strings(raw: Mapping[str, Any], key: str, where: str) -> dict[str, str]:
    value = raw.get(key, {})
    if not isinstance(value, dict) or not all(isinstance(item, str) for item in value.values()):
        raise ConfigurationError(f"{where}: {key!r} must be a table of strings, not {value!r}")
    return value


def _set_variable(name: str, environ: Mapping[str, str], where: str) -> str:
    value = environ.get(name)
    if not value:
        raise ConfigurationError(f"{where}: the environment variable {name} is not set")
    return value


def _passed_environment(raw: Mapping[str, Any], environ: Mapping[str, str], where: str) -> dict[str, str]:
    """The variables ``env_vars`` passes on: each name (or ``{name = ...}``) that is set here."""
    names = raw.get("env_vars", [])
    if not isinstance(names, list):
        raise ConfigurationError(f"{where}: 'env_vars' must be a list of variable names, not {names!r}")
    passed = {}
    for i, item in enumerate(names):
        name = item.get("name") if isinstance(item, dict) else item
        if not isinstance(name, str) or not _NAME.fullmatch(name):
            raise ConfigurationError(f"{where}: env_vars[{i}] must be a variable name, not {item!r}")
        if isinstance(item, dict) and item.get("source", "local") != "local":
            raise ConfigurationError(
                f"{where}: env_vars[{i}]: source {item['source']!r} (a remote executor's environment) is not supported"
            )
        if name in environ:
            passed[name] = environ[name]
    return passed
