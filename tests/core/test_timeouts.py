"""mcpsync._core.timeouts: one meaning for a timeout everywhere (None: no limit; USE_DEFAULT: the default)."""

import math

import pytest

import mcpsync
from mcpsync._core.timeouts import DEFAULT_TIMEOUT, USE_DEFAULT, check_timeout, deadline, resolve_timeout


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
