"""The ``mcpsync`` command (also ``python -m mcpsync``)."""

from __future__ import annotations

import argparse
import logging
import sys
from typing import Optional

from ._version import __version__

__all__ = ["main"]


def main(argv: Optional[list[str]] = None) -> int:
    """Run the command; returns the exit status."""
    parser = argparse.ArgumentParser(prog="mcpsync", description="A synchronous MCP client.")
    parser.add_argument("--version", action="version", version=f"mcpsync {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log what happens (to stderr)")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.add_parser("demo", help="run the demo against the bundled test server")
    args = parser.parse_args(argv)
    if args.verbose:
        logging.basicConfig(level=logging.INFO, format="%(name)s: %(message)s")
    if args.command == "demo":
        from .demo import run_demo

        return run_demo()
    parser.print_help()
    return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
