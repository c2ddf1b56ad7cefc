"""Shared fixtures. ``no_leaks`` runs for every test: a test that leaves a
thread, a child process (or zombie) or a file descriptor behind fails.
``own_home`` gives every test its own HOME and XDG directories, so that tests
run side by side (pytest-xdist's workers, two runs at once) share no file."""

from __future__ import annotations

import asyncio
import gc
import os
import shutil
import signal
import tempfile
import threading
import time
from collections.abc import Iterator
from itertools import count
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from mcpsync import StdioServerConfig, StdioTransport
from mcpsync.testing import server_command, server_config
from mcpsync.testing.processes import child_pids
from mcpsync.testing.threaded import ThreadedServerTransport, threadable

# The helpers of tests/official.py assert too: give their failures pytest's detail.
pytest.register_assert_rewrite("tests.interop.official")

#: This process's own directory (one per pytest-xdist worker), removed when the session ends. Every
#: test's HOME and XDG directories are made in it (``own_home``); fixtures of a wider scope, and the
#: servers they start, get its ``shared`` ones. No test reads or writes the user's own files (tokens,
#: trusted projects, the tool cache), nor a file another process of the run uses.
RUN_DIR = Path(tempfile.mkdtemp(prefix="mcpsync-tests-"))
XDG_NAMES = {"XDG_DATA_HOME": "data", "XDG_CONFIG_HOME": "config", "XDG_CACHE_HOME": "cache"}


def _home_in(directory: Path) -> dict[str, str]:
    """HOME and the XDG directories, all inside ``directory`` (made here)."""
    places = {"HOME": directory, **{name: directory / sub for name, sub in XDG_NAMES.items()}}
    for place in places.values():
        place.mkdir(parents=True, exist_ok=True)
    return {name: str(place) for name, place in places.items()}


os.environ.update({name: value for name, value in _home_in(RUN_DIR / "shared").items() if name != "HOME"})

#: How long a test's threads and processes get to finish after it ends.
LEAK_GRACE = 5.0
#: Set to 1 to run the tests marked ``long``.
LONG_TESTS = os.environ.get("MCPSYNC_LONG_TESTS") == "1"

# Hypothesis: a few hundred examples a property by default, thousands in the long run
# (MCPSYNC_LONG_TESTS=1) or where MCPSYNC_HYPOTHESIS_PROFILE=thorough asks for them (CI may set it).
settings.register_profile("default", max_examples=300)
settings.register_profile("thorough", max_examples=4000)
settings.load_profile(os.environ.get("MCPSYNC_HYPOTHESIS_PROFILE") or ("thorough" if LONG_TESTS else "default"))


