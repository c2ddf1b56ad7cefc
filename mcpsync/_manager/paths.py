"""Where mcpsync keeps a user's files: the platform's configuration and cache directories.

Configuration first, cache second:

- Linux and other POSIX systems: ``$XDG_CONFIG_HOME/mcpsync`` (else
  ``~/.config/mcpsync``) and ``$XDG_CACHE_HOME/mcpsync`` (else ``~/.cache/mcpsync``).
- macOS: ``~/Library/Application Support/mcpsync`` and ``~/Library/Caches/mcpsync``.
- Windows: ``%APPDATA%\\mcpsync`` and ``%LOCALAPPDATA%\\mcpsync\\Cache``.

Nothing here creates a directory; the caller does, when it writes.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Optional

__all__ = ["APP_NAME", "user_cache_dir", "user_config_dir"]

#: The directory name under each platform directory.
APP_NAME = "mcpsync"


def user_config_dir(*, environ: Optional[Mapping[str, str]] = None, platform: Optional[str] = None) -> Path:
    """The directory for the user's mcpsync configuration (see the module docstring).

    Args:
        environ: the environment to read (default ``os.environ``).
        platform: a ``sys.platform`` value (default: this one).
    """
    return _user_dir(environ, platform, windows=("APPDATA", "Roaming"), macos="Application Support", xdg="CONFIG")


def user_cache_dir(*, environ: Optional[Mapping[str, str]] = None, platform: Optional[str] = None) -> Path:
    """The directory for files mcpsync may delete and rebuild (see the module docstring).

    Args:
        environ: the environment to read (default ``os.environ``).
        platform: a ``sys.platform`` value (default: this one).
    """
    # Windows has no separate cache root: a "Cache" folder under the local
    # (not roaming) application data is the usual place.
    return _user_dir(environ, platform, windows=("LOCALAPPDATA", "Local", "Cache"), macos="Caches", xdg="CACHE")


def _user_dir(
    environ: Optional[Mapping[str, str]], platform: Optional[str], *, windows: tuple[str, ...], macos: str, xdg: str
) -> Path:
    """The user directory of one kind on ``platform``.

    Args:
        windows: the variable, its fallback folder under ``%USERPROFILE%\\AppData``,
            then folders under ``mcpsync``.
        macos: the folder under ``~/Library``.
        xdg: ``"CONFIG"`` or ``"CACHE"``: the variable ``XDG_<xdg>_HOME``, else ``~/.<xdg in lower case>``.
    """
    environ = os.environ if environ is None else environ
    platform = sys.platform if platform is None else platform
    if platform == "win32":
        variable, fallback, *tail = windows
        value = environ.get(variable)
        root = Path(value) if value else _home(environ, windows=True) / "AppData" / fallback
        return root.joinpath(APP_NAME, *tail)
    if platform == "darwin":
        return _home(environ) / "Library" / macos / APP_NAME
    value = environ.get(f"XDG_{xdg}_HOME")
    # The XDG Base Directory spec says a relative path in these variables is
    # invalid and must be ignored.
    root = Path(value) if value and os.path.isabs(value) else _home(environ) / f".{xdg.lower()}"
    return root / APP_NAME


def _home(environ: Mapping[str, str], *, windows: bool = False) -> Path:
    home = environ.get("USERPROFILE" if windows else "HOME")
    return Path(home) if home else Path.home()
