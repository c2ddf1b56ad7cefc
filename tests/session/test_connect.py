"""``mcpsync.connect`` and the failures it explains: which HTTP transport to use when the type was not
given, what an HTTP refusal says, and what a stdio server that never answers sent instead (issue 16).

The HTTP tests run the bundled test server over HTTP: Streamable HTTP at ``/mcp``, HTTP+SSE at
``/sse`` (a POST there gets 405, as an HTTP+SSE-only server answers), an HTML 404 page elsewhere.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest

import mcpsync
from mcpsync import HTTPServerConfig, HTTPStatusError, ProtocolError, RequestTimeout, SSETransport
from mcpsync._wire.config import server_config_from, server_config_from_dict
from tests.http_server import running_http_server

#: Seconds of a handshake that should succeed.
T = 20.0
#: Why the tests of a server that never answers are slow.
WAITS_OUT_THE_HANDSHAKE = "a server that never answers: waits out the handshake's timeout (1 or 2 s)"


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    """The test server over HTTP, once for the module: ``http://127.0.0.1:PORT``."""
    with running_http_server() as url:
        yield url


# -- which type ------------------------------------------------------------------------------------


def test_config_parsing_records_whether_the_type_was_given():
    assert server_config_from("http://h/mcp").type_given is False
    assert server_config_from_dict({"url": "http://h/mcp"}).type_given is False
    assert server_config_from_dict({"type": "http", "url": "http://h/mcp"}).type_given is True
    assert server_config_from_dict({"type": "sse", "url": "http://h/sse"}).type_given is True
    assert HTTPServerConfig("http://h/mcp").type_given is True  # a config object says its type (the default)
    # Not part of equality: the same server either way.
    assert server_config_from("http://h/mcp") == HTTPServerConfig("http://h/mcp")


@pytest.mark.parametrize("protocol", ["auto", "legacy"])
@pytest.mark.parametrize("shape", ["url", "dict without type"])
def test_without_a_type_an_http_sse_server_is_reached_by_the_fallback(base, shape, protocol):
    """An HTTP+SSE-only endpoint refuses the POST with 405 (with ``"auto"`` the first POST is the
    ``server/discover`` probe): a bare URL and an entry without ``type`` both fall back to HTTP+SSE."""
    url = f"{base}/sse"
    target = url if shape == "url" else {"url": url}
    with mcpsync.connect(target, timeout=T, protocol=protocol) as client:
        assert type(client.transport) is SSETransport and client.era == "legacy"
        assert client.call_tool("echo", {"text": "old"}, timeout=T).text == "old"


def test_an_explicit_http_type_does_not_fall_back_and_names_the_other_type(base):
    with pytest.raises(HTTPStatusError) as info:
        mcpsync.connect({"type": "http", "url": f"{base}/sse"}, timeout=T)
    assert str(info.value) == (
        f'HTTP 405 from POST {base}/sse: Method Not Allowed (this looks like an HTTP+SSE server: use type "sse")'
    )
    assert (info.value.status_code, info.value.method, info.value.url) == (405, "POST", f"{base}/sse")


def test_an_explicit_sse_type_that_is_refused_names_the_other_type(base):
    with pytest.raises(HTTPStatusError) as info:
        mcpsync.connect({"type": "sse", "url": f"{base}/mcp"}, timeout=T)
    assert str(info.value).startswith(f"HTTP 405 from GET {base}/mcp: ")
    assert str(info.value).endswith('(this looks like a Streamable HTTP server: use type "http")')


# -- what an HTTP refusal says -----------------------------------------------------------------------


def test_a_wrong_path_says_which_request_once_and_briefly(base):
    """The URL lacks ``/mcp``: the server answers an HTML 404 page to both transports. The text names
    the request (no password, no query), asks about the path, quotes the page's words once, and says
    what HTTP+SSE got; the attributes keep the whole answer."""
    parts = urlsplit(base)
    secret_url = f"http://user:hunter2@{parts.netloc}/?api_key=s3cret"
    with pytest.raises(HTTPStatusError) as info:
        mcpsync.connect(secret_url, timeout=T)
    error = info.value
    shown = f"{base}/?..."
    assert str(error) == (
        f"HTTP 404 from POST {shown} (is the endpoint /mcp?): Cannot POST /; tried as HTTP+SSE too: "
        f"HTTP 404 from GET {shown}"
    )
    assert "hunter2" not in str(error) and "s3cret" not in str(error) and "user" not in str(error)
    assert (error.status_code, error.method, error.url) == (404, "POST", shown)
    assert "<pre>Cannot POST /</pre>" in error.body  # the body as it came
    assert error.www_authenticate is None and error.auth_server is None