#: Folders whose every test talks to a server we did not write: the ``peer`` marker is theirs.
PEER_FOLDERS = ("interop", "conformance")
#: A test over this many seconds carries ``slow`` with its reason; one in the fast tier stays under
#: FAST_BOUND. Reported at the end of a run (never failed on: a loaded machine is slower).
SLOW_BOUND = 5.0
FAST_BOUND = 1.0
#: What ``make check`` leaves out.
NOT_FAST = ("slow", "peer", "browser", "kernel", "long")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark what needs a peer (``official`` tests, and tests/interop and tests/conformance); refuse a
    ``slow`` marker without its reason; skip the tests marked ``long`` unless MCPSYNC_LONG_TESTS=1."""
    tests = Path(__file__).parent
    unexplained = []
    for item in items:
        folder = item.path.relative_to(tests).parts[0] if item.path.is_relative_to(tests) else ""
        if "official" in item.keywords or folder in PEER_FOLDERS:
            item.add_marker(pytest.mark.peer)
        for mark in item.iter_markers("slow"):
            reason = mark.args[0] if mark.args else mark.kwargs.get("reason")
            if not (isinstance(reason, str) and reason.strip()):
                unexplained.append(item.nodeid)
        if "long" in item.keywords and not LONG_TESTS:
            item.add_marker(pytest.mark.skip(reason="long variant: set MCPSYNC_LONG_TESTS=1"))
    if unexplained:
        raise pytest.UsageError(
            "a slow marker needs its reason, @pytest.mark.slow('what takes the time'): " + ", ".join(unexplained)
        )


_times: dict[str, float] = {}
_marked_slow: set[str] = set()
_fast_tier: set[str] = set()


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Add up each test's time (setup, call and teardown) and note its tier, for the summary below."""
    _times[report.nodeid] = _times.get(report.nodeid, 0.0) + report.duration
    if report.when == "call":
        if "slow" in report.keywords:
            _marked_slow.add(report.nodeid)
        if not any(name in report.keywords for name in NOT_FAST):
            _fast_tier.add(report.nodeid)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Name the tests that took longer than their tier allows: over SLOW_BOUND without a ``slow``
    marker, or over FAST_BOUND in the fast tier (``make check``'s). A note, not a failure."""
    ran = [(seconds, nodeid) for nodeid, seconds in _times.items() if nodeid not in _marked_slow]
    for title, rows in (
        (
            f"over {SLOW_BOUND:g} s without a slow marker (give it one with its reason, or make it quicker)",
            [row for row in ran if row[0] > SLOW_BOUND],
        ),
        (
            f"of the fast tier over {FAST_BOUND:g} s",
            [row for row in ran if row[0] > FAST_BOUND and row[1] in _fast_tier],
        ),
    ):
        if rows:
            terminalreporter.write_sep("-", f"{len(rows)} tests {title}")
            for seconds, nodeid in sorted(rows, reverse=True):
                terminalreporter.write_line(f"{seconds:6.2f}s {nodeid}")


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    """In a worker of ``--dist loadgroup``: every test of an ``xdist_group`` carries its group in its node
    id, the only way the scheduler learns it. Without it the browser's JupyterLab and the conformance
    runs would start once per worker, silently (pytest 9.2 with pytest-xdist 3.8: pytest-xdist#1386)."""
    if not getattr(session.config.option, "loadgroup", False):
        return
    lost = [
        item.nodeid
        for item in session.items
        if item.get_closest_marker("xdist_group") and "@" not in item.nodeid.rsplit("]", 1)[-1]
    ]
    if lost:
        raise pytest.UsageError(
            f"pytest-xdist's --dist loadgroup does not group these tests with this pytest ({pytest.__version__}; "
            f"pytest-xdist#1386), so each worker would run their group: {lost[:3]} ..."
        )


def pytest_sessionfinish(session: pytest.Session) -> None:
    shutil.rmtree(RUN_DIR, ignore_errors=True)


@pytest.fixture
def server_in_thread(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every ``StdioTransport`` the test builds from a config (``connect``, ``Client`` of a config, a
    ``Manager``) serves the bundled server from a thread of this process (``mcpsync.testing.threaded``),
    where the config is ``threadable``: for modules about the client's logic, not its processes
    (``pytestmark = pytest.mark.usefixtures("server_in_thread")``). A test marked ``process`` keeps them."""
    if request.node.get_closest_marker("process"):
        return
    build = StdioTransport.from_config.__func__  # type: ignore[attr-defined]

    def from_config(cls: type[StdioTransport], config: StdioServerConfig, **kwargs: Any) -> StdioTransport:
        if cls is StdioTransport and threadable(config) is not None:
            cls = ThreadedServerTransport
        return build(cls, config, **kwargs)  # type: ignore[no-any-return]

    monkeypatch.setattr(StdioTransport, "from_config", classmethod(from_config))


_homes = count()


@pytest.fixture(autouse=True)
def own_home(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """This test's own HOME, XDG_DATA_HOME, XDG_CONFIG_HOME and XDG_CACHE_HOME (empty directories),
    for the test and every process it starts; removed after it."""
    home = RUN_DIR / f"home-{next(_homes)}"
    for name, value in _home_in(home).items():
        monkeypatch.setenv(name, value)
    yield home
    shutil.rmtree(home, ignore_errors=True)


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
