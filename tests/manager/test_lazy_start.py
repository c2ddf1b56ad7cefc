"""``Manager(start="lazy")``: a server whose tool list is cached, fresh, is started by the first call of
one of its tools, not before; ``status()`` says which servers are idle and which run.

"Not before" is seen from outside: the test server appends its pid to a marker file when its
process starts (``--mark-start``), so an empty file means no process was ever started.
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path
from typing import Any

import pytest

import mcpsync
from mcpsync._manager.tool_cache import ToolCache

pytestmark = pytest.mark.usefixtures("server_in_thread")

T = 20.0
SERVER_ENV = {"PYTHONPATH": str(Path(mcpsync.__file__).resolve().parents[1])}


def entry(marker: Path, *options: str) -> dict[str, Any]:
    """The test server with 5 made-up tools, marking its start in ``marker``."""
    args = ["-m", "mcpsync.testing", "--tools", "5", "--tool-prefix", "t", "--mark-start", str(marker), *options]
    return {"command": sys.executable, "args": args, "env": SERVER_ENV}


def starts(marker: Path) -> int:
    """How many processes of the server have started."""
    return len(marker.read_text().split()) if marker.exists() else 0


def warmed(config: dict[str, Any], cache: Path, markers: list[Path]) -> None:
    """Fill the tool cache by one eager run, then forget that run's starts."""
    with mcpsync.Manager(config, tool_cache=cache, startup_timeout=T):
        pass
    for marker in markers:
        marker.unlink()


def test_a_server_is_started_by_its_first_call_and_not_before(tmp_path: Path) -> None:
    """With a warm cache the constructor starts nothing: the tools are offered from the cache, status says
    idle; the first call starts the server (once), and status then says connected. A server without
    cached tools is started at once, as without start="lazy"."""
    cache, a, b = tmp_path / "tools.json", tmp_path / "a.started", tmp_path / "b.started"
    config = {"mcpServers": {"a": entry(a)}}
    warmed(config, cache, [a])
    config["mcpServers"]["b"] = entry(b)  # not in the cache: started now
    with mcpsync.Manager(config, tool_cache=cache, start="lazy", startup_timeout=T) as manager:
        status = manager.status()
        assert status["a"].state is mcpsync.ServerState.IDLE and status["a"].tools == 5
        assert status["a"].tools_from_cache
        assert status["b"].state is mcpsync.ServerState.CONNECTED
        assert starts(a) == 0 and starts(b) == 1
        offered = [tool for tool in manager.list_tools() if tool.server == "a"]
        assert len(offered) == 5 and all(tool.deferred for tool in offered)
        assert starts(a) == 0  # listing starts nothing
        result = manager.call_tool("a__t_get_issue", {"id": "7"})
        assert result.structured_content == {"tool": "t_get_issue", "arguments": {"id": "7"}}
        assert starts(a) == 1
        assert manager.status()["a"].state is mcpsync.ServerState.CONNECTED
        manager.call_tool("a__t_get_issue", {"id": "8"})
        assert starts(a) == 1


