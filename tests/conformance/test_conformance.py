"""The official MCP conformance suite (client mode) against mcpsync: one test per scenario and wire.

Each test id is a run of ``run.py`` (``scenario@version``, ``@extension`` for an
extension's scenario); the runs the session selected are run three at a time
when the first of them is reached, each bounded by ``run.RUN_TIMEOUT``. ``make
test`` installs the suite (``npm ci`` in tests/conformance, with the Node 22 it
needs); without it every test is skipped, saying so. ``make conformance`` runs
the same runs and prints one line per run.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

from tests.conformance import run as runner

pytestmark = [pytest.mark.peer, pytest.mark.xdist_group("conformance")]

MISSING = runner.installed()
RUNS = [] if MISSING else runner.all_runs()
#: Runs at a time: each is a Node process serving a scenario and a Python client.
JOBS = 3

needs_suite = pytest.mark.skipif(MISSING is not None, reason=f"{MISSING} (make test does it; it needs npm)")


@pytest.fixture(scope="session")
def outcomes(request: pytest.FixtureRequest) -> dict[runner.Run, runner.Outcome]:
    """The outcome of every run this session selected, run together on first use."""
    selected = [
        item.callspec.params["run"]
        for item in request.session.items
        if getattr(item, "originalname", None) == "test_conformance" and hasattr(item, "callspec")
    ]
    results = Path(tempfile.mkdtemp(prefix="mcpsync-conformance-"))
    done = {o.run: o for o in runner.run_all(selected, JOBS, results, echo=False)}
    if all(o.passed for o in done.values()):
        shutil.rmtree(results, ignore_errors=True)
    return done


def test_the_expected_failures_file_lists_nothing() -> None:
    """mcpsync passes every run: expected-failures.yml exists and holds comments only."""
    assert runner.expected_failures() == []


@needs_suite
def test_the_suite_lists_runs_of_every_kind() -> None:
    """The listing parsed into runs: dated versions, 2026-07-28, and extension scenarios run once."""
    versions = {run.version for run in RUNS}
    assert {"2025-11-25", "2026-07-28", None} <= versions
    assert len(RUNS) == len(set(RUNS))


@needs_suite
# Every case is marked: the first to run pays for all of them (the outcomes fixture runs the suite
# once, three runs at a time), and which case that is depends on what was selected.
@pytest.mark.slow("the first case runs every scenario of the conformance suite (npx, a Node process each): 50 s")
@pytest.mark.parametrize("run", RUNS or [runner.Run("not-installed", None)], ids=lambda run: run.id)
def test_conformance(run: runner.Run, outcomes: dict[runner.Run, runner.Outcome]) -> None:
    """One scenario of the suite at one protocol revision: every check passes, and the client exits 0."""
    outcome = outcomes[run]
    assert outcome.passed, outcome.line()
