"""Run the official MCP conformance suite (client mode) against mcpsync: every scenario at every wire.

``conformance list --client`` names each client scenario with the revisions it
applies to (``[2025-11-25,2026-07-28]``); each revision is one run with
``--spec-version``, and an ``[extension]`` scenario runs once without it. Each
run is bounded, its results go under a temporary directory, and one line per
run says scenario, version, PASS or FAIL and the failing checks. The exit
status is non-zero when a run fails, or when ``expected-failures.yml`` (which
must list nothing) lists anything.

    python tests/conformance/run.py                  # everything, 3 runs at a time
    python tests/conformance/run.py -k auth/iss      # the runs whose scenario contains auth/iss
    python tests/conformance/run.py --list           # the runs, not run

It needs ``npm ci`` in this folder (``make conformance`` does it); the Node 22
the suite needs is the ``node`` package in ``node_modules``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

HERE = Path(__file__).resolve().parent
NODE_MODULES = HERE / "node_modules"
NODE_BIN = NODE_MODULES / "node" / "bin"
CLI = NODE_MODULES / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
CLIENT = HERE / "client.py"
EXPECTED_FAILURES = HERE / "expected-failures.yml"
#: The version label of a scenario that belongs to an extension (run once, without --spec-version).
EXTENSION = "extension"
#: Seconds one run may take, the suite's own client timeout included.
RUN_TIMEOUT = 120.0
#: Milliseconds the suite gives the client program.
CLIENT_TIMEOUT_MS = 60000
_LISTED = re.compile(r"^\s*-\s+(\S+)\s+\[([^\]]*)\]\s*$")


@dataclass(frozen=True)
class Run:
    """One scenario at one revision (``version`` ``None``: an extension scenario, run once)."""

    scenario: str
    version: Optional[str]

    @property
    def id(self) -> str:
        return f"{self.scenario}@{self.version or EXTENSION}"


@dataclass
class Outcome:
    """What one run gave: whether it passed, the failing checks' ids, and where its output is."""

    run: Run
    passed: bool
    failed_checks: list[str] = field(default_factory=list)
    detail: str = ""
    seconds: float = 0.0

    def line(self) -> str:
        verdict = "PASS" if self.passed else "FAIL"
        text = f"{self.run.scenario:45} {self.run.version or EXTENSION:11} {verdict}"
        if not self.passed:
            text += "  " + (", ".join(self.failed_checks) or self.detail)
        return text


def installed() -> Optional[str]:
    """Why the suite cannot run here (``None`` when it can)."""
    if not CLI.is_file():
        return f"the conformance suite is not installed: run npm ci --prefix {HERE}"
    if not (NODE_BIN / "node").exists():
        return f"the Node 22 of the conformance suite is missing: run npm ci --prefix {HERE}"
    return None


