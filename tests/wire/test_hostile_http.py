"""Issue 13's HTTP bounds, attacked by a hostile server on 127.0.0.1.

The server here is a raw socket server of the test's own (``Hostile``): it
speaks just enough MCP for a handshake (Streamable HTTP at ``/mcp`` with JSON
or SSE answers, HTTP+SSE at ``/sse``), and attacks the requests a test names:
headers trickled forever, redirect loops, bodies that never end, gzip bombs,
a ``retry`` of an hour, an event stream without its ``endpoint``. Every
attack gives up after ``HOLD`` seconds, far past every bound asserted here, so
a client that never gives up fails its bound rather than hanging the run.

Each test states what it attacks and what is promised. Bounds are wide
(``PROMPTLY``): they tell a hang (or reading a body to its end) from an
answer, not fast from slow.
"""

from __future__ import annotations

import concurrent.futures
import functools
import itertools
import json
import math
import queue
import re
import socket
import struct
import threading
import time
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Callable, Optional

import pytest

import mcpsync
from mcpsync import (
    HTTPStatusError,
    MCPError,
    MessageTooLarge,
    RequestTimeout,
    SSETransport,
    StreamableHTTPTransport,
    TransportError,
    call_mcp,
)
from mcpsync._wire.http.client import HTTPClient, released_after
from tests.helpers import ctrl_c_after
from tests.wire.test_stdio_faults import PROMPTLY, within

#: Seconds of calls that should succeed.
T = 20.0
#: Seconds an attack goes on at most; then its connection closes.
HOLD = 30.0
#: Bytes a body "without end" sends at most (past the default max_message_size of 64 MiB).
ENDLESS = 256 * 1024 * 1024
#: Characters of an error body an ``HTTPStatusError`` keeps (``http_client.BODY_EXCERPT``).
EXCERPT = 2048
#: What a gzip bomb expands to: an error body, an answer.
BOMB = 1024 * 1024 * 1024
ANSWER_BOMB = 256 * 1024 * 1024
#: An answer to request 2 around the text a bomb expands to: as a JSON body, as an SSE event.
JSON_ANSWER = (b'{"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text", "text": "', b'"}]}}')
SSE_ANSWER = (b'event: message\ndata: {"jsonrpc": "2.0", "id": 2, "result": {"x": "', b'"}}\n\n')

KINDS = ["http-json", "http-sse", "legacy-sse"]
JSON = "application/json"
EVENT_STREAM = "text/event-stream"


class Gone(Exception):
    """The client hung up, the server is stopping, or the attack has gone on for ``HOLD``."""


class Request:
    """One HTTP request the server read."""

    def __init__(self, server: Hostile, verb: str, target: str, headers: dict[str, str], body: bytes) -> None:
        self.server = server
        self.verb = verb
        self.target = target  # as sent: path and query
        self.path = target.split("?", 1)[0]
        self.headers = headers  # names in lower case
        self.body = body
        try:
            self.message: Any = json.loads(body) if body else None
        except ValueError:
            self.message = None

    @property
    def what(self) -> str:
        """How attacks are keyed: ``POST <method>`` (``POST answer`` for an answer), else ``<verb> <path>``."""
        if self.verb == "POST" and isinstance(self.message, dict):
            return f"POST {self.message.get('method', 'answer')}"
        return f"{self.verb} {self.path}"


class Conn:
    """The server's side of one connection: sends and waits that end with ``Gone``."""

    def __init__(self, sock: socket.socket, stop: threading.Event) -> None:
        self.sock = sock
        sock.settimeout(0.2)
        self.stop = stop
        #: Whether the connection takes another request after this one.
        self.keep = True
        #: Bytes sent on it.
        self.sent = 0
        self.until = time.monotonic() + HOLD
        self._buffer = b""

    def check(self) -> None:
        if self.stop.is_set() or time.monotonic() > self.until:
            raise Gone

    def send(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            self.check()
            try:
                sent = self.sock.send(view)
            except socket.timeout:
                continue  # the client is not reading (yet)
            except OSError:
                raise Gone from None
            self.sent += sent
            view = view[sent:]

    def sleep(self, seconds: float) -> None:
        if self.stop.wait(seconds):
            raise Gone
        self.check()

    def _recv(self) -> bytes:
        while True:
            self.check()
            try:
                data = self.sock.recv(65536)
            except socket.timeout:
                continue
            except OSError:
                raise Gone from None
            if not data:
                raise Gone
            return data

    def hold(self) -> None:
        """Say nothing until the client hangs up (or ``HOLD`` passes)."""
        self.keep = False
        while True:
            self._recv()

    def read_request(self, server: Hostile) -> Request:
        self.until = math.inf  # a connection idle in the client's pool waits for its next request
        while b"\r\n\r\n" not in self._buffer:
            if len(self._buffer) > 65536:
                raise Gone
            self._buffer += self._recv()
        head, self._buffer = self._buffer.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        verb, target, _ = lines[0].split(" ", 2)
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        length = int(headers.get("content-length", "0") or 0)
        while len(self._buffer) < length:
            self._buffer += self._recv()
        body, self._buffer = self._buffer[:length], self._buffer[length:]
        self.until = time.monotonic() + HOLD
        return Request(server, verb, target, headers, body)

    def head(self, status: int, headers: dict[str, str]) -> None:
        lines = [f"HTTP/1.1 {status} {'OK' if status < 300 else 'Hostile'}"]
        lines += [f"{name}: {value}" for name, value in headers.items()]
        self.send(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))

    def reply(
        self,
        status: int,
        body: bytes = b"",
        content_type: str = "text/plain",
        headers: Optional[dict[str, str]] = None,
    ) -> None:
        self.head(status, {"Content-Type": content_type, "Content-Length": str(len(body)), **(headers or {})})
        self.send(body)

    def close(self) -> None:
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()


