"""Layer 4, authorization for remote MCP servers: OAuth 2.1 as MCP specifies it, and its extensions.

``OAuth`` (the authorization-code flow, for a person), the grants that need
nobody (``ClientCredentials``, ``WorkloadIdentity``, ``EnterpriseAuth``), and
the token stores. Importing this package imports neither Authlib nor
joserfc: they are loaded on the first token request. ``OAuth`` is the
default auth of HTTP transports (``mcpsync`` sets ``_core.auth_hook``): idle
until a server answers 401, or the token store has a token for the server.
"""

from __future__ import annotations

from .grants import ClientCredentials, EnterpriseAuth, WorkloadIdentity
from .oauth import OAuth
from .server_auth import ServerAuth
from .store import FileTokenStore, MemoryTokenStore, TokenStore

__all__ = [
    "ClientCredentials",
    "EnterpriseAuth",
    "FileTokenStore",
    "MemoryTokenStore",
    "OAuth",
    "ServerAuth",
    "TokenStore",
    "WorkloadIdentity",
]
