"""Which protocol era a server speaks, found the way the 2026-07-28 revision says; and the modern era's
multi-round-trip requests.

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

``rounds`` answers ``input_required`` results: each of the server's
``inputRequests`` goes to the client's handlers (``elicitation=``,
``sampling=``, ``roots=``), and the request is sent again, under a new id,
with ``inputResponses`` and the ``requestState`` as it came (none when none
came), at most ``MAX_INPUT_ROUNDS`` times, all within the caller's timeout.
"""

from __future__ import annotations

import json
import logging
import math
import time
from collections.abc import Mapping
from typing import Any, Callable, Optional

from .._core.eras import (
    LEGACY_VERSIONS,
    MODERN_VERSIONS,
    UNSUPPORTED_VERSION,
    is_modern_error,
    result_type,
)
from .._core.errors import HTTPStatusError, ProtocolError, RequestTimeout, ServerError, UnsupportedProtocolVersion
from .channel import Channel

__all__ = [
    "AUTO",
    "LEGACY",
    "MAX_INPUT_ROUNDS",
    "MODERN",
    "PROBE_TIMEOUT",
    "check_protocol",
    "listed_versions",
    "probe",
    "rounds",
]

logger = logging.getLogger("mcpsync.client")

AUTO = "auto"
MODERN = "modern"
LEGACY = "legacy"
#: Seconds the stdio probe waits for an answer: a legacy server may not answer a request before ``initialize``.
PROBE_TIMEOUT = 5.0
#: ``input_required`` rounds one request may take.
MAX_INPUT_ROUNDS = 10
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
        channel.speak(version, capabilities, client_info)
        left = None if deadline is None else max(0.0, deadline - time.monotonic())
        try:
            result = channel.request("server/discover", None, timeout=left)
        except ServerError as exc:
            error: Optional[ServerError] = exc
        except HTTPStatusError as exc:
            error = _modern_error_in(exc)
            if error is None and (forced or exc.status_code not in _LEGACY_STATUSES):
                channel.speak(None)
                raise
        except RequestTimeout:
            if forced or not stdio:
                channel.speak(None)
                raise
            error = None
        else:
            if isinstance(result, dict) and isinstance(result.get("supportedVersions"), list):
                return result
            # A success that is no DiscoverResult: a legacy server that answers whatever it is asked
            # (``{}``, say), not a modern one; it gets the handshake.
            channel.speak(None)
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
                channel.speak(None)
                if not forced and any(v in LEGACY_VERSIONS for v in supported):
                    return None  # a dual-era server that offers a legacy version we speak: initialize
                raise UnsupportedProtocolVersion(version, supported, sent=version, retried=tuple(retried)) from None
            channel.speak(None)
            raise error
        channel.speak(None)
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


def rounds(
    method: str,
    params: Optional[dict[str, Any]],
    result: dict[str, Any],
    *,
    send: Callable[[Optional[dict[str, Any]], Optional[float]], dict[str, Any]],
    fulfil: Callable[[str, Optional[dict[str, Any]]], dict[str, Any]],
    timeout: Optional[float],
    started: float,
    name: str,
) -> dict[str, Any]:
    """The final result of a request after its ``input_required`` rounds (see the module docstring).

    ``send(params, timeout)`` sends the request again; ``fulfil(method, params)`` answers one input request.

    Raises:
        ProtocolError: more than ``MAX_INPUT_ROUNDS`` rounds, or a malformed input request.
        RequestTimeout: the rounds took longer than ``timeout`` in all.
    """
    deadline = math.inf if timeout is None else started + timeout
    for _ in range(MAX_INPUT_ROUNDS):
        if result_type(result) != "input_required":
            return result
        requests = result.get("inputRequests") or {}
        if not isinstance(requests, dict):
            raise ProtocolError(f"{name}: {method}: 'inputRequests' must be an object, got {type(requests).__name__}")
        responses: dict[str, Any] = {}
        for key, request in requests.items():
            if not isinstance(request, dict) or not isinstance(request.get("method"), str):
                raise ProtocolError(f"{name}: {method}: input request {key!r} has no method")
            responses[key] = fulfil(request["method"], request.get("params"))
        again = {k: v for k, v in (params or {}).items() if k not in ("inputResponses", "requestState")}
        if responses:
            again["inputResponses"] = responses
        if "requestState" in result:
            again["requestState"] = result["requestState"]  # as it came, byte for byte
        left = None if deadline == math.inf else deadline - time.monotonic()
        if left is not None and left <= 0:
            raise RequestTimeout(method, timeout or 0.0)
        result = send(again, left)
    if result_type(result) != "input_required":
        return result
    raise ProtocolError(f"{name}: {method}: the server asked for input {MAX_INPUT_ROUNDS} times; given up")