#: An attack: takes the request's answer over (``True``), or leaves it to the server (``False``).
Attack = Callable[[Conn, Request], bool]


class Hostile:
    """A server on 127.0.0.1 that answers as an MCP server would, but for the requests ``attacks`` names.

    ``attacks`` maps what a request is (``Request.what``: ``"POST tools/call"``,
    ``"DELETE /mcp"``, ``"GET /sse"``) to its attack; change it at any time.
    ``answers``: Streamable HTTP answers as ``"json"`` bodies or ``"sse"`` streams.
    ``stop`` ends every connection and joins every thread.
    """

    def __init__(self, answers: str = "json", attacks: Optional[dict[str, Attack]] = None) -> None:
        self.answers = answers
        self.attacks: dict[str, Attack] = dict(attacks or {})
        #: What every request was (``Request.what``), in order.
        self.seen: list[str] = []
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._conns: list[Conn] = []
        self._threads: list[threading.Thread] = []
        self._stream: queue.Queue[bytes] = queue.Queue()  # the HTTP+SSE session's events
        self._listener = socket.socket()
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(16)
        self._listener.settimeout(0.1)
        self.url = f"http://127.0.0.1:{self._listener.getsockname()[1]}"
        self._acceptor = threading.Thread(target=self._accept, name="test-hostile-accept")
        self._acceptor.start()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                sock, _ = self._listener.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            conn = Conn(sock, self._stop)
            thread = threading.Thread(target=self._serve, args=(conn,), name="test-hostile-conn")
            with self._lock:
                self._conns.append(conn)
                self._threads.append(thread)
            thread.start()

    def _serve(self, conn: Conn) -> None:
        try:
            while conn.keep:
                request = conn.read_request(self)
                with self._lock:
                    self.seen.append(request.what)
                attack = self.attacks.get(request.what)
                if attack is None or not attack(conn, request):
                    self._answer(conn, request)
        except Gone:
            pass
        finally:
            with self._lock:
                self._conns.remove(conn)
                conn.close()

    def stop(self) -> None:
        self._stop.set()
        self._acceptor.join(T)
        with self._lock:
            for conn in self._conns:
                try:
                    conn.sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
            threads = list(self._threads)
        for thread in threads:
            thread.join(T)
        self._listener.close()
        assert not any(thread.is_alive() for thread in threads), "a connection of the hostile server did not end"

    # -- what an MCP server would answer ------------------------------------------------------------

    def result(self, message: dict[str, Any]) -> dict[str, Any]:
        method = message.get("method")
        params = message.get("params") or {}
        if method == "initialize":
            return {
                "protocolVersion": params.get("protocolVersion", mcpsync.LATEST_PROTOCOL_VERSION),
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "hostile", "version": "1"},
            }
        if method == "tools/call":
            text = (params.get("arguments") or {}).get("text", "ok")
            return {"content": [{"type": "text", "text": text}]}
        if method == "tools/list":
            return {"tools": []}
        return {}

    def answer_to(self, request: Request) -> Optional[bytes]:
        """The encoded answer to a request (``None`` for a notification or an answer)."""
        message = request.message
        if not isinstance(message, dict) or "id" not in message or "method" not in message:
            return None
        return json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": self.result(message)}).encode()

    def answer_on_stream(self, request: Request) -> None:
        """HTTP+SSE: send the answer to ``request`` on the session's event stream."""
        answer = self.answer_to(request)
        if answer is not None:
            self._stream.put(answer)

    def _answer(self, conn: Conn, request: Request) -> None:
        if request.verb == "GET" and request.path == "/sse":
            self._legacy_stream(conn)
        elif request.verb == "POST" and request.path == "/messages":
            conn.reply(202, b"Accepted")
            self.answer_on_stream(request)
        elif request.verb == "GET":
            conn.reply(405, b"no standalone stream")
        elif request.verb == "DELETE":
            conn.reply(200)
        else:
            answer = self.answer_to(request)
            headers = {"Mcp-Session-Id": "hostile-session"} if request.what == "POST initialize" else {}
            if answer is None:
                conn.reply(202, headers=headers)
            elif self.answers == "sse":
                event = b"event: message\ndata: " + answer + b"\n\n"
                conn.reply(200, event, "text/event-stream", headers)
            else:
                conn.reply(200, answer, "application/json", headers)

    def _legacy_stream(self, conn: Conn) -> None:
        conn.keep = False
        conn.until = math.inf  # the session's stream: open until the client or the server ends it
        conn.head(200, {"Content-Type": "text/event-stream", "Cache-Control": "no-cache", "Connection": "close"})
        conn.send(b"event: endpoint\ndata: /messages?session_id=1\n\n")
        quiet = 0
        while True:
            conn.check()
            try:
                answer = self._stream.get(timeout=0.1)
            except queue.Empty:
                quiet += 1
                if quiet % 10 == 0:
                    conn.send(b": keep-alive\n\n")  # how a client gone is noticed
                continue
            conn.send(b"event: message\ndata: " + answer + b"\n\n")