def test_an_endless_html_page_is_cut_to_a_short_excerpt(base):
    """A long error page: the text keeps about 200 characters of its words, the tags left out."""
    with pytest.raises(HTTPStatusError) as info:
        mcpsync.connect({"type": "http", "url": f"{base}/{'x' * 500}"}, timeout=T)
    text = str(info.value)
    assert "<" not in text and text.endswith("...") and len(text) < len(base) + 500 + 300
    assert text.startswith(f"HTTP 404 from POST {base}/{'x' * 500} (is the endpoint /mcp?): Cannot POST /xxx")


# -- a stdio server that never answers ---------------------------------------------------------------


@pytest.mark.slow(WAITS_OUT_THE_HANDSHAKE)
@pytest.mark.parametrize("protocol", ["auto", "legacy", "modern"])
def test_a_server_that_writes_no_json_rpc_is_said_to_at_the_timeout(protocol):
    """A "server" that prints ``hello`` every 0.2 s and never answers: whichever request timed out last
    (the probe, ``initialize``), the timeout says what was written instead, and the stderr lines."""
    script = "echo starting up >&2; while true; do echo hello; sleep 0.2; done"
    with pytest.raises(RequestTimeout) as info:
        mcpsync.connect(["bash", "-c", script], timeout=2, protocol=protocol)
    error = info.value
    assert error.timeout == 2 and error.method == ("server/discover" if protocol == "modern" else "initialize")
    assert "lines that are not JSON-RPC to stdout, for example 'hello'" in error.detail
    assert str(error).startswith(f"Request timeout after 2s ({error.method}): the server wrote ")
    assert error.stderr_tail == ("starting up",)
    assert str(error).endswith("last stderr lines of the server:\n  starting up")


@pytest.mark.slow(WAITS_OUT_THE_HANDSHAKE)
def test_a_silent_server_is_said_to_have_written_nothing():
    with pytest.raises(RequestTimeout, match=r"^Request timeout after 1s \(initialize\): the server wrote nothing"):
        mcpsync.connect([sys.executable, "-c", "import time; time.sleep(30)"], timeout=1)


@pytest.mark.parametrize("protocol", ["auto", "legacy"])
def test_a_server_that_echoes_our_messages_is_told_apart(protocol):
    """``cat`` as a server: our first request comes back as a request. Said at once, not answered with
    our own "method not found" (which cat would echo back as the server's answer)."""
    with pytest.raises(ProtocolError, match=r"the server echoed our messages back .*: is it an MCP server\?"):
        mcpsync.connect("cat", timeout=2, protocol=protocol)


# -- one meaning of timeout; the transport's options as keywords (issue 23) --------------------------


@pytest.mark.slow("waits out a 1 s call timeout, then a 1.5 s tool call, on a server process")
def test_the_timeout_given_to_connect_bounds_every_request_and_a_call_may_override_it():
    """``connect(cmd, timeout=1)`` makes 1 s the client's default for every request, not only the
    handshake (a 3 s tool call times out after 1 s); ``timeout=`` on a call overrides it;
    ``connect_timeout`` bounds connecting alone (20 s here, so that a slow start does not fail)."""
    from mcpsync.testing import server_command

    with mcpsync.connect(server_command(), timeout=1.0, connect_timeout=T) as client:
        assert client.transport.default_timeout == 1.0
        with pytest.raises(RequestTimeout) as info:
            client.call_tool("sleep", {"seconds": 3})
        assert info.value.timeout == 1.0
        assert client.call_tool("sleep", {"seconds": 1.5}, timeout=T).is_error is False


