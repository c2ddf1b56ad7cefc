"""Faults of HTTP servers, injected with the bundled test server's control URLs and chaos tools.

Every fault runs on each transport where it applies: Streamable HTTP with SSE
answers (``http-sse``) and with JSON answers (``http-json``), and the
2024-11-05 HTTP+SSE transport (``legacy-sse``). Each test checks what a user
gets (a typed error within a wide bound, or the answer) and that the client
is usable afterwards where it should be; the autouse ``no_leaks`` fixture
checks threads, sockets and processes. Session expiry, a stream cut between
events, and timeouts told to the server are in tests/wire/test_http_faults_more.py.
"""

from __future__ import annotations

import io
import logging
import math
import os
import socket
import time
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import pytest
import requests
import urllib3

import mcpsync
from mcpsync import (
    ConnectError,
    HTTPStatusError,
    InvalidMessage,
    MessageTooLarge,
    RequestTimeout,
    TransportClosed,
    TransportError,
)
from mcpsync._wire import SSETransport, StreamableHTTPTransport, Transport
from tests.helpers import cancelled_on_server, wait_for
from tests.http_server import running_http_server
from tests.wire.test_stdio_faults import PROMPTLY, SMALL_LIMIT, T, assert_usable, misbehave, within

KINDS = ["http-sse", "http-json", "legacy-sse"]
#: Why the tests of a call never answered are slow.
WAITS_OUT_THE_TIMEOUT = "waits out the call's 1 s timeout"


@dataclass
class Server:
    base: str
    kind: str

    def transport(self, **options: Any) -> Transport:
        options.setdefault("timeout", T)
        if self.kind == "legacy-sse":
            return SSETransport(f"{self.base}/sse", name="srv", **options)
        return StreamableHTTPTransport(f"{self.base}/mcp", name="srv", **options)

    @contextmanager
    def client(self, on_error: Any = None, **options: Any) -> Iterator[mcpsync.Client]:
        """A client in the legacy era, for the request ids the errors name (``initialize`` is request 1)."""
        with mcpsync.Client(self.transport(**options), on_error=on_error, protocol="legacy") as client:
            yield client

    def control(self, what: str) -> str:
        with requests.post(f"{self.base}/control/{what}", timeout=T) as response:
            response.raise_for_status()
            return response.text


@contextmanager
def serving(kind: str) -> Iterator[Server]:
    with running_http_server(*(("--json",) if kind == "http-json" else ())) as base:
        yield Server(base, kind)


@pytest.fixture(scope="module", params=KINDS)
def server(request: pytest.FixtureRequest) -> Iterator[Server]:
    with serving(request.param) as started:
        yield started


@pytest.fixture
def client(server: Server) -> Iterator[mcpsync.Client]:
    with server.client() as c:
        yield c


def wait_until_refused(base: str) -> None:
    """Wait (bounded) until nothing listens at ``base`` any more."""
    address = urllib.parse.urlsplit(base)
    deadline = time.monotonic() + PROMPTLY
    while time.monotonic() < deadline:
        try:
            socket.create_connection((address.hostname, address.port), timeout=T).close()
        except ConnectionRefusedError:
            return
        except ConnectionResetError:
            pass  # accepted into the dying socket's backlog and reset when it closed: look again
        time.sleep(0.02)
    raise AssertionError(f"something still listens at {base} after {PROMPTLY}s")


# -- the HTTP layer ------------------------------------------------------------------------------------


@pytest.mark.parametrize("status", [500, 502, 401])
def test_error_statuses_are_typed_with_body_and_hints(client, server, status):
    server.control(f"fail-next?status={status}")
    with pytest.raises(mcpsync.HTTPStatusError) as info:
        client.call_tool("echo", {"text": "x"}, timeout=T)
    assert info.value.status_code == status
    # The request named, its query (an HTTP+SSE session id) left out.
    path = "/messages?..." if server.kind == "legacy-sse" else "/mcp"
    assert f"HTTP {status} from POST {server.base}{path}: injected failure {status}" in str(info.value)
    if status == 401:
        assert "WWW-Authenticate: Bearer resource_metadata=" in str(info.value)
        assert "Mcp-Auth-Server: http://127.0.0.1/auth" in str(info.value)
        assert info.value.www_authenticate.startswith("Bearer resource_metadata=")
    assert client.call_tool("echo", {"text": "fine"}, timeout=T).text == "fine"


