"""mcpsync._edges.logs: ``mcpsync.show_logs`` shows mcpsync's and the servers' logs on the current stderr."""

from __future__ import annotations

import logging

import pytest

import mcpsync
from mcpsync._edges import logs
from mcpsync.testing import server_config
from tests.edges.test_terminal_safety import SERVER
from tests.helpers import wait_for

T = 20.0


@pytest.fixture
def client():
    # Legacy: the server sends its log messages unasked (a modern one only to requests that ask for a level).
    with mcpsync.connect(server_config("--legacy-only", name="watched"), timeout=T) as connected:
        yield connected


@pytest.fixture(autouse=True)
def restore_logging():
    yield
    if logs._handler is not None:
        logging.getLogger("mcpsync").removeHandler(logs._handler)
        logs._handler = None
    logging.getLogger("mcpsync").setLevel(logging.NOTSET)
    logging.getLogger("mcpsync.traffic").setLevel(logging.NOTSET)


def test_show_logs_prints_server_stderr_and_log_messages(client, capsys):
    mcpsync.show_logs("INFO")
    handler = mcpsync.show_logs("INFO")  # a second call adds no second handler
    assert logging.getLogger("mcpsync").handlers.count(handler) == 1
    client.call_tool("stderr", {"text": "from the server's stderr"})
    client.call_tool("log", {"message": "a log message", "level": "warning"})
    shown: list[str] = []

    def both_shown() -> bool:
        shown.append(capsys.readouterr().err)  # the lines arrive on the client's threads
        return "from the server's stderr" in "".join(shown) and "a log message" in "".join(shown)

    assert wait_for(both_shown)
    assert "WARNING mcpsync.server.watched: [mcpsync-test-server] a log message" in "".join(shown)


def test_show_logs_with_traffic_shows_protocol_messages(client, capsys):
    mcpsync.show_logs("WARNING", traffic=True)
    client.call_tool("echo", {"text": "traffic"})
    err = capsys.readouterr().err
    assert '"method": "tools/call"' in err or '"method":"tools/call"' in err
    assert "mcpsync.traffic" in err
    with pytest.raises(ValueError, match="unknown logging level"):
        mcpsync.show_logs("LOUD")


def test_show_logs_shows_a_servers_escape_sequences_escaped(capsys):
    """On a terminal, what a server controls (its stderr with ``stderr="log"``, its log messages) is
    shown with its escape sequences escaped (tests/edges/test_terminal_safety.py has the rest)."""
    mcpsync.show_logs("INFO")
    with mcpsync.connect(mcpsync.StdioServerConfig(SERVER[0], SERVER[1:], stderr="log"), timeout=T) as client:
        client.call_tool("show", timeout=T)
    err = capsys.readouterr().err
    assert "starting \\x1b]0;pwned title\\x07" in err and "\\x9b31m" in err
    assert "\x1b" not in err and "\x9b" not in err and "\u202e" not in err
