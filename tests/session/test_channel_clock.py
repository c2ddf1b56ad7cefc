"""``Channel``'s deadlines on a clock the test moves: what each wait asks for, when a request ends,
what the wire is told its deadline is, and what the caller gets.

``Channel`` reads ``time.monotonic()`` and waits with ``RequestFuture.wait_settled``; here the first is
a ``Clock`` and the second moves it (by the whole wait, or to the moment the scripted answer comes),
so each deadline is checked exactly, at no cost in time and with no sleep. The same promises against
real servers and real time are in tests/wire/test_call_deadline.py and tests/session/test_client_features.py
(progress); these pin what those leave loose (found by mutation testing, docs/testing.md).
"""

from __future__ import annotations

import math
from typing import Any, Callable, Optional

import pytest

from mcpsync import AuthorizationRequired, RequestCancelled, RequestTimeout
from mcpsync._core.eras import MODERN_VERSIONS, http_headers
from mcpsync._core.errors import NoResponseError, TransportClosed, WriteTimeout
from mcpsync._core.pending import PendingRequests, RequestFuture
from mcpsync._session import channel as channel_module
from mcpsync._session.cancel_scope import CancelScope
from mcpsync._session.channel import CLOCK_SLACK, MAX_LOGINS, Channel
from mcpsync._session.tracing import Tracing as TracingOfChannel
from tests.session.test_channel import Wire

#: Waits a request may make before the test calls it a loop that never ends.
MAX_WAITS = 20
ANSWER = {"answer": 42}


class Clock:
    """``time.monotonic`` for the channel: ``now`` moves only when a wait or the wire moves it.
    ``answer_at``: when the answer to the request comes (``None``: never)."""

    def __init__(self) -> None:
        self.now = 0.0
        self.answer_at: Optional[float] = None
        #: The timeout of each ``wait_settled``, in order.
        self.asked: list[Optional[float]] = []
        #: What the first wait raises instead of waiting (a Ctrl-C), if anything.
        self.interrupt: Optional[BaseException] = None

    def monotonic(self) -> float:
        return self.now


class ClockedPending(PendingRequests):
    """The pending table, whose futures wait on the ``Clock``: a wait ends when the answer comes
    (the table resolves the request) or at its timeout (the clock is moved to it)."""

    def __init__(self, clock: Clock) -> None:
        super().__init__()
        table = self

        class Clocked(RequestFuture):
            def wait_settled(self, timeout: Optional[float], stop: Any = None) -> bool:
                clock.asked.append(timeout)
                assert len(clock.asked) <= MAX_WAITS, f"waited {MAX_WAITS} times: {clock.asked}"
                if self.settled:
                    return True
                if clock.interrupt is not None:
                    raise clock.interrupt
                end = math.inf if timeout is None else clock.now + timeout
                if clock.answer_at is not None and clock.answer_at <= end:
                    clock.now = max(clock.now, clock.answer_at)
                    table.resolve(self.request_id, ANSWER)
                    return True
                assert end < math.inf, "a wait with no limit for an answer that never comes"
                clock.now = max(clock.now, end)
                return False

        self.future_type = Clocked

    def register(self, request_id: int, method: str, on_cancel: Any = None) -> RequestFuture:
        future = super().register(request_id, method, on_cancel)
        future.__class__ = self.future_type  # the table's own future, waiting on the test's terms
        return future


class ScriptedWire(Wire):
    """The recording wire, on the clock; ``on_send`` (if set) acts on each request as it is sent."""

    def __init__(self, clock: Clock) -> None:
        super().__init__()
        self.endpoint.pending = ClockedPending(clock)
        self.on_send: Optional[Callable[[RequestFuture], None]] = None
        self.holding: Optional[str] = None

    def send_request(self, future: RequestFuture, data: bytes, *, deadline: float, wait: bool) -> None:
        super().send_request(future, data, deadline=deadline, wait=wait)
        if self.on_send is not None:
            self.on_send(future)

    def held_up_by(self, future: RequestFuture) -> Optional[str]:
        return None if self.holding is None else f"{self.holding} for request {future.request_id}"

    def deadlines(self) -> list[float]:
        """The deadline the wire was given with each request sent."""
        return [deadline for _, _, deadline, _ in self.requests]

    def waits(self) -> list[bool]:
        """Whether the wire was asked to do its work for each request on the caller's thread."""
        return [wait for _, _, _, wait in self.requests]


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    clock = Clock()
    monkeypatch.setattr(channel_module, "time", clock)
    return clock


