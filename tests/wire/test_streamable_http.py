"""mcpsync._wire.http.streamable with a faked server (``responses``): headers, statuses, sessions, streams.

The fake is a legacy server (``initialize``, a session, the GET stream): its clients speak the legacy era.
"""

import json
import math

import pytest
import requests
import responses
import urllib3

import mcpsync
from mcpsync._wire.http.streamable import StreamableHTTPTransport

URL = "http://mcp.test/mcp"
T = 10


def initialize_result(version="2025-11-25"):
    return {"protocolVersion": version, "capabilities": {"tools": {}}, "serverInfo": {"name": "fake", "version": "1"}}


def answer(request, result):
    return {"jsonrpc": "2.0", "id": json.loads(request.body)["id"], "result": result}


class FakeServer:
    """A scripted Streamable HTTP server: records requests, answers POSTs by method."""

    def __init__(self, session_id="sess-1", mode="json"):
        self.session_id = session_id
        self.mode = mode
        self.seen = []
        self.results = {"initialize": initialize_result(), "ping": {}, "tools/list": {"tools": []}}

    def reroute(self, callback):
        """Answer POSTs with ``callback`` (which may fall back to ``self.post``)."""
        self.mock.remove(responses.POST, URL)
        self.mock.add_callback(responses.POST, URL, callback=callback)

    def post(self, request):
        self.seen.append(request)
        message = json.loads(request.body)
        headers = {}
        if message.get("method") == "initialize" and self.session_id:
            headers["Mcp-Session-Id"] = self.session_id
        if "id" not in message:
            return (202, headers, "")
        reply = json.dumps(answer(request, self.results[message["method"]]))
        if self.mode == "sse":
            headers["Content-Type"] = "text/event-stream"
            return (200, headers, f"event: message\ndata: {reply}\n\n")
        headers["Content-Type"] = "application/json"
        return (200, headers, reply)


@pytest.fixture
def fake():
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        server = FakeServer()
        mock.add_callback(responses.POST, URL, callback=server.post)
        mock.add(responses.DELETE, URL, status=204)
        server.mock = mock
        yield server


def connect(**kwargs):
    kwargs.setdefault("listen", False)
    client = mcpsync.Client(StreamableHTTPTransport(URL, **kwargs), protocol="legacy")
    client.initialize(timeout=T)
    return client


def test_headers_session_id_and_protocol_version(fake):
    with connect(headers={"X-Team": "blue"}, auth=requests.auth.HTTPBasicAuth("u", "p")) as client:
        client.ping(timeout=T)
        assert client.transport.session_id == "sess-1"
    init, initialized, ping = fake.seen[:3]
    for request in fake.seen:
        assert request.headers["Accept"] == "application/json, text/event-stream"
        assert request.headers["Content-Type"] == "application/json"
        assert request.headers["X-Team"] == "blue"
        assert request.headers["Authorization"].startswith("Basic ")
    assert "Mcp-Session-Id" not in init.headers and "MCP-Protocol-Version" not in init.headers
    for later in (initialized, ping):
        assert later.headers["Mcp-Session-Id"] == "sess-1"
        assert later.headers["MCP-Protocol-Version"] == "2025-11-25"
    assert json.loads(initialized.body) == {"jsonrpc": "2.0", "method": "notifications/initialized"}


def test_close_deletes_the_session(fake):
    connect().close()
    deletes = [c.request for c in fake.mock.calls if c.request.method == "DELETE"]
    assert len(deletes) == 1 and deletes[0].headers["Mcp-Session-Id"] == "sess-1"


@pytest.mark.parametrize("bad", ["has space", "tab\there", "é"])
def test_a_session_id_that_is_not_visible_ascii_is_refused(fake, bad):
    fake.session_id = bad
    with pytest.raises(mcpsync.ProtocolError, match="invalid Mcp-Session-Id"):
        connect()