@contextmanager
def hostile(answers: str = "json", attacks: Optional[dict[str, Attack]] = None) -> Iterator[Hostile]:
    server = Hostile(answers, attacks)
    try:
        yield server
    finally:
        server.stop()


@contextmanager
def serving(kind: str, attacks: Optional[dict[str, Attack]] = None) -> Iterator[Hostile]:
    """A hostile server for a transport kind of ``KINDS``."""
    with hostile("sse" if kind == "http-sse" else "json", attacks) as server:
        yield server


def transport(server: Hostile, kind: str, **options: Any) -> Any:
    if kind == "legacy-sse":
        return SSETransport(f"{server.url}/sse", name="hostile", **options)
    return StreamableHTTPTransport(f"{server.url}/mcp", name="hostile", listen=False, **options)


@contextmanager
def connected(server: Hostile, kind: str, **options: Any) -> Iterator[mcpsync.Client]:
    """A client after its handshake (the legacy era: the answers above count on ``initialize`` being
    request 1, the attacks on a session); closed (within a bound) after the block."""
    client = mcpsync.Client(transport(server, kind, **options), protocol="legacy")
    try:
        client.initialize(timeout=T)
        yield client
    finally:
        with within(PROMPTLY):
            client.close()


def assert_usable(client: mcpsync.Client) -> None:
    assert client.call_tool("echo", {"text": "still here"}, timeout=T).text == "still here"


# -- attacks ------------------------------------------------------------------------------------------


def redirect_loop(delay: float = 0.0) -> Attack:
    """After ``delay`` seconds, a 307 to the very URL asked for: followed, it never ends."""

    def attack(conn: Conn, request: Request) -> bool:
        conn.sleep(delay)
        conn.reply(307, b"", headers={"Location": request.target})
        return True

    return attack


def trickle_headers(interval: float = 0.5) -> Attack:
    """A status line, then a header line every ``interval`` seconds, and never the end of the headers."""

    def attack(conn: Conn, request: Request) -> bool:
        conn.keep = False
        conn.send(b"HTTP/1.1 200 OK\r\n")
        for line in itertools.count():
            conn.sleep(interval)
            conn.send(b"X-Trickle-%d: still coming\r\n" % line)
        return True  # never reached: the attack ends with Gone

    return attack


def trickle_body(interval: float = 0.2) -> Attack:
    """The whole answer announced (Content-Length), then sent one byte every ``interval`` seconds."""

    def attack(conn: Conn, request: Request) -> bool:
        conn.keep = False
        answer = request.server.answer_to(request) or b"{}"
        answer = answer[:-1] + b', "padding": "' + b" " * 1000 + b'"}'
        conn.head(200, {"Content-Type": "application/json", "Content-Length": str(len(answer))})
        for byte in range(len(answer)):
            conn.send(answer[byte : byte + 1])
            conn.sleep(interval)
        return True

    return attack


def silent(conn: Conn, request: Request) -> bool:
    """Read the request, then say nothing at all."""
    conn.hold()
    return True


def never_answered(conn: Conn, request: Request) -> bool:
    """A request taken and never answered: no answer on Streamable HTTP, a 202 and no answer on HTTP+SSE."""
    if request.path == "/messages":
        conn.reply(202, b"Accepted")
        return True
    return silent(conn, request)


