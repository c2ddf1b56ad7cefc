"""tests/mutate_runner.py (``make mutate``): the ``[mutmut]`` section it writes for one module, and
``MUTATE_TIMEOUT_MULTIPLIER`` (docs/testing.md)."""

from __future__ import annotations

import configparser

import pytest

from tests.mutate_runner import DEFAULT_TIMEOUT_MULTIPLIER, modules, setup_cfg, timeout_multiplier


def mutmut_section(text: str) -> configparser.SectionProxy:
    parser = configparser.ConfigParser()
    parser.read_string(text)
    return parser["mutmut"]


def test_the_section_names_the_module_its_tests_and_the_timeout_multiplier():
    """The section mutmut reads: the one module mutated, the tests named beside it in ``[mutate]``, and
    the multiplier given (mutmut's own 15 when none is)."""
    module, tests = modules()["channel"]
    section = mutmut_section(setup_cfg(module, tests, 4.0))
    assert section["only_mutate"] == "mcpsync/_session/channel.py"
    assert section["pytest_add_cli_args_test_selection"].split() == tests
    assert float(section["timeout_multiplier"]) == 4.0
    assert float(mutmut_section(setup_cfg(module, tests))["timeout_multiplier"]) == DEFAULT_TIMEOUT_MULTIPLIER == 15


def test_the_multiplier_comes_from_the_environment_or_is_mutmuts_own(monkeypatch):
    """``MUTATE_TIMEOUT_MULTIPLIER=4`` gives 4; unset or empty, 15."""
    monkeypatch.setenv("MUTATE_TIMEOUT_MULTIPLIER", "4")
    assert timeout_multiplier() == 4.0
    monkeypatch.setenv("MUTATE_TIMEOUT_MULTIPLIER", " ")
    assert timeout_multiplier() == 15.0
    monkeypatch.delenv("MUTATE_TIMEOUT_MULTIPLIER")
    assert timeout_multiplier() == 15.0


@pytest.mark.parametrize("given", ["1", "0.5", "-3", "nan", "four"])
def test_a_multiplier_that_leaves_no_time_for_the_tests_is_refused(monkeypatch, given):
    """A multiplier of 1 or less (the unmutated tests would not fit), or no number: the run stops with
    a message naming the value and what to give instead."""
    monkeypatch.setenv("MUTATE_TIMEOUT_MULTIPLIER", given)
    with pytest.raises(SystemExit, match=f"MUTATE_TIMEOUT_MULTIPLIER={given!r}: give a number above 1"):
        timeout_multiplier()
