"""A call's deadline, measured tightly enough to mean something.

The README's first promise is that a call ends at its timeout. The other deadline tests allow wide
bounds for a shared machine (2.5 s for a 1 s timeout), so a wait that gave up at twice the timeout
would pass them. Here the timeout is long enough to be stable (3 s) and the bound tight (4.5 s):
half the timeout again, far above a shared machine's noise, far below twice the timeout.
"""

from __future__ import annotations

import time

import pytest

import mcpsync
from mcpsync import RequestTimeout
from mcpsync._wire import create_transport
from mcpsync.testing import server_config

#: The call's timeout, and the latest it may end.
TIMEOUT = 3.0
LATEST = 4.5


@pytest.mark.slow("waits out the call's 3 s timeout")
def test_a_stdio_call_to_a_stalled_server_ends_at_its_timeout_not_later():
    """A stdio server that stalls on a call: ``RequestTimeout`` between 3 s and 4.5 s, saying 3s."""
    transport = create_transport(server_config(timeout=30), exit_timeout=0.5, terminate_timeout=1.0)
    with mcpsync.Client(transport, protocol="legacy") as client:
        started = time.monotonic()
        with pytest.raises(RequestTimeout, match=r"after 3s") as caught:
            client.call_tool("misbehave", {"kind": "stall"}, timeout=TIMEOUT)
        took = time.monotonic() - started
    assert caught.value.timeout == TIMEOUT
    assert TIMEOUT - 0.05 <= took <= LATEST, f"the call ended after {took:.2f}s, its timeout was {TIMEOUT:g}s"
