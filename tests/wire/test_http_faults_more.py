"""Streamable HTTP against mcpsync's own test server over real sockets: the faults HTTP clients meet, in the
legacy era (sessions, resumption, the server's own requests; the modern era: tests/session/test_dual_era_server.py)."""

import threading

import pytest
import requests

import mcpsync
from tests.helpers import cancelled_on_server, ctrl_c_after, in_flight
from tests.http_server import running_http_server

T = 20


@pytest.fixture(scope="module", params=["sse", "json"])
def server(request):
    options = ("--json",) if request.param == "json" else ()
    with running_http_server(*options) as base:
        yield base, request.param


@pytest.fixture
def client(server):
    base, _ = server
    # Legacy: sessions, resumption and the server's own requests are what these faults are about.
    with mcpsync.connect(f"{base}/mcp", timeout=T, protocol="legacy") as c:
        yield c


def control(server, what):
    base, _ = server
    with requests.post(f"{base}/control/{what}", timeout=T) as response:
        response.raise_for_status()


def test_basic_calls(client, server):
    assert isinstance(client.transport, mcpsync.StreamableHTTPTransport)
    assert client.transport.session_id
    assert client.call_tool("add", {"a": 20, "b": 22}, timeout=T).structured_content == {"sum": 42}
    assert client.call_tool("fail", {"message": "no"}, timeout=T).is_error


def test_session_expiry_in_the_middle_of_work_is_survived(client, server):
    """Four threads keep calling while the server forgets the session: every call succeeds."""
    first = client.transport.session_id
    errors, wrong = [], []
    started = threading.Barrier(5, timeout=T)

    def work(n):
        started.wait()
        for i in range(15):
            try:
                text = f"{n}-{i}"
                if client.call_tool("echo", {"text": text}, timeout=T).text != text:
                    wrong.append(text)
            except Exception as exc:
                errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    started.wait()
    control(server, "expire-sessions")
    for t in threads:
        t.join(60)
    assert errors == [] and wrong == []
    assert client.call_tool("echo", {"text": "after"}, timeout=T).text == "after"
    assert client.transport.session_id not in (None, first)


def test_a_stream_cut_before_the_answer_is_resumed(client, server, caplog):
    if server[1] == "json":
        pytest.skip("JSON answers have no stream to cut")
    control(server, "cut-next-stream")
    with caplog.at_level("INFO", logger="mcpsync.transport"):
        assert client.call_tool("echo", {"text": "survived"}, timeout=T).text == "survived"
    assert "resuming the stream of request" in caplog.text


def test_a_server_that_stops_answering_times_out_and_is_told(client):
    with pytest.raises(mcpsync.RequestTimeout):
        client.call_tool("sleep", {"seconds": 30}, timeout=0.5)
    cancelled = cancelled_on_server(client)
    assert len(cancelled) == 1
    assert len(client.transport.endpoint.pending) == 0


def test_server_requests_and_progress_on_the_request_stream(client, server):
    if server[1] == "json":
        pytest.skip("JSON answers carry no server requests")
    answer = client.call_tool("ask_client", {"method": "ping"}, timeout=T).structured_content
    assert answer["result"] == {}
    got = []
    done = threading.Event()
    client.on_notification = lambda method, params: (got.append(params["progress"]), len(got) == 3 and done.set())
    client.call_tool("progress", {"steps": 3, "delay": 0}, meta={"progressToken": "p"}, timeout=T)
    assert done.wait(T) and got == [1, 2, 3]


def test_many_threads_share_one_http_client(client):
    wrong = []

    def work(n):
        for i in range(20):
            text = f"{n}:{i}"
            if client.call_tool("echo", {"text": text}, timeout=T).text != text:
                wrong.append(text)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not any(t.is_alive() for t in threads) and wrong == []


@pytest.mark.parametrize("timeout", [T, None], ids=["with-timeout", "no-timeout"])
def test_ctrl_c_during_an_http_call_cancels_it(client, timeout):
    """KeyboardInterrupt in the waiting thread: raised promptly, the server told, the client usable."""
    with ctrl_c_after(0.1, when=in_flight(client)):
        client.call_tool("sleep", {"seconds": 30}, timeout=timeout)
    assert len(client.transport.endpoint.pending) == 0
    cancelled = cancelled_on_server(client)
    assert len(cancelled) == 1


def test_cancelling_one_request_does_not_break_the_next_on_the_same_worker(server):
    """One worker: A is cancelled while B waits behind it; cutting A's connection must not hit B's."""
    base, _ = server
    # One worker, so B runs on A's thread right after it.
    with mcpsync.Client(mcpsync.StreamableHTTPTransport(f"{base}/mcp", max_connections=1)) as client:
        for n in range(5):
            slow = client.send_request("tools/call", {"name": "sleep", "arguments": {"seconds": 5}})
            quick = client.send_request("tools/call", {"name": "echo", "arguments": {"text": f"B{n}"}})
            slow.cancel()
            assert quick.result(timeout=T)["content"][0]["text"] == f"B{n}"


def test_when_the_fallback_fails_too_the_first_answer_is_kept(server):
    """The legacy era: the refused POST is the ``initialize`` (with ``"auto"`` a refused probe means a legacy server)."""
    base, _ = server
    control(server, "fail-next?status=400")
    with pytest.raises(mcpsync.HTTPStatusError) as info:
        mcpsync.connect(f"{base}/mcp", timeout=T, protocol="legacy")
    assert info.value.status_code == 400
    # One excerpt, the first answer's; of the second, the status and the request.
    assert str(info.value) == (
        f"HTTP 400 from POST {base}/mcp: injected failure 400; tried as HTTP+SSE too: HTTP 405 from GET {base}/mcp"
    )