def clocked(clock: Clock) -> tuple[Channel, ScriptedWire]:
    wire = ScriptedWire(clock)
    channel = Channel(wire)  # type: ignore[arg-type]
    channel.tracing = None
    return channel, wire


def test_a_plain_request_ends_at_its_timeout_and_the_wire_has_the_same_deadline(clock):
    """A request with a timeout of 1 s and nothing else, sent at 8 s: the wire is given the deadline
    9 s, the caller waits once for 1 s, and gets ``RequestTimeout`` at 9 s, saying nothing more."""
    channel, wire = clocked(clock)
    clock.now = 8.0
    with pytest.raises(RequestTimeout) as raised:
        channel.request("tools/call", timeout=1.0)
    assert clock.now == 9.0 and clock.asked == [1.0] and wire.deadlines() == [9.0]
    assert str(raised.value) == "Request timeout after 1s (tools/call)" and raised.value.detail == ""
    assert wire.waits() == [True]  # an HTTP exchange runs on the caller's thread, within the deadline


def test_a_request_without_a_timeout_waits_without_a_limit(clock):
    """``timeout=None``: the wire has no deadline, and the caller waits with no limit, for the answer
    that comes after 100 s."""
    channel, wire = clocked(clock)
    clock.answer_at = 100.0
    assert channel.request("tools/call", timeout=None) == ANSWER
    assert clock.asked == [None] and wire.deadlines() == [math.inf]


def test_a_timeout_says_what_the_wire_was_doing_instead_of_waiting(clock):
    """The wire says what held the request up (a token being got, say): the ``RequestTimeout`` says
    it, for that request."""
    channel, wire = clocked(clock)
    wire.holding = "getting a token"
    with pytest.raises(RequestTimeout) as raised:
        channel.request("tools/call", timeout=1.0)
    assert raised.value.detail == "getting a token for request 1"
    assert str(raised.value) == "Request timeout after 1s (tools/call): getting a token for request 1"


def test_activity_moves_the_deadline_on(clock):
    """``last_activity`` (progress): with a timeout of 1 s, activity at 0.5 s moves the deadline to
    1.5 s; the answer at 1.25 s is the result. The wire has no deadline (activity may keep the request
    alive for ever)."""
    channel, wire = clocked(clock)
    clock.answer_at = 1.25
    activity = [0.0, 0.5]
    last = lambda: max(t for t in activity if t <= clock.now)  # noqa: E731
    assert channel.request("tools/call", timeout=1.0, last_activity=last) == ANSWER
    assert clock.asked == [1.0, 0.5] and wire.deadlines() == [math.inf]
    assert wire.waits() == [False]  # the caller's thread stays free to see the activity


def test_when_activity_stops_the_request_ends_one_timeout_after_the_last(clock):
    """Activity at 0.5 s and no more: the request ends at 1.5 s, as a timeout of 1 s."""
    channel, _ = clocked(clock)
    activity = [0.0, 0.5]
    last = lambda: max(t for t in activity if t <= clock.now)  # noqa: E731
    with pytest.raises(RequestTimeout) as raised:
        channel.request("tools/call", timeout=1.0, last_activity=last)
    assert clock.now == 1.5 and clock.asked == [1.0, 0.5] and raised.value.timeout == 1.0


def test_no_activity_at_all_ends_the_request_exactly_at_its_timeout(clock):
    """Activity tracked, but the last activity is the send itself: the request ends at 1 s, not later."""
    channel, _ = clocked(clock)
    with pytest.raises(RequestTimeout):
        channel.request("tools/call", timeout=1.0, last_activity=lambda: 0.0)
    assert clock.now == 1.0 and clock.asked == [1.0]


def test_activity_without_a_timeout_waits_without_a_limit(clock):
    """``last_activity`` with ``timeout=None`` and no cap: one wait with no limit, for the answer."""
    channel, _ = clocked(clock)
    clock.answer_at = 100.0
    assert channel.request("tools/call", timeout=None, last_activity=lambda: 0.0) == ANSWER
    assert clock.asked == [None]


