"""Discovery reads the files of the MCP clients people use, each in its client's shape and with its
client's variables (``mcpsync._manager.client_files``), after mcpsync's own files.

Every file is written in a temporary home and project directory, in the shape its client documents
(named in each test), and read through ``load_config`` / ``discover_config_files`` as discovery
finds it; ``environ`` points every user directory into the temporary home.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import mcpsync
from mcpsync import ConfigurationError
from mcpsync._manager.client_files import CLIENTS, Variables
from mcpsync._manager.config_files import candidate_files, discover_config_files, load_config
from mcpsync._manager.discovery_report import places_looked_at, survey_config_files
from mcpsync._manager.tool_filter import rules_of_entry
from mcpsync._wire.config import HTTPServerConfig, StdioServerConfig


def write(path: Path, data) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) if not isinstance(data, str) else data, encoding="utf-8")
    return path


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.fixture
def project(home: Path) -> Path:
    """The working directory: a project inside the home directory."""
    path = home / "src" / "proj"
    path.mkdir(parents=True)
    return path


@pytest.fixture
def environ(home: Path) -> dict:
    """Linux directories inside the temporary home (XDG_CONFIG_HOME as the default would be)."""
    return {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}


def servers_of(environ, project, **kwargs) -> dict:
    return {name: entry.config for name, entry in load_config(environ=environ, cwd=project, **kwargs).servers.items()}


# -- each client's files -------------------------------------------------------------------------


def test_claude_desktop_file_is_found_and_its_values_are_taken_as_written(environ, home, project):
    """Claude Desktop's claude_desktop_config.json (~/.config/Claude on Linux): {"mcpServers": {...}}
    with command, args, env, beside its own settings; it expands no variables, so ${HOME} stays."""
    path = write(
        home / ".config" / "Claude" / "claude_desktop_config.json",
        {
            "globalShortcut": "Ctrl+Space",
            "mcpServers": {
                "fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "${HOME}/docs"]},
                "gh": {
                    "command": "docker",
                    "args": ["run", "-i", "ghcr.io/github/github-mcp-server"],
                    "env": {"T": "x"},
                },
            },
        },
    )
    config = load_config(environ=environ, cwd=project)
    assert config.sources == (str(path),)
    assert config.enabled() == {
        "fs": StdioServerConfig("npx", ("-y", "@modelcontextprotocol/server-filesystem", "${HOME}/docs"), name="fs"),
        "gh": StdioServerConfig("docker", ("run", "-i", "ghcr.io/github/github-mcp-server"), env={"T": "x"}, name="gh"),
    }
    assert config.servers["fs"].source == str(path)


@pytest.mark.parametrize(
    ("platform", "extra", "desktop", "vscode"),
    [
        ("linux", {}, ".config/Claude/claude_desktop_config.json", ".config/Code/User/mcp.json"),
        (
            "linux",
            {"XDG_CONFIG_HOME": "{tmp}/xdg"},
            "{tmp}/xdg/Claude/claude_desktop_config.json",
            "{tmp}/xdg/Code/User/mcp.json",
        ),
        (
            "darwin",
            {},
            "Library/Application Support/Claude/claude_desktop_config.json",
            "Library/Application Support/Code/User/mcp.json",
        ),
        (
            "win32",
            {"APPDATA": "{tmp}/Roaming"},
            "{tmp}/Roaming/Claude/claude_desktop_config.json",
            "{tmp}/Roaming/Code/User/mcp.json",
        ),
    ],
)
def test_where_the_desktop_applications_keep_their_files_on_each_platform(
    tmp_path, home, project, platform, extra, desktop, vscode
):
    """Claude Desktop and VS Code keep their user files in the platform's application-data directory."""
    environ = {"HOME": str(home), **{key: value.format(tmp=tmp_path) for key, value in extra.items()}}
    files = {file.client: file.path for file in candidate_files(environ=environ, cwd=project, platform=platform)}
    expected = {name: Path(path.format(tmp=tmp_path)) for name, path in (("desktop", desktop), ("vscode", vscode))}
    assert files["claude-desktop"] == home / expected["desktop"]  # an absolute path stays as it is
    vscode_user = [
        f.path for f in candidate_files(environ=environ, cwd=project, platform=platform) if f.client == "vscode"
    ]
    assert vscode_user == [project / ".vscode" / "mcp.json", home / expected["vscode"]]


