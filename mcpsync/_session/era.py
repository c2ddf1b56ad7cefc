"""Which protocol era a server speaks, found the way the 2026-07-28 revision says; and the modern era's
version negotiation.

``probe`` sends ``server/discover`` with the modern ``_meta`` (over HTTP with
the modern headers too). A ``DiscoverResult`` means a modern server; an
``UnsupportedProtocolVersionError`` (-32022) a modern one that wants another
version (one we share is chosen, once; the version just sent is sent once more
when the server lists it as supported all the same, as a server in the middle of
a deploy may); any other error, a result that is no
``DiscoverResult`` (no ``supportedVersions``: a server that answers whatever it
is asked), a ``4xx`` without a modern error in its body, or (on stdio) no answer
within ``PROBE_TIMEOUT`` means a legacy server, and the caller falls back to ``initialize``. With the
era forced (``protocol=``), there is no fallback: the error says why.

The modern era's ``input_required`` results are answered in input_required.py.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Mapping
from typing import Any, Optional

from .._core.eras import (
    LEGACY_VERSIONS,
    MODERN_VERSIONS,
    UNSUPPORTED_VERSION,
    is_modern_error,
)
from .._core.errors import HTTPStatusError, ProtocolError, RequestTimeout, ServerError
from .._core.feature_errors import UnsupportedProtocolVersion
from .channel import Channel

__all__ = [
    "AUTO",
    "LEGACY",
    "MODERN",
    "PROBE_TIMEOUT",
    "check_protocol",
    "listed_versions",
    "probe",
]

logger = logging.getLogger("mcpsync.client")

AUTO = "auto"
MODERN = "modern"
LEGACY = "legacy"
#: Seconds the stdio probe waits for an answer: a legacy server may not answer a request before ``initialize``.
PROBE_TIMEOUT = 5.0
#: The HTTP statuses with which a legacy Streamable HTTP server refuses a modern request.
_LEGACY_STATUSES = (400, 404, 405, 406, 415, 422)


def check_protocol(protocol: str) -> str:
    """``protocol=`` as given: ``"auto"``, ``"modern"`` (or a modern version), ``"legacy"``."""
    if protocol in (AUTO, MODERN, LEGACY) or protocol in MODERN_VERSIONS:
        return protocol
    raise ValueError(f"protocol must be 'auto', 'modern', 'legacy' or one of {MODERN_VERSIONS}, not {protocol!r}")


def _modern_error_in(error: HTTPStatusError) -> Optional[ServerError]:
    """The modern JSON-RPC error a 4xx body carries, if it carries one."""
    try:
        body = json.loads(error.body)
    except ValueError:
        return None
    failure = body.get("error") if isinstance(body, dict) else None
    if isinstance(failure, dict) and is_modern_error(failure.get("code")):
        return ServerError.from_error_object(failure)
    return None


def probe(
    channel: Channel,
    *,
    protocol: str,
    capabilities: Mapping[str, Any],
    client_info: Mapping[str, Any],
    timeout: Optional[float],
    stdio: bool,
) -> Optional[dict[str, Any]]:
    """The ``DiscoverResult`` of a modern server (``channel`` then carries the modern ``_meta``), or
    ``None`` for a legacy one (``channel`` as it was).

    Raises:
        UnsupportedProtocolVersion: a modern server that shares no version with us.
        ServerError, HTTPStatusError, RequestTimeout: with the modern era forced, the probe's failure.
    """
    versions = [protocol] if protocol in MODERN_VERSIONS else list(MODERN_VERSIONS)
    forced = protocol != AUTO
    wait = timeout
    if stdio and not forced:
        wait = PROBE_TIMEOUT if timeout is None else min(timeout, PROBE_TIMEOUT)
    tried: set[str] = set()
    retried: list[str] = []
    version = versions[0]
    deadline = None if wait is None else time.monotonic() + wait
    while True:
        tried.add(version)
        channel.use_version(version, capabilities, client_info)
        left = None if deadline is None else max(0.0, deadline - time.monotonic())
        try:
            result = channel.request("server/discover", None, timeout=left)
        except ServerError as exc:
            error: Optional[ServerError] = exc
        except HTTPStatusError as exc:
            error = _modern_error_in(exc)
            if error is None and (forced or exc.status_code not in _LEGACY_STATUSES):
                channel.use_version(None)
                raise
        except RequestTimeout:
            if forced or not stdio:
                channel.use_version(None)
                raise
            error = None
        else:
            if isinstance(result, dict) and isinstance(result.get("supportedVersions"), list):
                return result
            # A success that is no DiscoverResult: a legacy server that answers whatever it is asked
            # (``{}``, say), not a modern one; it gets the handshake.
            channel.use_version(None)
            _legacy(channel, "an answer without supportedVersions", forced)
            return None
        if error is not None and is_modern_error(error.code):
            if error.code == UNSUPPORTED_VERSION:
                supported = listed_versions(error)
                if version in supported and version not in retried:
                    # Refused, yet listed: an old instance behind a load balancer, a deploy under way.
                    logger.info(
                        "server %r refused protocol version %s, which it lists: asking once more",
                        channel.transport.name,
                        version,
                    )
                    retried.append(version)
                    continue
                shared = [v for v in versions if v in supported and v not in tried]
                if shared:
                    version = shared[0]
                    continue
                channel.use_version(None)
                if not forced and any(v in LEGACY_VERSIONS for v in supported):
                    return None  # a dual-era server that offers a legacy version we speak: initialize
                raise UnsupportedProtocolVersion(version, supported, sent=version, retried=tuple(retried)) from None
            channel.use_version(None)
            raise error
        channel.use_version(None)
        _legacy(channel, str(error) if error is not None else "no answer", forced)
        return None


def listed_versions(error: ServerError) -> tuple[str, ...]:
    """The versions a -32022 (``UnsupportedProtocolVersionError``) lists in ``data.supported``."""
    data = error.data if isinstance(error.data, dict) else {}
    return tuple(v for v in data.get("supported") or () if isinstance(v, str))


def _legacy(channel: Channel, why: str, forced: bool) -> None:
    """The probe found a legacy server (``why``: what ``server/discover`` gave): logged with ``"auto"``.

    Raises:
        ProtocolError: with the modern era forced.
    """
    if forced:
        raise ProtocolError(
            f"{channel.transport.name}: the server does not speak the 2026-07-28 revision "
            f"(server/discover: {why}); connect with protocol='auto' or 'legacy'"
        )
    logger.debug("server %r: server/discover gave %s: a legacy server", channel.transport.name, why)