def endless(
    status: int,
    content_type: str = "text/plain",
    head: bytes = b"",
    fill: bytes = b"x",
    pace: float = 0.0,
    answer: bool = False,
) -> Attack:
    """A chunked body that does not end: ``head``, then 64 KiB of ``fill`` after 64 KiB, a block every
    ``pace`` seconds, for ``HOLD`` seconds or ``ENDLESS`` bytes. ``answer``: the HTTP+SSE answer goes on
    the event stream first, as a server that acknowledges the POST would send it."""
    block = (fill * (65536 // len(fill) + 1))[:65536]
    chunk = b"%x\r\n%s\r\n" % (len(block), block)

    def attack(conn: Conn, request: Request) -> bool:
        conn.keep = False
        if answer:
            request.server.answer_on_stream(request)
        conn.head(status, {"Content-Type": content_type, "Transfer-Encoding": "chunked"})
        if head:
            conn.send(b"%x\r\n%s\r\n" % (len(head), head))
        while conn.sent < ENDLESS:
            conn.send(chunk)
            if pace:
                conn.sleep(pace)
        conn.send(b"0\r\n\r\n")
        return True

    return attack


#: The first bytes of a gzip member: its magic, deflate, no flags or time, best compression, OS unknown.
GZIP_HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"


@functools.cache
def gzipped(head: bytes, fill: bytes, size: int, tail: bytes) -> bytes:
    """``head``, ``size`` bytes of ``fill``, ``tail``: gzip-compressed (some 1000 to 1).

    One block of ``fill`` is compressed once and its bytes repeated: each part ends with a full flush,
    which leaves the compressor as it was before the part, so every block compresses to the same bytes.
    A 1 GiB bomb takes a quarter of a second so, not the 3.5 s of compressing every block."""
    block = fill * (1024 * 1024 // len(fill))
    count = size // len(block)
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)  # raw deflate: the gzip header and trailer are ours
    first = packer.compress(head) + packer.flush(zlib.Z_FULL_FLUSH)
    middle = packer.compress(block) + packer.flush(zlib.Z_FULL_FLUSH)
    last = packer.compress(tail) + packer.flush()
    crc = zlib.crc32(head)
    for _ in range(count):
        crc = zlib.crc32(block, crc)
    crc = zlib.crc32(tail, crc)
    length = len(head) + count * len(block) + len(tail)
    return GZIP_HEADER + first + middle * count + last + struct.pack("<II", crc, length & 0xFFFFFFFF)


def gzip_bomb(
    status: int, content_type: str, head: bytes = b"", fill: bytes = b"\0", tail: bytes = b"", size: int = BOMB
) -> Attack:
    """A gzip body (about 1 MB for 1 GiB) that expands to ``head``, ``size`` bytes of ``fill`` and ``tail``,
    its compressed size announced. The body is made here, before any clock of the test starts."""
    body = gzipped(head, fill, size, tail)

    def attack(conn: Conn, request: Request) -> bool:
        conn.keep = False
        headers = {"Content-Type": content_type, "Content-Encoding": "gzip", "Content-Length": str(len(body))}
        conn.head(status, headers)
        conn.send(body)
        conn.hold()  # the client reads what it wants, then hangs up
        return True

    return attack


def retry_then_end(ms: int) -> Attack:
    """An answer stream that asks for ``retry: ms`` before resuming, then ends before the answer."""

    def attack(conn: Conn, request: Request) -> bool:
        conn.keep = False
        conn.head(200, {"Content-Type": "text/event-stream", "Connection": "close"})
        conn.send(b"retry: %d\nid: s-%d:0\ndata:\n\n" % (ms, request.message["id"]))
        return True

    return attack


def no_endpoint(conn: Conn, request: Request) -> bool:
    """An HTTP+SSE stream that opens and stays alive (a comment every 0.2 s), but never names its endpoint."""
    conn.keep = False
    conn.head(200, {"Content-Type": "text/event-stream", "Connection": "close"})
    while True:
        conn.send(b": ping\n\n")
        conn.sleep(0.2)


def only_for(text: str, attack: Attack) -> Attack:
    """``attack`` for a tools/call whose argument ``text`` is ``text``; the server answers the others."""

    def choose(conn: Conn, request: Request) -> bool:
        arguments = request.message.get("params", {}).get("arguments") or {}
        return arguments.get("text") == text and attack(conn, request)

    return choose


# -- Time: redirects -------------------------------------------------------------------------------------


@pytest.mark.slow("waits out the 2 s call timeout, 0.9 s a hop")
@pytest.mark.parametrize("kind", KINDS)
def test_a_redirect_loop_with_a_delay_per_hop_ends_the_call_at_its_timeout(kind: str) -> None:
    """Attack: every POST of the call is answered, after 0.9 s, with a 307 to itself (the unfixed
    client followed 30 hops: 29 s). Promise: the call's timeout bounds all of its hops: RequestTimeout
    at about its 2 s, and the client goes on."""
    with serving(kind) as server, connected(server, kind) as client:
        server.attacks["POST tools/call"] = redirect_loop(0.9)
        with within(PROMPTLY), pytest.raises(RequestTimeout, match=r"after 2s"):
            client.call_tool("echo", {"text": "x"}, timeout=2)
        del server.attacks["POST tools/call"]
        assert_usable(client)


@pytest.mark.parametrize("kind", KINDS)
def test_a_redirect_loop_without_delay_ends_at_the_hop_limit_with_a_clear_error(kind: str) -> None:
    """Attack: a 307 to itself, at once, for ever. Promise: a few hops, then a TransportError that says
    so (not requests' TooManyRedirects after 30); the client goes on."""
    with serving(kind) as server, connected(server, kind) as client:
        server.attacks["POST tools/call"] = redirect_loop()
        before = server.seen.count("POST tools/call")
        with within(PROMPTLY), pytest.raises(TransportError, match=r"redirected more than (\d+) times; not followed"):
            client.call_tool("echo", {"text": "x"}, timeout=T)
        del server.attacks["POST tools/call"]
        hops = server.seen.count("POST tools/call") - before - 1
        assert 1 <= hops <= 10
        assert_usable(client)


# -- Time: close() and its DELETE ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "attack",
    [
        pytest.param("trickled-headers", marks=pytest.mark.slow("close waits out the DELETE's 2 s budget")),
        pytest.param("redirect-loop-0.9s", marks=pytest.mark.slow("close waits out the DELETE's 2 s budget")),
        "redirect-loop",
    ],
)
def test_close_is_bounded_whatever_the_delete_meets(attack: str) -> None:
    """Attack: the DELETE that ends the session (on our own session, no proxy) gets headers trickled
    forever, or redirects to itself with or without a delay (the unfixed close() took 25 s and more).
    Promise: close() keeps the DELETE's budget (2 s) and returns, leaving nothing behind."""
    attacks = {
        "trickled-headers": trickle_headers(0.5),
        "redirect-loop-0.9s": redirect_loop(0.9),
        "redirect-loop": redirect_loop(),
    }
    with hostile() as server:
        client = mcpsync.Client(
            StreamableHTTPTransport(f"{server.url}/mcp", name="hostile", listen=False), protocol="legacy"
        )  # the legacy era: a session, which close() DELETEs
        try:
            client.initialize(timeout=T)
            server.attacks["DELETE /mcp"] = attacks[attack]
            with within(PROMPTLY):
                client.close()
        finally:
            client.close()
        assert "DELETE /mcp" in server.seen


# -- Time: the HTTP+SSE stream's GET ---------------------------------------------------------------------

GET_ATTACKS: dict[str, Attack] = {
    "silent": silent,
    "trickled-headers": trickle_headers(0.5),
    "no-endpoint": no_endpoint,
}


@pytest.mark.slow("waits out the 3 s connect timeout")
@pytest.mark.parametrize("attack", list(GET_ATTACKS))
def test_an_http_sse_stream_that_never_names_its_endpoint_ends_the_handshake_at_connect_timeout(attack: str) -> None:
    """Attack: the GET /sse is accepted and never answered, or its headers trickle, or the stream opens and
    keeps talking but sends no ``endpoint`` event (the unfixed client waited for the 300 s read timeout).
    Promise: the handshake ends at about connect_timeout (3 s) with a ConnectError that says what is missing."""
    with hostile(attacks={"GET /sse": GET_ATTACKS[attack]}) as server:
        client = mcpsync.Client(SSETransport(f"{server.url}/sse", name="hostile", connect_timeout=3))
        try:
            with within(PROMPTLY), pytest.raises(mcpsync.ConnectError) as info:
                client.initialize(timeout=3)
        finally:
            with within(PROMPTLY):
                client.close()
    assert re.search(r"no 'endpoint' event on .* within 3s", str(info.value)), str(info.value)


@pytest.mark.slow("waits out the 3 s handshake timeout")
def test_connect_to_an_http_sse_server_that_never_answers_is_bounded_by_its_timeout() -> None:
    """The GET /sse accepted and never answered, through ``mcpsync.connect({"type": "sse", ...}, timeout=3)``
    (the unfixed client waited for the 300 s read timeout). Promise: a typed error by the handshake's
    timeout (3 s), though the transport's connect_timeout (10 s by default) is longer."""
    with hostile(attacks={"GET /sse": silent}) as server:
        with within(PROMPTLY), pytest.raises(mcpsync.ConnectError, match=r"no 'endpoint' event on .* within 3s"):
            mcpsync.connect({"type": "sse", "url": f"{server.url}/sse"}, timeout=3)


def test_a_close_while_the_sse_stream_is_awaited_ends_the_handshake_at_once() -> None:
    """Attack: the GET /sse accepted and never answered, connect_timeout 30 s; the client is closed from
    another thread while the handshake waits for the ``endpoint`` event (the unfixed close() cut nothing:
    the handshake, and close() with it, waited out connect_timeout). Promise: both return promptly, the
    handshake with TransportClosed saying it was closed while being opened."""
    with hostile(attacks={"GET /sse": silent}) as server:
        transport = SSETransport(f"{server.url}/sse", name="hostile", connect_timeout=30)
        client = mcpsync.Client(transport)
        outcome: queue.Queue[BaseException] = queue.Queue()

        def handshake() -> None:
            try:
                client.initialize(timeout=30)
            except BaseException as exc:  # the outcome is what the test reads
                outcome.put(exc)

        opener = threading.Thread(target=handshake)
        opener.start()
        try:
            deadline = time.monotonic() + 10
            while not (transport._opening and transport._reader is not None) and time.monotonic() < deadline:
                time.sleep(0.01)
            assert transport._opening, "the handshake never began to open the transport"
            with within(PROMPTLY):
                client.close()
                opener.join(PROMPTLY)
        finally:
            opener.join(40)
        error = outcome.get(timeout=1)
        assert isinstance(error, mcpsync.TransportClosed), repr(error)
        assert "closed by the client" in str(error)


def test_an_exchange_taken_before_close_and_begun_after_it_ends_at_once() -> None:
    """Attack: the window of the race above, held open on purpose: ``HTTPClient.exchange()`` has said yes,
    then ``close()`` runs (its cut reaches only the exchanges already running), then the exchange begins
    against a server that holds every request (the unfixed exchange was sent after close() and waited out
    its read timeout, as the handshake above waited out connect_timeout). Promise: the exchange ends at
    once with TransportClosed, and nothing is sent."""
    ping = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}).encode()
    with hostile(attacks={"POST ping": silent}) as server:
        http = HTTPClient("hostile", f"{server.url}/mcp", connect_timeout=20, read_timeout=20)
        exchange = http.exchange(time.monotonic() + 20)
        http.close()
        with within(PROMPTLY), pytest.raises(mcpsync.TransportClosed, match="closed by the client"):
            with exchange:
                exchange.send("POST", f"{server.url}/mcp", {"content-type": "application/json"}, ping)
        assert "POST ping" not in server.seen


