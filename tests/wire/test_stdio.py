"""mcpsync._wire.stdio against real child processes: life, faults, shutdown."""

import io
import json
import os
import signal
import subprocess
import sys
import threading
import time
import traceback
import warnings

import pytest

import mcpsync
from mcpsync import ConnectError, InvalidMessage, RequestTimeout, TransportClosed
from mcpsync._core.pending import RequestFuture
from mcpsync._wire import StdioTransport
from mcpsync.testing import server_command, server_config
from tests.helpers import ctrl_c_after, in_flight
from tests.wire.helpers import Wired

CALL_TIMEOUT = 20

_opened: list[Wired] = []


@pytest.fixture(autouse=True)
def close_transports():
    """Close what a test opened even when it fails half-way, so one failure is not also a leak."""
    yield
    while _opened:
        _opened.pop().close()


def started(*options: str, on_error=None, **kwargs) -> Wired:
    command, *args = server_command(*options)
    transport = Wired(StdioTransport(command, args, name="t", **kwargs), on_error=on_error)
    _opened.append(transport)
    transport.start()
    transport.request(
        "initialize",
        {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}},
        timeout=CALL_TIMEOUT,
    )
    return transport


def call(transport: StdioTransport, tool: str, timeout=CALL_TIMEOUT, **arguments):
    return transport.request("tools/call", {"name": tool, "arguments": arguments}, timeout=timeout)


def test_threads_are_named_after_the_server_and_joined_on_close():
    transport = started()
    names = {t.name for t in threading.enumerate()}
    assert {"mcpsync-reader-t", "mcpsync-stderr-t"} <= names
    assert transport.is_connected and transport.pid is not None
    transport.close()
    transport.close()  # idempotent
    assert not transport.is_connected
    assert transport.returncode == 0, "closing stdin lets a well-behaved server exit by itself"
    assert not any(t.name.endswith("-t") and t.name.startswith("mcpsync-") for t in threading.enumerate())


def test_missing_command_is_a_connect_error_naming_it():
    transport = Wired(StdioTransport("/nonexistent/mcp-server", name="ghost"))
    with pytest.raises(ConnectError) as info:
        transport.start()
    assert "'ghost'" in str(info.value) and "/nonexistent/mcp-server" in str(info.value)
    transport.close()


def test_server_exit_mid_call_fails_the_call_at_once_with_exit_code_and_stderr():
    """The server dies while a call is running: the caller hears within a second, with the why."""
    transport = started()
    slow = transport.send_request("tools/call", {"name": "sleep", "arguments": {"seconds": 30}})
    call(transport, "stderr", text="about to go")
    crash = transport.send_request("tools/call", {"name": "crash", "arguments": {"code": 3, "message": "bye now"}})
    for future in (slow, crash):
        with pytest.raises(TransportClosed) as info:
            future.result(timeout=1.0)
        assert info.value.exit_code == 3
        assert "exited with code 3" in str(info.value)
        assert "bye now" in str(info.value) and "about to go" in info.value.stderr_tail
    with pytest.raises(TransportClosed):
        call(transport, "echo", text="after death")
    transport.close()


def test_server_that_ignores_sigterm_is_killed_and_reaped():
    transport = started("--ignore-sigterm", exit_timeout=0.2, terminate_timeout=0.5)
    # Keep it busy so that closing stdin does not end it either.
    transport.send_request("tools/call", {"name": "sleep", "arguments": {"seconds": 60, "ignore_cancel": True}})
    transport.close()
    assert transport.returncode == -signal.SIGKILL


def test_children_of_the_server_are_stopped_with_it(tmp_path):
    """npx-style servers run the real server as a grandchild: it must not outlive close()."""
    pid_file = tmp_path / "grandchild.pid"
    code = (
        "import subprocess, sys, runpy\n"
        "child = subprocess.Popen(['sleep', '60'])\n"
        f"open({str(pid_file)!r}, 'w').write(str(child.pid))\n"
        "sys.argv = ['mcpsync.testing']\n"
        "runpy.run_module('mcpsync.testing', run_name='__main__')\n"
    )
    transport = Wired(StdioTransport(sys.executable, ["-c", code], name="parent"))
    transport.start()
    transport.request("ping", timeout=CALL_TIMEOUT)
    grandchild = int(pid_file.read_text())
    transport.close()
    # Dead once a zombie: whoever adopted it (PID 1, a sandbox's init) may take a second to reap it.
    if not _gone(grandchild):
        os.kill(grandchild, signal.SIGKILL)
        pytest.fail("the server's own child survived close()")