def test_claude_code_reads_the_local_scope_of_this_directory_then_the_user_scope(environ, home, project):
    """~/.claude.json: top-level mcpServers (user scope) and projects[<absolute dir>].mcpServers (local
    scope, preferred, as Claude Code does); another project's servers are not read."""
    path = write(
        home / ".claude.json",
        {
            "numStartups": 12,
            "mcpServers": {
                "shared": {"type": "stdio", "command": "from-user", "args": [], "env": {}},
                "user-only": {"type": "http", "url": "https://u.example/mcp", "headers": {"A": "${TOKEN:-none}"}},
            },
            "projects": {
                str(project): {
                    "allowedTools": [],
                    "mcpServers": {"shared": {"type": "stdio", "command": "from-local"}},
                },
                str(home / "elsewhere"): {"mcpServers": {"other": {"type": "stdio", "command": "nope"}}},
            },
        },
    )
    config = load_config(environ=environ, cwd=project)
    assert list(config.servers) == ["shared", "user-only"]
    assert config.servers["shared"].config.command == "from-local"
    assert config.servers["user-only"].config == HTTPServerConfig(
        "https://u.example/mcp", headers={"A": "none"}, type="http", name="user-only"
    )
    assert config.sources == (str(path),)
    # $CLAUDE_CONFIG_DIR moves the file, as it moves Claude Code's.
    moved = write(home / "claude-dir" / ".claude.json", {"mcpServers": {"moved": {"command": "m"}}})
    assert list(servers_of({**environ, "CLAUDE_CONFIG_DIR": str(moved.parent)}, project)) == ["moved"]


def test_cursor_project_and_global_files_expand_cursors_variables(environ, home, project):
    """Cursor's .cursor/mcp.json and ~/.cursor/mcp.json ({"mcpServers": ...}): ${workspaceFolder} is the
    project of a project file and the working directory for the global one; the project's file wins."""
    write(
        project / ".cursor" / "mcp.json",
        {
            "mcpServers": {
                "tools": {
                    "command": "${userHome}${/}bin${pathSeparator}srv",
                    "args": ["--root", "${workspaceFolder}", "--name=${workspaceFolderBasename}"],
                    "env": {"TOKEN": "${env:TOKEN}"},
                },
                "shared": {"command": "from-project"},
            }
        },
    )
    write(
        home / ".cursor" / "mcp.json",
        {"mcpServers": {"shared": {"command": "from-global"}, "web": {"url": "https://w/mcp", "args": []}}},
    )
    servers = servers_of({**environ, "TOKEN": "t0k"}, project)
    assert servers["tools"] == StdioServerConfig(
        f"{home}{os.sep}bin{os.sep}srv", ("--root", str(project), "--name=proj"), env={"TOKEN": "t0k"}, name="tools"
    )
    assert servers["shared"].command == "from-project"
    assert servers["web"] == HTTPServerConfig("https://w/mcp", name="web")


def test_vscode_project_file_with_servers_inputs_and_the_workspace_folder(environ, home, project):
    """VS Code's .vscode/mcp.json: {"servers": ..., "inputs": [...]}; ${workspaceFolder} in args is the
    project directory (it was refused as an unset environment variable). The user mcp.json too."""
    write(
        project / ".vscode" / "mcp.json",
        {
            "inputs": [{"type": "promptString", "id": "key", "description": "API key", "password": True}],
            "servers": {
                "local": {"type": "stdio", "command": "python", "args": ["${workspaceFolder}/server.py"]},
                "api": {"type": "http", "url": "https://api.example/mcp", "headers": {"X": "${env:API_TOKEN}"}},
            },
        },
    )
    user = write(home / ".config" / "Code" / "User" / "mcp.json", {"servers": {"u": {"command": "uvx", "args": ["u"]}}})
    config = load_config(environ={**environ, "API_TOKEN": "abc"}, cwd=project)
    assert config.servers["local"].config.args == (f"{project}/server.py",)
    assert config.servers["api"].config.headers == {"X": "abc"}
    assert config.servers["u"].source == str(user)