def test_a_connection_reset_is_a_transport_error_that_says_the_request_may_have_arrived(client, server):
    """The server reads the POST and resets the connection (RST): a TransportError at once, not a
    ConnectError (the request may have reached the server); the next call works on a new connection."""
    server.control("reset-next")
    with within(PROMPTLY), pytest.raises(TransportError) as info:
        client.call_tool("echo", {"text": "x"}, timeout=T)
    assert not isinstance(info.value, (ConnectError, HTTPStatusError))
    assert "broke before the answer" in str(info.value)
    assert "the server may have received the request" in str(info.value)
    assert_usable(client)


def test_a_stream_cut_in_the_middle_of_an_event(client, server, caplog):
    """Half an event, then the connection closes. Streamable HTTP resumes from the last whole event
    (the half one, id included, does not count) and gets the answer; a JSON body cut in half is a
    TransportError; the HTTP+SSE transport has lost its only stream: TransportClosed."""
    server.control("cut-next-event")
    with caplog.at_level(logging.INFO, logger="mcpsync.transport"), within(PROMPTLY):
        if server.kind == "http-sse":
            assert client.call_tool("echo", {"text": "survived"}, timeout=T).text == "survived"
            assert "resuming the stream of request" in caplog.text
            assert client.transport.stats.malformed == 0, "the half event was not taken for a message"
        elif server.kind == "http-json":
            with pytest.raises(TransportError, match=r"reading the answer failed: .*IncompleteRead"):
                client.call_tool("echo", {"text": "x"}, timeout=T)
        else:
            with pytest.raises(TransportClosed, match="the server ended the event stream"):
                client.call_tool("echo", {"text": "x"}, timeout=T)
    if server.kind == "legacy-sse":
        with pytest.raises(TransportClosed, match="the server ended the event stream"):
            client.call_tool("echo", {"text": "after"}, timeout=T)
    else:
        assert_usable(client)


def test_a_slow_answer_within_the_timeout_arrives(client, server):
    server.control("delay-next?seconds=0.5")
    assert client.call_tool("echo", {"text": "slow"}, timeout=T).text == "slow"


def test_an_answer_slower_than_the_timeout_is_a_request_timeout(client, server):
    """The server holds the POST for 30 s: RequestTimeout at the call's 0.5 s, and the client goes on."""
    server.control("delay-next?seconds=30")
    with within(PROMPTLY), pytest.raises(RequestTimeout, match=r"Request timeout after 0.5s \(tools/call\)"):
        client.call_tool("echo", {"text": "x"}, timeout=0.5)
    assert_usable(client)


def test_a_cookie_the_server_sets_is_sent_back(client, server):
    """A load balancer's sticky-session cookie: stored from the answer, sent with every later POST."""
    server.control("cookie-next?value=lb%3Dnode-2%3B%20Path%3D%2F")
    assert client.call_tool("echo", {"text": "a"}, timeout=T).text == "a"
    assert server.control("last-cookie") == ""
    assert client.call_tool("echo", {"text": "b"}, timeout=T).text == "b"
    assert server.control("last-cookie") == "lb=node-2"
    client.ping(timeout=T)
    assert server.control("last-cookie") == "lb=node-2"


def test_a_redirected_post_is_sent_again_where_it_points(client, server):
    """A 307 (the server did not act on the POST): the call goes where it points and succeeds, once."""
    server.control("redirect-next")
    assert client.call_tool("add", {"a": 2, "b": 3}, timeout=T).structured_content == {"sum": 5}
    assert_usable(client)


def test_a_compressed_answer_is_read(client, server):
    """A server (or a proxy) may gzip an answer, an event stream included: requests asks for gzip."""
    server.control("gzip-next")
    result = client.call_tool("progress", {"steps": 2}, meta={"progressToken": "p"}, timeout=T)
    assert result.text == "done"
    assert_usable(client)


def test_a_call_given_up_at_its_timeout_tells_the_server(client, server):
    """A call that runs on the caller's own thread, past its timeout: the server hears of the cancellation."""
    with within(PROMPTLY), pytest.raises(RequestTimeout, match=r"after 0.5s"):
        client.call_tool("sleep", {"seconds": 30}, timeout=0.5)
    assert len(client.transport.endpoint.pending) == 0
    cancelled = cancelled_on_server(client)
    assert len(cancelled) == 1
    assert_usable(client)


