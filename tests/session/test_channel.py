"""``Channel`` over a recording wire: what it writes for notifications and answers, what it tells the
server when it gives a request up (and why), and what a caller is told then.

The wire here only records (``Wire``): the deadline and Ctrl-C tests against real servers are in
tests/wire/test_call_deadline.py, test_deadlines.py and tests/session/test_interrupt_main.py; these pin
the exact values those leave loose (found by mutation testing).
"""

from __future__ import annotations

import json
import math
import threading
from typing import Any, Optional

import pytest

from mcpsync import RequestTimeout, ServerError
from mcpsync._core.endpoint import Endpoint
from mcpsync._core.eras import LOG_LEVEL, MODERN_VERSIONS, request_meta
from mcpsync._core.pending import PendingRequests, RequestFuture
from mcpsync._core.timeouts import USE_DEFAULT
from mcpsync._session import channel as channel_module
from mcpsync._session.channel import Channel

MODERN = MODERN_VERSIONS[0]


class Wire:
    """A transport that sends nothing anywhere: it records what the channel hands it."""

    kind = "stdio"
    authorizer = None

    def __init__(self) -> None:
        self.name = "srv"
        self.endpoint = Endpoint("srv")
        self.requests: list[tuple[RequestFuture, dict[str, Any], float, bool]] = []
        self.messages: list[tuple[dict[str, Any], Any]] = []
        self.stopped: list[tuple[RequestFuture, Optional[dict[str, Any]]]] = []

    def send_request(self, future: RequestFuture, data: bytes, *, deadline: float, wait: bool) -> None:
        self.requests.append((future, json.loads(data), deadline, wait))

    def send_message(self, data: bytes, timeout: Any = USE_DEFAULT) -> None:
        self.messages.append((json.loads(data), timeout))

    def stop_request(self, future: RequestFuture, notice: Optional[bytes]) -> None:
        self.stopped.append((future, None if notice is None else json.loads(notice)))

    def held_up_by(self, future: RequestFuture) -> Optional[str]:
        return None  # nothing but waiting


def _channel(wire: Optional[Wire] = None) -> tuple[Channel, Wire]:
    wire = wire or Wire()
    channel = Channel(wire)  # type: ignore[arg-type]
    channel.tracing = None
    return channel, wire


def test_answers_to_the_servers_requests_are_written_exactly():
    """``respond``: a result (``{}`` for none) or an error (a ``ServerError`` or an error object), for
    the id the server gave, with the transport's default write timeout."""
    channel, wire = _channel()
    channel.respond(7, {"roots": []})
    channel.respond("s-1")
    channel.respond(8, error=ServerError(-32601, "no handler", {"method": "x"}))
    channel.respond(9, error={"code": -1, "message": "m"})
    assert wire.messages == [
        ({"jsonrpc": "2.0", "id": 7, "result": {"roots": []}}, USE_DEFAULT),
        ({"jsonrpc": "2.0", "id": "s-1", "result": {}}, USE_DEFAULT),
        (
            {"jsonrpc": "2.0", "id": 8, "error": {"code": -32601, "message": "no handler", "data": {"method": "x"}}},
            USE_DEFAULT,
        ),
        ({"jsonrpc": "2.0", "id": 9, "error": {"code": -1, "message": "m"}}, USE_DEFAULT),
    ]


def test_a_notification_is_written_with_its_params_and_the_callers_timeout():
    """``notify``: the method, its params, and the write timeout the caller gave."""
    channel, wire = _channel()
    channel.notify("notifications/roots/list_changed", {"a": 1}, timeout=2.5)
    assert wire.messages == [
        ({"jsonrpc": "2.0", "method": "notifications/roots/list_changed", "params": {"a": 1}}, 2.5)
    ]


def test_send_request_returns_at_once_without_waiting_for_the_write():
    """``send_request`` (``Client.send_request``): the transport is told not to wait, with no deadline."""
    channel, wire = _channel()
    future = channel.send_request("tools/list", {"cursor": "c"})
    ((sent, message, deadline, wait),) = wire.requests
    assert sent is future and wait is False and deadline == math.inf
    assert message == {"jsonrpc": "2.0", "id": future.request_id, "method": "tools/list", "params": {"cursor": "c"}}


