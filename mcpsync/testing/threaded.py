"""The bundled test server in a thread of this process, over three pipe pairs, for tests of a client's
logic: a process of its own costs its start (0.2-0.5 s on a busy machine, most of it importing mcpsync)
and proves nothing there.

    from mcpsync.testing import server_config
    from mcpsync.testing.threaded import ThreadedServerTransport

    transport = ThreadedServerTransport.from_config(server_config("--page-size", "2"))
    with mcpsync.Client(transport) as client:
        client.list_tools()

The client is the same ``StdioTransport`` over the same kind of pipes, with its reader threads; only the
other end is a thread (``ServerThread``) in place of a child. What needs a process stays one: a server
command with ``--http``, ``--ignore-sigterm`` or ``--mark-start``, an ``env`` or a ``cwd`` of its own, or
another program (``threadable`` says which). In a thread, ``crash`` and ``--die-after`` close the
server's output with the exit code they name, a signal closes it as the signal would (the code is
``-signal``), and the server's ``pid`` is ``None``.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from typing import IO, Any, Optional

from .._wire.config import StdioServerConfig
from .._wire.stdio import StdioTransport
from . import __main__ as command_line
from .minimal import make_server

__all__ = ["ServerThread", "ThreadedServerTransport", "threadable"]

#: Options that are about the server's process: with one of them it runs as a process.
PROCESS_OPTIONS = ("--http", "--ignore-sigterm", "--mark-start")
_MODULE = "mcpsync.testing"


def threadable(config: StdioServerConfig) -> Optional[list[str]]:
    """The server options of ``config`` if it starts the bundled server and nothing in it needs a
    process (see the module's text); else ``None``."""
    args = list(config.args)
    if config.command != sys.executable or args[:2] != ["-m", _MODULE] or config.env or config.cwd:
        return None
    options = args[2:]
    if any(option.split("=", 1)[0] in PROCESS_OPTIONS for option in options):
        return None
    return options


def _pipe() -> tuple[IO[bytes], IO[bytes]]:
    """A pipe's read end and write end, as unbuffered binary files."""
    read, write = os.pipe()
    return open(read, "rb", buffering=0), open(write, "wb", buffering=0)


class ServerThread:
    """The bundled server serving in a thread, with the part of ``subprocess.Popen`` a
    ``StdioTransport`` uses: ``stdin``, ``stdout``, ``stderr`` (our ends of the pipes), ``pid``
    (``None``), ``returncode``, ``wait`` and ``poll``, and ``signal`` for a signal to its group."""

    pid = None

    def __init__(self, options: list[str], name: str) -> None:
        try:
            args = command_line.parse(options)
        except SystemExit as exc:  # argparse said what was wrong on stderr
            raise OSError(f"the test server's options {options!r} are wrong") from exc
        server_in, self.stdin = _pipe()
        self.stdout, server_out = _pipe()
        self.stderr, server_err = _pipe()
        self._ends = (server_in, server_out, server_err)
        self._code: Optional[int] = None
        self._code_lock = threading.Lock()
        self._ended = threading.Event()  # the server's output is closed: what a child's exit is to its pipes
        self._stop = threading.Event()  # a signal, or the end: cuts the start delay and the timer short
        self._server = make_server(
            args.name,
            command_line.server_options(args),
            stdin=server_in,
            stdout=server_out,
            stderr=server_err,
            on_exit=self._exit,
        )
        self._threads = [threading.Thread(target=self._serve, args=(args.start_delay,), name=f"server-{name}")]
        if args.die_after is not None:
            self._threads.append(threading.Thread(target=self._die_after, args=(args.die_after,), name=f"die-{name}"))
        for thread in self._threads:
            thread.daemon = True
            thread.start()

    @property
    def returncode(self) -> Optional[int]:
        """The exit code once the server has ended (``-signal`` when a signal ended it)."""
        return self._code if self._ended.is_set() else None

    def poll(self) -> Optional[int]:
        return self.returncode

    def wait(self, timeout: Optional[float] = None) -> int:
        """Wait for the server to end, as ``Popen.wait`` does (``subprocess.TimeoutExpired`` if it has not)."""
        if not self._ended.wait(timeout):
            raise subprocess.TimeoutExpired(f"{_MODULE} (in a thread)", timeout or 0.0)
        assert self._code is not None
        return self._code

    def signal(self, sig: int) -> None:
        """A signal to the server's group: SIGTERM and SIGKILL end it, as they end the process that
        does not catch them; any other is ignored."""
        if sig in (signal.SIGTERM, signal.SIGKILL):
            self._server.exit(-sig)

    def _serve(self, start_delay: float) -> None:
        server_in = self._ends[0]
        try:
            if not self._stop.wait(start_delay):
                self._server.serve()
        except (OSError, ValueError):  # its output was closed under it: it ended
            pass
        finally:
            self._exit(0)
            server_in.close()

    def _die_after(self, seconds: float) -> None:
        if not self._stop.wait(seconds):
            try:
                self._server.stderr.write(b"dying on schedule\n")
            except ValueError:  # it ended meanwhile
                return
            self._server.exit(3)

    def _exit(self, code: int) -> None:
        """The server ends with ``code`` (the first code said counts): its output closes, as a process's
        pipes do when it exits."""
        with self._code_lock:
            if self._code is not None:
                return
            self._code = code
        self._stop.set()
        for end in self._ends[1:]:
            end.close()
        self._ended.set()


class ThreadedServerTransport(StdioTransport):
    """A ``StdioTransport`` whose server is the bundled one in a ``ServerThread`` (its config must be
    ``threadable``; ``ConnectError`` when it is not)."""

    def _spawn(self, argv: list[str], env: dict[str, str], cwd: Optional[str]) -> Any:
        options = threadable(self.config)
        if options is None:
            raise OSError(f"{argv!r} needs a process of its own: it is not the bundled server, or asks for a process")
        return ServerThread(options, self.name)

    def _signal_group(self, sig: int) -> None:
        process = self._process
        assert isinstance(process, ServerThread)
        process.signal(sig)
