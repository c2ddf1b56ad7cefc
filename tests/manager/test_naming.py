"""mcpsync.naming: qualified tool names that LLM APIs accept, unique across servers."""

import re

import pytest

from mcpsync._manager.naming import MAX_NAME_LENGTH, qualified_name, qualify_all, server_prefix

SAFE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def test_plain_names_join_with_the_separator():
    assert qualified_name("github", "search_issues") == "github__search_issues"
    assert qualified_name("github", "search", separator="-") == "github-search"


def test_unsafe_characters_become_underscores_and_digits_stay():
    assert qualified_name("my.server", "get file/v2") == "my_server__get_file_v2"
    assert qualified_name("2fa", "7zip") == "2fa__7zip"
    assert qualified_name("café", "naïve") == "caf___na_ve"


def test_long_names_are_cut_with_a_hash_of_the_whole():
    long_tool = "t" * 100
    first = qualified_name("server", long_tool + "a")
    second = qualified_name("server", long_tool + "b")
    assert len(first) == len(second) == MAX_NAME_LENGTH
    assert first != second and first.startswith("server__ttt")
    assert SAFE.match(first) and SAFE.match(second)
    assert qualified_name("server", long_tool + "a") == first  # stable


def test_bad_separators_are_refused():
    for separator in ("", ".", "::", " "):
        with pytest.raises(ValueError, match="separator"):
            server_prefix("s", separator)
    assert server_prefix("a.b") == "a_b__"


def test_collisions_are_resolved_deterministically_and_reported():
    pairs = [("a.b", "echo"), ("a_b", "echo"), ("a b", "echo"), ("other", "echo")]
    names, collisions = qualify_all(pairs)
    assert names["a_b__echo"] == ("a.b", "echo")  # the first pair keeps the name
    assert names["other__echo"] == ("other", "echo")
    assert len(names) == 4 and all(SAFE.match(name) for name in names)
    assert len(collisions) == 1
    collision = collisions[0]
    assert collision.name == "a_b__echo" and collision.kept == ("a.b", "echo")
    assert [(server, tool) for server, tool, _ in collision.renamed] == [("a_b", "echo"), ("a b", "echo")]
    assert "a_b__echo" in str(collision) and "renamed" in str(collision)
    again, _ = qualify_all(list(pairs))
    assert again == names  # the same input, the same names


def test_duplicates_of_one_pair_count_once():
    names, collisions = qualify_all([("s", "t"), ("s", "t")])
    assert names == {"s__t": ("s", "t")} and collisions == []
