"""A token endpoint that answers with a redirect to another origin (the code or the secret in the
body that would follow it): the attack holds, and this keeps it holding (issue 22, "not yet tried")."""

from __future__ import annotations

import contextlib
import http.server
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

import mcpsync
from mcpsync import AuthorizationError, MCPError, MemoryTokenStore
from mcpsync._auth.http import AuthHTTP
from mcpsync._auth.tokens import ClientInfo, request_token
from tests.oauth_server import OAuthTestServer

T = 10


def _server(status: int, location: str = "") -> tuple[http.server.ThreadingHTTPServer, list[dict[str, Any]]]:
    seen: list[dict[str, Any]] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            seen.append({"path": self.path, "authorization": self.headers.get("Authorization"), "body": body})
            self.send_response(status)
            if location:
                self.send_header("Location", location)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    return http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler), seen


@contextlib.contextmanager
def thief_and_redirector(status: int) -> Iterator[tuple[str, list[dict[str, Any]], list[dict[str, Any]]]]:
    thief, stolen = _server(200)
    # Another origin: another host name for the same machine, and another port.
    redirector, asked = _server(status, f"http://localhost:{thief.server_address[1]}/steal")
    threads = [threading.Thread(target=s.serve_forever, kwargs={"poll_interval": 0.05}) for s in (thief, redirector)]
    for thread in threads:
        thread.start()
    try:
        yield f"http://127.0.0.1:{redirector.server_address[1]}/token", asked, stolen
    finally:
        for server in (thief, redirector):
            server.shutdown()
            server.server_close()
        for thread in threads:
            thread.join(T)


@pytest.mark.parametrize("status", [307, 308])
def test_a_token_endpoint_redirecting_to_another_origin_gets_the_grant_once_and_the_other_origin_nothing(
    status: int,
) -> None:
    """A 307 or 308 keeps the method and the body (the code, the verifier, the secret): the redirect
    is refused as a typed error naming both URLs, and nothing reaches the other origin."""
    with thief_and_redirector(status) as (url, asked, stolen):
        with AuthHTTP("s", url, deadline=time.monotonic() + T) as http_:
            with pytest.raises(MCPError, match="another origin"):
                request_token(
                    http_,
                    url,
                    ClientInfo("svc", "secret", "client_secret_basic"),
                    {"grant_type": "authorization_code", "code": "the-code", "code_verifier": "v"},
                    issuer=url.rsplit("/", 1)[0],
                )
        assert len(asked) == 1 and stolen == []


def _login(server: OAuthTestServer) -> mcpsync.OAuth:
    return mcpsync.OAuth(on_authorize=server.approve, store=MemoryTokenStore())


def test_a_token_endpoint_that_redirects_to_another_origin_is_not_followed(local_service):
    """Attack: the token endpoint answers the code's redemption with a 307 (which keeps the POST and
    its body) to another origin. Promise: not followed: the code and the verifier never reach it,
    and the error names both URLs."""
    steal = f"http://127.0.0.1:{local_service.port}/steal"
    with OAuthTestServer(token_redirect=steal) as server:
        with pytest.raises(AuthorizationError, match="another origin; not followed") as raised:
            mcpsync.connect(server.url, auth=_login(server), timeout=T).close()
        assert steal in str(raised.value)
        assert local_service.seen == []
        assert len(server.requests_to("/token")) == 1
