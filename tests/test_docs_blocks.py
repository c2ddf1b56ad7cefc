"""Every code block of README.md and docs/*.md runs as a reader would paste it (issue 29, point 8).

What is collected: each ```python and ```bash block of README.md and docs/*.md (docs/architecture.md
aside: its blocks are diagrams). Blocks without a language (a program's output, the error tree) are
not code. A block that cannot run says why in the line right before its opening fence, as
``<!-- not run: REASON -->``; those are not run, and are counted by ``test_marked_blocks_say_why``.

How a block runs: in a fresh subprocess (this interpreter, this checkout's mcpsync), in a temp dir,
with a timeout. The block's text is never edited in the doc; before it runs:

- ``PLACEHOLDERS`` maps what stands for the reader's own servers (``https://example.com/mcp``, the
  GitHub server's ``search_issues``) to the bundled test server (stdio, or ``--http 0`` started for
  the block), by replacing the text;
- ``PRELUDES`` defines the names a fragment uses without defining them (``client``, ``url``,
  ``target`` ...), each as the code that makes it, put before the block only when it uses the name;
- the temp dir holds a ``.mcp.json`` naming the test server ``github`` (the server of the docs'
  examples), named by ``$MCPSYNC_CONFIG`` as a reader's own configuration is (so the command line
  asks no trust for it), ``$HOME`` is a fresh dir there, and, for shell blocks, ``mcpsync`` and
  ``python`` on PATH are this interpreter's.

A Python block must exit 0 (and print what ``EXPECTED`` says, where it says something); a shell
block runs under ``bash -e -o pipefail``, so every line must succeed.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.http_server import running_http_server

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted(p for p in (ROOT / "docs").glob("*.md") if p.name != "architecture.md")]
TIMEOUT = 120

#: Placeholder text in the docs -> what the test runs instead. ``{base}`` is the HTTP test server's
#: base URL (``http://127.0.0.1:PORT``); a block that names a ``{base}`` placeholder gets a server.
PLACEHOLDERS = {
    "https://example.com/mcp": "{base}/mcp",
    "https://example.com/sse": "{base}/sse",
    # the GitHub server of the examples is the test server (see CONFIG): its echo tool for search_issues
    '"github__search_issues", {"q": "bug"}': '"github__echo", {"text": "bug"}',
    'github search_issues \'{"q": "bug"}\'': 'github echo \'{"text": "bug"}\'',
    'read_resource("repo://readme")': 'read_resource("text://greeting")',
    # a search tool, a build tool with progress: the test server's echo and progress tools
    '"search", {"q": "mcp"}': '"echo", {"text": "mcp"}',
    '"build", {}': '"progress", {"steps": 3, "delay": 0}',
    # the elicitation the reader asks for: one with a string field, answered from stdin
    "params='{...}'": 'params=\'{"message": "Your name?", "requestedSchema": {"type": "object", '
    '"properties": {"name": {"type": "string"}}}}\'',
}

#: A name a fragment uses without defining it -> the code that defines it (before the block).
PRELUDES = {
    "sys": "import sys",
    "mcpsync": "import mcpsync",
    "target": 'import sys; target = [sys.executable, "-m", "mcpsync.testing"]',
    "client": 'import sys, mcpsync; client = mcpsync.connect([sys.executable, "-m", "mcpsync.testing"], timeout=30)',
    "url": 'url = "{base}/mcp"',
    "my_auth": "my_auth = None",
    "my_session": "import requests; my_session = requests.Session()",
    "body": 'body = \'event: message\\ndata: {"jsonrpc": "2.0", "id": 1, "result": {}}\\n\\n\'',
}

#: The configuration file in the block's temp dir: the docs' "github" server is the test server.
CONFIG = {"mcpServers": {"github": {"command": sys.executable, "args": ["-m", "mcpsync.testing"]}}}

#: (file, the block's first line) -> text the block's output must contain (what its comments promise).
EXPECTED = {
    ("README.md", "import sys"): ["{'sum': 42}", "tool 'fail' failed: nope"],
    ("README.md", "for command in ("): ["legacy 2025-11-25", "modern 2026-07-28", "{'sum': 42}"],
    ("api.md", "import asyncio, sys"): ["hello", "42", "cancelled: True"],
    ("api.md", "# an asyncio task's call, cancelled"): ["cancelled on the server: 1"],
    ("manager.md", "mcpsync --stdio"): ['"sum": 42', "Write a casual greeting for Ada.", "hello", "Grace"],
}

MARKER = re.compile(r"^<!-- not run: (.+?) -->$")
FENCE = re.compile(r"^```(\w*)\s*$")


@dataclass(frozen=True)
class Block:
    path: Path
    line: int  # of the opening fence, 1-based
    language: str
    code: str
    not_run: str | None  # the marker's reason

    @property
    def id(self) -> str:
        return f"{self.path.name}:{self.line}"


def blocks() -> list[Block]:
    """Every ```python and ```bash block of the docs, with its marker, if any."""
    found = []
    for path in DOCS:
        lines = path.read_text(encoding="utf-8").split("\n")
        i = 0
        while i < len(lines):
            fence = FENCE.match(lines[i])
            if not fence:
                i += 1
                continue
            end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
            if fence.group(1) in ("python", "bash", "sh"):
                marker = MARKER.match(lines[i - 1]) if i else None
                found.append(
                    Block(
                        path,
                        i + 1,
                        fence.group(1),
                        "\n".join(lines[i + 1 : end]) + "\n",
                        marker.group(1) if marker else None,
                    )
                )
            i = end + 1
    return found


BLOCKS = blocks()


def prepared(block: Block, base: str) -> str:
    """The block's code with the placeholders replaced and the preludes it needs before it."""
    code = block.code
    for placeholder, replacement in PLACEHOLDERS.items():
        code = code.replace(placeholder, replacement.replace("{base}", base))
    if block.language != "python":
        return code
    needed = []
    for name, setup in PRELUDES.items():
        defined = re.search(rf"^\s*(?:import .*\b{name}\b|{name}\s*=|def {name}\b)", code, re.M)
        if re.search(rf"(?<![\w.\"']){name}\b", code) and not defined:
            needed.append(setup.replace("{base}", base))
    return "\n".join([*needed, code])


