"""mcpsync.config_files and mcpsync.paths: the files other MCP clients write, read as they mean them."""

import json
from pathlib import Path

import pytest

from mcpsync import ConfigurationError
from mcpsync._core.paths import user_cache_dir, user_config_dir
from mcpsync._manager.config_files import LoadedConfig, discover_config_files, load_config, parse_config
from mcpsync._wire.config import HTTPServerConfig, StdioServerConfig


def write(path: Path, data) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) if not isinstance(data, str) else data, encoding="utf-8")
    return path


def error_of(data, environ=None, source="cfg.json") -> str:
    with pytest.raises(ConfigurationError) as info:
        parse_config(data, source=source, environ=environ or {})
    return str(info.value)


@pytest.fixture
def environ(tmp_path):
    """An environment whose user directory is inside tmp_path (never the real one)."""
    return {"HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": str(tmp_path / "xdg")}


# --- the shapes other clients write -------------------------------------------------


def test_claude_desktop_file(tmp_path):
    path = write(
        tmp_path / "claude_desktop_config.json",
        {
            "globalShortcut": "Ctrl+Space",
            "mcpServers": {
                "filesystem": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]},
                "github": {
                    "command": "docker",
                    "args": ["run", "-i", "ghcr.io/github/github-mcp-server"],
                    "env": {"GITHUB_TOKEN": "t0k"},
                },
            },
        },
    )
    config = load_config(path, environ={})
    assert config.sources == (str(path),)
    assert list(config.servers) == ["filesystem", "github"]
    assert config.enabled() == {
        "filesystem": StdioServerConfig(
            "npx", ("-y", "@modelcontextprotocol/server-filesystem", "/tmp"), name="filesystem"
        ),
        "github": StdioServerConfig(
            "docker", ("run", "-i", "ghcr.io/github/github-mcp-server"), env={"GITHUB_TOKEN": "t0k"}, name="github"
        ),
    }
    entry = config.servers["github"]
    assert entry.enabled and entry.source == str(path)
    assert entry.raw == {
        "command": "docker",
        "args": ["run", "-i", "ghcr.io/github/github-mcp-server"],
        "env": {"GITHUB_TOKEN": "t0k"},
    }
    assert "raw=" not in repr(entry)  # the entry as written may hold secrets


def test_claude_code_mcp_json_with_each_type(tmp_path):
    path = write(
        tmp_path / ".mcp.json",
        {
            "mcpServers": {
                "local": {"type": "stdio", "command": "python", "args": ["-m", "srv"], "cwd": "/srv", "timeout": 1500},
                "remote": {
                    "type": "http",
                    "url": "https://api.example.com/mcp",
                    "headers": {"Authorization": "Bearer x"},
                },
                "legacy": {"type": "sse", "url": "http://127.0.0.1:9000/sse"},
            }
        },
    )
    servers = load_config(path, environ={}).enabled()
    assert servers["local"] == StdioServerConfig("python", ("-m", "srv"), cwd="/srv", timeout=1.5, name="local")
    assert servers["remote"] == HTTPServerConfig(
        "https://api.example.com/mcp", headers={"Authorization": "Bearer x"}, type="http", name="remote"
    )
    assert servers["legacy"] == HTTPServerConfig("http://127.0.0.1:9000/sse", type="sse", name="legacy")


def test_cursor_file_infers_the_type_and_reads_env_references(tmp_path):
    path = write(
        tmp_path / "mcp.json",
        {
            "mcpServers": {
                "web": {"url": "https://mcp.example.com/mcp", "headers": {"X-Key": "${env:WEB_KEY}"}},
                "db": {"command": "uvx", "args": ["mcp-server-sqlite", "--db", "${DB_PATH}"]},
            }
        },
    )
    servers = load_config(path, environ={"WEB_KEY": "k1", "DB_PATH": "/data/x.db"}).enabled()
    assert servers["web"] == HTTPServerConfig("https://mcp.example.com/mcp", headers={"X-Key": "k1"}, name="web")
    assert servers["db"].args == ("mcp-server-sqlite", "--db", "/data/x.db")


