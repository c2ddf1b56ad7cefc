"""mcpsync._session.progress_bars and exit_cleanup: progress bars, Ctrl-C during them, closing at exit."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
import warnings

import pytest

import mcpsync
from mcpsync._session import progress_bars as interactive
from mcpsync.testing import server_config
from mcpsync.testing.processes import process_state
from tests.helpers import cancelled_on_server, ctrl_c_after, in_flight, wait_for

pytestmark = pytest.mark.usefixtures("server_in_thread")

T = 20.0


@pytest.fixture
def client():
    with mcpsync.connect(server_config(name="watched"), timeout=T) as connected:
        yield connected


@pytest.fixture(autouse=True)
def restore_settings():
    yield
    interactive.set_progress_bars(None)


def test_a_script_under_pytest_is_not_watched():
    assert interactive.watched() is False  # stderr is captured, no IPython: no bars unless asked
    assert interactive.progress_bar_for(None, "x", None) is None


def test_bars_can_be_switched_globally_and_per_call():
    interactive.set_progress_bars(True)
    assert interactive.progress_bar_for(None, "x", None) is not None
    assert interactive.progress_bar_for(False, "x", None) is None  # the call's choice wins
    interactive.set_progress_bars(False)
    assert interactive.progress_bar_for(None, "x", None) is None
    assert interactive.progress_bar_for(True, "x", None) is not None
    with pytest.raises(TypeError):
        interactive.set_progress_bars("yes")  # type: ignore[arg-type]


def test_a_bar_shows_the_servers_progress_and_the_users_callback_still_runs(client, capsys):
    seen = []
    result = client.call_tool(
        "progress", {"steps": 4, "delay": 0.01}, progress_bar=True, on_progress=lambda *a: seen.append(a[0])
    )
    assert result.text == "done" and seen == [1, 2, 3, 4]
    err = capsys.readouterr().err
    assert "progress" in err and "4/4" in err and "step 4 of 4" in err


def test_a_call_without_progress_shows_no_bar(client, capsys):
    assert client.call_tool("echo", {"text": "quiet"}, progress_bar=True).text == "quiet"
    assert capsys.readouterr().err == ""


def test_asking_for_a_bar_without_tqdm_is_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)  # import tqdm.auto now fails
    with pytest.raises(mcpsync.NotSupportedError, match=r"need tqdm: pip install tqdm ipywidgets$"):
        interactive.progress_bar_for(True, "x", None)
    interactive.set_progress_bars(None)
    monkeypatch.setattr(interactive, "watched", lambda: True)
    monkeypatch.setattr(interactive, "_told", [])
    unshown = interactive.progress_bar_for(None, "x", None)  # automatic: no bar, and no error
    assert isinstance(unshown, interactive.UnshownProgress)


def test_a_watched_call_that_reports_progress_without_tqdm_says_once_how_to_get_bars(client, monkeypatch):
    """Issue 37, point 10: someone watches, tqdm is missing: the first call that reports progress
    warns once (at the caller's line) with the extra to install; a call without progress, and every
    later call, says nothing; the user's own callback still gets each step."""
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)
    monkeypatch.setattr(interactive, "watched", lambda: True)
    monkeypatch.setattr(interactive, "nobody_watches", lambda: False)
    monkeypatch.setattr(interactive, "_told", [])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert client.call_tool("echo", {"text": "quiet"}, timeout=T).text == "quiet"
        assert caught == []  # no progress: nothing to say
        seen: list[float] = []
        client.call_tool("progress", {"steps": 2, "delay": 0.0}, timeout=T, on_progress=lambda *a: seen.append(a[0]))
        client.call_tool("progress", {"steps": 2, "delay": 0.0}, timeout=T)
    assert seen == [1, 2]
    notices = [w for w in caught if issubclass(w.category, mcpsync.ConfigurationWarning)]
    assert len(notices) == 1 and "progress bars need tqdm" in str(notices[0].message)
    assert "pip install tqdm ipywidgets" in str(notices[0].message) and notices[0].filename == __file__


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="needs the main thread")
def test_ctrl_c_during_a_call_with_a_bar_cancels_it_and_the_client_stays_usable(client):
    with ctrl_c_after(0.3, when=in_flight(client)):
        client.call_tool("progress", {"steps": 100, "delay": 0.1}, progress_bar=True, timeout=T)
    assert client.call_tool("echo", {"text": "still here"}).text == "still here"
    assert len(cancelled_on_server(client)) == 1


