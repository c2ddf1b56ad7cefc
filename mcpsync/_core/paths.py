"""Where mcpsync keeps a user's files: the platform's configuration, data and cache directories.

- Linux and other POSIX systems: ``$XDG_CONFIG_HOME/mcpsync`` (else
  ``~/.config/mcpsync``), ``$XDG_DATA_HOME/mcpsync`` (else ``~/.local/share/mcpsync``)
  and ``$XDG_CACHE_HOME/mcpsync`` (else ``~/.cache/mcpsync``).
- macOS: ``~/Library/Application Support/mcpsync`` (configuration and data)
  and ``~/Library/Caches/mcpsync``.

Nothing here creates a directory; the caller does, when it writes.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Optional

__all__ = ["APP_NAME", "user_cache_dir", "user_config_dir", "user_data_dir", "user_home_dir"]

#: The directory name under each platform directory.
APP_NAME = "mcpsync"


def user_config_dir(*, environ: Optional[Mapping[str, str]] = None, platform: Optional[str] = None) -> Path:
    """The directory for the user's mcpsync configuration (see the module docstring).

    Args:
        environ: the environment to read (default ``os.environ``).
        platform: a ``sys.platform`` value (default: this one).
    """
    return _user_dir(environ, platform, macos="Application Support", xdg="XDG_CONFIG_HOME", fallback=".config")


def user_data_dir(*, environ: Optional[Mapping[str, str]] = None, platform: Optional[str] = None) -> Path:
    """The directory for what mcpsync must keep for the user (trusted project files; see the module docstring)."""
    return _user_dir(environ, platform, macos="Application Support", xdg="XDG_DATA_HOME", fallback=".local/share")


def user_cache_dir(*, environ: Optional[Mapping[str, str]] = None, platform: Optional[str] = None) -> Path:
    """The directory for files mcpsync may delete and rebuild (see the module docstring)."""
    return _user_dir(environ, platform, macos="Caches", xdg="XDG_CACHE_HOME", fallback=".cache")


def _user_dir(
    environ: Optional[Mapping[str, str]], platform: Optional[str], *, macos: str, xdg: str, fallback: str
) -> Path:
    """One user directory: on macOS under ``~/Library/<macos>``, elsewhere ``$<xdg>``, else ``~/<fallback>``."""
    environ = os.environ if environ is None else environ
    platform = sys.platform if platform is None else platform
    if platform == "darwin":
        return _home(environ) / "Library" / macos / APP_NAME
    value = environ.get(xdg)
    # The XDG Base Directory spec says a relative path in these variables is invalid and must be ignored.
    root = Path(value) if value and os.path.isabs(value) else _home(environ) / fallback
    return root / APP_NAME


def user_home_dir(*, environ: Optional[Mapping[str, str]] = None) -> Path:
    """The user's home directory: ``$HOME``, else what ``Path.home()`` says."""
    return _home(os.environ if environ is None else environ)


def _home(environ: Mapping[str, str]) -> Path:
    home = environ.get("HOME")
    return Path(home) if home else Path.home()