def test_keep_alive_comments_do_not_carry_a_call_past_its_timeout(client, server):
    """The answer stream sends ': ping' every 0.1 s and no answer: the call still ends at its 0.5 s."""
    server.control("keepalive-next?interval=0.1")
    started = time.monotonic()
    with pytest.raises(RequestTimeout, match=r"after 0.5s"):
        client.call_tool("sleep", {"seconds": 30}, timeout=0.5)
    assert time.monotonic() - started < 4.0
    cancelled = cancelled_on_server(client)
    assert len(cancelled) == 1
    assert_usable(client)


def test_a_call_without_a_timeout_is_answered(client, server):
    """timeout=None: no limit, on the caller's thread (JSON) or a worker's (streams) alike."""
    assert client.call_tool("echo", {"text": "no limit"}, timeout=None).text == "no limit"
    assert client.call_tool("progress", {"steps": 2}, meta={"progressToken": "p"}, timeout=None).text == "done"


@pytest.mark.slow(WAITS_OUT_THE_TIMEOUT)
def test_a_trickling_json_body_does_not_carry_a_call_past_its_timeout(client, server):
    """The answer's body comes one byte every 0.05 s (seconds in all): the call ends at its 1 s timeout."""
    if server.kind != "http-json":
        pytest.skip("only a JSON answer is one body the server can trickle")
    server.control("trickle-next?interval=0.05")
    started = time.monotonic()
    with pytest.raises(RequestTimeout, match=r"after 1s"):
        client.call_tool("echo", {"text": "slowly, slowly, one byte at a time"}, timeout=1)
    assert time.monotonic() - started < 3.0
    assert_usable(client)


def test_events_arriving_steadily_do_not_carry_a_call_past_its_timeout(client, server):
    """Progress every 0.1 s for 10 s keeps every read short; the call still ends at its 0.5 s timeout.

    (Progress resets the timeout only for a call that watches it with ``on_progress``.)
    """
    started = time.monotonic()
    with pytest.raises(RequestTimeout):
        client.call_tool("progress", {"steps": 100, "delay": 0.1}, meta={"progressToken": "p"}, timeout=0.5)
    assert time.monotonic() - started < 4.0
    assert_usable(client)


def test_a_server_killed_mid_call_fails_the_call_at_once_and_later_ones_cannot_connect(server):
    """The whole server dies (SIGKILL) during a call: a TransportError within seconds."""
    with serving(server.kind) as own:
        with own.client() as client:
            with within(PROMPTLY), pytest.raises(TransportError) as info:
                misbehave(client, "sigkill")
            if server.kind == "legacy-sse":
                assert isinstance(info.value, TransportClosed)
                assert "the event stream broke" in str(info.value) or "ended the event stream" in str(info.value)
            # The call can fail before the dying process has closed its listening socket;
            # a connection accepted into that socket's backlog is then reset, not refused.
            wait_until_refused(own.base)
            with within(PROMPTLY), pytest.raises(TransportError) as later:
                client.call_tool("echo", {"text": "x"}, timeout=T)
            if server.kind == "legacy-sse":
                assert isinstance(later.value, TransportClosed)
            else:
                assert isinstance(later.value, ConnectError) and "cannot connect to" in str(later.value)


# -- bad answers ---------------------------------------------------------------------------------------


def test_a_server_that_stalls_forever_times_out_is_told_and_closes_promptly(server):
    with server.client() as client:
        with within(PROMPTLY), pytest.raises(RequestTimeout, match=r"after 0\.5s"):
            misbehave(client, "stall", timeout=0.5)
        cancelled = cancelled_on_server(client)
        assert len(cancelled) == 1
        assert_usable(client)
        with within(PROMPTLY):
            client.close()


@pytest.mark.slow(WAITS_OUT_THE_TIMEOUT)
def test_an_answer_with_a_wrong_id_leaves_its_call_to_time_out(client, server):
    with within(PROMPTLY), pytest.raises(RequestTimeout):
        misbehave(client, "wrong_id", timeout=1)
    if server.kind != "http-json":  # a JSON answer that is not the answer never leaves that server
        assert client.transport.stats.unmatched_responses == 1
    assert_usable(client)


def test_an_answer_sent_twice_is_taken_once(client):
    assert misbehave(client, "duplicate_id").text == "first answer"
    assert_usable(client)


def test_an_answer_with_both_result_and_error_fails_its_call_at_once(client):
    with within(PROMPTLY), pytest.raises(InvalidMessage, match="error response must not also have 'result'"):
        misbehave(client, "result_and_error")
    assert_usable(client)