@pytest.mark.slow("the call after the Ctrl-C waits out the server's 3 s start delay")
@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="needs the main thread")
def test_ctrl_c_while_a_manager_waits_for_a_server(tmp_path):
    slow = {"command": sys.executable, "args": ["-m", "mcpsync.testing", "--start-delay", "3"]}
    with mcpsync.Manager({"slow": slow}, startup_timeout=0, tool_cache=False) as manager:
        started = time.monotonic()
        with ctrl_c_after(0.3):
            manager.client("slow", timeout=T)
        assert time.monotonic() - started < 2.0
        assert manager.call_tool("slow__echo", {"text": "later"}, timeout=T).text == "later"


EXIT_WITHOUT_CLOSE = """
import sys, mcpsync
from mcpsync.testing import server_config
{make}
print(pid, flush=True)
"""


@pytest.mark.parametrize(
    "make",
    [
        pytest.param("client = mcpsync.connect(server_config())\npid = client.transport.pid", id="client"),
        pytest.param(
            "m = mcpsync.Manager({'s': {'command': sys.executable, 'args': ['-m', 'mcpsync.testing']}}, tool_cache=False)\n"
            "pid = m.clients['s'].transport.pid",
            id="manager",
            marks=pytest.mark.slow("a new Python imports the Manager and starts a server process with it"),
        ),
    ],
)
def test_a_script_that_forgets_to_close_leaves_no_server_behind(make):
    done = subprocess.run(
        [sys.executable, "-c", EXIT_WITHOUT_CLOSE.format(make=make)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    pid = int(done.stdout.strip())
    assert wait_for(lambda: process_state(pid) in (None, "Z"), timeout=5), f"server {pid} still running"


@pytest.mark.slow("waits out the 1.5 s call timeout")
@pytest.mark.parametrize("bar", [True, False], ids=["with a bar", "without a bar"])
def test_a_bar_does_not_change_the_timeout_rule(client, bar):
    """timeout=1.5 on a 4 s tool that reports progress: the same RequestTimeout with or without a bar
    (a terminal showed one and passed, the same script under cron failed)."""
    with pytest.raises(mcpsync.RequestTimeout, match=r"after 1.5s"):
        client.call_tool("progress", {"steps": 8, "delay": 0.5}, timeout=1.5, progress_bar=bar)


@pytest.mark.slow("a 4 s tool kept alive by its progress, then a 1.5 s timeout waited out")
def test_progress_the_caller_asked_for_keeps_the_call_alive(client):
    """With the caller's own on_progress, each notification starts the timeout afresh."""
    seen = []
    result = client.call_tool(
        "progress", {"steps": 8, "delay": 0.5}, timeout=1.5, on_progress=lambda *a: seen.append(a)
    )
    assert result.text == "done" and len(seen) == 8
    with pytest.raises(mcpsync.RequestTimeout):
        client.call_tool(
            "progress",
            {"steps": 8, "delay": 0.5},
            timeout=1.5,
            on_progress=lambda *a: None,
            progress_resets_timeout=False,
        )


class _Stream:
    """A stand-in for sys.stderr that says whether it is a terminal, and counts the asking."""

    def __init__(self, terminal):
        self.terminal, self.asked, self.closed = terminal, 0, False

    def isatty(self):
        self.asked += 1
        return self.terminal


def test_a_terminal_is_asked_of_each_stderr_once_and_a_new_one_afresh(monkeypatch):
    """watched() asks a stream once whether it is a terminal; a replaced stderr is asked again, and a
    terminal closed since is watched no more."""
    terminal = _Stream(True)
    monkeypatch.setattr(sys, "stderr", terminal)
    assert interactive.watched() is True and interactive.watched() is True
    assert terminal.asked == 1
    pipe = _Stream(False)
    monkeypatch.setattr(sys, "stderr", pipe)
    assert interactive.watched() is False and pipe.asked == 1
    monkeypatch.setattr(sys, "stderr", terminal)
    assert interactive.watched() is True
    terminal.closed = True
    assert interactive.watched() is False
    monkeypatch.setattr(sys, "stderr", None)
    assert interactive.watched() is False
