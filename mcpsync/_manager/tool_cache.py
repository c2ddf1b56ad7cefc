"""The tool cache: each server's tool list from earlier runs, so a manager can offer tools at once.

One JSON file (by default ``tools.json`` in ``mcpsync.paths.user_cache_dir()``)::

    {"version": 1, "servers": {"<name>": {"key": "<hash>", "saved": <unix time>, "tools": [<tool dicts>]}}}

An entry counts only for the same server name *and* the same configuration
(``key`` is a hash of it, so no secret from ``env`` or ``headers`` is stored),
and only until it is older than the expiry. A list the server marks
``cacheScope: "private"`` (2026-07-28) is for the authorization context it was
fetched in: it is kept only where the configuration is that context whole (a
stdio server has none but its command, arguments, environment and directory;
an HTTP server without OAuth sends what its configuration says), never for a
server authorized by OAuth, whose account the file cannot tell apart. What a cached list says reaches a model
(descriptions, which tools are for it), so the file is kept by the token
store's rules (``mcpsync._auth.private_files``): its directory is the user's
alone, the file the user's own regular file, never reached through a link,
written to a new file that replaces the old one (a reader never sees half a
file; two processes writing at once lose one update, never the file). An
entry dated in the future is stale. A cache that is refused, or cannot be read
or written, is logged and otherwise ignored: it only ever saves time.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import os
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Optional, Union

from .._auth.private_files import PrivateDirectory
from .._core import jsonrpc
from .._core.paths import user_cache_dir
from .._wire.config import ServerConfig

__all__ = ["DEFAULT_MAX_AGE", "ToolCache", "config_key"]

logger = logging.getLogger("mcpsync.manager")

#: Seconds a cached tool list stays usable: a week.
DEFAULT_MAX_AGE = 7 * 24 * 3600.0
_FORMAT_VERSION = 1
#: Levels of nesting the file may have (tool schemas nest, but not without end).
MAX_DEPTH = 200
#: The largest cache file read (a tool list is a message: the default message limit).
MAX_BYTES = 64 << 20
#: Seconds an entry's date may lie ahead of the clock (a clock set back a little); further is stale.
FUTURE_SLACK = 60.0


class _Refused(Exception):
    """The cache's directory or file is refused (``PrivateDirectory``): the cache is not used."""


def config_key(config: ServerConfig) -> str:
    """A hash of everything in ``config`` that decides which server one reaches."""
    fields = dataclasses.asdict(config)
    fields["kind"] = type(config).__name__
    text = json.dumps(fields, sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


class ToolCache:
    """Read and write the tool lists of servers, keyed by name and configuration; thread-safe.

    Args:
        path: the cache file (default: ``tools.json`` in the user cache directory).
        max_age: seconds after which an entry is ignored.
    """

    def __init__(self, path: Union[str, os.PathLike[str], None] = None, max_age: float = DEFAULT_MAX_AGE) -> None:
        self.path = Path(path) if path is not None else user_cache_dir() / "tools.json"
        self.max_age = max_age
        self._lock = threading.Lock()
        self._files = PrivateDirectory(self.path.parent, "tool cache", self._refuse, logger)

    def _refuse(self, why: str, path: Union[str, Path, None]) -> _Refused:
        return _Refused(f"tool cache {path if path is not None else self.path.parent} refused, not used: {why}")

    def _fresh(self, saved: Any, now: float) -> bool:
        """Whether an entry saved at ``saved`` (unix time) counts: not older than ``max_age``, not from the future."""
        return isinstance(saved, (int, float)) and -FUTURE_SLACK <= now - saved <= self.max_age

    def _read(self) -> dict[str, Any]:
        try:
            raw = self._files.read_entry(self.path.name, MAX_BYTES)
            if raw is None:
                return {}
            data = jsonrpc.decode(raw.decode("utf-8"))
        except _Refused as exc:
            logger.warning("%s", exc)
            return {}
        except (OSError, ValueError) as exc:
            logger.warning("tool cache %s unreadable, ignored: %s", self.path, exc)
            return {}
        if jsonrpc.nesting_depth(data, MAX_DEPTH) > MAX_DEPTH:
            logger.warning("tool cache %s nested deeper than %d levels, ignored", self.path, MAX_DEPTH)
            return {}
        if not isinstance(data, dict) or data.get("version") != _FORMAT_VERSION:
            return {}
        servers = data.get("servers")
        return servers if isinstance(servers, dict) else {}

    def get(self, name: str, config: ServerConfig) -> Optional[list[dict[str, Any]]]:
        """The cached tool dicts of server ``name`` with this configuration, or ``None``."""
        return self.get_many({name: config}).get(name)

    def get_many(self, configs: Mapping[str, ServerConfig]) -> dict[str, list[dict[str, Any]]]:
        """The cached tool dicts of each server with its configuration, reading the file once."""
        return self.lookup(configs)[0]

    def lookup(self, configs: Mapping[str, ServerConfig]) -> tuple[dict[str, list[dict[str, Any]]], dict[str, str]]:
        """The cached tool dicts of each server with its configuration (reading the file once), and
        for each of the others why it has none (``"no tool list cached yet"``, say)."""
        with self._lock:
            servers = self._read()
        found, missing = {}, {}
        now = time.time()
        for name, config in configs.items():
            entry = servers.get(name)
            saved = entry.get("saved") if isinstance(entry, dict) else None
            tools = entry.get("tools") if isinstance(entry, dict) else None
            if not isinstance(entry, dict):
                missing[name] = "no tool list cached yet"
            elif entry.get("key") != config_key(config):
                missing[name] = "the cached tool list is of another configuration of it"
            elif not self._fresh(saved, now):
                missing[name] = f"the cached tool list is older than {self.max_age:g} s (or dated ahead)"
            elif isinstance(tools, list) and all(isinstance(t, dict) for t in tools):
                found[name] = tools
            else:
                missing[name] = "the cached tool list is not a list of tools"
        return found, missing

    def put(
        self,
        name: str,
        config: ServerConfig,
        tools: list[dict[str, Any]],
        scope: Optional[str] = None,
        *,
        context_in_config: bool = False,
    ) -> Optional[str]:
        """Store the tool dicts of server ``name``; failures are logged, not raised. Returns why the
        list was not kept (``None``: it was, or the file could not be written, which is logged).

        ``scope``: the listing's ``cacheScope``. A ``"private"`` list is for the authorization
        context it was fetched in, and this file is read by every run: it is kept only when
        ``context_in_config`` (the configuration, whose hash keys the entry, is that context whole:
        a stdio server, an HTTP server without OAuth); else it is not written, and what the file
        held for the server is removed.
        """
        with self._lock:
            servers = self._read()
            if scope == "private" and not context_in_config:
                why = "its tool list is private (cacheScope) and it is authorized by OAuth: not cached"
                if servers.pop(name, None) is None:
                    return why
                logger.info("tool cache: the tools of %r are private (cacheScope), of an OAuth account; not kept", name)
            else:
                why = None
                servers[name] = {"key": config_key(config), "saved": time.time(), "tools": tools}
            now = time.time()
            servers = {
                key: value
                for key, value in servers.items()
                if isinstance(value, dict) and self._fresh(value.get("saved"), now)
            }
            data = json.dumps({"version": _FORMAT_VERSION, "servers": servers}).encode("utf-8")
            try:
                self._files.write_entry(self.path.name, data)
            except _Refused as exc:
                logger.warning("%s", exc)
            except OSError as exc:
                logger.warning("tool cache %s not written: %s", self.path, exc)
        return why