def test_windsurf_server_url_is_a_url(environ, home, project):
    """Windsurf's ~/.codeium/windsurf/mcp_config.json: serverUrl is a remote server's URL (it was ignored,
    and the entry refused for lacking one); ${env:NAME} in headers."""
    write(
        home / ".codeium" / "windsurf" / "mcp_config.json",
        {
            "mcpServers": {
                "remote": {"serverUrl": "https://r.example/mcp", "headers": {"Authorization": "Bearer ${env:KEY}"}},
                "local": {"command": "npx", "args": ["-y", "x"], "disabled": False, "disabledTools": ["drop"]},
            }
        },
    )
    servers = servers_of({**environ, "KEY": "k"}, project)
    assert servers["remote"] == HTTPServerConfig(
        "https://r.example/mcp", headers={"Authorization": "Bearer k"}, name="remote"
    )
    assert not servers["remote"].type_given, "a bare URL: Streamable HTTP, then HTTP+SSE"
    assert servers["local"].command == "npx"


def test_gemini_settings_of_the_project_and_the_user(environ, home, project):
    """Gemini CLI's .gemini/settings.json and ~/.gemini/settings.json (mcpServers, httpUrl; $VAR and
    ${VAR}); a settings.json without mcpServers (only a theme) defines no server."""
    write(
        project / ".gemini" / "settings.json",
        {
            "mcpServers": {
                "py": {"command": "python", "args": ["$TOOLS_DIR/s.py", "--key=${KEY}"], "timeout": 30000},
                "remote": {"httpUrl": "https://g.example/mcp", "trust": True},
            }
        },
    )
    user = write(home / ".gemini" / "settings.json", {"theme": "GitHub", "ui": {"hideBanner": True}})
    config = load_config(environ={**environ, "TOOLS_DIR": "/opt/t", "KEY": "k"}, cwd=project)
    assert config.servers["py"].config.args == ("/opt/t/s.py", "--key=k")
    assert config.servers["remote"].config == HTTPServerConfig("https://g.example/mcp", type="http", name="remote")
    assert str(user) in config.sources and len(config.servers) == 2


CODEX_TOML = """\
model = "o3"

[mcp_servers.docs]
command = "npx"
args = ["-y", "@upstash/context7-mcp"]
env = { "MODE" = "fast" }
env_vars = ["PASSED", "UNSET_HERE", { name = "ALSO", source = "local" }]
startup_timeout_sec = 20
tool_timeout_sec = 90
enabled_tools = ["resolve-library-id", "get-*"]

[mcp_servers.figma]
url = "https://mcp.figma.com/mcp"
bearer_token_env_var = "FIGMA_TOKEN"
http_headers = { "X-Team" = "design" }
env_http_headers = { "X-Key" = "FIGMA_KEY" }
disabled_tools = ["delete_file"]
scopes = ["files:read"]

[mcp_servers.off]
command = "never"
enabled = false
"""


