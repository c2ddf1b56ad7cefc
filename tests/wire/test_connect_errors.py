"""A server that cannot be reached over HTTP: a short text that says why, and a short chain behind it.

urllib3 wraps a refused connection in four exceptions (pool, retries, connection, socket); the user
sees one line, ``cannot connect to URL: connection refused``, with the original kept as ``__cause__``.
"""

from __future__ import annotations

import contextlib
import socket
import struct
import threading
import traceback
from collections.abc import Iterator
from typing import Callable

import pytest
import requests

import mcpsync

T = 10


def printed_chain(error: BaseException) -> list[BaseException]:
    """The exceptions a traceback print shows for ``error`` (it follows causes, and contexts not suppressed)."""
    chain = [error]
    while True:
        last = chain[-1]
        following = last.__cause__ or (None if last.__suppress_context__ else last.__context__)
        if following is None or following in chain:
            return chain
        chain.append(following)


@contextlib.contextmanager
def one_connection(answer: Callable[[socket.socket], None]) -> Iterator[int]:
    """A listening socket on 127.0.0.1 whose first connection gets ``answer``; yields its port."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    listener.settimeout(T)

    def serve() -> None:
        with contextlib.suppress(OSError):
            conn, _ = listener.accept()
            with conn:
                answer(conn)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        listener.close()
        thread.join(T)


def test_connection_refused_is_one_short_line_with_the_original_as_its_cause() -> None:
    """Nobody listens on the port: ``cannot connect to URL: connection refused``, no urllib3 pool text;
    ``__cause__`` is requests' own exception, and a printed traceback shows two exceptions, not five."""
    with socket.socket() as probe:  # a port that was free a moment ago: nobody listens there
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/mcp"
    with pytest.raises(mcpsync.ConnectError) as info:
        mcpsync.connect(url, timeout=T)
    assert str(info.value) == f"cannot connect to {url}: connection refused"
    assert isinstance(info.value.__cause__, requests.exceptions.ConnectionError)
    assert len(printed_chain(info.value)) == 2
    printed = "".join(traceback.format_exception(type(info.value), info.value, info.value.__traceback__))
    assert "Max retries exceeded" in printed  # the cause's own line, once
    assert "NewConnectionError" not in printed.replace(str(info.value.__cause__), "")


def test_a_configured_name_comes_first() -> None:
    """A server with a name of its own: the name, then the URL and why."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/mcp"
    with pytest.raises(mcpsync.ConnectError) as info:
        mcpsync.connect(url, name="weather", timeout=T)
    assert str(info.value) == f"weather: cannot connect to {url}: connection refused"


def test_a_name_that_does_not_resolve_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    """The host name has no address (the resolver is stubbed: no lookup leaves the machine)."""
    real = socket.getaddrinfo

    def getaddrinfo(host, *args, **kwargs):  # type: ignore[no-untyped-def]
        if host == "mcp.example.invalid":
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    url = "http://mcp.example.invalid/mcp"
    with pytest.raises(mcpsync.ConnectError) as info:
        mcpsync.connect(url, timeout=T)
    assert str(info.value) == f"cannot connect to {url}: the host name mcp.example.invalid does not resolve"
    assert len(printed_chain(info.value)) == 2


def test_a_failed_tls_handshake_says_tls_failed() -> None:
    """An https:// URL whose server does not speak TLS: a ConnectError (nothing was sent) saying TLS failed."""

    def not_tls(conn: socket.socket) -> None:
        conn.recv(4096)
        conn.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")

    with one_connection(not_tls) as port:
        url = f"https://127.0.0.1:{port}/mcp"
        with pytest.raises(mcpsync.ConnectError) as info:
            mcpsync.connect(url, timeout=T, protocol="legacy")
    assert str(info.value).startswith(f"cannot connect to {url}: TLS failed: ")
    assert "Max retries" not in str(info.value)
    assert len(printed_chain(info.value)) == 2


def test_a_reset_says_reset_and_that_the_request_may_have_arrived() -> None:
    """The server reads the POST and resets the connection: ``connection reset by the server``, not
    urllib3's ``('Connection aborted.', ConnectionResetError(104, ...))``."""

    def reset(conn: socket.socket) -> None:
        conn.recv(65536)
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # close sends RST

    with one_connection(reset) as port:
        url = f"http://127.0.0.1:{port}/mcp"
        with pytest.raises(mcpsync.TransportError) as info:
            mcpsync.connect(url, timeout=T, protocol="legacy")
    assert not isinstance(info.value, mcpsync.ConnectError)
    assert f"the connection to {url} broke before the answer (connection reset by the server)" in str(info.value)
    assert "Connection aborted" not in str(info.value)
    assert len(printed_chain(info.value)) == 2
