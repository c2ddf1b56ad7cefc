"""mcpsync._core.timeouts: one meaning for a timeout everywhere (None: no limit; USE_DEFAULT: the default)."""

import math

import pytest

import mcpsync
from mcpsync._core.timeouts import DEFAULT_TIMEOUT, USE_DEFAULT, Deadline, check_timeout, deadline, resolve_timeout


def test_resolve_timeout():
    assert resolve_timeout(USE_DEFAULT, 30.0) == 30.0
    assert resolve_timeout(USE_DEFAULT, None) is None
    assert resolve_timeout(None, 30.0) is None
    assert resolve_timeout(math.inf, 30.0) is None
    assert resolve_timeout(2, None) == 2.0
    for bad in (0, -1, float("nan"), "5", True):
        with pytest.raises(mcpsync.ConfigurationError, match="timeout must"):
            resolve_timeout(bad, 30.0)  # type: ignore[arg-type]


def test_use_default_is_a_typed_marker_that_says_what_it_is():
    assert repr(USE_DEFAULT) == "USE_DEFAULT" and mcpsync.USE_DEFAULT is USE_DEFAULT
    assert check_timeout(USE_DEFAULT, "x") is USE_DEFAULT
    assert check_timeout(math.inf, "x") is None


def test_none_means_no_limit_in_configs_and_transports_as_in_calls():
    """The rule DESIGN.md sets: a constructor's None is no limit too, never "the default"."""
    assert mcpsync.StdioServerConfig("srv").timeout is USE_DEFAULT
    assert mcpsync.StdioServerConfig("srv", timeout=None).timeout is None
    assert mcpsync.HTTPServerConfig("http://h/mcp", timeout=math.inf).timeout is None
    assert mcpsync.create_transport(mcpsync.StdioServerConfig("srv")).default_timeout == DEFAULT_TIMEOUT
    assert mcpsync.create_transport(mcpsync.StdioServerConfig("srv", timeout=None)).default_timeout is None
    assert mcpsync.create_transport(mcpsync.StdioServerConfig("srv", timeout=2)).default_timeout == 2.0


def test_a_deadline_is_a_monotonic_time_or_infinity():
    assert deadline(None) == math.inf
    assert 0 < deadline(5) - __import__("time").monotonic() <= 5


class _Clock:
    """A fake ``time`` module whose ``monotonic()`` moves only when told."""

    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now


class _Logins:
    """A connection's ``LoginClock``: the seconds people have spent logging in."""

    def __init__(self, person_time: float = 0.0) -> None:
        self.person_time = person_time


def test_a_deadline_does_not_count_the_time_a_person_spent_logging_in(monkeypatch):
    """Scenario: 10 s given; 4 s pass, of which 3 s a person logged in (the connection counted 3 s more
    than it had when the deadline began). Promise: 9 s are left, not 6, and ``at()`` moved on by 3 s."""
    import mcpsync._core.timeouts as timeouts_module

    clock = _Clock()
    monkeypatch.setattr(timeouts_module, "time", clock)
    logins = _Logins(person_time=5.0)  # logins before the deadline began are not its business
    deadline = Deadline(10.0, logins)
    clock.now += 4.0
    logins.person_time += 3.0
    assert deadline.person_time() == 3.0
    assert deadline.left() == 9.0
    assert deadline.at() == 1000.0 + 10.0 + 3.0
    clock.now += 20.0
    assert deadline.left() == 0.0 and deadline.left(floor=0.001) == 0.001


def test_a_deadline_that_began_before_its_connection_counts_all_its_logins(monkeypatch):
    """Scenario: the manager's bound began before the client was made (``start=``), and the client's
    connection counted 2 s of a person's login. Promise: all 2 s are left out; no limit stays no limit."""
    import mcpsync._core.timeouts as timeouts_module

    clock = _Clock()
    monkeypatch.setattr(timeouts_module, "time", clock)
    started = clock.now
    clock.now += 5.0
    deadline = Deadline(10.0, _Logins(person_time=2.0), start=started)
    assert deadline.left() == 7.0
    unbounded = Deadline(None, _Logins(person_time=2.0))
    assert unbounded.left() is None and unbounded.at() == math.inf


def test_resolve_timeout_refuses_zero_and_says_where():
    """A float 0.0 (the type the fast path takes) is refused like the int 0, and the error names the request.

    Found by mutation testing (docs/testing.md): the fast path's bound and the error's place were untested.
    """
    assert resolve_timeout(0.25, None) == 0.25
    for bad in (0.0, -0.5):
        with pytest.raises(mcpsync.ConfigurationError, match=r"^request: timeout must be positive"):
            resolve_timeout(bad, 30.0)


def test_a_deadline_without_logins_ends_at_its_seconds():
    """With no connection's login clock, a deadline ends exactly ``seconds`` after its start: no person time is added.

    Found by mutation testing (docs/testing.md): a deadline that added a second of "person time"
    without any login went unnoticed.
    """
    limit = Deadline(2.0, start=100.0)
    assert limit.person_time() == 0.0
    assert limit.at() == 102.0
    assert Deadline(None, start=100.0).at() == math.inf
