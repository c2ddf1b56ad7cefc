"""Platforms mcpsync does not run server commands on yet (Windows): ``import mcpsync`` works, and
connecting to a command says so at once, in words, with a typed error."""

from __future__ import annotations

import subprocess
import sys

import pytest

import mcpsync
from mcpsync._wire import stdio

#: A Windows as far as our code can tell: no process groups, no POSIX signals, sys.platform "win32".
#: subprocess is imported first (with "win32" it would want _winapi, which Linux lacks).
AS_WINDOWS = """
import os, select, signal, subprocess, sys
for module, names in ((os, "killpg getpgid setsid register_at_fork fchmod"), (signal, "SIGKILL SIGHUP SIGPIPE")):
    for name in names.split():
        if hasattr(module, name):
            delattr(module, name)
sys.platform = "win32"
import mcpsync
try:
    mcpsync.connect([sys.executable, "-c", "pass"], timeout=5)
except mcpsync.NotSupportedError as exc:
    print(exc)
"""


def test_import_works_and_connect_to_a_command_says_windows_is_not_supported() -> None:
    """In a process that looks like Windows: the import succeeds, and connect raises NotSupportedError
    naming Windows (before this, an AttributeError from os.killpg)."""
    done = subprocess.run([sys.executable, "-c", AS_WINDOWS], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "running a server command on Windows is not supported yet" in done.stdout
    assert "over HTTP instead" in done.stdout


def test_connect_refuses_a_command_at_once_when_the_platform_check_says_no(
    monkeypatch: pytest.MonkeyPatch, test_server_command: list[str]
) -> None:
    """The capability check says no: no process starts, and the error is typed (also a NotImplementedError)."""
    monkeypatch.setattr(stdio, "process_groups_supported", lambda: False)
    started = []
    monkeypatch.setattr(stdio.subprocess, "Popen", lambda *a, **k: started.append(a))
    with pytest.raises(mcpsync.NotSupportedError, match="is not supported yet") as info:
        mcpsync.connect(test_server_command, timeout=5)
    assert isinstance(info.value, NotImplementedError)
    assert started == []
