"""Faults of a stdio server, injected with the bundled test server's chaos (``misbehave``).

Each test checks what a user gets (a typed error within a wide bound, or the
answer), that the client is usable afterwards where it should be, and, via
the autouse ``no_leaks`` fixture, that no thread, descriptor or process is
left behind. Faults covered elsewhere: a crash with an exit code, SIGTERM
ignored, a server that stops reading its input, garbage and invalid
messages, unknown ids (tests/wire/test_stdio.py). The helpers below
serve tests/wire/test_http_faults.py too.
"""

from __future__ import annotations

import json
import logging
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

import mcpsync
from mcpsync import InvalidMessage, MessageTooLarge, ProtocolError, RequestTimeout, TransportClosed
from mcpsync._core.endpoint import DEFAULT_MAX_MESSAGE_SIZE, Endpoint
from mcpsync._wire import StdioTransport, create_transport
from mcpsync._wire.config import server_config_from_dict
from mcpsync.testing import server_config
from tests.helpers import cancelled_on_server, wait_for
from tests.wire.helpers import Wired

#: The default timeout of the calls here: a fault must be reported well before it.
T = 30
#: What "at once" means here: far below T, far above any noise of a shared machine.
PROMPTLY = 10
SMALL_LIMIT = 1_000_000
#: Why the tests of a call never answered are slow.
WAITS_OUT_THE_TIMEOUT = "waits out the call's 1 s timeout"


@contextmanager
def chaos_client(**options: Any) -> Iterator[mcpsync.Client]:
    """A client on the bundled test server; ``options`` go to the transport.

    The legacy era, for the request ids the errors name: ``initialize`` is request 1, the first call 2.
    """
    on_error = options.pop("on_error", None)
    options.setdefault("exit_timeout", 0.5)
    options.setdefault("terminate_timeout", 1.0)
    transport = create_transport(server_config(timeout=T), **options)
    with mcpsync.Client(transport, on_error=on_error, protocol="legacy") as client:
        yield client


def misbehave(client: mcpsync.Client, kind: str, timeout: float = T, **arguments: Any) -> mcpsync.CallToolResult:
    return client.call_tool("misbehave", {"kind": kind, **arguments}, timeout=timeout)


def assert_usable(client: mcpsync.Client) -> None:
    assert client.call_tool("echo", {"text": "still here"}, timeout=T).text == "still here"


@contextmanager
def within(seconds: float) -> Iterator[None]:
    started = time.monotonic()
    yield
    assert time.monotonic() - started < seconds, f"took more than {seconds}s"


# -- the server goes away --------------------------------------------------------------------


def test_a_server_killed_mid_call_fails_every_waiting_call_at_once():
    """SIGKILL while two calls wait: both fail within seconds, saying the signal; later calls fail too."""
    with chaos_client() as client:
        slow = client.send_request("tools/call", {"name": "sleep", "arguments": {"seconds": 60}})
        with within(PROMPTLY), pytest.raises(TransportClosed) as info:
            misbehave(client, "sigkill")
        assert "the server process was killed by signal 9 (SIGKILL)" in str(info.value)
        assert info.value.exit_code == -9
        with pytest.raises(TransportClosed, match="killed by signal 9"):
            slow.result(timeout=PROMPTLY)
        with pytest.raises(TransportClosed, match="killed by signal 9"):
            client.call_tool("echo", {"text": "after death"}, timeout=T)


# -- broken framing and bad answers ------------------------------------------------------------


@pytest.mark.slow(WAITS_OUT_THE_TIMEOUT)
def test_half_a_line_then_a_stall_times_out_and_the_next_answer_is_still_read(caplog):
    """Half an answer, no newline, then silence: that call times out; the next answer runs into the
    half line on the same line, and is read anyway (not lost to a second timeout)."""
    with chaos_client() as client:
        with within(PROMPTLY), pytest.raises(RequestTimeout, match=r"Request timeout after 1s \(tools/call\)"):
            misbehave(client, "half_line", timeout=1)
        with caplog.at_level(logging.WARNING, logger="mcpsync.transport"):
            assert_usable(client)
            # The reader logs the junk after it has woken the caller: the two race.
            assert wait_for(lambda: "junk before a response, which was read" in caplog.text, timeout=5)
        assert client.transport.stats.malformed == 1


@pytest.mark.slow(WAITS_OUT_THE_TIMEOUT)
def test_an_answer_with_a_wrong_id_leaves_its_call_to_time_out_and_is_counted(caplog):
    with chaos_client() as client:
        with caplog.at_level(logging.WARNING, logger="mcpsync.transport"):
            with within(PROMPTLY), pytest.raises(RequestTimeout):
                misbehave(client, "wrong_id", timeout=1)
        assert client.transport.stats.unmatched_responses == 1
        assert "response to no request we sent or still wait for" in caplog.text
        assert "answer with a wrong id" in caplog.text
        assert_usable(client)


