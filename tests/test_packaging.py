"""mcpsync as another machine gets it (issue 37, points 6 and 7): no package index has it, so what the
README gives is a checkout's editable install or the wheel ``make dist`` builds.

Each test works on a copy of this working tree (edits included; no .git, .venv, node_modules or build
leftovers), so that nothing is written into the checkout (the egg-info a build or an editable install
makes there) and no stale egg-info feeds the sdist, and in fresh virtual environments (``python -m
venv``). What they install comes from the package registry with pip as configured on the machine, each
wait bounded: a test skips, saying so, only when pip cannot reach the registry.
"""

from __future__ import annotations

import configparser
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
VENV_TIMEOUT = 120
#: One pip install or one build (pip installs the build requirements of pyproject.toml for it).
INSTALL_TIMEOUT = 600
RUN_TIMEOUT = 300

#: What the copy leaves out, at any depth: the checkout's own environments and build leftovers.
NOT_COPIED = (".git", ".venv", "node_modules", "build", "dist", "*.egg-info", "__pycache__", ".*_cache", ".hypothesis")
#: Variables that would show the process this checkout (or another tree) instead of what it installed.
NOT_INHERITED = ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "MYPYPATH", "VIRTUAL_ENV")
#: What pip (or build, through it) says when it cannot reach the registry (a refused or dropped
#: connection, a name that does not resolve, a proxy in the way): only then does a test skip.
UNREACHABLE = re.compile(
    r"connection broken by|Failed to establish a new connection|Temporary failure in name resolution"
    r"|Name or service not known|Network is unreachable|Max retries exceeded|ProxyError|ConnectTimeoutError"
)
#: The package data setup.cfg ships, by pattern: each matches a file of the wheel.
PACKAGE_DATA = (
    "mcpsync/py.typed",
    "mcpsync/_core/*.json",
    "mcpsync/_manager/*.json",
    "mcpsync/_edges/apps/*.json",
    "mcpsync/_edges/apps/*.js",
    "mcpsync/_edges/apps/*.LICENSE",
)


def version() -> str:
    """The version this tree says (``mcpsync/_version.py``)."""
    said = re.search(r'^__version__ = "([^"]+)"$', (ROOT / "mcpsync" / "_version.py").read_text(), re.M)
    assert said, "mcpsync/_version.py says no __version__"
    return said.group(1)


def extra(name: str) -> list[str]:
    """The requirements of one of setup.cfg's extras, as pip takes them."""
    config = configparser.ConfigParser(interpolation=None)
    config.read(ROOT / "setup.cfg", encoding="utf-8")
    return [line.strip() for line in config["options.extras_require"][name].splitlines() if line.strip()]


def copy_of_the_tree(destination: Path) -> Path:
    """This working tree as it is, less what NOT_COPIED names, at ``destination``."""
    shutil.copytree(ROOT, destination, ignore=shutil.ignore_patterns(*NOT_COPIED))
    return destination


def package_files(tree: Path) -> list[str]:
    """Every file of the package in a tree (``mcpsync/...``), compiled bytecode aside."""
    return sorted(
        p.relative_to(tree).as_posix()
        for p in (tree / "mcpsync").rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    )


def run(command: list[str | Path], *, cwd: Path, timeout: float = RUN_TIMEOUT) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if key not in NOT_INHERITED}
    return subprocess.run(
        [str(part) for part in command],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def succeeded(done: subprocess.CompletedProcess[str], what: str, *, online: bool = False) -> str:
    """``done``'s output when it exited 0. A step that needed the registry (``online``) and failed
    because pip could not reach it skips the test; any other failure fails it, with the output."""
    output = done.stdout + done.stderr
    if done.returncode != 0:
        unreachable = UNREACHABLE.search(output) if online else None
        if unreachable:
            line = next(line for line in output.splitlines() if unreachable.group(0) in line)
            pytest.skip(f"pip cannot reach the package registry ({what}): {line.strip()[:300]}")
        pytest.fail(f"{what} exited {done.returncode}:\n{output[-6000:]}")
    return output


def fresh_venv(path: Path) -> Path:
    """A new virtual environment (``python -m venv``, with its pip); its interpreter."""
    succeeded(run([sys.executable, "-m", "venv", path], cwd=path.parent, timeout=VENV_TIMEOUT), "python -m venv")
    return path / "bin" / "python"


def pip_install(python: Path, *args: str | Path, cwd: Path) -> str:
    command = [python, "-m", "pip", "--disable-pip-version-check", "install", *args]
    what = "pip install " + " ".join(map(str, args))
    return succeeded(run(command, cwd=cwd, timeout=INSTALL_TIMEOUT), what, online=True)


def site_packages(python: Path) -> Path:
    done = run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], cwd=python.parent)
    return Path(succeeded(done, "sysconfig of the new environment").strip())


