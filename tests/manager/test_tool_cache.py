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


def test_a_private_tool_list_is_never_written_and_removes_what_was(tmp_path):
    """``cacheScope: "private"``: the file is read by every run, whatever token it has, so a private list
    is not written, and an earlier (public) entry of the server is removed; a public one is kept."""
    path = tmp_path / "tools.json"
    config = StdioServerConfig("python", name="s")
    cache = ToolCache(path)
    cache.put("s", config, TOOLS, "public")
    cache.put("t", config, TOOLS)
    assert cache.get("s", config) == TOOLS
    cache.put("s", config, [{"name": "mine", "inputSchema": {"type": "object"}}], "private")
    assert cache.get("s", config) is None and cache.get("t", config) == TOOLS
    assert "mine" not in path.read_text()


def test_a_manager_never_writes_a_servers_private_tool_list(tmp_path):
    """A server whose ``tools/list`` says ``cacheScope: "private"`` (and one that says ``"public"``):
    the manager offers both servers' tools, and the tool cache holds the public list only (the
    unfixed manager wrote both)."""
    import mcpsync
    from tests.helpers import scripted_server

    def server(scope: str, tool: str) -> dict:
        command = scripted_server(
            {"tools/list": [{"tools": [{"name": tool, "inputSchema": {"type": "object"}}], "cacheScope": scope}]}
        )
        return {"command": command[0], "args": command[1:]}

    path = tmp_path / "tools.json"
    servers = {"mine": server("private", "secret_tool"), "shared": server("public", "shared_tool")}
    with mcpsync.Manager(servers, tool_cache=path, startup_timeout=20) as manager:
        assert {tool.name for tool in manager.list_tools()} == {"mine__secret_tool", "shared__shared_tool"}
    written = path.read_text()
    assert "shared_tool" in written and "secret_tool" not in written