def test_a_cap_ends_a_request_that_activity_keeps_alive(clock):
    """Activity all the time, a timeout of 1 s and a cap of 2 s: the request ends at the cap, exactly,
    as a timeout of 2 s; the wire's deadline is the cap."""
    channel, wire = clocked(clock)
    with pytest.raises(RequestTimeout) as raised:
        channel.request("tools/call", timeout=1.0, max_total=2.0, last_activity=lambda: clock.now)
    assert clock.now == 2.0 and clock.asked == [1.0, 1.0] and wire.deadlines() == [2.0]
    assert raised.value.timeout == 2.0


@pytest.mark.parametrize("timeout, cap, ends", [(1.0, 10.0, 1.0), (5.0, 2.0, 2.0)])
def test_without_activity_the_shorter_of_the_timeout_and_the_cap_holds(clock, timeout, cap, ends):
    """A timeout and a cap, no activity tracking: the request ends at the shorter, said as that
    limit, and the wire's deadline is the same."""
    channel, wire = clocked(clock)
    with pytest.raises(RequestTimeout) as raised:
        channel.request("tools/call", timeout=timeout, max_total=cap)
    assert clock.now == ends and raised.value.timeout == ends and wire.deadlines() == [ends]


class Traced:
    """A request's span as the channel handles it: the params it gives the request (with a trace
    context), the ``error.type`` the channel sets, and what it had when the request ended."""

    def __init__(self, params: Any) -> None:
        self.params = {**(params or {}), "_meta": {"traceparent": "00-trace-span-01"}}
        self.error_type: Optional[str] = None
        self.at_end: list[Optional[str]] = []
        self.errors: list[BaseException] = []

    def follow(self, future: RequestFuture) -> None:
        future.add_done_callback(lambda _: self.at_end.append(self.error_type))

    def failed(self, error: BaseException) -> None:
        self.errors.append(error)


class Tracing:
    """``Channel.tracing`` that records the spans it starts."""

    def __init__(self) -> None:
        self.spans: list[Traced] = []
        self.started: list[tuple[str, Any, Any]] = []

    def start(self, method: str, params: Any, version: Any) -> Traced:
        self.started.append((method, params, version))
        self.spans.append(Traced(params))
        return self.spans[-1]


def traced(clock: Clock) -> tuple[Channel, ScriptedWire, Tracing]:
    pytest.importorskip("opentelemetry.trace")  # the channel traces only in a process that has the API
    channel, wire = clocked(clock)
    tracing = Tracing()
    channel.tracing = tracing  # type: ignore[assignment]
    return channel, wire, tracing


@pytest.mark.parametrize("limits", [{"timeout": 0.0}, {"timeout": 1.0, "max_total": 0.0}])
def test_a_limit_of_zero_is_said_as_zero(clock, limits):
    """A timeout or a cap of 0 s (``Client`` refuses a timeout of 0; the channel does not): the request
    ends at once, and ``RequestTimeout`` says the limit it was given, 0 s."""
    channel, _ = clocked(clock)
    with pytest.raises(RequestTimeout) as raised:
        channel.request("tools/call", **limits)
    assert raised.value.timeout == 0.0 and str(raised.value) == "Request timeout after 0s (tools/call)"
    assert clock.now == 0.0


def test_the_span_of_a_timed_out_request_says_timeout_before_it_ends(clock):
    """With tracing on, the request carries its span's trace context, and its span is marked
    ``error.type = "timeout"`` before the abandonment settles its future (which ends the span)."""
    channel, wire, tracing = traced(clock)
    with pytest.raises(RequestTimeout):
        channel.request("tools/call", {"name": "slow"}, timeout=1.0)
    ((span,),) = [tracing.spans]
    assert span.at_end == ["timeout"] and span.errors == []
    assert tracing.started == [("tools/call", {"name": "slow"}, None)]
    assert wire.requests[0][1]["method"] == "tools/call"
    assert wire.requests[0][1]["params"] == {"name": "slow", "_meta": {"traceparent": "00-trace-span-01"}}
    channel.use_version(MODERN_VERSIONS[0])  # a modern request: its span is started with its version
    channel.send_request("tools/call", {"name": "slow"})
    method, params, version = tracing.started[-1]
    assert (method, params["name"], version) == ("tools/call", "slow", MODERN_VERSIONS[0])
    cancelled = channel.send_request("tools/call", {"name": "slow"})  # a traced future, cancelled
    assert cancelled.cancel() and wire.stopped[-1][0] is cancelled
    assert wire.stopped[-1][1] is not None and wire.stopped[-1][1]["params"]["reason"] == "cancelled by the caller"


