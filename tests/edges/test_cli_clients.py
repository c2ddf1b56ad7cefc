"""The ``mcpsync`` command reads the files of the other MCP clients: ``mcpsync config``, ``--from``,
the trust prompt for their project files, and the message when nothing is found.

Each test runs ``python -m mcpsync`` as a subprocess in a project directory inside a temporary
home (HOME and the XDG directories point there; no ``$MCPSYNC_CONFIG``), with this checkout's
mcpsync on PYTHONPATH; the servers configured are the bundled test server.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import mcpsync
from mcpsync.testing.catalogue import TOOLS
from tests.edges.test_cli import COMMAND_TIMEOUT, RUNS_THE_CLI, SERVER_ENV, assert_usage_error, lines

#: The test server, as a stdio entry of any client's file.
SERVER = {"command": sys.executable, "args": ["-m", "mcpsync.testing"], "env": SERVER_ENV}
#: A value that must never be printed: it stands for a token in an env or a header.
SECRET = "s3cret-value-never-shown"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path


@pytest.fixture
def project(home: Path) -> Path:
    """The working directory: a project in the home directory."""
    path = home / "src" / "proj"
    path.mkdir(parents=True)
    return path


def run(home: Path, cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess:  # type: ignore[type-arg]
    """``python -m mcpsync ARGS`` in ``cwd``, isolated from the user's files; ``env`` adds variables."""
    environ = {k: v for k, v in os.environ.items() if k not in ("MCPSYNC_CONFIG", "CODEX_HOME", "CLAUDE_CONFIG_DIR")}
    environ.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_CACHE_HOME=str(home / ".cache"),
        XDG_DATA_HOME=str(home / ".local" / "share"),
        PYTHONPATH=str(Path(mcpsync.__file__).resolve().parents[1]),
        **env,
    )
    return subprocess.run(
        [sys.executable, "-m", "mcpsync", *args],
        stdin=subprocess.DEVNULL,
        cwd=cwd,
        env=environ,
        capture_output=True,
        text=True,
        timeout=COMMAND_TIMEOUT,
    )


def write(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data, indent=2), encoding="utf-8")
    return path


def write_the_clients_files(home: Path, project: Path) -> dict[str, Path]:
    """A home and a project as a user of several clients has them, each file in its client's shape."""
    secret_entry = {**SERVER, "env": {**SERVER_ENV, "API_TOKEN": SECRET}}
    return {
        "desktop": write(
            home / ".config" / "Claude" / "claude_desktop_config.json",
            {"globalShortcut": "", "mcpServers": {"desktop": secret_entry}},
        ),
        "claude": write(
            home / ".claude.json",
            {
                "numStartups": 4,
                "mcpServers": {"cc-user": {"type": "stdio", **SERVER}},
                "projects": {str(project): {"mcpServers": {"cc-local": {"type": "stdio", **SERVER}}}},
            },
        ),
        "cursor": write(
            home / ".cursor" / "mcp.json",
            {"mcpServers": {"ws": SERVER, "web": {"url": "https://w.example/mcp", "headers": {"Key": SECRET}}}},
        ),
        "vscode": write(
            project / ".vscode" / "mcp.json",
            {
                "inputs": [],
                "servers": {"ws": {"type": "stdio", **SERVER, "env": {**SERVER_ENV, "WS": "${workspaceFolder}"}}},
            },
        ),
        "codex": write(
            home / ".codex" / "config.toml",
            f'[mcp_servers.codex-docs]\ncommand = {json.dumps(sys.executable)}\nargs = ["-m", "mcpsync.testing"]\n'
            'env_vars = ["PYTHONPATH"]\n'
            f'[mcp_servers.codex-docs.env]\nTOKEN = "{SECRET}"\n',
        ),
    }


