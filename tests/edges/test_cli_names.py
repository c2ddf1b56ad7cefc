"""The ``mcpsync`` command: names that round-trip, prompts and completion, typos caught early, what the client offers.

Run as subprocesses against the bundled test server, isolated as in test_cli.py.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from mcpsync._edges import cli
from mcpsync._edges.cli import words as cli_words
from mcpsync.testing import server_command
from tests.edges.test_cli import INLINE, RUNS_THE_CLI, SERVER_ENV, assert_usage_error, home, lines, run, write_config

__all__ = ["home"]  # the fixture, imported for these tests

#: An elicitation request of the test server's ask_client: one required field, one with a default.
ELICIT = {
    "message": "Who are you?",
    "requestedSchema": {
        "type": "object",
        "properties": {"name": {"type": "string", "title": "Name"}, "age": {"type": "integer", "default": 30}},
        "required": ["name"],
    },
}


def write_servers(home: Path, *names: str) -> Path:
    """A .mcp.json with a working test server under each of ``names``."""
    command, *args = server_command()
    servers = {name: {"command": command, "args": args, "env": SERVER_ENV} for name in names}
    path = home / ".mcp.json"
    path.write_text(json.dumps({"mcpServers": servers}))
    return path


def answer(done: Any) -> Any:
    """What the client answered to the test server's ask_client (its text is the JSON-RPC answer)."""
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


# -- names round-trip ------------------------------------------------------------------------


@pytest.mark.slow(RUNS_THE_CLI)
def test_a_qualified_name_that_tools_prints_can_be_called_and_starts_only_its_server(home: Path) -> None:
    """`tools` without SERVER prints good__add; `call good__add` used to be 'no server named good__add'."""
    write_config(home)
    assert ["good__add", "a,", "b", "Add", "two", "numbers."] in lines(run(home, "tools").stdout)
    done = run(home, "call", "good__add", "a=2", "b=40")
    assert (done.returncode, done.stdout, done.stderr) == (0, '{"sum": 42}\n', "")  # broken, dying: not started


@pytest.mark.slow(RUNS_THE_CLI)
def test_a_bare_tool_name_only_one_server_has_needs_no_server(home: Path) -> None:
    write_config(home)  # good, and two that fail: only good has echo
    done = run(home, "call", "echo", "text=hi")
    assert (done.returncode, done.stdout) == (0, "hi\n"), done.stderr


@pytest.mark.slow(RUNS_THE_CLI)
def test_a_name_several_servers_have_is_an_error_listing_them(home: Path) -> None:
    write_servers(home, "one", "two")
    done = run(home, "call", "echo", "text=hi")
    assert done.returncode == 2
    assert done.stderr == (
        "mcpsync: error: several servers have a tool named 'echo': one__echo, two__echo; name one of these\n"
    )
    assert run(home, "call", "two__echo", "text=hi").stdout == "hi\n"
    assert run(home, "call", "two", "echo", "text=hi").stdout == "hi\n"


@pytest.mark.slow(RUNS_THE_CLI)
def test_a_name_no_server_has_suggests_the_closest(home: Path) -> None:
    write_servers(home, "one", "two")
    done = run(home, "call", "ecko", "text=hi")
    assert done.returncode == 2
    assert done.stderr == "mcpsync: error: no server has a tool named 'ecko'; did you mean 'echo'?\n"


@pytest.mark.slow(RUNS_THE_CLI)
def test_with_one_server_configured_server_may_be_left_out(home: Path) -> None:
    write_servers(home, "only")
    assert run(home, "call", "add", "a=1", "b=2").stdout == '{"sum": 3}\n'
    assert run(home, "call", "only", "add", "a=1", "b=2").stdout == '{"sum": 3}\n'
    assert run(home, "call", "only__add", "a=1", "b=2").stdout == '{"sum": 3}\n'
    assert run(home, "read", "text://greeting").stdout == "Hello from a resource\n"
    assert run(home, "prompt", "greet", "name=Al").stdout == "user: Write a casual greeting for Al.\n"


@pytest.mark.slow(RUNS_THE_CLI)
def test_read_without_server_among_several_is_a_usage_error(home: Path) -> None:
    write_servers(home, "one", "two")
    done = run(home, "read", "text://greeting")
    assert done.returncode == 2
    assert done.stderr == "mcpsync: error: read needs SERVER: more than one server is configured (one, two)\n"


# -- prompt and complete ---------------------------------------------------------------------