def test_gemini_settings_with_http_url_and_its_own_keys(tmp_path):
    """Gemini CLI: httpUrl is Streamable HTTP; trust, includeTools, description are its own and ignored."""
    path = write(
        tmp_path / "settings.json",
        {
            "theme": "GitHub",
            "mcp": {"allowed": ["remote"]},
            "mcpServers": {
                "remote": {"httpUrl": "https://h.example/mcp", "headers": {"A": "b"}, "timeout": 30000, "trust": True},
                "py": {
                    "command": "python",
                    "args": ["s.py"],
                    "cwd": "./tools",
                    "includeTools": ["x"],
                    "description": "d",
                },
            },
        },
    )
    servers = load_config(path, environ={}).enabled()
    assert servers["remote"] == HTTPServerConfig(
        "https://h.example/mcp", headers={"A": "b"}, type="http", timeout=30.0, name="remote"
    )
    assert servers["py"] == StdioServerConfig("python", ("s.py",), cwd="./tools", name="py")


@pytest.mark.parametrize(
    ("entry", "problem"),
    [
        ({"comand": "npx"}, "cfg.json: server 's': unknown member 'comand'; did you mean 'command'?"),
        ({"command": "npx", "arg": ["x"]}, "cfg.json: server 's': unknown member 'arg'; did you mean 'args'?"),
        ({"url": "https://h/mcp", "header": {}}, "unknown member 'header'; did you mean 'headers'?"),
        ({"command": "npx", "disabeld": True}, "unknown member 'disabeld'; did you mean 'disabled'?"),
        ({"enabled": False, "comand": "npx"}, "unknown member 'comand'; did you mean 'command'?"),
    ],
)
def test_an_unknown_member_close_to_a_known_one_is_an_error_that_suggests_it(entry, problem):
    """A typo of a member mcpsync reads would otherwise be ignored, and the server not start as meant."""
    assert problem in error_of({"mcpServers": {"s": entry}})


def test_members_other_clients_write_are_accepted_and_other_unknown_ones_are_warned_about(caplog):
    """Cline's alwaysAllow, Amazon Q's autoApprove, Gemini's trust... are real files: never an error, no warning."""
    theirs = {
        "alwaysAllow": ["a"],
        "autoApprove": [],
        "trust": True,
        "description": "d",
        "disabledTools": ["b"],
        "envFile": ".env",
        "type": "stdio",
        "cwd": ".",
        "env": {"A": "b"},
        "timeout": 1000,
        "disabled": False,
    }
    with caplog.at_level("WARNING", logger="mcpsync"):
        config = parse_config({"mcpServers": {"s": {"command": "npx", **theirs}}}, source="cfg.json", environ={})
    assert config.enabled()["s"].command == "npx"
    assert caplog.records == []
    with caplog.at_level("WARNING", logger="mcpsync"):
        parse_config({"mcpServers": {"s": {"command": "npx", "flavour": "x"}}}, source="cfg.json", environ={})
    assert [r.getMessage() for r in caplog.records] == ["cfg.json: server 's': unknown member 'flavour', ignored"]


def test_vscode_servers_and_inputs(tmp_path):
    path = write(
        tmp_path / ".vscode" / "mcp.json",
        {
            "inputs": [{"type": "promptString", "id": "api-key", "description": "API key", "password": True}],
            "servers": {
                "fetch": {"type": "stdio", "command": "uvx", "args": ["mcp-server-fetch"]},
                "api": {
                    "type": "http",
                    "url": "https://api.example/mcp",
                    "headers": {"Authorization": "Bearer ${env:API_TOKEN}"},
                },
            },
        },
    )
    servers = load_config(path, environ={"API_TOKEN": "abc"}).enabled()
    assert servers["fetch"] == StdioServerConfig("uvx", ("mcp-server-fetch",), name="fetch")
    assert servers["api"].headers == {"Authorization": "Bearer abc"}


@pytest.mark.parametrize("alias", ["streamableHttp", "streamable-http"])
def test_other_clients_names_for_streamable_http(alias):
    """Cline writes "streamableHttp", Roo Code "streamable-http": both are our "http"."""
    config = parse_config({"mcpServers": {"s": {"type": alias, "url": "https://h/mcp"}}}, environ={})
    assert config.enabled()["s"] == HTTPServerConfig("https://h/mcp", type="http", name="s")


def test_a_bom_at_the_start_of_the_file_is_accepted(tmp_path):
    path = tmp_path / "mcp.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps({"mcpServers": {"a": {"command": "x"}}}).encode())
    assert load_config(path, environ={}).enabled()["a"].command == "x"


