"""The HTTP path's promises where they are easiest to break: which socket a cut reaches, proxies,
the user's own ``requests.Session``, credentials and auth objects, Ctrl-C while connecting or
waiting to resume, and what close() still sends.

Against the bundled test server over real sockets, or a raw socket server where the fault is
below HTTP (a connect that hangs). Bounds are wide (``PROMPTLY``): they tell a hang from an
answer, not fast from slow.
"""

from __future__ import annotations

import json
import logging
import math
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import requests
import responses

import mcpsync
from mcpsync import (
    MCPError,
    RequestTimeout,
    SSETransport,
    StreamableHTTPTransport,
    TransportError,
    WriteTimeout,
    call_mcp,
)
from mcpsync._wire.base import DEFAULT_WRITE_TIMEOUT
from mcpsync._wire.http.client import HTTPClient, released_after
from tests.conftest import LONG_TESTS
from tests.helpers import ctrl_c_after, wait_for
from tests.http_server import running_http_server
from tests.wire.test_stdio_faults import PROMPTLY, T, within


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    with running_http_server() as url:
        yield url


@pytest.fixture(autouse=True)
def end_trickles(base: str) -> Iterator[None]:
    """A helper thread stuck on a session we cannot cut ends when the server ends its trickle."""
    yield
    control(base, "end-trickles")


def control(base: str, what: str) -> Any:
    with requests.post(f"{base}/control/{what}", timeout=T) as response:
        response.raise_for_status()
        return response.json() if what == "seen" else response.text


def seen_since(base: str, before: int) -> list[str]:
    return control(base, "seen")[before:]


def cancellation_sent(base: str) -> None:
    """Wait until the server has seen the cancellation of a call just given up (it goes in the background)."""
    assert wait_for(lambda: control(base, "seen")[-1] == "notifications/cancelled")


def fill_accept_queue(port: int) -> list[socket.socket]:
    """Connects that fill the accept queue of a listener with backlog 0 (close them after)."""
    fillers = []
    for _ in range(4):
        filler = socket.socket()
        filler.setblocking(False)
        try:
            filler.connect(("127.0.0.1", port))
        except BlockingIOError:
            pass
        fillers.append(filler)
    return fillers


@contextmanager
def unreachable() -> Iterator[str]:
    """A URL whose connects hang: its listener's accept queue is full, so SYNs go unanswered."""
    listener = socket.socket()
    fillers: list[socket.socket] = []
    try:
        listener.bind(("127.0.0.1", 0))
        listener.listen(0)
        port = listener.getsockname()[1]
        fillers += fill_accept_queue(port)
        probe = socket.socket()
        probe.settimeout(0.5)
        try:
            probe.connect(("127.0.0.1", port))
            pytest.skip("this kernel accepts connects past a full queue: no way to make one hang")
        except socket.timeout:
            pass
        finally:
            probe.close()
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        for filler in fillers:
            filler.close()
        listener.close()


# -- a cut reaches its own exchange only --------------------------------------------------------------


