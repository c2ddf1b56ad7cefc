"""The HTTP requests of authorization (metadata, registration, tokens), on mcpsync's one HTTP path.

Each goes through an ``HTTPClient`` exchange of its own, so the rules of
every other request hold: a deadline for the whole of it whatever the server
trickles, same-origin redirects only, every failure one of our errors. A body
is read up to ``MAX_BODY`` bytes (decompressed) and must be a JSON object.
Nothing here logs a body or a header: they hold tokens and secrets.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Optional

from requests.structures import CaseInsensitiveDict

from .._core.errors import AuthorizationError, MCPError
from .._wire.http.client import HTTPClient, released_after
from .._wire.http.urls import origin
from .addresses import check_url

__all__ = ["AUTH_TIMEOUT", "MAX_BODY", "Answer", "AuthHTTP"]

#: Seconds one authorization request may take at most, whatever time the caller has.
AUTH_TIMEOUT = 30.0
#: Bytes of an authorization server's answer read at most: metadata and tokens are small.
MAX_BODY = 1024 * 1024


@dataclass(frozen=True)
class Answer:
    """An answer: its status, headers, and its body as a JSON object (``None`` if it was not one)."""

    status: int
    headers: Mapping[str, str]
    data: Optional[dict[str, Any]]

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300 and self.data is not None

    def error_text(self) -> str:
        """``error: error_description`` of an OAuth error answer, or the status."""
        data = self.data or {}
        code = data.get("error")
        if not isinstance(code, str):
            return f"HTTP {self.status}"
        description = data.get("error_description")
        text = f"{code}: {description}" if isinstance(description, str) and description else code
        return f"HTTP {self.status}, {text[:300]}"


class AuthHTTP:
    """Requests to one authorization server or metadata host; close it (or use ``with``) when done."""

    def __init__(self, name: str, url: str, *, deadline: float, session: Any = None) -> None:
        self.name = name
        self.deadline = min(deadline, time.monotonic() + AUTH_TIMEOUT)
        #: The MCP server's URL: what every URL fetched here is checked against (``addresses``).
        self.server_url = url
        self._clients: dict[str, HTTPClient] = {}
        self._trusted: set[str] = set()
        self._session = session

    def __enter__(self) -> AuthHTTP:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        for client in self._clients.values():
            client.close()
        self._clients.clear()

    def check(self, url: str, what: str) -> str:
        """``url`` if it may be fetched for this server (``addresses.check_url``); else the refusal."""
        if url in self._trusted:
            return url
        return check_url(url, what, self.name, self.server_url)

    def trust(self, url: str) -> None:
        """Fetch ``url`` whatever its host: one the user configured (an identity provider), not the server."""
        self._trusted.add(url)

    def get(self, url: str, headers: Optional[Mapping[str, str]] = None) -> Answer:
        return self._send("GET", url, {"Accept": "application/json", **(headers or {})}, None)

    def post_encoded(self, url: str, body: bytes, headers: Mapping[str, str]) -> Answer:
        """POST ``body`` as it is (a form already encoded, with its client authentication)."""
        return self._send("POST", url, headers, body)

    def post_json(self, url: str, document: Mapping[str, Any]) -> Answer:
        body = json.dumps(document).encode()
        return self._send("POST", url, {"Accept": "application/json", "Content-Type": "application/json"}, body)

    def _client(self, url: str) -> HTTPClient:
        try:
            key = "%s://%s:%s" % origin(url)
        except ValueError as exc:
            raise AuthorizationError(f"{self.name}: refused to fetch {url!r}: {exc}", server=self.name) from None
        client = self._clients.get(key)
        if client is None:
            client = self._clients[key] = HTTPClient(
                f"{self.name} (authorization)",
                url,
                session=self._session,
                connect_timeout=10.0,
                read_timeout=AUTH_TIMEOUT,
            )
            if client.own_session:
                client.session.auth = None  # no .netrc login: the client authentication is ours to send
        return client

    def _send(self, method: str, url: str, headers: Mapping[str, str], body: Optional[bytes]) -> Answer:
        self.check(url, "URL")  # discovery checked it already with a better name; this is the last gate
        client = self._client(url)
        try:
            with client.exchange(self.deadline) as exchange:
                with released_after(exchange.send(method, url, headers, body)) as response:
                    data = b""
                    for chunk in exchange.chunks(response):
                        data += chunk
                        if len(data) > MAX_BODY:
                            raise AuthorizationError(
                                f"{self.name}: the answer of {url} is over {MAX_BODY} bytes; not read",
                                server=self.name,
                            )
                    # Header names without case (a Node server writes "dpop-nonce").
                    return Answer(response.status_code, CaseInsensitiveDict(response.headers), _json_object(data))
        except AuthorizationError:
            raise
        except MCPError as exc:
            raise AuthorizationError(f"{self.name}: {method} {url} failed: {exc}", server=self.name) from exc


def _json_object(data: bytes) -> Optional[dict[str, Any]]:
    try:
        value = json.loads(data)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None
