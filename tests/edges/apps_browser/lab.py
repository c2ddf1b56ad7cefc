"""A JupyterLab server and a notebook page in Debian's Chromium, for the MCP Apps browser tests.

The server runs with this interpreter (the venv's), so its kernels import the mcpsync under test
(PYTHONPATH is the repository, as tests/notebook_runner.py has it). Every wait here is bounded and waits
on a state (an HTTP answer, a DOM element, a text), never on the clock.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Optional

REPO = Path(__file__).resolve().parents[3]
CHROMIUM = Path("/usr/bin/chromium")
#: The flags Chromium needs as root on a machine without a network: no sandbox (root), no GPU, and
#: none of the background connections that the closed network would refuse.
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
#: Seconds JupyterLab may take to answer its first request.
SERVER_START = 90
#: Milliseconds any one DOM wait may take (a kernel start, a cell's run, a view's first paint).
DOM_WAIT = 60_000
#: Why a test that runs a notebook in the browser is slow (the first of the group also waits for
#: JupyterLab to start).
IN_JUPYTERLAB = "opens a notebook in JupyterLab in Chromium and runs its cells in a kernel: 5-10 s"
INSTALL_HINT = (
    "Debian's Chromium (/usr/bin/chromium) is not installed: `make test` installs it with apt-get when run "
    "as root (by hand: apt-get install -y --no-install-recommends chromium)"
)


def missing_requirements() -> Optional[str]:
    """Why the browser tests cannot run here, or ``None`` when they can."""
    if not CHROMIUM.exists():
        return INSTALL_HINT
    for module in ("jupyterlab", "playwright", "anywidget", "nbformat"):
        try:
            __import__(module)
        except ImportError:
            return f"{module} is not installed (pip install -e '.[test]' installs it)"
    return None


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class JupyterLab:
    """A JupyterLab server of our own on 127.0.0.1, with a token, its root a fresh directory."""

    def __init__(self, workdir: Path) -> None:
        self.root = workdir / "root"
        self.root.mkdir()
        # The kernels run in the root; a stdio server started from a notebook gets a clean environment
        # (no PYTHONPATH) but our working directory, and `python -m mcpsync.testing` looks there first:
        # this checkout's package, even where the venv's mcpsync is installed from another one.
        (self.root / "mcpsync").symlink_to(REPO / "mcpsync", target_is_directory=True)
        self.port = free_port()
        self.token = secrets.token_hex(16)
        self.base = f"http://127.0.0.1:{self.port}"
        self.log_path = workdir / "jupyterlab.log"
        settings = workdir / "settings"
        # no news, no update check: no toast over the notebook, no connection the closed network refuses
        notification = settings / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings"
        notification.parent.mkdir(parents=True)
        notification.write_text(json.dumps({"fetchNews": "false", "checkForUpdates": False}))
        # every cell rendered, not only those in view: a test reads outputs scrolled out of sight
        tracker = settings / "@jupyterlab" / "notebook-extension" / "tracker.jupyterlab-settings"
        tracker.parent.mkdir(parents=True)
        tracker.write_text(json.dumps({"windowingMode": "none"}))
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH", "")) if p)
        env["JUPYTERLAB_SETTINGS_DIR"] = str(settings)
        env["JUPYTERLAB_WORKSPACES_DIR"] = str(workdir / "workspaces")
        env["JUPYTER_RUNTIME_DIR"] = str(workdir / "runtime")
        env["IPYTHONDIR"] = str(workdir / "ipython")
        command = [
            sys.executable,
            "-m",
            "jupyterlab",
            "--no-browser",
            "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.port={self.port}",
            "--ServerApp.port_retries=0",
            f"--IdentityProvider.token={self.token}",
            f"--ServerApp.root_dir={self.root}",
            "--LabApp.expose_app_in_browser=True",  # window.jupyterapp: the commands the menus run
            "--LabApp.news_url=",
            "--ServerApp.open_browser=False",
            "--ServerApp.allow_root=True",  # CI runs as root
            "--LabApp.extension_manager=readonly",  # no look-ups on PyPI
        ]
        self._log = self.log_path.open("wb")
        self.process = subprocess.Popen(command, stdout=self._log, stderr=subprocess.STDOUT, env=env, cwd=self.root)
        try:
            self._wait_ready()
        except BaseException:
            self.stop()
            raise

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + SERVER_START
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"JupyterLab exited ({self.process.returncode}):\n{self.log()}")
            try:
                self.api("GET", "/api/status")
                return
            except (OSError, urllib.error.URLError):
                if time.monotonic() > deadline:
                    raise RuntimeError(f"JupyterLab did not answer in {SERVER_START} s:\n{self.log()}") from None
                time.sleep(0.2)  # polling a server that is starting: nothing to wait on but the port

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")[-4000:]

    def api(self, method: str, path: str, body: Optional[dict[str, Any]] = None) -> Any:
        """One REST call to the server; its decoded JSON answer (``None`` when empty)."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            self.base + path,
            data=data,
            method=method,
            headers={"Authorization": f"token {self.token}", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=10) as answer:
            raw = answer.read()
        return json.loads(raw) if raw else None

    def url(self, notebook: str) -> str:
        return f"{self.base}/lab/tree/{notebook}?token={self.token}&reset"

    def shutdown_kernels(self) -> None:
        """Shut every session and kernel down (the kernels are the server's children; their own
        children, such as the MCP servers a kernel's client started, go with them)."""
        for session in self.api("GET", "/api/sessions") or []:
            self.api("DELETE", f"/api/sessions/{session['id']}")
        for kernel in self.api("GET", "/api/kernels") or []:
            self.api("DELETE", f"/api/kernels/{kernel['id']}")

    def stop(self) -> None:
        """Shut the server down (its kernels first) and reap it."""
        if self.process.poll() is None:
            try:
                self.shutdown_kernels()
                self.api("POST", "/api/shutdown")
            except (OSError, urllib.error.URLError):
                self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        self._log.close()