@pytest.mark.slow("exchange B's answer comes after 1.5 s")
def test_a_cut_never_reaches_a_connection_another_exchange_has_taken_since() -> None:
    """Exchange A's first connection goes back to the pool and B takes it; A then waits for a new
    connection (which hangs) and is cut: B's answer still arrives, and A ends at once."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(0)
    port = listener.getsockname()[1]
    root = f"http://127.0.0.1:{port}"
    fillers: list[socket.socket] = []
    accepted: list[socket.socket] = []

    def serve_one() -> None:
        conn, _ = listener.accept()
        accepted.append(conn)
        fillers.extend(fill_accept_queue(port))  # from now on, new connects hang
        buffer = b""
        try:
            while True:
                while b"\r\n\r\n" not in buffer:
                    data = conn.recv(65536)
                    if not data:
                        return
                    buffer += data
                head, buffer = buffer.split(b"\r\n\r\n", 1)
                if head.split(b" ")[1] == b"/slow":
                    time.sleep(1.5)
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        except OSError:
            return

    server = threading.Thread(target=serve_one, name="test-one-connection")
    server.start()
    http = HTTPClient("victim", f"{root}/fast", max_connections=4, connect_timeout=T)
    first_done, b_running = threading.Event(), threading.Event()
    b_got: list[Any] = []

    def exchange_b() -> None:
        first_done.wait(T)
        with http.exchange(time.monotonic() + T) as b:
            b_running.set()
            try:
                with released_after(b.send("GET", f"{root}/slow")) as response:
                    b_got.append((response.status_code, response.content))
            except Exception as exc:  # what this test is about: B must not be cut
                b_got.append(exc)

    other = threading.Thread(target=exchange_b, name="test-exchange-b")
    other.start()
    try:
        with http.exchange(time.monotonic() + T) as a:
            with released_after(a.send("GET", f"{root}/fast")) as response:
                assert response.content == b"ok"  # read whole: the connection goes back to the pool
            first_done.set()
            assert b_running.wait(T)
            time.sleep(0.2)  # B is on that connection now
            cutter = threading.Timer(0.3, a.cut, ("given up",))
            cutter.start()
            with within(PROMPTLY), pytest.raises(TransportError):
                a.send("GET", f"{root}/fast")  # a fresh connection: its connect hangs until the cut
            cutter.join(T)
        other.join(T)
        assert b_got == [(200, b"ok")]
    finally:
        first_done.set()
        other.join(T)
        http.close()
        for sock in fillers + accepted:
            sock.close()
        listener.close()
        server.join(T)


# -- the user's own session, and proxies ---------------------------------------------------------------


@pytest.mark.slow("waits out the 1 s timeout, then 0.5 s for the helper thread it cannot cut")
def test_call_mcp_with_a_user_session_keeps_its_timeout(base: str) -> None:
    """A session we did not make cannot be cut: the exchange runs on a helper thread, the caller waits its deadline."""
    control(base, "trickle-headers-next?interval=0.2")
    with requests.Session() as session, within(PROMPTLY), pytest.raises(TimeoutError):
        call_mcp(f"{base}/mcp", "ping", timeout=1, session=session)


@pytest.mark.slow("Ctrl-C after 0.5 s, then 0.5 s for the helper thread it cannot cut")
def test_ctrl_c_ends_call_mcp_with_a_user_session(base: str) -> None:
    control(base, "trickle-headers-next?interval=0.2")
    with requests.Session() as session, within(PROMPTLY), ctrl_c_after(0.5):
        call_mcp(f"{base}/mcp", "ping", timeout=60, session=session)


@pytest.mark.slow("waits out a 1 s call timeout and a 1 s write timeout, then the helper threads it cannot cut")
@pytest.mark.parametrize("kind", ["http", "legacy-sse"])
def test_a_transport_on_a_user_session_keeps_call_and_notice_bounds(base: str, kind: str) -> None:
    with requests.Session() as session:
        if kind == "http":
            transport: Any = StreamableHTTPTransport(f"{base}/mcp", session=session, listen=False, write_timeout=1)
        else:
            transport = SSETransport(f"{base}/sse", session=session, write_timeout=1)
        with mcpsync.Client(transport) as client:
            control(base, "trickle-headers-next?interval=0.2")
            with within(PROMPTLY), pytest.raises(RequestTimeout, match=r"after 1s"):
                client.call_tool("echo", {"text": "x"}, timeout=1)
            cancellation_sent(base)  # before the next trickle, lest it meet the cancellation instead
            control(base, "trickle-headers-next?interval=0.2")
            with within(PROMPTLY), pytest.raises(WriteTimeout, match="no answer within the time given to it"):
                client.notify("notifications/roots/list_changed")
            assert client.call_tool("echo", {"text": "after"}, timeout=T).text == "after"
        with within(PROMPTLY):
            client.close()


def test_close_with_a_user_session_is_bounded_when_the_delete_trickles(base: str) -> None:
    with requests.Session() as session:
        client = mcpsync.Client(StreamableHTTPTransport(f"{base}/mcp", session=session, listen=False))
        client.initialize(timeout=T)
        control(base, "trickle-delete-next?interval=0.2")
        with within(PROMPTLY):
            client.close()


@pytest.mark.slow("waits out a 1 s call timeout, a Ctrl-C after 0.5 s and the 2 s budget of a trickled DELETE")
def test_through_a_proxy_timeouts_ctrl_c_and_close_still_hold(base: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """With HTTP_PROXY set, requests go through urllib3's proxy pools, whose connections are ours
    too. The test server stands in for the proxy (it takes absolute URLs), and the URL says
    ``localhost`` so that no NO_PROXY rule for 127.0.0.1 applies."""
    for name in ("NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTP_PROXY", base)
    url = f"{base}/mcp".replace("127.0.0.1", "localhost")
    before = len(control(base, "seen"))
    client = mcpsync.Client(StreamableHTTPTransport(url, listen=False, timeout=T), protocol="legacy")  # the handshake
    try:
        client.initialize(timeout=T)
        http = client.transport._http
        assert http.session.proxies.get("http") == base  # the environment was read
        assert http.can_cut
        assert seen_since(base, before)[:2] == ["initialize", "notifications/initialized"]  # via the proxy
        control(base, "trickle-headers-next?interval=0.2")
        with within(PROMPTLY), pytest.raises(RequestTimeout):
            client.call_tool("echo", {"text": "x"}, timeout=1)
        cancellation_sent(base)  # before the next trickle, lest it meet the cancellation instead
        control(base, "trickle-headers-next?interval=0.2")
        with within(PROMPTLY), ctrl_c_after(0.5):
            client.call_tool("echo", {"text": "x"}, timeout=60)
        assert client.call_tool("echo", {"text": "after"}, timeout=T).text == "after"
        control(base, "trickle-delete-next?interval=0.2")
    finally:
        with within(PROMPTLY):
            client.close()


# -- credentials and auth objects ---------------------------------------------------------------------


def test_credentials_in_the_url_are_sent_as_basic_auth() -> None:
    """As requests does it: ``http://user:pw@host/`` means an Authorization header on every request."""
    init = {"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "f", "version": "1"}}
    sent: list[str] = []

    def answer(request: Any) -> tuple[int, dict[str, str], str]:
        sent.append(request.headers.get("Authorization", ""))
        message = json.loads(request.body)
        if "id" not in message:
            return (202, {}, "")
        result = init if message["method"] == "initialize" else {}
        return (
            200,
            {"Content-Type": "application/json"},
            json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}),
        )

    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        mock.add_callback(responses.POST, "http://user:pw@mcp.test/mcp", callback=answer)  # as requests prepares it
        mock.add(responses.DELETE, "http://user:pw@mcp.test/mcp", status=204)
        # The legacy era: the mock answers the handshake; three POSTs, each with the header.
        with mcpsync.Client(
            StreamableHTTPTransport("http://user:pw@mcp.test/mcp", listen=False), protocol="legacy"
        ) as client:
            client.ping(timeout=T)
    assert len(sent) == 3 and set(sent) == {requests.auth._basic_auth_str("user", "pw")}