def test_the_span_of_a_request_that_could_not_be_registered_says_why(clock):
    """The connection is gone before the request is registered: the caller gets ``TransportClosed``,
    and the span is failed with that same error."""
    channel, wire, tracing = traced(clock)
    wire.endpoint.fail_all(lambda: TransportClosed("srv: gone"))
    with pytest.raises(TransportClosed) as raised:
        channel.request("tools/call", timeout=1.0)
    ((span,),) = [tracing.spans]
    assert span.errors == [raised.value] and wire.requests == []


def test_a_write_that_outlasts_the_requests_deadline_is_a_timeout(clock):
    """The wire gives up writing (``WriteTimeout``) when the request's own deadline has come, within
    ``CLOCK_SLACK``: that is the request's timeout (the server may have it, so it is told), which
    says what held it up; the span says timeout."""
    channel, wire, tracing = traced(clock)

    def stuck(future: RequestFuture) -> None:
        clock.now = 1.0 - CLOCK_SLACK  # the timer fired as early as the clock's rounding allows
        raise WriteTimeout("srv did not acknowledge the POST")

    wire.on_send = stuck
    with pytest.raises(RequestTimeout) as raised:
        channel.request("tools/call", timeout=1.0)
    assert (raised.value.method, raised.value.timeout) == ("tools/call", 1.0)
    assert raised.value.detail == "srv did not acknowledge the POST"
    ((_, notice),) = wire.stopped
    assert notice is not None and notice["params"]["reason"] == "timed out after 1s"
    assert tracing.spans[0].at_end == ["timeout"]


@pytest.mark.parametrize("timeout", [1.0, None])
def test_a_write_that_fails_before_the_deadline_is_a_write_timeout_and_nothing_is_left(clock, timeout):
    """The wire takes nothing of the request well before its deadline (or with none): the caller gets
    the ``WriteTimeout``, the request is forgotten (failed as "not sent"), and the server is told
    nothing (nothing reached it)."""
    channel, wire = clocked(clock)
    futures: list[RequestFuture] = []

    def refused(future: RequestFuture) -> None:
        futures.append(future)
        clock.now = 0.5
        raise WriteTimeout("srv stopped reading")

    wire.on_send = refused
    with pytest.raises(WriteTimeout, match="srv stopped reading"):
        channel.request("tools/call", timeout=timeout)
    assert len(wire.endpoint.pending) == 0 and wire.stopped == []
    assert str(futures[0].exception(0)) == "not sent"


def test_a_request_the_wire_cannot_send_is_failed_with_the_wires_error(clock):
    """Any other error while the wire sends (the connection closing): the caller gets it, and the
    request's future is failed with it, not left waiting."""
    channel, wire = clocked(clock)
    futures: list[RequestFuture] = []
    closed = TransportClosed("srv: closed")

    def closing(future: RequestFuture) -> None:
        futures.append(future)
        raise closed

    wire.on_send = closing
    with CancelScope() as scope:
        with pytest.raises(TransportClosed) as raised:
            channel.request("tools/call", timeout=1.0)
    assert repr(scope) == "<CancelScope 0 waiting>"  # nothing left for a cancel to give up
    assert raised.value is closed and futures[0].exception(0) is closed and len(wire.endpoint.pending) == 0