def test_connect_timeout_bounds_the_handshake_alone():
    """A server that never answers: ``connect_timeout=0.5`` ends the handshake at 0.5 s, whatever the
    (longer) request timeout; from a config entry, ``connectTimeout`` is milliseconds."""
    silent = [sys.executable, "-c", "import time; time.sleep(30)"]
    with pytest.raises(RequestTimeout) as info:
        mcpsync.connect(silent, timeout=T, connect_timeout=0.5)
    assert info.value.timeout == 0.5
    entry = server_config_from_dict({"command": "x", "timeout": 60000, "connectTimeout": 5000})
    assert (entry.timeout, entry.connect_timeout) == (60.0, 5.0)


def test_a_config_timeout_that_looks_like_seconds_gets_a_warning_naming_the_unit():
    """``"timeout": 30`` in an mcpServers entry is 30 ms, surely meant as 30 s: a ConfigurationWarning
    says the unit and what to write; 30000 gets none."""
    with pytest.warns(mcpsync.ConfigurationWarning, match=r"'timeout' is 30 milliseconds .*write 30000"):
        config = server_config_from_dict({"command": "x", "timeout": 30}, "slow")
    assert config.timeout == 0.03
    server_config_from_dict({"command": "x", "timeout": 30000})  # no warning (warnings are errors here)


def test_the_unit_warning_points_at_the_users_line_and_the_timeout_says_where_it_came_from(tmp_path):
    """Issue 37, point 11: a file read by ``Manager.from_config`` with ``"timeout": 30``: the warning
    names this file's line (not mcpsync's), and the timeout that follows says the value was
    milliseconds from the configuration."""
    import json

    from mcpsync.testing import server_config

    bundled = server_config()
    path = tmp_path / "mcp.json"
    entry = {"command": bundled.command, "args": list(bundled.args), "timeout": 30}
    path.write_text(json.dumps({"mcpServers": {"s": entry}}))
    with pytest.warns(mcpsync.ConfigurationWarning, match="'timeout' is 30 milliseconds") as caught:
        manager = mcpsync.Manager.from_config(path, tool_cache=False, startup_timeout=T)
    with manager:
        assert [w.filename for w in caught] == [__file__]
        status = manager.status()["s"]
    assert status.state is mcpsync.ServerState.FAILED
    assert "Request timeout after 0.03s" in status.error
    assert "the configured 'timeout' 30 is milliseconds: 30 seconds is 30000" in status.error


def test_a_command_takes_env_and_cwd_as_keywords(tmp_path):
    """``connect([cmd], env={...}, cwd=...)`` (a TypeError before): the server runs in ``cwd`` and sees ``env``."""
    from mcpsync.testing import server_command

    with mcpsync.connect(server_command(), env={"MCPSYNC_GIVEN": "yes"}, cwd=str(tmp_path), timeout=T) as client:
        found = client.call_tool("environment", {"names": ["MCPSYNC_GIVEN"]}).structured_content
    assert found == {"cwd": str(tmp_path), "env": {"MCPSYNC_GIVEN": "yes"}}


def test_a_url_takes_headers_as_a_keyword(base):
    """``connect(url, headers={...})``: the transport sends them (as HTTPServerConfig's ``headers``)."""
    with mcpsync.connect(f"{base}/mcp", headers={"X-Team": "blue"}, timeout=T) as client:
        assert client.transport.headers == {"X-Team": "blue"}
        assert client.call_tool("echo", {"text": "hi"}).text == "hi"


def test_a_keyword_that_does_not_fit_the_target_is_named():
    """``env=`` for a URL, ``headers=`` for a command: a ConfigurationError naming the keyword and what
    the target takes, before anything starts."""
    with pytest.raises(
        mcpsync.ConfigurationError, match=r"env= does not fit a URL \(an HTTP server\), which takes headers="
    ):
        mcpsync.connect("http://127.0.0.1:1/mcp", env={"A": "1"})
    with pytest.raises(mcpsync.ConfigurationError, match=r"headers= does not fit a command .* which takes env=, cwd="):
        mcpsync.connect(["python", "server.py"], headers={"A": "1"})


