"""OAuth settings in configuration files, and the manager: each server authorized on its own."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

import mcpsync
from mcpsync import ConfigurationError
from mcpsync._auth import browser
from mcpsync._manager.config_files import load_config, parse_config
from mcpsync.testing import server_config
from tests.oauth_server import OAuthTestServer

T = 20


def test_an_entrys_oauth_settings_as_other_clients_write_them():
    config = parse_config(
        {
            "mcpServers": {
                "remote": {
                    "url": "https://example.com/mcp",
                    "oauth": {
                        "enabled": True,
                        "clientId": "pre",
                        "clientSecret": "${SECRET}",
                        "scopes": ["read", "write"],
                        "callbackPort": 7777,
                        "authorizationUrl": "https://ignored.example/authorize",
                    },
                }
            }
        },
        environ={"SECRET": "from-the-environment"},
    )
    server = config.servers["remote"].config
    assert isinstance(server, mcpsync.HTTPServerConfig)
    assert server.oauth_options == {
        "client_id": "pre",
        "client_secret": "from-the-environment",
        "scopes": ["read", "write"],
        "redirect_port": 7777,
    }


def test_oauth_turned_off_in_the_config_means_no_auth_at_all():
    config = parse_config({"mcpServers": {"r": {"url": "https://example.com/mcp", "oauth": {"enabled": False}}}})
    server = config.servers["r"].config
    assert isinstance(server, mcpsync.HTTPServerConfig) and server.oauth_options is None


@pytest.mark.parametrize(
    "oauth, message",
    [
        ({"clientID": "x"}, "unknown member 'oauth.clientID'; did you mean 'clientId'?"),
        ({"callbackPort": 0}, "'oauth.callbackPort' has the wrong type or value: 0"),
        ({"scopes": [1]}, "'oauth.scopes'"),
        ("yes", "'oauth' must be an object of OAuth settings"),
    ],
)
def test_bad_oauth_settings_name_the_member(tmp_path: Path, oauth, message):
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": {"r": {"url": "https://example.com/mcp", "oauth": oauth}}}))
    with pytest.raises(ConfigurationError) as info:
        load_config(path)
    assert message in str(info.value) and "'r'" in str(info.value)


def test_a_config_entrys_client_is_used_and_its_login_command_names_the_server(tmp_path: Path):
    with OAuthTestServer(clients={"pre": {"secret": "s"}}) as server:
        path = tmp_path / "mcp.json"
        entry = {"url": server.url, "oauth": {"clientId": "pre", "clientSecret": "s"}}
        path.write_text(
            json.dumps(
                {
                    "mcpServers": {
                        "remote": entry,
                        "local": {"command": server_config().command, "args": list(server_config().args)},
                    }
                }
            )
        )
        with mcpsync.Manager.from_config(path, startup_timeout=T, reconnect=False) as manager:
            status = manager.status()
            assert status["local"].state is mcpsync.ServerState.CONNECTED
            assert status["remote"].state is mcpsync.ServerState.FAILED
            assert "log in once with: mcpsync login remote" in str(status["remote"].error)
        assert server.requests_to("/register") == []


def test_a_server_waiting_for_a_login_does_not_hold_the_others(tmp_path: Path, monkeypatch):
    """The person takes their time with one server's login; the manager's other server works meanwhile."""
    with OAuthTestServer() as server:
        asked = threading.Event()
        go_on = threading.Event()

        def slow_person(url: str, receiver: browser.LoopbackReceiver, name: str, timeout: float) -> str:
            asked.set()
            assert go_on.wait(T)
            return server.approve(url)

        monkeypatch.setattr("mcpsync._auth.server_auth.someone_is_there", lambda: True)
        monkeypatch.setattr("mcpsync._auth.login.present", slow_person)
        config = {
            "mcpServers": {
                "remote": {"url": server.url},
                "local": {"command": server_config().command, "args": list(server_config().args)},
            }
        }
        with mcpsync.Manager(config, startup_timeout=0, reconnect=False) as manager:
            assert asked.wait(T)
            assert manager.call_tool("local__echo", {"text": "meanwhile"}, timeout=T).text == "meanwhile"
            assert manager.status()["remote"].state is mcpsync.ServerState.CONNECTING
            go_on.set()
            assert manager.call_tool("remote__echo", {"text": "after"}, timeout=T).text == "after"


@pytest.mark.slow("the person takes 2.5 s to log in during the managed connect")
def test_a_login_during_a_managed_connect_leaves_the_tool_list_its_time(tmp_path: Path, monkeypatch):
    """Scenario: ``"connectTimeout": 2000`` (ms); the person takes 2.5 s to log in during the handshake.
    Promise: the server connects: the tool list, which shares the connect bound with the handshake,
    is not left without time by the person's (that time is not the caller's)."""
    import time

    with OAuthTestServer() as server:

        def slow_person(url: str, receiver: browser.LoopbackReceiver, name: str, timeout: float) -> str:
            redirected = server.approve(url)
            time.sleep(2.5)  # the person's own time (not an ordering wait)
            return redirected

        monkeypatch.setattr("mcpsync._auth.server_auth.someone_is_there", lambda: True)
        monkeypatch.setattr("mcpsync._auth.login.present", slow_person)
        config = {"mcpServers": {"remote": {"url": server.url, "connectTimeout": 2000}}}
        with mcpsync.Manager(config, startup_timeout=0, reconnect=False, tool_cache=False) as manager:
            assert manager.wait_until_ready(T)
            status = manager.status()["remote"]
            assert status.state is mcpsync.ServerState.CONNECTED, status.error
            assert manager.call_tool("remote__echo", {"text": "x"}, timeout=T).text == "x"