def test_a_modern_request_over_http_carries_its_headers_and_the_hooks(clock):
    """Over HTTP in the modern era, a request's future carries the era's headers for it and those
    the header hook adds (asked with the method and the params as sent); over stdio, or in the legacy
    era, none."""
    channel, wire = clocked(clock)
    wire.kind = "http"
    channel = Channel(wire)  # type: ignore[arg-type]
    channel.tracing = None
    asked: list[tuple[str, Any]] = []
    channel.header_hook = lambda method, params: asked.append((method, params)) or {"Mcp-Param-A": "1"}
    channel.use_version(MODERN_VERSIONS[0])
    future = channel.send_request("tools/call", {"name": "echo"})
    assert future.headers == {
        **http_headers(MODERN_VERSIONS[0], "tools/call", {"name": "echo"}),
        "Mcp-Param-A": "1",
    }
    assert future.headers["Mcp-Name"] == "echo"
    assert asked == [("tools/call", wire.requests[0][1]["params"])] and "_meta" in asked[0][1]
    channel.use_version(None)
    assert channel.send_request("tools/call", {"name": "echo"}).headers is None
    stdio, _ = clocked(clock)
    stdio.use_version(MODERN_VERSIONS[0])
    assert stdio.send_request("tools/call", {"name": "echo"}).headers is None


def test_a_channel_traces_by_default_and_starts_with_no_person_time(clock):
    """A new channel traces its requests (``Tracing`` of its transport) and has spent no time on logins."""
    wire = ScriptedWire(clock)
    channel = Channel(wire)  # type: ignore[arg-type]
    assert isinstance(channel.tracing, TracingOfChannel) and channel.tracing.transport is wire
    assert channel.person_time == 0.0 and channel.header_hook is None
    assert channel.meta is None and channel.version is None  # the legacy era until a version is chosen


def test_abandoning_with_an_error_fails_the_request_with_it(clock):
    """``abandon(..., error=)`` (a ``CancelScope`` gives ``RequestCancelled``): the request's future
    fails with that error, the server is told the reason, and a second abandonment finds nothing
    waiting."""
    channel, wire = clocked(clock)
    future = channel.send_request("tools/call")
    error = RequestCancelled("tools/call", "stop")
    assert channel.abandon(future, "stop", error=error) is True
    assert future.exception(0) is error
    ((stopped, notice),) = wire.stopped
    assert stopped is future and notice is not None and notice["params"]["reason"] == "stop"
    assert channel.abandon(future, "again") is False and len(wire.stopped) == 1


def losing(clock: Clock, wire: ScriptedWire, after: float) -> None:
    """The wire's answer stream for each request breaks ``after`` seconds in (``NoResponseError``)."""

    def lose(future: RequestFuture) -> None:
        clock.now += after
        wire.endpoint.fail(future, NoResponseError(future.request_id))

    wire.on_send = lose


def test_a_request_lost_with_its_answer_stream_goes_again_once_in_the_time_left(clock):
    """The 2026-07-28 era: the answer stream of a request breaks 0.25 s in (``NoResponseError``); the
    request goes again, under a new id, with the 0.75 s left of its timeout of 1 s; a second loss is
    the caller's error."""
    channel, wire = clocked(clock)
    channel.use_version(MODERN_VERSIONS[0])
    clock.now = 8.0  # the clock's reading is no zero point
    losing(clock, wire, after=0.25)
    with pytest.raises(NoResponseError):
        channel.request("tools/call", timeout=1.0)
    ids = [message["id"] for _, message, _, _ in wire.requests]
    assert len(ids) == 2 and ids[0] != ids[1]
    assert wire.deadlines() == [9.0, 9.0]  # the second from 8.25 s, with 0.75 s left


def test_a_lost_request_with_no_time_left_is_a_timeout(clock):
    """The answer stream breaks after the whole timeout has gone: ``RequestTimeout`` for the timeout
    given, and the request is not sent again."""
    channel, wire = clocked(clock)
    channel.use_version(MODERN_VERSIONS[0])
    losing(clock, wire, after=1.0)
    with pytest.raises(RequestTimeout) as raised:
        channel.request("tools/call", timeout=1.0)
    assert (raised.value.method, raised.value.timeout) == ("tools/call", 1.0) and len(wire.requests) == 1


