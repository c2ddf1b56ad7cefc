"""Run a test server over HTTP in a child process, for tests (bounded start and stop)."""

from __future__ import annotations

import select
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

START_TIMEOUT = 20.0


@contextmanager
def running_http_server(*options: str) -> Iterator[str]:
    """Start ``python -m mcpsync.testing --http 0 [options]``; yield its base URL (``http://127.0.0.1:PORT``)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "mcpsync.testing", "--http", "0", *options],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    assert process.stderr is not None
    try:
        deadline = time.monotonic() + START_TIMEOUT
        line = b""
        while not line.endswith(b"\n"):
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([process.stderr], [], [], remaining)[0]:
                raise RuntimeError(f"the HTTP test server did not start within {START_TIMEOUT}s")
            chunk = process.stderr.read1(1024)  # type: ignore[attr-defined]
            if not chunk:
                raise RuntimeError(f"the HTTP test server exited: {line.decode(errors='replace')}")
            line += chunk
        url = line.decode().split("listening on ", 1)[1].strip()
        yield url.rsplit("/mcp", 1)[0]
    finally:
        stop(process, 10)
        process.stderr.close()


def stop(process: subprocess.Popen, grace: float) -> None:  # type: ignore[type-arg]
    """Terminate a child server and reap it; kill it if it does not exit within ``grace`` seconds."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(grace)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(grace)


#: The transports the test server is reached by in tests of both eras: stdio, and Streamable HTTP
#: answering with event streams or with JSON bodies.
KINDS = ("stdio", "http", "http-json")


@contextmanager
def server_target(kind: str, *options: str) -> Iterator[Any]:
    """What ``mcpsync.connect`` takes for the test server with ``options`` over ``kind`` (one of
    ``KINDS``): its command line, or its Streamable HTTP URL."""
    if kind == "stdio":
        yield [sys.executable, "-m", "mcpsync.testing", *options]
        return
    with running_http_server(*options, *(("--json",) if kind == "http-json" else ())) as base:
        yield base + "/mcp"
