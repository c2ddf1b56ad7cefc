"""``mcpsync config``: each file discovery looks at, in its order, and what it found there.

A row a place: the client whose file it is, its scope (``$MCPSYNC_CONFIG``, a project file of the
working directory, a user file), the path, whether a file is there, the servers taken from it and
those skipped because an earlier file defined the name, and for a project file whether it is
trusted. A file that cannot be used is listed with its error (and the command exits 2); the other
files are still read. ``--from`` keeps the rows of those clients; ``--config PATH`` lists that file
alone. ``--json`` writes the same as a list of objects. Only names and paths are shown: never an
entry's values (an ``env`` or a header holds secrets).
"""

from __future__ import annotations

import argparse
from typing import Any, Optional, TextIO

from ..._core.text import cut
from ..._manager.discovery_report import FileReport, shown_path, survey_config_files
from ..._manager.trust import TrustStore
from .format import CELL_LIMIT, table, write_json
from .words import UsageError

__all__ = ["run_config_command"]

#: Bad usage, or a file listed that cannot be used (as ``cli.EXIT_USAGE``).
EXIT_UNUSABLE = 2
#: What the scope column calls a file given by name.
_NAMED = {True: "--config", False: "$MCPSYNC_CONFIG"}


def run_config_command(args: argparse.Namespace, out: TextIO) -> int:
    """List what discovery looks at (or the ``--config`` file); 2 when a file listed cannot be used."""
    if args.stdio is not None or args.url is not None:
        raise UsageError("config lists configuration files; an inline server (--stdio, --url) has none")
    if args.clients and args.config is not None:
        raise UsageError("--from chooses among the files discovery finds: give it without --config")
    reports = survey_config_files(args.config, clients=args.clients or None)
    store = TrustStore()
    trusted = {id(report): _trusted(report, store) for report in reports}
    if args.json:
        write_json([_as_dict(report, trusted[id(report)]) for report in reports], out)
    else:
        _write_table(reports, trusted, args.config is not None, out)
    return EXIT_UNUSABLE if any(report.error for report in reports) else 0


def _trusted(report: FileReport, store: TrustStore) -> Optional[bool]:
    """Whether a project file that is there is trusted (``None`` for the other files: none is asked about)."""
    if report.file.scope != "project" or not report.exists:
        return None
    try:
        return store.is_trusted(report.file.path, report.file.path.read_bytes())
    except OSError:
        return False


def _as_dict(report: FileReport, trusted: Optional[bool]) -> dict[str, Any]:
    file = report.file
    return {
        "client": file.client,
        "clients": list(file.clients),
        "scope": file.scope,
        "path": str(file.path),
        "part": file.part or None,
        "exists": report.exists,
        "servers": list(report.servers),
        "skipped": [{"name": name, "source": source} for name, source in report.skipped],
        "read_as": report.read_as,
        "error": report.error,
        "trusted": trusted,
    }


def _write_table(reports: list[FileReport], trusted: dict[int, Optional[bool]], named: bool, out: TextIO) -> None:
    rows = [("client", "scope", "file", "found", "servers", "skipped", "trusted")]
    for report in reports:
        file = report.file
        found = "yes" if report.exists else "no"
        if report.read_as is not None:
            found = "read above"
        elif report.error is not None:
            found = "error" if report.exists else "no: error"
        servers = ""
        if report.exists and report.read_as is None and report.error is None:
            defined = len(report.servers) + len(report.skipped)  # how many it defines; the names of those used
            servers = f"{defined}: {', '.join(report.servers)}" if report.servers else str(defined)
        where = shown_path(file) + (f" {file.part}" if file.part else "")
        shown_trust = {True: "yes", False: "no", None: ""}[trusted[id(report)]]
        rows.append(
            (
                "/".join(file.clients),
                _NAMED[named] if file.scope == "named" else file.scope,
                where,
                found,
                cut(servers, CELL_LIMIT),
                cut(", ".join(name for name, _ in report.skipped), CELL_LIMIT),
                shown_trust,
            )
        )
    table(rows, out, indent="")
    for report in reports:
        for name, source in report.skipped:
            out.write(f"skipped: {name!r} of {report.file.path}: {source} defines it first\n")
    for report in reports:
        if report.error is not None:
            out.write(f"error: {report.error}\n")
    used = sum(len(report.servers) for report in reports)
    files = len({report.file.path for report in reports if report.servers})  # ~/.claude.json's two parts: one file
    out.write(f"{used} server{'' if used == 1 else 's'} from {files} file{'' if files == 1 else 's'}\n")
