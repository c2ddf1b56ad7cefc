"""What the test server knows of the protocol's two eras, as constants: versions, ``_meta`` keys, error codes
and the methods of the 2026-07-28 revision."""

from __future__ import annotations

__all__ = [
    "CACHEABLE",
    "CLIENT_CAPABILITIES_KEY",
    "HANDSHAKE_VERSIONS",
    "HEADER_MISMATCH",
    "LISTEN_FILTERS",
    "LOG_LEVEL_KEY",
    "MISSING_CAPABILITY",
    "MODERN_METHODS",
    "MODERN_REMOVED",
    "MODERN_VERSIONS",
    "PROTOCOL_VERSION_KEY",
    "SERVER_INFO_KEY",
    "SUBSCRIPTION_ID_KEY",
    "UI_EXTENSION",
    "UNSUPPORTED_VERSION",
]

#: The revisions with an ``initialize`` handshake, newest first.
HANDSHAKE_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
#: The stateless revisions served by default (``--modern-versions``).
MODERN_VERSIONS = ("2026-07-28",)
PROTOCOL_VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
CLIENT_CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"
SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo"
LOG_LEVEL_KEY = "io.modelcontextprotocol/logLevel"
SUBSCRIPTION_ID_KEY = "io.modelcontextprotocol/subscriptionId"
#: The MCP Apps extension, which a client declares in its capabilities' ``extensions``.
UI_EXTENSION = "io.modelcontextprotocol/ui"
#: What a ``subscriptions/listen`` filter may ask for.
LISTEN_FILTERS = ("toolsListChanged", "promptsListChanged", "resourcesListChanged", "resourceSubscriptions")
#: The 2026-07-28 revision's own JSON-RPC errors: headers that do not match the body (over HTTP, with a
#: 400), a client capability the request needs, a version the server does not accept.
HEADER_MISMATCH = -32020
MISSING_CAPABILITY = -32021
UNSUPPORTED_VERSION = -32022
#: What the 2026-07-28 revision removed: a modern request for one gets -32601.
MODERN_REMOVED = frozenset(
    {
        "initialize",
        "ping",
        "logging/setLevel",
        "resources/subscribe",
        "resources/unsubscribe",
    }
)
#: The methods a modern request may name (any other gets -32601; over HTTP with 404).
MODERN_METHODS = frozenset(
    {
        "server/discover",
        "tools/list",
        "tools/call",
        "resources/list",
        "resources/templates/list",
        "resources/read",
        "prompts/list",
        "prompts/get",
        "completion/complete",
        "skills/list",
        "skills/get",
        "resources/directory/read",
        "subscriptions/listen",
    }
)
#: Results that carry the caching hints (``ttlMs``, ``cacheScope``).
CACHEABLE = frozenset(
    {
        "server/discover",
        "tools/list",
        "prompts/list",
        "resources/list",
        "resources/templates/list",
        "resources/read",
        "skills/list",
        "skills/get",
    }
)
