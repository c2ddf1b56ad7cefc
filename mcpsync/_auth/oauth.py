"""``OAuth``: MCP's authorization for remote servers, the ``auth=`` a user passes.

One ``OAuth`` holds the user's settings (``settings``); each HTTP transport
binds it to its server (``for_server``), and the ``ServerAuth`` it gets
(``server_auth``) does the work: the token on each request, the answer to a
``401`` or ``403``, the login. The grants that need nobody (``grants``) are
``OAuth``s too.
"""

from __future__ import annotations

from typing import Any, Optional

from .._core.authorizer import Authorizer
from .server_auth import ServerAuth
from .settings import LOGIN_TIMEOUT, OAuthSettings

__all__ = ["LOGIN_TIMEOUT", "OAuth"]


class OAuth(OAuthSettings, Authorizer):
    """MCP's OAuth 2.1 authorization for one or more HTTP servers: pass it as ``auth=``.

    With no argument, what a person at a terminal or notebook needs: the
    server's authorization server is discovered, a client registered, the
    browser opened for the login, and the tokens kept for the next run.

    Args:
        client_id, client_secret: a client registered beforehand at the authorization server.
        private_key: PEM text (or a path to a PEM file) of the key for ``private_key_jwt``
            (ES256 for an EC key, RS256 for RSA; ``algorithm`` to choose another).
        client_metadata_url: the HTTPS URL of your client ID metadata document, used as the
            ``client_id`` where the authorization server supports them.
        issuer: the authorization server the pre-registered client belongs to; another is refused.
        scopes: scopes to ask for, besides those the server names.
        redirect_uri: the redirect URI (registered with your client); default
            ``http://127.0.0.1:<port>/callback`` on a free port, or ``redirect_port``.
        on_authorize: a callable that takes the authorization URL and returns the URL the browser
            was redirected to: for your own UI, and for tests. With it, no browser is opened.
        store: where tokens and registrations are kept (default ``FileTokenStore()``;
            ``MemoryTokenStore()`` for this process only).
        interactive: whether a login may wait for a person: ``None`` (default) when there is a
            terminal or a notebook, ``False`` never (raise ``AuthorizationRequired``), ``True`` always.
        client_name: the name shown on the consent page, for dynamic registration.
        login_timeout: seconds a login waits for the person.
        token_endpoint_auth_method: force ``client_secret_basic``, ``client_secret_post``,
            ``none`` or ``private_key_jwt`` rather than choosing from the server's metadata.
        dpop: DPoP-bound tokens (RFC 9449): ``None`` (default) when the authorization server
            supports ES256 proofs, ``True`` always (a server that does not is an error), ``False`` never.
    """

    def for_server(
        self, url: str, name: str, *, session: Any = None, login_command: Optional[str] = None
    ) -> ServerAuth:
        """The auth of one server (what its HTTP client applies to each request)."""
        return ServerAuth(self, url, name, session=session, login_command=login_command)