def write_notebook(root: Path, name: str, cells: list[str]) -> str:
    """A notebook of ``cells`` (code) written into the server's root; its file name."""
    import nbformat

    notebook = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    notebook.cells = [nbformat.v4.new_code_cell(source) for source in cells]
    filename = f"{name}.ipynb"
    nbformat.write(notebook, root / filename)
    return filename


def copy_notebook(root: Path, source: Path) -> str:
    shutil.copy(source, root / source.name)
    return source.name


#: True when the notebook in view has a kernel that is connected and idle.
KERNEL_IDLE = """() => {
    const panel = window.jupyterapp.shell.currentWidget;
    const kernel = panel && panel.sessionContext && panel.sessionContext.session && panel.sessionContext.session.kernel;
    return !!kernel && kernel.connectionStatus === "connected" && kernel.status === "idle";
}"""


class NotebookPage:
    """A notebook opened in JupyterLab in a Chromium page: run its cells, read its outputs."""

    def __init__(self, lab: JupyterLab, page: Any, filename: str) -> None:
        self.lab = lab
        self.page = page
        self.filename = filename
        page.set_default_timeout(DOM_WAIT)
        page.goto(lab.url(filename))
        page.wait_for_function("() => window.jupyterapp !== undefined && window.jupyterapp.started !== undefined")
        page.locator(".jp-NotebookPanel .jp-Cell").first.wait_for()
        # the kernel is connected and idle: cells run at once, not queued behind a dialog
        page.wait_for_function(KERNEL_IDLE)

    def command(self, name: str, wait: bool = True) -> None:
        """Run one of JupyterLab's commands (what the menus and shortcuts run). ``wait=False`` only
        starts it: the promise of ``notebook:run-cell`` does not settle while the cell runs, and for a
        cell that runs on until interrupted it took 30 s before the test could go on (the caller
        waits with ``wait_ran`` instead)."""
        script = "(name) => window.jupyterapp.commands.execute(name)"
        self.page.evaluate(script if wait else "(name) => { window.jupyterapp.commands.execute(name); }", name)

    def cell(self, index: int) -> Any:
        return self.page.locator(".jp-NotebookPanel .jp-Notebook .jp-Cell").nth(index)

    def output(self, index: int) -> Any:
        return self.cell(index).locator(".jp-OutputArea")

    def run_all(self) -> None:
        self.command("notebook:run-all-cells")

    def run_cell(self, index: int) -> None:
        """Select cell ``index`` and run it (shift-enter's command, staying on it)."""
        self.cell(index).locator(".jp-InputPrompt").click()
        self.command("notebook:run-cell", wait=False)

    def wait_ran(self, index: int, count: Optional[int] = None) -> None:
        """Wait until cell ``index`` has finished (an execution count, not ``*``), ``count`` if given."""
        prompt = self.cell(index).locator(".jp-InputArea-prompt")
        if count is None:
            self.page.wait_for_function(
                "(el) => /^\\[\\d+\\]/.test(el.textContent.trim())", arg=prompt.element_handle()
            )
        else:
            self.page.wait_for_function(
                "([el, n]) => el.textContent.trim().startsWith('[' + n + ']')", arg=[prompt.element_handle(), count]
            )

    def text(self, index: int) -> str:
        return str(self.output(index).inner_text())

    def interrupt(self) -> None:
        self.command("notebook:interrupt-kernel")

    def close(self) -> None:
        self.page.close()
