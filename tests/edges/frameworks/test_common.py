"""What every framework integration shares (``mcpsync._edges.frameworks.common``) and the two ``ToolBox``
methods they are all built on (``offered``, ``call``): the lazy import and its message, a result in pieces,
which failures go back to the model, and ``acall``, whose cancelled task cancels the call on the server."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import mcpsync
from mcpsync import CallToolResult, ToolBox
from mcpsync._edges.frameworks.common import (
    CANCELLED_REASON,
    Image,
    Link,
    acall,
    model_can_fix,
    need,
    result_images,
    result_links,
    result_structured,
    result_text,
)
from tests.edges.frameworks.conftest import PIXEL, T, drawing_box, target_of
from tests.helpers import in_flight, scripted_server, wait_for

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"

#: Every framework an integration may import, and the packages they bring.
FRAMEWORKS = ("langchain_core", "langchain", "langgraph", "llama_index", "smolagents", "agents", "pydantic_ai")


def test_import_mcpsync_and_its_toolbox_import_no_framework() -> None:
    """A fresh ``import mcpsync`` (and reaching ``mcpsync.ToolBox``) loads none of the frameworks."""
    code = (
        "import sys, mcpsync; mcpsync.ToolBox; "
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {FRAMEWORKS!r}))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize(
    ("method", "module", "package"),
    [
        ("langchain", "langchain_core", "langchain-core"),
        ("llama_index", "llama_index", "llama-index-core"),
        ("smolagents", "smolagents", "smolagents"),
        ("openai_agents_server", "agents", "openai-agents"),
        ("openai_agents", "agents", "openai-agents"),
        ("pydantic_ai", "pydantic_ai", "pydantic-ai-slim"),
    ],
)
def test_a_missing_framework_is_an_import_error_naming_the_package(method: str, module: str, package: str) -> None:
    """With the framework not importable, its method raises ``ImportError`` saying ``pip install <package>``."""
    code = (
        f"import sys; sys.modules[{module!r}] = None\n"
        "import mcpsync\n"
        f"try:\n    mcpsync.ToolBox([]).{method}()\n"
        "except ImportError as exc:\n    print(exc)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert f"pip install {package}" in done.stdout, done.stdout


def test_need_imports_the_module_or_names_the_package() -> None:
    """``need`` gives the module when it is there, and an ``ImportError`` naming the pip package when not."""
    assert need("json", "json") is __import__("json")
    with pytest.raises(ImportError, match="pip install no-such-framework"):
        need("no_such_framework_module", "no-such-framework")


def test_the_box_offers_what_a_model_may_call_and_calls_by_that_name() -> None:
    """``offered()`` lists the tools with their schemas (copies a framework may change), never the tools held
    back from models; ``call`` calls by the offered name, and refuses other names saying why."""
    with target_of("stdio") as target:
        box = target.box
        offered = {tool.name: tool for tool in box.offered()}
        assert "refresh_dashboard" not in offered and "refresh_dashboard" in box.held_back
        assert offered["echo"].input_schema == {
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
        }
        assert offered["echo"].tool.name == "echo" and offered["echo"].description
        offered["echo"].input_schema["properties"].clear()
        assert box.offered()[0].input_schema["properties"]  # the box's own schema is untouched
        assert box.call("echo", {"text": "hi"}).text == "hi"
        with pytest.raises(mcpsync.UnknownNameError, match="not for models"):
            box.call("refresh_dashboard", {})
        with pytest.raises(mcpsync.UnknownNameError, match="no tool is offered as 'nope'; the tools: add, "):
            box.call("nope", {})


def test_a_result_in_the_pieces_frameworks_take() -> None:
    """A result's text (an image and a link as lines saying what they are), structured content, images and links."""
    with drawing_box() as box:
        result = box.call("draw", {})
    assert result_text(result) == "a pixel\n[an image, image/png, 70 bytes]\n[resource file:///pixel.png: pixel.png]"
    assert result_structured(result) == (True, {"width": 1, "height": 1})
    assert result_images(result) == [Image(PIXEL, "image/png")]
    assert result_images(result)[0].data_url == f"data:image/png;base64,{PIXEL}"
    assert result_links(result) == [Link("file:///pixel.png", "pixel.png", "image/png", None)]
    null = CallToolResult.from_dict({"content": [], "structuredContent": None}, "t")
    assert result_structured(null) == (True, None) and result_text(null) == "null"


def test_what_goes_back_to_the_model_and_what_is_raised() -> None:
    """A server's refusal, a timeout and an unknown name go to the model; a lost connection, an authorization
    needed and a call the program cancelled do not."""
    assert model_can_fix(mcpsync.ServerError(-32602, "bad arguments"))
    assert model_can_fix(mcpsync.RequestTimeout("tools/call", 1.0))
    assert model_can_fix(mcpsync.UnknownNameError("no such tool"))
    assert not model_can_fix(mcpsync.TransportClosed("gone"))
    assert not model_can_fix(mcpsync.RequestCancelled("tools/call", "stop"))
    assert not model_can_fix(ValueError("not ours"))