def test_twenty_threads_calling_an_idle_server_start_it_once(tmp_path: Path) -> None:
    """Calls that arrive together at an idle server all wait for the one start, and all get their result."""
    cache, marker = tmp_path / "tools.json", tmp_path / "a.started"
    config = {"mcpServers": {"a": entry(marker)}}
    warmed(config, cache, [marker])
    with mcpsync.Manager(config, tool_cache=cache, start="lazy", startup_timeout=T) as manager:
        gate = threading.Barrier(20)
        results: list[Any] = []

        def call(number: int) -> None:
            gate.wait(T)
            try:
                results.append(manager.call_tool("a__t_get_issue", {"id": str(number)}, timeout=T).text)
            except Exception as exc:  # reported below, with the others
                results.append(exc)

        threads = [threading.Thread(target=call, args=(n,)) for n in range(20)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(T)
        assert not any(thread.is_alive() for thread in threads)
        assert sorted(map(str, results)) == sorted(f't_get_issue: done ({{"id": "{n}"}})' for n in range(20))
        assert starts(marker) == 1


def test_a_server_that_fails_to_start_on_first_use_tells_that_call_why(tmp_path: Path) -> None:
    """The cached list says the tool is there; the server then fails to start: the call gets
    ServerUnavailable with the cause (its exit and stderr), not a hang or an unknown name; the next call
    is answered per the reconnect rules (failed, until the slow retry)."""
    cache = tmp_path / "tools.json"
    dying = {
        "command": sys.executable,
        "args": ["-c", "import sys; sys.stderr.write('boom: no token\\n'); sys.exit(3)"],
    }
    loaded = mcpsync.parse_config({"mcpServers": {"d": dying}})
    ToolCache(cache).put("d", loaded.servers["d"].config, [{"name": "t_get_issue", "inputSchema": {"type": "object"}}])
    with mcpsync.Manager(loaded, tool_cache=cache, start="lazy", startup_timeout=T) as manager:
        assert manager.status()["d"].state is mcpsync.ServerState.IDLE
        with pytest.raises(mcpsync.ServerUnavailable) as caught:
            manager.call_tool("d__t_get_issue", {}, timeout=T)
        assert "boom: no token" in str(caught.value) and "failed" in str(caught.value)
        assert isinstance(caught.value.__cause__, mcpsync.TransportClosed)
        assert manager.status()["d"].state is mcpsync.ServerState.FAILED
        with pytest.raises(mcpsync.ServerUnavailable, match="boom: no token"):
            manager.call_tool("d__t_get_issue", {}, timeout=T)


def test_a_stale_cache_starts_the_server_at_once(tmp_path: Path) -> None:
    """A cached list past its age does not count: the server is started by the constructor, as today."""
    cache, marker = tmp_path / "tools.json", tmp_path / "a.started"
    config = {"mcpServers": {"a": entry(marker)}}
    warmed(config, cache, [marker])
    stale = ToolCache(cache, max_age=-1.0)
    with mcpsync.Manager(config, tool_cache=stale, start="lazy", startup_timeout=T) as manager:
        assert manager.status()["a"].state is mcpsync.ServerState.CONNECTED
        assert starts(marker) == 1


def test_an_idle_server_is_closed_without_being_started(tmp_path: Path) -> None:
    """Closing a manager whose server was never used leaves nothing to stop and starts nothing; a bad start= is refused."""
    cache, marker = tmp_path / "tools.json", tmp_path / "a.started"
    config = {"mcpServers": {"a": entry(marker)}}
    warmed(config, cache, [marker])
    manager = mcpsync.Manager(config, tool_cache=cache, start="lazy", startup_timeout=T)
    manager.close()
    assert manager.status()["a"].state is mcpsync.ServerState.CLOSED
    assert starts(marker) == 0
    with pytest.raises(mcpsync.ServerUnavailable, match="closed"):
        manager.call_tool("a__t_get_issue", {"id": "1"})
    assert starts(marker) == 0
    with pytest.raises(mcpsync.ConfigurationError, match="start must be one of"):
        mcpsync.Manager(config, tool_cache=cache, start="later")


def test_a_tool_missing_from_the_cached_list_starts_the_idle_server_and_is_found_live(tmp_path: Path) -> None:
    """The cached list is older than the server (it lacks a tool the server has now): calling that tool
    starts the idle server and runs the tool from its live list, rather than calling the name unknown.
    A filtered-out tool of the cached list is refused without starting the server."""
    cache, marker = tmp_path / "tools.json", tmp_path / "a.started"
    config = mcpsync.parse_config({"mcpServers": {"a": {**entry(marker), "excludeTools": ["t_create_*"]}}})
    server_config = config.servers["a"].config
    assert server_config is not None
    old_list = [
        {"name": "t_get_issue", "inputSchema": {"type": "object"}},
        {"name": "t_create_issue", "inputSchema": {"type": "object"}},
    ]
    ToolCache(cache).put("a", server_config, old_list)
    with mcpsync.Manager(config, tool_cache=cache, start="lazy", startup_timeout=T) as manager:
        assert [tool.name for tool in manager.list_tools()] == ["a__t_get_issue"]
        with pytest.raises(mcpsync.UnknownNameError, match="excluded by excludeTools"):
            manager.call_tool("a__t_create_issue", {})
        assert starts(marker) == 0
        result = manager.call_tool("a__t_list_issues", {}, timeout=T)
        assert result.structured_content == {"tool": "t_list_issues", "arguments": {}}
        assert starts(marker) == 1


def test_start_server_starts_an_idle_server_without_a_call(tmp_path: Path) -> None:
    """start_server(name) starts an idle server at once and returns without waiting; the server is then
    connected without any call; on a running server, or again, it does nothing."""
    cache, marker = tmp_path / "tools.json", tmp_path / "a.started"
    config = {"mcpServers": {"a": entry(marker)}}
    warmed(config, cache, [marker])
    with mcpsync.Manager(config, tool_cache=cache, start="lazy", startup_timeout=T) as manager:
        assert manager.status()["a"].state is mcpsync.ServerState.IDLE
        manager.start_server("a")
        assert manager.status()["a"].state is not mcpsync.ServerState.IDLE
        assert manager.wait_until_ready(T)
        assert manager.status()["a"].state is mcpsync.ServerState.CONNECTED
        manager.start_server("a")
        assert starts(marker) == 1
        with pytest.raises(mcpsync.UnknownNameError):
            manager.start_server("b")
