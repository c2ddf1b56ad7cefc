"""The stdio transport: the server is our child process; one JSON message per line.

Threads (named ``mcpsync-<role>-<server>``): a reader for the child's stdout
and one for its stderr. The stderr thread reads all the time, so a server that
floods stderr never blocks on a full pipe; each line goes into a bounded tail
that is attached to ``TransportClosed`` when the server dies, and, by the
``stderr`` mode: to our ``sys.stderr`` with the server's name in front
(``"inherit"``, the default, as other MCP clients pass it through: a server that
explains why it fails is heard), to the logger ``mcpsync.server.<name>`` at INFO
(``"log"``), or nowhere else (``"quiet"``). ``sys.stderr`` is looked up for
each line, so a notebook shows it under the running cell and pytest captures it
with the running test. In ``"inherit"`` mode a ``sys.stderr`` of ours that
blocks (a pipe nobody reads) blocks the server's stderr too, just as it would if
the server wrote there itself (what the official SDK's clients do); ``"log"``
and ``"quiet"`` never wait on anything but the handlers of that logger.

The child's environment: by default only the variables a program needs to run
(``DEFAULT_INHERITED_ENV_VARS``) plus the configured ``env``, so secrets in our
environment do not leak to every server; ``inherit_env=True`` passes ours whole.

Shutdown, per the MCP spec: close the child's stdin, wait, SIGTERM to its
process group, wait, signal.SIGKILL; every wait is bounded and the child is reaped.
The server runs in a process group of its own, so whatever it started itself
(``npx`` and ``uvx`` start the real server as a grandchild) is signalled too,
even when the server itself exits cleanly.
"""

from __future__ import annotations

import collections
import logging
import os
import select
import shlex
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from typing import IO, Any, Optional, Union

from .._core.endpoint import ID_SCAN_BYTES
from .._core.errors import ConfigurationError, ConnectError, MCPError, NotSupportedError, TransportClosed, WriteTimeout
from .._core.jsonrpc import Data
from .._core.text import cut, for_terminal
from .._core.timeouts import USE_DEFAULT, Timeout
from .._threads.signals import POLL, acquire_deferred, interrupted
from .._threads.workers import Workers
from .base import CLOSE_NOTICE_BUDGET, NOTICE_TIMEOUT, READER_WRITE_TIMEOUT, Transport
from .config import STDERR_MODES, StdioServerConfig

__all__ = ["DEFAULT_INHERITED_ENV_VARS", "StdioTransport", "default_environment"]

logger = logging.getLogger("mcpsync.transport")

#: What a server gets of our environment by default: what a program needs to run, no secrets.
DEFAULT_INHERITED_ENV_VARS = (
    "HOME",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "LOGNAME",
    "PATH",
    "SHELL",
    "TERM",
    "TMPDIR",
    "TZ",
    "USER",
)

#: Lines of the server's stderr kept for error messages.
STDERR_TAIL_LINES = 20
#: Bytes asked of a pipe at a time; a stderr line longer than this is logged in pieces of it.
READ_SIZE = 64 * 1024
#: Seconds close() waits for the readers after the server is gone, before it stops them itself.
READER_JOIN = 1.0
#: Seconds a server gets after SIGTERM when close()'s deadline has passed already, before SIGKILL.
SIGTERM_MOMENT = 0.1
#: How long the reader waits for the exit code and last stderr lines after stdout closes.
EXIT_GRACE = 0.5


def default_environment() -> dict[str, str]:
    """The part of our environment a server gets by default."""
    env = {}
    for key in DEFAULT_INHERITED_ENV_VARS:
        value = os.environ.get(key)
        # A value starting with "()" is an exported shell function: never pass those on.
        if value is not None and not value.startswith("()"):
            env[key] = value
    return env


def process_groups_supported() -> bool:
    """Whether this platform runs a server command as mcpsync does: in a POSIX process group of its
    own (``os.killpg`` for shutdown), over non-blocking pipes. Not yet on Windows."""
    return os.name == "posix" and hasattr(os, "killpg")


def _unsupported(name: str) -> NotSupportedError:
    platform = "Windows" if sys.platform == "win32" else sys.platform
    return NotSupportedError(
        f"cannot start server {name!r}: running a server command on {platform} is not supported yet "
        "(mcpsync needs POSIX process groups and pipes); connect to the server's URL over HTTP instead"
    )