def test_a_bare_mapping_of_servers_is_accepted_from_code_only(tmp_path):
    bare = {"a": {"command": "x"}, "b": {"url": "https://h/mcp"}, "c": {"httpUrl": "https://h/mcp"}}
    config = parse_config(bare, environ={})
    assert list(config.enabled()) == ["a", "b", "c"]
    assert config.sources == () and config.servers["a"].source == "<dict>"
    assert parse_config({}, environ={}) == LoadedConfig({}, ())
    path = write(tmp_path / "bare.json", bare)
    with pytest.raises(ConfigurationError, match=r"bare\.json: no 'mcpServers' or 'servers' object at the top level"):
        load_config(path, environ={})


def test_a_mapping_that_is_not_all_servers_is_not_taken_for_a_bare_one():
    assert (
        error_of({"a": {"command": "x"}, "b": {"args": []}})
        == "cfg.json: no 'mcpServers' or 'servers' object at the top level"
    )


# --- switched off -------------------------------------------------------------------


def test_enabled_false_disabled_true_and_disabled_servers_switch_a_server_off():
    """Switched-off servers keep their place and source, have no config, and are neither expanded nor checked."""
    config = parse_config(
        {
            "mcpServers": {
                "on": {"command": "x", "enabled": True, "disabled": False},
                "off1": {"command": "${UNSET}", "enabled": False},
                "off2": {"type": "websocket", "disabled": True},
                "off3": {"args": "not a list"},
            },
            "disabledServers": ["off3", "not-defined-anywhere"],
        },
        source="f.json",
        environ={},
    )
    assert list(config.servers) == ["on", "off1", "off2", "off3"]
    assert list(config.enabled()) == ["on"]
    for name in ("off1", "off2", "off3"):
        entry = config.servers[name]
        assert (entry.enabled, entry.config, entry.source) == (False, None, "f.json")
    assert config.servers["off1"].raw == {"command": "${UNSET}", "enabled": False}


@pytest.mark.parametrize(
    "entry, message",
    [
        ({"command": "x", "enabled": "no"}, "cfg.json: server 's': 'enabled' must be true or false, not 'no'"),
        ({"command": "x", "disabled": 1}, "cfg.json: server 's': 'disabled' must be true or false, not 1"),
        ("npx server", "cfg.json: server 's': expected an object, not a string"),
    ],
)
def test_the_switches_themselves_are_checked(entry, message):
    assert error_of({"mcpServers": {"s": entry}}) == message


# --- ${VAR} expansion ---------------------------------------------------------------


def test_expansion_in_every_field_with_defaults():
    entry = {
        "command": "${BIN_DIR}/server",
        "args": ["--port", "${PORT:-8080}", "--mode=${MODE:-fast}", "${A:-unused}${B}"],
        "env": {"TOKEN": "${env:TOKEN}", "EMPTY": "${EMPTY}"},
        "cwd": "${HOME_DIR:-/tmp}/work",
    }
    environ = {"BIN_DIR": "/opt/bin", "MODE": "", "A": "x", "B": "y", "TOKEN": "s3", "EMPTY": ""}
    config = parse_config({"mcpServers": {"s": entry}}, environ=environ).enabled()["s"]
    # ":-" also replaces an empty value, as in a shell; a set empty value without a default stays empty.
    assert config == StdioServerConfig(
        "/opt/bin/server",
        ("--port", "8080", "--mode=fast", "xy"),
        env={"TOKEN": "s3", "EMPTY": ""},
        cwd="/tmp/work",
        name="s",
    )
    assert parse_config({"mcpServers": {"s": entry}}, environ=environ).servers["s"].raw == entry


def test_expansion_in_url_and_headers():
    entry = {"type": "sse", "url": "https://${HOST}/sse", "headers": {"Authorization": "Bearer ${env:KEY}"}}
    config = parse_config({"servers": {"s": entry}}, environ={"HOST": "h.example", "KEY": "k"}).enabled()["s"]
    assert (config.url, config.headers) == ("https://h.example/sse", {"Authorization": "Bearer k"})


def test_expansion_reads_os_environ_by_default(monkeypatch):
    monkeypatch.setenv("MCPSYNC_TEST_COMMAND", "from-os-environ")
    assert (
        parse_config({"mcpServers": {"s": {"command": "${MCPSYNC_TEST_COMMAND}"}}}).enabled()["s"].command
        == "from-os-environ"
    )


