"""The command line's duty before it starts a project's servers: has the user trusted that file?

``mcpsync tools`` in a cloned repository whose ``.mcp.json`` names
``sh -c '...'`` used to run that command without asking. Now a project
configuration found by discovery (``./.mcp.json``, ``./mcp.json``, and the other
clients' ``./.cursor/mcp.json``, ``./.vscode/mcp.json``, ``./.gemini/settings.json``;
not a file named with ``--config`` or ``$MCPSYNC_CONFIG``, nor a user file, Claude
Code's ``~/.claude.json`` with its local scope included) must be trusted first, as
coding agents do: on a terminal the user is asked once (shown what would start); the
answer is remembered for the file's path and content (``mcpsync._manager.trust``); with nobody to ask, the command stops
with the flag to use, ``--trust``. A project file is known by the name it was
found under, however it is reached: a symbolic link (into a subfolder, the
parent folder, anywhere: git stores them) needs consent as a file does; the
question names the link and its target, and trust is kept for the target's
real path and content. The ``Manager`` itself runs what it is
given: a program chooses its own configuration.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import Callable, Optional, TextIO

from ..._manager.config_files import CONFIG_ENV_VAR, LoadedConfig, ServerEntry, candidate_files
from ..._manager.trust import TrustStore
from ..._wire.config import HTTPServerConfig, StdioServerConfig
from .words import UsageError

__all__ = ["check_project_trust", "project_files"]


def project_files(config: LoadedConfig, cwd: Optional[Path] = None) -> list[Path]:
    """The files of ``config`` that discovery took from the working directory as project files (not
    ``$MCPSYNC_CONFIG``'s; in the home directory, ``./.cursor/mcp.json`` is the user's own)."""
    base = cwd or Path.cwd()
    named = os.environ.get(CONFIG_ENV_VAR)
    chosen = (base / named).resolve() if named else None
    # The name and folder it was found under, not where a link leads: a link is the repository's too.
    projects = {str(file.path) for file in candidate_files(cwd=cwd) if file.scope == "project"}
    return [Path(source) for source in config.sources if source in projects and Path(source).resolve() != chosen]


def _named(file: Path) -> str:
    """The file as the question shows it: a link with the file it leads to."""
    return f"{file} (a link to {file.resolve()})" if file.is_symlink() else str(file)


def _what_starts(entries: Sequence[ServerEntry]) -> list[str]:
    lines = []
    for entry in entries:
        config = entry.config
        if isinstance(config, StdioServerConfig):
            lines.append(f"  {entry.name}: {shlex.join([config.command, *config.args])}")
        elif isinstance(config, HTTPServerConfig):
            lines.append(f"  {entry.name}: {config.type} {config.url}")
    return lines


def check_project_trust(
    config: LoadedConfig,
    *,
    trust_given: bool,
    store: TrustStore,
    ask: Optional[Callable[[str], str]],
    err: TextIO,
) -> None:
    """Refuse to go on unless every project file whose servers would start is trusted.

    Args:
        trust_given: ``--trust``: trust them now (and remember).
        store: where trust is remembered.
        ask: shows a question and returns the answer; ``None`` when nobody can answer.
        err: where the question's explanation goes.

    Raises:
        UsageError: a project file is not trusted (and could not be asked about, or was refused).
    """
    for file in project_files(config):
        entries = [e for e in config.servers.values() if e.source == str(file) and e.enabled]
        if not entries:
            continue
        content = file.read_bytes()
        if store.is_trusted(file, content):
            continue
        starts = "\n".join(_what_starts(entries))
        named = _named(file)
        if store.problem is not None:
            err.write(f"mcpsync: warning: the trusted projects file {store.problem}\n")
        if trust_given:
            store.trust(file, content)
            continue
        if ask is None:
            raise UsageError(
                f"{named} is a project configuration (found in the working directory) that you have not trusted; "
                f"it would start:\n{starts}\n"
                "Run again with --trust to trust it (remembered until the file changes), or on a terminal to be asked."
            )
        err.write(f"mcpsync: {named} is a project configuration found in the working directory. It would start:\n")
        err.write(starts + "\n")
        err.flush()
        if ask("Trust this file and start its servers? [y/N] ").strip().lower() not in ("y", "yes"):
            raise UsageError(f"{named} is not trusted: nothing was started")
        store.trust(file, content)