def test_an_exchange_taken_before_a_transport_stops_opening_and_begun_after_it_ends_at_once() -> None:
    """Attack: the same window when a transport stops taking exchanges without closing its client yet
    (``refuse_new`` then ``cut_all``, as HTTP+SSE's close does while its stream is being opened): the
    reader's exchange was said yes to, then refused and cut, then begun (the unfixed one ran to its read
    timeout, and the close() that joined its reader with it: the handshake test above failed so under
    load). Promise: it ends at once with TransportClosed; a closing transport's last words still go."""
    ping = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}).encode()
    with hostile(attacks={"POST ping": silent}) as server:
        http = HTTPClient("hostile", f"{server.url}/mcp", connect_timeout=20, read_timeout=20)
        try:
            exchange = http.exchange(time.monotonic() + 20)
            http.refuse_new()
            http.cut_all("the client is closing")
            with within(PROMPTLY), pytest.raises(mcpsync.TransportClosed, match="closed by the client"):
                with exchange:
                    exchange.send("POST", f"{server.url}/mcp", {"content-type": "application/json"}, ping)
            assert "POST ping" not in server.seen
            with http.exchange(time.monotonic() + 20, closing=True) as last:
                with released_after(last.send("DELETE", f"{server.url}/mcp")) as response:
                    assert response.status_code < 500
        finally:
            http.close()


