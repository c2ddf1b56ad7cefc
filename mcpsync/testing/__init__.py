"""A small real MCP server for tests, demos and your own experiments.

    import mcpsync
    from mcpsync.testing import server_command

    with mcpsync.connect(server_command()) as client:
        client.call_tool("echo", {"text": "hi"}).text   # "hi"

See ``python -m mcpsync.testing --help`` for its tools and options, and the modules of this
package for what each part does (``catalogue``, ``tools``, ``server``, ``http`` ...).
"""

from __future__ import annotations

import sys
from typing import Any

from .._wire.config import StdioServerConfig

__all__ = ["server_command", "server_config"]


def server_command(*options: str) -> list[str]:
    """The command line that starts the test server with this interpreter.

    Args:
        *options: server options, e.g. ``"--page-size", "2"`` or ``"--ignore-sigterm"``.
    """
    return [sys.executable, "-m", "mcpsync.testing", *options]


def server_config(*options: str, **kwargs: Any) -> StdioServerConfig:
    """A ``StdioServerConfig`` for the test server; ``kwargs`` go to the config (name, timeout...)."""
    command, *args = server_command(*options)
    kwargs.setdefault("name", "test-server")
    return StdioServerConfig(command=command, args=args, **kwargs)