def test_a_cancelled_future_tells_the_server_why():
    """``Future.cancel()`` on a sent request: the server gets ``notifications/cancelled`` for its id,
    with the reason "cancelled by the caller"."""
    channel, wire = _channel()
    future = channel.send_request("tools/call", {"name": "slow"})
    assert future.cancel()
    ((stopped, notice),) = wire.stopped
    assert stopped is future
    assert notice == {
        "jsonrpc": "2.0",
        "method": "notifications/cancelled",
        "params": {"requestId": future.request_id, "reason": "cancelled by the caller"},
    }


def test_a_request_timing_out_tells_the_server_after_how_long_and_the_caller_which_request():
    """No answer within the timeout: ``RequestTimeout`` naming the method and the timeout, and the
    server is told "timed out after 0.05s"."""
    channel, wire = _channel()
    with pytest.raises(RequestTimeout) as raised:
        channel.request("tools/call", {"name": "slow"}, timeout=0.05)
    assert (raised.value.method, raised.value.timeout) == ("tools/call", 0.05)
    ((future, notice),) = wire.stopped
    assert notice is not None and notice["params"] == {
        "requestId": future.request_id,
        "reason": "timed out after 0.05s",
    }


def test_an_interrupted_request_is_cancelled_and_the_caller_told_what_became_of_it():
    """Ctrl-C while a request waits: the server is told "interrupted by the user", and the
    ``KeyboardInterrupt`` says the request was cancelled on that server. An ``initialize`` is never
    cancelled: the connection is given up, and the interrupt says so."""
    channel, wire = _channel()
    future = channel.send_request("tools/call")
    interrupt = channel._interrupted("tools/call", future)
    assert str(interrupt) == "tools/call interrupted: cancelled on the server 'srv'; the client is still usable"
    assert wire.stopped[-1][1] == {
        "jsonrpc": "2.0",
        "method": "notifications/cancelled",
        "params": {"requestId": future.request_id, "reason": "interrupted by the user"},
    }
    again = channel._interrupted("tools/call", future)
    assert (
        str(again) == "tools/call interrupted: its answer had already come and is dropped; the client is still usable"
    )
    handshake = channel.send_request("initialize", {})
    interrupt = channel._interrupted("initialize", handshake)
    assert str(interrupt) == "initialize interrupted: the connection to 'srv' is given up"
    assert wire.stopped[-1] == (handshake, None)


def test_the_modern_meta_carries_the_clients_capabilities_and_keeps_a_log_level_set():
    """``use_version``: every request's ``_meta`` is the era's, with the capabilities and the identity
    given; a log level set under the first keeps being sent after the next; ``None`` (the legacy era)
    sends no ``_meta``."""
    channel, wire = _channel()
    identity = {"name": "c", "version": "1"}
    channel.use_version(MODERN, {"roots": {}}, identity)
    assert channel.meta is not None
    channel.meta[LOG_LEVEL] = "debug"
    channel.use_version(MODERN, {"sampling": {}}, identity)
    channel.send_request("tools/list")
    assert wire.requests[-1][1]["params"]["_meta"] == {
        **request_meta(MODERN, {"sampling": {}}, identity),
        LOG_LEVEL: "debug",
    }
    channel.use_version(None)
    channel.send_request("tools/list")
    assert "params" not in wire.requests[-1][1] and channel.version is None


def test_a_cap_on_the_whole_request_holds_without_activity_tracking():
    """``max_total`` without ``last_activity`` (``progress_resets_timeout=False`` with a
    ``max_total_timeout``): the request ends at the cap, not at its longer timeout."""
    channel, wire = _channel()
    with pytest.raises(RequestTimeout) as raised:
        channel.request("tools/call", timeout=5, max_total=0.05)
    assert raised.value.timeout == 0.05
    assert wire.stopped[-1][1] is not None and wire.stopped[-1][1]["params"]["reason"] == "timed out after 0.05s"


#: Seconds any wait of the race tests below may take at most.
T = 10