def test_prompt_prints_its_messages_and_json_the_result(home: Path) -> None:
    done = run(home, *INLINE, "prompt", "greet", "name=Ada", "style=formal")
    assert (done.returncode, done.stdout, done.stderr) == (0, "user: Write a formal greeting for Ada.\n", "")
    raw = json.loads(run(home, *INLINE, "prompt", "inline", "greet", "name=Ada", "--json").stdout)
    assert raw["messages"] == [
        {"role": "user", "content": {"type": "text", "text": "Write a casual greeting for Ada."}}
    ]


@pytest.mark.slow(RUNS_THE_CLI)
def test_a_prompt_by_its_qualified_name(home: Path) -> None:
    write_servers(home, "one", "two")
    assert ["one__greet", "name,", "style?", "Ask", "for", "a", "greeting."] in lines(run(home, "prompts").stdout)
    done = run(home, "prompt", "two__greet", "name=Al")
    assert (done.returncode, done.stdout) == (0, "user: Write a casual greeting for Al.\n"), done.stderr


@pytest.mark.slow(RUNS_THE_CLI)
def test_complete_a_prompt_argument_and_a_template_argument(home: Path) -> None:
    done = run(home, *INLINE, "complete", "prompt", "greet", "name=Al")
    assert (done.returncode, done.stdout, done.stderr) == (0, "Alan\nAlonzo\n", "")
    done = run(home, *INLINE, "complete", "resource", "echo://{text}", "text=he")
    assert (done.returncode, done.stdout) == (0, "hello\nhelp\n"), done.stderr
    raw = json.loads(run(home, *INLINE, "complete", "inline", "prompt", "greet", "style=", "--json").stdout)
    assert raw["completion"]["values"] == ["casual", "formal"]


@pytest.mark.slow(RUNS_THE_CLI)
def test_complete_a_prompt_argument_by_qualified_name(home: Path) -> None:
    write_servers(home, "one", "two")
    done = run(home, "complete", "prompt", "one__greet", "name=Gr")
    assert (done.returncode, done.stdout) == (0, "Grace\n"), done.stderr


# -- typos caught before anything is sent ------------------------------------------------------


def test_an_argument_the_tool_does_not_have_is_an_error_suggesting_the_closest(home: Path) -> None:
    done = run(home, *INLINE, "call", "echo", "txt=hi")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == "mcpsync: error: 'txt' is not a parameter of tool 'echo'; did you mean 'text'?\n"
    done = run(home, *INLINE, "call", "add", '{"a": 1, "b": 2, "zzz": 3}')
    assert done.stderr == "mcpsync: error: 'zzz' is not a parameter of tool 'add'; its parameters: a, b\n"


def test_an_argument_the_prompt_does_not_have_is_an_error(home: Path) -> None:
    done = run(home, *INLINE, "prompt", "greet", "nme=Al")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == "mcpsync: error: 'nme' is not a parameter of prompt 'greet'; did you mean 'name'?\n"


@pytest.mark.parametrize(
    ("schema", "refused"),
    [
        ({"type": "object", "properties": {"message": {}}}, True),
        ({"type": "object", "properties": {"message": {}}, "additionalProperties": False}, True),
        ({"type": "object", "properties": {"message": {}}, "additionalProperties": True}, False),
        ({"type": "object", "properties": {"message": {}}, "additionalProperties": {"type": "string"}}, False),
        ({"type": "object", "properties": {"message": {}}, "patternProperties": {"^x": {}}}, False),
        ({"type": "object"}, False),  # lists nothing: anything may be meant
        ({"type": "object", "properties": {}}, False),
    ],
)
def test_which_schemas_refuse_an_unknown_argument(schema: dict[str, Any], refused: bool) -> None:
    if refused:
        with pytest.raises(
            cli.UsageError, match=r"^'mesage' is not a parameter of tool 'echo'; did you mean 'message'\?$"
        ):
            cli_words.check_argument_names(["mesage"], schema, "tool 'echo'")
    else:
        cli_words.check_argument_names(["mesage"], schema, "tool 'echo'")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--stdio", "x", "complete", "prompt", "greet"], "complete prompt 'greet' needs the argument to complete"),
        (["--stdio", "x", "complete", "greet", "name=a"], "complete needs 'prompt PROMPT' or 'resource TEMPLATE'"),
        (["--stdio", "x", "complete", "prompt", "g", '{"a": "b"}'], "complete takes key=value pairs"),
        (["--stdio", "x", "prompt"], "the following arguments are required: SERVER"),
        (["--stdio", "x", "--roots", "no-such-dir", "tools"], "--roots 'no-such-dir': not a directory"),
    ],
)
def test_usage_errors_of_the_new_commands_exit_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert_usage_error(argv, message, capsys)


# -- what the client offers: --elicit, --roots ---------------------------------------------------


