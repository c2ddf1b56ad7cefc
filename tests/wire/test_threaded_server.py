"""The bundled server in a thread (``mcpsync.testing.threaded``): what the suite's logic tests stand on
(``server_in_thread``) must behave as the process does where they look, and leave nothing behind."""

from __future__ import annotations

import signal
import sys
import time

import pytest

import mcpsync
from mcpsync.testing import server_command, server_config
from mcpsync.testing.threaded import ThreadedServerTransport, threadable

T = 10  # seconds: the bound on every call here


def threaded(*options: str, **kwargs: object) -> mcpsync.Client:
    return mcpsync.Client(ThreadedServerTransport.from_config(server_config(*options, stderr="quiet", **kwargs)))


@pytest.mark.parametrize(
    ("config", "options"),
    [
        (server_config(), []),
        (server_config("--page-size", "2", "--legacy-only"), ["--page-size", "2", "--legacy-only"]),
        (server_config("--die-after", "1"), ["--die-after", "1"]),
        (server_config("--http", "0"), None),
        (server_config("--http=0"), None),
        (server_config("--ignore-sigterm"), None),
        (server_config("--mark-start", "/tmp/x"), None),
        (server_config(env={"A": "1"}), None),
        (server_config(cwd="/"), None),
        (mcpsync.StdioServerConfig(command="python3", args=["-m", "mcpsync.testing"]), None),
        (mcpsync.StdioServerConfig(command=sys.executable, args=["-m", "mcpsync"]), None),
    ],
)
def test_only_the_bundled_server_with_nothing_of_a_process_is_threadable(config, options):
    assert threadable(config) == options


def test_a_client_over_the_thread_works_as_over_the_process_and_ends_it():
    client = threaded("--page-size", "2")
    with client:
        assert client.transport.pid is None
        assert client.call_tool("echo", {"text": "hi"}, timeout=T).text == "hi"
        assert len(client.list_tools(timeout=T)) > 2  # paged by 2, all read
    assert client.transport.returncode == 0


def test_a_crash_in_the_thread_ends_the_connection_with_its_code_and_its_last_words():
    client = threaded()
    with client:
        with pytest.raises(mcpsync.TransportClosed) as info:
            client.call_tool("crash", {"code": 7, "message": "going now"}, timeout=T)
        assert info.value.exit_code == 7
        assert "going now" in info.value.stderr_tail
        with pytest.raises(mcpsync.TransportClosed):
            client.call_tool("echo", {"text": "after"}, timeout=T)


def test_die_after_ends_the_server_on_schedule_with_code_3():
    client = threaded("--die-after", "0.3")
    with client:
        started = time.monotonic()
        with pytest.raises(mcpsync.TransportClosed) as info:
            client.call_tool("sleep", {"seconds": 30}, timeout=T)
        assert time.monotonic() - started < T
        assert info.value.exit_code == 3 and "dying on schedule" in info.value.stderr_tail


def test_a_server_deaf_to_its_input_ending_is_ended_as_by_sigterm_and_leaves_no_thread():
    transport = ThreadedServerTransport.from_config(server_config(stderr="quiet"), exit_timeout=0.2)
    client = mcpsync.Client(transport)
    client.__enter__()
    client.send_request("tools/call", {"name": "sleep", "arguments": {"seconds": 60, "ignore_cancel": True}})
    started = time.monotonic()
    client.close()
    assert time.monotonic() - started < T
    assert transport.returncode == -signal.SIGTERM  # the leak check sees that its threads are gone


def test_a_config_that_needs_a_process_is_refused_in_words():
    transport = ThreadedServerTransport.from_config(server_config("--ignore-sigterm"))
    with pytest.raises(mcpsync.ConnectError, match="needs a process of its own"), mcpsync.Client(transport):
        pass


def test_wrong_options_are_a_connect_error_not_an_exit():
    transport = ThreadedServerTransport.from_config(server_config("--page-size", "many"))
    with pytest.raises(mcpsync.ConnectError, match="options"), mcpsync.Client(transport):
        pass


@pytest.mark.usefixtures("server_in_thread")
def test_the_fixture_serves_the_bundled_server_from_a_thread_and_other_commands_as_processes():
    with mcpsync.connect(server_config(), timeout=T) as client:
        assert isinstance(client.transport, ThreadedServerTransport)
    with mcpsync.connect(server_command("--ignore-sigterm"), timeout=T, stderr="quiet") as client:
        assert type(client.transport) is mcpsync.StdioTransport and client.transport.pid is not None


@pytest.mark.process
@pytest.mark.usefixtures("server_in_thread")
def test_a_test_marked_process_keeps_the_process():
    with mcpsync.connect(server_config(), timeout=T) as client:
        assert type(client.transport) is mcpsync.StdioTransport and client.transport.pid is not None