@pytest.mark.parametrize(
    "entry, message",
    [
        (
            {"command": "npx", "env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}},
            ".mcp.json: server 's': env.GITHUB_TOKEN: ${GITHUB_TOKEN} is not set",
        ),
        ({"command": "${BIN}"}, ".mcp.json: server 's': command: ${BIN} is not set"),
        ({"command": "x", "args": ["a", "--k=${env:K}"]}, ".mcp.json: server 's': args[1]: ${env:K} is not set"),
        ({"command": "x", "cwd": "${D}"}, ".mcp.json: server 's': cwd: ${D} is not set"),
        ({"url": "${URL}"}, ".mcp.json: server 's': url: ${URL} is not set"),
        ({"httpUrl": "https://${H}/mcp"}, ".mcp.json: server 's': httpUrl: ${H} is not set"),
        (
            {"url": "https://h", "headers": {"X-Key": "${KEY}"}},
            ".mcp.json: server 's': headers.X-Key: ${KEY} is not set",
        ),
    ],
)
def test_an_unset_variable_names_the_file_server_and_field(entry, message):
    assert error_of({"mcpServers": {"s": entry}}, source=".mcp.json") == message


def test_vscode_input_references_are_not_supported():
    message = error_of({"servers": {"api": {"url": "https://h", "headers": {"Key": "${input:api-key}"}}}})
    assert message.startswith("cfg.json: server 'api': headers.Key: ${input:api-key} asks the user for a value")
    assert "not supported" in message


@pytest.mark.parametrize("reference", ["${}", "${A-b}", "${1X}", "${A:=b}"])
def test_a_reference_that_is_not_a_variable_is_an_error(reference):
    message = error_of({"mcpServers": {"s": {"command": "x", "args": [reference]}}})
    assert (
        message
        == f"cfg.json: server 's': args[0]: {reference} is not a variable; write ${{NAME}} or ${{NAME:-default}}"
    )


# --- validation messages ------------------------------------------------------------


@pytest.mark.parametrize(
    "entry, problem",
    [
        ({"command": "x", "url": "https://h"}, "has both 'command' and 'url'; give one"),
        ({"command": "x", "httpUrl": "https://h"}, "has both 'command' and 'httpUrl'; give one"),
        ({"url": "https://h", "httpUrl": "https://h"}, "has both 'url' and 'httpUrl'; give one"),
        ({"type": "stdio", "args": ["a"]}, "a stdio server needs 'command'"),
        ({"type": "stdio", "url": "https://h"}, "a stdio server needs 'command'"),
        ({"type": "http", "command": "x"}, "an http server needs 'url' (or 'httpUrl')"),
        ({"type": "sse"}, "an sse server needs 'url'"),
        ({"type": "sse", "httpUrl": "https://h"}, "an sse server needs 'url'"),
        ({"args": ["a"]}, "needs 'command' (a stdio server) or 'url' (an http server)"),
        ({"type": "websocket", "url": "ws://h"}, "'type' must be 'stdio', 'http' or 'sse', not 'websocket'"),
        ({"command": ""}, "'command' must be a non-empty string, not ''"),
        ({"command": ["npx", "x"]}, "'command' must be a non-empty string, not ['npx', 'x']"),
        ({"command": "x", "args": "a b"}, "'args' must be a list of strings, not 'a b'"),
        ({"command": "x", "args": ["a", 3]}, "'args' must be a list of strings: args[1] is 3"),
        ({"command": "x", "env": {"A": 1}}, "'env' must be an object of strings: env.A is 1"),
        ({"command": "x", "env": ["A=1"]}, "'env' must be an object of strings, not ['A=1']"),
        ({"command": "x", "cwd": 7}, "'cwd' must be a string, not 7"),
        ({"url": "https://h", "headers": {"X": True}}, "'headers' must be an object of strings: headers.X is True"),
        ({"url": 5}, "'url' must be a string, not 5"),
        ({"command": "x", "timeout": "soon"}, "'timeout' must be a positive number of milliseconds, not 'soon'"),
        ({"command": "x", "timeout": 0}, "'timeout' must be a positive number of milliseconds, not 0"),
        ({"command": "x", "timeout": -5}, "'timeout' must be a positive number of milliseconds, not -5"),
        ({"command": "x", "timeout": True}, "'timeout' must be a positive number of milliseconds, not True"),
        ({"command": "x", "inheritEnv": "yes"}, "'inheritEnv' must be true or false, not 'yes'"),
        # Checked after expansion, by server_config_from_dict:
        ({"url": "ftp://h"}, "'url' must be an http:// or https:// URL, not 'ftp://h'"),
        ({"command": "${EMPTY}"}, "'command' must be a non-empty string, not ''"),
    ],
)
def test_every_validation_error_names_the_file_server_and_field(tmp_path, entry, problem):
    path = write(tmp_path / ".mcp.json", {"mcpServers": {"ok": {"command": "x"}, "bad": entry}})
    with pytest.raises(ConfigurationError) as info:
        load_config(path, environ={"EMPTY": ""})
    assert str(info.value) == f"{path}: server 'bad': {problem}"
    assert isinstance(info.value, ValueError)


def test_the_first_error_in_file_order_is_reported():
    """Two bad fields: the one written first is reported, the same every run."""
    assert error_of({"mcpServers": {"s": {"command": "x", "timeout": -1, "args": "a"}}}).endswith(
        "'timeout' must be a positive number of milliseconds, not -1"
    )
    assert error_of({"mcpServers": {"s": {"command": "x", "args": "a", "timeout": -1}}}).endswith(
        "'args' must be a list of strings, not 'a'"
    )


def test_a_long_bad_value_is_cut_in_the_message():
    message = error_of({"mcpServers": {"s": {"command": "x", "args": "y" * 500}}})
    assert message.endswith("'args' must be a list of strings, not '" + "y" * 56 + "...")


@pytest.mark.parametrize(
    "data, problem",
    [
        ({"servers": {}, "mcpServers": {}}, "has both 'mcpServers' and 'servers'; keep one"),
        ({"mcpServers": []}, "'mcpServers' must be an object mapping server names to servers, not []"),
        ({"servers": "x"}, "'servers' must be an object mapping server names to servers, not 'x'"),
        ({"mcpServers": {}, "disabledServers": "a"}, "'disabledServers' must be a list of server names, not 'a'"),
        (
            {"mcpServers": {}, "disabledServers": ["a", 2]},
            "'disabledServers' must be a list of server names: disabledServers[1] is 2",
        ),
        ({"servers": {}, "inputs": {}}, "'inputs' must be a list, not {}"),
    ],
)
def test_top_level_errors_name_the_file_and_member(data, problem):
    assert error_of(data) == f"cfg.json: {problem}"


@pytest.mark.parametrize(
    "text, problem",
    [
        ('{"theme": "dark"}', "no 'mcpServers' or 'servers' object at the top level"),
        ("[]", "expected a JSON object with 'mcpServers' or 'servers', not an array"),
        ('"mcpServers"', "expected a JSON object with 'mcpServers' or 'servers', not a string"),
        (
            '{\n  "mcpServers": {\n    "a": {"command": "x",}\n  }\n}',
            "not valid JSON: Expecting property name enclosed in double quotes at line 3, column 26",
        ),
        ('{\n  "mcpServers": {}\n', "not valid JSON: Expecting ',' delimiter at line 3, column 1"),
        ("", "not valid JSON: Expecting value at line 1, column 1"),
    ],
)
def test_file_level_errors(tmp_path, text, problem):
    path = write(tmp_path / "mcp.json", text)
    with pytest.raises(ConfigurationError) as info:
        load_config(path, environ={})
    assert str(info.value) == f"{path}: {problem}"


def test_a_file_that_is_not_utf8_is_an_error(tmp_path):
    path = tmp_path / "mcp.json"
    path.write_bytes(b'{"mcpServers": {"\xff": {}}}')
    with pytest.raises(ConfigurationError, match=r"mcp\.json: not UTF-8 text"):
        load_config(path, environ={})


def test_an_explicit_path_that_does_not_exist_is_an_error(tmp_path):
    with pytest.raises(ConfigurationError, match=r"missing\.json: no such configuration file"):
        load_config(tmp_path / "missing.json", environ={})


def test_an_explicit_relative_path_is_read_from_cwd_and_only_that_file(tmp_path, environ):
    write(tmp_path / "conf" / "servers.json", {"mcpServers": {"a": {"command": "x"}}})
    write(tmp_path / ".mcp.json", {"mcpServers": {"b": {"command": "y"}}})
    config = load_config("conf/servers.json", cwd=tmp_path, environ=environ)
    assert list(config.servers) == ["a"]
    assert config.sources == (str(tmp_path / "conf" / "servers.json"),)


def test_the_shipped_schema_is_valid_and_describes_whole_files():
    """The schema's root (for editors) agrees with the parts the loader checks."""
    from importlib import resources

    from jsonschema import Draft202012Validator

    text = resources.files("mcpsync._manager").joinpath("mcp-config.schema.json").read_text("utf-8")
    schema = json.loads(text)
    Draft202012Validator.check_schema(schema)
    validator = Draft202012Validator(schema)
    assert validator.is_valid({"mcpServers": {"a": {"command": "x"}, "off": {"enabled": False, "type": "websocket"}}})
    assert validator.is_valid({"servers": {"a": {"type": "http", "url": "https://h"}}, "inputs": []})
    assert not validator.is_valid({"mcpServers": {"a": {"command": "x", "url": "https://h"}}})
    assert not validator.is_valid({"mcpServers": {"off": {"enabled": "no"}}})
    assert not validator.is_valid({"theme": "dark"})


def test_every_member_the_schema_checks_has_words_for_its_errors():
    from importlib import resources

    from mcpsync._manager.config_files import _EXPECTED

    schema = json.loads(resources.files("mcpsync._manager").joinpath("mcp-config.schema.json").read_text("utf-8"))
    for part in ("file", "entry", "server"):
        assert set(schema["$defs"][part]["properties"]) <= set(_EXPECTED), part


# --- discovery ----------------------------------------------------------------------


def test_discovery_order_first_file_wins_and_each_server_knows_its_source(tmp_path, environ):
    project = tmp_path / "project"
    named = write(tmp_path / "named.json", {"mcpServers": {"shared": {"command": "from-named"}, "n": {"command": "n"}}})
    dot = write(project / ".mcp.json", {"mcpServers": {"shared": {"command": "from-dot"}, "d": {"command": "d"}}})
    plain = write(project / "mcp.json", {"servers": {"d": {"command": "from-plain"}, "p": {"command": "p"}}})
    user = write(
        user_config_dir(environ=environ) / "mcp.json",
        {"mcpServers": {"p": {"command": "from-user"}, "u": {"command": "u"}}},
    )
    environ["MCPSYNC_CONFIG"] = str(named)

    assert discover_config_files(environ=environ, cwd=project) == [named, dot, plain, user]
    config = load_config(environ=environ, cwd=project)
    assert config.sources == (str(named), str(dot), str(plain), str(user))
    assert list(config.servers) == ["shared", "n", "d", "p", "u"]
    assert {name: (e.config.command, e.source) for name, e in config.servers.items()} == {
        "shared": ("from-named", str(named)),
        "n": ("n", str(named)),
        "d": ("d", str(dot)),
        "p": ("p", str(plain)),
        "u": ("u", str(user)),
    }


def test_a_server_shadowed_by_an_earlier_file_is_not_expanded(tmp_path, environ):
    """The user file's 'github' needs a variable that is not set; the project's 'github' wins, so no error."""
    write(tmp_path / ".mcp.json", {"mcpServers": {"github": {"command": "gh-local"}}})
    write(
        user_config_dir(environ=environ) / "mcp.json",
        {"mcpServers": {"github": {"command": "x", "env": {"T": "${GITHUB_TOKEN}"}}}},
    )
    assert load_config(environ=environ, cwd=tmp_path).enabled()["github"].command == "gh-local"


def test_discovery_reads_only_the_files_that_exist(tmp_path, environ):
    plain = write(tmp_path / "mcp.json", {"mcpServers": {"a": {"command": "x"}}})
    assert discover_config_files(environ=environ, cwd=tmp_path) == [plain]


def test_no_file_at_all_is_an_empty_config(tmp_path, environ):
    assert discover_config_files(environ=environ, cwd=tmp_path) == []
    assert load_config(environ=environ, cwd=tmp_path) == LoadedConfig({}, ())


def test_mcpsync_config_naming_a_missing_file_is_an_error(tmp_path, environ):
    write(tmp_path / ".mcp.json", {"mcpServers": {}})
    environ["MCPSYNC_CONFIG"] = "nowhere.json"
    with pytest.raises(ConfigurationError) as info:
        load_config(environ=environ, cwd=tmp_path)
    assert str(info.value) == f"$MCPSYNC_CONFIG names {tmp_path / 'nowhere.json'}, which is not a file"


def test_mcpsync_config_naming_a_discovered_file_reads_it_once(tmp_path, environ):
    dot = write(tmp_path / ".mcp.json", {"mcpServers": {"a": {"command": "x"}}})
    environ["MCPSYNC_CONFIG"] = ".mcp.json"
    assert discover_config_files(environ=environ, cwd=tmp_path) == [dot]


def test_errors_in_discovered_files_name_that_file(tmp_path, environ):
    write(tmp_path / ".mcp.json", {"mcpServers": {"a": {"command": "x"}}})
    user = write(user_config_dir(environ=environ) / "mcp.json", {"mcpServers": {"b": {"type": "sse"}}})
    with pytest.raises(ConfigurationError) as info:
        load_config(environ=environ, cwd=tmp_path)
    assert str(info.value) == f"{user}: server 'b': an sse server needs 'url'"


# --- platform directories -----------------------------------------------------------


@pytest.mark.parametrize(
    "platform, environ, config_dir, cache_dir",
    [
        ("linux", {"HOME": "/home/u"}, "/home/u/.config/mcpsync", "/home/u/.cache/mcpsync"),
        (
            "linux",
            {"HOME": "/home/u", "XDG_CONFIG_HOME": "/cfg", "XDG_CACHE_HOME": "/cache"},
            "/cfg/mcpsync",
            "/cache/mcpsync",
        ),
        # The XDG spec: relative (or empty) values are ignored.
        (
            "freebsd13",
            {"HOME": "/home/u", "XDG_CONFIG_HOME": "rel", "XDG_CACHE_HOME": ""},
            "/home/u/.config/mcpsync",
            "/home/u/.cache/mcpsync",
        ),
        (
            "darwin",
            {"HOME": "/Users/u", "XDG_CONFIG_HOME": "/cfg"},
            "/Users/u/Library/Application Support/mcpsync",
            "/Users/u/Library/Caches/mcpsync",
        ),
    ],
)
def test_user_directories_on_each_platform(platform, environ, config_dir, cache_dir):
    assert user_config_dir(environ=environ, platform=platform) == Path(config_dir)
    assert user_cache_dir(environ=environ, platform=platform) == Path(cache_dir)


def test_the_data_directory_follows_xdg_and_macos():
    from mcpsync._core.paths import user_data_dir

    assert user_data_dir(environ={"HOME": "/home/u"}, platform="linux") == Path("/home/u/.local/share/mcpsync")
    assert user_data_dir(environ={"HOME": "/h", "XDG_DATA_HOME": "/d"}, platform="linux") == Path("/d/mcpsync")
    assert user_data_dir(environ={"HOME": "/Users/u"}, platform="darwin") == Path(
        "/Users/u/Library/Application Support/mcpsync"
    )


def test_user_directories_default_to_this_process(monkeypatch, tmp_path):
    monkeypatch.setattr("sys.platform", "linux")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "c"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "k"))
    assert user_config_dir() == tmp_path / "c" / "mcpsync"
    assert user_cache_dir() == tmp_path / "k" / "mcpsync"


