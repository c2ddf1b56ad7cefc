"""A 100 kB header value is sent; a server that refuses so long a head answers with a status (docs/faults.md)."""

from __future__ import annotations

import pytest

import mcpsync
from mcpsync import HTTPStatusError
from tests.http_server import running_http_server

T = 20


def test_a_100_kb_header_argument_refused_by_the_server_is_an_http_status_error():
    """``region`` of the bundled server's ``region_echo`` is an ``x-mcp-header`` argument: 100 kB of it goes
    in ``Mcp-Param-Region``; the server (Python's http.server, 64 KiB a line) answers 431, which the caller
    gets as ``HTTPStatusError`` naming the status; the client is usable afterwards."""
    with running_http_server() as url:
        with mcpsync.connect(f"{url}/mcp", protocol="modern", timeout=T) as client:
            with pytest.raises(HTTPStatusError, match=r"^HTTP 431 from POST ") as refused:
                client.call_tool("region_echo", {"text": "x", "region": "a" * 100_000}, timeout=T)
            assert refused.value.status_code == 431
            assert client.call_tool("echo", {"text": "y"}, timeout=T).text == "y"
