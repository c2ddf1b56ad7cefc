"""The HTTP side of the test authorization server and its protected MCP server: one handler that answers
the metadata, ``/authorize``, ``/token``, ``/register`` and ``/idp/token``, and guards ``/mcp`` (401, 403,
DPoP) before the test server's own handler serves it. What it knows and decides is an ``Authority``.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import sys
import time
from typing import Any, Optional
from urllib.parse import parse_qs, urlencode, urlsplit

from mcpsync.testing.http import _Handler, _HTTPServer

from .authority import ID_JAG, JWT_BEARER, TOKEN_EXCHANGE, Authority

__all__ = ["AuthHTTPServer"]


def _json(handler: _Handler, status: int, document: dict[str, Any], headers: Optional[dict[str, str]] = None) -> None:
    handler._reply(
        status, json.dumps(document).encode(), "application/json", {"Cache-Control": "no-store", **(headers or {})}
    )


def _error(handler: _Handler, error: str, description: str = "", status: int = 400) -> None:
    _json(handler, status, {"error": error, "error_description": description})


class _AuthHandler(_Handler):
    server: AuthHTTPServer

    @property
    def oauth(self) -> Authority:
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


class AuthHTTPServer(_HTTPServer):
    """The HTTP server of an ``Authority``, on a free port of 127.0.0.1 (``serve_forever`` runs it)."""

    def __init__(self, oauth: Authority) -> None:
        super().__init__(0, "oauth-test-server", json_replies=True)
        self.RequestHandlerClass = _AuthHandler
        self.oauth = oauth

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hangs up is no error of the server's (the default prints a traceback)."""
        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)