def test_codex_config_toml(environ, home, project):
    """Codex's ~/.codex/config.toml: [mcp_servers.<name>] tables, read with tomllib (tomli before 3.11);
    the environment comes in through env_vars, bearer_token_env_var and env_http_headers."""
    path = write(home / ".codex" / "config.toml", CODEX_TOML)
    environ = {**environ, "PASSED": "p", "ALSO": "a", "FIGMA_TOKEN": "secret", "FIGMA_KEY": "key"}
    config = load_config(environ=environ, cwd=project)
    assert config.sources == (str(path),)
    assert list(config.servers) == ["docs", "figma", "off"]
    docs = config.servers["docs"].config
    assert docs == StdioServerConfig(
        "npx",
        ("-y", "@upstash/context7-mcp"),
        env={"PASSED": "p", "ALSO": "a", "MODE": "fast"},
        timeout=90.0,
        connect_timeout=20.0,
        name="docs",
    )
    figma = config.servers["figma"].config
    assert figma == HTTPServerConfig(
        "https://mcp.figma.com/mcp",
        headers={"X-Team": "design", "X-Key": "key", "Authorization": "Bearer secret"},
        type="http",
        oauth={"scopes": ["files:read"]},
        name="figma",
    )
    assert (config.servers["off"].enabled, config.servers["off"].config) == (False, None)
    # The tool filters are Codex's own members, named as written in messages.
    includes, _ = rules_of_entry(config.servers["docs"].raw, str(path))
    _, excludes = rules_of_entry(config.servers["figma"].raw, str(path))
    assert [(r.member, r.patterns) for r in includes] == [("enabled_tools", ("resolve-library-id", "get-*"))]
    assert [(r.member, r.patterns) for r in excludes] == [("disabled_tools", ("delete_file",))]
    # $CODEX_HOME moves it, and a path given by name ending in .toml is read as Codex's.
    moved = write(home / "codex-home" / "config.toml", '[mcp_servers.m]\ncommand = "m"\n')
    assert list(servers_of({**environ, "CODEX_HOME": str(moved.parent)}, project)) == ["m"]
    assert list(load_config(path, environ=environ).servers) == ["docs", "figma", "off"]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (
            '[mcp_servers.f]\nurl = "https://h/mcp"\nbearer_token_env_var = "NOPE"\n',
            "server 'f': bearer_token_env_var: the environment variable NOPE is not set",
        ),
        (
            '[mcp_servers.f]\nurl = "https://h/mcp"\nenv_http_headers = { "X" = "NOPE" }\n',
            "server 'f': env_http_headers.X: the environment variable NOPE is not set",
        ),
        ('[mcp_servers.f]\ncomand = "x"\n', "server 'f': unknown member 'comand'; did you mean 'command'?"),
        (
            '[mcp_servers.f]\ncommand = "x"\nstartup_timeout_sec = "10"\n',
            "server 'f': 'startup_timeout_sec' must be a positive number, not '10'",
        ),
        (
            '[mcp_servers.f]\ncommand = "x"\nenv_vars = "PATH"\n',
            "server 'f': 'env_vars' must be a list of variable names, not 'PATH'",
        ),
        (
            '[mcp_servers.f]\ncommand = "x"\nenabled_tools = "all"\n',
            "server 'f': 'enabled_tools' must be a list of tool names or glob patterns, not 'all'",
        ),
        ('[mcp_servers.f]\nargs = ["x"]\n', "server 'f': needs 'command' (a stdio server) or 'url' (an http server)"),
        ("mcp_servers = 3\n", "'mcp_servers' must be a table of servers, not 3"),
        ('[mcp_servers.f]\ncommand = "x\n', "not valid TOML: "),
    ],
)
def test_codex_errors_name_the_file_the_server_and_codexs_field(environ, home, project, text, problem):
    """Asked for (``clients="codex"``), a broken Codex file is the error, naming file, server and field;
    found by discovery alone, it is left out with that error as a ``ConfigurationWarning``."""
    path = write(home / ".codex" / "config.toml", text)
    with pytest.raises(ConfigurationError) as info:
        load_config(environ=environ, cwd=project, clients="codex")
    assert str(info.value).startswith(f"{path}: {problem}")
    with pytest.warns(mcpsync.ConfigurationWarning, match="this codex file is left out") as caught:
        assert load_config(environ=environ, cwd=project).servers == {}
    assert str(caught[0].message).startswith(f"{path}: {problem}") and caught[0].filename == __file__


