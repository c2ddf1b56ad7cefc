"""mcpsync in a real Jupyter kernel: the example notebook runs top to bottom, and interrupting works.

tests/notebook_runner.py runs the kernel (ipykernel, started by nbclient with
this interpreter, so it sees the mcpsync under test) from a process of its own
and writes the executed cells to a file; these tests read them.
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.deferred import deferred

pytestmark = pytest.mark.kernel

deferred("nbclient")  # skipped here when not installed
deferred("ipykernel")  # skipped here when not installed
nbformat = deferred("nbformat")

NOTEBOOK = Path(__file__).resolve().parent.parent.parent / "examples" / "quickstart.ipynb"
RUNNER = Path(__file__).parent.parent / "notebook_runner.py"
#: Why a test that runs a notebook is slow: a Jupyter kernel starts for it, then its cells run.
RUNS_A_KERNEL = "runs a notebook in a fresh Jupyter kernel: a kernel start is a few seconds"
#: Seconds a whole notebook run may take (a kernel start is a few seconds; each cell is bounded too).
RUN_TIMEOUT = 300


def run(tmp_path: Path, *args: str) -> Any:
    """Run the notebook runner; return the notebook it wrote."""
    out = tmp_path / "executed.ipynb"
    done = subprocess.run(
        [sys.executable, str(RUNNER), *args, str(out)], capture_output=True, text=True, timeout=RUN_TIMEOUT
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return nbformat.read(out, as_version=4)


def text_of(cell: Any) -> str:
    """Everything a code cell showed: streams, plain-text results and errors."""
    parts = []
    for output in cell.get("outputs", []):
        if output["output_type"] == "stream":
            parts.append(output["text"])
        elif output["output_type"] in ("execute_result", "display_data"):
            parts.append(output["data"].get("text/plain", ""))
        elif output["output_type"] == "error":
            parts.append(f"{output['ename']}: {output['evalue']}")
    return "".join(parts)


def cell_with(notebook: Any, source: str) -> Any:
    """The (first) code cell whose source contains ``source``."""
    return next(c for c in notebook.cells if c.cell_type == "code" and source in c.source)


def test_the_notebook_in_git_has_no_outputs() -> None:
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, cell.source


@pytest.mark.slow(RUNS_A_KERNEL)
def test_the_example_notebook_runs_top_to_bottom(tmp_path: Path) -> None:
    executed = run(tmp_path, "execute", str(NOTEBOOK))
    assert all(o["output_type"] != "error" for c in executed.cells for o in c.get("outputs", []))
    assert "mcpsync-test-server" in text_of(cell_with(executed, "client = mcpsync.connect"))
    tools = text_of(cell_with(executed, "tools = client.list_tools()"))
    assert "echo" in tools and "progress" in tools
    assert text_of(cell_with(executed, "result.structured_content")) == "{'sum': 42}"
    progress = cell_with(executed, '"progress"')
    assert text_of(progress).endswith("'done'")
    bars = [o for o in progress.outputs if o["output_type"] == "display_data"]
    # The live widget's place is taken by the bar's final state, which a saved notebook shows as it was.
    assert len(bars) == 1 and "application/vnd.jupyter.widget-view+json" not in bars[0]["data"]
    final = bars[0]["data"]["text/plain"]
    assert "100%" in final and "5/5" in final and "progress" in final, final
    assert text_of(cell_with(executed, 'read_resource("text://greeting")')) == "'Hello from a resource'"
    assert "image/png" in text_of(cell_with(executed, 'read_resource("binary://pixel")'))
    assert text_of(cell_with(executed, "get_prompt")) == "[('user', 'Write a casual greeting for Ada.')]"
    short = text_of(cell_with(executed, "client.list_resources(), "))
    assert "<Resource 'text://greeting' text/plain: A short text resource.>" in short
    assert "<ReadResourceResult 'text://greeting' text/plain: 'Hello from a resource'>" in short
    assert "<GetPromptResult 1 message: user: 'Write a casual greeting for Ada.'>" in short
    interrupted = text_of(cell_with(executed, "interrupt_main")).splitlines()
    assert interrupted[0] == "tools/call interrupted: cancelled on the server 'quickstart'; the client is still usable"
    assert float(interrupted[1].split()[1]) < 5, interrupted  # ended early: the timer fired 1 s into a 10 s call
    assert (
        len(ast.literal_eval(text_of(cell_with(executed, '"cancelled_requests"')))["cancelled"]) == 1
    )  # the server saw it
    assert text_of(cell_with(executed, '"still connected"')) == "'still connected'"
    assert "hello from the server's stderr" in text_of(cell_with(executed, '"stderr"'))  # stderr reached the notebook
    statuses = [o for o in cell_with(executed, "manager.status()").outputs if o["output_type"] == "execute_result"]
    assert len(statuses) == 1 and "MCP servers" in statuses[0]["data"]["text/html"]  # the table, not a dict
    assert "connected" in statuses[0]["data"]["text/html"]
    assert "via the manager" in text_of(cell_with(executed, "second__echo"))
    assert text_of(cell_with(executed, "tool.name.endswith")) == "['first__echo', 'second__echo']"
    assert "closed" in text_of(cell_with(executed, "manager.close()"))


@pytest.mark.slow(RUNS_A_KERNEL)
def test_interrupting_the_kernel_cancels_the_call_and_the_client_stays_usable(tmp_path: Path) -> None:
    cells = run(tmp_path, "interrupt").cells
    assert text_of(cells[1]).startswith(
        "KeyboardInterrupt: tools/call interrupted: cancelled on the server 'mcpsync.testing'"
    )
    error = next(o for o in cells[1].outputs if o["output_type"] == "error")
    ours = [line for line in error["traceback"] if "mcpsync" + "/" in line and "File " in line]
    assert len(ours) <= 1, "\n".join(error["traceback"])  # one frame of mcpsync's, not the whole way down
    assert int(text_of(cells[2])) < 20  # promptly: the interrupt came after 2 s of a 60 s call
    assert text_of(cells[3]) == "[2]"  # the server was told (id 1 was initialize)
    assert text_of(cells[4]) == "'next cell'"  # the same client, still connected
    assert text_of(cells[5]) == ""


@pytest.mark.slow(RUNS_A_KERNEL)
def test_log_lines_go_under_the_running_cell_and_between_cells_to_the_show_logs_cell(tmp_path: Path) -> None:
    notebook = run(tmp_path, "logs")
    cells = notebook.cells
    area = [o for o in cells[0].outputs if o["output_type"] == "display_data"]
    assert len(area) == 1 and "appear here" in area[0]["data"]["text/plain"], cells[0].outputs
    # Between cells the line updates that display (nbclient itself reads only a running cell's messages).
    updates = notebook.metadata["updates_between_cells"]
    assert [u["data"]["text/plain"] for u in updates] == ["WARNING mcpsync.server.late: between cells"]
    assert isinstance(updates[0]["transient"]["display_id"], str)
    assert "between cells" not in text_of(cells[1]) + text_of(cells[2])  # not under a cell that did not ask
    assert "WARNING mcpsync.server.now: in a cell" in text_of(cells[2])


def test_make_notebook_installs_what_it_needs_and_runs_the_example_headless() -> None:
    """``make notebook`` (dry run): installs nbclient and ipykernel beside the notebook extra, then runs
    the example notebook through the same runner as these tests."""
    root = NOTEBOOK.parent.parent
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    venv = root / "build" / "no-such-venv"  # a venv that is not there: every step shows, nothing runs
    done = subprocess.run(
        ["make", "-n", "notebook", f"VENV={venv}"], cwd=root, capture_output=True, text=True, timeout=30
    )
    assert done.returncode == 0, done.stderr
    assert "'.[notebook]'" in done.stdout and "nbclient" in done.stdout and "ipykernel" in done.stdout
    assert "tests/notebook_runner.py execute examples/quickstart.ipynb build/quickstart.executed.ipynb" in done.stdout


@pytest.mark.parametrize("how", ["paste", "callback"])
def test_a_login_in_a_real_kernel_ends_by_the_pasted_address_or_by_the_redirect(tmp_path: Path, how: str) -> None:
    """Scenario: a call in a notebook needs a login. The kernel shows the link and the front end's
    input box. ``paste``: the kernel runs elsewhere, so the person pastes the address the browser
    ended on; ``callback``: the browser's redirect reaches the kernel, and the open box is ended.
    Promise: either way the call goes through, and the next cell runs."""
    import json

    out = tmp_path / "login.json"
    done = subprocess.run(
        [sys.executable, str(RUNNER), "login", how, str(out)], capture_output=True, text=True, timeout=RUN_TIMEOUT
    )
    assert done.returncode == 0, done.stderr[-3000:]
    cells = json.loads(out.read_text())
    assert cells[1]["errors"] == [], cells[1]
    assert "paste its address" in cells[1]["streams"] and cells[1]["input_requests"] == 1
    assert "RESULT from the kernel" in cells[1]["streams"]
    assert cells[2]["errors"] == [] and "next cell" in cells[2]["streams"]
