"""The person's part of a login: show the authorization URL, and get back the URL the browser was sent to.

- ``LoopbackReceiver``: a one-shot HTTP server on ``127.0.0.1`` (never
  another address) that takes one callback carrying the expected ``state``,
  answers it with a short page, and shuts down. Callbacks with another state
  are refused and do not end the wait.
- ``present``: in a notebook, a clickable link; on a terminal, the browser
  opens (and the link is printed too); with no browser to open (an SSH
  session, no display), the person pastes the address the browser ended on.
- ``someone_is_there``: whether a login may wait for a person at all (a
  terminal on both stdin and stderr, or an IPython kernel). Under cron, CI
  or a pipe it is false, and mcpsync never waits for a human.

Every wait here is bounded (``login_timeout``) and ends at once on Ctrl-C.
"""

from __future__ import annotations

import html
import http.server
import logging
import os
import select
import sys
import threading
import time
import webbrowser
from typing import Any, Optional
from urllib.parse import parse_qs, urlsplit

from .._core.errors import AuthorizationRequired

__all__ = ["CALLBACK_PATH", "LoopbackReceiver", "in_notebook", "present", "someone_is_there"]

logger = logging.getLogger("mcpsync.auth")

CALLBACK_PATH = "/callback"
#: Seconds a browser's connection to the receiver may take to send its request.
REQUEST_TIMEOUT = 5.0

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
    """Waits on ``127.0.0.1`` for the one redirect that carries ``state`` (use it with ``with``)."""

    def __init__(self, state: str, port: int = 0, path: str = CALLBACK_PATH) -> None:
        self.state = state
        self.path = path
        self._url: Optional[str] = None
        self._arrived = threading.Event()
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            timeout = REQUEST_TIMEOUT

            def do_GET(self) -> None:
                receiver._handle(self)

            def log_message(self, format: str, *args: Any) -> None:  # the query holds the code: no log
                pass

        self._server = http.server.HTTPServer(("127.0.0.1", port), Handler)
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.1}, name="mcpsync-login-receiver", daemon=True
        )
        self._thread.start()

    @property
    def redirect_uri(self) -> str:
        return f"http://127.0.0.1:{self.port}{self.path}"

    def __enter__(self) -> LoopbackReceiver:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _handle(self, request: http.server.BaseHTTPRequestHandler) -> None:
        parts = urlsplit(request.path)
        if parts.path != self.path:
            self._answer(request, 404, "Not the login callback.")
            return
        state = parse_qs(parts.query).get("state", [None])[0]
        if self._arrived.is_set() or state != self.state:
            self._answer(request, 400, "This is not the login mcpsync is waiting for.")
            return
        self._url = f"{self.redirect_uri}?{parts.query}"
        self._answer(request, 200, "mcpsync has the authorization.")
        self._arrived.set()

    @staticmethod
    def _answer(request: http.server.BaseHTTPRequestHandler, status: int, message: str) -> None:
        body = _DONE_PAGE.format(message=html.escape(message)).encode()
        request.send_response(status)
        request.send_header("Content-Type", "text/html; charset=utf-8")
        request.send_header("Content-Length", str(len(body)))
        request.send_header("Cache-Control", "no-store")
        request.end_headers()
        request.wfile.write(body)

    def wait(self, timeout: float, server: str) -> str:
        """The URL the browser was redirected to; ``AuthorizationRequired`` after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while not self._arrived.wait(min(0.2, max(0.0, deadline - time.monotonic()))):
            if time.monotonic() >= deadline:
                raise AuthorizationRequired(
                    f"{server}: no login within {timeout:g}s; nothing was authorized", server=server
                )
        assert self._url is not None
        return self._url

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(2.0)


def present(url: str, receiver: LoopbackReceiver, server: str, timeout: float) -> str:
    """Show ``url`` to the person and return the URL their browser was redirected to (see the module docstring)."""
    if in_notebook():
        try:
            from IPython.display import HTML, display

            link = html.escape(url, quote=True)
            page = f'<a href="{link}" target="_blank" rel="noopener">Log in to {html.escape(server)}</a>'
            display(HTML(page))  # type: ignore[no-untyped-call]
        except Exception as exc:  # the link is printed below all the same
            logger.debug("showing the login link as HTML failed: %s", exc)
        print(f"Log in to {server} with this link (waiting up to {timeout:g}s): {url}", file=sys.stderr)
        return receiver.wait(timeout, server)
    if _browser_available() and webbrowser.open(url):
        print(f"Opened a browser to log in to {server}. If it did not open, use this link:\n  {url}", file=sys.stderr)
        return receiver.wait(timeout, server)
    print(
        f"To log in to {server}, open this link in a browser:\n  {url}\n"
        "then paste here the address the browser ends on (it starts with "
        f"{receiver.redirect_uri}):",
        file=sys.stderr,
    )
    pasted = _read_line(timeout, server).strip()
    if not pasted:
        raise AuthorizationRequired(f"{server}: no address was pasted; nothing was authorized", server=server)
    return pasted


def _read_line(timeout: float, server: str) -> str:
    """A line from stdin within ``timeout`` seconds (the prompt on stderr); Ctrl-C ends the wait at once."""
    sys.stderr.write("> ")
    sys.stderr.flush()
    stdin = sys.stdin
    deadline = time.monotonic() + timeout
    try:
        descriptor = stdin.fileno()
    except (AttributeError, OSError, ValueError):  # no real stdin (a notebook's, a test's): read it as it is
        return stdin.readline()
    while not select.select([descriptor], [], [], min(0.2, max(0.0, deadline - time.monotonic())))[0]:
        if time.monotonic() >= deadline:
            raise AuthorizationRequired(
                f"{server}: nothing was pasted within {timeout:g}s; nothing was authorized", server=server
            )
    return stdin.readline()
