"""Run notebooks in a real Jupyter kernel, in a process of its own, for tests/edges/test_notebook.py.

    python notebook_runner.py execute NOTEBOOK OUT     # run every cell; write the executed notebook to OUT
    python notebook_runner.py interrupt OUT            # the interrupt scenario; write its cells to OUT
    python notebook_runner.py logs OUT                 # where log lines go, in a cell and between cells
    python notebook_runner.py login paste|callback OUT # a login in the kernel: the address pasted, or the redirect

nbclient and jupyter_client leave event loops and sockets for the garbage
collector; a process of their own keeps that out of the test process, where
every leaked descriptor fails the test.
"""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

import nbclient
import nbformat
from jupyter_client.utils import run_sync

#: Seconds any one cell may take.
CELL_TIMEOUT = 60
#: The repository: the kernel of the login scenario imports the test-only OAuth server from its tests/.
REPO = Path(__file__).resolve().parent.parent

INTERRUPT_SCENARIO = [
    # The legacy era: the test counts on initialize being request 1.
    "import sys, time, mcpsync\nclient = mcpsync.connect([sys.executable, '-m', 'mcpsync.testing'], protocol='legacy')",
    "started = time.monotonic()\nclient.call_tool('sleep', {'seconds': 60})",  # interrupted after 2 s
    "print(round(time.monotonic() - started))",
    "client.call_tool('cancelled_requests').structured_content['cancelled']",
    "client.call_tool('echo', {'text': 'next cell'}).text",
    "client.close()",
]


LOGS_SCENARIO = [
    "import logging, threading, mcpsync\nmcpsync.show_logs('INFO')",
    # a server writing on its own, half a second after the cell ends: the runner waits 2 s before the next
    "threading.Timer(0.5, lambda: logging.getLogger('mcpsync.server.late').warning('between cells')).start()",
    "logging.getLogger('mcpsync.server.now').warning('in a cell')",
]


def execute(source: Path, out: Path) -> None:
    notebook = nbformat.read(source, as_version=4)
    runner = nbclient.NotebookClient(
        notebook, timeout=CELL_TIMEOUT, kernel_name="python3", resources={"metadata": {"path": str(source.parent)}}
    )
    runner.execute()
    nbformat.write(notebook, out)


def interrupt(out: Path) -> None:
    notebook = nbformat.v4.new_notebook()
    runner = nbclient.NotebookClient(notebook, timeout=CELL_TIMEOUT, kernel_name="python3", allow_errors=True)
    with runner.setup_kernel():
        for index, code in enumerate(INTERRUPT_SCENARIO):
            cell = nbformat.v4.new_code_cell(code)
            notebook.cells.append(cell)
            timer = None
            if index == 1:  # the kernel manager is asynchronous; the timer's thread is not
                timer = threading.Timer(2.0, run_sync(runner.km.interrupt_kernel))
                timer.start()
            try:
                runner.execute_cell(cell, index)
            finally:
                if timer is not None:
                    timer.join(CELL_TIMEOUT)
    nbformat.write(notebook, out)


def logs(out: Path) -> None:
    notebook = nbformat.v4.new_notebook()
    runner = nbclient.NotebookClient(notebook, timeout=CELL_TIMEOUT, kernel_name="python3")
    with runner.setup_kernel():
        for index, code in enumerate(LOGS_SCENARIO):
            cell = nbformat.v4.new_code_cell(code)
            notebook.cells.append(cell)
            runner.execute_cell(cell, index)
            if index == 1:
                time.sleep(2.0)  # the kernel is idle: no cell runs while the line comes
                # nbclient reads only the messages of the cell it runs: collect the display updates sent now.
                notebook.metadata["updates_between_cells"] = updates(runner)
    nbformat.write(notebook, out)


def updates(runner: nbclient.NotebookClient) -> list[dict]:
    """The ``update_display_data`` messages waiting on the kernel's iopub channel now."""
    found = []
    get = run_sync(runner.kc.get_iopub_msg)
    while True:
        try:
            message = get(timeout=0.5)
        except Exception:  # queue.Empty: nothing more
            return found
        if message["msg_type"] == "update_display_data":
            found.append(message["content"])


LOGIN_SCENARIO = [
    f"import sys\nsys.path.insert(0, {str(REPO)!r})\n"  # the test-only server lives in the repository's tests/
    "import mcpsync\nfrom tests.oauth_server import OAuthTestServer\nserver = OAuthTestServer()",
    "auth = mcpsync.OAuth(store=mcpsync.MemoryTokenStore(), interactive=True)\n"
    "with mcpsync.connect(server.url, auth=auth, timeout=30) as client:\n"
    "    print('RESULT', client.call_tool('echo', {'text': 'from the kernel'}).text)",
    "server.close()\nprint('next cell')",
]


def login(how: str, out: Path) -> None:
    """Run ``LOGIN_SCENARIO`` in a real kernel, playing the person: the browser approves the link the
    login prints; then its address is pasted in the input box (``paste``, a kernel that runs
    elsewhere), or the browser follows the redirect to the kernel's receiver (``callback``). Writes
    each cell's messages (stream texts, errors, input requests) as JSON."""
    import json
    import queue

    import requests
    from jupyter_client.manager import start_new_kernel

    km, kc = start_new_kernel(kernel_name="python3")
    cells = []
    try:
        for code in LOGIN_SCENARIO:
            msg_id = kc.execute(code, allow_stdin=True)
            seen: dict = {"streams": "", "errors": [], "input_requests": 0}
            redirect = None
            deadline = time.monotonic() + CELL_TIMEOUT
            while time.monotonic() < deadline:
                try:
                    kc.get_stdin_msg(timeout=0.05)
                    seen["input_requests"] += 1
                except queue.Empty:
                    pass
                if redirect is not None and seen["input_requests"]:
                    if how == "paste":
                        kc.input(redirect)
                    else:
                        requests.get(redirect, timeout=10)
                    redirect = None
                try:
                    message = kc.get_iopub_msg(timeout=0.05)
                except queue.Empty:
                    continue
                if message["parent_header"].get("msg_id") != msg_id:
                    continue
                kind, content = message["msg_type"], message["content"]
                if kind == "stream":
                    seen["streams"] += content["text"]
                    if "with this link" in content["text"] and redirect is None:
                        link = content["text"].split("): ", 1)[1].split()[0]
                        answer = requests.get(link, allow_redirects=False, timeout=10)
                        redirect = answer.headers["Location"]
                elif kind == "error":
                    seen["errors"].append(f"{content['ename']}: {content['evalue']}")
                elif kind == "status" and content["execution_state"] == "idle":
                    break
            cells.append(seen)
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    out.write_text(json.dumps(cells))


if __name__ == "__main__":
    if sys.argv[1:2] == ["execute"] and len(sys.argv) == 4:
        execute(Path(sys.argv[2]), Path(sys.argv[3]))
    elif sys.argv[1:2] == ["interrupt"] and len(sys.argv) == 3:
        interrupt(Path(sys.argv[2]))
    elif sys.argv[1:2] == ["logs"] and len(sys.argv) == 3:
        logs(Path(sys.argv[2]))
    elif sys.argv[1:2] == ["login"] and len(sys.argv) == 4 and sys.argv[2] in ("paste", "callback"):
        login(sys.argv[2], Path(sys.argv[3]))
    else:
        sys.exit(__doc__)
