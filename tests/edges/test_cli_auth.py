"""``mcpsync login``, ``logout`` and ``auth``, run as a person would, against the test authorization server.

The login runs in a real subprocess with no browser (as over SSH): it prints
the link, the test plays the browser (``approve``) and pastes the address the
browser ended on, as the person would.
"""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import requests

from tests.edges.test_cli import COMMAND_TIMEOUT, RUNS_THE_CLI, run
from tests.oauth_server import OAuthTestServer


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("MCPSYNC_CONFIG", "DISPLAY", "WAYLAND_DISPLAY")}
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / "config"), XDG_DATA_HOME=str(home / "data"))
    env["SSH_CONNECTION"] = "10.0.0.1 5000 10.0.0.2 22"  # no browser to open: the link is printed
    return env


def login(home: Path, server: OAuthTestServer, *, callback: bool = False) -> subprocess.CompletedProcess[str]:
    """``mcpsync login --url``, answering its prompt with the address the browser ends on; or
    (``callback``) with nothing: the browser, on the same machine, follows the redirect to the
    command's loopback receiver, and stdin stays open and silent."""
    process = subprocess.Popen(
        [sys.executable, "-m", "mcpsync", "login", "--url", server.url],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=home,
        env=_env(home),
    )
    lines: queue.Queue[str] = queue.Queue()
    seen: list[str] = []

    def read() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            lines.put(line)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        while True:
            line = lines.get(timeout=COMMAND_TIMEOUT)
            seen.append(line)
            if line.startswith("  http"):
                break
        assert process.stdin is not None and process.stdout is not None
        redirect = server.approve(line.strip())
        if callback:
            assert requests.get(redirect, timeout=COMMAND_TIMEOUT).status_code == 200
        else:
            process.stdin.write(redirect + "\n")
            process.stdin.flush()
        process.wait(COMMAND_TIMEOUT)
        process.stdin.close()
        out = process.stdout.read()  # small: the pipe never filled
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(5)
    reader.join(5)  # stderr ends with the process: its reader is done before the pipes close
    for stream in (process.stdout, process.stderr):
        if stream is not None:
            stream.close()
    while not lines.empty():
        seen.append(lines.get())
    return subprocess.CompletedProcess(process.args, process.returncode, out, "".join(seen))


@pytest.mark.slow(RUNS_THE_CLI)
def test_login_then_commands_use_the_kept_token_then_logout(tmp_path: Path) -> None:
    with OAuthTestServer() as server:
        done = login(tmp_path, server)
        assert done.returncode == 0, done.stderr
        host = server.url.split("/")[2]  # an inline server is named by its URL's host, not "inline"
        assert done.stdout.startswith(
            f"{host}: logged in at {server.issuer} (scopes: read offline_access; expires in 60 min)"
        )
        assert f"To log in to {host}, open this link in a browser" in done.stderr

        tools = run(tmp_path, "--url", server.url, "tools", trust=False)
        assert tools.returncode == 0, tools.stderr
        assert "echo" in tools.stdout

        status = run(tmp_path, "auth", trust=False)
        assert status.returncode == 0
        assert server.url in status.stdout and server.issuer in status.stdout and "read offline_access" in status.stdout
        assert not any(token in status.stdout for token in server.access_tokens)

        out = run(tmp_path, "logout", "--url", server.url, trust=False)
        assert out.stdout.strip() == f"{host}: logged out"
        again = run(tmp_path, "--url", server.url, "tools", trust=False)
        assert again.returncode == 1
        assert f"log in once with: mcpsync login --url {server.url}" in again.stderr
        assert len(server.requests_to("/authorize")) == 1


def test_login_without_a_browser_finishes_by_the_callback_without_a_paste(tmp_path: Path) -> None:
    """Scenario: ``mcpsync login`` over SSH (no DISPLAY): it prints the link; the person opens it on a
    browser that can reach this machine's loopback (a forwarded port), and the redirect arrives.
    Promise: the command finishes on the callback, with nothing pasted (it used to go on waiting for
    a paste, then fail with "no address was pasted")."""
    with OAuthTestServer() as server:
        done = login(tmp_path, server, callback=True)
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith(f"{server.url.split('/')[2]}: logged in at {server.issuer}")
        assert "paste here the address" in done.stderr and "The browser came back here" in done.stderr
        assert len(server.requests_to("/token")) == 1


def test_auth_with_nothing_stored_says_so(tmp_path: Path) -> None:
    out = run(tmp_path, "auth", trust=False)
    assert out.returncode == 0 and out.stdout.startswith("no stored logins")


@pytest.mark.parametrize("command", ["login", "logout"])
def test_login_and_logout_need_an_http_server(tmp_path: Path, command: str) -> None:
    out = run(tmp_path, "--stdio", "python -m mcpsync.testing", command, trust=False)
    assert out.returncode == 2 and "stdio server" in out.stderr