def test_a_legacy_request_lost_with_its_answer_stream_is_not_sent_again(clock):
    """Before the 2026-07-28 revision a lost answer stream may be resumed by the transport, never by
    a new request: the caller gets ``NoResponseError``, and the request went once."""
    channel, wire = clocked(clock)
    losing(clock, wire, after=0.0)
    with pytest.raises(NoResponseError):
        channel.request("tools/call", timeout=1.0)
    assert len(wire.requests) == 1


class Authorizer:
    """Logs in at once, as a person who takes ``person`` seconds of the clock."""

    def __init__(self, clock: Clock, person: float, network: float = 0.0, can: bool = True) -> None:
        self.clock, self.person, self.network, self.can = clock, person, network, can
        self.deadlines: list[float] = []
        self.reasons: list[AuthorizationRequired] = []

    def can_login(self) -> bool:
        return self.can

    def login(self, reason: AuthorizationRequired, *, deadline: float) -> float:
        self.deadlines.append(deadline)
        self.reasons.append(reason)
        self.clock.now += self.person + self.network  # the person's time, and the login's network steps
        return self.person


def refusing(clock: Clock, wire: ScriptedWire, times: int) -> None:
    """The wire's server refuses the first ``times`` requests (a 401), then answers at once."""

    def send(future: RequestFuture) -> None:
        if len(wire.requests) <= times:
            raise AuthorizationRequired(f"login needed ({len(wire.requests)})", server="srv")
        clock.answer_at = clock.now

    wire.on_send = send


def test_a_request_goes_again_after_each_of_up_to_three_logins(clock):
    """The server asks for a login three times: each login (2 s of a person's time, which the timeout
    of 1 s does not count) is followed by the request again, with the whole timeout; the fourth
    attempt is answered."""
    channel, wire = clocked(clock)
    authorizer = Authorizer(clock, person=2.0)
    wire.authorizer = authorizer  # type: ignore[assignment]
    refusing(clock, wire, MAX_LOGINS)
    assert channel.request("tools/call", timeout=1.0) == ANSWER
    assert len(wire.requests) == MAX_LOGINS + 1 and channel.person_time == 6.0
    assert authorizer.deadlines == [1.0, 3.0, 5.0]  # the caller's deadline, moved on by each person's time
    assert [str(reason) for reason in authorizer.reasons] == [f"login needed ({n})" for n in (1, 2, 3)]
    assert wire.deadlines() == [1.0, 3.0, 5.0, 7.0]


def test_a_login_for_a_request_without_a_timeout_has_no_deadline(clock):
    """A request with ``timeout=None`` that needs a login: the login has no deadline either, and the
    request goes again with none."""
    channel, wire = clocked(clock)
    authorizer = Authorizer(clock, person=2.0)
    wire.authorizer = authorizer  # type: ignore[assignment]
    refusing(clock, wire, 1)
    assert channel.request("tools/call", timeout=None) == ANSWER
    assert authorizer.deadlines == [math.inf] and wire.deadlines() == [math.inf, math.inf]


def test_a_fourth_refusal_is_not_met_with_a_fourth_login(clock):
    """The server asks for a login a fourth time: the caller gets ``AuthorizationRequired``, which says
    it was refused again after 3 logins."""
    channel, wire = clocked(clock)
    wire.authorizer = Authorizer(clock, person=0.0)  # type: ignore[assignment]
    refusing(clock, wire, MAX_LOGINS + 1)
    with pytest.raises(AuthorizationRequired, match="refused again after 3 logins for this request"):
        channel.request("tools/call", timeout=1.0)
    assert len(wire.requests) == MAX_LOGINS + 1


@pytest.mark.parametrize("authorizer", [None, "cannot"])
def test_a_refusal_with_nobody_to_log_in_is_the_callers_error(clock, authorizer):
    """No authorizer, or one that cannot log in now (no person, no terminal): the caller gets the
    ``AuthorizationRequired`` as the wire raised it, and the request went once."""
    channel, wire = clocked(clock)
    if authorizer is not None:
        wire.authorizer = Authorizer(clock, person=0.0, can=False)  # type: ignore[assignment]
    refusing(clock, wire, 1)
    with pytest.raises(AuthorizationRequired, match=r"^login needed \(1\)$"):
        channel.request("tools/call", timeout=1.0)
    assert len(wire.requests) == 1


