"""A protected MCP server and its authorization server, on 127.0.0.1, in this process: for tests.

    from tests.oauth_server import OAuthTestServer

    with OAuthTestServer() as server:
        auth = mcpsync.OAuth(on_authorize=server.approve, store=mcpsync.MemoryTokenStore())
        with mcpsync.connect(server.url, auth=auth) as client:
            client.call_tool("echo", {"text": "hi"})

``/mcp`` is the test server's Streamable HTTP endpoint (its tools, JSON
answers); it answers ``401`` without a valid token, and ``403
insufficient_scope`` to a call of a tool in ``scoped_tools`` without the
scope. The same origin serves the authorization server (issuer
``<origin><issuer_path>``): metadata, ``/authorize`` (approves at once:
redirects with a code), ``/token`` (authorization code with PKCE, refresh,
client credentials, JWT-bearer, token exchange for an ID-JAG at ``/idp/token``),
``/register`` (RFC 7591). ``options`` switch every variant a client must
handle (see ``Options``), and ``seen`` records each request (method, path,
form, query, headers that matter) for tests to check. ``approve`` is the
browser of the tests: it GETs the authorization URL without following the
redirect and returns its ``Location``.
"""

from __future__ import annotations

import threading
from dataclasses import replace
from typing import Any, Optional

import requests

from .authority import Authority, Options
from .http import AuthHTTPServer

__all__ = ["OAuthTestServer", "Options"]


class OAuthTestServer(Authority):
    """The servers, on a free port; ``close`` (or ``with``) stops them. See the module docstring.

    What they hold and how they decide (``seen``, ``access_tokens``, ``migrate`` ...) is ``Authority``'s
    (``tests.oauth_server.authority``); ``options`` are ``Options``.
    """

    def __init__(self, options: Optional[Options] = None, **changes: Any) -> None:
        chosen = replace(options or Options(), **changes)
        self._httpd = AuthHTTPServer(self)
        super().__init__(chosen, f"http://{chosen.host}:{self._httpd.server_address[1]}")
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="oauth-test-server", daemon=True
        )
        self._thread.start()

    def __enter__(self) -> OAuthTestServer:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        self.closed.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(5)

    def approve(self, authorization_url: str) -> str:
        """The browser: GET the authorization URL, do not follow its redirect, return ``Location``."""
        response = requests.get(authorization_url, allow_redirects=False, timeout=10)
        location = response.headers.get("Location")
        if response.status_code not in (302, 303) or not location:
            raise AssertionError(f"no redirect from the authorization endpoint: {response.status_code} {response.text}")
        return location
