"""A protected MCP server and its authorization server, on 127.0.0.1, in this process: for tests.

    from mcpsync.testing.oauth import OAuthTestServer

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

import base64
import hashlib
import json
import secrets
import sys
import threading
import time
from dataclasses import dataclass, field, replace
from typing import Any, Optional
from urllib.parse import parse_qs, urlencode, urlsplit

import requests

from .http import _Handler, _HTTPServer

__all__ = ["OAuthTestServer", "Options"]

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


class OAuthTestServer:
    """The servers, on a free port; ``close`` (or ``with``) stops them. See the module docstring."""

    def __init__(self, options: Optional[Options] = None, **changes: Any) -> None:
        self.options = replace(options or Options(), **changes)
        self._httpd = _AuthHTTPServer(self)
        self.base = f"http://{self.options.host}:{self._httpd.server_address[1]}"
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

    # -- for tests -------------------------------------------------------------------

    def approve(self, authorization_url: str) -> str:
        """The browser: GET the authorization URL, do not follow its redirect, return ``Location``."""
        response = requests.get(authorization_url, allow_redirects=False, timeout=10)
        location = response.headers.get("Location")
        if response.status_code not in (302, 303) or not location:
            raise AssertionError(f"no redirect from the authorization endpoint: {response.status_code} {response.text}")
        return location

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


def _json(handler: _Handler, status: int, document: dict[str, Any], headers: Optional[dict[str, str]] = None) -> None:
    handler._reply(
        status, json.dumps(document).encode(), "application/json", {"Cache-Control": "no-store", **(headers or {})}
    )


def _error(handler: _Handler, error: str, description: str = "", status: int = 400) -> None:
    _json(handler, status, {"error": error, "error_description": description})


class _AuthHandler(_Handler):
    server: _AuthHTTPServer

    @property
    def oauth(self) -> OAuthTestServer:
        return self.server.oauth

    def _record(self, form: Optional[dict[str, str]] = None) -> dict[str, Any]:
        parts = urlsplit(self.path)
        entry = {
            "method": self.command,
            "path": parts.path,
            "query": {k: v[0] for k, v in parse_qs(parts.query).items()},
            "form": form or {},
            "authorization": self.headers.get("Authorization"),
        }
        with self.oauth.lock:
            self.oauth.seen.append(entry)
        return entry

    # -- GET -------------------------------------------------------------------------

    def do_GET(self) -> None:
        path = urlsplit(self.path).path
        if path == "/mcp":
            if self._authorized(None):
                super().do_GET()
            return
        self._record()
        oauth, o = self.oauth, self.oauth.options
        if path.endswith(o.trickle or ("\0",)):
            self._answer_never_ending()
            return
        wanted = {
            "path": "/.well-known/oauth-protected-resource/mcp",
            "header": "/.well-known/oauth-protected-resource/mcp",
            "root": "/.well-known/oauth-protected-resource",
        }.get(o.resource_metadata)
        if path == wanted:
            _json(self, 200, oauth.resource_metadata())
            return
        for issuer in oauth.issuers():
            issuer_path = urlsplit(issuer).path
            if o.as_metadata == "oauth" and path == "/.well-known/oauth-authorization-server" + issuer_path:
                _json(self, 200, oauth.metadata(issuer, openid=False))
                return
            if o.as_metadata == "openid" and path in (
                "/.well-known/openid-configuration" + issuer_path,
                issuer_path + "/.well-known/openid-configuration",
            ):
                _json(self, 200, oauth.metadata(issuer, openid=True))
                return
            if path == issuer_path + "/authorize" or (o.as_metadata == "none" and path == "/authorize"):
                self._authorize(issuer)
                return
        self._reply(404, b"not found")

    def _authorize(self, issuer: str) -> None:
        oauth, o = self.oauth, self.oauth.options
        query = {k: v[0] for k, v in parse_qs(urlsplit(self.path).query).items()}
        client_id = query.get("client_id", "")
        redirect_uri = query.get("redirect_uri", "")
        known = oauth.registered.get(client_id) or o.clients.get(client_id)
        metadata_document = o.client_id_metadata_documents and client_id.startswith("https://")
        if known is None and not metadata_document:
            self._reply(400, b"unknown client")
            return
        if known is not None and "redirect_uris" in known and redirect_uri not in known["redirect_uris"]:
            self._reply(400, b"redirect_uri not registered")
            return
        if query.get("response_type") != "code" or query.get("code_challenge_method") != "S256":
            self._reply(400, b"response_type code with PKCE S256 is required")
            return
        code = "code-" + secrets.token_urlsafe(12)
        with oauth.lock:
            oauth.codes[code] = {
                "client_id": client_id,
                "redirect_uri": redirect_uri,
                "challenge": query.get("code_challenge"),
                "resource": query.get("resource"),
                "scopes": query.get("scope", "").split(),
                "issuer": issuer,
            }
        params = {"code": code, "state": query.get("state", "")}
        iss = {"right": issuer, "wrong": "https://evil.example", "slash": issuer + "/", "absent": None}[o.iss]
        if iss is not None:
            params["iss"] = iss
        self.send_response(302)
        self.send_header("Location", f"{redirect_uri}?{urlencode(params)}")
        self.send_header("Content-Length", "0")
        self.end_headers()

    # -- POST ------------------------------------------------------------------------

    def do_POST(self) -> None:
        path = urlsplit(self.path).path
        if path == "/mcp" or path.startswith("/control/"):
            body = self._body()
            if path == "/mcp" and not self._authorized(body):
                return
            self._peeked = body
            super().do_POST()
            return
        body = self._body()
        if path.endswith(self.oauth.options.trickle or ("\0",)):
            self._record()
            self._answer_never_ending()
            return
        if path.endswith("/register"):
            self._record()
            self._register(path, body)
            return
        form = {k: v[0] for k, v in parse_qs(body.decode("utf-8", "replace")).items()}
        self._record(form)
        if path.endswith("/token") and self.oauth.options.token_redirect:
            self._reply(307, b"", headers={"Location": self.oauth.options.token_redirect})
            return
        if path.endswith("/token") and self.oauth.options.token_delay:
            self.oauth.closed.wait(self.oauth.options.token_delay)  # ends when the server closes
        if path == "/idp/token":
            self._token_exchange(form)
            return
        for issuer in self.oauth.issuers():
            if path == urlsplit(issuer).path + "/token" or (
                self.oauth.options.as_metadata == "none" and path == "/token"
            ):
                self._token(issuer, form)
                return
        self._reply(404, b"not found")

    _peeked: Optional[bytes] = None

    def _answer_never_ending(self) -> None:
        """A JSON answer that never ends: a byte every half second, until the client or the server goes."""
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(1 << 20))
        self.end_headers()
        self.wfile.write(b"{")
        while not self.oauth.closed.wait(0.5):
            try:
                self.wfile.write(b" ")
                self.wfile.flush()
            except OSError:
                return

    def _body(self) -> bytes:
        if self._peeked is not None:
            body, self._peeked = self._peeked, None
            return body
        return super()._body()

    def _register(self, path: str, body: bytes) -> None:
        oauth = self.oauth
        if not oauth.options.registration:
            self._reply(404, b"no registration")
            return
        try:
            metadata = json.loads(body)
        except ValueError:
            _error(self, "invalid_client_metadata", "not JSON")
            return
        issuer = oauth.base + path[: -len("/register")]
        method = metadata.get("token_endpoint_auth_method", "client_secret_basic")
        client_id = "client-" + secrets.token_urlsafe(8)
        answer = dict(metadata, client_id=client_id, client_id_issued_at=int(time.time()))
        if method != "none":
            answer["client_secret"] = "secret-" + secrets.token_urlsafe(12)
        with oauth.lock:
            oauth.registered[client_id] = dict(answer, issuer=issuer)
        _json(self, 201, answer)

    def _client(self, form: dict[str, str], issuer: str, token_endpoint: str) -> Optional[str]:
        """The authenticated client's id, or ``None`` (an error was sent)."""
        oauth, o = self.oauth, self.oauth.options
        header = self.headers.get("Authorization", "")
        if header.startswith("Basic "):
            client_id, _, secret = base64.b64decode(header[6:]).decode().partition(":")
            method = "client_secret_basic"
        elif "client_assertion" in form:
            client_id = form.get("client_id") or _unverified_subject(form["client_assertion"])
            secret, method = "", "private_key_jwt"
        elif "client_secret" in form:
            client_id, secret, method = form.get("client_id", ""), form["client_secret"], "client_secret_post"
        else:
            client_id, secret, method = form.get("client_id", ""), "", "none"
        if method not in o.token_endpoint_auth_methods:
            _error(self, "invalid_client", f"{method} is not accepted", 401)
            return None
        known = oauth.registered.get(client_id) or o.clients.get(client_id)
        if known is None and o.client_id_metadata_documents and client_id.startswith("https://") and method == "none":
            return client_id
        if known is None or known.get("issuer", issuer) != issuer:
            _error(self, "invalid_client", "unknown client", 401)
            return None
        if method == "private_key_jwt":
            claims = _verify_jwt(form["client_assertion"], known.get("public_key"))
            if claims is None or claims.get("sub") != claims.get("iss"):
                _error(self, "invalid_client", "bad client assertion", 401)
                return None
            client_id = str(claims.get("sub"))
            if claims.get("aud") != issuer:  # RFC 7523bis: the issuer identifier, nothing else
                _error(self, "invalid_client", "assertion audience", 401)
                return None
        elif (known.get("secret") or known.get("client_secret") or "") != secret:
            _error(self, "invalid_client", "bad secret", 401)
            return None
        return client_id

    def _token(self, issuer: str, form: dict[str, str]) -> None:
        oauth = self.oauth
        grant = form.get("grant_type")
        token_endpoint = oauth.base + urlsplit(self.path).path
        workload = grant == JWT_BEARER and "client_assertion" not in form and not self.headers.get("Authorization")
        if workload and "client_id" in form:
            client_id = form["client_id"]  # workload identity: the assertion authenticates
        else:
            authenticated = self._client(form, issuer, token_endpoint)
            if authenticated is None:
                return
            client_id = authenticated
        scopes = form.get("scope", "").split()
        jkt: Optional[str] = None
        proof = self.headers.get("DPoP")
        if proof is not None and oauth.options.dpop:
            jkt, problem = oauth.check_dpop(proof, "POST", token_endpoint, None, "token")
            if jkt is None:
                headers = {"DPoP-Nonce": oauth.dpop_nonce} if problem == "use_dpop_nonce" else {}
                _json(self, 400, {"error": problem}, headers)
                return
        if grant == "authorization_code":
            with oauth.lock:
                code = oauth.codes.pop(form.get("code", ""), None)
            if code is None or code["client_id"] != client_id or code["redirect_uri"] != form.get("redirect_uri"):
                _error(self, "invalid_grant", "unknown code")
                return
            challenge = base64.urlsafe_b64encode(hashlib.sha256(form.get("code_verifier", "").encode()).digest())
            if challenge.rstrip(b"=").decode() != code["challenge"]:
                _error(self, "invalid_grant", "PKCE verifier does not match")
                return
            if form.get("resource") != code["resource"]:
                _error(self, "invalid_target", "resource differs from the authorization request")
                return
            _json(self, 200, oauth.issue(client_id, code["scopes"], code["resource"], issuer, True, jkt))
        elif grant == "refresh_token":
            oauth.wait_at_refresh_gate()
            with oauth.lock:
                old = oauth.refresh_tokens.get(form.get("refresh_token", ""))
                if old is not None and oauth.options.rotate_refresh_tokens:
                    del oauth.refresh_tokens[form["refresh_token"]]
            if old is None or old["client_id"] != client_id or old.get("jkt") != jkt:
                _error(self, "invalid_grant", "unknown refresh token, or not bound to this key")
                return
            answer = oauth.issue(
                client_id, old["scopes"], form.get("resource"), issuer, oauth.options.rotate_refresh_tokens, jkt
            )
            _json(self, 200, answer)
        elif grant == "client_credentials":
            _json(self, 200, oauth.issue(client_id, scopes, form.get("resource"), issuer, False, jkt))
        elif grant == JWT_BEARER:
            claims = self._assertion_claims(form.get("assertion", ""), issuer)
            if claims is None:
                _error(self, "invalid_grant", "assertion not accepted")
                return
            _json(self, 200, oauth.issue(str(claims.get("sub")), scopes, form.get("resource"), issuer, False, jkt))
        else:
            _error(self, "unsupported_grant_type", str(grant))

    def _assertion_claims(self, assertion: str, issuer: str) -> Optional[dict[str, Any]]:
        oauth = self.oauth
        keys = dict(oauth.options.trusted_assertion_keys)
        keys["idp"] = oauth.id_jag_public_key()
        for key in keys.values():
            claims = _verify_jwt(assertion, key)
            if claims is not None and claims.get("aud") in (issuer, issuer + "/token"):
                return claims
        return None

    def _token_exchange(self, form: dict[str, str]) -> None:
        oauth = self.oauth
        if form.get("grant_type") != TOKEN_EXCHANGE or form.get("requested_token_type") != ID_JAG:
            _error(self, "unsupported_grant_type", "token exchange for an ID-JAG only")
            return
        if form.get("subject_token") not in oauth.options.idp_id_tokens:
            _error(self, "invalid_grant", "unknown ID token")
            return
        from joserfc import jwt

        claims = {
            "iss": oauth.base + "/idp",
            "sub": "user-1",
            "aud": form.get("audience"),
            "resource": form.get("resource"),
            "scope": form.get("scope", ""),
            "exp": int(time.time()) + 300,
            "iat": int(time.time()),
            "jti": secrets.token_urlsafe(8),
        }
        id_jag = jwt.encode({"alg": "ES256", "typ": "oauth-id-jag+jwt"}, claims, oauth.idp_key)
        _json(self, 200, {"access_token": id_jag, "issued_token_type": ID_JAG, "token_type": "N_A", "expires_in": 300})

    # -- the protected resource ------------------------------------------------------

    def _authorized(self, body: Optional[bytes]) -> bool:
        """Whether the request carries a valid token (and the scope a scoped tool needs); else answered."""
        oauth, o = self.oauth, self.oauth.options
        header = self.headers.get("Authorization", "")
        scheme, _, token = header.partition(" ")
        with oauth.lock:
            record = oauth.access_tokens.get(token or "")
        if record is None and o.external_issuer and token:
            record = oauth.external_token(token)
        if record is not None and (record.get("jkt") is not None or scheme == "DPoP"):
            proof = self.headers.get("DPoP")
            jkt, problem = None, "invalid_dpop_proof"
            if proof is not None and scheme == "DPoP":
                url = oauth.base + urlsplit(self.path).path
                jkt, problem = oauth.check_dpop(proof, self.command, url, token, "resource")
            if jkt is None or jkt != record.get("jkt"):
                headers = {"WWW-Authenticate": f'DPoP error="{problem or "invalid_token"}", algs="ES256"'}
                if problem == "use_dpop_nonce":
                    headers["DPoP-Nonce"] = oauth.dpop_nonce
                self._reply(401, b"DPoP proof refused", headers=headers)
                return False
        if (
            record is None
            or record["expires"] < time.time()
            or record["issuer"] != oauth.issuer
            or o.refuse_every_token
        ):
            error = "invalid_token" if token else None
            self._reply(401, b"unauthorized", headers={"WWW-Authenticate": oauth.challenge(error)})
            return False
        resource = o.resource if o.resource is not None else oauth.url
        if record["resource"] not in (resource, oauth.url):
            self._reply(
                401, b"token for another resource", headers={"WWW-Authenticate": oauth.challenge("invalid_token")}
            )
            return False
        if body:
            try:
                message = json.loads(body)
            except ValueError:
                return True
            if isinstance(message, dict) and message.get("method") == "tools/call":
                needed = o.scoped_tools.get(str((message.get("params") or {}).get("name")))
                if o.endless_step_up:
                    needed = f"more{len(record['scopes'])}"  # one the token does not hold, whatever it holds
                if needed and needed not in record["scopes"]:
                    challenge = oauth.challenge("insufficient_scope", needed)
                    self._reply(403, b"insufficient scope", headers={"WWW-Authenticate": challenge})
                    return False
        return True


def _unverified_subject(token: str) -> str:
    """The ``sub`` of a JWT, unchecked: only to find whose key checks it (RFC 7523 §3: it names the client)."""
    try:
        payload = token.split(".")[1]
        claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    except (IndexError, ValueError):
        return ""
    return str(claims.get("sub", "")) if isinstance(claims, dict) else ""


def _verify_jwt(token: str, public_key: Optional[str]) -> Optional[dict[str, Any]]:
    if not public_key:
        return None
    from joserfc import jwt
    from joserfc.jwk import ECKey, RSAKey

    for kind in (ECKey, RSAKey):
        try:
            key = kind.import_key(public_key)
            decoded = jwt.decode(token, key, algorithms=["ES256", "RS256"])
        except Exception:
            continue
        claims = dict(decoded.claims)
        exp = claims.get("exp")
        if isinstance(exp, (int, float)) and exp < time.time():
            return None
        return claims
    return None


class _AuthHTTPServer(_HTTPServer):
    def __init__(self, oauth: OAuthTestServer) -> None:
        super().__init__(0, "oauth-test-server", json_replies=True)
        self.RequestHandlerClass = _AuthHandler
        self.oauth = oauth

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hangs up is no error of the server's (the default prints a traceback)."""
        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)