def test_max_message_size_is_read_and_checked(tmp_path):
    good = {"mcpServers": {"s": {"command": "srv", "maxMessageSize": 1000}}}
    assert parse_config(good).servers["s"].config.max_message_size == 1000
    bad = {"mcpServers": {"s": {"command": "srv", "maxMessageSize": "big"}}}
    with pytest.raises(ConfigurationError, match="'maxMessageSize' must be a positive whole number of bytes"):
        parse_config(bad)


def test_a_file_nested_without_end_is_a_configuration_error(tmp_path):
    """Not a RecursionError (the command line then exits 2, with the file named)."""
    for text in ("[" * 100_000 + "]" * 100_000, '{"mcpServers": ' + '{"a": ' * 80 + "{}" + "}" * 80 + "}"):
        path = tmp_path / "deep.json"
        path.write_text(text)
        with pytest.raises(
            ConfigurationError,
            match=r"deep\.json: (not valid JSON: nested too deeply|nested deeper than 64 levels)",
        ):
            load_config(path)


def test_a_dict_nested_without_end_is_a_configuration_error():
    deep: dict = {}
    for _ in range(100):
        deep = {"a": deep}
    with pytest.raises(ConfigurationError, match="nested deeper than 64 levels"):
        parse_config({"mcpServers": deep})
