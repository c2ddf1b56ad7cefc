"""mcpsync.tool_cache: tool lists of earlier runs, keyed by server name and configuration, with expiry."""

import json
import time

from mcpsync import HTTPServerConfig, StdioServerConfig
from mcpsync._manager.tool_cache import ToolCache, config_key

TOOLS = [{"name": "echo", "inputSchema": {"type": "object"}}]


def test_round_trip_and_keying_by_name_and_configuration(tmp_path):
    cache = ToolCache(tmp_path / "sub" / "tools.json")
    config = StdioServerConfig("python", ["server.py"], env={"TOKEN": "secret"}, name="s")
    assert cache.get("s", config) is None
    cache.put("s", config, TOOLS)
    assert cache.get("s", config) == TOOLS
    assert ToolCache(tmp_path / "sub" / "tools.json").get("s", config) == TOOLS  # another process, the same file
    assert cache.get("other", config) is None
    assert cache.get("s", StdioServerConfig("python", ["server.py"], env={"TOKEN": "changed"}, name="s")) is None
    assert "secret" not in (tmp_path / "sub" / "tools.json").read_text()  # only a hash of the configuration


def test_keys_differ_by_transport_and_url():
    http = HTTPServerConfig("http://127.0.0.1:1/mcp", name="s")
    assert config_key(http) != config_key(HTTPServerConfig("http://127.0.0.1:2/mcp", name="s"))
    assert config_key(http) != config_key(HTTPServerConfig("http://127.0.0.1:1/mcp", type="sse", name="s"))
    assert config_key(http) == config_key(HTTPServerConfig("http://127.0.0.1:1/mcp", name="s"))


def test_old_entries_expire_and_are_dropped_on_write(tmp_path):
    path = tmp_path / "tools.json"
    config = StdioServerConfig("python", name="s")
    cache = ToolCache(path, max_age=60)
    cache.put("s", config, TOOLS)
    data = json.loads(path.read_text())
    data["servers"]["s"]["saved"] = time.time() - 120
    path.write_text(json.dumps(data))
    assert cache.get("s", config) is None
    cache.put("t", config, TOOLS)
    assert set(json.loads(path.read_text())["servers"]) == {"t"}


def test_a_broken_cache_is_ignored_and_replaced(tmp_path, caplog):
    path = tmp_path / "tools.json"
    path.write_text("{not json")
    cache = ToolCache(path)
    config = StdioServerConfig("python", name="s")
    assert cache.get("s", config) is None
    assert "unreadable" in caplog.text
    cache.put("s", config, TOOLS)
    assert cache.get("s", config) == TOOLS
    path.write_text(json.dumps({"version": 1, "servers": {"s": {"key": config_key(config), "saved": "x"}}}))
    assert cache.get("s", config) is None  # wrong types: ignored, not raised


def test_an_unwritable_cache_is_logged_not_raised(tmp_path, caplog):
    blocker = tmp_path / "file"
    blocker.write_text("")
    cache = ToolCache(blocker / "tools.json")  # its directory cannot be made: a file is in the way
    cache.put("s", StdioServerConfig("python", name="s"), TOOLS)
    assert "refused, not used: it is not a directory" in caplog.text
    assert list(tmp_path.iterdir()) == [blocker]  # no temporary file left behind


def test_a_cache_nested_without_end_is_logged_and_ignored(tmp_path, caplog):
    """100,000 levels: json gives RecursionError, which must not escape a Manager's constructor."""
    path = tmp_path / "tools.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    config = StdioServerConfig("python", name="s")
    assert ToolCache(path).get("s", config) is None
    assert "unreadable, ignored: nested too deeply" in caplog.text
    path.write_text(
        json.dumps({"version": 1, "servers": {"s": {"tools": [[[[[[[[]]]]]]]] * 1}}}).replace(
            "[]", "[" * 300 + "]" * 300
        )
    )
    assert ToolCache(path).get("s", config) is None
    assert "nested deeper than 200 levels, ignored" in caplog.text


def test_a_manager_starts_despite_a_cache_nested_without_end(tmp_path, caplog):
    import mcpsync
    from mcpsync.testing import server_config

    path = tmp_path / "tools.json"
    path.write_text("{" * 100_000)
    entry = {"command": server_config().command, "args": list(server_config().args)}
    with mcpsync.Manager({"srv": entry}, tool_cache=path, startup_timeout=20) as manager:
        assert manager.call_tool("srv__echo", {"text": "ok"}, timeout=20).text == "ok"
    assert "unreadable, ignored" in caplog.text


