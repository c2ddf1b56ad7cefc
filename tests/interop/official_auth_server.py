"""The official MCP SDK as a protected MCP server with its own authorization server, for tests/interop/test_official_auth.py.

    python official_auth_server.py MODE PORT

Streamable HTTP on 127.0.0.1:PORT, with the SDK's ``mcp.server.auth`` routes
(metadata, ``/authorize``, ``/token``, ``/register``, protected resource
metadata) and an in-memory provider that approves every authorization at
once (the redirect carries the code). The tool ``whoami`` returns the client
id and scopes of the token it was called with; a call of ``write`` needs the
scope ``write``. MODE ``client-credentials`` pre-registers the confidential
client ``svc`` / ``svc-secret`` for the client credentials grant (served by
the provider's token handler only if the SDK has it; see the test), and
``identity-assertion`` accepts ID-JAGs signed by the key in ``$IDJAG_PUBLIC_KEY``.
"""

from __future__ import annotations

import os
import secrets
import sys
import time
from typing import Any

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    IdentityAssertionParams,
    RefreshToken,
    TokenError,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from pydantic import AnyHttpUrl

PORT = int(sys.argv[2])
BASE = f"http://127.0.0.1:{PORT}"
#: The issuer as the SDK writes it in its metadata (pydantic adds a slash): ``iss`` must equal it exactly.
ISSUER = str(AnyHttpUrl(BASE))
SCOPES = ["read", "write"]


class Provider:
    """An in-memory authorization server that approves at once."""

    def __init__(self) -> None:
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        assert client_info.client_id is not None
        self.clients[client_info.client_id] = client_info

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        code = secrets.token_urlsafe(24)
        self.codes[code] = AuthorizationCode(
            code=code,
            scopes=params.scopes or ["read"],
            expires_at=time.time() + 300,
            client_id=client.client_id or "",
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
            subject="user-1",
        )
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state, iss=ISSUER)

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> AuthorizationCode | None:
        return self.codes.get(authorization_code)

    def _issue(self, client_id: str, scopes: list[str], resource: str | None, refresh: bool) -> OAuthToken:
        token = secrets.token_urlsafe(24)
        self.access[token] = AccessToken(
            token=token, client_id=client_id, scopes=scopes, expires_at=int(time.time()) + 3600, resource=resource
        )
        refresh_token = None
        if refresh:
            refresh_token = secrets.token_urlsafe(24)
            self.refresh[refresh_token] = RefreshToken(
                token=refresh_token, client_id=client_id, scopes=scopes, resource=resource
            )
        return OAuthToken(
            access_token=token,
            token_type="Bearer",
            expires_in=3600,
            scope=" ".join(scopes),
            refresh_token=refresh_token,
        )

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        self.codes.pop(authorization_code.code, None)
        return self._issue(client.client_id or "", authorization_code.scopes, authorization_code.resource, refresh=True)

    async def load_refresh_token(self, client: OAuthClientInformationFull, refresh_token: str) -> RefreshToken | None:
        return self.refresh.get(refresh_token)

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        self.refresh.pop(refresh_token.token, None)  # rotated
        return self._issue(client.client_id or "", scopes or refresh_token.scopes, refresh_token.resource, refresh=True)

    async def load_access_token(self, token: str) -> AccessToken | None:
        return self.access.get(token)

    async def revoke_token(self, token: Any) -> None:
        self.access.pop(getattr(token, "token", ""), None)

    async def exchange_identity_assertion(
        self, client: OAuthClientInformationFull, params: IdentityAssertionParams
    ) -> OAuthToken:
        from joserfc import jwt
        from joserfc.jwk import ECKey

        try:
            claims = jwt.decode(params.assertion, ECKey.import_key(os.environ["IDJAG_PUBLIC_KEY"])).claims
        except Exception as exc:
            raise TokenError("invalid_grant", f"the ID-JAG does not verify: {exc}") from None
        if claims.get("aud") not in (BASE, ISSUER):
            raise TokenError("invalid_grant", "the ID-JAG is for another authorization server")
        return self._issue(client.client_id or "", params.scopes or ["read"], params.resource, refresh=False)


provider = Provider()
app = MCPServer(
    "official-auth-test",
    version="1.0.0",
    log_level="WARNING",
    auth_server_provider=provider,
    auth=AuthSettings(
        issuer_url=AnyHttpUrl(BASE),
        resource_server_url=AnyHttpUrl(f"{BASE}/mcp"),
        client_registration_options=ClientRegistrationOptions(
            enabled=True, valid_scopes=SCOPES, default_scopes=["read"]
        ),
        required_scopes=["read"],
        validate_token_resource=True,
        identity_assertion_enabled=sys.argv[1] == "identity-assertion",
    ),
)


@app.tool()
def whoami() -> str:
    """The client id and scopes of the caller's token."""
    token = get_access_token()
    return f"{token.client_id if token else None} {' '.join(token.scopes) if token else ''}"


if __name__ == "__main__":
    if sys.argv[1] == "identity-assertion":
        provider.clients["corp"] = OAuthClientInformationFull(
            client_id="corp",
            client_secret="corp-secret",
            redirect_uris=None,
            grant_types=["urn:ietf:params:oauth:grant-type:jwt-bearer"],
            token_endpoint_auth_method="client_secret_basic",
            scope="read write",
        )
    app.run(transport="streamable-http", host="127.0.0.1", port=PORT, json_response=True)
