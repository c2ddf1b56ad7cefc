"""The person's part of a login: show the authorization URL, and get back the URL the browser was sent to.

- ``LoopbackReceiver``: a one-shot HTTP server on ``127.0.0.1`` (never
  another address) that takes one callback carrying the expected ``state``,
  answers it with a short page, and shuts down. Callbacks with another state
  are refused and do not end the wait. Connections are served at once, each
  bounded as a whole; ``close`` is bounded.
- ``present``: in a notebook, a clickable link and a box (``input()``) to paste
  the address the browser ended on (for a kernel that runs elsewhere); on a terminal, the
  browser opens (and the link is printed too); with no browser to open (an
  SSH session, no display), the link is printed, and the redirect or a pasted
  address, whichever comes first, ends the wait.
- ``someone_is_there``: whether a login may wait for a person at all (a
  terminal on both stdin and stderr, or an IPython kernel). Under cron, CI
  or a pipe it is false, and mcpsync never waits for a human.

Every wait here is bounded (``login_timeout``) and ends at once on Ctrl-C.
"""

from __future__ import annotations

import html
import logging
import os
import select
import socket
import sys
import threading
import time
import webbrowser
from typing import Optional
from urllib.parse import parse_qs, urlsplit

from .._core.errors import AuthorizationRequired

__all__ = ["CALLBACK_PATH", "LoopbackReceiver", "in_notebook", "present", "someone_is_there"]

logger = logging.getLogger("mcpsync.auth")

CALLBACK_PATH = "/callback"
#: Seconds a connection to the receiver may take to send its whole request (and to take the answer).
REQUEST_TIMEOUT = 5.0
#: Seconds ``LoopbackReceiver.close`` takes at most.
CLOSE_TIMEOUT = 2.0
#: Connections served at once; more are closed at once (a browser opens a few).
MAX_CONNECTIONS = 32
#: Bytes of a request's head read at most.
MAX_REQUEST_HEAD = 16 * 1024
_REASONS = {200: "OK", 400: "Bad Request", 404: "Not Found"}

_DONE_PAGE = (
    "<!doctype html><meta charset=utf-8><title>mcpsync</title><p>{message}</p><p>You can close this window.</p>"
)


def in_notebook() -> bool:
    """Whether this runs in an IPython kernel (a notebook), where a link is shown rather than a browser opened."""
    shell = sys.modules.get("IPython")
    if shell is None:
        return False
    try:
        ip = shell.get_ipython()
    except Exception:
        return False
    return ip is not None and "IPKernelApp" in getattr(ip, "config", {})


def someone_is_there() -> bool:
    """Whether a person can answer: an IPython kernel, or a terminal on stdin and stderr."""
    if os.environ.get("MCPSYNC_NO_LOGIN") == "1":
        return False
    if in_notebook():
        return True
    try:
        return sys.stdin is not None and sys.stdin.isatty() and sys.stderr is not None and sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def _browser_available() -> bool:
    if os.environ.get("SSH_CONNECTION") or os.environ.get("SSH_TTY"):
        return False
    if sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        return False
    return True


