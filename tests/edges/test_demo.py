"""The demo (`make demo`): runs against the bundled server and exits 0."""

import io
import subprocess
import sys

import pytest

from mcpsync._edges.demo import run_demo


def test_run_demo_prints_tools_and_results():
    out = io.StringIO()
    assert run_demo(out) == 0
    text = out.getvalue()
    assert "Connected to mcpsync-test-server" in text
    assert "modern era: server/discover" in text  # the test server speaks both eras; auto picks modern
    for tool in ("echo", "add", "fail", "sleep"):
        assert f"\n  {tool} " in text
    assert "'Hello from mcpsync'" in text
    assert 'structured {"sum": 42}' in text
    assert "progress(steps=4)                -> 'done', progress 1/4 2/4 3/4 4/4" in text
    assert "RequestTimeout: Request timeout after 0.5s" in text
    assert "0 threads left running" in text
    assert "read_resource('text://greeting')  -> 'Hello from a resource'" in text
    assert "bytes of image/png" in text
    assert "user: 'Write a casual greeting for Ada.'" in text
    assert "['Alan', 'Alonzo']" in text


@pytest.mark.slow("runs python -m mcpsync demo as a process, which starts the bundled server as another")
def test_python_dash_m_mcpsync_demo_exits_zero():
    done = subprocess.run([sys.executable, "-m", "mcpsync", "demo"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "server exit code 0" in done.stdout


def test_cli_without_command_prints_help_and_fails():
    done = subprocess.run([sys.executable, "-m", "mcpsync"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "demo" in done.stdout
