"""An echoed ``requestState`` costs about twice its size, not four times (issue 36, point 13).

Each path is measured by benchmarks/message_memory.py in a fresh process of its own (a server in
another, so that its memory is not counted), with ``tracemalloc``: exact, and the same from run to
run, unlike the process's RSS (which the benchmark reports beside it).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARK = Path(__file__).resolve().parents[2] / "benchmarks" / "message_memory.py"


@pytest.mark.parametrize("path", ["stdio_state", "http_json_state", "http_sse_state"])
def test_an_echoed_state_costs_about_twice_its_size(path):
    done = subprocess.run(
        [sys.executable, str(BENCHMARK), "--measure", path, "--metric", "tracemalloc", "--mib", "8"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    per_byte = json.loads(done.stdout.strip().splitlines()[-1])
    # The state held while it is sent back (1x), the bytes sent (1x), a slice: under 2.5x (it was 3x).
    assert per_byte < 2.5, f"{path}: {per_byte:.2f}x its size at the peak"
