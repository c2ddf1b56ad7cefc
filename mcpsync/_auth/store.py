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
sees half a file, and a crash never leaves one. A directory that others can
write in, that another user owns, or that is a symbolic link is refused
(``TokenStoreError``), and no entry is reached through a symbolic link: a
stored entry is trusted only as far as nobody else could have put it there. ``MemoryTokenStore`` keeps
them for the life of the process. Any object with ``load``, ``save``,
``delete`` and ``keys`` will do.

A refresh changes an entry that other processes share, and a rotating
refresh token works once: ``locked`` gives one refresh at a time per key.
``FileTokenStore.lock`` holds an ``flock`` on a lock file inside the checked
directory, so that processes take turns; any other store takes turns within
the process (``lock``, if the store has one, else a lock per key here).
"""

from __future__ import annotations

import errno
import hashlib
import json
import logging
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ContextManager, Optional, Protocol, Union

from .._core.errors import TokenStoreError
from .._core.paths import user_data_dir
from .private_files import PrivateDirectory

__all__ = [
    "FileTokenStore",
    "MemoryTokenStore",
    "StoreLockTimeout",
    "TokenStore",
    "client_key",
    "locked",
    "server_key",
    "token_key",
]

logger = logging.getLogger("mcpsync.auth")

#: The largest entry read: a token record is a few kB; a bigger file is not one of ours.
MAX_ENTRY_BYTES = 1 << 20
#: Seconds between two tries for a lock another process holds (the wait itself is the caller's).
_LOCK_POLL = 0.01
_LOCK_POLL_MAX = 0.1
#: Per-key locks of the stores that have no ``lock`` of their own (one process only).
_KEY_LOCKS: dict[str, threading.Lock] = {}
_KEY_LOCKS_GUARD = threading.Lock()


class StoreLockTimeout(Exception):
    """Internal: a store's lock was not had within the time given (the caller says what it was for)."""


def locked(store: Any, key: str, timeout: float) -> ContextManager[None]:
    """Hold ``store``'s lock for ``key`` for a block: ``store.lock`` if it has one (``FileTokenStore``:
    across processes), else a lock per key in this process. ``timeout``: seconds to wait for it.

    Raises:
        StoreLockTimeout: not had within ``timeout``.
        TokenStoreError: the store's directory is refused.
    """
    lock = getattr(store, "lock", None)
    if callable(lock):
        held: ContextManager[None] = lock(key, timeout)
        return held
    return _process_lock(key, timeout)


