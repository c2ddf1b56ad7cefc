"""The ``mcpsync`` command, run as a subprocess against the bundled test server.

Each test runs ``python -m mcpsync`` in an empty temporary directory with its
own HOME and XDG directories and without ``$MCPSYNC_CONFIG``, so no
configuration or tool cache of the user is read or written.
"""

from __future__ import annotations

import base64
import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import mcpsync
from mcpsync._edges import cli
from mcpsync._edges.cli import words as cli_words
from mcpsync.testing import server_command
from mcpsync.testing.catalogue import PIXEL_PNG, TOOLS
from tests.http_server import running_http_server

#: Seconds one command may take (they take 0.5-2.5 s here).
COMMAND_TIMEOUT = 60
#: Why a test that runs the command line is slow: each ``python -m mcpsync`` that reads a configuration
#: imports jsonschema, 1.5 s here (with Jupyter installed, jsonschema's format checks compile
#: rfc3987-syntax's grammars on import), and starts its servers as processes.
RUNS_THE_CLI = "runs python -m mcpsync as a process: 1.5-2.5 s a run here, most of it importing jsonschema"

#: What the test server needs to run the mcpsync these tests import, not another install's: a server
#: gets only a safe part of our environment (no PYTHONPATH), and runs in the test's empty directory.
SERVER_ENV = {"PYTHONPATH": str(Path(mcpsync.__file__).resolve().parents[1])}
INLINE = ["--stdio", shlex.join(server_command()), *(f"--env={key}={value}" for key, value in SERVER_ENV.items())]
#: A server that writes to stderr and exits before answering initialize.
DYING = [sys.executable, "-c", "import sys; sys.stderr.write('boom: bad token\\n'); sys.exit(3)"]


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """An empty working directory, which is also HOME and holds the XDG directories."""
    return tmp_path


def run(
    home: Path, *args: str, text: bool = True, trust: bool = True, stdin: Any = None, stdin_text: Any = None
) -> subprocess.CompletedProcess:  # type: ignore[type-arg]
    """``python -m mcpsync ARGS`` in ``home``, isolated from the user's files.

    ``trust``: pass ``--trust``, so that a project file written by the test starts its servers.
    ``stdin_text``: what stdin reads, then its end (without it stdin is empty, or ``stdin``).
    """
    env = {k: v for k, v in os.environ.items() if k != "MCPSYNC_CONFIG"}
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / "config"),
        XDG_CACHE_HOME=str(home / "cache"),
        XDG_DATA_HOME=str(home / "data"),
    )
    return subprocess.run(
        [sys.executable, "-m", "mcpsync", *(["--trust"] if trust else []), *args],
        **({"input": stdin_text} if stdin_text is not None else {"stdin": stdin or subprocess.DEVNULL}),
        cwd=home,
        env=env,
        capture_output=True,
        text=text,
        timeout=COMMAND_TIMEOUT,
    )


def write_config(home: Path, name: str = ".mcp.json") -> Path:
    """A Claude-style configuration: a working server, one that cannot start, one that dies, one switched off."""
    command, *args = server_command()
    servers = {
        "good": {"command": command, "args": args, "env": SERVER_ENV},
        "broken": {"command": str(home / "no-such-server")},
        "dying": {"command": DYING[0], "args": DYING[1:]},
        "off": {"command": command, "args": args, "env": SERVER_ENV, "enabled": False},
    }
    path = home / name
    path.write_text(json.dumps({"mcpServers": servers}))
    return path


def lines(text: str) -> list[list[str]]:
    """A table's rows split into words (the header and the dashes included)."""
    return [line.split() for line in text.splitlines()]


# -- servers -----------------------------------------------------------------------------