def test_an_unknown_tool_lists_the_servers_tools_and_names_the_options_that_may_show_more(home: Path) -> None:
    done = run(home, *INLINE, "call", "book_flight")
    assert done.returncode == 2
    first, note = done.stderr.splitlines()
    assert first.startswith("mcpsync: error: server 'inline' has no tool named 'book_flight'; its tools: add, ")
    assert note == (
        "note: some servers offer tools only to clients that can answer elicitation, sampling or roots requests;"
        " --elicit and --roots DIR declare elicitation and roots (mcpsync cannot answer sampling)"
    )
    done = run(home, *INLINE, "--elicit", "--roots", str(home), "call", "book_flight")
    assert "note:" not in done.stderr and "its tools: add, " in done.stderr


@pytest.mark.slow(RUNS_THE_CLI)
def test_elicit_asks_for_each_field_on_the_terminal(home: Path) -> None:
    """A name typed, the age left at its default by an empty line."""
    argv = [*INLINE, "--elicit", "call", "ask_client", "method=elicitation/create", f"params={json.dumps(ELICIT)}"]
    done = run(home, *argv, stdin_text="Grace\n\n")
    assert answer(done)["result"] == {"action": "accept", "content": {"name": "Grace", "age": 30}}
    assert done.stderr.startswith("the server asks: Who are you?\n  Name: ")
    assert "age (optional) [default: 30]: " in done.stderr


@pytest.mark.slow(RUNS_THE_CLI)
def test_elicit_asks_again_for_a_value_of_the_wrong_type_and_declines_at_the_end_of_input(home: Path) -> None:
    argv = [*INLINE, "--elicit", "call", "ask_client", "method=elicitation/create", f"params={json.dumps(ELICIT)}"]
    done = run(home, *argv, stdin_text="Grace\nold\n41\n")
    assert answer(done)["result"] == {"action": "accept", "content": {"name": "Grace", "age": 41}}
    assert "expected integer, not 'old'" in done.stderr
    done = run(home, *argv, stdin_text="Grace\n")
    assert answer(done)["result"] == {"action": "decline"}
    assert done.stderr.endswith("(end of input: declined)\n")


def test_without_elicit_the_client_does_not_offer_elicitation(home: Path) -> None:
    done = run(home, *INLINE, "call", "ask_client", "method=elicitation/create", f"params={json.dumps(ELICIT)}")
    assert answer(done)["error"]["code"] == -32601


@pytest.mark.slow(RUNS_THE_CLI)
def test_roots_are_offered_as_file_uris(home: Path) -> None:
    (home / "a").mkdir()
    (home / "b").mkdir()
    done = run(home, *INLINE, "--roots", str(home / "a"), "--roots", "b", "call", "ask_client", "method=roots/list")
    assert answer(done)["result"]["roots"] == [
        {"uri": (home / "a").resolve().as_uri(), "name": "a"},
        {"uri": (home / "b").resolve().as_uri(), "name": "b"},
    ]


@pytest.mark.slow(RUNS_THE_CLI)
def test_a_server_that_needs_a_capability_the_client_did_not_declare_names_the_options(home: Path) -> None:
    """-32021 (2026-07-28): its message speaks of Client arguments; the command line adds its own options."""
    done = run(home, *INLINE, "call", "ask_in_rounds", 'kinds=["elicitation", "roots"]')
    assert done.returncode == 1
    assert (
        done.stderr.splitlines()[-1]
        == "note: on the command line, --elicit and --roots DIR declare elicitation and roots"
    )
    done = run(
        home,
        *INLINE,
        "--elicit",
        "--roots",
        str(home),
        "call",
        "ask_in_rounds",
        'kinds=["elicitation", "roots"]',
        stdin_text="Ada\n",
    )
    assert done.returncode == 0, done.stderr
    [answers] = json.loads(done.stdout)["answers"]
    assert answers["elicitation-1"] == {"action": "accept", "content": {"name": "Ada"}}
    assert answers["roots-1"] == {"roots": [{"uri": home.resolve().as_uri(), "name": home.name}]}


@pytest.mark.slow(RUNS_THE_CLI)
def test_elicit_answers_the_official_sdk_server(home: Path) -> None:
    """The official MCP SDK's server asks for a name by input_required; the terminal answers it."""
    pytest.importorskip("mcp.server.mcpserver")
    official = [sys.executable, str(Path(__file__).parents[1] / "interop" / "official_server.py"), "stdio"]
    argv = ["--stdio", shlex.join(official), "--elicit", "--roots", str(home), "call", "ask_in_rounds"]
    done = run(home, *argv, stdin_text="Ada\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"hello Ada ({home.resolve().as_uri()}) state=round-1\n")
    assert done.stderr.startswith("the server asks: Your name?\n")