def test_an_answer_sent_twice_is_taken_once():
    """The first answer wins; the second is counted and logged, never given to another caller."""
    with chaos_client() as client:
        assert misbehave(client, "duplicate_id").text == "first answer"
        assert_usable(client)
        deadline = time.monotonic() + PROMPTLY
        while client.transport.stats.unmatched_responses < 1 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert client.transport.stats.unmatched_responses == 1


def test_an_answer_with_both_result_and_error_fails_its_call_at_once():
    with chaos_client() as client:
        with within(PROMPTLY), pytest.raises(InvalidMessage) as info:
            misbehave(client, "result_and_error")
        assert "error response must not also have 'result'" in str(info.value)
        assert_usable(client)


def test_a_server_that_stalls_forever_times_out_is_told_and_closes_promptly():
    """A tool that ignores cancellation: RequestTimeout at its bound, the server told, close() bounded."""
    with chaos_client() as client:
        with within(PROMPTLY), pytest.raises(RequestTimeout, match=r"after 0\.5s"):
            misbehave(client, "stall", timeout=0.5)
        cancelled = cancelled_on_server(client)
        assert len(cancelled) == 1
        with within(PROMPTLY):
            client.close()


@pytest.mark.slow("the server writes 100 MB of stderr for the transport to read")
def test_a_100_mb_stderr_flood_does_not_hold_up_the_calls():
    """100 MB of stderr in one call: the call returns in seconds, later calls too, the tail is kept short."""
    with chaos_client() as client:
        transport = client.transport
        assert isinstance(transport, StdioTransport)
        with within(PROMPTLY):
            result = client.call_tool("stderr", {"text": "y" * 99, "lines": 1_000_000}, timeout=T)
            assert result.text == "wrote 1000000 lines"
            client.call_tool("stderr", {"text": "the last line"}, timeout=T)
            assert_usable(client)
        deadline = time.monotonic() + PROMPTLY
        while transport.stderr_tail[-1:] != ("the last line",) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert transport.stderr_tail[-1] == "the last line"
        assert len(transport.stderr_tail) <= 20


# -- huge messages and max_message_size ---------------------------------------------------------


@pytest.mark.slow("moves 50 MB through a pipe and parses it: about 1 s")
def test_a_50_mb_answer_passes_under_the_default_limit():
    with chaos_client() as client:
        assert client.transport.max_message_size == DEFAULT_MAX_MESSAGE_SIZE == 64 * 1024 * 1024
        with within(PROMPTLY):
            text = misbehave(client, "huge").text
        assert len(text) > 49_000_000 and set(text) == {"x"}
        assert client.transport.stats.oversized == 0
        assert_usable(client)


def test_a_50_mb_line_of_garbage_is_skipped_under_the_default_limit(caplog):
    with chaos_client() as client:
        with caplog.at_level(logging.WARNING, logger="mcpsync.transport"), within(PROMPTLY):
            assert misbehave(client, "huge_garbage").text == "sent huge_garbage"
        assert client.transport.stats.malformed == 1
        assert "(49999999 bytes in all)" in caplog.text  # the line without its newline
        assert len(caplog.text) < 5000, "the log shows a piece of the line, not all of it"


def test_an_answer_over_the_limit_fails_its_call_at_once_and_the_transport_reads_on(caplog):
    """50 MB against a 1 MB limit: MessageTooLarge within seconds (not the 30 s timeout), saying the
    limit and the option; the line is discarded; the next calls work."""
    errors = []
    with chaos_client(max_message_size=SMALL_LIMIT, on_error=errors.append) as client:
        with caplog.at_level(logging.WARNING, logger="mcpsync.transport"):
            with within(PROMPTLY), pytest.raises(MessageTooLarge) as info:
                misbehave(client, "huge")
        error = info.value
        assert isinstance(error, ProtocolError)
        assert str(error) == (
            f"test-server: the answer to request 2 is over max_message_size ({SMALL_LIMIT} bytes) and was "
            "discarded; raise max_message_size (maxMessageSize in an mcpServers entry) to accept it"
        )
        assert (error.size, error.limit) == (None, SMALL_LIMIT)
        assert "discarding a message over max_message_size (1000000 bytes)" in caplog.text
        assert_usable(client)
        assert client.transport.stats.oversized == 1
        assert errors == [], "the error went to the caller who waited for it"