def test_a_private_tool_list_is_kept_only_under_a_configuration_that_is_its_whole_context(tmp_path):
    """``cacheScope: "private"``: the file is read by every run. Authorized by OAuth (the account is
    not in the configuration), a private list is not written, an earlier entry of the server is
    removed, and ``put`` says why; with its context in the configuration (stdio) it is kept."""
    path = tmp_path / "tools.json"
    config = StdioServerConfig("python", name="s")
    cache = ToolCache(path)
    cache.put("s", config, TOOLS, "public")
    cache.put("t", config, TOOLS)
    assert cache.get("s", config) == TOOLS
    why = cache.put("s", config, [{"name": "mine", "inputSchema": {"type": "object"}}], "private")
    assert why == "its tool list is private (cacheScope) and it is authorized by OAuth: not cached"
    assert cache.get("s", config) is None and cache.get("t", config) == TOOLS
    assert "mine" not in path.read_text()
    mine = [{"name": "mine", "inputSchema": {"type": "object"}}]
    assert cache.put("s", config, mine, "private", context_in_config=True) is None
    assert cache.get("s", config) == mine


def test_lookup_says_why_a_server_has_no_cached_list(tmp_path):
    path = tmp_path / "tools.json"
    cache = ToolCache(path, max_age=60)
    config = StdioServerConfig("python", name="s")
    cache.put("old", config, TOOLS)
    cache.put("moved", config, TOOLS)
    data = json.loads(path.read_text())
    data["servers"]["old"]["saved"] = time.time() - 120
    path.write_text(json.dumps(data))
    found, missing = cache.lookup({"old": config, "moved": StdioServerConfig("python3", name="moved"), "new": config})
    assert found == {}
    assert missing == {
        "old": "the cached tool list is older than 60 s (or dated ahead)",
        "moved": "the cached tool list is of another configuration of it",
        "new": "no tool list cached yet",
    }


def private_server(tool: str, log=None) -> dict:
    """A stdio server whose ``tools/list`` says ``cacheScope: "private"`` (as the official SDK 2.3's do)."""
    from tests.helpers import scripted_server

    command = scripted_server(
        {"tools/list": [{"tools": [{"name": tool, "inputSchema": {"type": "object"}}], "cacheScope": "private"}]},
        log,
    )
    return {"command": command[0], "args": command[1:]}


def test_a_stdio_servers_private_tool_list_is_cached_and_a_lazy_manager_leaves_it_idle(tmp_path):
    """Issue 37, point 2: the official SDK 2.3's servers mark their lists private, and a lazy manager
    started them on every run. A stdio server's context is its configuration: the list is kept under
    it, and the next lazy run offers the tool without starting the server; ``status()`` says why
    the first run started it."""
    import mcpsync

    path = tmp_path / "tools.json"
    log = tmp_path / "received.jsonl"
    servers = {"mine": private_server("secret_tool", log)}
    with mcpsync.Manager(servers, tool_cache=path, start="lazy", startup_timeout=20) as manager:
        assert manager.status()["mine"].not_idle == "started at once: no tool list cached yet"
        assert {tool.name for tool in manager.list_tools()} == {"mine__secret_tool"}
    assert "secret_tool" in path.read_text()
    log.unlink()
    with mcpsync.Manager(servers, tool_cache=path, start="lazy", startup_timeout=20) as manager:
        status = manager.status()["mine"]
        assert status.state is mcpsync.ServerState.IDLE and status.not_idle is None
        assert [tool.name for tool in manager.list_tools()] == ["mine__secret_tool"]
    assert not log.exists()  # never started


def test_status_says_a_lazy_server_was_started_because_it_was_first_used(tmp_path):
    import mcpsync

    path = tmp_path / "tools.json"
    servers = {"mine": private_server("secret_tool")}
    with mcpsync.Manager(servers, tool_cache=path, start="lazy", startup_timeout=20):
        pass
    with mcpsync.Manager(servers, tool_cache=path, start="lazy", startup_timeout=20) as manager:
        manager.client("mine", timeout=20)
        assert manager.status()["mine"].not_idle == "first used"
    with mcpsync.Manager(servers, tool_cache=False, start="lazy", startup_timeout=20) as manager:
        assert manager.status()["mine"].not_idle == (
            "started at once: the manager has no tool cache (tool_cache=False)"
        )
