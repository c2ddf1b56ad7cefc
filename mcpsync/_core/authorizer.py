"""``Authorizer``: what the HTTP wire and the session rely on from an auth object, and nothing more.

The wire asks an authorizer for the headers of each request and hands it
each ``401`` / ``403``; the session asks it whether a person can log in, runs
the login, reads its authorization context (for ``cacheScope``) and the
extension it declares. ``mcpsync.OAuth`` and its grants implement it (bound
to one server by ``for_server``: a ``ServerAuth``), and so does the wire's
adapter of a ``requests`` auth object (``_wire.http.auth``); an object of
your own that has these members is used as it is. A subclass inherits the
defaults below: no headers, no answer to a challenge, no login.

The flow is httpx's ``Auth`` flow unrolled for a thread: the wire calls
``headers`` before each send, and ``answer_challenge`` after a refusal,
sending again while it says so.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Optional, Protocol, runtime_checkable

from .errors import AuthorizationRequired

__all__ = ["Authorizer", "Refusal", "SupportsAuthorizationContext"]


@dataclass(frozen=True)
class Refusal:
    """A ``401`` or ``403`` to a request, as the wire hands it to the authorizer."""

    #: The answer's status: 401 or 403.
    status: int
    #: The answer's ``WWW-Authenticate`` header, if any.
    www_authenticate: Optional[str]
    #: The ``Authorization`` header the refused request carried, if any.
    sent: Optional[str]
    #: The URL the request went to.
    url: str
    #: The answer's ``DPoP-Nonce`` header, if any.
    dpop_nonce: Optional[str]
    #: The ``time.monotonic()`` by which the request must end (``math.inf``: no limit).
    deadline: float


@runtime_checkable
class Authorizer(Protocol):
    """An HTTP server's authorization, as the wire and the session use it."""

    #: The authorization extension a modern request declares in its capabilities (``None``: none).
    extension: Optional[str] = None

    def for_server(
        self, url: str, name: str, *, session: Any = None, login_command: Optional[str] = None
    ) -> Authorizer:
        """The authorizer of one server (``url``, called ``name``), which its HTTP client uses.

        ``session``: the user's ``requests.Session`` (or ``None``), for requests of the
        authorizer's own; ``login_command``: what an ``AuthorizationRequired`` tells the user to
        run. Default: this object itself, for every server.
        """
        return self

    def headers(self, method: str, url: str, deadline: float = math.inf) -> Mapping[str, str]:
        """The headers a ``method`` request to ``url`` carries (``Authorization``, ``DPoP``), got by
        ``deadline`` (a ``time.monotonic()``; a token about to expire may be refreshed first).
        Default: none."""
        return {}

    def answer_challenge(self, refusal: Refusal) -> bool:
        """Whether a request refused (401 or 403) should be sent again: a new token is at hand by
        ``refusal.deadline``. Default: ``False`` (the refusal is the caller's answer).

        Raises:
            AuthorizationRequired: a person must log in (the session may run ``login``).
        """
        return False

    def can_login(self) -> bool:
        """Whether ``login`` may run now (a person, or a stand-in for one, is there). Default: no."""
        return False

    def login(self, reason: Optional[AuthorizationRequired] = None, *, deadline: float = math.inf) -> float:
        """Log in now (on the caller's thread), for the refusal ``reason``; returns the seconds the
        person took (not the caller's: the session stops its clock meanwhile).

        Raises:
            AuthorizationRequired: no login can be had here (the default).
        """
        if reason is not None:
            raise reason
        raise AuthorizationRequired("no login is possible with this auth")

    def authorization_context(self) -> str:
        """A fingerprint of the credentials sent now (``""``: none), for ``cacheScope: "private"``:
        another token, another context. Default: this object's identity."""
        return f"{type(self).__qualname__} {id(self):x}"


@runtime_checkable
class SupportsAuthorizationContext(Protocol):
    """A ``requests`` auth object that says which credentials it sends (``docs/api.md``, cache scopes)."""

    def authorization_context(self) -> str:
        """A fingerprint of the credentials sent now."""
        ...