def test_an_answer_over_the_limit_with_its_id_written_last_fails_once_it_has_gone_by():
    """TypeScript servers write ``"id"`` after ``"result"``: the end of the line names the call."""
    with chaos_client(max_message_size=SMALL_LIMIT) as client:
        with within(PROMPTLY), pytest.raises(MessageTooLarge) as info:
            misbehave(client, "huge_id_last", size=5_000_000)
        assert info.value.size == 4_999_999  # the line without its newline
        assert "the answer to request 2 (4999999 bytes) is over max_message_size (1000000 bytes)" in str(info.value)
        assert_usable(client)


@pytest.mark.parametrize("kind", ["huge_notification", "huge_garbage"])
def test_a_message_over_the_limit_that_answers_nothing_fails_nothing(kind):
    """A huge notification or line of garbage: discarded, counted, reported to on_error; the call goes on."""
    errors = []
    with chaos_client(max_message_size=SMALL_LIMIT, on_error=errors.append) as client:
        assert misbehave(client, kind, size=5_000_000).text == f"sent {kind}"
        assert client.transport.stats.oversized == 1
        wait_for(lambda: errors, 5)  # on_error runs on the dispatch thread
        assert len(errors) == 1 and isinstance(errors[0], MessageTooLarge)
        assert str(errors[0]).startswith("test-server: a message (")
        assert_usable(client)


EXACT_SIZE_SERVER = """
import json, sys
for line in sys.stdin:
    request = json.loads(line)
    size = request["params"]["size"]
    start = '{"jsonrpc":"2.0","id":%s,"result":{"pad":"' % json.dumps(request["id"])
    sys.stdout.write(start + "x" * (size - len(start) - 3) + '"}}' + "\\n")
    sys.stdout.flush()
"""


def test_the_limit_counts_the_message_without_its_newline():
    """A message of exactly max_message_size bytes is read; one byte more is refused."""
    transport = Wired(
        StdioTransport(sys.executable, ["-c", EXACT_SIZE_SERVER], name="exact", max_message_size=1000, exit_timeout=0.5)
    )
    with transport:
        assert len(transport.request("pad", {"size": 1000}, timeout=T)["pad"]) > 900
        with pytest.raises(MessageTooLarge, match=r"request 2 is over max_message_size \(1000 bytes\)"):
            transport.request("pad", {"size": 1001}, timeout=T)
        assert len(transport.request("pad", {"size": 999}, timeout=T)["pad"]) > 900


# -- where the id of an oversized message is found ---------------------------------------------------


@pytest.mark.parametrize(
    "head, tail, owner",
    [
        (b'{"jsonrpc":"2.0","id":7,"result":{"content":[{"text":"xx', b"", 7),
        (b'{"jsonrpc": "2.0", "id": "7", "result": {"x', b"", 7),  # a digit string finds an int id
        (b'{"jsonrpc":"2.0","result":{"content":[{"id":3,"text":"xx', b"", None),  # a nested "id" is not its id
        (b'{"result":{"content":[{"id":3,"text":"xx', b'xx"}]},"jsonrpc":"2.0","id":8}\n', 8),
        (b'{"result":{"a":"xx', b'xx","id":9}}', None),  # a nested object's last member, not the message's
        (b'{"jsonrpc":"2.0","id":5,"method":"sampling/createMessage","params":{"x', b"", None),
        (b'{"jsonrpc":"2.0","id":5,"params":{"x', b'x"},"method":"roots/list"}', None),  # no result: not an answer
        (b'{"jsonrpc":"2.0","error":{"code":-1,"message":"xx', b'xx"},"id":4}', 4),
        (b"not json at all", b'"id":1}', None),
    ],
)
def test_the_owner_of_an_oversized_message_is_read_from_its_edges(head, tail, owner):
    assert Endpoint._oversized_owner(head, tail, None) == owner


# -- the option ------------------------------------------------------------------------------


def test_max_message_size_flows_from_configs_and_options_and_is_checked():
    assert create_transport(server_config()).max_message_size == DEFAULT_MAX_MESSAGE_SIZE
    assert create_transport(server_config(max_message_size=5000)).max_message_size == 5000
    assert create_transport(server_config(max_message_size=5000), max_message_size=None).max_message_size is None
    entry = {"command": "srv", "maxMessageSize": 123}
    assert create_transport(server_config_from_dict(entry)).max_message_size == 123
    url = {"type": "sse", "url": "http://127.0.0.1:9/sse", "maxMessageSize": 456}
    assert create_transport(url).max_message_size == 456
    for bad in (0, -1, 1.5, "1MB", True):
        with pytest.raises(mcpsync.ConfigurationError, match="max_message_size must be a positive number of bytes"):
            create_transport(server_config(), max_message_size=bad)
        with pytest.raises(mcpsync.ConfigurationError, match="max_message_size must be a positive number of bytes"):
            server_config(max_message_size=bad)


