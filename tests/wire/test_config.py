"""mcpsync._wire.config: what connect() accepts, and clear errors for what it does not."""

import pytest

import mcpsync
from mcpsync._wire.config import server_config_from, server_config_from_dict


def test_mcp_servers_entry_with_timeout_in_milliseconds():
    config = server_config_from_dict(
        {"command": "npx", "args": ["-y", "pkg"], "env": {"A": "1"}, "timeout": 1500}, "github"
    )
    assert config == mcpsync.StdioServerConfig("npx", ("-y", "pkg"), env={"A": "1"}, timeout=1.5, name="github")


def test_type_is_inferred_from_url_and_explicit_sse_is_kept():
    assert isinstance(server_config_from_dict({"url": "http://127.0.0.1:1/mcp"}), mcpsync.HTTPServerConfig)
    sse = server_config_from_dict({"type": "sse", "url": "https://h/sse", "headers": {"X": "y"}})
    assert sse.type == "sse" and sse.headers == {"X": "y"}


@pytest.mark.parametrize(
    "entry, words",
    [
        ({"command": "x", "url": "http://h"}, "both 'command' and 'url'"),
        ({"type": "stdio"}, "needs 'command'"),
        ({"type": "http"}, "needs 'url'"),
        ({"type": "websocket", "url": "ws://h"}, "unknown 'type' 'websocket'"),
        ({"command": ""}, "'command' must be a non-empty string"),
        ({"command": "x", "args": "a b"}, "'args' must be a list of strings"),
        ({"command": "x", "env": {"A": 1}}, "'env' must map strings to strings"),
        ({"command": "x", "timeout": "soon"}, "'timeout' must be milliseconds"),
        ({"command": "x", "timeout": -5}, "timeout must be positive"),
        ({"url": "ftp://h"}, "'url' must be an http:// or https:// URL"),
    ],
)
def test_bad_entries_name_the_server_and_field(entry, words):
    with pytest.raises(mcpsync.ConfigurationError) as info:
        server_config_from_dict(entry, "srv")
    assert words in str(info.value)
    assert "'srv'" in str(info.value) or "server" in str(info.value)
    assert isinstance(info.value, ValueError)


def test_connect_targets():
    assert server_config_from("uvx mcp-server-fetch --x 'a b'").args == ("mcp-server-fetch", "--x", "a b")
    assert server_config_from(["python", "-m", "srv"]).command == "python"
    assert isinstance(server_config_from("https://example.invalid/mcp"), mcpsync.HTTPServerConfig)
    with pytest.raises(mcpsync.ConfigurationError):
        server_config_from([])
    with pytest.raises(mcpsync.ConfigurationError):
        server_config_from(42)


@pytest.mark.parametrize(
    "command, args, name",
    [
        ("python", ["-m", "pkg.server"], "pkg.server"),
        ("/usr/bin/python3", ["server.py"], "server.py"),
        ("npx", ["-y", "@scope/server-github@1.2"], "server-github"),
        ("my-server", ["--port", "1"], "my-server"),
    ],
)
def test_display_name_prefers_what_a_launcher_runs(command, args, name):
    assert mcpsync.StdioServerConfig(command, args).display_name == name


def test_a_url_nobody_listens_on_is_a_clear_connect_error():
    import socket

    with socket.socket() as probe:  # a port that was free a moment ago: nobody listens there
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(mcpsync.ConnectError) as info:
        mcpsync.connect(f"http://127.0.0.1:{port}/mcp", timeout=5)
    assert f"cannot connect to http://127.0.0.1:{port}/mcp" in str(info.value)
