"""What ``auth=`` may be, made into one ``Authorizer``: the entry point of every HTTP transport's auth.

``as_authorizer`` takes what users pass: an ``Authorizer`` (``mcpsync.OAuth``,
a grant, an object of the protocol of your own) as it is; a ``requests`` auth
object (``HTTPBasicAuth``, ``HTTPDigestAuth``, any callable that takes and
returns a ``PreparedRequest``, a ``(user, password)`` pair) wrapped in
``RequestsAuth``; ``None`` as ``None``. Anything else is a ``TypeError`` that
names what it got. ``False`` (no auth, not even the default) is the
transport's to keep apart before it asks.
"""

from __future__ import annotations

from typing import Any, Callable, Union

from ..._core.authorizer import Authorizer, SupportsAuthorizationContext

__all__ = ["RequestsAuth", "as_authorizer", "requests_auth_context"]

#: What ``requests`` takes as auth: a callable on a ``PreparedRequest``, or a ``(user, password)`` pair.
RequestsAuthObject = Union[Callable[[Any], Any], tuple[Any, Any]]


class RequestsAuth(Authorizer):
    """A ``requests`` auth object as an ``Authorizer``: ``requests`` applies it to each request with its
    own function (``PreparedRequest.prepare_auth``: a digest auth's hooks work), and it answers no
    challenge itself (its hooks may)."""

    def __init__(self, auth: RequestsAuthObject) -> None:
        #: The ``requests`` auth object, applied by ``HTTPClient.prepare``.
        self.requests_auth = auth

    def __repr__(self) -> str:
        return f"RequestsAuth({type(self.requests_auth).__name__})"

    def authorization_context(self) -> str:
        return requests_auth_context(self.requests_auth)


def requests_auth_context(auth: object) -> str:
    """A ``requests`` auth object's own ``authorization_context()`` if it has one, else its identity."""
    if isinstance(auth, SupportsAuthorizationContext):
        return auth.authorization_context()
    return f"{type(auth).__qualname__} {id(auth):x}"


def as_authorizer(auth: object) -> Union[Authorizer, None]:
    """``auth=`` as an ``Authorizer`` (see the module docstring); ``None`` stays ``None``.

    Raises:
        TypeError: ``auth`` is none of what ``auth=`` takes; the text names its type (never its value,
            which may be a secret).
    """
    if auth is None:
        return None
    if isinstance(auth, Authorizer):
        return auth
    if callable(auth):
        return RequestsAuth(auth)
    if isinstance(auth, tuple) and len(auth) == 2 and all(isinstance(part, (str, bytes)) for part in auth):
        return RequestsAuth(auth)
    kind = type(auth)
    named = kind.__qualname__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"
    hint = " (a token? pass headers={'Authorization': 'Bearer ...'})" if isinstance(auth, (str, bytes)) else ""
    raise TypeError(
        "auth= takes mcpsync.OAuth (or a grant such as mcpsync.ClientCredentials), an object of the "
        "Authorizer protocol, a requests auth object (a callable, or a (user, password) pair), None, "
        f"or False; got {named}{hint}"
    )