# -- Time and Size: call_mcp -----------------------------------------------------------------------------


@pytest.mark.slow("waits out the 2 s call timeout")
@pytest.mark.parametrize("attack", ["trickled-headers", "trickled-body"])
def test_call_mcp_ends_at_its_timeout_whatever_the_server_trickles(attack: str) -> None:
    """Attack: headers or the JSON body one line or byte at a time, every read short (the unfixed call
    ran until the server stopped). Promise: the timeout (2 s) bounds the whole call: a TimeoutError."""
    chosen = trickle_headers(0.5) if attack == "trickled-headers" else trickle_body(0.2)
    with hostile(attacks={"POST ping": chosen}) as server:
        with within(PROMPTLY), pytest.raises(TimeoutError) as info:
            call_mcp(f"{server.url}/mcp", "ping", timeout=2)
    assert isinstance(info.value, MCPError)


@pytest.mark.parametrize("attack", ["endless-sse-line", "endless-json-body", "gzip-bomb"])
def test_call_mcp_refuses_an_answer_without_end_at_max_message_size(attack: str) -> None:
    """Attack: an SSE ``data:`` line or a JSON body that never ends, as fast as it is read (the unfixed
    call read 2.5 GB in 12 s), or a JSON answer of 0.3 MB gzip that expands to 256 MiB. Promise:
    MessageTooLarge once the default limit (64 MiB, decompressed) is passed."""
    if attack == "endless-sse-line":
        chosen = endless(200, EVENT_STREAM, head=b"data: ")
    elif attack == "endless-json-body":
        chosen = endless(200, JSON, head=b'{"jsonrpc": "2.0", "id": 1, "result": {"x": "')
    else:
        chosen = gzip_bomb(200, JSON, JSON_ANSWER[0], b"x", JSON_ANSWER[1], size=ANSWER_BOMB)
    with hostile(attacks={"POST ping": chosen}) as server:
        with within(PROMPTLY), pytest.raises(MessageTooLarge):
            call_mcp(f"{server.url}/mcp", "ping", timeout=T)


# -- Size: error bodies, and bodies nobody needs -------------------------------------------------------------

#: The attacks on an error body, made when a test asks (a bomb takes seconds to make).
ERROR_BODIES: dict[str, Callable[[], Attack]] = {
    "endless": lambda: endless(500, fill=b"error! ", pace=0.01),
    "gzip-bomb": lambda: gzip_bomb(500, "text/plain"),
}