@contextmanager
def _process_lock(key: str, timeout: float) -> Iterator[None]:
    with _KEY_LOCKS_GUARD:
        lock = _KEY_LOCKS.setdefault(key, threading.Lock())
    if not lock.acquire(timeout=max(0.0, timeout)):
        raise StoreLockTimeout(key)
    try:
        yield
    finally:
        lock.release()


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
    """Entries as files of mode 0600 in ``directory`` (default: ``<user data dir>/auth``).

    What it demands of its directory (docs/authorization.md): a directory, not a symbolic link,
    owned by the user running mcpsync, that nobody else can write in. One that others can read
    (0750, 0755) is tightened to 0700; one it makes is 0700. Each entry must be a regular file of
    the user's (a symbolic link is never followed); one that others can read is tightened to 0600.
    Anything else is refused with ``TokenStoreError``, before anything is read or written.

    Raises:
        TokenStoreError: from each method, when the directory or an entry is refused.
    """

    def __init__(self, directory: Union[str, Path, None] = None) -> None:
        self.directory = Path(directory) if directory is not None else user_data_dir() / "auth"
        self._files = PrivateDirectory(self.directory, "token store", self._refuse, logger)
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"FileTokenStore({str(self.directory)!r})"

    @staticmethod
    def _name(key: str) -> str:
        return hashlib.sha256(key.encode()).hexdigest()[:32] + ".json"

    def _path(self, key: str) -> Path:
        return self.directory / self._name(key)

    def check(self) -> None:
        """Check (and where it is the user's own, tighten) the directory now, if there is one.

        Raises:
            TokenStoreError: the directory is refused (the text says why, and how to put it right).
        """
        descriptor = self._files.open(create=False)
        if descriptor is not None:
            os.close(descriptor)

    def _refuse(self, why: str, path: Union[str, Path, None] = None) -> TokenStoreError:
        where = str(path if path is not None else self.directory)
        return TokenStoreError(
            f"the token store {where} is refused: {why}; nothing is read from it or kept in it", path=where
        )

    def _parsed(self, data: Optional[bytes], name: str) -> Any:
        """The JSON of one entry's bytes; ``None`` when there were none or they are unreadable (half
        written, not JSON)."""
        if data is None:
            return None
        try:
            return json.loads(data.decode("utf-8"))
        except (ValueError, RecursionError) as exc:
            logger.warning("token store: %s is unreadable, ignored: %s", self.directory / name, type(exc).__name__)
            return None

    def load(self, key: str) -> Optional[dict[str, Any]]:
        name = self._name(key)
        entry = self._parsed(self._files.read_entry(name, MAX_ENTRY_BYTES), name)
        if not isinstance(entry, dict) or entry.get("key") != key or not isinstance(entry.get("value"), dict):
            return None
        value: dict[str, Any] = entry["value"]
        return value

    def save(self, key: str, value: dict[str, Any]) -> None:
        """Keep ``value`` under ``key``, atomically: a failed save leaves the entry as it was.

        Raises:
            TokenStoreError: the directory is refused, or the entry could not be written (a full
                disk, a file where the directory should be ...): the text names the path and why.
        """
        data = json.dumps({"key": key, "value": value}, indent=1, sort_keys=True).encode("utf-8")
        with self._lock:
            try:
                self._files.write_entry(self._name(key), data)
            except OSError as exc:
                raise TokenStoreError(
                    f"the token store {self.directory} could not keep an entry: {exc.strerror or exc}; "
                    "nothing in it was changed",
                    path=str(self.directory),
                ) from None

    def delete(self, key: str) -> None:
        with self._lock:
            descriptor = self._files.open(create=False)
            if descriptor is None:
                return
            try:
                os.unlink(self._name(key), dir_fd=descriptor)  # unlink never follows a link
            except FileNotFoundError:
                pass
            finally:
                os.close(descriptor)

    @contextmanager
    def lock(self, key: str, timeout: float) -> Iterator[None]:
        """Hold the lock of ``key`` for a block, against every process using this directory: an
        ``flock`` on ``.lock-<entry>`` inside the checked directory (never through a link). The wait
        is bounded by ``timeout`` seconds; a process that dies lets go of its lock with it.

        Raises:
            StoreLockTimeout: another process held it for ``timeout`` seconds.
            TokenStoreError: the directory is refused.
        """
        try:
            import fcntl
        except ImportError:  # no flock (Windows): turns within this process only
            with _process_lock(f"{self.directory} {key}", timeout):
                yield
            return
        end = time.monotonic() + max(0.0, timeout)
        descriptor = self._files.open(create=True)
        assert descriptor is not None
        try:
            name = ".lock-" + self._name(key)[: -len(".json")]
            flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
            try:
                file = os.open(name, flags, 0o600, dir_fd=descriptor)
            except OSError as exc:
                why = "it is a symbolic link (never followed)" if exc.errno == errno.ELOOP else exc.strerror
                raise self._refuse(f"the lock file cannot be opened: {why}", self.directory / name) from None
        finally:
            os.close(descriptor)
        try:
            pause = _LOCK_POLL
            while True:
                try:
                    fcntl.flock(file, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    left = end - time.monotonic()
                    if left <= 0:
                        raise StoreLockTimeout(key) from None
                    # flock has no timed wait: a short poll, bounded by the caller's time.
                    time.sleep(min(pause, left))
                    pause = min(pause * 2, _LOCK_POLL_MAX)
            try:
                yield
            finally:
                fcntl.flock(file, fcntl.LOCK_UN)
        finally:
            os.close(file)

    def keys(self) -> list[str]:
        descriptor = self._files.open(create=False)
        if descriptor is None:
            return []
        found = []
        try:
            for name in sorted(os.listdir(descriptor)):
                if not name.endswith(".json") or name.startswith(".tmp-"):
                    continue
                try:
                    entry = self._parsed(self._files.read(descriptor, name, MAX_ENTRY_BYTES), name)
                except TokenStoreError as exc:
                    logger.warning("%s", exc)
                    continue
                if isinstance(entry, dict) and isinstance(entry.get("key"), str):
                    found.append(entry["key"])
        finally:
            os.close(descriptor)
        return sorted(found)
