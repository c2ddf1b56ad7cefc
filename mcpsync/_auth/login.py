"""The login: MCP's authorization-code flow, from the authorization URL to the token record.

PKCE S256 (a server that does not list it is refused), ``state`` and the
verifier from ``secrets``, ``resource`` in both requests, the registration
(``registration``) for the redirect URI of the loopback receiver (on the port
of the registration kept for the issuer, when there is one). The person's
part is ``browser.present``, or the ``on_authorize`` callable. The redirect's
``state`` and ``iss`` (RFC 9207, the whole table, plain comparison) are
checked before the code goes to any token endpoint. ``ServerAuth.login`` runs
it (with a ``LoginFlow``: what the flow needs of it) and keeps what it returns.
"""

from __future__ import annotations

import logging
import math
import secrets
import time
from dataclasses import dataclass
from typing import Any, Callable, Optional
from urllib.parse import parse_qs, urlencode, urlsplit, urlunsplit

from .._core.errors import AuthorizationError, AuthorizationRequired
from .browser import CALLBACK_PATH, LoopbackReceiver, present
from .discovery import Discovered
from .dpop import DPoPKey
from .http import AuthHTTP
from .settings import OAuthSettings
from .store import client_key
from .tokens import record_from_response, request_token

__all__ = ["LoginFlow", "authorization_code_flow", "code_from"]

logger = logging.getLogger("mcpsync.auth")


@dataclass(frozen=True)
class LoginFlow:
    """What the flow needs of the server's auth: its settings, the server, the error to raise when
    nobody can log in (``None``: someone can), the maker of a DPoP key, and the token held now."""

    settings: OAuthSettings
    name: str
    url: str
    session: Any
    nobody: Optional[AuthorizationRequired]
    new_dpop_key: Callable[[Discovered], Optional[DPoPKey]]
    previous: Optional[dict[str, Any]]


def authorization_code_flow(
    auth: LoginFlow, discovered: Discovered, scopes: tuple[str, ...], deadline: float = math.inf
) -> tuple[dict[str, Any], float]:
    """Run the authorization-code flow for ``auth``'s server; the token record it ends with (not kept
    yet), and the seconds the person took. The registration ends by ``deadline`` (the caller's), the
    token request by ``deadline`` moved on by the person's time: the person's wait is bounded by
    ``login_timeout`` alone."""
    from authlib.oauth2.rfc7636 import create_s256_code_challenge

    name, server, owner = auth.name, discovered.server, auth.settings
    methods = server.metadata.get("code_challenge_methods_supported")
    if not isinstance(methods, list) or "S256" not in methods:
        raise AuthorizationError(
            f"{name}: the authorization server {server.issuer} does not say it supports PKCE with S256 "
            f"(code_challenge_methods_supported: {methods!r}); refused",
            server=name,
        )
    authorization_endpoint = server.endpoint("authorization_endpoint")
    token_endpoint = server.endpoint("token_endpoint")
    if authorization_endpoint is None or token_endpoint is None:
        raise AuthorizationError(
            f"{name}: the authorization server {server.issuer} names no authorization or token endpoint",
            server=name,
        )
    if auth.nobody is not None:
        raise auth.nobody
    state = secrets.token_urlsafe(32)
    verifier = secrets.token_urlsafe(64)
    with _receiver(auth, server.issuer, state) as receiver:
        redirect_uri = owner.redirect_uri or receiver.redirect_uri
        with AuthHTTP(name, auth.url, deadline=deadline, session=auth.session) as http:
            client = owner.registrar.client(http, server, redirect_uri, ("authorization_code", "refresh_token"))
        params = {
            "response_type": "code",
            "client_id": client.client_id,
            "redirect_uri": redirect_uri,
            "state": state,
            "code_challenge": create_s256_code_challenge(verifier),
            "code_challenge_method": "S256",
            "resource": discovered.resource,
        }
        if scopes:
            params["scope"] = " ".join(scopes)
        url = _add_query(authorization_endpoint, params)
        logger.info("server %r: authorization needed at %s", name, server.issuer)
        asked = time.monotonic()
        try:
            if owner.on_authorize is not None:
                redirected = owner.on_authorize(url)
            else:
                redirected = present(url, receiver, name, owner.login_timeout)
        finally:
            person = time.monotonic() - asked
    code = code_from(name, redirected, state, server.issuer, server.metadata)
    form = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": redirect_uri,
        "code_verifier": verifier,
        "resource": discovered.resource,
    }
    key = auth.new_dpop_key(discovered)
    with AuthHTTP(name, auth.url, deadline=deadline + person, session=auth.session) as http:
        response = request_token(
            http,
            token_endpoint,
            client,
            form,
            issuer=server.issuer,
            private_key=owner.private_key,
            algorithm=owner.algorithm,
            dpop=key,
        )
    record = record_from_response(
        response,
        dpop=key,
        issuer=server.issuer,
        resource=discovered.resource,
        token_endpoint=token_endpoint,
        client=client,
        scopes=scopes,
        previous=auth.previous,
    )
    return record, person