def test_sse_answers_with_notifications_first(fake):
    fake.mode = "sse"
    got = []

    def on_notification(method, params):
        got.append((method, params))

    def post(request):
        message = json.loads(request.body)
        if message.get("method") != "tools/call":
            return fake.post(request)
        progress = {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 1, "progress": 1}}
        body = (
            f"id: e1\ndata: {json.dumps(progress)}\n\n"
            f"id: e2\ndata: {json.dumps(answer(request, {'content': [{'type': 'text', 'text': 'ok'}]}))}\n\n"
        )
        return (200, {"Content-Type": "text/event-stream"}, body)

    fake.reroute(post)
    client = connect()
    client.on_notification = on_notification
    assert client.call_tool("x", timeout=T).text == "ok"
    client.close()
    assert got == [("notifications/progress", {"progressToken": 1, "progress": 1})]


def test_a_stream_that_ends_without_the_answer_names_the_request(fake):
    def post(request):
        message = json.loads(request.body)
        if message.get("method") == "tools/call":
            return (200, {"Content-Type": "text/event-stream"}, ": nothing here\n\n")
        return fake.post(request)

    fake.reroute(post)
    with connect() as client:
        future = client.send_request("tools/call", {"name": "x"})
        with pytest.raises(mcpsync.NoResponseError, match=f"No response received for request ID {future.request_id}"):
            future.result(timeout=T)


def test_a_broken_stream_is_resumed_with_last_event_id(fake):
    def post(request):
        if json.loads(request.body).get("method") == "tools/call":
            fake.pending = request
            return (200, {"Content-Type": "text/event-stream"}, "retry: 10\nid: ev-7\ndata:\n\n")
        return fake.post(request)

    def get(request):
        fake.resumed_with = request.headers.get("Last-Event-ID")
        reply = json.dumps(answer(fake.pending, {"content": [{"type": "text", "text": "resumed"}]}))
        return (200, {"Content-Type": "text/event-stream"}, f"id: ev-8\ndata: {reply}\n\n")

    fake.reroute(post)
    fake.mock.add_callback(responses.GET, URL, callback=get)
    with connect() as client:
        assert client.call_tool("x", timeout=T).text == "resumed"
    assert fake.resumed_with == "ev-7"


def test_an_expired_session_is_renewed_and_the_request_retried_once(fake, caplog):
    calls = {"n": 0}

    def post(request):
        message = json.loads(request.body)
        if message.get("method") == "tools/list" and request.headers.get("Mcp-Session-Id") == "sess-1":
            calls["n"] += 1
            return (404, {}, "session not found")
        if message.get("method") == "initialize" and fake.session_id == "sess-1" and fake.seen:
            fake.session_id = "sess-2"
        return fake.post(request)

    fake.reroute(post)
    with connect() as client:
        assert client.list_tools(timeout=T) == []
        assert client.transport.session_id == "sess-2"
    methods = [(json.loads(r.body).get("method"), r.headers.get("Mcp-Session-Id")) for r in fake.seen]
    assert methods == [
        ("initialize", None),
        ("notifications/initialized", "sess-1"),
        ("initialize", None),
        ("notifications/initialized", "sess-2"),
        ("tools/list", "sess-2"),
    ]
    assert calls["n"] == 1
    assert "session sess-1 expired" in caplog.text


def test_a_session_that_keeps_expiring_is_an_error_not_a_loop(fake):
    def post(request):
        if json.loads(request.body).get("method") == "tools/list":
            return (404, {}, "gone")
        return fake.post(request)

    fake.reroute(post)
    with connect() as client, pytest.raises(mcpsync.SessionExpired, match="renewed session too"):
        client.list_tools(timeout=T)


