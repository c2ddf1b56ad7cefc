"""What discovery looked at and found, file by file: the ``mcpsync config`` command's listing, and
the places the command line names when it found no server.

Nothing here is needed to read a configuration (``mcpsync._manager.config_files`` does that); it
reads the same files in the same order, and reports a file that cannot be used instead of raising.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Union

from .._core.errors import ConfigurationError
from .._core.paths import user_home_dir
from .client_files import CLIENTS, ClientFile, check_clients, files_named
from .config_files import CONFIG_ENV_VAR, ServerEntry, candidate_files, read_config_file

__all__ = ["FileReport", "places_looked_at", "shown_path", "survey_config_files"]


@dataclass(frozen=True)
class FileReport:
    """What discovery found in one place it looked.

    Attributes:
        file: the place.
        exists: whether a file is there.
        servers: the names of the servers taken from it, in its order (switched-off ones too).
        skipped: the names it defines that an earlier file defined, each with that file: the earlier
            file's server is used.
        read_as: the name an earlier row read the same file under (it is not read twice).
        error: why the file cannot be used (``None``: it can).
    """

    file: ClientFile
    exists: bool
    servers: tuple[str, ...] = ()
    skipped: tuple[tuple[str, str], ...] = ()
    read_as: Optional[str] = None
    error: Optional[str] = None


def survey_config_files(
    path: Union[str, os.PathLike[str], None] = None,
    *,
    environ: Optional[Mapping[str, str]] = None,
    cwd: Union[str, os.PathLike[str], None] = None,
    clients: Union[str, Iterable[str], None] = None,
) -> list[FileReport]:
    """Each place discovery looks (``candidate_files``; or the one file ``path`` names), in its order,
    and what it found there, as ``load_config`` would read it.

    Raises:
        ConfigurationError: an unknown client name.
    """
    environ = os.environ if environ is None else environ
    if path is not None:
        named = Path(path) if cwd is None else Path(cwd) / path
        base = Path.cwd() if cwd is None else Path(os.path.abspath(cwd))
        files = files_named(named, environ, base)
    else:
        files = candidate_files(environ=environ, cwd=cwd, clients=clients)
    taken: dict[str, ServerEntry] = {}
    seen: dict[tuple[Path, Optional[str]], str] = {}
    reports = []
    for file in files:
        if not file.path.is_file():
            missing = None
            if file.scope == "named":
                missing = f"{file.path}: no such configuration file"
                if path is None:
                    missing = f"${CONFIG_ENV_VAR} names {file.path}, which is not a file"
            reports.append(FileReport(file, False, error=missing))
            continue
        key = (file.path.resolve(), file.project)
        if key in seen:
            reports.append(FileReport(file, True, read_as=seen[key]))
            continue
        seen[key] = str(file.path)
        skipped: list[str] = []
        try:
            servers = read_config_file(file, environ, taken, skipped)
        except ConfigurationError as exc:
            reports.append(FileReport(file, True, error=str(exc)))
            continue
        earlier = tuple((name, taken[name].source) for name in skipped)
        taken.update(servers)
        reports.append(FileReport(file, True, tuple(servers), earlier))
    return reports


def places_looked_at(
    *,
    environ: Optional[Mapping[str, str]] = None,
    cwd: Union[str, os.PathLike[str], None] = None,
    clients: Union[str, Iterable[str], None] = None,
) -> dict[str, list[str]]:
    """Where discovery looks, by client (in the order of ``CLIENTS``), each place once and short (``shown_path``);
    ``$MCPSYNC_CONFIG`` by its name when it is not set.

    Raises:
        ConfigurationError: an unknown client name.
    """
    environ = os.environ if environ is None else environ
    places: dict[str, list[str]] = {}
    if (clients is None or "mcpsync" in check_clients(clients)) and not environ.get(CONFIG_ENV_VAR):
        places["mcpsync"] = [f"${CONFIG_ENV_VAR}"]
    for file in candidate_files(environ=environ, cwd=cwd, clients=clients):
        listed = places.setdefault("mcpsync" if file.scope == "named" else file.client, [])
        shown = shown_path(file, environ=environ, cwd=cwd)
        if shown not in listed:
            listed.append(shown)
    return {client: places[client] for client in CLIENTS if client in places}


def shown_path(
    file: ClientFile,
    *,
    environ: Optional[Mapping[str, str]] = None,
    cwd: Union[str, os.PathLike[str], None] = None,
) -> str:
    """A file's path, short: a project file from ``./``, a file in the home directory from ``~/``."""
    environ = os.environ if environ is None else environ
    if file.scope == "project":
        root, prefix = (Path.cwd() if cwd is None else Path(os.path.abspath(cwd))), "./"
    else:
        root, prefix = user_home_dir(environ=environ), "~/"
    return prefix + file.path.relative_to(root).as_posix() if file.path.is_relative_to(root) else str(file.path)
