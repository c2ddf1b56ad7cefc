"""The README's runnable examples run: the quick start and the two-era script, as a new user would
paste them (the other snippets need servers of your own: URLs, tokens, a model's API key)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"


def first_python_block_after(heading: str) -> str:
    text = README.read_text(encoding="utf-8")
    section = text.split(f"\n{heading}\n", 1)[1]
    found = re.search(r"```python\n(.*?)```", section, re.S)
    assert found, f"no python block under {heading}"
    return found.group(1)


@pytest.mark.parametrize(("heading", "expected"), [("## Quick start", "{'sum': 42}"), ("## Protocol eras", "modern")])
def test_the_readme_example_runs_as_pasted(heading: str, expected: str) -> None:
    code = first_python_block_after(heading)
    if "import sys" not in code:
        code = "import sys\nimport mcpsync\n" + code
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert expected in done.stdout