def test_http_errors_carry_status_body_and_auth_hints(fake):
    def post(request):
        if json.loads(request.body).get("method") == "tools/list":
            return (
                401,
                {"WWW-Authenticate": 'Bearer resource_metadata="https://a/b"', "Mcp-Auth-Server": "https://auth"},
                "token expired",
            )
        if json.loads(request.body).get("method") == "ping":
            return (500, {}, "boom")
        return fake.post(request)

    fake.reroute(post)
    with connect() as client:
        with pytest.raises(mcpsync.AuthorizationRequired) as info:
            client.list_tools(timeout=T)
        assert isinstance(info.value, mcpsync.HTTPStatusError)  # what a 401 was before OAuth: still caught so
        assert str(info.value) == (
            'HTTP 401 from POST http://mcp.test/mcp: token expired [WWW-Authenticate: Bearer resource_metadata="https://a/b"; Mcp-Auth-Server: https://auth]: '
            "mcp.test wants a login, and nobody is here to give it; log in once with: mcpsync login --url http://mcp.test/mcp"
        )
        assert info.value.status_code == 401 and info.value.www_authenticate.startswith("Bearer")
        assert info.value.body == "token expired" and info.value.auth_server == "https://auth"
        assert info.value.login_command == "mcpsync login --url http://mcp.test/mcp"
        with pytest.raises(mcpsync.HTTPStatusError, match=r"^HTTP 500 from POST http://mcp.test/mcp: boom$") as failed:
            client.ping(timeout=T)
        assert (failed.value.method, failed.value.url) == ("POST", "http://mcp.test/mcp")


def test_a_notification_refused_raises(fake):
    def post(request):
        if json.loads(request.body).get("method") == "notifications/roots/list_changed":
            return (400, {}, "no thanks")
        return fake.post(request)

    fake.reroute(post)
    with (
        connect() as client,
        pytest.raises(mcpsync.HTTPStatusError, match=r"^HTTP 400 from POST http://mcp\.test/mcp: no thanks$"),
    ):
        client.notify("notifications/roots/list_changed")


def test_an_unexpected_content_type_is_a_protocol_error(fake):
    def post(request):
        if json.loads(request.body).get("method") == "ping":
            return (200, {"Content-Type": "text/html"}, "<html>")
        return fake.post(request)

    fake.reroute(post)
    with connect() as client, pytest.raises(mcpsync.ProtocolError, match="unexpected Content-Type 'text/html'"):
        client.ping(timeout=T)


def test_the_listener_stops_quietly_on_405(fake):
    fake.mock.add(responses.GET, URL, status=405)
    with connect(listen=True) as client:
        client.ping(timeout=T)
        listener = client.transport._listener
        listener.join(T)
        assert not listener.is_alive()
    gets = [c.request for c in fake.mock.calls if c.request.method == "GET"]
    assert len(gets) == 1 and gets[0].headers["Accept"] == "text/event-stream"


