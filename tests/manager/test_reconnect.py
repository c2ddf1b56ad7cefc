"""mcpsync.reconnect: when a manager tries a server again."""

import pytest

from mcpsync._manager.reconnect import ReconnectPolicy


def test_backoff_doubles_up_to_the_longest_delay_with_jitter():
    policy = ReconnectPolicy(backoff=(1.0, 8.0))
    for attempt, nominal in [(1, 1.0), (2, 2.0), (3, 4.0), (4, 8.0), (5, 8.0), (500, 8.0)]:
        delays = [policy.backoff_delay(attempt) for _ in range(200)]
        assert all(nominal * 0.5 <= d <= nominal for d in delays)
        assert max(delays) - min(delays) > nominal * 0.2  # jittered, not in step


def test_failed_attempts_back_off_then_retry_slowly():
    policy = ReconnectPolicy(max_attempts=3, backoff=(1.0, 100.0), slow_retry_interval=60.0)
    assert [policy.after_failed_attempt(n) <= 2 ** (n - 1) for n in (1, 2, 3)] == [True] * 3
    assert all(30.0 <= policy.after_failed_attempt(4) <= 60.0 for _ in range(50))
    assert all(30.0 <= policy.after_failed_attempt(40) <= 60.0 for _ in range(50))


def test_losses_reconnect_soon_until_a_crash_loop():
    policy = ReconnectPolicy(backoff=(2.0, 30.0), crash_loop_limit=3, slow_retry_interval=60.0)
    assert all(0.25 <= policy.after_loss(0) <= 0.5 for _ in range(50))  # a first loss: soon
    assert all(0.5 <= policy.after_loss(2) <= 1.0 for _ in range(50))
    assert not policy.is_crash_loop(2) and policy.is_crash_loop(3)
    assert all(30.0 <= policy.after_loss(3) <= 60.0 for _ in range(50))


def test_a_disabled_policy_never_tries_again():
    policy = ReconnectPolicy(enabled=False)
    assert policy.after_failed_attempt(1) is None and policy.after_loss(0) is None


@pytest.mark.parametrize(
    "options, message",
    [
        ({"backoff": (5.0, 1.0)}, "starts above"),
        ({"backoff": (-1.0, 1.0)}, r"backoff\[0\]"),
        ({"slow_retry_interval": float("inf")}, "slow_retry_interval"),
        ({"max_attempts": 0}, "max_attempts"),
        ({"crash_loop_limit": 2.5}, "crash_loop_limit"),
        ({"crash_loop_window": "10"}, "crash_loop_window"),
    ],
)
def test_bad_settings_are_refused(options, message):
    with pytest.raises(ValueError, match=message):
        ReconnectPolicy(**options)
