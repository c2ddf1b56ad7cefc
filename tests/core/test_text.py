"""mcpsync._core.text: the one way texts are cut for logs, errors, reprs and tables."""

from mcpsync._core.text import cut, first_line, shorten


def test_shorten_cuts_long_text_and_says_how_long_it_was():
    assert shorten("abc") == "'abc'"
    cut_text = shorten("x" * 1000, limit=10)
    assert cut_text.startswith("'xxxxxxxxxx'") and "1000 characters" in cut_text
    cut_bytes = shorten(b"y" * 5000, limit=10)
    assert "5000 bytes" in cut_bytes


def test_cut_keeps_short_text_and_marks_what_it_cut():
    assert cut("short", 10) == "short"
    assert cut("x" * 20, 10) == "xxxxxxx..."
    assert len(cut("x" * 20, 10)) == 10


def test_first_line_takes_the_first_non_blank_line_only():
    assert first_line("\n  first line  \nsecond", 80) == "first line"
    assert first_line(None, 80) == ""
    assert first_line("a" * 100, 20) == "a" * 17 + "..."
