"""When to try a server again: backoff with jitter, a slow retry, and a crash-loop breaker.

Pure decisions, no threads and no clock: the manager's supervisors ask and
sleep. A failed attempt is followed by exponential backoff (each delay cut by
a random factor between 0.5 and 1, so that servers restarted together do not
retry in step) for ``max_attempts`` attempts, then by one attempt every
``slow_retry_interval`` seconds. A server that dies within
``crash_loop_window`` seconds of connecting ``crash_loop_limit`` times in a
row is in a crash loop and goes straight to the slow retry.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Optional

__all__ = ["ReconnectPolicy"]


@dataclass(frozen=True)
class ReconnectPolicy:
    """How a manager tries again; see the module docstring.

    Args:
        enabled: try again at all (after a failed start or a lost connection).
        max_attempts: attempts with backoff before the slow retry.
        backoff: (first delay, longest delay) in seconds.
        slow_retry_interval: seconds between attempts after that.
        crash_loop_window, crash_loop_limit: how quick and how many deaths in a row make a crash loop.
    """

    enabled: bool = True
    max_attempts: int = 5
    backoff: tuple[float, float] = (0.5, 30.0)
    slow_retry_interval: float = 60.0
    crash_loop_window: float = 10.0
    crash_loop_limit: int = 3

    def __post_init__(self) -> None:
        first, longest = self.backoff
        for name, value in (
            ("backoff[0]", first),
            ("backoff[1]", longest),
            ("slow_retry_interval", self.slow_retry_interval),
            ("crash_loop_window", self.crash_loop_window),
        ):
            if not isinstance(value, (int, float)) or isinstance(value, bool) or not 0 <= value < math.inf:
                raise ValueError(f"reconnect policy: {name} must be a number of seconds >= 0, not {value!r}")
        if first > longest:
            raise ValueError(f"reconnect policy: backoff {self.backoff!r} starts above its longest delay")
        for name, count in (("max_attempts", self.max_attempts), ("crash_loop_limit", self.crash_loop_limit)):
            if not isinstance(count, int) or isinstance(count, bool) or count < 1:
                raise ValueError(f"reconnect policy: {name} must be a whole number >= 1, not {count!r}")

    def after_failed_attempt(self, attempts: int) -> Optional[float]:
        """Seconds until the next attempt after ``attempts`` failed ones in a row; ``None``: no next attempt."""
        if not self.enabled:
            return None
        if attempts <= self.max_attempts:
            return self.backoff_delay(attempts)
        return self.slow_retry()

    def is_crash_loop(self, quick_deaths: int) -> bool:
        """Whether that many deaths in a row, each within ``crash_loop_window`` of connecting, are a crash loop."""
        return quick_deaths >= self.crash_loop_limit

    def after_loss(self, quick_deaths: int) -> Optional[float]:
        """Seconds until reconnecting after a lost connection; ``None``: no reconnection.

        The first attempt comes soon (a server that crashed once usually
        starts again); a crash loop gets the slow retry.
        """
        if not self.enabled:
            return None
        if self.is_crash_loop(quick_deaths):
            return self.slow_retry()
        return self.backoff_delay(max(1, quick_deaths)) / 4

    def backoff_delay(self, attempt: int) -> float:
        """The delay before attempt ``attempt + 1``: doubling from the first delay up to the longest, with jitter."""
        first, longest = self.backoff
        return _jitter(min(longest, first * 2 ** min(attempt - 1, 64)))

    def slow_retry(self) -> float:
        return _jitter(self.slow_retry_interval)


def _jitter(delay: float) -> float:
    return delay * random.uniform(0.5, 1.0)
