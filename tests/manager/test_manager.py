"""mcpsync.Manager: many servers, parallel connect, deferred tools, reconnection, qualified names.

The servers are real: mcpsync's test server over stdio (some started slowly
with ``--start-delay``, some dying on schedule with ``--die-after``), the
official SDK's ``MCPServer`` over stdio, and the official server over
Streamable HTTP on 127.0.0.1. Bounds in these tests are wide: they tell
"in parallel" from "one after another" and "waited" from "hung", nothing finer.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import mcpsync
from mcpsync._manager.records import ServerState
from mcpsync._manager.supervisor import ServerSupervisor
from tests.helpers import wait_for
from tests.http_server import running_http_server, stop
from tests.interop.official import SERVER_SCRIPT, start_server

pytestmark = pytest.mark.usefixtures("server_in_thread")

T = 20.0
#: Why the tests of an entry's ``connectTimeout`` are slow.
WAITS_OUT_THE_CONNECT_TIMEOUT = "waits out the entry's connectTimeout (1 s, or 2 s) against a server that answers late"


def ours(*options: str, **entry: Any) -> dict[str, Any]:
    """An mcpServers entry for mcpsync's test server."""
    return {"command": sys.executable, "args": ["-m", "mcpsync.testing", *options], **entry}


def manager(servers: dict[str, Any], tmp_path: Path, **options: Any) -> mcpsync.Manager:
    options.setdefault("tool_cache", tmp_path / "tools.json")
    options.setdefault("startup_timeout", T)
    options.setdefault("backoff", (0.05, 0.5))
    return mcpsync.Manager({"mcpServers": servers}, **options)