def test_the_toml_parser_is_imported_only_to_read_a_toml_file(environ, home, project):
    """``import mcpsync`` (and the configuration module) import neither tomllib nor tomli; reading Codex's
    file does."""
    write(home / ".codex" / "config.toml", '[mcp_servers.m]\ncommand = "m"\n')
    code = (
        "import sys, mcpsync\n"
        "from mcpsync._manager import config_files\n"
        "print(sorted(m for m in ('tomllib', 'tomli') if m in sys.modules))\n"
        f"print(list(mcpsync.load_config(environ={environ!r}, cwd={str(project)!r}).servers))\n"
        "print('tomllib' in sys.modules or 'tomli' in sys.modules)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["[]", "['m']", "True"]


# -- variables ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("file", "shape", "reference", "problem"),
    [
        (".cursor/mcp.json", "mcpServers", "${env:NOT_SET}", "${env:NOT_SET} is not set"),
        (".vscode/mcp.json", "servers", "${env:NOT_SET}", "${env:NOT_SET} is not set"),
        (
            ".vscode/mcp.json",
            "servers",
            "${input:api-key}",
            "${input:api-key} asks the user for a value (VS Code 'inputs')",
        ),
        (
            ".vscode/mcp.json",
            "servers",
            "${config:python.path}",
            "${config:python.path} is not a variable VS Code expands",
        ),
        (
            ".vscode/mcp.json",
            "servers",
            "${TOKEN}",
            "${TOKEN} is not a variable VS Code expands; it expands ${env:NAME}",
        ),
        (
            ".cursor/mcp.json",
            "mcpServers",
            "${TOKEN}",
            "${TOKEN} is not a variable Cursor expands; it expands ${env:NAME}",
        ),
        (
            ".gemini/settings.json",
            "mcpServers",
            "${TOKEN:-x}",
            "${TOKEN:-x} is not a variable Gemini CLI expands; it expands $NAME or ${NAME}",
        ),
        (".gemini/settings.json", "mcpServers", "$NOT_SET", "$NOT_SET is not set"),
        (
            "~/.codeium/windsurf/mcp_config.json",
            "mcpServers",
            "${workspaceFolder}",
            "${workspaceFolder} is not a variable Windsurf expands; it expands ${env:NAME}",
        ),
        (
            "~/.claude.json",
            "mcpServers",
            "${env:TOKEN}",
            "${env:TOKEN} is not a variable Claude Code expands; it expands ${NAME} or ${NAME:-default}",
        ),
        (
            ".mcp.json",
            "mcpServers",
            "${workspaceFolder}",
            "${workspaceFolder} is not set (${workspaceFolder} is VS Code's and Cursor's variable, expanded in their"
            " files; in a file of mcpsync's it names an environment variable)",
        ),
    ],
)
def test_a_reference_a_client_does_not_expand_or_that_is_unset_names_the_file_server_and_field(
    environ, home, project, file, shape, reference, problem
):
    path = home / file[2:] if file.startswith("~/") else project / file
    write(path, {shape: {"srv": {"command": "x", "args": ["--a", f"--b={reference}"]}}})
    client = next(name for part, name in OWNERS.items() if part in file)
    with pytest.raises(ConfigurationError) as info:
        load_config(environ={**environ, "TOKEN": "t"}, cwd=project, clients=client)
    assert str(info.value).startswith(f"{path}: server 'srv': args[1]: {problem}")


#: Which client a file of the test above is, by a part of its path.
OWNERS = {
    ".cursor": "cursor",
    ".vscode": "vscode",
    ".gemini": "gemini",
    "windsurf": "windsurf",
    ".claude.json": "claude-code",
    ".mcp.json": "mcpsync",
}


def test_another_clients_broken_file_never_stops_mcpsync_in_every_project(environ, home, project):
    """A ``~/.cursor/mcp.json`` with an unset ``${env:X}``, read by every command now: discovery leaves it
    out with a warning naming file, server and field, and the project's own ``.mcp.json`` still works;
    mcpsync's own file broken is the error, as before."""
    broken = write(home / ".cursor" / "mcp.json", {"mcpServers": {"c": {"command": "x", "args": ["${env:NOT_SET}"]}}})
    write(project / ".mcp.json", {"mcpServers": {"ok": {"command": "ok"}}})
    with pytest.warns(mcpsync.ConfigurationWarning, match="this cursor file is left out") as caught:
        loaded = load_config(environ=environ, cwd=project)
    assert list(loaded.servers) == ["ok"] and str(broken) not in loaded.sources
    assert str(caught[0].message).startswith(f"{broken}: server 'c': args[0]: ${{env:NOT_SET}} is not set")
    write(project / ".mcp.json", {"mcpServers": {"ok": {"command": ""}}})
    with pytest.raises(ConfigurationError, match="'command' must be a non-empty string"):
        load_config(environ=environ, cwd=project)


