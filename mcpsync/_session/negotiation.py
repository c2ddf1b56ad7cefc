"""Which protocol version a client and a server speak: the probe, the one choice of a version, and what
a ``server/discover`` or ``initialize`` answer says.

``probe`` sends ``server/discover`` with the modern ``_meta`` (over HTTP with
the modern headers too). A ``DiscoverResult`` means a modern server; an
``UnsupportedProtocolVersionError`` (-32022) a modern one that wants another
version; any other error, a result that is no ``DiscoverResult`` (no
``supportedVersions``: a server that answers whatever it is asked), or a ``4xx``
without a modern error in its body means a legacy server, and the client falls back to the
``initialize`` handshake (``legacy_handshake``). With the era forced
(``protocol=``), there is no fallback: the error says why.

On stdio a legacy server may never answer a request before ``initialize``, and a modern one may take
longer than ``PROBE_TIMEOUT`` to start (``uvx``, ``npx -y`` or ``docker run`` on a first run): with no
answer by then, ``initialize`` goes out while ``server/discover`` still waits (``handshake_or_late_discover``),
and the first success decides. A late discover answer is an answer: a dual-era server that gives
it commits its connection to the modern era and refuses the handshake that followed.

Every choice of a version after a refusal is ``choose_version``'s: at the probe,
on a discover answer that lists others, and when a server refuses a request of
a session under way (``version_after_refusal``). The version just sent goes
again when the server lists it all the same (an old instance behind a load
balancer, a deploy under way), else the newest we share.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Collection, Iterable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, wait
from dataclasses import dataclass
from typing import Any, Optional, Union

from .._core.authorizer import Authorizer
from .._core.eras import (
    LEGACY_VERSIONS,
    MODERN_VERSIONS,
    SERVER_INFO,
    UNSUPPORTED_VERSION,
    is_modern_error,
    param_headers,
)
from .._core.errors import (
    HTTPStatusError,
    ProtocolError,
    RequestTimeout,
    ServerError,
    WriteTimeout,
)
from .._core.feature_errors import UnsupportedProtocolVersion
from .._core.pending import RequestFuture
from .._core.timeouts import USE_DEFAULT, Deadline
from .channel import Channel
from .era import AUTO, LEGACY
from .models import ServerInfo, Tool
from .tasks import TASKS_EXTENSION

__all__ = [
    "ALL_PROTOCOL_VERSIONS",
    "HANDSHAKE_PROTOCOL_VERSIONS",
    "LATEST_PROTOCOL_VERSION",
    "MODERN_PROTOCOL_VERSIONS",
    "PROBE_TIMEOUT",
    "SUPPORTED_PROTOCOL_VERSIONS",
    "Agreement",
    "Unanswered",
    "call_headers",
    "choose_version",
    "from_discover",
    "from_initialize",
    "handshake_or_late_discover",
    "legacy_handshake",
    "listed_versions",
    "modern_capabilities",
    "negotiate",
    "probe",
    "version_after_refusal",
]

logger = logging.getLogger("mcpsync.client")

#: The versions of the ``initialize`` handshake (the legacy era) we speak, newest first.
HANDSHAKE_PROTOCOL_VERSIONS: tuple[str, ...] = LEGACY_VERSIONS
#: The versions without a handshake (2026-07-28 on: every request carries its version), newest first.
MODERN_PROTOCOL_VERSIONS: tuple[str, ...] = MODERN_VERSIONS
#: Every version we speak, in either era, newest first.
ALL_PROTOCOL_VERSIONS: tuple[str, ...] = MODERN_VERSIONS + LEGACY_VERSIONS
#: The versions we negotiate at ``initialize``, newest first (``HANDSHAKE_PROTOCOL_VERSIONS``).
SUPPORTED_PROTOCOL_VERSIONS: tuple[str, ...] = HANDSHAKE_PROTOCOL_VERSIONS
#: The version ``initialize`` offers: the newest of the handshake.
LATEST_PROTOCOL_VERSION = HANDSHAKE_PROTOCOL_VERSIONS[0]
#: Seconds the stdio probe waits for an answer before ``initialize`` goes out too: a legacy server may
#: never answer a request before ``initialize``. The probe keeps waiting beside the handshake after it.
PROBE_TIMEOUT = 5.0
#: The HTTP statuses with which a legacy Streamable HTTP server refuses a modern request.
_LEGACY_STATUSES = (400, 404, 405, 406, 415, 422)


def choose_version(
    supported: Iterable[str],
    sent: Optional[str],
    *,
    ours: Optional[Sequence[str]] = None,
    tried: Collection[str] = (),
    repeat: bool = True,
) -> Optional[str]:
    """The modern version to speak after the server named the ones it ``supported``; ``None``: none we share.

    ``sent`` (the version just sent) when the server lists it and ``repeat`` allows sending it again,
    else the first of ``ours`` (default: the modern versions we speak, newest first) that the server
    lists and that is neither ``sent`` nor in ``tried``.
    """
    listed = set(supported)
    if sent is not None and sent in listed and repeat:
        return sent
    for version in MODERN_VERSIONS if ours is None else ours:
        if version in listed and version != sent and version not in tried:
            return version
    return None


def listed_versions(error: ServerError) -> tuple[str, ...]:
    """The versions a -32022 (``UnsupportedProtocolVersionError``) lists in ``data.supported``."""
    data = error.data if isinstance(error.data, dict) else {}
    return tuple(v for v in data.get("supported") or () if isinstance(v, str))


def version_after_refusal(error: ServerError, sent: Optional[str], server: str, resent: Optional[str] = None) -> str:
    """The version to send a request of a session under way again with, after the server's -32022 to
    it; ``resent``: the version it went again with already (a request goes again once).

    Raises:
        UnsupportedProtocolVersion: we share no version with it, or it refused the same version twice.
        ServerError: ``error``, to a request sent again already with another version.
    """
    if resent is not None:
        if resent != sent:
            raise error
        raise UnsupportedProtocolVersion(sent, listed_versions(error), sent=sent, retried=(sent,)) from error
    supported = listed_versions(error)
    version = choose_version(supported, sent)
    if version is None:
        raise UnsupportedProtocolVersion(sent, supported, sent=sent) from error
    if version == sent:
        logger.info("server %r refused protocol version %s, which it lists: sending it once more", server, sent)
    return version


@dataclass(frozen=True)
class Agreement:
    """What a ``server/discover`` or ``initialize`` answer settles: the version, and who the server is."""

    version: str
    server_info: ServerInfo
    capabilities: dict[str, Any]
    instructions: Optional[str]
    #: The versions a modern server said it supports; ``()`` for a legacy one.
    supported_versions: tuple[str, ...] = ()


def from_discover(result: Mapping[str, Any], sent: Optional[str]) -> Agreement:
    """A modern server's ``server/discover`` answer; its version ``sent`` if it lists it, else one we share.

    Raises:
        UnsupportedProtocolVersion: it lists no version we speak.
        ProtocolError: its ``capabilities`` are no object.
    """
    listed = result.get("supportedVersions")
    versions = tuple(v for v in listed if isinstance(v, str)) if isinstance(listed, list) else ()
    chosen = choose_version(versions, sent)
    if chosen is None:
        raise UnsupportedProtocolVersion(sent, versions, sent=sent)
    capabilities = _capabilities(result, "server/discover")
    meta = result.get("_meta")
    info = meta.get(SERVER_INFO) if isinstance(meta, dict) else None
    # Optional in a DiscoverResult (the initialize answer's is required): none is an empty ServerInfo.
    server_info = ServerInfo("", "") if info is None else ServerInfo.from_dict(info)
    return Agreement(chosen, server_info, capabilities, _instructions(result), versions)


def from_initialize(result: Mapping[str, Any]) -> Agreement:
    """A legacy server's ``initialize`` answer.

    Raises:
        UnsupportedProtocolVersion: it chose a version of the handshake we do not speak.
        ProtocolError: its ``capabilities`` are no object.
    """
    version = result.get("protocolVersion")
    if not isinstance(version, str) or version not in SUPPORTED_PROTOCOL_VERSIONS:
        raise UnsupportedProtocolVersion(version, SUPPORTED_PROTOCOL_VERSIONS)
    capabilities = _capabilities(result, "initialize")
    return Agreement(version, ServerInfo.from_dict(result.get("serverInfo")), capabilities, _instructions(result))


def _capabilities(result: Mapping[str, Any], method: str) -> dict[str, Any]:
    capabilities = result.get("capabilities", {})
    if not isinstance(capabilities, dict):
        raise ProtocolError(f"{method} result: 'capabilities' must be an object, got {capabilities!r}")
    return capabilities


def _instructions(result: Mapping[str, Any]) -> Optional[str]:
    instructions = result.get("instructions")
    return instructions if isinstance(instructions, str) else None


def modern_capabilities(capabilities: Mapping[str, Any], authorizer: Optional[Authorizer]) -> dict[str, Any]:
    """The capabilities a modern request declares: ours, the tasks extension, and the authorization
    extension ``authorizer`` uses (``io.modelcontextprotocol/oauth-client-credentials``, say)."""
    # A tools/call may come back as a task: call_tool sees it through.
    extensions: dict[str, Any] = {TASKS_EXTENSION: {}}
    extension = authorizer.extension if authorizer is not None else None
    if extension is not None:
        extensions[extension] = {}
    declared = dict(capabilities)
    declared["extensions"] = {**declared.get("extensions", {}), **extensions}
    return declared


def negotiate(
    channel: Channel,
    protocol: str,
    capabilities: Mapping[str, Any],
    modern: Mapping[str, Any],
    client_info: Mapping[str, Any],
    deadline: Deadline,
) -> tuple[dict[str, Any], Agreement]:
    """The version a newly opened connection speaks, the way ``protocol`` (``Client(protocol=)``) says:
    the probe, then the handshake if the server is a legacy one. Returns the server's answer
    (``server/discover``'s or ``initialize``'s) and what it settles. ``capabilities``: the handshake's;
    ``modern``: those a modern request declares."""
    transport = channel.transport
    if protocol != LEGACY and transport.kind != "sse":  # HTTP+SSE is legacy only
        discovered = probe(
            channel,
            protocol=protocol,
            capabilities=modern,
            client_info=client_info,
            timeout=deadline.left(),
            stdio=transport.kind == "stdio",
        )
        if isinstance(discovered, Unanswered):
            return handshake_or_late_discover(channel, discovered, capabilities, modern, client_info, deadline)
        if discovered is not None:
            return discovered, from_discover(discovered, channel.version)
    return legacy_handshake(channel, capabilities, client_info, deadline)


def call_headers(tools: Optional[list[Tool]], method: str, params: Optional[dict[str, Any]]) -> dict[str, str]:
    """A modern ``tools/call``'s ``Mcp-Param-*`` headers, from the listed tool's ``x-mcp-header`` annotations."""
    if method != "tools/call" or not params:
        return {}
    for tool in tools or ():
        if tool.name == params.get("name"):
            return param_headers(tool.input_schema, params.get("arguments"))
    return {}


def _initialize_params(capabilities: Mapping[str, Any], client_info: Mapping[str, Any]) -> dict[str, Any]:
    return {"protocolVersion": LATEST_PROTOCOL_VERSION, "capabilities": capabilities, "clientInfo": client_info}


def legacy_handshake(
    channel: Channel, capabilities: Mapping[str, Any], client_info: Mapping[str, Any], deadline: Deadline
) -> tuple[dict[str, Any], Agreement]:
    """The legacy handshake: ``initialize``, its answer checked, then ``notifications/initialized``;
    every step within ``deadline``. Returns the raw answer and what it settles."""
    try:
        result = channel.request("initialize", _initialize_params(capabilities, client_info), timeout=deadline.left())
    except RequestTimeout:
        raise RequestTimeout("initialize", deadline.seconds or 0.0) from None  # the timeout given, not what was left
    return result, _initialized(channel, result, deadline)


def _initialized(channel: Channel, result: dict[str, Any], deadline: Deadline) -> Agreement:
    """The handshake's end, after ``initialize``'s answer ``result``: checked, then ``notifications/initialized``."""
    transport = channel.transport
    given = deadline.seconds or 0.0
    agreement = from_initialize(result)
    transport.negotiated(agreement.version)
    # The caller's timeout bounds every step, this POST (or write) too: not only the write timeout.
    left = deadline.left()
    if left is not None and left <= 0:
        raise RequestTimeout("notifications/initialized", given)
    bounded = left is not None and left < transport.write_timeout
    try:
        channel.notify("notifications/initialized", timeout=left if bounded else USE_DEFAULT)
    except WriteTimeout:
        if not bounded:
            raise  # the write timeout's own verdict, not the handshake's
        raise RequestTimeout("notifications/initialized", given) from None
    transport.handshake_complete(deadline=deadline.at())
    return agreement


@dataclass(frozen=True)
class Unanswered:
    """A stdio ``server/discover`` with no answer within ``PROBE_TIMEOUT``, still waiting for one."""

    future: RequestFuture
    #: The version it was sent with (its ``_meta`` and the agreement if it is answered after all).
    version: str


def handshake_or_late_discover(
    channel: Channel,
    discover: Unanswered,
    capabilities: Mapping[str, Any],
    modern: Mapping[str, Any],
    client_info: Mapping[str, Any],
    deadline: Deadline,
) -> tuple[dict[str, Any], Agreement]:
    """``initialize`` beside a ``server/discover`` still unanswered, within ``deadline``: the first success
    decides. A ``DiscoverResult`` is a modern server, slow to start (``initialize`` is given up, never
    cancelled: the server refuses it or has); ``initialize``'s result a legacy server (the discover is
    cancelled once the handshake is over). ``initialize`` refused with a modern error (the server
    committed to the modern era on the discover) waits for the discover's answer; any other error of
    ``initialize`` is the answer, at once.

    Raises:
        RequestTimeout: neither succeeded in time (``initialize``, with the timeout given).
        ServerError, ProtocolError, UnsupportedProtocolVersion: as the handshake or the discover answer says.
    """
    given = deadline.seconds or 0.0
    initialize = channel.send_request("initialize", _initialize_params(capabilities, client_info))
    waiting: set[RequestFuture] = {discover.future, initialize}
    try:
        while True:
            if discover.future in waiting and discover.future.done():
                waiting.discard(discover.future)
                found = _late_discover(channel, discover)
                if found is not None:
                    channel.abandon(initialize, "the server answered server/discover")
                    channel.use_version(discover.version, modern, client_info)
                    return found, from_discover(found, discover.version)
            if initialize in waiting and initialize.done():
                waiting.discard(initialize)
            if initialize not in waiting and (discover.future not in waiting or not _refused_as_modern(initialize)):
                result = initialize.result()  # or its error: a legacy server's, or the discover decided nothing
                agreement = _initialized(channel, result, deadline)
                channel.abandon(discover.future, "the server took the initialize handshake")
                return result, agreement
            left = deadline.left()
            if (left is not None and left <= 0) or not wait(waiting, left, FIRST_COMPLETED).done:
                raise RequestTimeout("initialize", given)
    except BaseException as exc:
        for future in (discover.future, initialize):
            channel.abandon(future, "the connection is given up")
        if isinstance(exc, KeyboardInterrupt) and not exc.args:
            server = channel.transport.name
            raise KeyboardInterrupt(f"initialize interrupted: the connection to {server!r} is given up") from None
        raise


def _refused_as_modern(initialize: RequestFuture) -> bool:
    """Whether ``initialize`` failed with an error only a modern server sends (-32022: "this connection
    serves the 2026-07-28 revision"): the discover's answer is on its way, and decides."""
    error = initialize.exception()
    return isinstance(error, ServerError) and is_modern_error(error.code)


def _late_discover(channel: Channel, discover: Unanswered) -> Optional[dict[str, Any]]:
    """The ``DiscoverResult`` a ``server/discover`` answered after ``PROBE_TIMEOUT`` carries, or ``None``
    (an error, or an answer that is none: a legacy server)."""
    error = discover.future.exception()
    if error is None:
        result = discover.future.result()
        if isinstance(result, dict) and isinstance(result.get("supportedVersions"), list):
            logger.info(
                "server %r answered server/discover after %gs: a modern server, slow to start",
                channel.transport.name,
                PROBE_TIMEOUT,
            )
            return result
    why = error or "an answer without supportedVersions"
    logger.debug("server %r: server/discover gave %s: a legacy server", channel.transport.name, why)
    return None


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
) -> Union[dict[str, Any], Unanswered, None]:
    """The ``DiscoverResult`` of a modern server (``channel`` then carries the modern ``_meta``), or
    ``None`` for a legacy one (``channel`` as it was); on stdio with ``"auto"``, ``Unanswered`` if no
    answer came within ``PROBE_TIMEOUT`` (``channel`` as it was; the request still waits).

    Raises:
        UnsupportedProtocolVersion: a modern server that shares no version with us.
        ServerError, HTTPStatusError, RequestTimeout: with the modern era forced, the probe's failure.
    """
    versions = [protocol] if protocol in MODERN_VERSIONS else list(MODERN_VERSIONS)
    forced = protocol != AUTO
    limit = timeout
    racing = stdio and not forced  # no answer in time is no verdict yet: initialize goes beside it
    if racing:
        limit = PROBE_TIMEOUT if timeout is None else min(timeout, PROBE_TIMEOUT)
    tried: set[str] = set()
    retried: list[str] = []
    version = versions[0]
    deadline = Deadline(limit)
    while True:
        tried.add(version)
        channel.use_version(version, capabilities, client_info)
        try:
            if racing:
                future = channel.send_request("server/discover")
                if not _settled_in(channel, future, deadline.left()):
                    channel.use_version(None)
                    return Unanswered(future, version)
                result = future.settled_result()
            else:
                result = channel.request("server/discover", None, timeout=deadline.left())
        except ServerError as exc:
            error: Optional[ServerError] = exc
            why = str(exc)
        except HTTPStatusError as exc:
            error = _modern_error_in(exc)
            if error is None and (forced or exc.status_code not in _LEGACY_STATUSES):
                channel.use_version(None)
                raise
            why = str(exc)
        except RequestTimeout:
            channel.use_version(None)
            raise
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
                again = choose_version(supported, version, ours=versions, tried=tried, repeat=version not in retried)
                if again == version:
                    logger.info(
                        "server %r refused protocol version %s, which it lists: asking once more",
                        channel.transport.name,
                        version,
                    )
                    retried.append(version)
                if again is not None:
                    version = again
                    continue
                channel.use_version(None)
                if not forced and any(v in LEGACY_VERSIONS for v in supported):
                    return None  # a dual-era server that offers a legacy version we speak: initialize
                raise UnsupportedProtocolVersion(version, supported, sent=version, retried=tuple(retried)) from None
            channel.use_version(None)
            raise error
        channel.use_version(None)
        _legacy(channel, why, forced)
        return None


def _settled_in(channel: Channel, future: RequestFuture, timeout: Optional[float]) -> bool:
    """Whether ``future`` settled within ``timeout``; a Ctrl-C meanwhile gives it up first."""
    try:
        return future.wait_settled(timeout)
    except KeyboardInterrupt:
        channel.abandon(future, "interrupted by the user")
        raise


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
