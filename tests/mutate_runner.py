"""Mutation testing over the modules that carry the README's promises (`make mutate`).

Each module named in setup.cfg's ``[mutate]`` section is mutated by mutmut on its own, in a scratch
copy of the tree (build/mutate/<name>), against only the tests named beside it there: one module's
run stays bounded, and a survivor says which of those tests should have noticed. ``MUTATE_MODULES``
(comma-separated names from that section) runs a subset. The survivors of each module are printed
and kept in build/mutate/<name>/survivors.txt; ``mutmut show <mutant>`` in that folder shows one.

mutmut ends a mutant whose tests hang after ``(estimate + 1 s) x timeout_multiplier`` seconds of wall
time (the estimate: what its tests took unmutated), 15 by default. ``MUTATE_TIMEOUT_MULTIPLIER``
sets that multiplier for a run: a module whose tests wait on real deadlines (channel) can make a
hanging mutant cost minutes at 15, and seconds at 3.
"""

from __future__ import annotations

import configparser
import math
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRATCH = ROOT / "build" / "mutate"
#: mutmut 3.8.1's own ``timeout_multiplier``.
DEFAULT_TIMEOUT_MULTIPLIER = 15.0


def modules() -> dict[str, tuple[str, list[str]]]:
    """The ``[mutate]`` section: name = module path, then the test files (or node ids) that cover it."""
    parser = configparser.ConfigParser()
    parser.read(ROOT / "setup.cfg")
    table = {}
    for name, value in parser.items("mutate"):
        path, *tests = value.split()
        table[name] = (path, tests)
    return table


def timeout_multiplier() -> float:
    """``MUTATE_TIMEOUT_MULTIPLIER`` (a number above 1), or mutmut's own default of 15."""
    given = os.environ.get("MUTATE_TIMEOUT_MULTIPLIER", "").strip()
    if not given:
        return DEFAULT_TIMEOUT_MULTIPLIER
    try:
        value = float(given)
    except ValueError:
        value = math.nan
    if not value > 1:  # a mutant's own tests must have time to run unmutated: nan is refused too
        raise SystemExit(f"MUTATE_TIMEOUT_MULTIPLIER={given!r}: give a number above 1 (mutmut's default is 15)")
    return value


def setup_cfg(module: str, tests: list[str], multiplier: float = DEFAULT_TIMEOUT_MULTIPLIER) -> str:
    """The tree's setup.cfg with a ``[mutmut]`` section for one module."""
    text = (ROOT / "setup.cfg").read_text(encoding="utf-8")
    lines = [
        "",
        "[mutmut]",
        "source_paths = mcpsync",
        f"only_mutate = {module}",
        f"timeout_multiplier = {multiplier:g}",
        "pytest_add_cli_args = -p no:cacheprovider -q -x -W ignore::DeprecationWarning",
        "pytest_add_cli_args_test_selection =",
        *("    " + test for test in tests),
        "",
    ]
    return text + "\n".join(lines)


def run(name: str, module: str, tests: list[str], python: str, multiplier: float) -> tuple[int, float]:
    """Mutate one module in its scratch folder; the exit code of ``mutmut run`` and the seconds taken."""
    where = SCRATCH / name
    shutil.rmtree(where, ignore_errors=True)
    where.mkdir(parents=True)
    shutil.copytree(ROOT / "mcpsync", where / "mcpsync", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "tests", where / "tests", ignore=shutil.ignore_patterns("__pycache__", "node_modules"))
    shutil.copy(ROOT / "pyproject.toml", where / "pyproject.toml")
    (where / "setup.cfg").write_text(setup_cfg(module, tests, multiplier), encoding="utf-8")
    # mutmut puts its mutated copy (build/mutate/<name>/mutants) first on the tests' sys.path itself;
    # the tests' own subprocesses (the stdio test server) run the unmutated package.
    env = dict(os.environ)
    started = time.monotonic()
    code = subprocess.call(
        [python, "-m", "mutmut", "run", "--max-children", os.environ.get("MUTATE_JOBS", "2")], cwd=where, env=env
    )
    seconds = time.monotonic() - started
    results = subprocess.run(
        [python, "-m", "mutmut", "results", "--all", "true"], cwd=where, env=env, capture_output=True, text=True
    )
    (where / "results.txt").write_text(results.stdout, encoding="utf-8")
    survivors = [line for line in results.stdout.splitlines() if line.strip().endswith(": survived")]
    (where / "survivors.txt").write_text("\n".join(survivors) + "\n", encoding="utf-8")
    return code, seconds


def main() -> int:
    table = modules()
    wanted = [name.strip() for name in os.environ.get("MUTATE_MODULES", "").split(",") if name.strip()]
    unknown = [name for name in wanted if name not in table]
    if unknown:
        print(f"MUTATE_MODULES names {unknown}; setup.cfg's [mutate] has {sorted(table)}", file=sys.stderr)
        return 2
    multiplier = timeout_multiplier()
    failed = 0
    for name in wanted or list(table):
        module, tests = table[name]
        print(f"== {name}: {module} against {' '.join(tests)}", flush=True)
        code, seconds = run(name, module, tests, sys.executable, multiplier)
        failed |= code != 0
        print(f"== {name}: mutmut exited {code} after {seconds:.0f} s; results in build/mutate/{name}/", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
