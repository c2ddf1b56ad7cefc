"""mcpsync._manager.config_check: the configuration schema's fast path never accepts what the schema
refuses (checked against jsonschema itself on generated files, entries and servers), accepts the
configurations people write, and spares a command jsonschema's import."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

from hypothesis import given, settings, strategies as st

from mcpsync._manager.config_check import plainly_valid
from mcpsync._manager.config_files import _validators

SERVER_KEYS = [
    "type",
    "command",
    "args",
    "env",
    "cwd",
    "url",
    "httpUrl",
    "serverUrl",
    "headers",
    "timeout",
    "connectTimeout",
    "stderr",
    "inheritEnv",
    "maxMessageSize",
    "oauth",
    "enabled",
    "disabled",
    "includeTools",
    "excludeTools",
    "disabledTools",
    "enabled_tools",
    "disabled_tools",
    "other",
]
FILE_KEYS = ["mcpServers", "servers", "disabledServers", "inputs", "other"]
#: Values near the edges of each member's rule: the right type and the wrong, empty, zero, negative.
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-2, 3),
    st.sampled_from([0.0, 0.5, -1.5, 1.0, 2.5]),
    st.sampled_from(["", "x", "stdio", "http", "sse", "streamableHttp", "streamable-http", "inherit", "log", "quiet"]),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(["a", "b", ""]), inner, max_size=2)
    ),
    max_leaves=6,
)


def members(keys: list[str]) -> Any:
    return st.dictionaries(st.sampled_from(keys), values, max_size=6)


#: Entries that are valid, each then given a member or two of any value: near the edge of every rule.
BASES = [
    {"command": "x"},
    {"type": "stdio", "command": "x"},
    {"url": "u"},
    {"type": "http", "httpUrl": "u"},
    {"type": "sse", "url": "u"},
    {"type": "streamable-http", "url": "u"},
    {"serverUrl": "u"},
    {"type": "sse", "serverUrl": "u"},
]
near_valid = st.builds(
    lambda base, changes: {**base, **changes},
    st.sampled_from(BASES),
    st.dictionaries(st.sampled_from(SERVER_KEYS), values, max_size=2),
)
near_valid_files = st.builds(
    lambda base, changes: {**base, **changes},
    st.sampled_from([{"mcpServers": {}}, {"servers": {}}]),
    st.dictionaries(st.sampled_from(FILE_KEYS), values, max_size=2),
)


def refused(part: str, instance: Any) -> list[str]:
    return [error.message for error in _validators()[part].iter_errors(instance)]


@settings(deadline=None)
@given(st.one_of(members(SERVER_KEYS), near_valid, near_valid, values))
def test_a_server_or_an_entry_the_fast_path_accepts_the_schema_accepts(instance: Any) -> None:
    for part in ("server", "entry"):
        if plainly_valid(part, instance):
            assert refused(part, instance) == [], (part, instance)


@settings(deadline=None)
@given(st.one_of(members(FILE_KEYS), near_valid_files, values))
def test_a_file_the_fast_path_accepts_the_schema_accepts(instance: Any) -> None:
    if plainly_valid("file", instance):
        assert refused("file", instance) == [], instance


#: Every value at the edge of some member's rule.
EDGES = [None, True, False, 0, -1, 1, 0.0, 0.5, 1.0, "", "x", "stdio", "sse", "inherit", [], [""], ["x"], [1], {}]
EDGES += [{"a": 1}, {"a": "x"}]


def test_every_member_set_to_every_edge_value_on_every_valid_base() -> None:
    """Each valid base entry with one member (or the type's required one removed) set to each edge
    value, exhaustively: what the fast path accepts, the schema accepts (random combinations above)."""
    for base in BASES:
        for key in SERVER_KEYS:
            for value in EDGES:
                instance = {**base, key: value}
                for part in ("server", "entry"):
                    if plainly_valid(part, instance):
                        assert refused(part, instance) == [], (part, instance)
            trimmed = {k: v for k, v in base.items() if k != key}
            if plainly_valid("server", trimmed):
                assert refused("server", trimmed) == [], trimmed
    for base in ({"mcpServers": {}}, {"servers": {}}):
        for key in FILE_KEYS:
            for value in EDGES:
                instance = {**base, key: value}
                if plainly_valid("file", instance):
                    assert refused("file", instance) == [], instance


def test_what_people_write_takes_the_fast_path() -> None:
    """The entries of the clients' own documentation: each plainly valid (jsonschema never imported for
    them); one the schema refuses is not."""
    servers = [
        {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"], "env": {"A": "1"}},
        {"type": "stdio", "command": "uvx", "args": ["mcp-server-time"], "timeout": 30000},
        {"url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}},
        {"type": "http", "url": "https://x/mcp", "oauth": {"clientId": "c"}, "includeTools": ["read_*"]},
        {"httpUrl": "https://x/mcp", "timeout": 5000.5},
        {"type": "sse", "url": "https://x/sse", "disabled": False},
        {"serverUrl": "https://x/mcp", "headers": {"A": "${env:KEY}"}, "disabledTools": ["drop"]},  # Windsurf
        {"type": "http", "url": "https://x/mcp", "enabled_tools": ["get_*"], "disabled_tools": []},  # Codex's, made
    ]
    for server in servers:
        assert plainly_valid("entry", server) and plainly_valid("server", server), server
    assert plainly_valid("file", {"mcpServers": {"a": servers[0]}, "disabledServers": ["b"]})
    assert plainly_valid("file", {"servers": {}, "inputs": [{"id": "x"}]})
    assert not plainly_valid("server", {"command": "x", "url": "y"}) and refused("server", {"command": "x", "url": "y"})
    assert not plainly_valid("server", {"type": ["stdio"], "command": "x"})  # unhashable: no crash, jsonschema decides


def test_reading_a_configuration_imports_no_jsonschema() -> None:
    """A process that reads a valid file (what each ``mcpsync`` command does) never imports jsonschema:
    1.05 s where rfc3987-syntax is installed (this environment has it, through Jupyter)."""
    config = {"mcpServers": {"a": {"command": "npx", "args": ["x"]}, "b": {"url": "https://x/mcp"}}}
    code = (
        "import json, sys\n"
        "from mcpsync import parse_config\n"
        f"parse_config(json.loads({json.dumps(json.dumps(config))}))\n"
        "print('jsonschema' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"