def expected(block: Block) -> list[str]:
    return next(
        (
            texts
            for (name, start), texts in EXPECTED.items()
            if (block.path.name, start) == (name, block.code[: len(start)])
        ),
        [],
    )


def needs_http(block: Block) -> bool:
    code = block.code
    uses_url = block.language == "python" and re.search(r"(?<![\w.\"'])url\b", code)
    return "example.com" in code or bool(uses_url)


def run(block: Block, workdir: Path, base: str) -> subprocess.CompletedProcess[str]:
    (workdir / ".mcp.json").write_text(json.dumps(CONFIG), encoding="utf-8")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    # the reader's own configuration (a file they trust), in a home of the block's own
    env["MCPSYNC_CONFIG"] = str(workdir / ".mcp.json")
    env["HOME"] = str(workdir / "home")
    env.pop("XDG_DATA_HOME", None)
    env.pop("XDG_CONFIG_HOME", None)
    code = prepared(block, base)
    if block.language == "python":
        command = [sys.executable, "-c", code]
    else:
        bin_dir = workdir / "bin"
        bin_dir.mkdir()
        for name, target in (("mcpsync", f'"{sys.executable}" -m mcpsync'), ("python", f'"{sys.executable}"')):
            shim = bin_dir / name
            shim.write_text(f'#!/bin/sh\nexec {target} "$@"\n', encoding="utf-8")
            shim.chmod(0o755)
        env["PATH"] = f"{bin_dir}{os.pathsep}{env['PATH']}"
        command = ["bash", "-e", "-o", "pipefail", "-c", code]
    return subprocess.run(
        command, cwd=workdir, env=env, capture_output=True, text=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL
    )


RUNNABLE = [b for b in BLOCKS if not b.not_run]


@pytest.mark.slow("each block runs as a fresh process: 0.2-2.6 s, and manager.md's six command lines 10 s")
@pytest.mark.parametrize("block", RUNNABLE, ids=[b.id for b in RUNNABLE])
def test_the_block_runs_as_written(block: Block, tmp_path: Path) -> None:
    """A doc's block, run in a fresh subprocess in a temp dir, exits 0 and prints what it promises
    (a marked block is no test item: test_marked_blocks_say_why counts those)."""
    if needs_http(block):
        with running_http_server() as base:
            done = run(block, tmp_path, base)
    else:
        done = run(block, tmp_path, "http://127.0.0.1:9")
    assert done.returncode == 0, f"{block.id} failed:\n{done.stdout}\n{done.stderr}"
    for text in expected(block):
        assert text in done.stdout, f"{block.id} did not print {text!r}:\n{done.stdout}"


def test_marked_blocks_say_why() -> None:
    """Every marked block says why, each EXPECTED entry is a block that runs, and the README's counts are true."""
    marked = [b for b in BLOCKS if b.not_run]
    assert all(b.not_run and len(b.not_run) > 10 for b in marked)
    for key in EXPECTED:
        assert any(expected(b) is EXPECTED[key] and not b.not_run for b in BLOCKS), f"no runnable block at {key}"
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    said = re.search(r"today (\d+) run, (\d+) are marked", readme)
    assert said, "the README says how many blocks run and how many are marked"
    assert (int(said.group(1)), int(said.group(2))) == (len(BLOCKS) - len(marked), len(marked))