@pytest.mark.slow(RUNS_THE_CLI)
def test_config_lists_each_place_its_client_and_servers_and_never_a_value(home: Path, project: Path) -> None:
    """``mcpsync config``: a row a place discovery looks, in its order; the name the VS Code project file
    defines first is skipped in Cursor's; ``--json`` says the same; no env or header value is printed."""
    files = write_the_clients_files(home, project)
    done = run(home, project, "config")
    assert done.returncode == 0, done.stderr
    rows = {tuple(row[:3]): row[3:] for row in lines(done.stdout)[2:] if len(row) >= 4 and row[0] != "skipped:"}
    assert rows[("mcpsync/claude-code", "project", "./.mcp.json")] == ["no"]
    assert rows[("vscode", "project", "./.vscode/mcp.json")] == ["yes", "1:", "ws", "no"]  # not trusted yet
    assert rows[("claude-desktop", "user", "~/.config/Claude/claude_desktop_config.json")] == ["yes", "1:", "desktop"]
    assert rows[("cursor", "user", "~/.cursor/mcp.json")] == ["yes", "2:", "web", "ws"]
    assert rows[("codex", "user", "~/.codex/config.toml")] == ["yes", "1:", "codex-docs"]
    assert rows[("windsurf", "user", "~/.codeium/windsurf/mcp_config.json")] == ["no"]
    assert f"skipped: 'ws' of {files['cursor']}: {files['vscode']} defines it first" in done.stdout
    assert "6 servers from 5 files" in done.stdout
    order = [row[0] for row in lines(done.stdout)[2:] if row and row[0] not in ("skipped:", "6")]
    assert order[:3] == ["mcpsync/claude-code", "mcpsync", "mcpsync"], "mcpsync's own first"
    assert order.index("vscode") < order.index("claude-code") < order.index("claude-desktop") < order.index("codex")
    assert SECRET not in done.stdout + done.stderr

    as_json = run(home, project, "config", "--json")
    assert as_json.returncode == 0, as_json.stderr
    listed = json.loads(as_json.stdout)
    by_path = {(item["path"], item["part"]): item for item in listed}
    cursor = by_path[(str(files["cursor"]), None)]
    assert (cursor["client"], cursor["scope"], cursor["exists"]) == ("cursor", "user", True)
    assert cursor["servers"] == ["web"] and cursor["skipped"] == [{"name": "ws", "source": str(files["vscode"])}]
    local = by_path[(str(files["claude"]), f'projects["{project}"]')]
    assert local["servers"] == ["cc-local"] and local["trusted"] is None
    assert by_path[(str(files["vscode"]), None)]["trusted"] is False
    assert SECRET not in as_json.stdout


@pytest.mark.slow(RUNS_THE_CLI)
def test_servers_from_claude_desktop_and_codex_only(home: Path, project: Path) -> None:
    """``mcpsync servers --from claude-desktop`` starts and lists only Claude Desktop's servers, each
    with its source; ``--from claude-desktop,codex`` adds Codex's (its env_vars pass PYTHONPATH on)."""
    files = write_the_clients_files(home, project)
    done = run(home, project, "servers", "--json", "--from", "claude-desktop")
    assert done.returncode == 0, done.stderr
    statuses = json.loads(done.stdout)
    assert [(s["name"], s["state"], s["source"]) for s in statuses] == [("desktop", "connected", str(files["desktop"]))]
    done = run(home, project, "--from", "claude-desktop,codex", "servers", "--json")
    assert done.returncode == 0, done.stderr
    statuses = json.loads(done.stdout)
    assert [(s["name"], s["state"], s["source"]) for s in statuses] == [
        ("desktop", "connected", str(files["desktop"])),
        ("codex-docs", "connected", str(files["codex"])),
    ]


@pytest.mark.slow(RUNS_THE_CLI)
def test_a_vscode_project_file_needs_trust_and_its_workspace_folder_is_the_project(home: Path, project: Path) -> None:
    """A new .vscode/mcp.json in the working directory is a project file: without a terminal and
    without --trust nothing starts; trusted, its server starts with ${workspaceFolder} as the project."""
    marker = home / "it-ran"
    code = f"import pathlib, runpy, sys; pathlib.Path({str(marker)!r}).touch(); sys.argv = ['x']; runpy.run_module('mcpsync.testing', run_name='__main__')"
    entry = {
        "type": "stdio",
        "command": sys.executable,
        "args": ["-c", code],
        "env": {**SERVER_ENV, "WS": "${workspaceFolder}"},
    }
    path = write(project / ".vscode" / "mcp.json", {"servers": {"ws": entry}})
    done = run(home, project, "--from", "vscode", "tools")
    assert done.returncode == 2, done.stderr
    assert (
        f"{path} is a project configuration (found in the working directory) that you have not trusted" in done.stderr
    )
    assert f"ws: {sys.executable} -c" in done.stderr and "--trust" in done.stderr
    assert not marker.exists(), "the project's command ran"
    done = run(home, project, "--from", "vscode", "--trust", "tools")
    assert done.returncode == 0, done.stderr
    assert len(lines(done.stdout)[2:]) == len(TOOLS) and marker.exists()
    done = run(home, project, "--from", "vscode", "--json", "call", "environment", 'names=["WS"]')
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["structuredContent"]["env"] == {"WS": str(project)}


