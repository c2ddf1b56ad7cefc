"""Timeouts: one meaning everywhere.

A timeout argument is seconds (a positive number), ``None`` for no limit, or
``USE_DEFAULT`` for "whatever the configuration says" (for a request: the
server config's timeout, else ``DEFAULT_TIMEOUT``). The same holds in
constructors, configurations and calls; ``math.inf`` is accepted as another
spelling of no limit. JSON configuration files give milliseconds, and their
reader converts them (``mcpsync._manager.config_files``).
"""

from __future__ import annotations

import enum
import math
import time
from typing import Literal, Optional, Protocol, Union

from .errors import ConfigurationError

__all__ = [
    "DEFAULT_TIMEOUT",
    "USE_DEFAULT",
    "Deadline",
    "LoginClock",
    "Timeout",
    "UseDefault",
    "check_timeout",
    "deadline",
    "resolve_timeout",
]

#: Seconds a request may take when neither the call nor the configuration says otherwise.
DEFAULT_TIMEOUT = 30.0


class UseDefault(enum.Enum):
    """The type of ``USE_DEFAULT``: keeps "not passed" apart from ``None`` (no limit)."""

    USE_DEFAULT = "USE_DEFAULT"

    def __repr__(self) -> str:
        return "USE_DEFAULT"


#: Pass (or leave) this to use the configured default.
USE_DEFAULT = UseDefault.USE_DEFAULT

#: What every ``timeout`` parameter takes: seconds, ``None`` (no limit) or ``USE_DEFAULT``.
Timeout = Union[float, None, Literal[UseDefault.USE_DEFAULT]]


def check_timeout(value: Timeout, where: str) -> Timeout:
    """Refuse a timeout that is not a positive number of seconds, ``None`` or ``USE_DEFAULT``.

    Returns the value, with ``math.inf`` turned into ``None``.

    Raises:
        ConfigurationError: naming ``where``.
    """
    if value is None or value is USE_DEFAULT:
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
        raise ConfigurationError(f"{where}: timeout must be a number of seconds, None or USE_DEFAULT, not {value!r}")
    if value <= 0:
        raise ConfigurationError(f"{where}: timeout must be positive, not {value!r}")
    return None if value == math.inf else float(value)


def resolve_timeout(timeout: Timeout, default: Optional[float]) -> Optional[float]:
    """A call's ``timeout`` as seconds, or ``None`` for no limit (``USE_DEFAULT`` takes ``default``)."""
    if timeout is USE_DEFAULT:
        return default
    if type(timeout) is float and 0.0 < timeout < math.inf:  # the usual: seconds, already as they must be
        return timeout
    checked = check_timeout(timeout, "request")
    assert checked is not USE_DEFAULT
    return checked


def deadline(seconds: Optional[float]) -> float:
    """The ``time.monotonic()`` by which ``seconds`` from now have passed (``math.inf`` for no limit)."""
    return math.inf if seconds is None else time.monotonic() + seconds


class LoginClock(Protocol):
    """What counts the seconds people have spent logging in for a connection's requests (its ``Channel``)."""

    person_time: float


class Deadline:
    """A caller's time limit that stops while a person logs in: a login waits for a person, and their
    time is not the caller's (``login_timeout`` bounds it instead).

    Args:
        seconds: the limit (``None``: no limit).
        logins: the connection's ``LoginClock``; what it counts after the deadline began is added to it.
        start: when the time began (a ``time.monotonic()`` value; default: now). A deadline that began
            before ``logins`` was made (``start`` given) counts all of its person time as added.
    """

    __slots__ = ("_counted", "_logins", "seconds", "start")

    def __init__(self, seconds: Optional[float], logins: Optional[LoginClock] = None, *, start: Optional[float] = None):
        self.seconds = seconds
        self.start = time.monotonic() if start is None else start
        self._logins = logins
        self._counted = logins.person_time if logins is not None and start is None else 0.0

    def person_time(self) -> float:
        """Seconds a person spent logging in since the deadline began."""
        return 0.0 if self._logins is None else self._logins.person_time - self._counted

    def at(self) -> float:
        """The ``time.monotonic()`` by which the time is up, logins added (``math.inf``: no limit)."""
        return math.inf if self.seconds is None else self.start + self.seconds + self.person_time()

    def left(self, floor: float = 0.0) -> Optional[float]:
        """Seconds left, not counting time a person spent logging in, at least ``floor`` (``None``: no limit)."""
        return None if self.seconds is None else max(floor, self.at() - time.monotonic())