def environment() -> dict[str, str]:
    """The suite's environment: its Node 22 first on PATH, and this mcpsync importable by the client."""
    env = dict(os.environ)
    env["PATH"] = f"{NODE_BIN}{os.pathsep}{env.get('PATH', '')}"
    root = str(HERE.parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    return env


def suite(*args: str, timeout: float = 60.0, cwd: Optional[Path] = None) -> subprocess.CompletedProcess[str]:
    """Run the suite's command line."""
    return subprocess.run(
        [str(NODE_BIN / "node"), str(CLI), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=environment(),
        cwd=cwd,
    )


def parse_listing(text: str) -> list[Run]:
    """The runs of ``conformance list --client``'s output: one per bracketed version."""
    runs = []
    for line in text.splitlines():
        match = _LISTED.match(line)
        if match is None:
            continue
        scenario, versions = match.group(1), [v.strip() for v in match.group(2).split(",") if v.strip()]
        if versions == [EXTENSION]:
            runs.append(Run(scenario, None))
        else:
            runs.extend(Run(scenario, version) for version in versions)
    return runs


def all_runs() -> list[Run]:
    """Every client scenario at every revision it applies to, as the installed suite lists them."""
    listing = suite("list", "--client")
    if listing.returncode != 0:
        raise RuntimeError(f"conformance list --client failed: {listing.stderr.strip()}")
    runs = parse_listing(listing.stdout)
    if not runs:
        raise RuntimeError(f"conformance list --client listed no scenario:\n{listing.stdout}")
    return runs


def expected_failures(path: Path = EXPECTED_FAILURES) -> list[str]:
    """The entries of the expected-failures file: every line that is neither blank nor a comment."""
    if not path.is_file():
        return [f"{path.name} is missing"]
    entries = []
    for line in path.read_text().splitlines():
        text = line.split("#", 1)[0].strip()
        if text:
            entries.append(text)
    return entries


def run_one(run: Run, results: Path, python: str = sys.executable) -> Outcome:
    """One run of the suite, bounded by ``RUN_TIMEOUT``: its outcome from the checks it wrote."""
    where = Path(tempfile.mkdtemp(prefix=re.sub(r"\W", "_", run.id) + "-", dir=results))
    args = ["client", "--command", f"{python} {CLIENT}", "--scenario", run.scenario]
    args += ["--timeout", str(CLIENT_TIMEOUT_MS), "--output-dir", str(where)]
    if run.version is not None:
        args += ["--spec-version", run.version]
    started = time.monotonic()
    try:
        done = suite(*args, timeout=RUN_TIMEOUT, cwd=where)
    except subprocess.TimeoutExpired:
        return Outcome(run, False, detail=f"no verdict within {RUN_TIMEOUT:g}s", seconds=time.monotonic() - started)
    seconds = time.monotonic() - started
    (where / "output.txt").write_text(done.stdout + done.stderr)
    checks = [json.loads(p.read_text()) for p in sorted(where.rglob("checks.json"))]
    if not checks:
        detail = "skipped: not applicable" if "skip" in done.stdout.lower() else "no checks written"
        return Outcome(run, False, detail=f"{detail} (exit {done.returncode}; {where})", seconds=seconds)
    failing = sorted({c.get("id", "?") for batch in checks for c in batch if c.get("status") in ("FAILURE", "WARNING")})
    passed = done.returncode == 0 and not failing
    detail = "" if passed else f"exit {done.returncode}: {client_error(where)}"
    return Outcome(run, passed, failing, detail, seconds)


def client_error(where: Path) -> str:
    """The last line the client program wrote to stderr (its exception, when it failed)."""
    for path in where.rglob("stderr.txt"):
        lines = [line for line in path.read_text(errors="replace").splitlines() if line.strip()]
        if lines:
            return lines[-1][:300]
    return "the client wrote nothing to stderr"


def run_all(runs: list[Run], jobs: int, results: Path, echo: bool = True) -> list[Outcome]:
    """Every run, ``jobs`` at a time; each line printed as its run ends (in order when ``echo``)."""
    with ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="conformance") as pool:
        futures = [pool.submit(run_one, run, results) for run in runs]
        outcomes = []
        for future in futures:
            outcome = future.result()
            outcomes.append(outcome)
            if echo:
                print(outcome.line(), flush=True)
    return outcomes


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-k", dest="match", default="", help="only the runs whose id contains this")
    parser.add_argument("-j", "--jobs", type=int, default=3, help="runs at a time (default 3)")
    parser.add_argument("--list", action="store_true", help="list the runs and stop")
    options = parser.parse_args(argv)
    why = installed()
    if why is not None:
        print(why, file=sys.stderr)
        return 2
    runs = [run for run in all_runs() if options.match in run.id]
    if options.list:
        for run in runs:
            print(run.id)
        return 0
    listed = expected_failures()
    started = time.monotonic()
    results = Path(tempfile.mkdtemp(prefix="mcpsync-conformance-"))
    outcomes = run_all(runs, options.jobs, results)
    failed = [o for o in outcomes if not o.passed]
    if failed:
        print(f"the failed runs' output and checks are kept in {results}", file=sys.stderr)
    else:
        shutil.rmtree(results, ignore_errors=True)
    print(
        f"{len(outcomes) - len(failed)} of {len(outcomes)} runs pass; expected failures: "
        f"{', '.join(listed) if listed else 'none'} ({time.monotonic() - started:.0f}s)"
    )
    if listed:
        print(f"{EXPECTED_FAILURES.name} must list nothing; it lists: {', '.join(listed)}", file=sys.stderr)
    return 1 if failed or listed else 0


if __name__ == "__main__":
    sys.exit(main())