@pytest.fixture(scope="module")
def official_http(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The official SDK's server over Streamable HTTP, once for the module; its URL."""
    pytest.importorskip("mcp.server.mcpserver")
    running = start_server("sse-replies", tmp_path_factory.mktemp("manager-official"))
    try:
        yield running.url
    finally:
        stop(running.process, 5)


@pytest.mark.official
def test_three_servers_connect_in_parallel_and_every_tool_is_callable(official_http: str, tmp_path: Path) -> None:
    servers = {
        "ours": ours("--start-delay", "1.5"),
        "official": {"command": sys.executable, "args": [str(SERVER_SCRIPT), "stdio"]},
        "remote": {"type": "http", "url": official_http},
        "slow-too": ours("--start-delay", "1.5"),
        "slow-three": ours("--start-delay", "1.5"),
    }
    started = time.monotonic()
    with manager(servers, tmp_path) as m:
        took = time.monotonic() - started
        assert {name: s.state for name, s in m.status().items()} == dict.fromkeys(servers, ServerState.CONNECTED)
        assert took < 4.0  # three 1.5 s starts one after another would take 4.5 s at least
        names = {t.name for t in m.list_tools()}
        assert {"ours__echo", "official__add", "remote__add", "slow-too__echo"} <= names
        assert m.call_tool("ours__echo", {"text": "hi"}).text == "hi"
        assert m.call_tool("official__add", {"a": 1, "b": 2}).structured_content == {"total": 3}
        assert m.call_tool("remote__echo", {"text": "over http"}).text == "over http"
        assert set(m.clients) == set(servers)
        assert m.clients["remote"].server_info.name == "official-sdk-test"
        status = m.status()["remote"]
        assert status.transport == "http" and status.tools == len(m.clients["remote"].tools)
        assert m.status()["ours"].server_info.name == "mcpsync-test-server"


@pytest.mark.slow("waits out the 1 s startup_timeout for a server that never answers")
def test_a_server_that_never_answers_does_not_hold_up_the_others(tmp_path: Path) -> None:
    mute = {"command": sys.executable, "args": ["-c", "import time; time.sleep(60)"]}
    started = time.monotonic()
    m = manager({"mute": mute, "ok": ours()}, tmp_path, startup_timeout=1.0, connect_timeout=30)
    try:
        assert time.monotonic() - started < 5.0
        status = m.status()
        assert status["ok"].state is ServerState.CONNECTED
        assert status["mute"].state is ServerState.CONNECTING
        assert m.call_tool("ok__echo", {"text": "fine"}).text == "fine"
        assert [t.server for t in m.list_tools()] == ["ok"] * len(m.clients["ok"].tools)
        with pytest.raises(mcpsync.ServerUnavailable, match="still connecting"):
            m.call_tool("mute__anything", {}, timeout=0.3)
    finally:
        closing = time.monotonic()
        m.close()
    assert time.monotonic() - closing < 10.0  # the half-made connection is cut, not waited for
    assert m.status()["mute"].state is ServerState.CLOSED


def test_list_tools_waits_for_a_server_still_starting_and_names_what_it_still_lacks(tmp_path: Path) -> None:
    """Issue 37, point 4: a server slower than the constructor's wait, with no tools cached: ``list_tools()``
    waits for it (within its timeout, by default ``startup_timeout``) instead of leaving its tools out in
    silence; ``timeout=0`` answers at once, and ``not_listed()`` names the server its answer lacks."""
    from tests.helpers import INITIALIZE_RESULT, scripted_server

    tools = {"tools": [{"name": "now", "inputSchema": {"type": "object"}}]}
    command = scripted_server({"initialize": [{"after": 0.4, "answer": INITIALIZE_RESULT}], "tools/list": [tools]})
    with manager({"slow": {"command": command[0], "args": command[1:]}}, tmp_path, startup_timeout=0.01) as m:
        assert m.not_listed() == ["slow"]  # it answers the handshake after 0.4 s
        assert m.list_tools(timeout=0) == []
        assert [t.name for t in m.list_tools(timeout=T)] == ["slow__now"]
        assert m.not_listed() == []


def test_an_entry_without_type_reaches_an_http_sse_server_by_the_fallback(tmp_path: Path) -> None:
    """Issue 16: a file's ``{"url": ".../sse"}`` (no ``type``) falls back to HTTP+SSE, as
    ``mcpsync.connect`` does; with ``"type": "http"`` it does not, and the error says which type to use."""
    with running_http_server() as base:
        servers = {"old": {"url": f"{base}/sse"}, "typed": {"type": "http", "url": f"{base}/sse"}}
        with manager(servers, tmp_path, reconnect=False) as m:
            assert m.wait_until_ready(T)
            status = m.status()
            assert status["old"].state is ServerState.CONNECTED and status["old"].transport == "sse"
            assert m.call_tool("old__echo", {"text": "via sse"}, timeout=T).text == "via sse"
            assert status["typed"].state is ServerState.FAILED and status["typed"].transport == "http"
            assert status["typed"].error.startswith(f"HTTP 405 from POST {base}/sse: ")
            assert status["typed"].error.endswith('(this looks like an HTTP+SSE server: use type "sse")')


def test_failed_and_disabled_servers_are_reported(tmp_path: Path) -> None:
    failing = {
        "command": sys.executable,
        "args": ["-c", "import sys; print('no token set', file=sys.stderr); sys.exit(4)"],
    }
    servers = {
        "bad": failing,
        "off": ours(enabled=False),
        "missing": {"command": "/nonexistent/mcp-server"},
        "ok": ours(),
    }
    with manager(servers, tmp_path, startup_timeout=5.0, backoff=(5.0, 5.0)) as m:
        status = m.status()
        assert status["ok"].state is ServerState.CONNECTED
        assert status["off"].state is ServerState.DISABLED and status["off"].transport == ""
        assert status["missing"].state is ServerState.FAILED
        assert "/nonexistent/mcp-server" in status["missing"].error
        assert status["bad"].state is ServerState.FAILED
        assert "code 4" in status["bad"].error and status["bad"].stderr_tail == ("no token set",)
        assert status["bad"].attempts == 1 and 0 < status["bad"].retry_in <= 5.0
        with pytest.raises(mcpsync.ServerUnavailable, match=r"server 'bad' is unavailable \(failed\): .*code 4"):
            m.call_tool("bad__echo", {})
        with pytest.raises(mcpsync.ServerUnavailable, match=r"'off' is unavailable \(disabled\)"):
            m.client("off")
        with pytest.raises(mcpsync.UnknownNameError, match=r"no tool named 'ok__ecoh'; did you mean 'ok__echo'"):
            m.call_tool("ok__ecoh", {})
        with pytest.raises(mcpsync.UnknownNameError, match="no server named 'nope'"):
            m.client("nope")
        assert "4 servers" in repr(m) and "1 connected" in repr(m)


@pytest.mark.slow("both runs wait out the server's 2 s start delay (the first to fill the tool cache)")
def test_deferred_tools_come_from_the_cache_and_switch_to_live(tmp_path: Path) -> None:
    servers = {"slow": ours("--start-delay", "2")}
    with manager(servers, tmp_path) as first:  # a first run fills the cache
        live = [t.name for t in first.list_tools()]
    assert (tmp_path / "tools.json").exists()

    changes: list[list[mcpsync.ManagedTool]] = []
    started = time.monotonic()
    with manager(servers, tmp_path, startup_timeout=0.2, on_tools_changed=changes.append) as m:
        assert time.monotonic() - started < 1.5
        assert m.status()["slow"].state is ServerState.CONNECTING
        assert m.status()["slow"].tools_from_cache is True
        tools = m.list_tools()
        assert [t.name for t in tools] == live and all(t.deferred for t in tools)
        echo = next(t for t in tools if t.name == "slow__echo")
        assert echo.tool.name == "echo" and echo.input_schema["properties"]["text"]["type"] == "string"
        assert m.call_tool("slow__echo", {"text": "waited"}, timeout=T).text == "waited"  # waits for the server
        assert not any(t.deferred for t in m.list_tools())
        assert m.status()["slow"].tools_from_cache is False
        assert wait_for(lambda: bool(changes) and not any(t.deferred for t in changes[-1]))


@pytest.mark.slow("a first run waits out the server's 3 s start delay to fill the tool cache")
def test_a_deferred_call_fails_clearly_when_the_server_does_not_come_in_time(tmp_path: Path) -> None:
    servers = {"slow": ours("--start-delay", "3")}
    with manager(servers, tmp_path):
        pass
    with manager(servers, tmp_path, startup_timeout=0.1) as m:
        started = time.monotonic()
        with pytest.raises(mcpsync.ServerUnavailable, match="'slow' is still connecting; the call's time ran out"):
            m.call_tool("slow__echo", {"text": "x"}, timeout=0.5)
        assert time.monotonic() - started < 2.5


@pytest.mark.process  # kills the server from outside by its pid
def test_a_server_killed_mid_session_comes_back(tmp_path: Path) -> None:
    with manager({"s": ours()}, tmp_path) as m:
        first = m.clients["s"]
        with pytest.raises(mcpsync.TransportClosed, match="code 7"):
            m.call_tool("s__crash", {"code": 7})  # in flight when the server died: failed, not sent again
        assert m.call_tool("s__echo", {"text": "back"}, timeout=T).text == "back"  # waits for the reconnection
        assert m.clients["s"] is not first and not first.is_connected
        status = m.status()["s"]
        assert status.state is ServerState.CONNECTED and status.error is None
        pid_before = m.clients["s"].transport.pid
        os.kill(m.clients["s"].transport.pid, signal.SIGKILL)  # killed from outside
        assert wait_for(lambda: "s" in m.clients and m.clients["s"].transport.pid != pid_before)
        assert m.call_tool("s__add", {"a": 2, "b": 3}).structured_content == {"sum": 5}


@pytest.mark.slow("the retried call's 20 progress steps of 0.1 s run again on the restarted server")
@pytest.mark.process  # kills the server from outside by its pid
def test_a_call_in_flight_is_sent_again_only_when_asked(tmp_path: Path) -> None:
    """Two calls are running on the server (each has sent its first progress) when it is killed: the one
    without ``retry`` gets ``TransportClosed``, the one with it is sent again to the new process."""
    with manager({"s": ours()}, tmp_path) as m:
        outcome: dict[str, Any] = {}
        running = {key: threading.Event() for key in ("once", "retried")}

        def slow_call(key: str, retry: bool) -> None:
            try:
                outcome[key] = m.call_tool(
                    "s__progress",
                    {"steps": 20, "delay": 0.1},
                    timeout=T,
                    retry=retry,
                    on_progress=lambda *_: running[key].set(),
                ).text
            except Exception as exc:
                outcome[key] = exc

        callers = [threading.Thread(target=slow_call, args=(key, key == "retried")) for key in running]
        for caller in callers:
            caller.start()
        assert all(event.wait(T) for event in running.values()), "both calls run on the server"
        os.kill(m.clients["s"].transport.pid, signal.SIGKILL)
        for caller in callers:
            caller.join(T)
        assert isinstance(outcome["once"], mcpsync.TransportClosed)
        assert outcome["retried"] == "done"  # sent again to the new server process, and answered


@pytest.mark.slow("the server dies 0.4 s after each of its three starts")
def test_a_crash_loop_stops_the_quick_retries(tmp_path: Path) -> None:
    servers = {"flaky": ours("--die-after", "0.4"), "ok": ours()}
    with manager(servers, tmp_path, crash_loop_window=30, crash_loop_limit=3, slow_retry_interval=60) as m:
        assert wait_for(lambda: m.status()["flaky"].state is ServerState.FAILED, timeout=T)
        status = m.status()["flaky"]
        assert "crash loop: died 3 times within 30s" in status.error
        assert status.stderr_tail[-1] == "dying on schedule"
        assert status.retry_in is not None and status.retry_in > 20
        with pytest.raises(mcpsync.ServerUnavailable, match="crash loop"):
            m.client("flaky")
        assert m.call_tool("ok__echo", {"text": "unaffected"}).text == "unaffected"


def test_without_reconnect_a_lost_server_stays_failed(tmp_path: Path) -> None:
    with manager({"s": ours()}, tmp_path, reconnect=False) as m:
        with pytest.raises(mcpsync.TransportClosed):
            m.call_tool("s__crash", {"code": 5})
        assert wait_for(lambda: m.status()["s"].state is ServerState.FAILED)
        time.sleep(0.3)
        assert m.status()["s"].state is ServerState.FAILED and "code 5" in m.status()["s"].error
        with pytest.raises(mcpsync.ServerUnavailable, match="failed"):
            m.call_tool("s__echo", {"text": "x"})


def test_colliding_names_are_made_unique_and_reported(tmp_path: Path) -> None:
    with manager({"a.b": ours(), "a_b": ours(), "a b": ours()}, tmp_path) as m:
        tools = m.list_tools()
        echoes = {t.server: t.name for t in tools if t.tool.name == "echo"}
        assert echoes["a.b"] == "a_b__echo"  # the first server in the configuration keeps the plain name
        assert len(set(echoes.values())) == 3
        assert all(name.startswith("a_b__echo_") for server, name in echoes.items() if server != "a.b")
        assert len({t.name for t in tools}) == len(tools)
        assert any(c.name == "a_b__echo" for c in m.collisions)
        for server, name in echoes.items():
            assert m.call_tool(name, {"text": server}).text == server


def test_each_collision_is_logged_once_though_the_names_are_made_again(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Scenario: two servers whose names qualify alike; one re-lists its tools (list_changed), so the
    manager names every tool again. Promise: each collision is in the log once, and still reported."""
    with caplog.at_level("WARNING", logger="mcpsync.manager"):
        with manager({"a.b": ours(), "a_b": ours()}, tmp_path) as m:
            first = m.collisions
            assert first and len(m.list_tools()) == len({t.name for t in m.list_tools()})
            before = m.status()["a.b"].tools
            # "a.b" keeps the plain qualified names (it comes first): this asks it to re-list.
            m.call_tool("a_b__notify_client", {"method": "notifications/tools/list_changed"}, timeout=T)
            assert wait_for(lambda: m._servers["a.b"].tools_revision > 1 and m.status()["a.b"].tools == before)
            m.list_tools()
            assert m.collisions == first
    logged = [r.getMessage() for r in caplog.records if "tool names collide" in r.getMessage()]
    assert len(logged) == len(first) == len(set(logged))


def test_list_changed_updates_the_tools_and_calls_back(tmp_path: Path) -> None:
    changes: list[list[mcpsync.ManagedTool]] = []
    with manager({"s": ours()}, tmp_path, on_tools_changed=changes.append) as m:
        before = len(changes)
        m.call_tool("s__notify_client", {"method": "notifications/tools/list_changed"})
        assert wait_for(lambda: len(changes) > before)
        assert {t.name for t in changes[-1]} == {t.name for t in m.list_tools()}


def test_a_tool_list_change_during_the_connect_is_not_lost(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """list_changed that comes before the manager takes the client as connected: it lists the tools again."""
    real = mcpsync.Client.list_tools
    real_relist = ServerSupervisor.relist
    relisted_early = threading.Event()

    def relist(self: ServerSupervisor, client: mcpsync.Client) -> bool:
        took_effect = real_relist(self, client)
        if not took_effect:
            relisted_early.set()  # the list_changed came while the client was not yet taken as connected
        return took_effect

    def held_for_the_supervisor(self: mcpsync.Client, *args: Any, **kwargs: Any) -> Any:
        tools = real(self, *args, **kwargs)
        if threading.current_thread().name.startswith("mcpsync-manager-"):
            # The server's list_changed arrives, and is handled, before the supervisor goes on.
            assert relisted_early.wait(T), "the list_changed was handled during the connect"
        return tools

    monkeypatch.setattr(ServerSupervisor, "relist", relist)
    monkeypatch.setattr(mcpsync.Client, "list_tools", held_for_the_supervisor)
    changes: list[list[mcpsync.ManagedTool]] = []
    with manager({"s": ours("--tools-change-after-list")}, tmp_path, on_tools_changed=changes.append) as m:
        assert wait_for(lambda: "s__late" in {t.name for t in m.list_tools()})
        assert wait_for(lambda: bool(changes) and "s__late" in {t.name for t in changes[-1]})


def test_an_older_relisting_that_ends_last_does_not_win(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two re-listings of one server overlap (supervisor and dispatch thread): the one begun last is kept."""
    with manager({"s": ours()}, tmp_path) as m:
        server = m._servers["s"]
        client = m.client("s")
        real = mcpsync.Client.list_tools
        delays = iter([0.5, 0.0])

        def listing(self: mcpsync.Client, *args: Any, **kwargs: Any) -> Any:
            delay = next(delays)
            tools = real(self, *args, **kwargs)
            time.sleep(delay)
            return tools[:1] if delay else tools  # the slow, older listing saw fewer tools

        monkeypatch.setattr(mcpsync.Client, "list_tools", listing)
        older = threading.Thread(target=server.relist, args=(client,))
        older.start()
        time.sleep(0.1)
        server.relist(client)
        older.join(T)
        assert len(m.list_tools()) > 1


@pytest.mark.slow("on_tools_changed sleeps 0.3 s a call, and the test waits 0.4 s twice for the rounds to settle")
def test_tool_announcements_never_overlap_and_the_last_is_the_latest(tmp_path: Path) -> None:
    """Two servers announce at once: on_tools_changed runs one call at a time, and a change made
    during a call is announced after it, with the tools as they are then."""
    lock = threading.Lock()
    state = {"running": 0, "peak": 0}
    calls: list[list[mcpsync.ManagedTool]] = []

    def slow(tools: list[mcpsync.ManagedTool]) -> None:
        with lock:
            state["running"] += 1
            state["peak"] = max(state["peak"], state["running"])
        time.sleep(0.3)
        with lock:
            calls.append(tools)
            state["running"] -= 1

    with manager({"a": ours(), "b": ours()}, tmp_path, on_tools_changed=slow) as m:
        assert wait_for(lambda: state["running"] == 0 and len(calls) >= 1)
        time.sleep(0.4)  # nothing left from the start-up
        before = len(calls)
        announcers = [
            threading.Thread(
                target=m.call_tool, args=(f"{name}__notify_client", {"method": "notifications/tools/list_changed"})
            )
            for name in ("a", "b")
        ]
        for thread in announcers:
            thread.start()
        for thread in announcers:
            thread.join(T)
        assert wait_for(lambda: len(calls) > before and state["running"] == 0)
        time.sleep(0.4)  # a second round, if one is due, has begun by now
        assert wait_for(lambda: state["running"] == 0)
        assert [t.name for t in calls[-1]] == [t.name for t in m.list_tools()]
    assert state["peak"] == 1


def test_prompts_and_resources_across_servers(tmp_path: Path) -> None:
    with manager({"one": ours(), "two": ours()}, tmp_path) as m:
        prompts = m.list_prompts()
        assert sorted(p.name for p in prompts) == ["one__greet", "two__greet"]
        result = m.get_prompt("two__greet", {"name": "Ada"})
        assert "Ada" in result.messages[0].text
        resources = m.list_resources()
        assert {(r.server, r.uri) for r in resources} >= {("one", "text://greeting"), ("two", "binary://pixel")}
        assert m.read_resource("one", "text://greeting").text == "Hello from a resource"
        with pytest.raises(mcpsync.UnknownNameError, match="no prompt named 'three__greet'"):
            m.get_prompt("three__greet")


def test_from_config_reads_a_file_and_client_options_reach_every_client(tmp_path: Path) -> None:
    path = tmp_path / ".mcp.json"
    path.write_text(
        # Legacy: the server sends its log messages unasked (a modern one only to requests that ask for a level).
        json.dumps(
            {
                "mcpServers": {
                    "s": {
                        "command": sys.executable,
                        "args": ["-m", "mcpsync.testing", "--legacy-only"],
                        "timeout": 5000,
                    }
                }
            }
        )
    )
    logs: list[Any] = []
    with mcpsync.Manager.from_config(
        path, tool_cache=False, client_options={"on_log": lambda *entry: logs.append(entry)}
    ) as m:
        assert m.status()["s"].source == str(path)
        m.call_tool("s__log", {"message": "hello", "level": "warning"})
        assert wait_for(lambda: logs == [("warning", None, "hello")] or len(logs) > 0)
        assert logs[0][0] == "warning" and logs[0][2] == "hello"
        assert m.clients["s"].transport.default_timeout == 5.0
    assert not (tmp_path / "tools.json").exists()


def test_bad_options_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="separator"):
        manager({}, tmp_path, separator="::")
    with pytest.raises(ValueError, match="on_close"):
        manager({}, tmp_path, client_options={"on_close": print})
    with pytest.raises(mcpsync.ConfigurationError, match="'command'"):
        manager({"x": {"args": ["a"]}}, tmp_path)


def test_many_threads_share_one_manager(tmp_path: Path) -> None:
    with manager({"a": ours(), "b": ours()}, tmp_path) as m:
        failures: list[BaseException] = []

        def worker(n: int) -> None:
            try:
                for i in range(20):
                    server = "a" if (n + i) % 2 else "b"
                    text = f"{n}-{i}"
                    assert m.call_tool(f"{server}__echo", {"text": text}).text == text
            except BaseException as exc:
                failures.append(exc)

        threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(T)
        assert not failures and not any(t.is_alive() for t in threads)


@pytest.mark.slow("sleeps 1.5 s inside the retry backoff to measure the CPU it burns")
def test_a_supervisor_waiting_to_retry_does_not_spin(tmp_path: Path) -> None:
    """The loss that ended a connection woke the supervisor; its backoff must still sleep, not busy-wait."""
    dies_at_once = {"command": sys.executable, "args": ["-c", "import sys; sys.exit(3)"]}
    with manager({"gone": dies_at_once}, tmp_path, startup_timeout=5.0, backoff=(3.0, 3.0)) as m:
        assert m.status()["gone"].state is ServerState.FAILED
        cpu = time.process_time()
        time.sleep(1.5)  # inside the 1.5-3 s backoff
        assert time.process_time() - cpu < 0.5  # a spinning supervisor burns about 1.5 s of CPU here


@pytest.mark.parametrize("strict", [False, True])
def test_a_server_without_tools_connects_and_has_none(tmp_path, strict):
    """A prompts-only server: the manager asks it for tools anyway (servers under-declare) and takes its
    -32601 for none, and it connects; with strict_capabilities it is not asked at all."""
    import json

    from tests.helpers import INITIALIZE_RESULT, scripted_server

    initialize = {**INITIALIZE_RESULT, "capabilities": {"prompts": {}}}
    log = tmp_path / "sent.jsonl"
    command, *args = scripted_server({"initialize": [initialize], "prompts/list": [{"prompts": [{"name": "p"}]}]}, log)
    options = {"client_options": {"strict_capabilities": True}} if strict else {}
    with manager({"p": {"command": command, "args": args}}, tmp_path, **options) as m:
        assert m.list_tools() == []
        (prompt,) = m.list_prompts(timeout=T)
        assert prompt.prompt.name == "p"
        assert m.status()["p"].state is ServerState.CONNECTED
    methods = [json.loads(line).get("method") for line in log.read_text().splitlines()]
    assert ("tools/list" in methods) is not strict


# -- a server's stderr and the bound for connecting (issue 23) ---------------------------------------


def test_the_manager_passes_a_servers_stderr_through_unless_told_otherwise(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    """By default a managed server's stderr line appears on ours with its name in front; an entry's
    ``"stderr": "log"`` sends it to the log instead; ``Manager(stderr="quiet")`` silences every one."""
    with manager({"loud": ours(), "logged": ours(stderr="log")}, tmp_path) as m, caplog.at_level("INFO"):
        for name in ("loud", "logged"):
            m.call_tool(f"{name}__stderr", {"text": f"from {name}"}, timeout=T)
            transport = m.client(name).transport
            assert wait_for(lambda t=transport, n=name: f"from {n}" in t.stderr_tail)  # type: ignore[attr-defined,misc]
    err = capsys.readouterr().err
    assert "[loud] from loud\n" in err and "from logged" not in err
    assert [r.getMessage() for r in caplog.records if r.name == "mcpsync.server.logged"] == ["from logged"]
    with manager({"loud": ours()}, tmp_path, stderr="quiet") as m:
        m.call_tool("loud__stderr", {"text": "not shown"}, timeout=T)
        assert wait_for(lambda: "not shown" in m.client("loud").transport.stderr_tail)  # type: ignore[attr-defined]
    assert "not shown" not in capsys.readouterr().err


@pytest.mark.slow(WAITS_OUT_THE_CONNECT_TIMEOUT)
def test_an_entrys_connect_timeout_bounds_connecting(tmp_path: Path) -> None:
    """``"connectTimeout": 1000`` (ms) ends the attempt to connect to a server that starts in 10 s at
    1 s, though its ``timeout`` (every request's) is 60 s."""
    slow = ours("--start-delay", "10", timeout=60000, connectTimeout=1000)
    with manager({"slow": slow}, tmp_path, startup_timeout=T, reconnect=False) as m:
        assert m.wait_until_ready(T)
        status = m.status()["slow"]
    assert status.state is ServerState.FAILED
    assert status.error is not None and "Request timeout after 1s" in status.error


@pytest.mark.slow(WAITS_OUT_THE_CONNECT_TIMEOUT)
def test_the_connect_bound_covers_the_handshake_and_the_tool_list_together(tmp_path: Path) -> None:
    """Scenario: ``"connectTimeout": 2000`` (ms); the server takes 1.2 s to answer ``initialize`` and
    1.2 s more for ``tools/list``. Promise: the attempt fails at its 2 s bound (the tool list had a
    second 2 s of its own, and the server connected after 2.4 s)."""
    from tests.helpers import INITIALIZE_RESULT, scripted_server

    command, *args = scripted_server(
        {
            "initialize": [{"after": 1.2, "answer": INITIALIZE_RESULT}],
            "tools/list": [{"after": 1.2, "answer": {"tools": []}}],
        }
    )
    entry = {"command": command, "args": args, "timeout": 60000, "connectTimeout": 2000}
    with manager({"slow": entry}, tmp_path, startup_timeout=T, reconnect=False) as m:
        assert m.wait_until_ready(T)
        status = m.status()["slow"]
    assert status.state is ServerState.FAILED
    assert status.error is not None and "Request timeout after 2s (tools/list)" in status.error
