"""Which client we are at an authorization server, in the specification's order of preference.

1. Pre-registered credentials the user gave (``client_id``, perhaps a secret
   or a key). Bound to one authorization server: given ``issuer=``, another
   one is refused.
2. A client ID metadata document: when the user gives its URL and the server
   says ``client_id_metadata_document_supported``, that URL, exactly, is the
   ``client_id``.
3. A registration we made before at this issuer (kept in the token store
   under the issuer: never shown to another authorization server).
4. Dynamic client registration (RFC 7591) at the server's
   ``registration_endpoint``.
"""

from __future__ import annotations

import logging
from typing import Any, Optional
from urllib.parse import urlsplit

from .._core.errors import AuthorizationError
from .addresses import is_loopback
from .discovery import AuthServer
from .http import AuthHTTP
from .store import TokenStore, client_key
from .tokens import ClientInfo, choose_auth_method

__all__ = ["Registrar"]

logger = logging.getLogger("mcpsync.auth")


class Registrar:
    """The user's client settings, applied to one authorization server at a time."""

    def __init__(
        self,
        *,
        client_id: Optional[str],
        client_secret: Optional[str],
        private_key: Any,
        client_metadata_url: Optional[str],
        issuer: Optional[str],
        client_name: str,
        auth_method: Optional[str],
        store: TokenStore,
    ) -> None:
        if client_metadata_url is not None:
            parts = urlsplit(client_metadata_url)
            if parts.scheme != "https" or parts.path in ("", "/"):
                raise AuthorizationError(
                    f"client_metadata_url must be an https URL with a path, not {client_metadata_url!r}"
                )
        self.client_id = client_id
        self.client_secret = client_secret
        self.private_key = private_key
        self.client_metadata_url = client_metadata_url
        self.issuer = issuer
        self.client_name = client_name
        self.auth_method = auth_method
        self.store = store

    def client(
        self, http: AuthHTTP, server: AuthServer, redirect_uri: Optional[str], grant_types: tuple[str, ...]
    ) -> ClientInfo:
        """The client to be at ``server``; registers one if need be (see the module docstring).

        Raises:
            AuthorizationError: pre-registered credentials for another issuer, or no way to get a client.
        """
        name = http.name
        if self.client_id is not None:
            if self.issuer is not None and self.issuer != server.issuer:
                raise AuthorizationError(
                    f"{name}: the client {self.client_id!r} is registered at {self.issuer}, but the server "
                    f"now uses the authorization server {server.issuer}; not sent there",
                    server=name,
                )
            method = self.auth_method or choose_auth_method(
                server.metadata.get("token_endpoint_auth_methods_supported"),
                secret=self.client_secret is not None,
                key=self.private_key is not None,
            )
            return ClientInfo(self.client_id, self.client_secret, method, redirect_uri, "preregistered")
        if (
            self.client_metadata_url is not None
            and server.metadata.get("client_id_metadata_document_supported") is True
        ):
            method = "private_key_jwt" if self.private_key is not None else "none"
            return ClientInfo(self.client_metadata_url, None, method, redirect_uri, "metadata-document")
        stored = self.store.load(client_key(server.issuer))
        known = ClientInfo.from_store(stored) if stored else None
        if known is not None and (redirect_uri is None or known.redirect_uri in (None, redirect_uri)):
            return known
        return self.register(http, server, redirect_uri, grant_types)

    def register(
        self, http: AuthHTTP, server: AuthServer, redirect_uri: Optional[str], grant_types: tuple[str, ...]
    ) -> ClientInfo:
        """Dynamic client registration (RFC 7591) at ``server``; the result is kept under its issuer."""
        name = http.name
        endpoint = server.endpoint("registration_endpoint")
        if endpoint is None:
            hint = " or client_metadata_url=..." if server.metadata.get("client_id_metadata_document_supported") else ""
            raise AuthorizationError(
                f"{name}: the authorization server {server.issuer} takes no dynamic registration; "
                f"pass the client_id of a client registered there (client_id=...{hint})",
                server=name,
            )
        supported = server.metadata.get("token_endpoint_auth_methods_supported")
        listed = supported if isinstance(supported, list) else ["client_secret_basic"]
        method = "none" if "none" in listed else choose_auth_method(listed, secret=True, key=False)
        document: dict[str, Any] = {
            "client_name": self.client_name,
            "grant_types": list(grant_types),
            "response_types": ["code"] if "authorization_code" in grant_types else [],
            "token_endpoint_auth_method": method,
        }
        if redirect_uri is not None:
            document["redirect_uris"] = [redirect_uri]
            host = urlsplit(redirect_uri).hostname or ""
            document["application_type"] = "native" if is_loopback(host) else "web"
        answer = http.post_json(endpoint, document)
        data = answer.data
        if not answer.ok or data is None or not isinstance(data.get("client_id"), str):
            raise AuthorizationError(
                f"{name}: dynamic registration at {endpoint} failed ({answer.error_text()})",
                server=name,
                error=(data or {}).get("error") if isinstance((data or {}).get("error"), str) else None,
            )
        secret = data.get("client_secret") if isinstance(data.get("client_secret"), str) else None
        got_method = data.get("token_endpoint_auth_method")
        method = got_method if isinstance(got_method, str) else ("client_secret_basic" if secret else "none")
        client = ClientInfo(data["client_id"], secret, method, redirect_uri, "dynamic")
        self.store.save(client_key(server.issuer), client.to_store())
        logger.info("server %r: registered as a client at %s", name, server.issuer)
        return client
