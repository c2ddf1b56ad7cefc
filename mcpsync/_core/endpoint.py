"""The JSON-RPC endpoint of one connection, without I/O: ids, the pending table, what comes in.

A transport owns one endpoint. Going out, the endpoint gives a request its
id, registers its future *before* the bytes exist (so an answer can never
arrive for an id the table does not know yet), and encodes it. Coming in,
the transport feeds it every framed message (a stdio line, an SSE event's
data, an HTTP body) with ``receive``; the endpoint decodes and validates it,
resolves or rejects the future a response answers, and returns what the
transport must pass on: the peer's requests and notifications
(``Incoming``), the problems it met (``Problem``: already counted in
``stats``), and answers of its own to send (``Reply``: JSON-RPC's -32600 for
an invalid request whose id it can read).

No threads, no sockets, no logging: ``tests/unit/test_endpoint.py`` drives
it with plain function calls, as h11 is tested. The futures it resolves are
``concurrent.futures`` futures, safe to settle from the transport's reader
thread while a caller waits on another.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any, Optional, Union

from . import jsonrpc, oversize
from .envelope import validate
from .errors import InvalidMessage, MessageTooLarge, ProtocolError, ServerError, TransportClosed
from .jsonrpc import Data, Kind, Message, RequestId
from .pending import PendingRequests, RequestFuture
from .text import shorten

__all__ = [
    "DEFAULT_MAX_MESSAGE_SIZE",
    "ID_SCAN_BYTES",
    "Endpoint",
    "Event",
    "Incoming",
    "Problem",
    "Reply",
    "TransportStats",
]

#: Bytes one message from the peer may have by default (a stdio line, an SSE event, an HTTP JSON body).
#: Generous: tool results carry base64 images and documents of tens of MB; decoding a message costs
#: a few times its size in memory, so 64 MiB keeps one absurd message from exhausting memory.
DEFAULT_MAX_MESSAGE_SIZE = 64 * 1024 * 1024
#: Bytes at the start and at the end of an oversized message searched for its id.
ID_SCAN_BYTES = 4096
#: Places in a malformed line tried as the start of a message that follows junk.
SALVAGE_ATTEMPTS = 3
#: Requests both sides may send: one of them with the id of ours is no proof of an echo.
TWO_WAY_METHODS = frozenset({"ping", "tasks/get", "tasks/result", "tasks/list", "tasks/cancel"})

# Where a JSON-RPC response may start after junk on the same line.
_MESSAGE_START = re.compile(rb'\{\s*"(?:jsonrpc|id|result|error)"\s*:')
#: The same for a message handed over as text (a long line the transport decoded as it let its bytes go).
_MESSAGE_START_TEXT = re.compile(r'\{\s*"(?:jsonrpc|id|result|error)"\s*:')


@dataclass
class TransportStats:
    """Counters a user can read (``client.stats``, ``transport.stats``) to see what a connection went through.

    Attributes:
        sent: messages written.
        received: messages read (each element of a batch counts).
        malformed: lines or events that were not JSON (logged and skipped).
        invalid: messages that failed the envelope schema (logged and skipped,
            or failing their request when their id matched one).
        unmatched_responses: responses whose id matches no request (logged and skipped).
        late_responses: responses to requests their caller had given up on (dropped).
        cancelled: requests we gave up on and told the server about.
        oversized: messages over ``max_message_size``, discarded unread (failing
            their request when it could be told which).
        echoed: requests of ours that came back as requests (a "server" that echoes
            its input, such as ``cat``); each fails the request it repeats.
        dropped: callbacks for notifications left out because they came faster
            than the client's dispatch thread took them (its queue was full).
    """

    sent: int = 0
    received: int = 0
    malformed: int = 0
    invalid: int = 0
    unmatched_responses: int = 0
    late_responses: int = 0
    cancelled: int = 0
    oversized: int = 0
    dropped: int = 0
    echoed: int = 0

    def as_dict(self) -> dict[str, int]:
        """The counters as a plain dict."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True)
class Incoming:
    """A valid request or notification from the peer, for the owner to dispatch."""

    message: Message
    kind: Kind