def test_digest_auth_from_requests_works() -> None:
    """requests' own HTTPDigestAuth: a 401 challenge, answered by its response hook on the same adapter."""
    challenge = 'Digest realm="r", nonce="n1", qop="auth"'
    seen: list[str] = []

    def answer(request: Any) -> tuple[int, dict[str, str], str]:
        authorization = request.headers.get("Authorization", "")
        seen.append(authorization.split(" ", 1)[0])
        if not authorization.startswith("Digest "):
            return (401, {"WWW-Authenticate": challenge}, "")
        message = json.loads(request.body)
        return (
            200,
            {"Content-Type": "application/json"},
            json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": {}}),
        )

    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        mock.add_callback(responses.POST, "http://mcp.test/mcp", callback=answer)
        envelope = call_mcp("http://mcp.test/mcp", "ping", auth=requests.auth.HTTPDigestAuth("u", "p"), timeout=T)
    assert envelope == {"jsonrpc": "2.0", "id": 1, "result": {}}
    assert seen[:2] == ["", "Digest"]


class FailingAuth(requests.auth.AuthBase):
    """Like a token refresh that fails: fine for the handshake, then raises."""

    def __init__(self, good: int) -> None:
        self.good = good

    def __call__(self, request: requests.PreparedRequest) -> requests.PreparedRequest:
        self.good -= 1
        if self.good < 0:
            raise requests.exceptions.HTTPError("token refresh failed: 400 invalid_grant")
        return request


