"""``ServerAuth``: MCP's OAuth for one server, the ``Authorizer`` each HTTP transport of ``OAuth`` gets.

``OAuth.for_server`` makes it; it does the work:

- **Every request** carries the server's token (``Authorization: Bearer``,
  or ``DPoP`` with its proof). A token about to expire is refreshed first,
  with the refresh token (``headers``).
- **A ``401``** (the HTTP wire hands it to ``answer_challenge``): a token
  another thread or process got meanwhile is taken; else the refresh token
  is tried; else a grant that needs nobody (client credentials, a JWT
  assertion: the subclasses in ``grants``) is run; else
  ``AuthorizationRequired`` is raised, naming the server and the command to
  log in. Nothing in a request's path ever waits for a person.
- **A ``403`` with ``insufficient_scope``**: the same, asking for the union
  of the scopes held and the scopes asked (step-up), a few times at most.
- **A login** (``login``, which the session calls when someone is there, and
  ``mcpsync login``): discovery (``discovery``), then the authorization-code
  flow of ``login`` (PKCE S256, ``state``, ``resource``, registration, the
  person's part, the ``iss`` check), whose token is kept here.

Tokens are kept in the token store (``store``): the next run sends its token
at once. Processes and ``OAuth`` objects sharing a store take turns to refresh
one token (``store.locked``): each re-reads the store first and takes a token
another refreshed meanwhile; after a refusal it looks again, and it deletes
from the store only the very token that was refused, never a newer one. No
token, code, verifier or secret is ever logged or put in an exception's text.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Mapping
from typing import Any, Optional

from .._core.authorizer import Authorizer, Refusal
from .._core.errors import AuthorizationError, AuthorizationRequired, WriteTimeout
from .browser import someone_is_there
from .challenge import Challenge, bearer_challenge
from .discovery import Discovered, canonical_resource, discover
from .dpop import DPoPKey, supports_dpop
from .http import AUTH_TIMEOUT, AuthHTTP
from .login import LoginFlow, authorization_code_flow
from .settings import OAuthSettings
from .store import StoreLockTimeout, client_key, locked, server_key, token_key
from .tokens import ClientInfo, GrantRequest, expires_soon, record_from_response, request_token

__all__ = ["MAX_STEP_UPS", "ServerAuth"]

logger = logging.getLogger("mcpsync.auth")

#: Step-ups (403 insufficient_scope) tried for one request before it is an error.
MAX_STEP_UPS = 3
#: One login at a time in a process: prompts of several servers must not interleave.
_LOGIN_LOCK = threading.Lock()
_OFFLINE_ACCESS = "offline_access"


class ServerAuth(Authorizer):
    """``OAuth`` bound to one MCP server: its headers on each request, and told of each ``401``/``403``."""

    def __init__(
        self, owner: OAuthSettings, url: str, name: str, *, session: Any, login_command: Optional[str]
    ) -> None:
        self.owner = owner
        self.extension = owner.extension
        self.url = url
        self.name = name
        self.session = session
        self.login_command = login_command or f"mcpsync login --url {canonical_resource(url)}"
        self._lock = threading.RLock()
        self._discovered: Optional[Discovered] = None
        self._last_header: Optional[str] = None
        self._step_ups = 0
        self._dpop_cache: Optional[tuple[Any, DPoPKey]] = None
        self._token: Optional[dict[str, Any]] = self._stored_token()

    def for_server(
        self, url: str, name: str, *, session: Any = None, login_command: Optional[str] = None
    ) -> ServerAuth:
        """This one for its own server; the same settings bound to another server for another."""
        if url == self.url and name == self.name:
            return self
        return ServerAuth(self.owner, url, name, session=session, login_command=login_command)

    # -- each request ----------------------------------------------------------------

    def headers(self, method: str, url: str, deadline: float = math.inf) -> Mapping[str, str]:
        """The token's headers for a ``method`` request to ``url`` (``Authorization``, and ``DPoP``'s
        proof for a DPoP token); a token that expires soon is refreshed first, by ``deadline``."""
        token = self._token
        if token is not None and expires_soon(token):
            # Within the request's own deadline: a refresh another thread runs is waited for no longer.
            if self._lock.acquire(timeout=_wait(deadline)):
                try:
                    token = self._token
                    if token is not None and expires_soon(token):
                        try:
                            self._refresh(deadline)
                        except (AuthorizationError, WriteTimeout) as exc:
                            logger.info("server %r: refreshing the token failed: %s", self.name, exc)
                        token = self._token
                finally:
                    self._lock.release()
        if token is None:
            return {}
        headers = {"Authorization": self._header_value(token)}
        key = self._dpop_key(token)
        if key is not None:
            headers["DPoP"] = key.proof(method, url, token["access_token"])
        return headers

    def authorization_context(self) -> str:
        """A fingerprint of the access token in use (``""``: none yet), for ``cacheScope: "private"``:
        a result fetched with one token is never served under another."""
        token = self._token
        if token is None:
            return ""
        import hashlib

        return hashlib.sha256(str(token.get("access_token")).encode("utf-8")).hexdigest()

    @staticmethod
    def _header_value(token: dict[str, Any]) -> str:
        scheme = "DPoP" if str(token.get("token_type")).lower() == "dpop" else "Bearer"
        return f"{scheme} {token['access_token']}"

    def _dpop_key(self, token: dict[str, Any]) -> Optional[DPoPKey]:
        """The key a DPoP token is bound to (made once from the record), ``None`` for a bearer token."""
        stored = token.get("dpop_key")
        if not stored:
            return None
        cached = self._dpop_cache
        if cached is None or cached[0] is not stored:
            cached = self._dpop_cache = (stored, DPoPKey(stored))
        return cached[1]

    def _new_dpop_key(self, discovered: Discovered) -> Optional[DPoPKey]:
        """A key for the next token, if DPoP is to be used with this authorization server."""
        wanted, supported = self.owner.dpop, supports_dpop(discovered.server.metadata)
        if wanted is True and not supported:
            raise AuthorizationError(
                f"{self.name}: DPoP was asked for, and the authorization server {discovered.server.issuer} "
                "does not take ES256 proofs (dpop_signing_alg_values_supported)",
                server=self.name,
            )
        return DPoPKey() if supported and wanted is not False else None

    # -- 401 and 403 ------------------------------------------------------------------

    def answer_challenge(self, refusal: Refusal) -> bool:
        """Whether the request should be sent again (a new token is at hand, or the nonce a DPoP
        server asked for), after a ``401`` or ``403``.

        Raises:
            AuthorizationRequired: a person must log in (or give more scopes).
            AuthorizationError: a refusal, or a grant failed.
        """
        status, header, sent, deadline = refusal.status, refusal.www_authenticate, refusal.sent, refusal.deadline
        challenge = bearer_challenge(header)
        if not self._lock.acquire(timeout=_wait(deadline)):
            raise WriteTimeout(
                f"{self.name}: no answer within the time given to it (another thread was getting a token)"
            )
        with _Held(self._lock):
            self._last_header = header
            current = self._token
            if current is not None and sent != self._header_value(current):
                return True  # another thread got a new token while this request was out
            key = self._dpop_key(current) if current is not None else None
            if (
                key is not None
                and challenge is not None
                and challenge.get("error") == "use_dpop_nonce"
                and refusal.dpop_nonce
            ):
                key.remember_nonce(refusal.url or self.url, refusal.dpop_nonce)
                return True
            stored = self._stored_token()
            if stored is not None and (current is None or stored["access_token"] != current["access_token"]):
                self._token = stored  # another process (mcpsync login) got one
                return True
            if status == 403:
                return self._step_up(challenge, header, deadline)
            if current is not None and current.get("answered_401"):
                # A token got in answer to a 401 is refused too: its authorization server is not (or no
                # longer) one the server trusts. No refresh there again: a grant needing nobody ends
                # here, a person logs in anew (the login discovers the authorization server again).
                if not self.owner.needs_person:
                    raise AuthorizationError(
                        f"{self.name}: the server refused with {status} the token {current['issuer']} "
                        "had just issued in answer to its 401; not tried again",
                        server=self.name,
                        error=challenge.get("error") if challenge else None,
                    )
                self._forget_token(current, deadline)
                raise self._required(401, header, challenge.scopes if challenge else ())
            if (
                current is not None
                and current.get("refresh_token")
                and self._refresh(deadline, answering=True, challenge=challenge)
            ):
                return True
            if current is not None:
                self._forget_token(current, deadline)
            if not self.owner.needs_person:
                scopes = self._scopes_for(challenge, self._discover(deadline, challenge))
                self._obtain(deadline, challenge, scopes, answering=True)
                return True
            raise self._required(401, header, challenge.scopes if challenge else ())

    def _step_up(self, challenge: Optional[Challenge], header: Optional[str], deadline: float) -> bool:
        if challenge is None or challenge.get("error") != "insufficient_scope":
            return False  # a plain 403: not ours to answer
        token = self._token or {}
        held = tuple(str(token.get("scope") or "").split())
        asked = tuple(str(token.get("requested_scope") or "").split())
        wanted = _union(held, challenge.scopes, self.owner.scopes)
        self._step_ups += 1
        if self._step_ups > MAX_STEP_UPS or (self._token is not None and set(challenge.scopes) <= set(asked)):
            # Asked for already, and not granted (or granted, and still refused): another login is no use.
            raise AuthorizationError(
                f"{self.name}: the server still refuses with insufficient_scope (asking for "
                f"{' '.join(challenge.scopes) or 'no scope it names'}) after {self._step_ups - 1} step-up(s) "
                f"with the scopes {' '.join(held) or '(none)'}; not tried again",
                server=self.name,
                error="insufficient_scope",
            )
        if not self.owner.needs_person:
            self._obtain(deadline, challenge, wanted, answering=False)
            return True
        raise self._required(403, header, wanted)

    def _required(self, status: int, header: Optional[str], scopes: tuple[str, ...]) -> AuthorizationRequired:
        why = "more scopes" if status == 403 else "a login"
        what = f" ({' '.join(scopes)})" if scopes else ""
        return AuthorizationRequired(
            f"{self.name} wants {why}{what}, and nobody is here to give it; log in once with: {self.login_command}",
            server=self.name,
            status_code=status,
            www_authenticate=header,
            login_command=self.login_command,
            scopes=scopes,
        )

    # -- getting tokens ----------------------------------------------------------------

    def _discover(self, deadline: float, challenge: Optional[Challenge]) -> Discovered:
        with AuthHTTP(self.name, self.url, deadline=deadline, session=self.session) as http:
            discovered = discover(http, self.url, challenge)
        if self._discovered is not None and self._discovered.server.issuer != discovered.server.issuer:
            logger.info(
                "server %r: its authorization server moved from %s to %s",
                self.name,
                self._discovered.server.issuer,
                discovered.server.issuer,
            )
        self._discovered = discovered
        return discovered

    def _scopes_for(
        self, challenge: Optional[Challenge], discovered: Discovered, extra: tuple[str, ...] = ()
    ) -> tuple[str, ...]:
        """The spec's scope choice: the challenge's, else the resource's ``scopes_supported``; and the user's."""
        asked = challenge.scopes if challenge is not None and challenge.scopes else discovered.scopes_supported
        scopes = _union(asked, self.owner.scopes, extra)
        if scopes and discovered.server.supports("scopes_supported", _OFFLINE_ACCESS) and self.owner.needs_person:
            scopes = _union(scopes, (_OFFLINE_ACCESS,))
        return scopes

    def _obtain(
        self, deadline: float, challenge: Optional[Challenge], scopes: tuple[str, ...], *, answering: bool
    ) -> None:
        """Run the grant that needs nobody, and keep its token (``answering``: a 401 asked for it)."""
        discovered = self._discovered or self._discover(deadline, challenge)
        token_endpoint = discovered.server.endpoint("token_endpoint")
        if token_endpoint is None:
            raise AuthorizationError(f"{self.name}: the authorization server names no token endpoint", server=self.name)
        key = self._new_dpop_key(discovered)
        with AuthHTTP(self.name, self.url, deadline=deadline, session=self.session) as http:
            request = GrantRequest(self.name, http, discovered, scopes, token_endpoint, key)
            obtained = self.owner.obtain_without_person(request)
        if obtained is None:
            raise self._required(401, self._last_header, scopes)
        response, client = obtained
        self._keep(response, discovered, token_endpoint, scopes, client, answering=answering, dpop=key)

    def _refresh(self, deadline: float, *, answering: bool = False, challenge: Optional[Challenge] = None) -> bool:
        """Refresh the token; ``False`` if there is no refresh token, the server refused it, or the
        token is not from the server's authorization server. ``answering``: a 401 asked for it (see
        ``answer_challenge``), whose ``challenge`` helps discovery."""
        token = self._token
        if token is None or not token.get("refresh_token"):
            return False
        try:
            with locked(self.owner.store, token_key(token["resource"], token["issuer"]), _store_wait(deadline)):
                return self._refresh_held(token, deadline, answering, challenge)
        except StoreLockTimeout:
            raise WriteTimeout(
                f"{self.name}: no answer within the time given to it (another process was refreshing the token)"
            ) from None

    def _refresh_held(
        self, token: dict[str, Any], deadline: float, answering: bool, challenge: Optional[Challenge]
    ) -> bool:
        """``_refresh`` with the store's lock for the token held: no other process refreshes it now."""
        stored = self._stored_token()
        if stored is not None and stored["access_token"] != token["access_token"]:
            # Another process or OAuth object refreshed it (or logged in) meanwhile: its refresh token
            # is the live one; ours, if rotated, is spent, and sending it would be refused.
            self._token = token = stored
            if not expires_soon(stored) or not stored.get("refresh_token"):
                return True
        token_endpoint = self._checked_token_endpoint(token, deadline, challenge)
        if token_endpoint is None:
            return False
        client = self._client_for(token["issuer"], token.get("client_id"), token.get("client_auth_method"))
        form = {"grant_type": "refresh_token", "refresh_token": token["refresh_token"], "resource": token["resource"]}
        with AuthHTTP(self.name, self.url, deadline=deadline, session=self.session) as http:
            try:
                key = self._dpop_key(token)
                response = request_token(
                    http,
                    token_endpoint,
                    client,
                    form,
                    issuer=token["issuer"],
                    private_key=self.owner.private_key,
                    algorithm=self.owner.algorithm,
                    dpop=key,
                )
            except AuthorizationError as exc:
                if exc.error is None:
                    raise  # not a refusal: the server could not be asked
                logger.info("server %r: the refresh token was refused (%s)", self.name, exc.error)
                again = self._stored_token()
                if again is not None and again["access_token"] != token["access_token"]:
                    self._token = again  # a newer one is there (a store without a lock, an older client)
                    return True
                self._forget_token(token, deadline, held=True)
                return False
        record = record_from_response(
            response,
            issuer=token["issuer"],
            resource=token["resource"],
            token_endpoint=token_endpoint,
            client=client,
            scopes=tuple(str(token.get("requested_scope") or token.get("scope") or "").split()),
            previous=token,
            dpop=key,
        )
        record["answered_401"] = answering
        self._save(record)
        logger.info("server %r: token refreshed", self.name)
        return True

    def _checked_token_endpoint(
        self, token: dict[str, Any], deadline: float, challenge: Optional[Challenge]
    ) -> Optional[str]:
        """Where to refresh ``token``: its authorization server's token endpoint as that server's own
        metadata says (discovered once, from the MCP server), never the one the stored record names.
        A stored record is a cache, not an authority: anyone who could write it could name any
        endpoint, and the client's secret goes there. ``None``: the record is not from the server's
        authorization server, or not for this resource; it is not refreshed anywhere."""
        discovered = self._discovered or self._discover(deadline, challenge)
        server = discovered.server
        endpoint = server.endpoint("token_endpoint")
        if endpoint is None or token.get("issuer") != server.issuer or token.get("resource") != discovered.resource:
            logger.warning(
                "server %r: the stored token is from %r for %r, not from its authorization server %s for %s; "
                "not refreshed",
                self.name,
                token.get("issuer"),
                token.get("resource"),
                server.issuer,
                discovered.resource,
            )
            return None
        stored = token.get("token_endpoint")
        if stored != endpoint:
            logger.warning(
                "server %r: the stored token names the token endpoint %r; its authorization server's metadata "
                "says %s, which is used",
                self.name,
                stored,
                endpoint,
            )
        return endpoint

    def _client_for(self, issuer: str, client_id: Optional[str], auth_method: Optional[str]) -> Optional[ClientInfo]:
        """The client that got a token, for its refresh: the user's, or the registration kept for ``issuer``."""
        registrar = self.owner.registrar
        if registrar.client_id is not None and registrar.client_id == client_id:
            method = (
                auth_method or registrar.auth_method or ("client_secret_basic" if registrar.client_secret else "none")
            )
            return ClientInfo(registrar.client_id, registrar.client_secret, method)
        stored = self.owner.store.load(client_key(issuer))
        known = ClientInfo.from_store(stored) if stored else None
        if known is not None and known.client_id == client_id:
            return known
        return ClientInfo(client_id, None, auth_method or "none") if client_id else None

    # -- the login ---------------------------------------------------------------------

    def can_login(self) -> bool:
        """Whether a login may wait for a person now (or ``on_authorize`` stands in for one)."""
        owner = self.owner
        if not owner.needs_person:
            return False
        if owner.on_authorize is not None or owner.interactive is True:
            return True
        return owner.interactive is None and someone_is_there()

    def login(self, reason: Optional[AuthorizationRequired] = None, *, deadline: float = math.inf) -> float:
        """Run the authorization-code flow now, and keep its token (see the module docstring).

        ``reason``: the ``AuthorizationRequired`` that asked for it (its challenge and scopes).
        ``deadline``: the caller's (a ``time.monotonic()`` value): every network step of the login
        (discovery, registration, the token request) ends by it, moved on by the time the person took
        (which ``login_timeout`` bounds); each step also within ``AUTH_TIMEOUT``.

        Returns:
            the seconds the person took, and another login of the process this one waited for
            (the caller's time did not run meanwhile).

        Raises:
            AuthorizationRequired: nobody answered in time, or nobody can (no person, no callable).
            AuthorizationError: a refusal or a failed step (the text says which).
        """
        header = reason.www_authenticate if reason is not None else self._last_header
        challenge = bearer_challenge(header)
        before = self._token
        # One login at a time in the process; this server's lock only for the state, never while the
        # person takes their time (requests of other threads would wait past their deadlines). The
        # wait for another login's turn is bounded as a login is: it cannot take longer itself.
        asked = time.monotonic()
        if not _LOGIN_LOCK.acquire(timeout=self.owner.login_timeout + AUTH_TIMEOUT):
            raise AuthorizationRequired(
                f"{self.name}: another login of this process did not end within "
                f"{self.owner.login_timeout + AUTH_TIMEOUT:g}s; log in with: {self.login_command}",
                server=self.name,
                login_command=self.login_command,
            )
        # The wait for another login is a person's time too: not the caller's (it moves the deadline on).
        waited = time.monotonic() - asked
        deadline += waited
        with _Held(_LOGIN_LOCK):
            now = self._token
            if reason is not None and now is not None and now is not before:
                granted = set(str(now.get("scope") or "").split())
                if reason.status_code != 403 or set(reason.scopes) <= granted:
                    return waited  # another thread's login, while this one waited for its turn, is what was needed
            discovered = self._discover(deadline, challenge)
            extra = reason.scopes if reason is not None else ()
            held = tuple((self._token or {}).get("scope", "").split()) if extra else ()
            scopes = self._scopes_for(challenge, discovered, _union(extra, held))
            nobody = None
            if self.owner.on_authorize is None and not self.can_login():
                nobody = self._required(401, self._last_header, scopes)
            flow = LoginFlow(self.owner, self.name, self.url, self.session, nobody, self._new_dpop_key, self._token)
            record, person = authorization_code_flow(flow, discovered, scopes, deadline)
            with self._lock:
                self._save(record)
                self._step_ups = 0
        logger.info("server %r: logged in at %s", self.name, discovered.server.issuer)
        return waited + person

    # -- keeping tokens ----------------------------------------------------------------

    def _keep(
        self,
        response: dict[str, Any],
        discovered: Discovered,
        token_endpoint: str,
        scopes: tuple[str, ...],
        client: Optional[ClientInfo],
        *,
        answering: bool,
        dpop: Optional[DPoPKey],
    ) -> None:
        record = record_from_response(
            response,
            dpop=dpop,
            issuer=discovered.server.issuer,
            resource=discovered.resource,
            token_endpoint=token_endpoint,
            client=client,
            scopes=scopes,
            previous=self._token,
        )
        record["answered_401"] = answering
        self._save(record)

    def _save(self, record: dict[str, Any]) -> None:
        store = self.owner.store
        store.save(token_key(record["resource"], record["issuer"]), record)
        store.save(
            server_key(canonical_resource(self.url)), {"resource": record["resource"], "issuer": record["issuer"]}
        )
        self._token = record

    def _stored_token(self) -> Optional[dict[str, Any]]:
        store = self.owner.store
        where = store.load(server_key(canonical_resource(self.url)))
        if not where or not isinstance(where.get("resource"), str) or not isinstance(where.get("issuer"), str):
            return None
        record = store.load(token_key(where["resource"], where["issuer"]))
        if not record or not isinstance(record.get("access_token"), str) or not record["access_token"]:
            return None
        if record.get("resource") != where["resource"] or record.get("issuer") != where["issuer"]:
            logger.warning("server %r: a stored token is not what its entry says it is; ignored", self.name)
            return None
        return record

    def _forget_token(self, token: dict[str, Any], deadline: float, *, held: bool = False) -> None:
        """Drop ``token``, here and from the store if the store still holds that very token (under
        the store's lock for it; ``held``: taken already). A newer token there is another process's,
        refreshed meanwhile: it is kept."""
        if self._token is token:
            self._token = None
        store = self.owner.store
        key = token_key(token["resource"], token["issuer"])

        def delete_if_same() -> None:
            stored = store.load(key)
            if stored is None:
                return
            if stored.get("access_token") != token.get("access_token"):
                logger.info("server %r: the store holds a newer token than the one refused; kept", self.name)
                return
            store.delete(key)

        if held:
            delete_if_same()
            return
        try:
            with locked(store, key, _store_wait(deadline)):
                delete_if_same()
        except StoreLockTimeout:
            logger.info("server %r: the store was busy; the refused token is left in it", self.name)

    def status(self) -> Optional[dict[str, Any]]:
        """What is known of this server's login, without any secret: issuer, scopes, expiry
        (epoch seconds or ``None``), whether there is a refresh token; ``None`` when not logged in."""
        token = self._token or self._stored_token()
        if token is None:
            return None
        return {
            "issuer": token.get("issuer"),
            "resource": token.get("resource"),
            "scopes": str(token.get("scope") or "").split(),
            "expires_at": token.get("expires_at"),
            "refresh_token": bool(token.get("refresh_token")),
        }

    def logout(self) -> bool:
        """Forget this server's tokens (here and in the store); whether there were any."""
        with self._lock:
            token = self._token or self._stored_token()
            self._token = None
            if token is not None:
                self.owner.store.delete(token_key(token["resource"], token["issuer"]))
            self.owner.store.delete(server_key(canonical_resource(self.url)))
            return token is not None


def _wait(deadline: float) -> float:
    """Seconds to wait for a lock until ``deadline`` (``-1``: no limit, as ``Lock.acquire`` takes it)."""
    if deadline == math.inf:
        return -1
    return max(0.0, deadline - time.monotonic())


def _store_wait(deadline: float) -> float:
    """Seconds to wait for the store's lock until ``deadline`` (with no deadline: ``AUTH_TIMEOUT``)."""
    if deadline == math.inf:
        return AUTH_TIMEOUT
    return max(0.0, deadline - time.monotonic())


class _Held:
    """Release a lock acquired already, when the block ends."""

    __slots__ = ("_lock",)

    def __init__(self, lock: Any) -> None:
        self._lock = lock

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc_info: object) -> None:
        self._lock.release()


def _union(*groups: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(s for group in groups for s in group))