@dataclass(frozen=True)
class Problem:
    """Something the endpoint skipped or refused (counted in ``stats``); the owner logs it.

    ``request_id`` is set when the problem failed that request at once (it
    was the request's answer, invalid or too large), rather than letting it time out.
    ``kind`` says which count of ``stats`` it is in: ``"malformed"``, ``"invalid"``,
    ``"unmatched_responses"`` or ``"oversized"``.
    """

    error: ProtocolError
    request_id: Optional[RequestId] = None
    kind: str = ""


@dataclass(frozen=True)
class Reply:
    """An answer the endpoint itself owes the peer (an error response), encoded, for the owner to send."""

    data: Data


Event = Union[Incoming, Problem, Reply]


class Endpoint:
    """One connection's side of JSON-RPC; see the module docstring.

    Args:
        name: the peer's name, for the texts of errors.
        max_message_size: bytes one incoming message may have (``None``: no
            limit); the transport enforces it while reading and reports the
            oversized ones with ``oversized``.
    """

    def __init__(self, name: str, max_message_size: Optional[int] = DEFAULT_MAX_MESSAGE_SIZE) -> None:
        self.name = name
        self.max_message_size = max_message_size
        self.stats = TransportStats()
        self.pending = PendingRequests()
        #: The first line or event that was not JSON (shortened, quoted), to say what the peer sent instead.
        self.first_malformed: Optional[str] = None

    # -- going out ------------------------------------------------------------------

    def request(
        self,
        method: str,
        params: Optional[dict[str, Any]] = None,
        on_cancel: Optional[Callable[[RequestFuture], None]] = None,
    ) -> tuple[RequestFuture, Data]:
        """A new request: its future, registered so that its answer finds it, and its bytes to write.

        ``on_cancel`` runs when the caller cancels the future (to tell the peer).

        Raises:
            TypeError: ``params`` is not a dict; ValueError / TypeError: not JSON-serialisable.
            TransportClosed: the table is closed (``fail_all`` ran).
        """
        if params is not None and not isinstance(params, dict):
            raise TypeError(f"params must be a dict or None, not {type(params).__name__}")
        request_id = self.pending.next_id()
        data = jsonrpc.encode(jsonrpc.request(request_id, method, params))
        return self.pending.register(request_id, method, on_cancel), data

    @staticmethod
    def notification(method: str, params: Optional[dict[str, Any]] = None) -> Data:
        """The bytes of a notification."""
        return jsonrpc.encode(jsonrpc.notification(method, params))

    @staticmethod
    def response(request_id: RequestId, result: Optional[dict[str, Any]] = None) -> Data:
        """The bytes of a success response to the peer's request ``request_id``."""
        return jsonrpc.encode(jsonrpc.success_response(request_id, result if result is not None else {}))

    @staticmethod
    def error_response(request_id: RequestId, error: Union[ServerError, dict[str, Any]]) -> Data:
        """The bytes of an error response; ``error`` is a ``ServerError`` or a JSON-RPC error object."""
        if isinstance(error, ServerError):
            error = jsonrpc.error_object(error.code, error.message, error.data)
        return jsonrpc.encode({"jsonrpc": jsonrpc.JSONRPC_VERSION, "id": request_id, "error": error})

    def abandon(
        self, future: RequestFuture, reason: str, error: Optional[BaseException] = None
    ) -> tuple[bool, Optional[Data]]:
        """Give up on a request: forget it, fail its future (with ``error``, else ``TransportClosed``),
        and build the notice for the peer.

        Returns whether the request was still waiting (its late answer will be
        counted in ``stats.late_responses``), and the ``notifications/cancelled``
        to send, if any: none for a request no longer waiting, and none for
        ``initialize``, which the spec forbids cancelling (the client disconnects instead).
        """
        if not self.pending.discard(future.request_id):
            return False, None
        try:
            future.set_exception(error or TransportClosed(f"{self.name}: request abandoned: {reason}"))
            future.exception()  # nobody waits for this exception: mark it retrieved
        except Exception:  # InvalidStateError: already cancelled by its caller
            pass
        if future.method == "initialize":
            return True, None
        notice = jsonrpc.notification("notifications/cancelled", {"requestId": future.request_id, "reason": reason})
        return True, jsonrpc.encode(notice)

    def fail(self, future: RequestFuture, error: BaseException) -> bool:
        """Fail one request with ``error`` (it could not be sent, say); ``False`` if it was not waiting."""
        return self.pending.reject(future.request_id, error)

    def fail_all(self, make_error: Callable[[], BaseException]) -> int:
        """Fail every waiting request and refuse new ones (the connection is gone); returns how many."""
        return self.pending.fail_all(make_error)

    def in_flight(self) -> list[RequestFuture]:
        """The requests still waiting for an answer (a snapshot)."""
        return self.pending.in_flight()

    # -- coming in ------------------------------------------------------------------

    def receive(self, data: Union[bytes, str]) -> list[Event]:
        """Take one framed message from the wire; return what the owner must pass on (see the module docstring)."""
        events: list[Event] = []
        try:
            decoded = jsonrpc.decode(data)
        except ValueError as exc:
            decoded = self._salvage(data, events)
            if decoded is None:
                self.stats.malformed += 1
                # Text decoded from the wire (a long stdio line, an SSE event) says its bytes too, when
                # they are as many as its characters (ASCII: a check that costs nothing).
                shown = shorten(data, size=len(data) if isinstance(data, bytes) or data.isascii() else None)
                if self.first_malformed is None:
                    self.first_malformed = shorten(data, 80)
                events.append(Problem(InvalidMessage(f"not JSON ({exc})", shown), kind="malformed"))
                return events
        # JSON-RPC batches existed only in 2025-03-26; accepting one is cheap.
        for message in decoded if type(decoded) is list and decoded else (decoded,):
            self.stats.received += 1
            try:
                kind = validate(message)
            except InvalidMessage as exc:
                # It goes to a caller or a log: its traceback would pin the frames of the thread
                # that read it (and what they hold: a response, its connection, a 50 MB line).
                self._invalid(message, exc.with_traceback(None), events)
                continue
            if kind is Kind.SUCCESS:
                raw_id = message["id"]
                key = raw_id if type(raw_id) is int else jsonrpc.response_key(raw_id)
                if not self.pending.resolve(key, message["result"]):
                    self._unmatched(key, message, events)
            elif kind is Kind.ERROR:
                raw_id = message.get("id")
                key = jsonrpc.response_key(raw_id)
                if raw_id is None or not self.pending.reject(key, ServerError.from_error_object(message["error"])):
                    self._unmatched(key, message, events)
            elif kind is not Kind.REQUEST or not self._echoed(message, events):
                events.append(Incoming(message, kind))
        return events

    def _salvage(self, line: Union[bytes, str], events: list[Event]) -> Optional[Message]:
        """A response that follows junk on the same line (the junk reported in ``events``); ``None`` if there is none.

        Half a line the peer never finished (it crashed or stalled mid-write in
        a worker), or output printed without a newline, runs into the next
        message on the line: that message is still read, lest its caller wait
        for nothing. Only responses are taken so, nothing that would make us act.
        """
        pattern: Any = _MESSAGE_START if isinstance(line, bytes) else _MESSAGE_START_TEXT
        match = pattern.search(line, 1)
        for _ in range(SALVAGE_ATTEMPTS):
            if match is None:
                return None
            try:
                message = jsonrpc.decode(line[match.start() :])
            except ValueError:
                match = pattern.search(line, match.start() + 1)
                continue
            if type(message) is not dict or "method" in message:
                return None
            self.stats.malformed += 1
            junk = shorten(line[: match.start()])
            events.append(
                Problem(InvalidMessage("not JSON (junk before a response, which was read)", junk), kind="malformed")
            )
            return message
        return None

    def _echoed(self, message: Message, events: list[Event]) -> bool:
        """Whether a request from the peer is one of ours come back (same id, same method, still
        waiting): a "server" that echoes its input (``cat``) would otherwise get our own request to
        answer, and answer it with our error. The request it repeats fails at once."""
        method = message["method"]
        if method in TWO_WAY_METHODS:
            return False
        key = jsonrpc.response_key(message["id"])
        future = self.pending.waiting(key)
        if future is None or future.method != method:
            return False
        self.stats.echoed += 1
        error = ProtocolError(
            f"{self.name}: the server echoed our messages back ({method} came back): is it an MCP server?"
        )
        if self.pending.reject(key, error):
            events.append(Problem(error, request_id=key))
        return True

    def _invalid(self, message: Any, error: InvalidMessage, events: list[Event]) -> None:
        self.stats.invalid += 1
        if type(message) is dict and "method" in message:
            # JSON-RPC wants -32600 for an invalid request whose id we can read.
            request_id = message.get("id")
            if isinstance(request_id, (int, str)) and not isinstance(request_id, bool):
                text = f"Invalid Request: {error.reason}"
                events.append(Reply(self.error_response(request_id, jsonrpc.error_object(-32600, text))))
        raw_id = message.get("id") if type(message) is dict and "method" not in message else None
        if isinstance(raw_id, (int, float, str)):
            key = jsonrpc.response_key(raw_id)
            if self.pending.reject(key, error):
                # The request it answers fails now instead of timing out.
                events.append(Problem(error, request_id=key, kind="invalid"))
                return
        events.append(Problem(error, kind="invalid"))

    def _unmatched(self, key: Any, message: Message, events: list[Event]) -> None:
        if key is not None and self.pending.was_abandoned(key):
            self.stats.late_responses += 1
            return
        self.stats.unmatched_responses += 1
        text = shorten(jsonrpc.encode(message).decode("utf-8").rstrip("\n"))
        reason = (
            "response to no request we sent or still wait for (a wrong or repeated id)"
            if key is not None
            else "error response without id"
        )
        events.append(Problem(InvalidMessage(reason, text), kind="unmatched_responses"))

    # -- messages over max_message_size ------------------------------------------------

    def oversized(
        self,
        head: bytes,
        *,
        tail: bytes = b"",
        size: Optional[int] = None,
        complete: bool = False,
        failed: bool = False,
        stream_of: Optional[RequestFuture] = None,
        answer_to: Optional[RequestFuture] = None,
    ) -> list[Event]:
        """A message crossed ``max_message_size``; the transport discards it without keeping it.

        Call it when the limit is crossed (counted then) and, if the
        transport reads on to the message's end, once more with
        ``complete=True``, its ``tail``, and ``failed``: whether the first
        call failed a request. The request it answers fails as soon as it can
        be told which: ``answer_to``, when the message can only be that
        request's answer (an HTTP JSON body: one call only); else the id its
        first bytes ``head`` show; at its end, the id its last bytes show
        (TypeScript servers write the id last); else ``stream_of``, the
        request whose answer the stream it came on carries, if ``head`` shows
        a response. A message whose request stays unknown to its end is a
        ``Problem``. ``size``: the whole message's size, when known.
        """
        if complete and failed:
            return []
        if not complete:
            self.stats.oversized += 1
        if answer_to is not None:
            owner: Any = answer_to.request_id
        else:
            owner = self._oversized_owner(head, tail if complete else b"", stream_of)
        limit = self.max_message_size or 0
        if owner is not None:
            error = MessageTooLarge(f"{self.name}: the answer to request {owner}", size, limit)
            if self.pending.reject(owner, error):
                return [Problem(error, request_id=owner)]
        if complete:
            return [Problem(MessageTooLarge(f"{self.name}: a message", size, limit), kind="oversized")]
        return []

    @staticmethod
    def _oversized_owner(head: bytes, tail: bytes, stream_of: Optional[RequestFuture]) -> Any:
        """The id of the request an oversized response answers, as far as its first and last bytes tell.

        ``None`` for anything but a response: a peer's request or
        notification, or bytes that are not JSON-RPC at all.
        """
        names, found = oversize.top_level_members(head)
        if "method" in names or not names & {"result", "error"}:
            return None
        if found is None and tail:
            found = oversize.trailing_id(tail)
        if found is None and stream_of is not None:
            return stream_of.request_id
        return None if found is None else jsonrpc.response_key(found)