def test_the_chaos_kinds_are_listed_in_the_tool_schema():
    """misbehave's inputSchema names every kind, so a client can discover them."""
    with chaos_client() as client:
        (tool,) = [t for t in client.list_tools(timeout=T) if t.name == "misbehave"]
    kinds = tool.input_schema["properties"]["kind"]["enum"]
    assert {"sigkill", "half_line", "stall", "wrong_id", "duplicate_id", "result_and_error", "huge"} <= set(kinds)
    assert json.dumps(kinds)  # plain JSON


ABSURD_LINE_CLIENT = """
import resource
import mcpsync
from mcpsync.testing import server_config
from mcpsync._wire import create_transport
with mcpsync.Client(create_transport(server_config(timeout=60), exit_timeout=0.5), protocol="legacy") as client:
    try:
        client.call_tool("misbehave", {"kind": "huge_id_last", "size": 1_000_000_000}, timeout=60)
    except mcpsync.MessageTooLarge as exc:
        print(exc)
    print(client.call_tool("echo", {"text": "after"}, timeout=60).text)
    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)
"""


@pytest.mark.long
def test_a_1_gb_line_under_the_default_limit_is_refused_without_exhausting_memory():
    """An absurd answer (1 GB on one line) against the default 64 MiB: a clear error, the line
    discarded as it streams by, and the client's peak memory a small multiple of the limit."""
    import subprocess

    out = subprocess.run([sys.executable, "-c", ABSURD_LINE_CLIENT], capture_output=True, text=True, timeout=120)
    refusal, after, peak_mb = out.stdout.splitlines()
    assert refusal.startswith("test-server: the answer to request 2 (999999999 bytes) is over max_message_size")
    assert after == "after"
    assert int(peak_mb) < 400, f"peak RSS {peak_mb} MB"


def test_a_line_nested_without_end_is_counted_as_malformed_and_the_reader_reads_on(caplog):
    """A line of 100,000 '[': json runs out of stack. It is one malformed line (counted, logged as a
    skipped message, no traceback), and the next answer is read."""
    code = (
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    message = json.loads(line)\n"
        "    if 'id' not in message: continue\n"
        "    sys.stdout.write('[' * 100000 + '\\n')\n"
        "    sys.stdout.write(json.dumps({'jsonrpc': '2.0', 'id': message['id'], 'result': {}}) + '\\n')\n"
        "    sys.stdout.flush()\n"
    )
    with caplog.at_level(logging.WARNING, logger="mcpsync.transport"):
        with Wired(StdioTransport(sys.executable, ["-c", code], name="deep", exit_timeout=0.5)) as transport:
            assert transport.request("ping", timeout=T) == {}
            assert transport.stats.malformed == 1
    assert "nested too deeply to read" in caplog.text
    assert "Traceback" not in caplog.text and "failed to handle a message" not in caplog.text


# -- cancellations ---------------------------------------------------------------------------


@pytest.mark.slow("ten 0.3 s timeouts waited out while three threads write 5 MB requests")
def test_cancellations_reach_the_server_while_other_threads_write_large_requests():
    """A cancellation waits its turn behind writes of megabytes (on a thread of its own), not dropped."""
    with chaos_client() as client:
        big = "x" * (5 * 1024 * 1024)
        stop = threading.Event()

        def write_big() -> None:
            while not stop.is_set():
                assert client.call_tool("echo", {"text": big}, timeout=T).text == big

        writers = [threading.Thread(target=write_big) for _ in range(3)]
        for writer in writers:
            writer.start()
        try:
            time.sleep(0.3)  # the writers are busy
            for _ in range(10):
                with pytest.raises(RequestTimeout):
                    client.call_tool("sleep", {"seconds": 2.0}, timeout=0.3)
        finally:
            stop.set()
            for writer in writers:
                writer.join(T)
        cancelled = cancelled_on_server(client, 10, timeout=T)
        assert len(cancelled) == 10
        assert wait_for(lambda: client.transport.stats.cancelled == 10)


def test_many_threads_cancelling_at_once():
    with chaos_client() as client:
        futures = [
            client.send_request("tools/call", {"name": "sleep", "arguments": {"seconds": 10}}) for _ in range(20)
        ]
        start = threading.Barrier(20)
        problems: list[BaseException] = []

        def cancel(future) -> None:
            start.wait(T)
            try:
                assert future.cancel()
            except BaseException as exc:
                problems.append(exc)

        threads = [threading.Thread(target=cancel, args=(future,)) for future in futures]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(T)
        assert problems == []
        assert sorted(cancelled_on_server(client, 20, timeout=T)) == sorted(f.request_id for f in futures)
        assert_usable(client)