def test_stderr_flood_never_blocks_the_server(caplog):
    """2 MB of stderr in one call (stderr="log"): our reader drains it; the tail keeps only the last lines."""
    transport = started(stderr="log")
    with caplog.at_level("INFO", logger="mcpsync.server.t"):
        result = call(transport, "stderr", text="x" * 100, lines=20000)
        assert result["content"][0]["text"] == "wrote 20000 lines"
        call(transport, "stderr", text="the last line")
        deadline = time.monotonic() + 5
        while transport.stderr_tail[-1:] != ("the last line",) and time.monotonic() < deadline:
            time.sleep(0.02)
    assert transport.stderr_tail[-1] == "the last line"
    assert len(transport.stderr_tail) <= 20
    assert any(r.name == "mcpsync.server.t" and r.getMessage() == "the last line" for r in caplog.records)
    transport.close()


def wait_for_tail(transport, line: str) -> None:
    """Wait (bounded) until ``line`` is the last of the server's stderr we read."""
    deadline = time.monotonic() + 5
    while transport.stderr_tail[-1:] != (line,) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert transport.stderr_tail[-1:] == (line,)


def test_stderr_reaches_our_stderr_by_default_with_the_servers_name(capsys, caplog):
    """By default (stderr="inherit") each line the server writes to stderr appears on ours, one line at
    a time, ``[name] `` in front, through the ``sys.stderr`` of the moment (here pytest's capture of
    this test), and not in the log; the tail for errors keeps it too."""
    transport = started()
    with caplog.at_level("INFO", logger="mcpsync.server.t"):
        call(transport, "stderr", text="why I fail")
        wait_for_tail(transport, "why I fail")
    assert "[t] why I fail\n" in capsys.readouterr().err
    assert not [r for r in caplog.records if r.name == "mcpsync.server.t"]


def test_stderr_follows_sys_stderr_as_it_changes(monkeypatch):
    """A line goes to whatever ``sys.stderr`` is when it arrives (a notebook's cell, a redirect), not to the
    stream of the moment the server started."""
    transport = started()
    elsewhere = io.StringIO()
    monkeypatch.setattr(sys, "stderr", elsewhere)
    call(transport, "stderr", text="after the redirect")
    wait_for_tail(transport, "after the redirect")
    assert elsewhere.getvalue() == "[t] after the redirect\n"


@pytest.mark.parametrize("mode", ["log", "quiet"])
def test_stderr_log_and_quiet(mode, capsys, caplog):
    """stderr="log" sends the lines to ``mcpsync.server.<name>`` at INFO and not to our stderr;
    "quiet" sends them nowhere; both keep the tail."""
    transport = started(stderr=mode)
    with caplog.at_level("INFO", logger="mcpsync.server.t"):
        call(transport, "stderr", text="a line")
        wait_for_tail(transport, "a line")
    assert "a line" not in capsys.readouterr().err
    logged = [r.getMessage() for r in caplog.records if r.name == "mcpsync.server.t"]
    assert logged == (["a line"] if mode == "log" else [])


def test_a_stderr_mode_that_does_not_exist_is_refused():
    """A mistyped mode is a ConfigurationError that lists the modes, before anything starts."""
    with pytest.raises(mcpsync.ConfigurationError, match="'inherit', 'log', 'quiet'"):
        StdioTransport("python", stderr="loud")
    with pytest.raises(mcpsync.ConfigurationError, match="stderr= is for a stdio server"):
        mcpsync.Client(mcpsync.create_transport("http://127.0.0.1:1/mcp"), stderr="quiet")


def test_garbage_invalid_and_unknown_id_are_counted_logged_and_skipped(caplog):
    """Each kind is counted, logged, told to ``on_error``, and warned of (a ProtocolWarning); the
    connection goes on."""
    problems = []
    transport = started(on_error=problems.append)
    with caplog.at_level("WARNING", logger="mcpsync.transport"), pytest.warns(mcpsync.ProtocolWarning):
        for kind in ("garbage", "invalid", "unknown_id"):
            assert call(transport, "misbehave", kind=kind)["content"][0]["text"] == f"sent {kind}"
    stats = transport.stats
    assert (stats.malformed, stats.invalid, stats.unmatched_responses) == (1, 1, 1)
    assert [type(p) for p in problems] == [InvalidMessage] * 3
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "this is not json {" in logged
    assert "42 is not of type 'string' (at $.method)" in logged
    assert "response to no request we sent" in logged and "987654321" in logged
    assert call(transport, "echo", text="still fine")["content"][0]["text"] == "still fine"
    transport.close()