@pytest.mark.slow(RUNS_THE_CLI)
def test_servers_shows_every_state_and_why_a_server_failed(home: Path) -> None:
    """The issue's "done when": `mcpsync servers` on a .mcp.json found in the working directory."""
    write_config(home)
    done = run(home, "servers")
    assert done.returncode == 0, done.stderr
    rows = {row[0]: row for row in lines(done.stdout)[2:] if row}
    assert rows["good"][1:4] == ["connected", "stdio", str(len(TOOLS))]
    assert "mcpsync-test-server" in rows["good"]
    assert rows["broken"][1] == "failed" and "cannot start server 'broken'" in " ".join(rows["broken"])
    assert rows["dying"][1] == "failed" and "exited with code 3" in " ".join(rows["dying"])
    assert rows["off"][1] == "disabled"
    assert "dying: the last lines of its stderr:\n  boom: bad token\n" in done.stdout
    assert done.stderr == "[dying] boom: bad token\n"  # as the server wrote it (--stderr inherit, the default)
    # A configured server's tools go to the cache in the user's (here: temporary) cache directory.
    assert (home / "cache" / "mcpsync" / "tools.json").is_file()


@pytest.mark.slow(RUNS_THE_CLI)
def test_servers_json(home: Path) -> None:
    config = write_config(home, "elsewhere.json")
    done = run(home, "servers", "--json", "--config", str(config))
    assert done.returncode == 0, done.stderr
    statuses = {s["name"]: s for s in json.loads(done.stdout)}
    assert list(statuses) == ["good", "broken", "dying", "off"]
    assert statuses["good"]["state"] == "connected" and statuses["good"]["tools"] == len(TOOLS)
    assert statuses["good"]["server_info"]["name"] == "mcpsync-test-server"
    assert statuses["good"]["source"] == str(config)
    assert statuses["broken"]["state"] == "failed" and "No such file" in statuses["broken"]["error"]
    assert statuses["dying"]["stderr_tail"] == ["boom: bad token"]
    assert statuses["off"]["state"] == "disabled" and statuses["off"]["error"] is None


def test_without_any_configuration_it_says_where_it_looked(home: Path) -> None:
    done = run(home, "servers")
    assert done.returncode == 2
    assert "mcpsync: error: no configuration file found" in done.stderr and ".mcp.json" in done.stderr


# -- tools ---------------------------------------------------------------------------------


@pytest.mark.slow(RUNS_THE_CLI)
def test_tools_of_every_server_are_qualified_and_unavailable_servers_are_reported(home: Path) -> None:
    write_config(home)
    done = run(home, "tools")
    assert done.returncode == 1  # two servers could not be asked
    names = [row[0] for row in lines(done.stdout)[2:]]
    assert "good__echo" in names and "good__add" in names
    assert ["good__add", "a,", "b", "Add", "two", "numbers."] in lines(done.stdout)
    assert "mcpsync: warning: server 'broken' is unavailable (failed)" in done.stderr
    assert "mcpsync: warning: server 'dying' is unavailable (failed)" in done.stderr
    assert "off" not in done.stderr


@pytest.mark.slow(RUNS_THE_CLI)
def test_tools_of_one_server_have_their_own_names(home: Path) -> None:
    write_config(home)
    done = run(home, "tools", "good")
    assert done.returncode == 0, done.stderr
    assert ["echo", "text", "Return", "the", "text", "you", "send."] in lines(done.stdout)
    assert [
        "progress",
        "steps?,",
        "delay?",
        "Report",
        "progress",
        "in",
        "steps,",
        "then",
        "answer",
        "'done'.",
    ] in lines(done.stdout)
    assert done.stderr == ""


def test_tools_json_of_an_inline_server(home: Path) -> None:
    done = run(home, *INLINE, "tools", "--json")
    assert done.returncode == 0, done.stderr
    tools = json.loads(done.stdout)
    add = next(t for t in tools if t["name"] == "add")
    assert add["server"] == "inline" and add["deferred"] is False
    assert add["tool"]["inputSchema"]["required"] == ["a", "b"]
    # An inline server is a one-off: it stays out of the tool cache.
    assert not (home / "cache").exists()