@pytest.mark.parametrize("body", list(ERROR_BODIES))
@pytest.mark.parametrize("kind", ["http-json", "legacy-sse", "call_mcp"])
def test_an_error_body_is_read_only_as_far_as_its_excerpt(kind: str, body: str) -> None:
    """Attack: a 500 whose body never ends (chunked, ~6 MB/s), or a 1 MB gzip body that expands to 1 GiB
    (the unfixed client grew 12 MB/s, or made an error of a billion characters). Promise: HTTPStatusError
    at once, whose ``body`` is a short excerpt (2 KiB)."""
    attack = ERROR_BODIES[body]()
    with serving("http-json" if kind == "call_mcp" else kind) as server:
        if kind == "call_mcp":
            server.attacks["POST ping"] = attack
            with within(PROMPTLY), pytest.raises(HTTPStatusError) as info:
                call_mcp(f"{server.url}/mcp", "ping", timeout=T)
        else:
            with connected(server, kind) as client:
                server.attacks["POST tools/call"] = attack
                with within(PROMPTLY), pytest.raises(HTTPStatusError) as info:
                    client.call_tool("echo", {"text": "x"}, timeout=T)
                del server.attacks["POST tools/call"]
                assert_usable(client)
    error = info.value
    assert error.status_code == 500
    assert 0 < len(error.body) <= EXCERPT
    # The text names the request and quotes a short excerpt of the body, once (issue 16).
    assert str(error).startswith(f"HTTP 500 from POST {server.url}/") and len(str(error)) <= 400


@pytest.mark.parametrize("kind", ["http-json", "legacy-sse"])
def test_an_endless_body_on_the_202_to_a_notification_is_not_read(kind: str) -> None:
    """Attack: the 202 that acknowledges a notification comes with a body that never ends (~6 MB/s).
    Promise: notify() returns at once; the body is nobody's business."""
    with serving(kind) as server, connected(server, kind) as client:
        server.attacks["POST notifications/roots/list_changed"] = endless(202, pace=0.01)
        with within(PROMPTLY):
            client.notify("notifications/roots/list_changed")
        assert_usable(client)


def test_an_endless_body_on_the_202_to_an_http_sse_request_is_not_read() -> None:
    """Attack: an HTTP+SSE POST acknowledged with 202 and a body that never ends, the answer sent on the
    stream. Promise: the call returns its answer at once."""
    with serving("legacy-sse") as server, connected(server, "legacy-sse") as client:
        server.attacks["POST tools/call"] = endless(202, pace=0.01, answer=True)
        with within(PROMPTLY):
            assert client.call_tool("echo", {"text": "answered"}, timeout=T).text == "answered"


@pytest.mark.parametrize("answers", ["json", "sse"])
def test_a_compressed_answer_is_bounded_by_its_decompressed_size(answers: str) -> None:
    """Attack: the answer is a gzip body of 0.3 MB (Content-Length says so, under the limit) that expands
    to 256 MiB, a JSON body or one SSE event. Promise: MessageTooLarge against the decompressed size
    (max_message_size 1 MB), without reading it whole; the client goes on."""
    if answers == "json":
        bomb = gzip_bomb(200, JSON, JSON_ANSWER[0], b"x", JSON_ANSWER[1], size=ANSWER_BOMB)
    else:
        bomb = gzip_bomb(200, EVENT_STREAM, SSE_ANSWER[0], b"x", SSE_ANSWER[1], size=ANSWER_BOMB)
    with hostile(answers) as server, connected(server, "http-" + answers, max_message_size=1_000_000) as client:
        server.attacks["POST tools/call"] = only_for("bomb", bomb)
        with within(PROMPTLY), pytest.raises(MessageTooLarge):
            client.call_tool("echo", {"text": "bomb"}, timeout=T)
        assert client.transport.stats.oversized == 1
        assert_usable(client)


# -- Time: a huge retry ---------------------------------------------------------------------------------------


@pytest.mark.slow("waits out the 2 s timeout of the calls given up")
@pytest.mark.parametrize("how", ["call_tool", "send_request"])
def test_calls_given_up_during_a_huge_retry_leave_no_connection_waiting(how: str) -> None:
    """Attack: each call's answer stream ends before the answer, asking for ``retry: 3600000`` (an hour)
    before resuming. Ten such calls are given up: at their 2 s timeout, or with ``cancel()`` after
    ``result(2)`` (the unfixed client kept all ten worker slots, and every later call timed out).
    Promise: none of them holds a connection; a later call to the same server is answered at once."""
    with hostile("sse", {"POST tools/call": only_for("retry", retry_then_end(3_600_000))}) as server:
        with connected(server, "http-sse") as client:
            if how == "call_tool":
                outcomes: list[Any] = []

                def call() -> None:
                    try:
                        outcomes.append(client.call_tool("echo", {"text": "retry"}, timeout=2))
                    except MCPError as exc:
                        outcomes.append(exc)

                threads = [threading.Thread(target=call, name=f"test-call-{n}") for n in range(10)]
                for thread in threads:
                    thread.start()
                for thread in threads:
                    thread.join(PROMPTLY)
                assert len(outcomes) == 10 and all(isinstance(outcome, RequestTimeout) for outcome in outcomes)
            else:
                arguments = {"name": "echo", "arguments": {"text": "retry"}}
                futures = [client.send_request("tools/call", arguments) for _ in range(10)]
                assert wait_seen(server, "POST tools/call", count=10)
                with pytest.raises(concurrent.futures.TimeoutError):
                    futures[0].result(2)
                for future in futures:
                    with pytest.raises(concurrent.futures.TimeoutError):
                        future.result(0)
                    assert future.cancel()
            assert server.seen.count("POST tools/call") == 10
            with within(PROMPTLY):
                assert client.call_tool("echo", {"text": "after"}, timeout=T).text == "after"