def test_an_auth_object_that_raises_fails_the_call_with_our_error(base: str) -> None:
    # The legacy era: the handshake is the two good requests (initialize, notifications/initialized).
    transport = StreamableHTTPTransport(f"{base}/mcp", auth=FailingAuth(good=2), listen=False)
    with mcpsync.Client(transport, protocol="legacy") as client:
        with within(PROMPTLY), pytest.raises(TransportError, match="was not sent: token refresh failed"):
            client.ping(timeout=T)
        future = client.send_request("ping")
        with pytest.raises(TransportError, match="invalid_grant"):
            future.result(PROMPTLY)  # settled, not left pending


# -- Ctrl-C while connecting or waiting to resume --------------------------------------------------------


@pytest.mark.slow("a 0.5 s probe, two Ctrl-Cs after 0.5 s, and close waits about 1 s for a worker's hanging connect")
def test_ctrl_c_while_connecting_ends_the_handshake_at_once() -> None:
    with unreachable() as url:
        client = mcpsync.Client(StreamableHTTPTransport(url, connect_timeout=60))
        try:
            with within(PROMPTLY), ctrl_c_after(0.5):
                client.initialize(timeout=60)
        finally:
            client.close()
        with within(PROMPTLY), ctrl_c_after(0.5):
            call_mcp(url, "ping", timeout=60)


@pytest.mark.slow("Ctrl-C after 0.5 s while the call waits out a 60 s retry")
def test_ctrl_c_while_waiting_out_a_long_retry_ends_the_call_at_once(base: str) -> None:
    """The stream is cut before the answer and asks for a minute before resuming (30 s after our cap).
    Legacy: the 2026-07-28 revision resumes no stream."""
    with mcpsync.Client(StreamableHTTPTransport(f"{base}/mcp", listen=False), protocol="legacy") as client:
        control(base, "retry-next?ms=60000")
        control(base, "cut-next-stream")
        with within(PROMPTLY), ctrl_c_after(0.5):
            client.call_tool("echo", {"text": "x"}, timeout=120)
        assert client.call_tool("echo", {"text": "after"}, timeout=T).text == "after"


@pytest.mark.slow("waits out the 1 s call timeout")
def test_a_retry_longer_than_the_timeout_ends_at_the_timeout(base: str) -> None:
    # Legacy: the 2026-07-28 revision resumes no stream.
    with mcpsync.Client(StreamableHTTPTransport(f"{base}/mcp", listen=False), protocol="legacy") as client:
        control(base, "retry-next?ms=600000")
        control(base, "cut-next-stream")
        with within(PROMPTLY), pytest.raises(RequestTimeout):
            client.call_tool("echo", {"text": "x"}, timeout=1)


# -- answers on streams that stay open -------------------------------------------------------------------


def test_an_answer_on_a_stream_the_server_keeps_open_returns_without_waiting_for_the_end(base: str) -> None:
    """The spec says the server SHOULD end the stream after the answer; one that does not costs us
    a short grace, not the stream's life (the test server keeps it open for a minute)."""
    with mcpsync.Client(StreamableHTTPTransport(f"{base}/mcp", listen=False)) as client:
        for call in (
            lambda: client.call_tool("echo", {"text": "x"}, timeout=T).text,
            lambda: client.send_request("tools/call", {"name": "echo", "arguments": {"text": "x"}}).result(T)[
                "content"
            ][0]["text"],
            lambda: client.call_tool("echo", {"text": "x"}, timeout=T, on_progress=lambda *_: None).text,
        ):
            control(base, "linger-next")
            with within(PROMPTLY):
                assert call() == "x"


# -- what close() still does ---------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["http", "legacy-sse"])
def test_cancellations_of_calls_just_given_up_reach_the_server_before_close_returns(base: str, kind: str) -> None:
    before = len(control(base, "seen"))
    if kind == "http":
        transport: Any = StreamableHTTPTransport(f"{base}/mcp", listen=False)
    else:
        transport = SSETransport(f"{base}/sse")
    client = mcpsync.Client(transport)
    client.initialize(timeout=T)
    for _ in range(3):
        with pytest.raises(RequestTimeout):
            client.call_tool("sleep", {"seconds": 30}, timeout=0.2)
    client.close()  # at once, as a script ends
    assert seen_since(base, before).count("notifications/cancelled") == 3
    assert client.transport.stats.cancelled == 3


