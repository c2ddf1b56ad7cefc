"""``OAuthSettings``: what a user sets on ``mcpsync.OAuth`` (and its grants), kept for every server it binds.

The settings alone, with no server: the client (``registration.Registrar``),
the scopes, the redirect, the person's part (``on_authorize``,
``interactive``, ``login_timeout``), DPoP, the token store. ``OAuth`` adds
the binding to a server (``for_server``); the grants (``grants``) add the
token request that needs nobody (``obtain_without_person``). ``ServerAuth``
and the login read them here, and so import neither.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Union

from .._core.errors import AuthorizationError
from .registration import Registrar
from .store import FileTokenStore, TokenStore
from .tokens import ClientInfo, GrantRequest

__all__ = ["LOGIN_TIMEOUT", "OAuthSettings", "Scopes"]

#: Seconds a login waits for the person (the browser's redirect or a pasted URL), by default.
LOGIN_TIMEOUT = 300.0

Scopes = Union[str, list[str], tuple[str, ...], None]


class OAuthSettings:
    """The settings of ``mcpsync.OAuth`` (its docstring says each argument); no server, no token."""

    #: Whether getting a token needs a person (the authorization-code flow); the grants do not.
    needs_person = True
    #: The authorization extension a modern request declares in its capabilities (``None``: core OAuth).
    extension: Optional[str] = None

    def __init__(
        self,
        *,
        client_id: Optional[str] = None,
        client_secret: Optional[str] = None,
        private_key: Optional[str] = None,
        algorithm: Optional[str] = None,
        client_metadata_url: Optional[str] = None,
        issuer: Optional[str] = None,
        scopes: Scopes = None,
        redirect_uri: Optional[str] = None,
        redirect_port: Optional[int] = None,
        on_authorize: Optional[Callable[[str], str]] = None,
        store: Optional[TokenStore] = None,
        interactive: Optional[bool] = None,
        client_name: str = "mcpsync",
        login_timeout: float = LOGIN_TIMEOUT,
        token_endpoint_auth_method: Optional[str] = None,
        dpop: Optional[bool] = None,
    ) -> None:
        self.client_id = client_id
        self.dpop = dpop
        self.private_key = _read_key(private_key)
        self.algorithm = algorithm
        self.scopes = _scopes(scopes)
        self.redirect_uri = redirect_uri
        self.redirect_port = redirect_port
        self.on_authorize = on_authorize
        self.store: TokenStore = store if store is not None else FileTokenStore()
        self.interactive = interactive
        self.login_timeout = login_timeout
        self.registrar = Registrar(
            client_id=client_id,
            client_secret=client_secret,
            private_key=self.private_key,
            client_metadata_url=client_metadata_url,
            issuer=issuer,
            client_name=client_name,
            auth_method=token_endpoint_auth_method,
            store=self.store,
        )

    def __repr__(self) -> str:
        return f"{type(self).__name__}(client_id={self.client_id!r}, store={self.store!r})"

    def obtain_without_person(self, request: GrantRequest) -> Optional[tuple[dict[str, Any], Optional[ClientInfo]]]:
        """A token response from a grant that needs nobody, and the client that got it; ``None``
        here, where there is no such grant (the subclasses in ``grants`` have one)."""
        return None


def _scopes(value: Scopes) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return tuple(value.split())
    return tuple(value)


def _read_key(value: Optional[str]) -> Optional[str]:
    """PEM text as given, or read from the file it names."""
    if value is None or "-----BEGIN" in value:
        return value
    try:
        with open(value, encoding="utf-8") as file:
            return file.read()
    except OSError as exc:
        raise AuthorizationError(f"the private key file {value!r} cannot be read: {exc.strerror}") from None