def test_the_listener_delivers_server_messages(fake):
    note = {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
    fake.mock.add(responses.GET, URL, body=f"data: {json.dumps(note)}\n\n", content_type="text/event-stream")
    fake.mock.add(responses.GET, URL, status=405)
    import threading

    seen = threading.Event()
    client = mcpsync.Client(StreamableHTTPTransport(URL), on_notification=lambda m, p: seen.set(), protocol="legacy")
    client.initialize(timeout=T)
    assert seen.wait(T)
    client.close()


def test_a_listener_stream_that_ends_reconnects_with_last_event_id(fake, monkeypatch):
    from mcpsync._wire.http import streamable as http_module

    monkeypatch.setattr(http_module, "LISTENER_BACKOFF", (0.01, 0.05))
    note = {"jsonrpc": "2.0", "method": "notifications/resources/list_changed"}
    fake.mock.add(responses.GET, URL, body=f"id: L1\ndata: {json.dumps(note)}\n\n", content_type="text/event-stream")
    reconnected = []

    def second(request):
        reconnected.append(request.headers.get("Last-Event-ID"))
        return (405, {}, "")

    fake.mock.add_callback(responses.GET, URL, callback=second)
    with connect(listen=True) as client:
        listener = client.transport._listener
        listener.join(T)
        assert not listener.is_alive()
    assert reconnected == ["L1"]


def test_a_request_accepted_with_202_is_answered_on_the_get_stream(fake, monkeypatch):
    import threading

    from mcpsync._wire.http import streamable as streamable_http

    # The fake's GET cannot open its stream before it has the answer to send, so connect() would wait
    # the whole LISTENER_START_WAIT (5 s) for it: a moment is as good here.
    monkeypatch.setattr(streamable_http, "LISTENER_START_WAIT", 0.1)
    posted = threading.Event()

    def post(request):
        if json.loads(request.body).get("method") == "tools/call":
            fake.call = request
            posted.set()
            return (202, {}, "")
        return fake.post(request)

    def get(request):
        if not posted.wait(T):
            return (405, {}, "")
        reply = json.dumps(answer(fake.call, {"content": [{"type": "text", "text": "via GET"}]}))
        return (200, {"Content-Type": "text/event-stream"}, f"data: {reply}\n\n")

    fake.reroute(post)
    fake.mock.add_callback(responses.GET, URL, callback=get)
    with connect(listen=True) as client:
        assert client.call_tool("x", timeout=T).text == "via GET"


def test_the_environment_is_read_once_when_the_session_is_made(monkeypatch):
    """Proxies and CA bundle from the environment still apply, without a lookup per request."""
    from mcpsync._wire.http.session import new_session

    for name in ("NO_PROXY", "no_proxy", "HTTP_PROXY", "http_proxy", "CURL_CA_BUNDLE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTP_PROXY", "http://proxy.test:3128")
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", "/etc/ssl/custom.pem")
    session = new_session(URL, 2)
    try:
        assert session.trust_env is False
        assert session.proxies["http"] == "http://proxy.test:3128"
        assert session.verify == "/etc/ssl/custom.pem"
    finally:
        session.close()


def test_a_request_given_up_on_while_queued_is_never_sent(fake):
    """One worker, busy: a request cancelled while it waits for the worker never reaches the server."""
    import threading

    release = threading.Event()

    def post(request):
        if json.loads(request.body).get("params", {}).get("name") == "blocker":
            release.wait(T)
        return fake.post(request)

    fake.results["tools/call"] = {"content": []}
    fake.reroute(post)
    with connect(max_connections=1) as client:
        blocker = client.send_request("tools/call", {"name": "blocker"})
        queued = client.send_request("tools/call", {"name": "queued"})
        assert queued.cancel()
        release.set()
        blocker.result(timeout=T)
        client.ping(timeout=T)
    names = [json.loads(r.body).get("params", {}).get("name") for r in fake.seen]
    assert "blocker" in names and "queued" not in names


def test_a_stream_answered_by_polling_is_followed_to_the_end(fake):
    """The server ends each stream after one event (2025-11-25 allows it): resumption goes on while it progresses."""
    polls = []

    def post(request):
        if json.loads(request.body).get("method") == "tools/call":
            fake.call = request
            return (200, {"Content-Type": "text/event-stream"}, "retry: 1\nid: 0\ndata:\n\n")
        return fake.post(request)

    def get(request):
        last = int(request.headers["Last-Event-ID"])
        polls.append(last)
        if last < 5:
            return (200, {"Content-Type": "text/event-stream"}, f"id: {last + 1}\ndata:\n\n")
        reply = json.dumps(answer(fake.call, {"content": [{"type": "text", "text": "polled"}]}))
        return (200, {"Content-Type": "text/event-stream"}, f"id: 6\ndata: {reply}\n\n")

    fake.reroute(post)
    fake.mock.add_callback(responses.GET, URL, callback=get)
    with connect(max_resumptions=2) as client:
        assert client.call_tool("x", timeout=T).text == "polled"
    assert polls == [0, 1, 2, 3, 4, 5]


def test_202_for_a_request_without_a_get_stream_fails_it(fake):
    def post(request):
        if json.loads(request.body).get("method") == "tools/call":
            return (202, {}, "")
        return fake.post(request)

    fake.reroute(post)
    with connect(listen=False) as client, pytest.raises(mcpsync.ProtocolError, match="no GET stream"):
        client.call_tool("x", timeout=T)


def test_failures_while_reading_an_answer_become_our_errors():
    """Whatever requests or urllib3 raise while a body is read, the caller gets one of our errors."""
    from mcpsync._wire.http.client import HTTPClient

    http = HTTPClient("srv", URL)
    try:
        with http.exchange(math.inf) as exchange:
            broken = exchange._translate(requests.exceptions.ChunkedEncodingError("connection reset"), "reading", URL)
            refused = exchange._translate(urllib3.exceptions.NewConnectionError(None, "refused"), "POST", URL)
    finally:
        http.close()
    assert type(broken) is mcpsync.TransportError and "reading the answer failed" in str(broken)
    assert isinstance(refused, mcpsync.ConnectError) and f"cannot connect to {URL}" in str(refused)


def test_cookies_the_server_sets_are_sent_back(fake):
    """A load balancer's sticky-session cookie must survive the lean send path."""

    def with_cookie(request):
        status, headers, body = fake.post(request)
        if json.loads(request.body).get("method") == "initialize":
            headers["Set-Cookie"] = "lb=node-2; Path=/"
        return status, headers, body

    fake.reroute(with_cookie)
    with connect() as client:
        client.ping(timeout=T)
    assert "Cookie" not in fake.seen[0].headers
    assert all(request.headers.get("Cookie") == "lb=node-2" for request in fake.seen[1:])


def test_a_redirected_post_is_followed_within_the_origin(fake):
    """A 307 to another path of the same server: the POST goes there, with its body, and the call succeeds."""
    old = "http://mcp.test/old-mcp"
    fake.mock.add(responses.POST, old, status=307, headers={"Location": "/mcp"})
    client = mcpsync.Client(StreamableHTTPTransport(old), protocol="legacy")
    client.initialize(timeout=T)
    try:
        client.ping(timeout=T)
    finally:
        client.close()
    assert [json.loads(r.body).get("method") for r in fake.seen[:3]] == [
        "initialize",
        "notifications/initialized",
        "ping",
    ]


def test_a_redirect_to_another_origin_is_refused_and_names_both_urls(fake):
    """The user's headers (a token, the session id) must never go to another origin: the official SDK
    refuses too. requests would have followed it, stripping only Authorization."""
    old = "http://old-mcp.test/mcp"
    fake.mock.add(responses.POST, old, status=307, headers={"Location": URL})
    client = mcpsync.Client(StreamableHTTPTransport(old, headers={"X-Api-Key": "secret"}), protocol="legacy")
    with pytest.raises(mcpsync.TransportError, match=f"redirected to {URL}, on another origin; not followed"):
        client.initialize(timeout=T)
    assert fake.seen == [], "nothing reached the other origin"


def test_a_header_given_in_another_case_replaces_the_sessions_own():
    """Header names are case-insensitive: ``user-agent`` must replace requests' ``User-Agent``, not join it."""
    from mcpsync._wire.http.client import HTTPClient

    http = HTTPClient("srv", URL, headers={"user-agent": "mine/1"})
    try:
        prepared = http.prepare("POST", URL, {"ACCEPT-ENCODING": "identity"}, b"{}")
    finally:
        http.close()
    names = [k for k in prepared.headers if k.lower() in ("user-agent", "accept-encoding")]
    assert sorted(n.lower() for n in names) == ["accept-encoding", "user-agent"]
    assert prepared.headers["User-Agent"] == "mine/1" and prepared.headers["Accept-Encoding"] == "identity"


def test_a_redirect_to_a_trick_url_counts_as_another_origin(fake):
    """A Location that urlsplit and urllib3 read differently is not followed, whatever it looks like."""
    old = "http://mcp.test/old-mcp"
    fake.mock.add(responses.POST, old, status=307, headers={"Location": "http://127.0.0.2:80\\@mcp.test/mcp"})
    client = mcpsync.Client(StreamableHTTPTransport(old, headers={"X-Api-Key": "secret"}), protocol="legacy")
    with pytest.raises(mcpsync.TransportError, match="on another origin; not followed"):
        client.initialize(timeout=T)
    assert fake.seen == []