def test_acall_gives_the_result_and_raises_the_calls_errors() -> None:
    """``acall`` awaits the blocking call: its result, or its error (a timeout here), and no thread stays."""
    with target_of("stdio", timeout=0.5) as target:

        async def main() -> None:
            assert (await acall(target.box, "echo", {"text": "hi"})).text == "hi"
            with pytest.raises(mcpsync.RequestTimeout):
                await acall(target.box, "sleep", {"seconds": 60})
            assert (await acall(target.box, "echo", {"text": "long"}, timeout=T)).text == "long"

        asyncio.run(main())
        assert not [t for t in threading.enumerate() if t.name.startswith("mcpsync-acall")]


def test_a_cancelled_acall_cancels_the_request_on_the_server_and_leaves_no_thread() -> None:
    """The task awaiting ``acall`` is cancelled once the call is out: ``CancelledError`` in the task, the
    server told with the reason, and the call's thread ended before the task's cancellation is over."""
    with target_of("stdio") as target:

        async def main() -> None:
            task = asyncio.ensure_future(acall(target.box, "sleep", {"seconds": 60}))
            await target.until_in_flight()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await asyncio.wait_for(task, T)
            assert not [t for t in threading.enumerate() if t.name.startswith("mcpsync-acall")]

        asyncio.run(main())
        assert len(target.cancelled_on_server(1)) == 1
        # The notice goes out in the background: it is counted once written, a moment after maybe.
        assert wait_for(lambda: target.client.stats.cancelled == 1, T)
    assert CANCELLED_REASON == "the asyncio task awaiting the call was cancelled"


def test_a_cancelled_acall_tells_the_server_why(tmp_path: Path) -> None:
    """The task awaiting ``acall`` of a call the server never answers is cancelled: the server receives
    ``notifications/cancelled`` for that request, with ``CANCELLED_REASON`` as its reason."""
    import json

    listing = {"tools": [{"name": "wait", "inputSchema": {"type": "object"}}]}
    log = tmp_path / "received.jsonl"
    script = {"tools/list": [listing], "tools/call": ["silent"], "ping": [{}]}
    with mcpsync.connect(scripted_server(script, log), timeout=T) as client:
        box = ToolBox(client, timeout=120)
        out = in_flight(client)

        async def main() -> None:
            task = asyncio.ensure_future(acall(box, "wait", {}))
            for _ in range(int(T / 0.01)):
                if out():
                    break
                await asyncio.sleep(0.01)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await asyncio.wait_for(task, T)

        asyncio.run(main())
        client.ping(timeout=T)  # sent after the notice, answered after the server logged it
    received = [json.loads(line) for line in log.read_text().splitlines()]
    (call,) = [message for message in received if message.get("method") == "tools/call"]
    notices = [message for message in received if message.get("method") == "notifications/cancelled"]
    assert [notice["params"] for notice in notices] == [{"requestId": call["id"], "reason": CANCELLED_REASON}]


def test_the_frameworks_get_their_tools_from_offered_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever ``offered()`` says is what each framework gets: a box that offers fewer tools (as a tool
    search will) gives every framework those tools and no others."""
    pytest.importorskip("langchain_core")
    pytest.importorskip("llama_index.core")
    pytest.importorskip("smolagents")
    with target_of("stdio") as target:
        box: ToolBox = target.box
        only = [tool for tool in box.offered() if tool.name in ("echo", "add")]
        monkeypatch.setattr(box, "offered", lambda: only)
        assert [t.name for t in box.langchain()] == ["echo", "add"]
        assert [t.metadata.name for t in box.llama_index()] == ["echo", "add"]
        assert [t.name for t in box.smolagents()] == ["echo", "add"]


def test_every_framework_gets_the_dispatcher_of_a_search_and_it_calls_the_found_tool() -> None:
    """Issue 37, point 3: a framework fixes its tools when a run starts; with ``search=True`` each gets
    ``search_tools`` and ``call_tool`` from the start, and the framework's own tool object of
    ``call_tool`` runs the tool it names on the server (LangChain, LlamaIndex, smolagents)."""
    pytest.importorskip("langchain_core")
    pytest.importorskip("llama_index.core")
    pytest.importorskip("smolagents")
    with target_of("stdio") as target:
        box = ToolBox(target.client, search=True, timeout=T)
        order = {"name": "echo", "arguments": {"text": "found"}}
        lc = {t.name: t for t in box.langchain()}
        assert list(lc) == ["search_tools", "call_tool"]
        assert "found" in str(lc["call_tool"].invoke(order))
        li = {t.metadata.name: t for t in box.llama_index()}
        assert list(li) == ["search_tools", "call_tool"]
        assert li["call_tool"].call(**order).content == "found"
        sa = {t.name: t for t in box.smolagents()}
        assert list(sa) == ["search_tools", "call_tool"]
        assert sa["call_tool"](**order) == "found"


@pytest.mark.slow("runs the example as a Python process (imports the framework)")
@pytest.mark.parametrize("framework", ["langchain", "llama_index", "smolagents"])
def test_each_frameworks_example_runs_without_an_api_key(framework: str) -> None:
    """``examples/frameworks_<framework>.py`` runs its agent against the bundled server with its offline
    model, and the model answers with the tool's result."""
    pytest.importorskip({"langchain": "langchain.agents", "llama_index": "llama_index.core"}.get(framework, framework))
    env = {"PATH": "/usr/bin:/bin", **{k: v for k, v in os.environ.items() if k == "PYTHONPATH"}}
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / f"frameworks_{framework}.py")],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "model: The sum is 42.", done.stdout
    assert done.stdout.startswith("tool call: add ")
