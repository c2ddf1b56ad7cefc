"""A stdio server that stops reading, and messages that find its pipe full (docs/faults.md).

Messages under ``PIPE_BUF`` (4 KiB on Linux) go into a pipe whole or not at all, so small ones
fill it to the brim without ever leaving half a message: then a notification is a
``WriteTimeout`` at ``write_timeout``, a call a ``RequestTimeout`` at its timeout, and the
connection is not given up. (A message taken in part: tests/wire/test_stdio.py.)
"""

from __future__ import annotations

import sys
import time

import pytest

from mcpsync import RequestTimeout, WriteTimeout
from mcpsync._wire import StdioTransport
from tests.wire.helpers import Wired
from tests.wire.test_stdio import DEAF_SERVER

T = 20
#: Far above the timeouts here (0.3 s, 1 s), far below a hang.
PROMPTLY = 10


@pytest.mark.slow("waits out the 0.3 s write timeout, then the call's 1 s timeout")
def test_a_full_pipe_makes_a_notification_a_write_timeout_and_a_call_a_request_timeout():
    """The server answers ``initialize`` and never reads again; small notifications fill its pipe until one
    is a ``WriteTimeout``; a call then is a ``RequestTimeout`` after its 1 s, and the transport is still open."""
    transport = Wired(
        StdioTransport(
            sys.executable, ["-c", DEAF_SERVER], name="deaf", write_timeout=0.3, exit_timeout=0.2, terminate_timeout=1
        )
    )
    try:
        transport.start()
        transport.request("initialize", {}, timeout=T)
        note = b'{"jsonrpc": "2.0", "method": "notifications/message", "params": {"data": "' + b"x" * 900 + b'"}}\n'
        with pytest.raises(WriteTimeout, match=r"could not write within 0.3s"):
            for _ in range(1000):  # 1 MB: far more than a pipe holds
                transport.transport.send_message(note)
        started = time.monotonic()
        with pytest.raises(RequestTimeout, match=r"after 1s"):
            transport.request("ping", timeout=1)
        assert time.monotonic() - started < PROMPTLY
        assert transport.is_connected, "nothing was taken in part: the connection goes on"
    finally:
        transport.close()
