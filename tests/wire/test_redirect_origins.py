"""A redirect is followed within its origin only: scheme, host and port, as browsers compare them.

The other redirect tests change the host; a check that compared the host alone would pass them. Here
the host stays and the port or the scheme changes (http to https and back): each is another origin,
refused with ``TransportError`` naming both URLs, and nothing is sent there.
"""

from __future__ import annotations

import json

import pytest
import responses

import mcpsync
from mcpsync._wire import StreamableHTTPTransport

T = 10


def _initialize_answer(request):
    message = json.loads(request.body)
    if "id" not in message:  # notifications/initialized
        return (202, {}, "")
    result = {"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "fake", "version": "1"}}
    return (
        200,
        {"Content-Type": "application/json"},
        json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}),
    )


@pytest.mark.parametrize(
    "start, target",
    [
        ("http://mcp.test/mcp", "http://mcp.test:8080/mcp"),  # another port
        ("http://mcp.test:8080/mcp", "http://mcp.test/mcp"),  # back to the default port
        ("http://mcp.test/mcp", "https://mcp.test/mcp"),  # http to https
        ("https://mcp.test/mcp", "http://mcp.test/mcp"),  # https to http
        ("http://mcp.test:443/mcp", "https://mcp.test/mcp"),  # the same port number, another scheme
    ],
)
def test_a_redirect_to_the_same_host_on_another_port_or_scheme_is_refused(start, target):
    """The server at ``start`` answers 307 to ``target`` (same host): ``TransportError``, nothing sent there."""
    reached = []
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        mock.add(responses.POST, start, status=307, headers={"Location": target})
        mock.add_callback(responses.POST, target, callback=lambda request: reached.append(request) or (500, {}, ""))
        client = mcpsync.Client(
            StreamableHTTPTransport(start, headers={"X-Api-Key": "secret"}, listen=False), protocol="legacy"
        )
        try:
            with pytest.raises(
                mcpsync.TransportError, match=f"redirected to {target}, on another origin; not followed"
            ):
                client.initialize(timeout=T)
        finally:
            client.close()
    assert reached == [], "nothing reached the other origin"


def test_a_redirect_to_the_same_origin_spelt_with_its_default_port_is_followed():
    """``http://mcp.test/`` and ``http://mcp.test:80/`` are one origin: the 307 is followed, the handshake ends."""
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        mock.add(responses.POST, "http://mcp.test/old", status=307, headers={"Location": "http://mcp.test:80/mcp"})
        mock.add_callback(responses.POST, "http://mcp.test:80/mcp", callback=_initialize_answer)
        mock.add(responses.DELETE, "http://mcp.test:80/mcp", status=204)
        client = mcpsync.Client(StreamableHTTPTransport("http://mcp.test/old", listen=False), protocol="legacy")
        try:
            assert client.initialize(timeout=T)["serverInfo"]["name"] == "fake"
        finally:
            client.close()