def test_what_a_helper_passes_for_every_server_is_ignored_for_a_url(server_in_thread):
    """Issue 37, point 13: ``stderr="quiet"`` (any mode, as ``Manager(stderr=)`` takes it) and the stdio
    options at their defaults (``env=None``, ``cwd=None``, ``inherit_env=False``) mean nothing for a
    URL and are ignored; a mode that is none, and a real ``env``, are still refused."""
    from tests.http_server import running_http_server

    with running_http_server() as base:
        with mcpsync.connect(base + "/mcp", stderr="quiet", env=None, cwd=None, inherit_env=False, timeout=T) as client:
            assert client.call_tool("echo", {"text": "hi"}, timeout=T).text == "hi"
    with pytest.raises(mcpsync.ConfigurationError, match=r"stderr= must be one of \('inherit', 'log', 'quiet'\)"):
        mcpsync.connect("http://127.0.0.1:1/mcp", stderr="loud")
    with pytest.raises(mcpsync.ConfigurationError, match="inherit_env= does not fit a URL"):
        mcpsync.connect("http://127.0.0.1:1/mcp", inherit_env=True)


def fallback_timeout(monkeypatch: pytest.MonkeyPatch, first_attempt: float, person: float) -> float:
    """The timeout ``handshake`` gives the HTTP+SSE attempt when ``timeout=10`` and the Streamable HTTP
    attempt took ``first_attempt`` seconds of the clock, ``person`` of them a person's (logging in),
    before its POST was refused with 405."""
    import types

    import mcpsync._core.timeouts as timeouts_module
    from mcpsync._session.connect import handshake

    real = timeouts_module.time.monotonic
    late = [0.0]
    monkeypatch.setattr(timeouts_module, "time", types.SimpleNamespace(monotonic=lambda: real() + late[0]))
    given: list[float] = []

    class Streamable:
        name = "s"
        transport = types.SimpleNamespace(default_timeout=10.0)
        _channel = types.SimpleNamespace(person_time=0.0)

        def initialize(self, *, timeout: float) -> None:
            late[0] += first_attempt
            self._channel.person_time += person
            raise HTTPStatusError("HTTP 405", status_code=405)

    class Sse:
        def initialize(self, *, timeout: float) -> None:
            given.append(timeout)

    config = HTTPServerConfig(url="http://mcp.test/mcp", type_given=False)
    handshake(Streamable(), config, 10.0, lambda _: Sse())  # type: ignore[arg-type]
    assert len(given) == 1, given
    return given[0]


def test_the_http_sse_fallback_after_a_login_keeps_the_callers_time(monkeypatch) -> None:
    """Scenario: a URL without type; the Streamable HTTP attempt has a person log in (50 s of the
    clock), then its POST is refused with 405, so the HTTP+SSE transport is tried. Promise: that
    attempt gets the caller's timeout, not what the person's time left of it (it got 0 s)."""
    assert 9.0 < fallback_timeout(monkeypatch, first_attempt=50.0, person=50.0) <= 10.0


def test_the_http_sse_fallback_shares_the_callers_deadline_with_the_first_attempt(monkeypatch) -> None:
    """Scenario: a URL without type, ``timeout=10``; the Streamable HTTP attempt takes 4 s of the clock
    (nobody logs in), then its POST is refused with 405. Promise: the HTTP+SSE attempt gets the 6 s left,
    not the whole 10 s again (a mutant giving it the whole timeout made ``connect(url, timeout=2)`` take
    3.9 s; the test above, where the time went to a person, cannot tell the two apart)."""
    assert 5.0 < fallback_timeout(monkeypatch, first_attempt=4.0, person=0.0) <= 6.0


@pytest.mark.parametrize(
    ("label", "program"),
    [
        ("exits on SIGTERM", "import time; time.sleep(60)"),
        ("ignores SIGTERM", "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(60)"),
    ],
)
@pytest.mark.slow(WAITS_OUT_THE_HANDSHAKE)
def test_a_handshake_timeout_bounds_the_whole_call_the_reaping_included(label: str, program: str) -> None:
    """A stdio server that never answers and does not exit when its stdin closes: ``connect(timeout=2)``
    raises its RequestTimeout within the 2 s and a short moment (SIGTERM's, then SIGKILL), not after
    the 2 s of ``exit_timeout`` on top (5 s before the fix for timeout=3: issue 29). The process is
    gone when it returns (the leak fixture checks)."""
    import time

    started = time.monotonic()
    with pytest.raises(RequestTimeout, match=r"after 2s"):
        mcpsync.connect([sys.executable, "-c", program], timeout=2)
    elapsed = time.monotonic() - started
    assert 1.9 <= elapsed < 2.9, f"{label}: connect(timeout=2) returned after {elapsed:.2f}s"