def test_the_first_skipped_message_of_each_kind_is_a_warning_and_the_rest_are_counted():
    """Never silent without logging set up: the first line of junk, the first invalid message and the
    first stray response of a connection each give one ``mcpsync.ProtocolWarning`` that says what was
    skipped; the second of each is counted only."""
    transport = started()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for kind in ("garbage", "invalid", "unknown_id") * 2:
            call(transport, "misbehave", kind=kind)
        call(transport, "echo", text="after")  # its answer follows every line above: all were read
    ours = [str(w.message) for w in caught if issubclass(w.category, mcpsync.ProtocolWarning)]
    assert len(ours) == 3, ours
    assert "server 't' sent output that is not JSON-RPC, which was skipped" in ours[0]
    assert "this is not json {" in ours[0] and "stats.malformed" in ours[0]
    assert "fails the JSON-RPC schema" in ours[1] and "stats.invalid" in ours[1]
    assert "a response to no request" in ours[2] and "stats.unmatched_responses" in ours[2]
    stats = transport.stats
    assert (stats.malformed, stats.invalid, stats.unmatched_responses) == (2, 2, 2)
    transport.close()


def test_a_protocol_warning_reaches_a_script_with_nothing_set_up():
    """A plain script (no logging configured, Python's default warning filters) that meets a server
    writing junk twice shows one line about it on stderr."""
    script = (
        "import mcpsync\n"
        "from mcpsync.testing import server_command\n"
        "with mcpsync.connect(server_command(), timeout=20) as client:\n"
        "    client.call_tool('misbehave', {'kind': 'garbage'})\n"
        "    client.call_tool('misbehave', {'kind': 'garbage'})\n"
        "    client.call_tool('echo', {'text': 'done'})\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONWARNINGS"}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if "ProtocolWarning" in line]
    assert len(lines) == 1, done.stderr
    assert "sent output that is not JSON-RPC" in lines[0] and "'this is not json {'" in lines[0]


def test_invalid_response_to_a_pending_request_fails_it_at_once():
    transport = started()
    with pytest.raises(InvalidMessage) as info:
        call(transport, "misbehave", timeout=CALL_TIMEOUT, kind="bad_response")
    assert "'not an object' is not of type 'object' (at $.result)" in str(info.value)
    assert len(transport.endpoint.pending) == 0
    transport.close()


def test_timeout_cancels_on_the_server_and_the_late_response_is_dropped():
    transport = started()
    with pytest.raises(RequestTimeout) as info:
        call(transport, "sleep", timeout=0.2, seconds=0.6, ignore_cancel=True)
    assert isinstance(info.value, TimeoutError)
    assert "Request timeout after 0.2s" in str(info.value)
    assert len(transport.endpoint.pending) == 0
    cancelled = call(transport, "cancelled_requests")["structuredContent"]["cancelled"]
    assert len(cancelled) == 1
    deadline = time.monotonic() + 5
    while transport.stats.late_responses == 0 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert transport.stats.late_responses == 1
    assert transport.stats.unmatched_responses == 0
    transport.close()


def test_future_cancel_tells_the_server():
    transport = started()
    future = transport.send_request("tools/call", {"name": "sleep", "arguments": {"seconds": 30}})
    assert future.cancel()
    assert len(transport.endpoint.pending) == 0
    cancelled = call(transport, "cancelled_requests")["structuredContent"]["cancelled"]
    assert cancelled == [future.request_id]
    transport.close()


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="needs the main thread")
def test_keyboard_interrupt_while_waiting_cancels_the_request():
    """Ctrl-C during a blocking call: KeyboardInterrupt promptly, the server told, the transport usable."""
    transport = started()
    with ctrl_c_after(0.1, when=in_flight(transport)):
        call(transport, "sleep", seconds=30)
    assert len(transport.endpoint.pending) == 0
    cancelled = call(transport, "cancelled_requests")["structuredContent"]["cancelled"]
    assert len(cancelled) == 1
    transport.close()


