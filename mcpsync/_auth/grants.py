"""Grants that need nobody: for services, CI and cron (MCP's authorization extensions).

- ``ClientCredentials``: the client credentials grant (RFC 6749 §4.4), the
  client authenticated with ``client_secret_basic`` / ``client_secret_post``
  or ``private_key_jwt`` (an ES256 or RS256 key).
- ``WorkloadIdentity``: the JWT-bearer grant (RFC 7523 §2.1) with an
  assertion the workload's platform issues (a callable, or a file it keeps
  fresh), and the ``client_id``: no registration, no other grant to fall
  back on, and an error is final (nothing is retried blindly).
- ``EnterpriseAuth``: enterprise-managed authorization. The ID token from
  the user's identity provider is exchanged there (RFC 8693) for an ID-JAG
  whose audience is the MCP server's authorization server and whose resource
  is the MCP server, and the ID-JAG is then the assertion of a JWT-bearer
  grant at that authorization server.

Each is an ``OAuth`` whose ``obtain_without_person`` runs its grant; a ``401``
runs it again (a new assertion each time), a ``403`` for more scopes asks
for the union. Tokens are kept in memory by default: they are cheap to get again.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Union

from .._core.errors import AuthorizationError
from .discovery import check_endpoint
from .oauth import OAuth
from .store import MemoryTokenStore, TokenStore
from .tokens import ClientInfo, GrantRequest, request_token

__all__ = ["ClientCredentials", "EnterpriseAuth", "WorkloadIdentity"]

JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
ID_JAG = "urn:ietf:params:oauth:token-type:id-jag"
ID_TOKEN = "urn:ietf:params:oauth:token-type:id_token"

Scopes = Union[str, list[str], tuple[str, ...], None]
Assertion = Union[str, Callable[[], str]]


def _assertion(source: Assertion, what: str, name: str) -> str:
    """The assertion now: the callable's answer, or the file's content (re-read each time: platforms rotate it)."""
    try:
        if callable(source):
            value = source()
        else:
            with open(source, encoding="utf-8") as file:
                value = file.read()
    except OSError as exc:
        raise AuthorizationError(
            f"{name}: the {what} file {source!r} cannot be read: {exc.strerror}", server=name
        ) from None
    if not isinstance(value, str) or not value.strip():
        raise AuthorizationError(f"{name}: the {what} is empty", server=name)
    return value.strip()


class ClientCredentials(OAuth):
    """The client credentials grant, for a client registered at the authorization server.

    Args:
        client_id: the client's id.
        client_secret: its secret (``client_secret_basic``, or ``client_secret_post`` if the server
            takes only that); or
        private_key: PEM text or a PEM file's path, for ``private_key_jwt`` (ES256 / RS256).
        scopes, issuer, store, token_endpoint_auth_method, algorithm: as ``OAuth``.
    """

    needs_person = False
    #: What a modern request declares in its capabilities (MCP's client credentials extension).
    extension = "io.modelcontextprotocol/oauth-client-credentials"

    def __init__(
        self,
        client_id: str,
        client_secret: Optional[str] = None,
        *,
        private_key: Optional[str] = None,
        algorithm: Optional[str] = None,
        scopes: Scopes = None,
        issuer: Optional[str] = None,
        store: Optional[TokenStore] = None,
        token_endpoint_auth_method: Optional[str] = None,
    ) -> None:
        if client_secret is None and private_key is None:
            raise AuthorizationError("ClientCredentials needs a client_secret or a private_key")
        super().__init__(
            client_id=client_id,
            client_secret=client_secret,
            private_key=private_key,
            algorithm=algorithm,
            scopes=scopes,
            issuer=issuer,
            store=store if store is not None else MemoryTokenStore(),
            interactive=False,
            token_endpoint_auth_method=token_endpoint_auth_method,
        )

    def obtain_without_person(self, request: GrantRequest) -> Optional[tuple[dict[str, Any], Optional[ClientInfo]]]:
        client = self.registrar.client(request.http, request.discovered.server, None, ("client_credentials",))
        form = request.form("client_credentials")
        return request.token(client, form, private_key=self.private_key, algorithm=self.algorithm), client


class WorkloadIdentity(OAuth):
    """The JWT-bearer grant with the workload's own identity token.

    Args:
        client_id: the client id the authorization server knows the workload by.
        assertion: a callable returning the signed JWT, or the path of a file holding it
            (read again for each grant: platforms rotate it).
        scopes, issuer, store: as ``OAuth``.
    """

    needs_person = False

    def __init__(
        self,
        client_id: str,
        assertion: Assertion,
        *,
        scopes: Scopes = None,
        issuer: Optional[str] = None,
        store: Optional[TokenStore] = None,
    ) -> None:
        super().__init__(
            client_id=client_id,
            scopes=scopes,
            issuer=issuer,
            store=store if store is not None else MemoryTokenStore(),
            interactive=False,
        )
        self.assertion = assertion

    def obtain_without_person(self, request: GrantRequest) -> Optional[tuple[dict[str, Any], Optional[ClientInfo]]]:
        name, issuer = request.name, request.discovered.server.issuer
        client_id = self.registrar.client_id
        assert client_id is not None
        if self.registrar.issuer is not None and self.registrar.issuer != issuer:
            raise AuthorizationError(
                f"{name}: the workload is known at {self.registrar.issuer}, but the server uses "
                f"{issuer}; its assertion is not sent there",
                server=name,
            )
        form = request.form(JWT_BEARER, assertion=_assertion(self.assertion, "assertion", name), client_id=client_id)
        return request.token(None, form), ClientInfo(client_id, None, "none", kind="workload")


class EnterpriseAuth(OAuth):
    """Enterprise-managed authorization: the identity provider's ID token, exchanged for an ID-JAG.

    Args:
        id_token: the user's ID token from the identity provider (a string, or a callable
            returning a current one).
        idp_token_endpoint: the identity provider's token endpoint (for the token exchange).
        idp_client_id, idp_client_secret: this client at the identity provider.
        client_id, client_secret: this client at the MCP server's authorization server.
        scopes, issuer, store, token_endpoint_auth_method: as ``OAuth``.
        subject_token_type: what ``id_token`` is (default: an OpenID ID token).
    """

    needs_person = False
    #: What a modern request declares in its capabilities (MCP's enterprise-managed authorization).
    extension = "io.modelcontextprotocol/enterprise-managed-authorization"

    def __init__(
        self,
        *,
        id_token: Assertion,
        idp_token_endpoint: str,
        idp_client_id: str,
        client_id: str,
        idp_client_secret: Optional[str] = None,
        client_secret: Optional[str] = None,
        scopes: Scopes = None,
        issuer: Optional[str] = None,
        store: Optional[TokenStore] = None,
        token_endpoint_auth_method: Optional[str] = None,
        subject_token_type: str = ID_TOKEN,
    ) -> None:
        super().__init__(
            client_id=client_id,
            client_secret=client_secret,
            scopes=scopes,
            issuer=issuer,
            store=store if store is not None else MemoryTokenStore(),
            interactive=False,
            token_endpoint_auth_method=token_endpoint_auth_method,
        )
        self.id_token = id_token
        self.idp_token_endpoint = idp_token_endpoint
        self.idp_client = ClientInfo(
            idp_client_id, idp_client_secret, "client_secret_basic" if idp_client_secret else "none", kind="idp"
        )
        self.subject_token_type = subject_token_type

    def _id_token(self, name: str) -> str:
        if isinstance(self.id_token, str):
            return self.id_token
        return _assertion(self.id_token, "ID token", name)

    def obtain_without_person(self, request: GrantRequest) -> Optional[tuple[dict[str, Any], Optional[ClientInfo]]]:
        name = request.name
        idp = check_endpoint(self.idp_token_endpoint, "identity provider's token endpoint", name)
        request.http.trust(idp)  # the user's own setting, not a URL from the server's answers
        exchange = request.form(
            TOKEN_EXCHANGE,
            requested_token_type=ID_JAG,
            audience=request.discovered.server.issuer,
            subject_token=self._id_token(name),
            subject_token_type=self.subject_token_type,
        )
        # At the identity provider: no DPoP key of ours, and its issuer is not known here.
        exchanged = request_token(request.http, idp, self.idp_client, exchange, issuer=None)
        if exchanged.get("issued_token_type") != ID_JAG:
            raise AuthorizationError(
                f"{name}: the identity provider issued {exchanged.get('issued_token_type')!r}, not an ID-JAG",
                server=name,
            )
        client = self.registrar.client(request.http, request.discovered.server, None, (JWT_BEARER,))
        grant = request.form(JWT_BEARER, assertion=exchanged["access_token"])
        return request.token(client, grant, private_key=self.private_key), client
