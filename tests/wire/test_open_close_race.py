"""A ``close()`` that lands while ``open()`` is starting a stdio server (found by benchmarks/lazy_start.py).

A manager closed while a server is still being started closes that server's client from another
thread. ``Transport.open()`` checks that the transport is not closed, then starts the process; a
``close()`` in between finds no process to stop and marks the transport closed, and ``_open()`` then
starts the process and marks the transport open again: the server runs on, its stdin open, and a
later ``close()`` is a no-op. Now ``open()`` sees the close that came meanwhile and shuts down what
it started; should that break, the process is killed here so that the leak fixture does not also fail.
"""

from __future__ import annotations

import threading

import pytest

import mcpsync
from mcpsync._wire import create_transport
from mcpsync.testing import server_config
from tests.helpers import wait_for

T = 10.0


def test_a_close_that_lands_while_the_process_starts_leaves_no_process() -> None:
    """close() from another thread after open()'s check and before the process starts: once both have
    returned, no server process may be left running."""
    transport = create_transport(server_config())
    client = mcpsync.Client(transport)
    start_process = transport._open  # type: ignore[attr-defined]

    closer = threading.Thread(target=client.close)  # as Manager.close() closes a client being connected

    def close_lands_first() -> None:
        closer.start()
        assert wait_for(lambda: transport._shutdown_started, T)  # type: ignore[attr-defined]
        start_process()

    transport._open = close_lands_first  # type: ignore[attr-defined]
    try:
        with pytest.raises(mcpsync.TransportClosed, match="closed by the client while it was being opened"):
            client.initialize(timeout=T)
        closer.join(T)
        assert not closer.is_alive(), "the close() that came first did not return once the opening ended"
        client.close()
        process = transport._process  # type: ignore[attr-defined]
        assert process is None or process.poll() is not None, "the server process is still running"
    finally:
        process = transport._process  # type: ignore[attr-defined]
        if process is not None and process.poll() is None:
            process.kill()
            process.wait(T)
            for stream in (process.stdin, process.stdout, process.stderr):
                if stream is not None:
                    stream.close()
        for thread in transport._threads():  # type: ignore[attr-defined]  # the readers _open() started
            if thread is not None:
                thread.join(T)