@pytest.mark.slow("builds the sdist and the wheel (two pip installs of the build requirements) and three environments")
def test_the_sdist_builds_the_wheel_that_installs_and_runs_without_the_checkout(tmp_path: Path) -> None:
    """``make dist``'s steps on this tree: its ``dist`` extra in a fresh environment, ``python -m
    build`` (the sdist, then the wheel from the sdist: what the sdist holds is enough to build), and
    ``twine check --strict`` on both. The wheel holds every file of the package (the package data of
    setup.cfg among them) and nothing else; the sdist holds them and what a build reads. Installed with
    ``--no-deps`` into another fresh environment (the runtime dependencies come from this interpreter's
    site-packages, named by a .pth file: no download), away from the checkout, ``import mcpsync`` is the
    installed copy at this tree's version, and the ``mcpsync`` command is there and answers ``--help``."""
    source = copy_of_the_tree(tmp_path / "source")
    tools = fresh_venv(tmp_path / "tools")
    pip_install(tools, *extra("dist"), cwd=tmp_path)
    out = tmp_path / "dist"
    built = run([tools, "-m", "build", "--outdir", out, source], cwd=tmp_path, timeout=INSTALL_TIMEOUT)
    assert "Building wheel from sdist" in succeeded(built, "python -m build", online=True), built.stdout
    (sdist,) = out.glob("*.tar.gz")
    (wheel,) = out.glob("*.whl")
    checked = succeeded(run([tools, "-m", "twine", "check", "--strict", sdist, wheel], cwd=tmp_path), "twine check")
    assert checked.count("PASSED") == 2, checked

    release = version()
    expected = package_files(source)
    in_wheel = zipfile.ZipFile(wheel).namelist()
    shipped = {name for name in in_wheel if name.startswith("mcpsync/")}
    assert shipped == set(expected), (
        f"the wheel lacks {sorted(set(expected) - shipped)} and has besides {sorted(shipped - set(expected))}"
    )
    assert {name.split("/")[0] for name in in_wheel} == {"mcpsync", f"mcpsync-{release}.dist-info"}
    for pattern in PACKAGE_DATA:
        assert any(Path(name).match(pattern) for name in in_wheel), f"the wheel has no {pattern}"
    with tarfile.open(sdist) as archive:
        top = f"mcpsync-{release}/"
        in_sdist = {name[len(top) :] for name in archive.getnames() if name.startswith(top)}
    missing = {*expected, "setup.py", "setup.cfg", "pyproject.toml", "README.md", "PKG-INFO"} - in_sdist
    assert not missing, f"the sdist lacks {sorted(missing)}"

    python = fresh_venv(tmp_path / "installed")
    pip_install(python, "--no-deps", "--no-index", wheel, cwd=tmp_path)
    site = site_packages(python)
    # Plain path lines: the .pth files of those directories are not read (site reads a site directory's
    # own), so this checkout's editable install there stays out of sight.
    dependencies = sorted({sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]})
    (site / "runtime_dependencies.pth").write_text("".join(f"{path}\n" for path in dependencies))
    away = tmp_path / "elsewhere"
    away.mkdir()
    probe = "import mcpsync; print(mcpsync.__version__); print(mcpsync.__file__)"
    said = succeeded(run([python, "-c", probe], cwd=away), "import mcpsync").splitlines()
    assert said[0] == release
    assert Path(said[1]).resolve() == (site / "mcpsync" / "__init__.py").resolve()
    assert all((site / name).is_file() for name in expected), "the install lacks a file of the wheel"
    command = python.parent / "mcpsync"
    assert command.is_file(), "the wheel installed no mcpsync command"
    assert succeeded(run([command, "--help"], cwd=away), "mcpsync --help").startswith("usage: mcpsync")
    # The wheel types (its py.typed): mypy (this environment's) over a script, against that venv's packages.
    assert_mypy_sees_mcpsync([sys.executable, "-m", "mypy", "--python-executable", str(python)], away)


def assert_mypy_sees_mcpsync(mypy: list[str], work: Path) -> None:
    """``mypy`` (a command) over ``TYPED_USE`` in ``work``: mcpsync found, and both of its errors reported."""
    (work / "uses_mcpsync.py").write_text(TYPED_USE)
    (work / "mypy.ini").write_text("[mypy]\nstrict = True\n")
    done = run([*mypy, "--config-file", "mypy.ini", "uses_mcpsync.py"], cwd=work)
    output = done.stdout + done.stderr
    assert "Cannot find implementation or library stub" not in output, output
    assert re.search(r'Argument 1 to "call_tool" of "\w+" has incompatible type "int"; expected "str"', output), output
    assert 'Incompatible types in assignment (expression has type "str", variable has type "int")' in output, output
    assert "Found 2 errors in 1 file" in output, output
    assert done.returncode == 1, output


#: A user's typed code with two type errors that only mcpsync's own annotations reveal (with mcpsync
#: unseen, both names are ``Any`` and mypy finds nothing but the missing module).
TYPED_USE = """\
import mcpsync


def first_tool(client: mcpsync.Client) -> None:
    client.call_tool(42)


version: int = mcpsync.__version__
"""


@pytest.mark.slow("an editable install and mypy from the registry into a fresh environment, then mypy over mcpsync")
def test_the_readmes_editable_install_is_one_mypy_sees(tmp_path: Path) -> None:
    """``pip install -e .`` exactly as the README gives it (in the tree, with a fresh environment's
    pip), then setup.cfg's mypy (the dev extra's pin) in that environment, run away from the checkout
    on a script that uses mcpsync wrongly: mypy finds mcpsync (no "Cannot find implementation or
    library stub") and reports both errors, so it read mcpsync's types and took none as ``Any``."""
    source = copy_of_the_tree(tmp_path / "source")
    python = fresh_venv(tmp_path / "venv")
    pip_install(python, "-e", ".", cwd=source)
    (mypy,) = (requirement for requirement in extra("dev") if requirement.startswith("mypy=="))
    pip_install(python, mypy, cwd=tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    try:
        assert_mypy_sees_mcpsync([str(python), "-m", "mypy"], work)
    except AssertionError as exc:
        pth = "".join(path.read_text() for path in site_packages(python).glob("__editable__*.pth"))
        raise AssertionError(f"{exc}\nthe editable .pth: {pth!r}") from None