# -- call ------------------------------------------------------------------------------------


@pytest.mark.slow(RUNS_THE_CLI)
def test_call_with_key_value_arguments(home: Path) -> None:
    done = run(home, *INLINE, "call", "add", "a=2", "b=40")
    assert (done.returncode, done.stdout, done.stderr) == (0, '{"sum": 42}\n', "")


@pytest.mark.slow(RUNS_THE_CLI)
def test_call_reads_its_json_arguments_from_stdin_with_a_dash(home: Path) -> None:
    """Issue 37, point 12: ``-`` reads one JSON object from stdin; stdin that is not one is exit 2, saying so."""
    done = run(home, *INLINE, "call", "add", "-", stdin_text='{"a": 2, "b": 40}')
    assert (done.returncode, done.stdout, done.stderr) == (0, '{"sum": 42}\n', "")
    bad = run(home, *INLINE, "call", "add", "-", stdin_text="[1, 2]")
    assert bad.returncode == 2 and "argument '-': stdin must hold one JSON object" in bad.stderr
    empty = run(home, *INLINE, "call", "add", "-", stdin_text="{}")  # read: the server's own refusal, no hint
    assert "stdin is piped but not read" not in empty.stderr and empty.returncode != 0


@pytest.mark.slow(RUNS_THE_CLI)
def test_piped_arguments_without_a_dash_are_not_ignored_in_silence(home: Path) -> None:
    """Piped JSON and no ARG, for a tool that requires arguments: exit 2 naming them and ``-``, nothing
    sent; a tool without required parameters runs as before."""
    done = run(home, *INLINE, "call", "add", stdin_text='{"a": 2, "b": 40}')
    assert done.returncode == 2 and done.stdout == ""
    assert "tool 'add' requires 'a', 'b', and none was given; stdin is piped but not read: give -" in done.stderr
    quiet = run(home, *INLINE, "call", "cancelled_requests", stdin_text="ignored")
    assert quiet.returncode == 0, quiet.stderr


@pytest.mark.slow(RUNS_THE_CLI)
def test_call_prints_structured_content_that_is_an_array_or_a_number_once(home: Path) -> None:
    """2026-07-28 ``structuredContent`` of any JSON value: the test server's ``users`` (an array, its JSON
    text block the same) and ``word_count`` (a number). The unfixed CLI failed on a ProtocolError."""
    done = run(home, *INLINE, "call", "users")
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    assert json.loads(done.stdout) == [{"id": "1", "name": "Alice"}, {"id": "2", "name": "Bob"}]
    done = run(home, *INLINE, "call", "word_count", "text=one two")
    assert (done.returncode, done.stdout, done.stderr) == (0, "2\n", "")


def test_structured_null_is_printed_and_absent_is_not() -> None:
    """``structuredContent: null`` is a value the CLI shows (``null``); a result without one shows nothing
    more than its content. The unfixed CLI showed neither."""
    from io import StringIO

    from mcpsync._edges.cli.format import write_tool_result

    shown = StringIO()
    write_tool_result(mcpsync.CallToolResult.from_dict({"content": [], "structuredContent": None}), shown)
    assert shown.getvalue() == "null\n"
    shown = StringIO()
    write_tool_result(
        mcpsync.CallToolResult.from_dict({"content": [{"type": "text", "text": "1"}], "structuredContent": True}), shown
    )
    assert shown.getvalue() == "1\ntrue\n", "the text 1 is not the JSON true"


