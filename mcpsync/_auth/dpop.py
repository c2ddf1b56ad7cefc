"""DPoP (RFC 9449): tokens bound to a key of ours, with a fresh proof on every request.

When the authorization server lists ES256 in ``dpop_signing_alg_values_supported``,
mcpsync makes an ES256 key (P-256), kept with the token in the token store,
and sends a proof (a JWT signed with it, ``typ`` ``dpop+jwt``, the public
key in its header) with each token request and each request to the MCP
server: ``htm`` the method, ``htu`` the URL without query or fragment, a
unique ``jti``, ``iat``, and towards the MCP server ``ath``, the hash of the
access token, which goes as ``Authorization: DPoP <token>``. A server that
wants a nonce says so (``use_dpop_nonce`` with a ``DPoP-Nonce`` header: a
``400`` at the token endpoint, a ``401`` at the MCP server); the request is
made again once with it, and the nonce is used from then on.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
import threading
import time
from typing import Any, Optional
from urllib.parse import urlsplit, urlunsplit

__all__ = ["DPOP_ALGORITHM", "DPoPKey", "supports_dpop"]

DPOP_ALGORITHM = "ES256"


def supports_dpop(metadata: dict[str, Any]) -> bool:
    """Whether an authorization server takes DPoP proofs signed with ES256."""
    listed = metadata.get("dpop_signing_alg_values_supported")
    return isinstance(listed, list) and DPOP_ALGORITHM in listed


def _htu(url: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))


class DPoPKey:
    """An ES256 key and the nonces servers gave for it (thread-safe)."""

    def __init__(self, private_jwk: Optional[dict[str, Any]] = None) -> None:
        from joserfc.jwk import ECKey

        self._key = ECKey.import_key(private_jwk) if private_jwk else ECKey.generate_key("P-256")
        self._public = self._key.as_dict(private=False)
        self._nonces: dict[str, str] = {}  # origin -> the latest DPoP-Nonce it sent
        self._lock = threading.Lock()

    def to_store(self) -> dict[str, Any]:
        """The private key as a JWK, to keep with the token (the store's files are mode 0600)."""
        return dict(self._key.as_dict(private=True))

    @property
    def thumbprint(self) -> str:
        """The key's JWK thumbprint (RFC 7638), what a DPoP-bound token's ``cnf.jkt`` names."""
        return str(self._key.thumbprint())

    def remember_nonce(self, url: str, nonce: Optional[str]) -> None:
        if nonce:
            parts = urlsplit(url)
            with self._lock:
                self._nonces[f"{parts.scheme}://{parts.netloc}"] = nonce

    def proof(self, method: str, url: str, access_token: Optional[str] = None) -> str:
        """A fresh proof for one request (see the module docstring)."""
        from joserfc import jwt

        parts = urlsplit(url)
        with self._lock:
            nonce = self._nonces.get(f"{parts.scheme}://{parts.netloc}")
        claims: dict[str, Any] = {
            "jti": secrets.token_urlsafe(16),
            "htm": method,
            "htu": _htu(url),
            "iat": int(time.time()),
        }
        if nonce is not None:
            claims["nonce"] = nonce
        if access_token is not None:
            digest = hashlib.sha256(access_token.encode("ascii")).digest()
            claims["ath"] = base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
        header = {"typ": "dpop+jwt", "alg": DPOP_ALGORITHM, "jwk": self._public}
        return str(jwt.encode(header, claims, self._key, algorithms=[DPOP_ALGORITHM]))