@pytest.mark.slow("waits out the 1 s max_retry_delay")
def test_a_huge_retry_is_capped_by_max_retry_delay() -> None:
    """Attack: ``retry: 3600000`` on a request without a timeout (``send_request``). Promise: the wait
    is capped (``max_retry_delay``, 30 s by default; 1 s here), and the resumed stream gives the answer."""
    calls: list[Request] = []

    def resume(conn: Conn, request: Request) -> bool:
        if "last-event-id" not in request.headers or not calls:
            return False
        answer = request.server.answer_to(calls[-1])
        assert answer is not None
        conn.keep = False
        conn.reply(200, b"id: s-resumed:1\ndata: " + answer + b"\n\n", "text/event-stream")
        return True

    def take(conn: Conn, request: Request) -> bool:
        calls.append(request)
        return retry_then_end(3_600_000)(conn, request)

    assert StreamableHTTPTransport("http://127.0.0.1:9/mcp").max_retry_delay == 30.0
    with hostile("sse", {"POST tools/call": take, "GET /mcp": resume}) as server:
        with connected(server, "http-sse", max_retry_delay=1) as client:
            future = client.send_request("tools/call", {"name": "echo", "arguments": {"text": "resumed"}})
            with within(PROMPTLY):
                assert future.result(PROMPTLY)["content"][0]["text"] == "resumed"


# -- Time: the cancellation after a timeout ---------------------------------------------------------------


@pytest.mark.slow("waits out the 2 s call timeout, then close's 1 s bound on the trickled cancellation")
@pytest.mark.parametrize("kind", KINDS)
def test_a_trickled_cancellation_does_not_hold_the_call_that_timed_out(kind: str) -> None:
    """Attack: the call is never answered, and the POST of its ``notifications/cancelled`` gets headers
    trickled forever (the unfixed call waited the write timeout for it: 2 + 30 s here). Promise: the call
    returns at its timeout (2 s); the notice goes in the background, with its own short bound."""
    attacks = {"POST tools/call": never_answered, "POST notifications/cancelled": trickle_headers(0.5)}
    with serving(kind, attacks) as server, connected(server, kind, write_timeout=30) as client:
        with within(PROMPTLY), pytest.raises(RequestTimeout, match=r"after 2s"):
            client.call_tool("echo", {"text": "x"}, timeout=2)
        assert wait_seen(server, "POST notifications/cancelled")


@pytest.mark.slow("Ctrl-C after 0.5 s, then close's 1 s bound on the trickled cancellation")
@pytest.mark.parametrize("kind", KINDS)
def test_ctrl_c_returns_at_once_though_the_cancellation_trickles(kind: str) -> None:
    """The same attack, and Ctrl-C during the call (the unfixed client raised KeyboardInterrupt only after
    the write timeout). Promise: KeyboardInterrupt at once; close() stays bounded."""
    attacks = {"POST tools/call": never_answered, "POST notifications/cancelled": trickle_headers(0.5)}
    with serving(kind, attacks) as server, connected(server, kind, write_timeout=30) as client:
        with within(PROMPTLY), ctrl_c_after(0.5):
            client.call_tool("echo", {"text": "x"}, timeout=60)
        assert wait_seen(server, "POST notifications/cancelled")


def wait_seen(server: Hostile, what: str, count: int = 1) -> bool:
    """Whether the server sees ``count`` requests that are ``what`` within ``PROMPTLY``."""
    deadline = time.monotonic() + PROMPTLY
    while server.seen.count(what) < count:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


# -- the handshake's whole deadline -----------------------------------------------------------------


@pytest.mark.slow("waits out the 2 s handshake timeout")
@pytest.mark.parametrize("kind", KINDS)
def test_a_silent_initialized_notification_ends_the_handshake_at_its_timeout(kind: str) -> None:
    """Attack: ``initialize`` is answered, the POST of ``notifications/initialized`` is read and never
    answered (the unfixed client waited for the write timeout, 10 s, whatever the caller's timeout).
    Promise: ``connect(timeout=2)`` bounds every step of the handshake: a TimeoutError within 3.5 s."""
    with serving(kind, attacks={"POST notifications/initialized": silent}) as server:
        target: Any = f"{server.url}/mcp"
        if kind == "legacy-sse":
            target = {"type": "sse", "url": f"{server.url}/sse"}
        with within(3.5), pytest.raises(TimeoutError) as info:
            mcpsync.connect(target, timeout=2, protocol="legacy")
    assert isinstance(info.value, MCPError)
    assert "notifications/initialized" in str(info.value), str(info.value)