class HeldFuture(RequestFuture):
    """A request's future whose settling the reader holds at a gate: it says when the reader has
    taken it from the table (``taken``), and settles only once ``gate`` is open."""

    taken: threading.Event
    gate: threading.Event

    def set_result(self, result: Any) -> None:
        self.taken.set()
        assert self.gate.wait(T), "the test never opened the gate"
        super().set_result(result)


class HeldPending(PendingRequests):
    """The pending table, with futures whose settling is held (``HeldFuture``)."""

    def __init__(self, taken: threading.Event, gate: threading.Event) -> None:
        super().__init__()
        self.future_type = type("Held", (HeldFuture,), {"taken": taken, "gate": gate})

    def register(self, request_id: int, method: str, on_cancel: Any = None) -> RequestFuture:
        future = super().register(request_id, method, on_cancel)
        future.__class__ = self.future_type  # the table's own future, waiting on the test's terms
        return future


class RacingWire(Wire):
    """A wire whose reader reads the answer just as the request times out: asked what holds the
    request up (which the channel asks after the deadline, before it gives the request up), it lets
    a reader thread take the answer from the table, and returns once the take is done; the settling
    waits at the gate."""

    def __init__(self) -> None:
        super().__init__()
        self.taken, self.gate = threading.Event(), threading.Event()
        self.endpoint.pending = HeldPending(self.taken, self.gate)
        self.readers: list[threading.Thread] = []

    def held_up_by(self, future: RequestFuture) -> Optional[str]:
        answer = json.dumps({"jsonrpc": "2.0", "id": future.request_id, "result": {"answer": 42}})
        reader = threading.Thread(target=self.endpoint.receive, args=(answer.encode(),))
        self.readers.append(reader)
        reader.start()
        assert self.taken.wait(T)
        return None


def test_an_answer_taken_as_the_request_times_out_is_the_callers_result(monkeypatch):
    """The answer arrives just as the timeout runs out: the reader has taken it from the table (so
    the request is no longer waiting and nothing is cancelled) when the caller gives up, and settles
    it a moment later. The caller waits for that settling and returns the answer, not a timeout."""
    monkeypatch.setattr(channel_module, "RACE_GRACE", T)  # a busy machine's reader still makes it
    wire = RacingWire()
    opened: list[bool] = []

    class Opening(Channel):
        def abandon(self, future: RequestFuture, reason: str, *, error: Optional[BaseException] = None) -> bool:
            waiting = super().abandon(future, reason, error=error)
            opened.append(waiting)
            wire.gate.set()  # the reader settles only after the caller has tried to give the request up
            return waiting

    channel = Opening(wire)  # type: ignore[arg-type]
    channel.tracing = None
    try:
        assert channel.request("tools/call", {"name": "slow"}, timeout=0.01) == {"answer": 42}
    finally:
        wire.gate.set()
        for reader in wire.readers:
            reader.join(T)
    assert opened == [False] and wire.stopped == []  # no longer waiting: nothing to cancel


def test_an_answer_taken_but_never_settled_ends_in_a_timeout_after_the_grace(monkeypatch):
    """The reader takes the answer as the timeout runs out, then never settles it: the caller waits
    for it only ``RACE_GRACE`` seconds (here 0.05), then raises ``RequestTimeout``, without waiting
    for the reader any longer."""
    monkeypatch.setattr(channel_module, "RACE_GRACE", 0.05)
    channel, wire = _channel(RacingWire())
    outcome: list[BaseException] = []
    ended = threading.Event()

    def call() -> None:
        try:
            channel.request("tools/call", {"name": "slow"}, timeout=0.01)
        except BaseException as exc:  # what the caller got, for the test to read
            outcome.append(exc)
        ended.set()

    caller = threading.Thread(target=call)
    caller.start()
    try:
        ended_before_the_reader = ended.wait(T)  # the reader is held until after this
    finally:
        wire.gate.set()
        caller.join(T)
        for reader in wire.readers:
            reader.join(T)
    assert ended_before_the_reader, "the caller waited for the held reader beyond the grace"
    assert len(outcome) == 1 and isinstance(outcome[0], RequestTimeout)
    assert (outcome[0].method, outcome[0].timeout) == ("tools/call", 0.01)