def test_a_call_still_waiting_for_a_connection_at_close_is_never_sent(base: str) -> None:
    before = len(control(base, "seen"))
    client = mcpsync.Client(StreamableHTTPTransport(f"{base}/mcp", listen=False, max_connections=1))
    client.initialize(timeout=T)
    outcomes: list[Any] = []

    def call(seconds: float) -> None:
        try:
            outcomes.append(client.call_tool("sleep", {"seconds": seconds}, timeout=T))
        except MCPError as exc:
            outcomes.append(exc)

    first = threading.Thread(target=call, args=(2,))
    first.start()
    assert wait_for(lambda: seen_since(base, before).count("tools/call") == 1)
    queued = threading.Thread(target=call, args=(0,))
    queued.start()
    time.sleep(0.3)  # the second call waits for the one connection
    with within(PROMPTLY):
        client.close()
    first.join(T)
    queued.join(T)
    assert len(outcomes) == 2 and all(isinstance(outcome, mcpsync.TransportClosed) for outcome in outcomes)
    assert seen_since(base, before).count("tools/call") == 1


# -- settings and pools ----------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["http", "legacy-sse"])
def test_write_timeout_none_means_no_limit(base: str, kind: str) -> None:
    """``write_timeout=None``: a notification's write gets no bound at all (not a default one), and arrives.

    The bound handed to the wire is read as it passes (the transport's own ``_write``, wrapped to
    record its argument); with ``MCPSYNC_LONG_TESTS=1`` the server also holds the notification's
    answer past the default ``write_timeout`` (10 s), and the notification still returns.
    """
    if kind == "http":
        transport: Any = StreamableHTTPTransport(f"{base}/mcp", write_timeout=None, listen=False)
    else:
        transport = SSETransport(f"{base}/sse", write_timeout=None)
    bounds: list[float] = []
    write = transport._write

    def recording_write(data: bytes, timeout: float) -> None:
        bounds.append(timeout)
        write(data, timeout)

    transport._write = recording_write
    with mcpsync.Client(transport) as client:
        client.ping(timeout=T)
        before = len(control(base, "seen"))
        bounds.clear()
        if LONG_TESTS:
            control(base, f"delay-next?seconds={DEFAULT_WRITE_TIMEOUT + 2}")
        client.notify("notifications/roots/list_changed")
        assert bounds == [math.inf]
        assert wait_for(lambda: "notifications/roots/list_changed" in seen_since(base, before))


def test_many_threads_posting_on_http_sse_share_the_pool_without_discarding_connections(
    base: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="urllib3")
    with mcpsync.Client(SSETransport(f"{base}/sse")) as client:

        def work() -> None:
            for _ in range(5):
                client.call_tool("sleep", {"seconds": 0.05}, timeout=T)

        threads = [threading.Thread(target=work) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(T * 2)
    assert [r.getMessage() for r in caplog.records if "pool is full" in r.getMessage()] == []


@pytest.mark.parametrize("extra", [-1, 0, 1])
def test_bodies_around_the_size_sent_with_the_headers_arrive_whole(base: str, extra: int) -> None:
    """Up to ``COALESCE`` bytes, headers and body leave in one write: the body arrives once, whole."""
    from mcpsync._wire.http.session import COALESCE

    with mcpsync.Client(StreamableHTTPTransport(f"{base}/mcp", listen=False)) as client:
        overhead = len(
            json.dumps(
                {
                    "jsonrpc": "2.0",
                    "id": 2,
                    "method": "tools/call",
                    "params": {"name": "echo", "arguments": {"text": ""}},
                }
            )
        )
        text = "x" * (COALESCE + extra - overhead)
        assert client.call_tool("echo", {"text": text}, timeout=T).text == text
        assert client.call_tool("echo", {"text": "after"}, timeout=T).text == "after"  # the connection is sound