def test_call_gives_a_string_parameter_the_text_as_written(home: Path) -> None:
    """text=42 would be the number 42 as JSON; the schema says text is a string."""
    done = run(home, *INLINE, "--name", "tests", "call", "tests", "echo", "text=42", "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert (result["content"], result["isError"]) == ([{"type": "text", "text": "42"}], False)


@pytest.mark.slow(RUNS_THE_CLI)
def test_call_with_a_json_object_through_a_config_file(home: Path) -> None:
    config = write_config(home, "servers.json")
    done = run(home, "--config", str(config), "call", "good", "add", '{"a": 1.5, "b": 2}', "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["structuredContent"] == {"sum": 3.5}


@pytest.mark.slow(RUNS_THE_CLI)
def test_a_tool_that_returns_is_error_exits_1(home: Path) -> None:
    done = run(home, *INLINE, "call", "fail", "message=it broke")
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == "mcpsync: error: tool 'fail' failed: it broke\n"
    as_json = run(home, *INLINE, "call", "fail", "message=it broke", "--json")
    assert as_json.returncode == 1
    assert json.loads(as_json.stdout)["isError"] is True


def test_bad_json_argument_exits_2_naming_it(home: Path) -> None:
    done = run(home, *INLINE, "call", "add", '{"a": 1,')
    assert done.returncode == 2
    assert done.stderr.startswith("mcpsync: error: argument '{\"a\": 1,': not valid JSON: Expecting")
    assert "Traceback" not in done.stderr and done.stdout == ""


def test_unknown_tool_exits_2_with_suggestions(home: Path) -> None:
    done = run(home, *INLINE, "call", "ech", "text=hi")
    assert done.returncode == 2
    assert done.stderr == "mcpsync: error: server 'inline' has no tool named 'ech'; did you mean 'echo'?\n"


@pytest.mark.slow(RUNS_THE_CLI)
def test_unknown_server_exits_2_before_starting_anything(home: Path) -> None:
    write_config(home)
    done = run(home, "call", "goood", "echo", "text=hi")
    assert done.returncode == 2
    assert "mcpsync: error: no server named 'goood' in " in done.stderr and "did you mean 'good'?" in done.stderr


@pytest.mark.slow(RUNS_THE_CLI)
def test_a_failed_server_exits_1_with_its_stderr(home: Path) -> None:
    """The server's stderr line as it came (its name in front), then the error with the last lines."""
    write_config(home)
    done = run(home, "call", "dying", "echo", "text=hi")
    assert done.returncode == 1
    assert done.stderr.startswith(
        "[dying] boom: bad token\nmcpsync: error: server 'dying' is unavailable (failed): Transport closed: dying: "
    )
    assert "  boom: bad token" in done.stderr


@pytest.mark.slow(RUNS_THE_CLI)
def test_stderr_quiet_keeps_the_servers_stderr_for_the_error_alone(home: Path) -> None:
    """``--stderr quiet``: the server's lines are not passed through, and the error still quotes them."""
    write_config(home)
    done = run(home, "--stderr", "quiet", "call", "dying", "echo", "text=hi")
    assert done.returncode == 1
    assert done.stderr.startswith("mcpsync: error: server 'dying' is unavailable (failed): Transport closed: dying: ")
    assert "  boom: bad token" in done.stderr


@pytest.mark.slow(RUNS_THE_CLI)
def test_connect_timeout_bounds_starting_and_timeout_every_request(home: Path) -> None:
    """``--timeout 1 --connect-timeout 20``: the server may take its time to start, and a call of
    3 s is cut at 1 s: --timeout is every request's bound, --connect-timeout connecting's alone."""
    write_config(home)
    done = run(home, "--timeout", "1", "--connect-timeout", "20", "call", "good", "sleep", "seconds=3")
    assert done.returncode == 1, done.stderr
    assert "Request timeout after 1s (tools/call)" in done.stderr


def test_progress_is_shown_on_stderr_one_line_per_update_when_not_a_terminal(home: Path) -> None:
    done = run(home, *INLINE, "call", "progress", "steps=3", "delay=0.01")
    assert (done.returncode, done.stdout) == (0, "done\n")
    assert done.stderr == "progress 1/3 step 1 of 3\nprogress 2/3 step 2 of 3\nprogress 3/3 step 3 of 3\n"


def test_verbose_shows_protocol_traffic_and_server_stderr(home: Path) -> None:
    legacy = ["--stdio", shlex.join(server_command("--legacy-only")), *INLINE[2:]]
    done = run(home, *legacy, "-v", "call", "stderr", "text=from the server")
    assert done.returncode == 0, done.stderr
    # protocol="auto": the probe first, refused by a legacy server, then the handshake.
    assert 'mcpsync.traffic: inline --> {"jsonrpc":"2.0","id":1,"method":"server/discover"' in done.stderr
    assert 'mcpsync.traffic: inline <-- {"jsonrpc":"2.0","id":1,"error":{"code":-32601' in done.stderr
    assert 'mcpsync.traffic: inline --> {"jsonrpc":"2.0","id":2,"method":"initialize"' in done.stderr
    assert 'mcpsync.traffic: inline <-- {"jsonrpc":"2.0","id":2,"result":{' in done.stderr
    assert '"method":"tools/call","params":{"name":"stderr"' in done.stderr
    assert "mcpsync.server.inline: from the server" in done.stderr
    assert done.stdout == "wrote 1 lines\n"


def test_debug_shows_the_traceback_and_without_it_there_is_none(home: Path) -> None:
    plain = run(home, *INLINE, "read", "nothing://here")
    assert plain.returncode == 1
    assert plain.stderr == "mcpsync: error: MCP error -32002: Resource not found\n"
    debug = run(home, *INLINE, "read", "nothing://here", "--debug")
    assert debug.returncode == 1
    assert debug.stderr.startswith("Traceback (most recent call last):")
    assert "\nmcpsync.ServerError: MCP error -32002" in debug.stderr  # the public name
    assert debug.stderr.endswith("mcpsync: error: MCP error -32002: Resource not found\n")


def test_inline_http_server_with_headers(home: Path) -> None:
    with running_http_server() as base:
        done = run(home, "--url", f"{base}/mcp", "--header", "X-Token: abc", "call", "echo", "text=over http")
    assert (done.returncode, done.stdout) == (0, "over http\n"), done.stderr


def test_a_bare_url_of_an_http_sse_server_falls_back(home: Path) -> None:
    """Issue 16: ``--url`` without ``--sse`` tries HTTP+SSE when the POST is refused, as ``connect(url)`` does."""
    with running_http_server() as base:
        done = run(home, "--url", f"{base}/sse", "call", "echo", "text=over http+sse")
    assert (done.returncode, done.stdout) == (0, "over http+sse\n"), done.stderr


def test_a_url_without_its_path_is_one_short_line_that_names_it(home: Path) -> None:
    """``--url http://host:port`` (``/mcp`` forgotten): the server's HTML 404 page is not printed, the
    request is named, the path questioned, and what HTTP+SSE got is said once."""
    with running_http_server() as base:
        done = run(home, "--url", base, "tools")
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == (
        f"mcpsync: error: server 'inline' is unavailable (failed): HTTP 404 from POST {base}/ (is the endpoint /mcp?): "
        f"Cannot POST /; tried as HTTP+SSE too: HTTP 404 from GET {base}/\n"
    )


@pytest.mark.slow(RUNS_THE_CLI)
def test_a_server_that_never_answers_says_what_it_wrote(home: Path) -> None:
    """Issue 16: a "server" that prints ``hello`` forever; and ``cat``, which echoes our messages."""
    loop = run(home, "--stdio", "bash -c 'while true; do echo hello; sleep 0.2; done'", "--timeout", "2", "tools")
    assert loop.returncode == 1
    assert "Request timeout after 2s (initialize): the server wrote " in loop.stderr
    assert "lines that are not JSON-RPC to stdout, for example 'hello'" in loop.stderr
    echo = run(home, "--stdio", "cat", "--timeout", "2", "tools")
    assert echo.returncode == 1
    assert "the server echoed our messages back (server/discover came back): is it an MCP server?" in echo.stderr


# -- resources, read, prompts, ping ------------------------------------------------------------


@pytest.mark.slow(RUNS_THE_CLI)
def test_resources_of_every_server(home: Path) -> None:
    write_config(home)
    done = run(home, "resources")
    assert done.returncode == 1  # broken and dying
    assert ["good", "text://greeting", "greeting", "text/plain", "A", "short", "text", "resource."] in lines(
        done.stdout
    )
    assert ["good", "binary://pixel", "pixel", "image/png", "A", "1x1", "PNG", "(binary)."] in lines(done.stdout)


def test_resources_json_of_one_server(home: Path) -> None:
    done = run(home, *INLINE, "resources", "inline", "--json")
    assert done.returncode == 0, done.stderr
    assert [r["resource"]["uri"] for r in json.loads(done.stdout)] == ["text://greeting", "binary://pixel"]


@pytest.mark.slow(RUNS_THE_CLI)
def test_read_text_resource(home: Path) -> None:
    """The text ends with a newline, on a pipe too, as every command's text does (the resource has none)."""
    write_config(home)
    done = run(home, "read", "good", "text://greeting")
    assert (done.returncode, done.stdout) == (0, "Hello from a resource\n"), done.stderr


def test_read_binary_resource_writes_the_bytes_to_a_pipe(home: Path) -> None:
    done = run(home, *INLINE, "read", "binary://pixel", text=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout == base64.b64decode(PIXEL_PNG)


def test_read_binary_resource_to_a_file(home: Path) -> None:
    done = run(home, *INLINE, "read", "inline", "binary://pixel", "--output", "pixel.png")
    assert (done.returncode, done.stdout) == (0, "")
    assert done.stderr == "wrote 70 bytes to pixel.png\n"
    assert (home / "pixel.png").read_bytes() == base64.b64decode(PIXEL_PNG)


def test_prompts(home: Path) -> None:
    done = run(home, *INLINE, "prompts")
    assert done.returncode == 0, done.stderr
    assert ["greet", "name,", "style?", "Ask", "for", "a", "greeting."] in lines(done.stdout)


@pytest.mark.slow(RUNS_THE_CLI)
def test_ping_every_server(home: Path) -> None:
    write_config(home)
    done = run(home, "ping")
    assert done.returncode == 1
    rows = {row[0]: row for row in lines(done.stdout)[2:]}
    assert rows["good"][2] == "ms" and float(rows["good"][1]) >= 0
    assert rows["broken"][1] == "failed:" and rows["off"][1:] == ["disabled"]


def test_ping_json_of_an_inline_server(home: Path) -> None:
    done = run(home, *INLINE, "ping", "--json")
    assert done.returncode == 0, done.stderr
    [result] = json.loads(done.stdout)
    assert result["server"] == "inline" and result["error"] is None and result["ms"] > 0


# -- in-process: what is decided before any server starts ----------------------------------------


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--stdio", "x", "--url", "http://h/mcp", "tools"], "give --stdio or --url, not both"),
        (["--header", "A: b", "--stdio", "x", "tools"], "--header goes with --url"),
        (["--url", "http://h/mcp", "--header", "no colon", "tools"], "--header 'no colon': expected NAME:VALUE"),
        (["--stdio", "x", "call"], "the following arguments are required: SERVER"),
        (["--stdio", "x", "call", "echo", "oops"], "argument 'oops': expected key=value"),
        (["--stdio", "x", "call", "add", "a=1", "a=2"], "argument 'a=2': 'a' is given twice"),
        (["--stdio", "x", "call", "add", "[1]"], "argument '[1]': expected key=value"),
        (["--stdio", "x", "call", "add", '{"a": NaN}'], "not valid JSON: NaN is not JSON"),
        (["--stdio", "x", "call", "add", "[1, 2]", "b=1"], "argument '[1, 2]': expected key=value"),
        (["--stdio", "x", "read", "a://b", "c://d"], "read takes one URI; unexpected 'c://d'"),
        (["--stdio", "x", "tools", "other"], "no server named 'other' (the inline server is 'inline')"),
        (["--stdio", "x", "--timeout", "0", "tools"], "--timeout: must be a positive number of seconds"),
    ],
)
def test_usage_errors_exit_2(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert_usage_error(argv, message, capsys)


def assert_usage_error(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    """``mcpsync ARGV`` exits 2 (from us or from argparse) and says ``message`` on stderr."""
    try:
        code = cli.main(argv)
    except SystemExit as exc:  # what argparse itself refuses
        code = exc.code  # type: ignore[assignment]
    assert code == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        (["a=2", "b=40"], {"a": 2, "b": 40}),
        (["text=42", "n=3"], {"text": "42", "n": 3}),  # text is a string parameter
        (
            ["flag=true", "none=null", "list=[1, 2]", 'obj={"k": 1}'],
            {"flag": True, "none": None, "list": [1, 2], "obj": {"k": 1}},
        ),
        (["word=hello", "empty=", "eq=a=b", "nan=NaN"], {"word": "hello", "empty": "", "eq": "a=b", "nan": "NaN"}),
        (["text=[WIP] fix"], {"text": "[WIP] fix"}),  # not JSON, but text is a string anyway
        (['{"a": 1, "text": 5}'], {"a": 1, "text": 5}),  # a whole object is taken as it is
        ([], {}),
    ],
)
def test_tool_arguments(words: list[str], expected: dict[str, Any]) -> None:
    schema = {"type": "object", "properties": {"text": {"type": "string"}, "n": {"type": "integer"}}}
    assert cli_words.tool_arguments(cli_words.split_tool_arguments(words), schema) == expected


def test_tool_argument_that_starts_like_json_but_is_not_is_an_error() -> None:
    with pytest.raises(cli.UsageError, match=r"argument 'tags=\[1,': not valid JSON"):
        cli_words.tool_arguments(cli_words.split_tool_arguments(["tags=[1,"]), {"type": "object"})


def test_a_config_file_nested_without_end_exits_2_naming_the_file(home: Path) -> None:
    """A configuration error, not an internal RecursionError (which would exit 1 with a traceback)."""
    (home / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    done = run(home, "--config", "deep.json", "servers")
    assert done.returncode == 2, done.stderr
    assert "deep.json: not valid JSON: nested too deeply" in done.stderr
    assert "Traceback" not in done.stderr


# -- project configurations must be trusted ------------------------------------------------------


def write_project(home: Path, marker: Path) -> Path:
    """A cloned repository's .mcp.json whose server leaves a marker when it runs."""
    code = f"import pathlib, runpy, sys; pathlib.Path({str(marker)!r}).touch(); sys.argv = ['x']; runpy.run_module('mcpsync.testing', run_name='__main__')"
    servers = {"repo": {"command": sys.executable, "args": ["-c", code]}}
    path = home / ".mcp.json"
    path.write_text(json.dumps({"mcpServers": servers}))
    return path


@pytest.mark.slow(RUNS_THE_CLI)
def test_an_untrusted_project_file_starts_nothing_without_a_terminal(home: Path) -> None:
    marker = home / "it-ran"
    write_project(home, marker)
    done = run(home, "tools", trust=False)
    assert done.returncode == 2, done.stderr
    assert (
        ".mcp.json is a project configuration (found in the working directory) that you have not trusted" in done.stderr
    )
    assert f"repo: {sys.executable} -c" in done.stderr, "it says what would start"
    assert "--trust" in done.stderr
    assert not marker.exists(), "the project's command ran"


@pytest.mark.slow(RUNS_THE_CLI)
def test_trust_is_remembered_until_the_file_changes(home: Path) -> None:
    marker = home / "it-ran"
    path = write_project(home, marker)
    assert run(home, "tools", trust=True).returncode == 0
    assert marker.exists()
    marker.unlink()
    assert run(home, "tools", trust=False).returncode == 0, "remembered"
    assert marker.exists()
    marker.unlink()
    path.write_text(path.read_text().replace('"repo"', '"repo2"'))
    assert run(home, "tools", trust=False).returncode == 2, "an edited file is asked about again"
    assert not marker.exists()
    stored = json.loads((home / "data" / "mcpsync" / "trusted-projects.json").read_text())
    assert list(stored["files"]) == [str(path.resolve())]
    assert oct((home / "data" / "mcpsync" / "trusted-projects.json").stat().st_mode & 0o777) == "0o600"


@pytest.mark.slow(RUNS_THE_CLI)
def test_a_file_named_with_config_needs_no_trust(home: Path) -> None:
    """--config (and $MCPSYNC_CONFIG) name a file the user chose."""
    marker = home / "it-ran"
    write_project(home, marker)
    assert run(home, "--config", ".mcp.json", "tools", trust=False).returncode == 0
    assert marker.exists()


@pytest.mark.slow(RUNS_THE_CLI)
def test_on_a_terminal_the_user_is_asked_once(home: Path) -> None:
    """A pseudo-terminal on stdin and stderr: the question shows what would start; 'y' starts it."""
    import pty
    import select

    marker = home / "it-ran"
    write_project(home, marker)
    main, side = pty.openpty()
    env = {k: v for k, v in os.environ.items() if k != "MCPSYNC_CONFIG"}
    env.update(HOME=str(home), XDG_DATA_HOME=str(home / "data"), XDG_CACHE_HOME=str(home / "cache"))
    process = subprocess.Popen(
        [sys.executable, "-m", "mcpsync", "tools"], cwd=home, env=env, stdin=side, stderr=side, stdout=subprocess.PIPE
    )
    os.close(side)
    seen = b""
    try:
        deadline = time.monotonic() + COMMAND_TIMEOUT
        while b"[y/N]" not in seen and time.monotonic() < deadline:
            if select.select([main], [], [], 1)[0]:
                seen += os.read(main, 4096)
        assert b"It would start:" in seen and b"repo:" in seen
        os.write(main, b"y\n")
        process.wait(COMMAND_TIMEOUT)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)
        process.stdout.close()  # type: ignore[union-attr]
        os.close(main)
    assert process.returncode == 0 and marker.exists()
    marker.unlink()
    assert run(home, "tools", trust=False).returncode == 0, "the answer was remembered"


@pytest.mark.parametrize(
    ("link", "target"),
    [
        (".mcp.json", "sub/servers.json"),  # into a subfolder
        (".mcp.json", "../{home}-servers.json"),  # into the parent folder
        ("mcp.json", "servers.json"),  # beside it, under another name
        ("mcp.json", "sub/deeper/.mcp.json"),  # into a subfolder, under a project file's name
    ],
)
@pytest.mark.slow(RUNS_THE_CLI)
def test_a_project_file_that_is_a_symbolic_link_needs_consent(home: Path, link: str, target: str) -> None:
    """A cloned repository's project file is a symbolic link (git stores them): without --trust and
    with nobody to ask, nothing starts, and the refusal names the link and its target."""
    marker = home / "it-ran"
    real = (home / target.format(home=home.name)).resolve()
    real.parent.mkdir(parents=True, exist_ok=True)
    write_project(home, marker).rename(real)
    (home / link).symlink_to(os.path.relpath(real, home))
    done = run(home, "tools", trust=False)
    assert done.returncode == 2, done.stderr
    assert f"{home / link} (a link to {real}) is a project configuration" in done.stderr
    assert not marker.exists(), "the project's command ran"
    assert run(home, "tools", trust=True).returncode == 0 and marker.exists()
    stored = json.loads((home / "data" / "mcpsync" / "trusted-projects.json").read_text())
    assert list(stored["files"]) == [str(real)], "trust is kept for the real path"
