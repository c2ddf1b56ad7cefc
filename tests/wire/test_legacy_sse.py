"""mcpsync._wire.http.legacy_sse (HTTP+SSE, 2024-11-05) with a faked server: the endpoint event and its rules."""

import pytest
import responses

import mcpsync
from mcpsync._wire.http.legacy_sse import SSETransport
from tests.wire.helpers import Wired

URL = "http://mcp.test/sse"


def stream(*events: str) -> str:
    return "".join(f"{event}\n\n" for event in events)


def test_a_relative_endpoint_is_resolved_against_the_stream_url():
    transport = SSETransport(URL)
    transport._accept_endpoint(" /messages?session_id=abc\n")
    assert transport.endpoint_url == "http://mcp.test/messages?session_id=abc"


@responses.activate
def test_a_stream_that_ends_while_opening_is_transport_closed():
    """The endpoint arrives, then the stream ends at once: start() says so instead of hanging."""
    responses.add(responses.GET, URL, body=stream("event: endpoint\ndata: /messages"), content_type="text/event-stream")
    import time

    transport = Wired(SSETransport(URL, connect_timeout=5))
    try:
        transport.start()  # may win the race with the stream's end, or lose it and raise
    except mcpsync.TransportClosed as exc:
        assert "the server ended the event stream" in str(exc)
    deadline = time.monotonic() + 5
    while transport.is_connected and time.monotonic() < deadline:
        time.sleep(0.01)
    with pytest.raises(mcpsync.TransportClosed, match="the server ended the event stream"):
        transport.request("ping", timeout=5)
    transport.close()


@responses.activate
def test_an_endpoint_on_another_origin_is_refused():
    responses.add(
        responses.GET,
        URL,
        body=stream("event: endpoint\ndata: http://elsewhere.test/messages"),
        content_type="text/event-stream",
    )
    transport = Wired(SSETransport(URL, connect_timeout=5))
    with pytest.raises(mcpsync.ProtocolError, match="another origin"):
        transport.start()
    transport.close()


@responses.activate
def test_a_stream_without_endpoint_is_a_connect_error():
    responses.add(responses.GET, URL, body=stream("event: message\ndata: {}"), content_type="text/event-stream")
    transport = Wired(SSETransport(URL, connect_timeout=1))
    with pytest.raises(mcpsync.ConnectError, match="no 'endpoint' event"):
        transport.start()
    transport.close()


@responses.activate
def test_a_refused_stream_is_an_http_status_error():
    responses.add(responses.GET, URL, status=401, body="who are you", headers={"WWW-Authenticate": "Bearer"})
    transport = Wired(SSETransport(URL, connect_timeout=5))
    with pytest.raises(
        mcpsync.HTTPStatusError,
        match=r"^HTTP 401 from GET http://mcp.test/sse: who are you \[WWW-Authenticate: Bearer\]: ",
    ):
        transport.start()
    transport.close()


@pytest.mark.parametrize(
    "stream_url, endpoint, same",
    [
        ("http://example.com/sse", "http://EXAMPLE.com/messages", True),
        ("http://example.com:80/sse", "/messages", True),
        ("https://example.com/sse", "https://example.com:443/messages", True),
        ("http://example.com/sse", "https://example.com/messages", False),
        ("http://example.com/sse", "http://example.com:8080/messages", False),
        ("http://example.com/sse", "http://evil.example.com/messages", False),
    ],
)
def test_same_origin_is_compared_as_browsers_do(stream_url, endpoint, same):
    transport = SSETransport(stream_url)
    if same:
        transport._accept_endpoint(endpoint)
    else:
        with pytest.raises(mcpsync.ProtocolError, match="another origin"):
            transport._accept_endpoint(endpoint)


@pytest.mark.parametrize(
    "endpoint, why",
    [
        ("http://127.0.0.2:9001\\@mcp.test/messages", "backslash"),  # urlsplit: mcp.test; urllib3: 127.0.0.2
        ("http://mcp.test@127.0.0.2/messages", "another origin"),  # user info that looks like a host
        ("http://mcp.test/mes sages", "white space"),
    ],
)
def test_an_endpoint_that_readers_could_see_differently_is_refused(endpoint, why):
    transport = SSETransport(URL)
    with pytest.raises(mcpsync.ProtocolError, match=why) as info:
        transport._accept_endpoint(endpoint)
    assert transport.endpoint_url is None
    assert "secret" not in str(info.value)


def test_user_information_on_the_same_origin_is_accepted_and_not_shown():
    """Credentials in a URL are the user's business (requests sends them as Basic auth), never a reason to
    refuse a same-origin endpoint; an error text shows the URL without them."""
    transport = SSETransport("http://user:secret@mcp.test/sse")
    transport._accept_endpoint("/messages?session_id=1")
    assert transport.endpoint_url == "http://user:secret@mcp.test/messages?session_id=1"
    with pytest.raises(mcpsync.ProtocolError) as info:
        transport._accept_endpoint("http://user:secret@elsewhere.test/messages")
    assert "secret" not in str(info.value) and "elsewhere.test" in str(info.value)


@responses.activate
def test_the_issues_endpoint_never_receives_our_headers():
    """The exact string of the issue: urlsplit sees 127.0.0.1, urllib3 would connect to 127.0.0.2 and hand
    it the Authorization and X-Api-Key headers. It is refused before any POST."""
    base = "http://127.0.0.1:9000"
    responses.add(
        responses.GET,
        f"{base}/sse",
        body=stream("event: endpoint\ndata: http://127.0.0.2:9001\\@127.0.0.1:9000/messages"),
        content_type="text/event-stream",
    )
    transport = Wired(SSETransport(f"{base}/sse", headers={"Authorization": "Bearer t", "X-Api-Key": "k"}))
    with pytest.raises(mcpsync.ProtocolError, match="backslash"):
        transport.start()
    transport.close()
    assert [call.request.method for call in responses.calls] == ["GET"]