def test_variables_of_each_client_in_one_string():
    """The same text, read as each client reads it (a unit view of the table in docs/manager.md)."""
    environ = {"A": "1", "HOME": "/h"}
    text = "$A ${A} ${env:A}"
    assert Variables("gemini", environ, None).expand("$A ${A}", "w") == "1 1"
    assert Variables("mcpsync", environ, None).expand("${A} ${env:A} ${B:-d}", "w") == "1 1 d"
    assert Variables("claude-code", environ, None).expand("${A} ${B:-d}", "w") == "1 d"
    assert (
        Variables("vscode", environ, Path("/p/ws")).expand("${env:A} ${workspaceFolderBasename} ${userHome}", "w")
        == "1 ws /h"
    )
    for literal in ("claude-desktop", "codex"):
        assert Variables(literal, environ, None).expand(text, "w") == text


# -- discovery -------------------------------------------------------------------------------------


def test_discovery_order_mcpsyncs_own_then_project_files_then_user_files(environ, home, project):
    """mcpsync's files first, then the other clients' project files, then their user files; the first
    file that names a server wins, and its entry says which file."""
    own = write(project / ".mcp.json", {"mcpServers": {"a": {"command": "own"}}})
    cursor = write(
        project / ".cursor" / "mcp.json", {"mcpServers": {"a": {"command": "c"}, "b": {"command": "cursor"}}}
    )
    vscode = write(project / ".vscode" / "mcp.json", {"servers": {"b": {"command": "v"}, "c": {"command": "vscode"}}})
    gemini = write(
        project / ".gemini" / "settings.json", {"mcpServers": {"c": {"command": "g"}, "d": {"command": "gp"}}}
    )
    claude = write(home / ".claude.json", {"mcpServers": {"d": {"command": "cc"}, "e": {"command": "claude"}}})
    desktop = write(home / ".config" / "Claude" / "claude_desktop_config.json", {"mcpServers": {"e": {"command": "x"}}})
    global_cursor = write(home / ".cursor" / "mcp.json", {"mcpServers": {"f": {"command": "gc"}}})
    codex = write(
        home / ".codex" / "config.toml", '[mcp_servers.f]\ncommand = "x"\n[mcp_servers.g]\ncommand = "codex"\n'
    )
    order = [own, cursor, vscode, gemini, claude, desktop, global_cursor, codex]
    assert discover_config_files(environ=environ, cwd=project) == order
    config = load_config(environ=environ, cwd=project)
    assert config.sources == tuple(map(str, order))
    winners = {name: (entry.config.command, entry.source) for name, entry in config.servers.items()}
    assert winners == {
        "a": ("own", str(own)),
        "b": ("cursor", str(cursor)),
        "c": ("vscode", str(vscode)),
        "d": ("gp", str(gemini)),
        "e": ("claude", str(claude)),
        "f": ("gc", str(global_cursor)),
        "g": ("codex", str(codex)),
    }


def test_clients_keeps_the_files_of_those_clients(environ, home, project):
    write(project / ".mcp.json", {"mcpServers": {"own": {"command": "o"}}})
    write(project / ".vscode" / "mcp.json", {"servers": {"vs": {"command": "v"}}})
    write(home / ".cursor" / "mcp.json", {"mcpServers": {"cur": {"command": "c"}}})
    write(home / ".codex" / "config.toml", '[mcp_servers.cx]\ncommand = "x"\n')
    assert list(servers_of(environ, project, clients=["cursor"])) == ["cur"]
    assert list(servers_of(environ, project, clients="vscode,codex")) == ["vs", "cx"]
    assert list(servers_of(environ, project, clients=["claude-code"])) == ["own"], ".mcp.json is Claude Code's too"
    assert list(servers_of(environ, project, clients=["mcpsync"])) == ["own"]
    # $MCPSYNC_CONFIG is mcpsync's: not even looked at for the other clients.
    missing = {**environ, "MCPSYNC_CONFIG": str(home / "gone.json")}
    assert list(servers_of(missing, project, clients=["cursor"])) == ["cur"]
    assert discover_config_files(environ=environ, cwd=project, clients=("codex",)) == [home / ".codex" / "config.toml"]
    with pytest.raises(ConfigurationError, match=r"unknown client 'cursr'; did you mean 'cursor'\? \(known: mcpsync, "):
        load_config(environ=environ, cwd=project, clients=["vscode", "cursr"])
    with pytest.raises(ConfigurationError, match="give it or a path, not both"):
        load_config(project / ".mcp.json", environ=environ, clients=["cursor"])
    assert set(CLIENTS) == {
        "mcpsync",
        "claude-code",
        "claude-desktop",
        "cursor",
        "vscode",
        "windsurf",
        "gemini",
        "codex",
    }