def test_a_login_whose_network_steps_use_the_whole_timeout_is_a_timeout(clock):
    """The login's own network steps (not the person's time) take the whole timeout of 1 s: the
    caller gets ``RequestTimeout`` for the request and its timeout, and the request is not sent again."""
    channel, wire = clocked(clock)
    wire.authorizer = Authorizer(clock, person=2.0, network=1.0)  # type: ignore[assignment]
    refusing(clock, wire, 1)
    with pytest.raises(RequestTimeout) as raised:
        channel.request("tools/call", timeout=1.0)
    assert (raised.value.method, raised.value.timeout) == ("tools/call", 1.0) and len(wire.requests) == 1


def test_a_scope_cancelled_while_the_request_waits_ends_it(clock):
    """A ``CancelScope`` cancelled once the request is out: the caller gets ``RequestCancelled`` at
    once (not a timeout), and the server is told the reason."""
    channel, wire = clocked(clock)
    with CancelScope() as scope:
        wire.on_send = lambda future: scope.cancel("the user pressed Stop")
        with pytest.raises(RequestCancelled, match="the user pressed Stop"):
            channel.request("tools/call", timeout=1.0)
    assert clock.now == 0.0 and wire.stopped[0][1] is not None
    assert wire.stopped[0][1]["params"]["reason"] == "the user pressed Stop"


@pytest.mark.parametrize("with_text", [False, True])
def test_ctrl_c_while_the_request_waits_cancels_it(clock, with_text):
    """Ctrl-C while the caller waits: the request is given up and the server told "interrupted by the
    user". A bare interrupt becomes one that says so; one that already says something (raised on
    purpose, with its text) is the caller's as it was."""
    channel, wire = clocked(clock)
    clock.interrupt = KeyboardInterrupt("the watchdog stopped it") if with_text else KeyboardInterrupt()
    with pytest.raises(KeyboardInterrupt) as raised:
        channel.request("tools/call", timeout=1.0)
    if with_text:
        assert raised.value is clock.interrupt
    else:
        assert str(raised.value) == "tools/call interrupted: cancelled on the server 'srv'; the client is still usable"
    ((_, notice),) = wire.stopped
    assert notice is not None and notice["params"]["reason"] == "interrupted by the user"
    assert len(wire.endpoint.pending) == 0


def test_a_scope_holds_a_request_only_while_it_waits(clock):
    """Inside a ``CancelScope``, a request answered and one timed out are both over: the scope holds
    neither (a later cancel has nothing to give up)."""
    channel, wire = clocked(clock)
    held: list[str] = []
    with CancelScope() as scope:
        wire.on_send = lambda future: held.append(repr(scope))
        clock.answer_at = 0.5
        assert channel.request("tools/call", timeout=1.0) == ANSWER
        clock.answer_at = None
        with pytest.raises(RequestTimeout):
            channel.request("tools/call", timeout=1.0)
    assert held == ["<CancelScope 1 waiting>"] * 2 and repr(scope) == "<CancelScope 0 waiting>"


def test_a_request_in_a_cancelled_scope_is_refused_by_name_before_it_is_sent(clock):
    """A ``CancelScope`` cancelled before the request: ``RequestCancelled`` naming the request and the
    reason, and nothing sent."""
    channel, wire = clocked(clock)
    with CancelScope() as scope:
        scope.cancel("the user pressed Stop")
        with pytest.raises(RequestCancelled) as raised:
            channel.request("tools/call", timeout=1.0)
    assert str(raised.value) == "tools/call cancelled: the user pressed Stop" and wire.requests == []


def test_ctrl_c_while_the_request_is_written_is_the_callers_own(clock):
    """A ``KeyboardInterrupt`` while the wire writes the request: the caller gets that interrupt as it
    is, and the request is not left waiting (nothing to cancel on the server)."""
    channel, wire = clocked(clock)
    interrupt = KeyboardInterrupt()

    def interrupted(future: RequestFuture) -> None:
        raise interrupt

    wire.on_send = interrupted
    with pytest.raises(KeyboardInterrupt) as raised:
        channel.request("tools/call", timeout=1.0)
    assert raised.value is interrupt and len(wire.endpoint.pending) == 0 and wire.stopped == []