class StdioTransport(Transport):
    """Talk to a server we start as a child process, over its stdin and stdout.

    Args:
        command: the program (looked up on ``PATH``).
        args: its arguments.
        env: variables added to the child's environment.
        cwd: the child's working directory.
        inherit_env: give the child our whole environment, not the safe default.
        stderr: what the child's stderr does: ``"inherit"`` (the default: each line on our
            ``sys.stderr`` as ``[name] line``), ``"log"`` (the logger ``mcpsync.server.<name>``
            at INFO) or ``"quiet"``; its last lines are kept for errors whatever the mode.
        name: the server's name (default: the program's base name).
        timeout: default request timeout in seconds (``None``: no limit; ``USE_DEFAULT``: 30 s).
        exit_timeout: seconds to wait for the child to exit after its stdin is closed.
        terminate_timeout: seconds to wait after SIGTERM before SIGKILL.
        **options: ``write_timeout``, ``max_message_size`` (see ``Transport``; here it
            bounds one line of the server's stdout).
    """

    def __init__(
        self,
        command: str,
        args: Sequence[str] = (),
        *,
        env: Optional[Mapping[str, str]] = None,
        cwd: Optional[str] = None,
        inherit_env: bool = False,
        stderr: str = "inherit",
        name: Optional[str] = None,
        timeout: Timeout = USE_DEFAULT,
        exit_timeout: float = 2.0,
        terminate_timeout: float = 2.0,
        **options: Any,
    ) -> None:
        config = StdioServerConfig(
            command=command,
            args=args,
            env=env,
            cwd=cwd,
            timeout=timeout,
            name=name,
            inherit_env=inherit_env,
            stderr=stderr,
        )
        super().__init__(name=config.display_name, timeout=timeout, **options)
        self.config = config
        self._stderr_mode = config.stderr
        self.exit_timeout = exit_timeout
        self.terminate_timeout = terminate_timeout
        self._process: Optional[subprocess.Popen[bytes]] = None
        self._write_lock = threading.Lock()
        self._notices = Workers(f"mcpsync-notice-{self.name}", 1)
        self._stdin_fd: Optional[int] = None
        self._stderr_tail: collections.deque[str] = collections.deque(maxlen=STDERR_TAIL_LINES)
        self._reader: Optional[threading.Thread] = None
        self._reader_ident: Optional[int] = None  # set by the reader itself, first thing
        self._stderr_reader: Optional[threading.Thread] = None
        # Set when close() runs on the reader thread itself: the reader closes stdout on its way out.
        self._reader_closes_stdout = False
        # close() writes to this pipe to stop readers whose pipes somebody else still holds open.
        self._wake_read: Optional[int] = None
        self._wake_write: Optional[int] = None

    @classmethod
    def from_config(cls, config: StdioServerConfig, **kwargs: Any) -> StdioTransport:
        """Build from a ``StdioServerConfig``; ``kwargs`` as for the constructor."""
        return cls(
            config.command,
            config.args,
            env=config.env,
            cwd=config.cwd,
            inherit_env=config.inherit_env,
            stderr=config.stderr,
            name=config.name,
            timeout=config.timeout,
            **kwargs,
        )

    kind = "stdio"
    _units = ("line", "wrote", " to stdout")

    @property
    def address(self) -> str:
        """The server's command line."""
        return shlex.join([self.config.command, *self.config.args])

    def __repr__(self) -> str:
        command = shlex.join([os.path.basename(self.config.command), *self.config.args])  # no long paths
        return f"<{type(self).__name__} {self.name!r} {cut(command, 60)} {self.state.value}>"

    @property
    def pid(self) -> Optional[int]:
        """The child's process id, once started."""
        return self._process.pid if self._process is not None else None

    @property
    def returncode(self) -> Optional[int]:
        """The child's exit code, once it has exited and been reaped."""
        return self._process.returncode if self._process is not None else None

    @property
    def stderr_mode(self) -> str:
        """What the server's stderr lines do: ``"inherit"``, ``"log"`` or ``"quiet"`` (may be changed)."""
        return self._stderr_mode

    @stderr_mode.setter
    def stderr_mode(self, mode: str) -> None:
        if mode not in STDERR_MODES:
            raise ConfigurationError(f"server {self.name!r}: stderr must be one of {STDERR_MODES}, not {mode!r}")
        self._stderr_mode = mode

    @property
    def stderr_tail(self) -> tuple[str, ...]:
        """The last lines the server wrote to stderr."""
        return tuple(self._stderr_tail)

    # -- opening ------------------------------------------------------------

    def _open(self) -> None:
        if not process_groups_supported():
            raise _unsupported(self.name)  # at once, in words, not an AttributeError at close
        config = self.config
        env = dict(os.environ) if config.inherit_env else default_environment()
        env.update(config.env or {})
        try:
            self._process = self._spawn([config.command, *config.args], env, config.cwd)
        except OSError as exc:
            raise ConnectError(
                f"cannot start server {self.name!r} ({config.command!r}): {exc.strerror or exc}"
            ) from exc
        assert self._process.stdin is not None
        self._stdin_fd = self._process.stdin.fileno()
        os.set_blocking(self._stdin_fd, False)  # writes wait for room with select() and a deadline, bounded
        self._wake_read, self._wake_write = os.pipe()
        self._reader = threading.Thread(target=self._read_stdout, name=f"mcpsync-reader-{self.name}", daemon=True)
        self._stderr_reader = threading.Thread(
            target=self._read_stderr, name=f"mcpsync-stderr-{self.name}", daemon=True
        )
        self._stderr_reader.start()
        self._reader.start()

    def _spawn(self, argv: list[str], env: dict[str, str], cwd: Optional[str]) -> subprocess.Popen[bytes]:
        """Start the server: a child in a process group of its own, so shutdown reaches its children too.
        (``mcpsync.testing.threaded`` serves the bundled test server from a thread in its place.)"""
        return subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=cwd,
            start_new_session=True,
        )

    # -- the wire -----------------------------------------------------------

    def _write(self, data: Data, timeout: float) -> None:
        # One frame from the lock to the pipe: every request passes here (a free lock, a pipe with room).
        if threading.get_ident() == self._reader_ident:
            timeout = min(timeout, READER_WRITE_TIMEOUT)  # a reader blocked on a write reads no responses
        lock = self._write_lock
        if not lock.acquire(False) and not acquire_deferred(lock.acquire, timeout):
            if interrupted():
                raise WriteTimeout(f"{self.name}: nothing was written: interrupted")
            # Nothing was sent: other callers' writes held the pipe all that time (a slow or deaf server).
            raise WriteTimeout(
                f"{self.name}: could not start writing within {timeout:g}s: other writes held the server's input"
            )
        try:
            fd = self._stdin_fd
            if fd is None:
                raise self.closed_error()
            total = len(data)
            try:
                written = os.write(fd, data)  # a pipe with room takes it whole: the usual case
            except BlockingIOError:
                written = 0
            except OSError as exc:  # broken pipe: the server is gone
                raise self._gone(f"cannot write to the server: {exc.strerror or exc}") from exc
            deadline: Optional[float] = None
            while written < total:  # the pipe is full: the server is not reading; wait for room, bounded
                if deadline is None:
                    deadline = time.monotonic() + timeout
                remaining = deadline - time.monotonic()
                if remaining <= 0 or interrupted():
                    if not written:
                        raise self._write_timeout_error(timeout)
                    raise self._broken_mid_message(written, total, timeout)
                select.select([], [fd], [], min(remaining, POLL))  # in slices, so that a deferred Ctrl-C is seen
                try:
                    written += os.write(fd, memoryview(data)[written:])
                except BlockingIOError:
                    pass
                except OSError as exc:
                    raise self._gone(f"cannot write to the server: {exc.strerror or exc}") from exc
            self.endpoint.stats.sent += 1
        finally:
            lock.release()

    def _send_notice(self, data: Data) -> None:
        """A cancellation: written at once when the pipe is free (a short message goes in whole or not at all), else
        handed to a thread of its own that writes it within ``NOTICE_TIMEOUT``; the caller never waits.
        ``stats.cancelled`` counts it once it is written."""
        if self._write_lock.acquire(blocking=False):
            try:
                fd = self._stdin_fd
                if fd is None:
                    return
                written = os.write(fd, data)
            except BlockingIOError:
                written = 0  # the pipe is full: the background thread waits for room
            except OSError as exc:
                logger.debug("server %r: a notice was not sent: %s", self.name, exc)
                return
            finally:
                self._write_lock.release()
            if written == len(data):
                self.stats.sent += 1
                self.stats.cancelled += 1
                return
            if written:  # cannot happen for a message under the pipe's atomic size; keep framing sound anyway
                self._later(data[written:], count=False)
                return
        self._later(data)

    def _later(self, data: Data, count: bool = True) -> None:
        def write() -> None:
            try:
                self._write(data, NOTICE_TIMEOUT)
            except MCPError as exc:
                logger.debug("server %r: a notice was not sent: %s", self.name, exc)
            else:
                if count:
                    self.stats.cancelled += 1

        try:
            self._notices.submit(write)
        except MCPError:
            pass  # closing: the notice no longer matters

    def _write_timeout_error(self, timeout: float) -> WriteTimeout:
        return WriteTimeout(f"{self.name}: could not write within {timeout:g}s: the server is not reading its input")

    def _broken_mid_message(self, written: int, total: int, timeout: float) -> TransportClosed:
        """Half a message is on the wire: nothing later could be framed right. Hang up."""
        error = self._closed_error(
            f"the server stopped reading its input in the middle of a message "
            f"({written} of {total} bytes taken in {timeout:g}s)"
        )
        self._close_stdin_locked()
        self._connection_lost(error)
        return error.copy()

    def _close_stdin_locked(self) -> None:  # the caller holds the write lock
        process = self._process
        self._stdin_fd = None
        if process is not None and process.stdin is not None and not process.stdin.closed:
            try:
                process.stdin.close()
            except OSError:
                pass

    def _chunks(self, stream: IO[bytes]) -> Iterator[bytes]:
        """What the child writes on ``stream``, as it comes; ends at end-of-file, or when ``close()`` says so."""
        fd, wake = stream.fileno(), self._wake_read
        assert wake is not None
        poller = select.poll()  # made once: select() would build its sets on every read
        for watched in (fd, wake):
            poller.register(watched, select.POLLIN)
        usual = [(fd, select.POLLIN)]  # what poll() says when the server wrote, and nothing else happened
        while True:
            ready = poller.poll()
            if ready != usual and (len(ready) > 1 or ready[0][0] == wake):
                return
            chunk = os.read(fd, READ_SIZE)
            if not chunk:
                return
            yield chunk

    def _read_stdout(self) -> None:
        self._reader_ident = threading.get_ident()
        process = self._process
        assert process is not None and process.stdout is not None
        stdout = process.stdout
        try:
            self._read_lines(self._chunks(stdout))
        except (OSError, ValueError) as exc:
            logger.debug("server %r: stdout read ended: %s", self.name, exc)
        finally:
            if not self._is_lost():
                self._connection_lost(self._describe_exit())
            if self._reader_closes_stdout:  # close() ran on this thread, and left these to it
                stdout.close()
                self._close_wake_pipe()
            self._reader_ident = None  # a thread started later may get this id

    def _read_lines(self, chunks: Iterator[bytes]) -> None:
        """Feed each line to the endpoint; a line over ``max_message_size`` is dropped as it streams by.

        The request an oversized line answers fails as soon as its start shows which (else once its
        end does); later lines are read as usual. A chunk is split in one go (C speed); only a line that
        spans chunks is put together, in one buffer that grows in place (no list of parts and a joined
        copy held at once), read as text whose bytes are let go before its JSON is (``_take_spanning``).
        A line within one chunk goes from here straight to ``_feed`` (as ``_take_line`` would take it): every
        answer passes here.
        """
        limit = self.max_message_size
        feed = self._feed
        pending = bytearray()  # the line so far, when it spans chunks
        discarding: Optional[list[Any]] = None  # [head, size, tail, failed] while an oversized line goes by
        for chunk in chunks:
            lines = chunk.split(b"\n")
            rest = lines.pop()  # after the last line end: the start of the next line (often empty)
            if lines:
                first = lines[0]
                if discarding is not None:
                    head, size, tail, failed = discarding
                    size += len(first)
                    tail = (tail + first)[-ID_SCAN_BYTES:]
                    self._oversized(head, tail=tail, size=size, complete=True, failed=failed)
                    discarding = None
                    lines[0] = b""
                elif pending:
                    pending += first
                    lines[0] = b""
                    if limit is not None and len(pending) > limit:
                        head = bytes(pending[:ID_SCAN_BYTES])
                        failed = self._oversized(head)
                        tail = bytes(pending[-ID_SCAN_BYTES:])
                        self._oversized(head, tail=tail, size=len(pending), complete=True, failed=failed)
                    else:
                        self._take_spanning(pending)
                    pending = bytearray()
                for line in lines:
                    if limit is not None and len(line) > limit:
                        head = line[:ID_SCAN_BYTES]
                        failed = self._oversized(head)
                        self._oversized(head, tail=line[-ID_SCAN_BYTES:], size=len(line), complete=True, failed=failed)
                    elif line and not line.isspace():  # blank lines are no messages
                        try:
                            feed(line)
                        except Exception:  # never let one message end the reader
                            logger.exception("server %r: failed to handle a message", self.name)
            if not rest:
                continue
            if discarding is not None:
                discarding[1] += len(rest)
                discarding[2] = (discarding[2] + rest)[-ID_SCAN_BYTES:]
                continue
            pending += rest
            if limit is not None and len(pending) > limit:  # no line end in sight: drop it as it comes
                head = bytes(pending[:ID_SCAN_BYTES])
                discarding = [head, len(pending), bytes(pending[-ID_SCAN_BYTES:]), self._oversized(head)]
                pending = bytearray()

    def _take_spanning(self, buffer: bytearray) -> None:
        """A line that came in several chunks: its text is made, then its bytes are let go (the buffer emptied) before
        the JSON is read, so that a message is held twice at most, never three times."""
        if buffer.endswith(b"\r"):
            del buffer[-1:]
        line: Union[bytes, str]
        try:
            line = buffer.decode("utf-8")
        except UnicodeDecodeError:
            line = bytes(buffer)  # not UTF-8: the endpoint says so, as of any other line
        buffer.clear()
        self._take_line(line)

    def _take_line(self, line: Union[bytes, str]) -> None:
        if line and not line.isspace():  # blank lines are no messages (a test that copies nothing)
            try:
                self._feed(line)
            except Exception:  # never let one message end the reader
                logger.exception("server %r: failed to handle a message", self.name)

    def _read_stderr(self) -> None:
        process = self._process
        assert process is not None and process.stderr is not None
        server_logger = self.server_logger
        partial = b""
        try:
            for chunk in self._chunks(process.stderr):
                lines = (partial + chunk).split(b"\n")
                partial = lines.pop()
                if len(partial) > READ_SIZE:  # an endless line costs no memory: it is logged in pieces
                    lines.append(partial)
                    partial = b""
                for piece in lines:
                    self._stderr_line(piece.decode("utf-8", "replace").rstrip("\r"), server_logger)
            if partial:
                self._stderr_line(partial.decode("utf-8", "replace").rstrip("\r"), server_logger)
        except (OSError, ValueError) as exc:
            logger.debug("server %r: stderr read ended: %s", self.name, exc)

    def _stderr_line(self, line: str, server_logger: logging.Logger) -> None:
        """One line of the server's stderr: where the mode sends it, then (so, passed on) into the tail."""
        mode = self._stderr_mode
        stream = sys.stderr  # now: a notebook's cell, a test's capture, a redirect made meanwhile
        if mode == "inherit" and stream is not None:  # None: pythonw, a daemon: nowhere to write
            try:
                stream.write(f"[{self.name}] {for_terminal(line)}\n")  # a server's escape sequences shown
                stream.flush()
            except (OSError, ValueError):  # closed or broken: the line stays in the tail
                pass
        elif mode == "log" and server_logger.isEnabledFor(logging.INFO):
            server_logger.info("%s", line)
        self._stderr_tail.append(line)

    def _gone(self, detail: str) -> TransportClosed:
        """The error for a server found gone while writing: what its reader learns (the exit code, its
        last stderr lines), if it learns it soon; a broken pipe alone says too little."""
        if self._lost.wait(EXIT_GRACE * 3) and self._lost_error is not None:
            return self._lost_error.copy()
        return self._closed_error(detail)

    def _closed_error(self, detail: str) -> TransportClosed:
        return TransportClosed(f"{self.name}: {detail}", exit_code=self.returncode, stderr_tail=self.stderr_tail)

    def _describe_exit(self) -> TransportClosed:
        """Build the error for a server that went away: exit code and last stderr lines."""
        process = self._process
        assert process is not None
        try:
            process.wait(EXIT_GRACE)
        except subprocess.TimeoutExpired:
            return self._closed_error("the server closed its stdout but is still running")
        if self._stderr_reader is not None:
            # Its last words may still be in the pipe.
            self._stderr_reader.join(EXIT_GRACE)
        code = process.returncode
        if code < 0:  # POSIX: killed by a signal
            try:
                name = f" ({signal.Signals(-code).name})"
            except ValueError:
                name = ""
            return self._closed_error(f"the server process was killed by signal {-code}{name}")
        return self._closed_error(f"the server process exited with code {code}")

    # -- closing ------------------------------------------------------------

    def _signal_group(self, sig: int) -> None:
        process = self._process
        assert process is not None
        try:
            os.killpg(process.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass

    def _threads(self) -> tuple[Optional[threading.Thread], ...]:
        return (self._reader, self._stderr_reader, *self._notices.threads)

    def _shutdown(self) -> None:
        process = self._process
        self._notices.close(CLOSE_NOTICE_BUDGET, drain=True)  # the cancellations still on their way go first
        if process is None:
            return
        # Writes are bounded, so the lock comes free; should it not, go straight to signals.
        if self._write_lock.acquire(timeout=self.exit_timeout):
            try:
                self._close_stdin_locked()
            finally:
                self._write_lock.release()
        try:
            process.wait(self._polite_wait(self.exit_timeout))
            # The server is gone; children it left in its process group go too.
            self._signal_group(signal.SIGTERM)
        except subprocess.TimeoutExpired:
            logger.info("server %r: did not exit after stdin closed; sending SIGTERM", self.name)
            self._signal_group(signal.SIGTERM)
            try:
                # A moment for SIGTERM even past the deadline: a server that exits on it at once is spared SIGKILL.
                process.wait(self._polite_wait(self.terminate_timeout, floor=SIGTERM_MOMENT))
            except subprocess.TimeoutExpired:
                logger.warning("server %r: ignored SIGTERM; sending signal.SIGKILL", self.name)
                self._signal_group(signal.SIGKILL)
                try:
                    process.wait(self.terminate_timeout)
                except subprocess.TimeoutExpired:
                    logger.error("server %r: process %d survived signal.SIGKILL", self.name, process.pid)
        self._join_readers(process)
        if self._write_lock.acquire(timeout=self.terminate_timeout):
            try:
                self._close_stdin_locked()
            finally:
                self._write_lock.release()

    def _join_readers(self, process: subprocess.Popen[bytes]) -> None:
        """Join the reader threads and close their pipes, whoever still holds the other ends.

        The readers end at end-of-file, which needs every process holding the
        pipes to be gone: a child of the server that ignored SIGTERM gets
        SIGKILL; one that left the server's process group (``setsid``) cannot
        be reached, so the readers are told to stop through the wake-up pipe.
        """
        current = threading.current_thread()
        pairs = [
            (t, stream)
            for t, stream in ((self._reader, process.stdout), (self._stderr_reader, process.stderr))
            if t is not None and stream is not None
        ]

        def join_all(timeout: float) -> bool:
            deadline = time.monotonic() + timeout
            for thread, _ in pairs:
                if thread is not current:
                    thread.join(max(0.0, deadline - time.monotonic()))
            return not any(t.is_alive() and t is not current for t, _ in pairs)

        if not join_all(READER_JOIN):
            logger.warning("server %r: its children still hold its pipes; sending SIGKILL", self.name)
            self._signal_group(signal.SIGKILL)
            if not join_all(READER_JOIN):
                logger.warning(
                    "server %r: a process outside its group holds its pipes; stopping the readers", self.name
                )
                if self._wake_write is not None:
                    os.write(self._wake_write, b"x")
                join_all(READER_JOIN)
        for thread, stream in pairs:
            if thread is current:
                self._reader_closes_stdout = True
            elif thread.is_alive():
                # Closing a stream another thread is reading would block on its lock.
                logger.error("server %r: thread %s did not stop; leaving it", self.name, thread.name)
            else:
                stream.close()
        if not any(t.is_alive() for t, _ in pairs):
            self._close_wake_pipe()

    def _close_wake_pipe(self) -> None:
        for fd in (self._wake_read, self._wake_write):
            if fd is not None:
                os.close(fd)
        self._wake_read = self._wake_write = None
