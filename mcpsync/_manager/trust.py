"""Which project configuration files the user trusts to start their servers.

A ``.mcp.json`` in a repository someone cloned is the repository's, not the
user's: ``mcpsync tools`` run in that directory would start whatever command
it names. So the command line asks once before it starts the servers of a
project file that discovery found (not one named with ``--config`` or
``$MCPSYNC_CONFIG``, nor the user's own file), and remembers the answer here,
keyed by the file's absolute path and a hash of its content: an edited file
is asked about again.

The store is ``trusted-projects.json`` in the user data directory, written
atomically, readable by the user only.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
import threading
from pathlib import Path
from typing import Optional, Union

from .._core import jsonrpc
from .._core.paths import user_data_dir

__all__ = ["TrustStore"]

logger = logging.getLogger("mcpsync.manager")

_FORMAT_VERSION = 1


def _digest(content: bytes) -> str:
    return "sha256:" + hashlib.sha256(content).hexdigest()


class TrustStore:
    """The trusted (path, content hash) pairs; thread-safe.

    Args:
        path: the store file (default: ``trusted-projects.json`` in the user data directory).
    """

    def __init__(self, path: Union[str, os.PathLike[str], None] = None) -> None:
        self.path = Path(path) if path is not None else user_data_dir() / "trusted-projects.json"
        self._lock = threading.Lock()
        #: Why the store file was last found unreadable or not of this format (``None``: it was fine, or
        #: absent): what was trusted there is lost, and the command line says so beside its question.
        self.problem: Optional[str] = None

    def is_trusted(self, file: Path, content: bytes) -> bool:
        """Whether ``file`` with exactly this ``content`` was trusted."""
        return self._read().get(str(file.resolve())) == _digest(content)

    def trust(self, file: Path, content: bytes) -> None:
        """Remember that ``file`` with this ``content`` is trusted (a failure to write is logged)."""
        with self._lock:
            trusted = self._read()
            trusted[str(file.resolve())] = _digest(content)
            self._write(trusted)

    def _read(self) -> dict[str, str]:
        try:
            data = jsonrpc.decode(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            self.problem = None
            return {}
        except (OSError, ValueError) as exc:
            logger.warning("trusted projects %s unreadable, ignored: %s", self.path, exc)
            self.problem = f"{self.path} is unreadable ({type(exc).__name__}), so what was trusted there is forgotten"
            return {}
        files = data.get("files") if isinstance(data, dict) and data.get("version") == _FORMAT_VERSION else None
        if not isinstance(files, dict):
            logger.warning("trusted projects %s is not of format version %d, ignored", self.path, _FORMAT_VERSION)
            self.problem = f"{self.path} is not a trusted-projects file mcpsync wrote, so it is ignored"
            return {}
        self.problem = None
        return {k: v for k, v in files.items() if isinstance(k, str) and isinstance(v, str)}

    def _write(self, trusted: dict[str, str]) -> None:
        text = json.dumps({"version": _FORMAT_VERSION, "files": trusted}, indent=2, sort_keys=True)
        temporary: Optional[str] = None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            handle, temporary = tempfile.mkstemp(prefix=".trusted-", dir=self.path.parent)  # mode 0600
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                out.write(text)
            os.replace(temporary, self.path)
            temporary = None
        except OSError as exc:
            logger.warning("could not remember the trusted project in %s: %s", self.path, exc)
        finally:
            if temporary is not None:
                try:
                    os.unlink(temporary)
                except OSError:
                    pass