def test_close_fails_pending_requests_and_later_sends():
    transport = started()
    future = transport.send_request("tools/call", {"name": "sleep", "arguments": {"seconds": 30}})
    transport.close()
    with pytest.raises(TransportClosed, match="closed by the client"):
        future.result(timeout=1)
    with pytest.raises(TransportClosed):
        transport.send_request("ping")
    with pytest.raises(TransportClosed):
        transport.notify("notifications/initialized")


def test_close_cancels_what_is_in_flight_on_the_wire(tmp_path):
    """Closing with a call in flight tells the server, then fails the call; its late answer is not a stray."""
    from tests.helpers import scripted_server

    log = tmp_path / "received.jsonl"
    command, *args = scripted_server({"tools/call": ["silent"]}, log)
    transport = Wired(StdioTransport(command, args, name="s"))
    transport.start()
    transport.request("initialize", {}, timeout=CALL_TIMEOUT)
    future = transport.send_request("tools/call", {"name": "x"})
    transport.close()
    with pytest.raises(TransportClosed):
        future.result(timeout=1)
    sent = [json.loads(line) for line in log.read_text().splitlines()]
    assert sent[-1] == {
        "jsonrpc": "2.0",
        "method": "notifications/cancelled",
        "params": {"requestId": future.request_id, "reason": "the client is closing"},
    }
    assert transport.stats.cancelled == 1