@pytest.mark.slow(RUNS_THE_CLI)
def test_tools_of_a_cursor_project_file_once_trusted(home: Path, project: Path) -> None:
    """A project's .cursor/mcp.json is asked about too; a user file (Claude Code's local scope among
    them) is not: `tools` lists the servers of both once the project file is trusted."""
    write(project / ".cursor" / "mcp.json", {"mcpServers": {"cur": SERVER}})
    write(home / ".claude.json", {"projects": {str(project): {"mcpServers": {"local": {"type": "stdio", **SERVER}}}}})
    refused = run(home, project, "tools")
    assert refused.returncode == 2 and ".cursor/mcp.json is a project configuration" in refused.stderr
    assert ".claude.json" not in refused.stderr
    done = run(home, project, "--trust", "tools")
    assert done.returncode == 0, done.stderr
    names = [row[0] for row in lines(done.stdout)[2:]]
    assert "cur__echo" in names and "local__echo" in names and len(names) == 2 * len(TOOLS)


def test_nothing_found_says_where_it_looked_by_client(home: Path, project: Path) -> None:
    """No file anywhere: exit 2, a line per client naming its files (``--from`` names only its own)."""
    done = run(home, project, "servers")
    assert done.returncode == 2
    assert done.stderr.startswith("mcpsync: error: no configuration file found; looked for:\n")
    assert "\n  mcpsync: $MCPSYNC_CONFIG, ./.mcp.json, ./mcp.json, ~/.config/mcpsync/mcp.json\n" in done.stderr
    for line in (
        "  claude-code: ~/.claude.json",
        "  claude-desktop: ~/.config/Claude/claude_desktop_config.json",
        "  cursor: ./.cursor/mcp.json, ~/.cursor/mcp.json",
        "  vscode: ./.vscode/mcp.json, ~/.config/Code/User/mcp.json",
        "  windsurf: ~/.codeium/windsurf/mcp_config.json",
        "  gemini: ./.gemini/settings.json, ~/.gemini/settings.json",
        "  codex: ~/.codex/config.toml",
    ):
        assert f"\n{line}\n" in done.stderr
    write(home / ".gemini" / "settings.json", {"theme": "GitHub"})
    done = run(home, project, "--from", "gemini,codex", "tools")
    assert done.returncode == 2
    assert done.stderr.startswith(
        f"mcpsync: error: no server configured in {home}/.gemini/settings.json; looked for:\n"
    )
    assert "  gemini: ./.gemini/settings.json, ~/.gemini/settings.json\n  codex: ~/.codex/config.toml\n" in done.stderr
    assert "claude" not in done.stderr


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["--from", "cursr", "servers"],
            "argument --from: unknown client 'cursr'; did you mean 'cursor'? (known: mcpsync, claude-code, claude-desktop, cursor, vscode, windsurf, gemini, codex)",
        ),
        (["--from", "vscode,claude", "servers"], "unknown client 'claude'; did you mean 'claude-code'?"),
        (["--from", ",", "servers"], "argument --from: expected a client's name"),
        (["--from", "cursor", "--config", "x.json", "servers"], "--from chooses among the files discovery finds"),
        (["--from", "cursor", "--stdio", "x", "tools"], "--from chooses among the files discovery finds"),
        (["config", "--stdio", "x"], "config lists configuration files; an inline server (--stdio, --url) has none"),
    ],
)
def test_from_usage_errors_exit_2(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert_usage_error(argv, message, capsys)


@pytest.mark.slow(RUNS_THE_CLI)
def test_another_clients_broken_file_is_a_warning_line_and_the_command_runs(home: Path, project: Path) -> None:
    """A ``~/.cursor/mcp.json`` that does not read (an unset ``${env:...}``) must not stop every command
    in every project: ``mcpsync servers`` runs the project's servers and says on stderr, as the command's
    own line (no Python file and line), which file it left out and why; ``--from cursor`` is its error."""
    write(home / ".cursor" / "mcp.json", {"mcpServers": {"c": {"command": "x", "args": ["${env:NOT_SET}"]}}})
    write(project / ".mcp.json", {"mcpServers": {"t": SERVER}})
    done = run(home, project, "--trust", "servers")
    assert done.returncode == 0, done.stderr
    assert lines(done.stdout)[2][:2] == ["t", "connected"]
    warning = f"mcpsync: warning: {home}/.cursor/mcp.json: server 'c': args[0]: ${{env:NOT_SET}} is not set"
    assert done.stderr.startswith(warning) and "this cursor file is left out" in done.stderr
    assert ".py:" not in done.stderr
    asked = run(home, project, "--from", "cursor", "servers")
    assert asked.returncode != 0 and "${env:NOT_SET} is not set" in asked.stderr