def test_in_the_home_directory_a_cursor_file_is_the_users_own(environ, home):
    """Working in the home directory, ./.cursor/mcp.json is ~/.cursor/mcp.json: read once, as a user file."""
    path = write(home / ".cursor" / "mcp.json", {"mcpServers": {"c": {"command": "c"}}})
    files = [file for file in candidate_files(environ=environ, cwd=home) if file.path == path]
    assert [(file.client, file.scope) for file in files] == [("cursor", "user")]
    assert discover_config_files(environ=environ, cwd=home) == [path]


def test_a_file_given_by_path_is_read_as_the_client_whose_file_it_is(environ, home, project, tmp_path):
    """load_config(path) and $MCPSYNC_CONFIG: <dir>/.vscode/mcp.json is VS Code's, ${workspaceFolder}
    being <dir>, wherever the command runs."""
    path = write(project / ".vscode" / "mcp.json", {"servers": {"s": {"command": "x", "args": ["${workspaceFolder}"]}}})
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert load_config(path, environ=environ, cwd=elsewhere).servers["s"].config.args == (str(project),)
    named = {**environ, "MCPSYNC_CONFIG": str(path)}
    assert load_config(environ=named, cwd=elsewhere).servers["s"].config.args == (str(project),)


# -- what discovery looked at ---------------------------------------------------------------------


def test_the_survey_reports_each_place_what_it_defines_and_what_was_skipped(environ, home, project):
    dot = write(project / ".mcp.json", {"mcpServers": {"a": {"command": "x"}}})
    write(home / ".cursor" / "mcp.json", {"mcpServers": {"a": {"command": "y"}, "b": {"command": "z"}}})
    write(home / ".gemini" / "settings.json", {"mcpServers": {"bad": {"command": "x", "env": {"K": "${NOPE}"}}}})
    survey = survey_config_files(environ=environ, cwd=project)
    assert [r.file for r in survey] == candidate_files(environ=environ, cwd=project)
    reports = {(str(r.file.path), r.file.part): r for r in survey}
    assert reports[(str(dot), "")].servers == ("a",)
    cursor = reports[(f"{home}/.cursor/mcp.json", "")]
    assert (cursor.exists, cursor.servers, cursor.skipped) == (True, ("b",), (("a", str(dot)),))
    gemini = reports[(f"{home}/.gemini/settings.json", "")]
    assert gemini.error == f"{home}/.gemini/settings.json: server 'bad': env.K: ${{NOPE}} is not set"
    assert not reports[(f"{project}/.vscode/mcp.json", "")].exists
    assert reports[(f"{home}/.claude.json", f'projects["{project}"]')].exists is False


def test_the_places_looked_at_by_client(environ, home, project):
    places = places_looked_at(environ=environ, cwd=project)
    assert list(places) == [
        "mcpsync",
        "claude-code",
        "claude-desktop",
        "cursor",
        "vscode",
        "windsurf",
        "gemini",
        "codex",
    ]
    assert places["mcpsync"] == ["$MCPSYNC_CONFIG", "./.mcp.json", "./mcp.json", "~/.config/mcpsync/mcp.json"]
    assert places["claude-code"] == ["~/.claude.json"]
    assert places["cursor"] == ["./.cursor/mcp.json", "~/.cursor/mcp.json"]
    assert places["codex"] == ["~/.codex/config.toml"]
    assert places_looked_at(environ=environ, cwd=project, clients="gemini") == {
        "gemini": ["./.gemini/settings.json", "~/.gemini/settings.json"]
    }