def _receiver(auth: LoginFlow, issuer: str, state: str) -> LoopbackReceiver:
    """The loopback receiver, on the port of the registration kept for ``issuer`` if there is one."""
    owner = auth.settings
    port = owner.redirect_port or 0
    if owner.redirect_uri is not None:
        parts = urlsplit(owner.redirect_uri)
        fixed = (parts.port or 0) if parts.hostname == "127.0.0.1" else 0
        return _chosen_port(auth.name, state, fixed, parts.path or "/", "redirect_uri")
    if port:
        return _chosen_port(auth.name, state, port, CALLBACK_PATH, "redirect_port")
    if owner.registrar.client_id is None:
        stored = owner.store.load(client_key(issuer)) or {}
        registered = stored.get("redirect_uri")
        if isinstance(registered, str) and registered.startswith("http://127.0.0.1:"):
            port = urlsplit(registered).port or 0
    try:
        return LoopbackReceiver(state, port)
    except OSError:
        logger.info("server %r: port %d is taken; the login uses another (and registers again)", auth.name, port)
        return LoopbackReceiver(state, 0)


def _chosen_port(name: str, state: str, port: int, path: str, option: str) -> LoopbackReceiver:
    """The receiver on the port the user chose: another would not be the redirect URI their client
    is registered with, so a taken one is an error that says so (not another port)."""
    try:
        return LoopbackReceiver(state, port, path)
    except OSError as exc:
        raise AuthorizationError(
            f"{name}: the login's redirect port {port} ({option}) cannot be used: {exc.strerror or exc}; "
            "another program may hold it: close it, or choose another port; nothing was authorized",
            server=name,
        ) from None


def code_from(name: str, redirected: str, state: str, issuer: str, metadata: dict[str, Any]) -> str:
    """The authorization code of the redirect, once ``state`` and ``iss`` check out (RFC 9207 §2.4)."""
    if not isinstance(redirected, str) or not redirected:
        raise AuthorizationRequired(f"{name}: the login gave no redirect URL; nothing was authorized", server=name)
    query = parse_qs(urlsplit(redirected.strip()).query)

    def one(key: str) -> Optional[str]:
        values = query.get(key)
        return values[0] if values else None

    if one("state") != state:
        raise AuthorizationError(
            f"{name}: the redirect's state does not match the login's; refused (not the login we started)",
            server=name,
        )
    iss = one("iss")
    if iss is not None and iss != issuer:
        raise AuthorizationError(
            f"{name}: the redirect came from the issuer {iss!r}, not {issuer!r}; refused before the token request",
            server=name,
        )
    if iss is None and metadata.get("authorization_response_iss_parameter_supported") is True:
        raise AuthorizationError(
            f"{name}: the authorization server says it names itself in redirects (iss), and this one "
            "does not; refused before the token request",
            server=name,
        )
    error = one("error")
    if error is not None:
        description = one("error_description") or ""
        raise AuthorizationError(
            f"{name}: the authorization server refused: {error}{': ' + description[:300] if description else ''}",
            server=name,
            error=error,
        )
    code = one("code")
    if not code:
        raise AuthorizationError(f"{name}: the redirect carries no authorization code", server=name)
    return code


def _add_query(url: str, params: dict[str, str]) -> str:
    parts = urlsplit(url)
    query = parts.query + ("&" if parts.query else "") + urlencode(params)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, query, parts.fragment))
