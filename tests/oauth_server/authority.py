"""What the test authorization server and its protected MCP server know and decide, without HTTP: the
variants they are configured with (``Options``), the clients, codes and tokens they hold, the metadata
documents, the 401 challenge, the check of DPoP proofs and of an external issuer's tokens.
``tests.oauth_server.http`` answers HTTP with it.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Optional

import requests

__all__ = ["ID_JAG", "JWT_BEARER", "TOKEN_EXCHANGE", "Authority", "Options"]

JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
ID_JAG = "urn:ietf:params:oauth:token-type:id-jag"


@dataclass
class Options:
    """The variants of the servers. Defaults: what the 2025-11-25 spec asks, everything offered."""

    #: Where the protected resource metadata is: "header" (named in the 401), "path"
    #: (``/.well-known/oauth-protected-resource/mcp``, not named), "root" (at the root, not named),
    #: or "none" (a 2025-03-26 server: no resource metadata).
    resource_metadata: str = "header"
    #: Which authorization server metadata is served: "oauth" (RFC 8414), "openid", or "none".
    as_metadata: str = "oauth"
    #: The issuer's path ("" or e.g. "/tenant1").
    issuer_path: str = ""
    #: The resource metadata's ``resource``; ``None``: the MCP URL.
    resource: Optional[str] = None
    #: The metadata's ``issuer``; ``None``: the right one.
    metadata_issuer: Optional[str] = None
    #: ``iss`` in the redirect: "right", "absent", "wrong", or "slash" (the issuer with a trailing /).
    iss: str = "right"
    #: ``authorization_response_iss_parameter_supported``.
    iss_supported: bool = True
    token_endpoint_auth_methods: tuple[str, ...] = (
        "client_secret_basic",
        "client_secret_post",
        "none",
        "private_key_jwt",
    )
    registration: bool = True
    client_id_metadata_documents: bool = False
    code_challenge_methods: Optional[tuple[str, ...]] = ("S256",)
    #: The resource metadata's ``scopes_supported``.
    scopes_supported: Optional[tuple[str, ...]] = ("read",)
    #: The authorization server's ``scopes_supported`` (``offline_access`` for refresh tokens).
    as_scopes_supported: tuple[str, ...] = ("read", "write", "offline_access")
    #: The ``scope`` of the 401's challenge, if any.
    challenge_scope: Optional[str] = None
    #: Tool name -> the scope a call of it needs (else ``403 insufficient_scope``).
    scoped_tools: dict[str, str] = field(default_factory=lambda: {"add": "write"})
    #: Whether a refresh gives a new refresh token.
    rotate_refresh_tokens: bool = True
    #: Seconds an access token lives.
    token_lifetime: float = 3600.0
    #: The token endpoint holds refresh requests until this many have come in (or
    #: ``refresh_gate_timeout`` seconds pass): clients racing to refresh one token, made certain.
    refresh_gate: int = 0
    refresh_gate_timeout: float = 3.0
    #: Pre-registered clients: client_id -> {"secret": ..., "public_key": PEM} (either, or neither).
    clients: dict[str, dict[str, str]] = field(default_factory=dict)
    #: Public keys (PEM) whose JWT-bearer assertions are accepted, by expected ``iss``.
    trusted_assertion_keys: dict[str, str] = field(default_factory=dict)
    #: The metadata's ``token_endpoint``; ``None``: ours.
    token_endpoint: Optional[str] = None
    #: The scopes the server grants at most (``None``: all that are asked).
    granted_scopes: Optional[tuple[str, ...]] = None
    #: DPoP: ``dpop_signing_alg_values_supported: ["ES256"]``; a proof binds the token to its key.
    dpop: bool = False
    #: The token endpoint / the MCP server asks for a DPoP nonce (``use_dpop_nonce``) before it takes a proof.
    dpop_nonce_at_token: bool = False
    dpop_nonce_at_resource: bool = False
    #: An authorization server of someone else's (its issuer) whose JWT access tokens the MCP server
    #: takes, checked against its JWKS (``external_jwks``: the URL): the resource metadata names it.
    external_issuer: Optional[str] = None
    external_jwks: Optional[str] = None
    #: Seconds the token endpoint waits before it answers (a slow or stuck authorization server).
    token_delay: float = 0.0
    #: ID tokens the identity provider (``/idp/token``) exchanges for an ID-JAG.
    idp_id_tokens: tuple[str, ...] = ()
    #: Paths (their ends: "/register", "/token", "/.well-known/oauth-authorization-server") whose
    #: answer trickles: headers at once, then a byte of body every half second, never the end.
    trickle: tuple[str, ...] = ()
    #: Where the token endpoint redirects (307, which keeps the POST and its body: the code and the
    #: verifier); ``None``: it answers.
    token_redirect: Optional[str] = None
    #: Every call of a tool asks for one scope more than the token holds (403 insufficient_scope).
    endless_step_up: bool = False
    #: The MCP server refuses every token with 401 ``invalid_token``, however fresh.
    refuse_every_token: bool = False
    #: The host name in the servers' URLs (they listen on 127.0.0.1 whatever it is): a test that maps
    #: another name to 127.0.0.1 plays a remote server with it.
    host: str = "127.0.0.1"
    #: The 401's ``resource_metadata`` URL; ``None``: the servers' own (with ``resource_metadata="header"``).
    resource_metadata_url: Optional[str] = None


class Authority:
    """The records and rules of the servers at ``base`` (e.g. ``http://127.0.0.1:PORT``)."""

    def __init__(self, options: Options, base: str) -> None:
        self.options = options
        self.base = base
        self.url = f"{self.base}/mcp"
        #: The issuer the resource metadata names (``migrate`` moves it to a second one).
        self.issuer = self.options.external_issuer or self.base + self.options.issuer_path
        self.second_issuer = self.base + "/second"
        self.lock = threading.Lock()
        #: Set by ``close``: a delayed answer ends then.
        self.closed = threading.Event()
        #: Every request to the authorization server's and metadata paths: dicts (see ``_record``).
        self.seen: list[dict[str, Any]] = []
        self.registered: dict[str, dict[str, Any]] = {}  # client_id -> metadata (with "issuer")
        self.codes: dict[str, dict[str, Any]] = {}
        self.access_tokens: dict[str, dict[str, Any]] = {}
        self.refresh_tokens: dict[str, dict[str, Any]] = {}
        self._refreshes_come = 0
        self._refresh_gate = threading.Event()
        self.idp_key = _ec_key()
        #: Every DPoP proof that came in: {"where": "token" | "resource", "header": ..., "claims": ...}.
        self.dpop_proofs: list[dict[str, Any]] = []
        self.dpop_nonce = "nonce-" + secrets.token_urlsafe(8)
        self._jtis: set[str] = set()

    def requests_to(self, path: str) -> list[dict[str, Any]]:
        with self.lock:
            return [r for r in self.seen if r["path"] == path]

    def migrate(self) -> None:
        """The resource moves to a second authorization server (issuer ``<origin>/second``)."""
        self.issuer = self.second_issuer

    def wait_at_refresh_gate(self) -> None:
        """Hold a refresh request at the gate (``Options.refresh_gate``), if there is one."""
        if not self.options.refresh_gate:
            return
        with self.lock:
            self._refreshes_come += 1
            if self._refreshes_come >= self.options.refresh_gate:
                self._refresh_gate.set()
        self._refresh_gate.wait(self.options.refresh_gate_timeout)

    def revoke_access_tokens(self) -> None:
        """Every access token becomes invalid (refresh tokens stay good)."""
        with self.lock:
            self.access_tokens.clear()

    def check_dpop(
        self, proof: str, method: str, url: str, access_token: Optional[str], where: str
    ) -> tuple[Optional[str], str]:
        """``(the key's thumbprint, "")`` for a good proof, else ``(None, the OAuth error)``."""
        from joserfc import jwt
        from joserfc.jwk import ECKey

        try:
            header = json.loads(base64.urlsafe_b64decode(proof.split(".")[0] + "=="))
            key = ECKey.import_key(header["jwk"])
            claims = dict(jwt.decode(proof, key, algorithms=["ES256"]).claims)
        except Exception:
            return None, "invalid_dpop_proof"
        with self.lock:
            self.dpop_proofs.append({"where": where, "header": header, "claims": claims})
            replayed = claims.get("jti") in self._jtis
            self._jtis.add(str(claims.get("jti")))
        expected_ath = None
        if access_token is not None:
            digest = hashlib.sha256(access_token.encode()).digest()
            expected_ath = base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
        good = (
            header.get("typ") == "dpop+jwt"
            and header.get("alg") == "ES256"
            and "d" not in header["jwk"]
            and claims.get("htm") == method
            and claims.get("htu") == url
            and abs(time.time() - float(claims.get("iat", 0))) < 60
            and not replayed
            and claims.get("ath") == expected_ath
        )
        if not good:
            return None, "invalid_dpop_proof"
        nonce_wanted = self.options.dpop_nonce_at_token if where == "token" else self.options.dpop_nonce_at_resource
        if nonce_wanted and claims.get("nonce") != self.dpop_nonce:
            return None, "use_dpop_nonce"
        return str(key.thumbprint()), ""

    def external_token(self, token: str) -> Optional[dict[str, Any]]:
        """A JWT access token of the external authorization server, as a record like ours; ``None`` if bad."""
        from joserfc import jwt
        from joserfc.jwk import KeySet

        try:
            keys = KeySet.import_key_set(requests.get(str(self.options.external_jwks), timeout=10).json())
            claims = dict(jwt.decode(token, keys).claims)
        except Exception:
            return None
        audience = claims.get("aud")
        return {
            "client_id": claims.get("client_id"),
            "scopes": str(claims.get("scope") or "").split(),
            "resource": audience if isinstance(audience, str) else (audience or [None])[0],
            "issuer": claims.get("iss"),
            "expires": float(claims.get("exp") or 0),
            "jkt": (claims.get("cnf") or {}).get("jkt"),
        }

    def id_jag_public_key(self) -> str:
        return str(self.idp_key.as_pem(private=False).decode())

    # -- what the handler asks -------------------------------------------------------

    def issuers(self) -> tuple[str, ...]:
        return (self.base + self.options.issuer_path, self.second_issuer)

    def metadata(self, issuer: str, openid: bool) -> dict[str, Any]:
        o = self.options
        prefix = issuer
        document: dict[str, Any] = {
            "issuer": o.metadata_issuer if o.metadata_issuer is not None else issuer,
            "authorization_endpoint": prefix + "/authorize",
            "token_endpoint": o.token_endpoint or prefix + "/token",
            "token_endpoint_auth_methods_supported": list(o.token_endpoint_auth_methods),
            "grant_types_supported": ["authorization_code", "refresh_token", "client_credentials", JWT_BEARER],
            "response_types_supported": ["code"],
            "scopes_supported": list(o.as_scopes_supported),
            "authorization_response_iss_parameter_supported": o.iss_supported,
        }
        if o.code_challenge_methods is not None:
            document["code_challenge_methods_supported"] = list(o.code_challenge_methods)
        if o.registration:
            document["registration_endpoint"] = prefix + "/register"
        if o.client_id_metadata_documents:
            document["client_id_metadata_document_supported"] = True
        if o.dpop:
            document["dpop_signing_alg_values_supported"] = ["ES256"]
        if openid:
            document["jwks_uri"] = prefix + "/jwks"
            document["subject_types_supported"] = ["public"]
        return document

    def resource_metadata(self) -> dict[str, Any]:
        o = self.options
        document: dict[str, Any] = {
            "resource": o.resource if o.resource is not None else self.url,
            "authorization_servers": [self.issuer],
        }
        if o.scopes_supported is not None:
            document["scopes_supported"] = list(o.scopes_supported)
        return document

    def challenge(self, error: Optional[str] = None, scope: Optional[str] = None) -> str:
        o = self.options
        parts = []
        if o.resource_metadata_url is not None:
            parts.append(f'resource_metadata="{o.resource_metadata_url}"')
        elif o.resource_metadata == "header":
            parts.append(f'resource_metadata="{self.base}/.well-known/oauth-protected-resource/mcp"')
        scope = scope or o.challenge_scope
        if scope:
            parts.append(f'scope="{scope}"')
        if error:
            parts.append(f'error="{error}"')
        return "Bearer " + ", ".join(parts) if parts else "Bearer"

    def issue(
        self,
        client_id: str,
        scopes: list[str],
        resource: Optional[str],
        issuer: str,
        refresh: bool,
        jkt: Optional[str] = None,
    ) -> dict[str, Any]:
        granted = self.options.granted_scopes
        if granted is not None:
            scopes = [s for s in scopes if s in granted]
        access = "at-" + secrets.token_urlsafe(16)
        expires = time.time() + self.options.token_lifetime
        record = {
            "client_id": client_id,
            "scopes": scopes,
            "resource": resource,
            "issuer": issuer,
            "expires": expires,
            "jkt": jkt,
        }
        with self.lock:
            self.access_tokens[access] = record
        answer: dict[str, Any] = {
            "access_token": access,
            "token_type": "DPoP" if jkt else "Bearer",
            "expires_in": int(self.options.token_lifetime),
            "scope": " ".join(scopes),
        }
        if refresh:
            token = "rt-" + secrets.token_urlsafe(16)
            with self.lock:
                self.refresh_tokens[token] = dict(record)
            answer["refresh_token"] = token
        return answer


def _ec_key() -> Any:
    from joserfc.jwk import ECKey

    return ECKey.generate_key("P-256")
