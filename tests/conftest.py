"""Shared fixtures. ``no_leaks`` runs for every test: a test that leaves a
thread, a child process (or zombie) or a file descriptor behind fails."""

from __future__ import annotations

import asyncio
import gc
import os
import signal
import tempfile
import threading
import time
from collections.abc import Iterator

import pytest
from hypothesis import settings

from mcpsync.testing import server_command, server_config
from mcpsync.testing.processes import child_pids

# The helpers of tests/official.py assert too: give their failures pytest's detail.
pytest.register_assert_rewrite("tests.interop.official")

# No test reads or writes the user's own files (tokens, trusted projects): the data directory is a
# fresh one for the run, for this process and the servers and command lines it starts.
os.environ["XDG_DATA_HOME"] = tempfile.mkdtemp(prefix="mcpsync-tests-data-")

#: How long a test's threads and processes get to finish after it ends.
LEAK_GRACE = 5.0
#: Set to 1 to run the tests marked ``long``.
LONG_TESTS = os.environ.get("MCPSYNC_LONG_TESTS") == "1"

# Hypothesis: a few hundred examples a property by default, thousands in the long run
# (MCPSYNC_LONG_TESTS=1) or where MCPSYNC_HYPOTHESIS_PROFILE=thorough asks for them (CI may set it).
settings.register_profile("default", max_examples=300)
settings.register_profile("thorough", max_examples=4000)
settings.load_profile(os.environ.get("MCPSYNC_HYPOTHESIS_PROFILE") or ("thorough" if LONG_TESTS else "default"))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip the tests marked ``long`` unless MCPSYNC_LONG_TESTS=1."""
    if LONG_TESTS:
        return
    skip = pytest.mark.skip(reason="long variant: set MCPSYNC_LONG_TESTS=1")
    for item in items:
        if "long" in item.keywords:
            item.add_marker(skip)


def _fds() -> set[int]:
    """Our open descriptors. The listing's own descriptor is closed by the time we look
    at each entry, so it is left out: only entries that still resolve count."""
    try:
        entries = os.listdir("/proc/self/fd")
    except OSError:
        return set()
    found = set()
    for fd in entries:
        try:
            os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        found.add(int(fd))
    return found


@pytest.fixture(autouse=True)
def ctrl_c_reaches_the_tests() -> Iterator[None]:
    """Ctrl-C as at a terminal, even when pytest started with SIGINT ignored.

    A background job of a non-interactive shell (``pytest ... &`` in a script, some CI runners) starts
    with SIGINT set to ``SIG_IGN``; Python then installs no ``KeyboardInterrupt`` handler, and every
    test that sends a real SIGINT (``ctrl_c_after``) or calls ``_thread.interrupt_main()`` would fail
    with "DID NOT RAISE KeyboardInterrupt". For each test the default handler is put back, and the
    ignoring after it; a run started normally is left as it is.
    """
    if (
        threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGINT) is not signal.SIG_IGN
    ):
        yield
        return
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.fixture(autouse=True)
def no_event_loop_left_running(request: pytest.FixtureRequest) -> None:
    """Fail at once, saying why, when an earlier test's fixture left an asyncio loop running in this thread.

    Playwright's sync API runs one while its browser is open (tests/edges/apps_browser closes it with
    each module); a wider-scoped fixture that kept it would make every later ``asyncio.run`` fail
    with "cannot be called from a running event loop", far from the cause. Tests that use that
    browser themselves run inside its loop, and are left alone.
    """
    if "browser" in request.fixturenames:
        return
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return
    pytest.fail(
        f"an asyncio event loop ({loop!r}) is running in this thread, left by an earlier test's fixture of a "
        "wider scope (Playwright's sync API, say): this test's asyncio.run() would fail",
        pytrace=False,
    )


@pytest.fixture(autouse=True)
def no_leaks() -> Iterator[None]:
    """Fail the test if it leaves threads, child processes or descriptors behind."""
    threads_before = set(threading.enumerate())
    children_before = child_pids()
    fds_before = _fds()
    yield
    deadline = time.monotonic() + LEAK_GRACE
    while True:
        threads = [t for t in threading.enumerate() if t not in threads_before and t.is_alive()]
        children = child_pids() - children_before
        fds = _fds() - fds_before
        if not (threads or children or fds) or time.monotonic() > deadline:
            break
        # Something seems left: garbage that closes it when collected (a socket in a cycle, say) is
        # collected before the next look. Only then: a collection costs 0.2 s a test in this suite.
        gc.collect()
        time.sleep(0.05)
    problems = []
    if threads:
        problems.append(f"threads left running: {[t.name for t in threads]}")
    if children:
        problems.append(f"child processes left: {sorted(children)}")
    if fds:
        described = {fd: _describe_fd(fd) for fd in sorted(fds)}
        problems.append(f"file descriptors left open: {described}")
    if problems:
        pytest.fail("leak after test: " + "; ".join(problems), pytrace=False)


def _describe_fd(fd: int) -> str:
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return "?"


@pytest.fixture
def test_server_command() -> list[str]:
    """The command line of mcpsync's bundled test server."""
    return server_command()


@pytest.fixture
def client():  # type: ignore[no-untyped-def]
    """An initialized client on the bundled test server (closed after the test)."""
    import mcpsync

    with mcpsync.connect(server_config(timeout=20)) as c:
        yield c