def test_concurrent_close_from_many_threads():
    transport = started()
    threads = [threading.Thread(target=transport.close) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert not any(t.is_alive() for t in threads)
    assert transport.returncode is not None


def test_environment_is_the_safe_default_plus_configured(monkeypatch, tmp_path):
    monkeypatch.setenv("MCPSYNC_TEST_SECRET", "hush")
    names = ["MCPSYNC_TEST_SECRET", "EXTRA", "PATH"]
    transport = started(env={"EXTRA": "1"}, cwd=str(tmp_path))
    found = call(transport, "environment", names=names)["structuredContent"]
    transport.close()
    assert found["env"] == {"MCPSYNC_TEST_SECRET": None, "EXTRA": "1", "PATH": os.environ["PATH"]}
    assert os.path.samefile(found["cwd"], tmp_path)

    transport = started(inherit_env=True)
    found = call(transport, "environment", names=names)["structuredContent"]
    transport.close()
    assert found["env"]["MCPSYNC_TEST_SECRET"] == "hush"


def test_params_must_be_a_dict_and_json():
    transport = started()
    with pytest.raises(TypeError, match="params must be a dict"):
        transport.send_request("x", ["not", "a", "dict"])  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        transport.send_request("x", {"n": float("nan")})
    assert len(transport.endpoint.pending) == 0
    transport.close()


def test_server_closing_stdout_while_alive_is_reported(tmp_path):
    code = "import os, sys, time\nos.close(1)\nsys.stderr.write('closed my stdout\\n')\nsys.stderr.flush()\ntime.sleep(30)\n"
    transport = Wired(StdioTransport(sys.executable, ["-c", code], name="mute", exit_timeout=0.2, terminate_timeout=1))
    transport.start()
    deadline = time.monotonic() + 10
    while not transport.recorder.closed_with and time.monotonic() < deadline:
        time.sleep(0.02)
    errors = transport.recorder.closed_with
    assert isinstance(errors[0], TransportClosed)
    assert "closed its stdout but is still running" in str(errors[0])
    transport.close()
    assert transport.returncode == -signal.SIGTERM


def test_create_transport_picks_stdio_for_a_stdio_config():
    transport = mcpsync.create_transport(server_config(name="picked"))
    assert isinstance(transport, StdioTransport) and transport.name == "picked"
    transport.close()  # never started: closing is still fine


def test_many_threads_share_one_transport_and_each_gets_its_own_answer():
    """16 threads x 200 calls on one client: every caller gets its own answer, by content."""
    with mcpsync.connect(server_config(timeout=CALL_TIMEOUT)) as client:
        wrong: list[tuple[str, str]] = []
        failures: list[BaseException] = []

        def worker(n: int) -> None:
            try:
                for i in range(200):
                    text = f"{n}-{i}"
                    got = client.call_tool("echo", {"text": text}).text
                    if got != text:
                        wrong.append((text, got))
            except BaseException as exc:  # pragma: no cover - reported below
                failures.append(exc)

        threads = [threading.Thread(target=worker, args=(n,)) for n in range(16)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        assert not any(t.is_alive() for t in threads)
        assert failures == [] and wrong == []
        assert client.transport.stats.sent >= 3200


DEAF_SERVER = """
import json, sys, time
line = sys.stdin.readline()
request = json.loads(line)
sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": {}}) + "\\n")
sys.stdout.flush()
time.sleep(60)  # never reads stdin again
"""


def test_a_server_that_stops_reading_cannot_block_callers_or_close():
    """A 2 MB call to a server that no longer reads: bounded failure, and close() still returns promptly."""
    transport = Wired(
        StdioTransport(
            sys.executable, ["-c", DEAF_SERVER], name="deaf", write_timeout=0.5, exit_timeout=0.2, terminate_timeout=1
        )
    )
    _opened.append(transport)
    transport.start()
    transport.request("initialize", {}, timeout=CALL_TIMEOUT)
    with pytest.raises(TransportClosed, match="stopped reading its input in the middle of a message"):
        transport.request("tools/call", {"name": "echo", "arguments": {"text": "a" * 2_000_000}}, timeout=5)
    assert not transport.is_connected, "half a message on the wire: the connection is given up"
    with pytest.raises(TransportClosed, match="middle of a message"):
        transport.request("ping", timeout=5)
    transport.close()
    assert transport.returncode is not None


def test_a_write_that_cannot_start_in_time_is_a_write_timeout():
    """Nothing written yet: WriteTimeout (also a TimeoutError), and the connection stays usable."""
    transport = started(write_timeout=0.2)
    with transport._write_lock:  # as if another writer were stuck on a full pipe
        with pytest.raises(
            mcpsync.WriteTimeout, match=r"could not start writing within 0\.2s: other writes held the server.s input"
        ) as info:
            transport.notify("notifications/roots/list_changed")
    assert isinstance(info.value, TimeoutError)
    assert call(transport, "echo", text="fine")["content"][0]["text"] == "fine"


@pytest.mark.slow("waits out READER_JOIN (1 s) before the SIGKILL to the child that holds the pipes")
def test_a_child_that_ignores_sigterm_and_holds_the_pipes_is_killed(tmp_path):
    """The server exits but leaves a child holding its stdout/stderr and ignoring SIGTERM: no leak."""
    pid_file = tmp_path / "child.pid"
    code = (
        "import subprocess, sys, runpy\n"
        "child = subprocess.Popen(['sh', '-c', 'trap \"\" TERM; sleep 60 & wait; sleep 60'])\n"
        f"open({str(pid_file)!r}, 'w').write(str(child.pid))\n"
        "sys.argv = ['mcpsync.testing']\n"
        "runpy.run_module('mcpsync.testing', run_name='__main__')\n"
    )
    transport = Wired(StdioTransport(sys.executable, ["-c", code], name="holder", terminate_timeout=0.5))
    _opened.append(transport)
    transport.start()
    transport.request("ping", timeout=CALL_TIMEOUT)
    child = int(pid_file.read_text())
    transport.close()
    assert not any(t.name.endswith("-holder") for t in threading.enumerate())
    assert _gone(child)


def _gone(pid: int, within: float = 5.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:
                if f.read().rsplit(b")", 1)[1].split()[0] == b"Z":
                    return True  # a zombie waiting for init: dead
        except OSError:
            return True
        time.sleep(0.05)
    return False


def test_a_second_close_waits_for_the_first():
    transport = started(exit_timeout=0.3)
    transport.send_request("tools/call", {"name": "sleep", "arguments": {"seconds": 60, "ignore_cancel": True}})
    seen = []
    threads = [
        threading.Thread(target=lambda: (transport.close(), seen.append(transport.returncode))) for _ in range(3)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    assert len(seen) == 3 and None not in seen, "every close() returns only when the server is reaped"


SETSID_HELPER = """
import os, runpy, subprocess, sys
# A helper that leaves the server's process group (setsid) and keeps its stdout and stderr open.
helper = subprocess.Popen(["sleep", "60"], start_new_session=True, stdout=sys.stdout, stderr=sys.stderr)
open(sys.argv[1], "w").write(str(helper.pid))
sys.argv = ["mcpsync.testing"]
runpy.run_module("mcpsync.testing", run_name="__main__")
"""


@pytest.mark.slow("waits out READER_JOIN (1 s) twice before it stops the readers")
def test_close_returns_in_time_though_a_setsid_helper_holds_the_pipes(tmp_path):
    """The helper is out of reach of the process-group signals: close() must still end the readers
    and close every descriptor of ours, within its bound (it took 8 s and left both threads)."""
    pid_file = tmp_path / "helper.pid"
    transport = Wired(StdioTransport(sys.executable, ["-c", SETSID_HELPER, str(pid_file)], name="holder"))
    transport.start()
    try:
        transport.request("ping", timeout=CALL_TIMEOUT)
        helper = int(pid_file.read_text())
        started = time.monotonic()
        transport.close()
        assert time.monotonic() - started < 6
        assert not any(t.name.endswith("-holder") for t in threading.enumerate() if t.is_alive())
    finally:
        transport.close()
        if pid_file.exists():
            try:
                os.kill(int(pid_file.read_text()), signal.SIGKILL)
            except ProcessLookupError:
                pass
    assert helper > 0


def test_a_server_that_exits_at_once_is_reported_with_its_exit_code_and_stderr_every_time():
    """Exit code 3 before reading anything: the handshake's write may meet a broken pipe, and the
    error must still say why (in 7 of 20 connects it said only 'Broken pipe')."""
    code = "import sys; sys.stderr.write('config missing\\n'); sys.exit(3)"
    for _ in range(20):
        with pytest.raises(TransportClosed) as info:
            mcpsync.connect([sys.executable, "-c", code], timeout=CALL_TIMEOUT)
        assert info.value.exit_code == 3, str(info.value)
        assert "config missing" in info.value.stderr_tail


def _framed(transport: StdioTransport, body: bytes, size: int) -> list:  # type: ignore[type-arg]
    """What ``_read_lines`` hands on for ``body`` read ``size`` bytes at a time."""
    got: list = []  # type: ignore[type-arg]
    transport._feed = got.append  # type: ignore[method-assign]
    transport._read_lines(iter([body[i : i + size] for i in range(0, len(body), size)]))
    return got


def test_lines_are_framed_alike_whatever_the_reads_cut_with_crlf_and_characters_split_across_reads():
    """A line that spans reads is put together in one buffer and handed on as its text: the same
    messages for every chunking, a CRLF line end and a multi-byte character cut between two reads
    included; a blank line is no message."""
    transport = StdioTransport("unused")
    big = json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"t": "é€😀x" * 50_000}}, ensure_ascii=False)
    body = (big + "\r\n" + '{"jsonrpc":"2.0","id":2,"result":{}}\n \r\n' + big + "\n").encode()
    small = {"jsonrpc": "2.0", "id": 2, "result": {}}
    for size in (3, 4096, 65536, len(body)):
        got = _framed(transport, body, size)
        assert [json.loads(line) for line in got] == [json.loads(big), small, json.loads(big)], size


def test_a_long_line_that_is_not_utf8_is_handed_on_as_bytes_and_one_over_the_limit_not_at_all():
    """Not UTF-8: the endpoint gets the bytes, to say what is wrong as of any line; a line over
    ``max_message_size`` that spans reads is dropped as it goes by, and the next line is read."""
    transport = StdioTransport("unused", max_message_size=100_000)
    bad = b'{"x":"' + b"\xff" * 70_000 + b'"}'
    over = b'{"x":"' + b"y" * 200_000 + b'"}'
    got = _framed(transport, bad + b"\n" + over + b"\n" + b'{"ok":1}\n', 65536)
    assert got == [bad, b'{"ok":1}']
    assert transport.stats.oversized == 1


def test_an_answer_reaches_its_future_within_six_frames_of_the_reader():
    """The read side of the hot path (issue 24): from the reader thread's target to the request
    future's ``set_result`` an answer passes at most 6 Python frames (it was 9; ``Future.set_result``
    is no longer a seventh), so that a layer added on the way in shows here first."""
    set_result = RequestFuture.set_result.__code__
    stacks: list = []  # type: ignore[type-arg]

    def hook(frame, event, arg):  # type: ignore[no-untyped-def]
        if event == "call" and frame.f_code is set_result and not stacks:
            stacks.append(traceback.extract_stack(frame))

    threading.setprofile(hook)  # on the threads started from now: the transport's reader among them
    try:
        started()  # the answer to initialize settles its future on the reader thread
    finally:
        threading.setprofile(None)
    assert stacks, "no future was settled"
    names = [entry.name for entry in stacks[0]]
    path = names[len(names) - names[::-1].index("run") :]  # below threading.Thread.run
    assert path[0] == "_read_stdout" and path[-1] == "set_result", path
    assert len(path) <= 6, path
