"""Run notebooks in a real Jupyter kernel, in a process of its own, for tests/edges/test_notebook.py.

    python notebook_runner.py execute NOTEBOOK OUT     # run every cell; write the executed notebook to OUT
    python notebook_runner.py interrupt OUT            # the interrupt scenario; write its cells to OUT
    python notebook_runner.py logs OUT                 # where log lines go, in a cell and between cells

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


if __name__ == "__main__":
    if sys.argv[1:2] == ["execute"] and len(sys.argv) == 4:
        execute(Path(sys.argv[2]), Path(sys.argv[3]))
    elif sys.argv[1:2] == ["interrupt"] and len(sys.argv) == 3:
        interrupt(Path(sys.argv[2]))
    elif sys.argv[1:2] == ["logs"] and len(sys.argv) == 3:
        logs(Path(sys.argv[2]))
    else:
        sys.exit(__doc__)
