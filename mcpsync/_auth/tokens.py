"""The token endpoint: client authentication, grant requests, and the token records we keep.

Client authentication uses Authlib's encoders (``client_secret_basic``,
``client_secret_post``, ``none``, and ``private_key_jwt`` signed with
joserfc); both are imported on the first token request, never by ``import
mcpsync``. A token record is a plain dict (what the store keeps):
``access_token``, ``token_type``, ``refresh_token``, ``expires_at`` (epoch
seconds), ``scope``, and where it came from (``issuer``, ``resource``,
``token_endpoint``, ``client_id``), so that a later run can refresh it
without discovering anything again.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from typing import Any, Optional
from urllib.parse import urlencode

from .._core.errors import AuthorizationError
from .discovery import Discovered
from .dpop import DPoPKey
from .http import AuthHTTP

__all__ = [
    "ClientInfo",
    "GrantRequest",
    "choose_auth_method",
    "expires_soon",
    "load_private_key",
    "record_from_response",
    "request_token",
]

#: Seconds before expiry at which a token is refreshed rather than sent.
REFRESH_LEEWAY = 60.0
_KNOWN_METHODS = ("client_secret_basic", "client_secret_post", "none", "private_key_jwt")


@dataclass(frozen=True)
class ClientInfo:
    """A client as one authorization server knows it."""

    client_id: str
    client_secret: Optional[str] = None
    auth_method: str = "none"
    #: The redirect URI it was registered with (dynamic registration), if any.
    redirect_uri: Optional[str] = None
    #: How it came to be: ``"preregistered"``, ``"metadata-document"`` or ``"dynamic"``.
    kind: str = "preregistered"

    def to_store(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_store(cls, value: dict[str, Any]) -> Optional[ClientInfo]:
        if not isinstance(value.get("client_id"), str):
            return None
        known = {
            k: value[k] for k in ("client_id", "client_secret", "auth_method", "redirect_uri", "kind") if k in value
        }
        return cls(**known)


def choose_auth_method(supported: Any, *, secret: bool, key: bool) -> str:
    """The token endpoint's client authentication: what the server lists (RFC 8414's default:
    ``client_secret_basic``) and what the client holds (a key, a secret, or nothing)."""
    listed = [m for m in supported if isinstance(m, str)] if isinstance(supported, list) else ["client_secret_basic"]
    if key:
        if "private_key_jwt" in listed:
            return "private_key_jwt"
        raise AuthorizationError(f"the authorization server does not take private_key_jwt (it takes {listed})")
    if secret:
        for method in ("client_secret_basic", "client_secret_post"):
            if method in listed:
                return method
        return "client_secret_basic"
    return "none"


def load_private_key(pem: str, algorithm: Optional[str]) -> tuple[Any, str]:
    """A joserfc key from PEM text and the JWS algorithm to sign with (ES256 for an EC key, RS256 for RSA)."""
    from joserfc.jwk import ECKey, RSAKey

    attempts: list[tuple[Any, str]] = [(ECKey, "ES256"), (RSAKey, "RS256")]
    for kind, default in attempts:
        try:
            key = kind.import_key(pem)
        except Exception:
            continue
        if not key.is_private:
            raise AuthorizationError("the private key given is a public key")
        return key, algorithm or default
    raise AuthorizationError("the private key is not an EC or RSA key in PEM form")


def _client_auth(client: ClientInfo, issuer: Optional[str], private_key: Any, algorithm: Optional[str]) -> Any:
    from authlib.oauth2.auth import ClientAuth

    method = client.auth_method
    if method == "private_key_jwt":
        from authlib.oauth2.rfc7523 import PrivateKeyJWT

        if private_key is None:
            raise AuthorizationError("private_key_jwt needs a private key (private_key=...)")
        if issuer is None:
            raise AuthorizationError("private_key_jwt needs the authorization server's issuer (its assertion's aud)")
        key, alg = (
            load_private_key(private_key, algorithm) if isinstance(private_key, str) else (private_key, algorithm)
        )
        # The assertion is addressed to the authorization server's issuer identifier, not to the token
        # endpoint's URL (RFC 7523bis; MCP's client credentials extension): one it could be replayed at
        # (a token endpoint an attacker's metadata names) would take it. Authlib's default is the URL.
        return ClientAuth(client.client_id, key, PrivateKeyJWT(claims={"aud": issuer}, alg=alg or "RS256"))
    if method not in _KNOWN_METHODS:
        raise AuthorizationError(f"unknown token endpoint auth method {method!r}")
    return ClientAuth(client.client_id, client.client_secret or "", method)


def request_token(
    http: AuthHTTP,
    token_endpoint: str,
    client: Optional[ClientInfo],
    form: dict[str, str],
    *,
    issuer: Optional[str],
    private_key: Any = None,
    algorithm: Optional[str] = None,
    headers: Optional[dict[str, str]] = None,
    dpop: Optional[DPoPKey] = None,
) -> dict[str, Any]:
    """POST a grant to ``token_endpoint`` and return the token response (a dict with ``access_token``).

    ``issuer``: the authorization server's issuer identifier, the audience of a ``private_key_jwt``
    client assertion (``None`` where it is unknown: such a client cannot use ``private_key_jwt``).

    With ``dpop``, the request carries a proof; a ``400 use_dpop_nonce`` with a
    ``DPoP-Nonce`` is answered by sending it again once, with the nonce.

    Raises:
        AuthorizationError: the server refused (its ``error`` is kept in ``.error``), or the answer
            is not a token response. The text never holds a secret, a code or a token.
    """
    name = http.name
    if client is not None and client.auth_method in ("client_secret_basic", "private_key_jwt"):
        # Authenticated otherwise, the client_id is not needed; many servers want it all the same
        # (the official SDK's), and it is no second authentication (RFC 6749 §2.3). The other
        # methods put it in the body themselves.
        form = {**form, "client_id": client.client_id}
    for attempt in (1, 2):
        body = urlencode(form)
        sent_headers = {
            "Content-Type": "application/x-www-form-urlencoded",
            "Accept": "application/json",
            **(headers or {}),
        }
        if dpop is not None:
            sent_headers["DPoP"] = dpop.proof("POST", token_endpoint)
        if client is not None:  # a client assertion is made anew for each request: its jti must be unique
            _, sent_headers, body = _client_auth(client, issuer, private_key, algorithm).prepare(
                "POST", token_endpoint, sent_headers, body
            )
        answer = http.post_encoded(token_endpoint, body.encode(), sent_headers)
        data = answer.data
        if dpop is not None:
            dpop.remember_nonce(token_endpoint, answer.headers.get("DPoP-Nonce"))
        wants_nonce = answer.status == 400 and (data or {}).get("error") == "use_dpop_nonce"
        if not (wants_nonce and dpop is not None and answer.headers.get("DPoP-Nonce") and attempt == 1):
            break
    if not answer.ok or data is None:
        code = data.get("error") if data else None
        raise AuthorizationError(
            f"{name}: the token endpoint {token_endpoint} refused the {form.get('grant_type')} grant "
            f"({answer.error_text()})",
            server=name,
            error=code if isinstance(code, str) else None,
        )
    if not isinstance(data.get("access_token"), str) or not data["access_token"]:
        raise AuthorizationError(f"{name}: the token endpoint {token_endpoint} sent no access_token", server=name)
    token_type = data.get("token_type")
    if not isinstance(token_type, str) or token_type.lower() not in ("bearer", "dpop", "n_a"):
        raise AuthorizationError(f"{name}: the token endpoint sent a token of type {token_type!r}", server=name)
    if token_type.lower() == "dpop" and dpop is None:
        raise AuthorizationError(
            f"{name}: the token endpoint sent a DPoP token to a request without a proof", server=name
        )
    return data


def record_from_response(
    response: dict[str, Any],
    *,
    issuer: str,
    resource: str,
    token_endpoint: str,
    client: Optional[ClientInfo],
    scopes: tuple[str, ...],
    previous: Optional[dict[str, Any]] = None,
    dpop: Optional[DPoPKey] = None,
) -> dict[str, Any]:
    """What we keep of a token response: a refresh token the server did not rotate is kept; a DPoP
    token keeps its key."""
    expires_in = response.get("expires_in")
    expires_at = None
    if isinstance(expires_in, (int, float)) and not isinstance(expires_in, bool) and expires_in > 0:
        expires_at = time.time() + float(expires_in)
    refresh = response.get("refresh_token")
    if not isinstance(refresh, str) or not refresh:
        refresh = (previous or {}).get("refresh_token")
    scope = response.get("scope")
    granted = scope if isinstance(scope, str) else " ".join(scopes)
    return {
        "access_token": response["access_token"],
        "token_type": str(response.get("token_type") or "Bearer"),
        "refresh_token": refresh,
        "expires_at": expires_at,
        "scope": granted,
        "requested_scope": " ".join(scopes),
        "issuer": issuer,
        "resource": resource,
        "token_endpoint": token_endpoint,
        "client_id": client.client_id if client is not None else None,
        "client_auth_method": client.auth_method if client is not None else None,
        "obtained_at": time.time(),
        "dpop_key": dpop.to_store() if dpop is not None and str(response.get("token_type")).lower() == "dpop" else None,
    }


def expires_soon(record: dict[str, Any]) -> bool:
    """Whether a token should be refreshed before it is sent: within ``REFRESH_LEEWAY`` seconds of its
    expiry, or half its life for a short-lived one (lest a token of 30 s be refreshed on every request)."""
    expires_at = record.get("expires_at")
    if not isinstance(expires_at, (int, float)):
        return False
    obtained = record.get("obtained_at")
    life = expires_at - obtained if isinstance(obtained, (int, float)) else REFRESH_LEEWAY * 2
    return time.time() >= expires_at - min(REFRESH_LEEWAY, life / 2)


@dataclass(frozen=True)
class GrantRequest:
    """What a grant that needs nobody works with: one server's authorization server, the scopes to
    ask for, the DPoP key for the token (if any), and the requests to make them with."""

    name: str
    http: AuthHTTP
    discovered: Discovered
    scopes: tuple[str, ...]
    token_endpoint: str
    dpop: Optional[DPoPKey]

    def form(self, grant_type: str, **fields: str) -> dict[str, str]:
        """A grant's form: its fields, the ``resource`` and the scopes."""
        form = {"grant_type": grant_type, **fields, "resource": self.discovered.resource}
        if self.scopes:
            form["scope"] = " ".join(self.scopes)
        return form

    def token(
        self, client: Optional[ClientInfo], form: dict[str, str], *, private_key: Any = None, algorithm: Any = None
    ) -> dict[str, Any]:
        """The token response of ``form`` at the authorization server's token endpoint (with a DPoP proof)."""
        return request_token(
            self.http,
            self.token_endpoint,
            client,
            form,
            issuer=self.discovered.server.issuer,
            private_key=private_key,
            algorithm=algorithm,
            dpop=self.dpop,
        )