class LoopbackReceiver:
    """Waits on ``127.0.0.1`` for the one redirect that carries ``state`` (use it with ``with``).

    Each connection is served on a thread of its own, and must send its whole
    request within ``REQUEST_TIMEOUT`` seconds: a local process that connects
    and trickles (or a browser's idle preconnect) never holds the real
    redirect back. ``close`` shuts every open connection down and returns
    within ``CLOSE_TIMEOUT`` seconds whatever they do. A pasted address
    (``offer``) ends the wait as the redirect does.
    """

    def __init__(self, state: str, port: int = 0, path: str = CALLBACK_PATH) -> None:
        self.state = state
        self.path = path
        self._url: Optional[str] = None
        self._taken = False  # the redirect or a paste is in (``_arrived`` is set once it is answered)
        #: Whether what ended the wait was pasted (``offer``), not the browser's redirect.
        self.offered = False
        self._arrived = threading.Event()
        self._closed = threading.Event()
        self._lock = threading.Lock()
        self._connections: dict[socket.socket, threading.Thread] = {}
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            listener.bind(("127.0.0.1", port))
            listener.listen(16)
        except OSError:
            listener.close()
            raise
        self._listener = listener
        self.address: tuple[str, int] = listener.getsockname()
        self.port = self.address[1]
        self._thread = threading.Thread(target=self._accept, name="mcpsync-login-receiver", daemon=True)
        self._thread.start()

    @property
    def redirect_uri(self) -> str:
        return f"http://127.0.0.1:{self.port}{self.path}"

    def __enter__(self) -> LoopbackReceiver:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _accept(self) -> None:
        while not self._closed.is_set():
            try:
                if not select.select([self._listener], [], [], 0.1)[0]:
                    continue
                connection, _ = self._listener.accept()
            except (OSError, ValueError):  # closed meanwhile
                return
            with self._lock:
                if self._closed.is_set() or len(self._connections) >= MAX_CONNECTIONS:
                    connection.close()  # more at once than a browser opens: someone else's
                    continue
                thread = threading.Thread(
                    target=self._serve, args=(connection,), name="mcpsync-login-callback", daemon=True
                )
                self._connections[connection] = thread
            thread.start()

    def _serve(self, connection: socket.socket) -> None:
        status = 0
        try:
            target = _request_target(connection, time.monotonic() + REQUEST_TIMEOUT)
            if target is not None:
                status, message = self._take(target)
                body = _DONE_PAGE.format(message=html.escape(message)).encode()
                head = (
                    f"HTTP/1.1 {status} {_REASONS[status]}\r\nContent-Type: text/html; charset=utf-8\r\n"
                    f"Content-Length: {len(body)}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n"
                )
                connection.settimeout(REQUEST_TIMEOUT)
                connection.sendall(head.encode() + body)
        except OSError:
            pass
        finally:
            with self._lock:
                self._connections.pop(connection, None)
            connection.close()
            if status == 200:
                self._arrived.set()  # after the answer: the wait's end closes the receiver

    def _take(self, target: str) -> tuple[int, str]:
        """The answer to a request for ``target``; the callback with our ``state`` ends the wait."""
        parts = urlsplit(target)
        if parts.path != self.path:
            return 404, "Not the login callback."
        state = parse_qs(parts.query).get("state", [None])[0]
        with self._lock:
            if self._taken or state != self.state:
                return 400, "This is not the login mcpsync is waiting for."
            self._url = f"{self.redirect_uri}?{parts.query}"
            self._taken = True
        query = parse_qs(parts.query)
        if "error" in query:  # the person declined, or the server refused: the page must not say it worked
            return 200, f"The authorization server refused ({query['error'][0][:100]}); nothing was authorized."
        if not query.get("code"):
            return 200, "The redirect carries no authorization code; nothing was authorized."
        return 200, "mcpsync has the authorization."

    def offer(self, url: str) -> bool:
        """A pasted address, as good as the redirect (``code_from`` checks its state); whether it was
        the first (a redirect that came before wins)."""
        with self._lock:
            if self._taken:
                return False
            self._url, self._taken, self.offered = url, True, True
        self._arrived.set()
        return True

    @property
    def arrived(self) -> bool:
        return self._arrived.is_set()

    def wait(self, timeout: float, server: str) -> str:
        """The URL the browser was redirected to (or the address pasted); ``AuthorizationRequired``
        after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while not self._arrived.wait(min(0.2, max(0.0, deadline - time.monotonic()))):
            if time.monotonic() >= deadline:
                raise AuthorizationRequired(
                    f"{server}: no login within {timeout:g}s (login_timeout); nothing was authorized", server=server
                )
        assert self._url is not None
        return self._url

    def close(self) -> None:
        """Stop listening and shut every open connection down; returns within ``CLOSE_TIMEOUT`` seconds."""
        self._closed.set()
        self._listener.close()
        with self._lock:
            connections = dict(self._connections)
        for connection in connections:
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        deadline = time.monotonic() + CLOSE_TIMEOUT
        for thread in [self._thread, *connections.values()]:
            thread.join(max(0.0, deadline - time.monotonic()))


def _request_target(connection: socket.socket, deadline: float) -> Optional[str]:
    """The target of a ``GET`` whose head arrives whole before ``deadline``; ``None`` for anything else."""
    data = b""
    while b"\r\n\r\n" not in data and b"\n\n" not in data:
        remaining = deadline - time.monotonic()
        if remaining <= 0 or len(data) > MAX_REQUEST_HEAD:
            return None
        connection.settimeout(remaining)
        try:
            chunk = connection.recv(4096)
        except socket.timeout:
            return None
        if not chunk:
            return None
        data += chunk
    words = data.split(b"\n", 1)[0].decode("latin-1").split()
    if len(words) != 3 or words[0] != "GET" or not words[2].startswith("HTTP/"):
        return None
    return words[1]


def present(url: str, receiver: LoopbackReceiver, server: str, timeout: float) -> str:
    """Show ``url`` to the person and return the URL their browser was redirected to, or the address
    they pasted, whichever comes first (see the module docstring)."""
    if in_notebook():
        return _present_in_notebook(url, receiver, server, timeout)
    if _browser_available() and webbrowser.open(url):
        print(f"Opened a browser to log in to {server}. If it did not open, use this link:\n  {url}", file=sys.stderr)
        return receiver.wait(timeout, server)
    print(
        f"To log in to {server}, open this link in a browser:\n  {url}\n"
        "Waiting for the browser to come back here; if it cannot (it runs on another machine), paste here "
        f"the address it ends on (it starts with {receiver.redirect_uri}):",
        file=sys.stderr,
    )
    return _callback_or_line(receiver, timeout, server)


def _present_in_notebook(url: str, receiver: LoopbackReceiver, server: str, timeout: float) -> str:
    """A clickable link, and under it a box to paste the address the browser ends on: on a kernel that
    runs elsewhere (JupyterHub, a cloud notebook) the redirect can never reach its loopback port.

    The box is the front end's own ``input()`` box: it travels on the kernel's stdin channel, which
    works while the cell runs. (A widget cannot: its messages wait on the shell channel behind the
    running cell.) The redirect, when it comes first, ends the wait and the box."""
    try:
        from IPython.display import HTML, display

        link = html.escape(url, quote=True)
        page = f'<a href="{link}" target="_blank" rel="noopener">Log in to {html.escape(server)}</a>'
        display(HTML(page))  # type: ignore[no-untyped-call]
    except Exception as exc:  # the link is printed below all the same
        logger.debug("showing the login link as HTML failed: %s", exc)
    print(
        f"Log in to {server} with this link (waiting up to {timeout:g}s): {url}\n"
        "If the page the browser ends on says it cannot connect (the kernel runs elsewhere), paste its "
        f"address (it starts with {receiver.redirect_uri}) in the box below, then press Enter.",
        file=sys.stderr,
    )
    prompt = _Prompt(receiver)
    try:
        return receiver.wait(timeout, server)
    finally:
        prompt.stop()


class _Prompt:
    """``input()`` on a thread of its own (in the caller's context, where the kernel answers it), whose
    answer is offered to ``receiver``; ``stop`` ends a prompt still open (the redirect came first)."""

    def __init__(self, receiver: LoopbackReceiver) -> None:
        import contextvars

        self._receiver = receiver
        self._reading = threading.Lock()  # held while the thread is inside input()
        context = contextvars.copy_context()
        self._thread = threading.Thread(target=context.run, args=(self._read,), name="mcpsync-login-paste")
        self._thread.daemon = True
        self._thread.start()

    def _read(self) -> None:
        try:
            try:
                with self._reading:
                    text = input("> ")
            except (EOFError, OSError, RuntimeError) as exc:  # no stdin here (NotImplementedError is one)
                logger.debug("no address can be pasted: %s", exc)
                return
            if text.strip():
                self._receiver.offer(text.strip())
        except KeyboardInterrupt:  # stopped: the redirect came first
            return

    def stop(self) -> None:
        thread = self._thread
        if thread.is_alive() and thread.ident is not None and self._reading.locked():
            import ctypes

            # The kernel's input() polls its stdin socket in Python: a KeyboardInterrupt raised in that
            # thread ends the request, as Ctrl-C would.
            ctypes.pythonapi.PyThreadState_SetAsyncExc(
                ctypes.c_ulong(thread.ident), ctypes.py_object(KeyboardInterrupt)
            )
        thread.join(CLOSE_TIMEOUT)


def _callback_or_line(receiver: LoopbackReceiver, timeout: float, server: str) -> str:
    """The redirect, or a line pasted on stdin, whichever comes first within ``timeout`` seconds (the
    prompt on stderr); Ctrl-C ends the wait at once. At the end of stdin, only the redirect is waited for."""
    sys.stderr.write("> ")
    sys.stderr.flush()
    stdin = sys.stdin
    try:
        descriptor: Optional[int] = stdin.fileno() if stdin is not None else None
    except (AttributeError, OSError, ValueError):  # no real stdin: the redirect alone
        descriptor = None
    deadline = time.monotonic() + timeout
    while not receiver.arrived:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise AuthorizationRequired(
                f"{server}: neither the browser's redirect came nor an address was pasted within {timeout:g}s "
                "(login_timeout); nothing was authorized",
                server=server,
            )
        if descriptor is None:
            receiver._arrived.wait(min(0.2, remaining))
            continue
        if not select.select([descriptor], [], [], min(0.2, remaining))[0]:
            continue
        line = stdin.readline()
        if not line:
            descriptor = None  # stdin ended: the redirect may still come
        elif line.strip():
            receiver.offer(line.strip())
    if descriptor is not None and not receiver.offered:
        print("\nThe browser came back here: nothing to paste.", file=sys.stderr)
    return receiver.wait(0, server)
