"""Where tokens and client registrations are kept between runs.

A store maps string keys to JSON objects. mcpsync keeps three kinds of entry:

- ``client <issuer>``: a client registration, bound to the authorization
  server that issued it (the specification's rule: never shown to another);
- ``token <resource> <issuer>``: the tokens for one MCP server from one
  authorization server, with their scopes and expiry;
- ``server <url>``: which resource and issuer the server at ``url`` used last,
  so that the next run sends its token at once, without a ``401`` first.

``FileTokenStore`` (the default) writes one file per entry under the user's
data directory (``~/.local/share/mcpsync/auth``), each created with mode
0600 in a directory of mode 0700, and replaced atomically: a reader never
sees half a file, and a crash never leaves one. ``MemoryTokenStore`` keeps
them for the life of the process. Any object with ``load``, ``save``,
``delete`` and ``keys`` will do.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
import threading
from pathlib import Path
from typing import Any, Optional, Protocol, Union

from .._core.paths import user_data_dir

__all__ = ["FileTokenStore", "MemoryTokenStore", "TokenStore", "client_key", "server_key", "token_key"]

logger = logging.getLogger("mcpsync.auth")


class TokenStore(Protocol):
    """What mcpsync needs of a token store (see the module docstring)."""

    def load(self, key: str) -> Optional[dict[str, Any]]: ...

    def save(self, key: str, value: dict[str, Any]) -> None: ...

    def delete(self, key: str) -> None: ...

    def keys(self) -> list[str]: ...


def client_key(issuer: str) -> str:
    return f"client {issuer}"


def token_key(resource: str, issuer: str) -> str:
    return f"token {resource} {issuer}"


def server_key(url: str) -> str:
    return f"server {url}"


class MemoryTokenStore:
    """Entries kept in this process only (thread-safe)."""

    def __init__(self) -> None:
        self._entries: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()

    def load(self, key: str) -> Optional[dict[str, Any]]:
        with self._lock:
            value = self._entries.get(key)
        return json.loads(json.dumps(value)) if value is not None else None

    def save(self, key: str, value: dict[str, Any]) -> None:
        copy = json.loads(json.dumps(value))
        with self._lock:
            self._entries[key] = copy

    def delete(self, key: str) -> None:
        with self._lock:
            self._entries.pop(key, None)

    def keys(self) -> list[str]:
        with self._lock:
            return sorted(self._entries)


class FileTokenStore:
    """Entries as files of mode 0600 in ``directory`` (default: ``<user data dir>/auth``)."""

    def __init__(self, directory: Union[str, Path, None] = None) -> None:
        self.directory = Path(directory) if directory is not None else user_data_dir() / "auth"
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"FileTokenStore({str(self.directory)!r})"

    def _path(self, key: str) -> Path:
        return self.directory / (hashlib.sha256(key.encode()).hexdigest()[:32] + ".json")

    def load(self, key: str) -> Optional[dict[str, Any]]:
        path = self._path(key)
        try:
            entry = json.loads(path.read_text("utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError, RecursionError) as exc:
            logger.warning("token store: %s is unreadable, ignored: %s", path, type(exc).__name__)
            return None
        if not isinstance(entry, dict) or entry.get("key") != key or not isinstance(entry.get("value"), dict):
            return None
        value: dict[str, Any] = entry["value"]
        return value

    def save(self, key: str, value: dict[str, Any]) -> None:
        text = json.dumps({"key": key, "value": value}, indent=1, sort_keys=True)
        with self._lock:
            self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
            descriptor, temporary = tempfile.mkstemp(dir=self.directory, prefix=".tmp-", suffix=".json")
            try:
                os.fchmod(descriptor, 0o600)
                with os.fdopen(descriptor, "w", encoding="utf-8") as file:
                    file.write(text)
                    file.flush()
                    os.fsync(file.fileno())
                os.replace(temporary, self._path(key))
            except BaseException:
                try:
                    os.unlink(temporary)
                except OSError:
                    pass
                raise

    def delete(self, key: str) -> None:
        with self._lock:
            try:
                self._path(key).unlink()
            except FileNotFoundError:
                pass

    def keys(self) -> list[str]:
        found = []
        try:
            paths = sorted(self.directory.glob("*.json"))
        except OSError:
            return []
        for path in paths:
            if path.name.startswith(".tmp-"):
                continue
            try:
                entry = json.loads(path.read_text("utf-8"))
            except (OSError, ValueError, RecursionError):
                continue
            if isinstance(entry, dict) and isinstance(entry.get("key"), str):
                found.append(entry["key"])
        return sorted(found)