@pytest.mark.slow(WAITS_OUT_THE_TIMEOUT)
def test_half_a_line_from_the_server_is_one_bad_message_and_the_call_times_out(client):
    with within(PROMPTLY), pytest.raises(RequestTimeout):
        misbehave(client, "half_line", timeout=1)
    assert_usable(client)


# -- huge messages and max_message_size -----------------------------------------------------------------


def test_a_50_mb_answer_passes_under_the_default_limit(client):
    with within(PROMPTLY):
        text = misbehave(client, "huge").text
    assert len(text) > 49_000_000 and set(text) == {"x"}
    assert_usable(client)


def test_a_50_mb_answer_over_the_limit_fails_its_call_at_once_and_the_client_goes_on(server, caplog):
    with server.client(max_message_size=SMALL_LIMIT) as client:
        with caplog.at_level(logging.WARNING, logger="mcpsync.transport"):
            with within(PROMPTLY), pytest.raises(MessageTooLarge) as info:
                misbehave(client, "huge")
        error = info.value
        if server.kind == "http-json":  # Content-Length tells the size before the body is read
            assert error.size is not None and error.size > 49_000_000
            sized = f" ({error.size} bytes)"
        else:
            sized = ""
        assert str(error) == (
            f"srv: the answer to request 2{sized} is over max_message_size ({SMALL_LIMIT} bytes) and was "
            "discarded; raise max_message_size (maxMessageSize in an mcpServers entry) to accept it"
        )
        assert "discarding a message over max_message_size (1000000 bytes" in caplog.text
        assert client.transport.stats.oversized == 1
        assert_usable(client)


@pytest.mark.parametrize("kind", ["huge_id_last", "huge_notification", "huge_garbage"])
def test_other_messages_over_the_limit(server, kind):
    """The id written last (as TypeScript servers do) still names the call; a huge notification or
    garbage fails nothing. Over JSON answers the server drops what is not the answer."""
    errors = []
    with server.client(max_message_size=SMALL_LIMIT, on_error=errors.append) as client:
        with within(PROMPTLY):
            if kind == "huge_id_last":
                with pytest.raises(MessageTooLarge, match="the answer to request 2"):
                    misbehave(client, kind, size=5_000_000)
            else:
                assert misbehave(client, kind, size=5_000_000).text == f"sent {kind}"
        dropped_by_server = server.kind == "http-json" and kind != "huge_id_last"
        assert client.transport.stats.oversized == (0 if dropped_by_server else 1)
        if kind != "huge_id_last" and not dropped_by_server:
            wait_for(lambda: errors, PROMPTLY)  # on_error runs on the dispatch thread
            assert [type(e) for e in errors] == [MessageTooLarge]
        assert_usable(client)


def test_a_json_body_without_content_length_is_refused_once_it_passes_the_limit():
    """A chunked JSON answer is read only up to the limit; the request it answers fails."""
    transport = StreamableHTTPTransport("http://127.0.0.1:9/mcp", name="srv", max_message_size=100)
    http = transport._open_http(1)
    future = transport.endpoint.pending.register(1, "tools/call")
    response = requests.Response()
    body = b'{"jsonrpc":"2.0","id":1,"result":{"text":"' + b"x" * 1_000_000 + b'"}}'
    stream = io.BytesIO(body)
    response.raw = urllib3.HTTPResponse(body=stream, preload_content=False)
    with http.exchange(math.inf) as exchange:
        assert transport._json_body(exchange, response, future) is None
    with pytest.raises(MessageTooLarge, match=r"srv: the answer to request 1 is over max_message_size \(100 bytes\)"):
        future.result(timeout=0)
    assert stream.tell() < len(body), "the body was not read to its end"
    transport.close()


def test_closing_closes_pooled_connections_even_while_something_still_holds_their_pool(server):
    """urllib3 2.x leaves the pools it drops to the garbage collector: a response kept in a traceback
    (or a log record) kept their idle connections, and sockets, open after close()."""
    from tests.conftest import _fds

    before = _fds()
    with server.client() as client:
        assert_usable(client)
        session = client.transport._http.session
        pools = [adapter.poolmanager.pools for adapter in session.adapters.values()]
        held = [each[key] for each in pools for key in each.keys()]
        assert held
    assert {fd for fd in _fds() - before if os.readlink(f"/proc/self/fd/{fd}").startswith("socket:")} == set()
    del held
