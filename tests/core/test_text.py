"""mcpsync._core.text: the one way texts are cut for logs, errors, reprs and tables."""

from mcpsync._core.text import cut, excerpt, first_line, shorten


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


def test_excerpt_keeps_the_words_of_an_html_page_on_one_short_line():
    page = (
        "<!DOCTYPE html>\n<html><head><title>404</title><style>p { color: red }</style></head>\n"
        "<body><!-- x --><h1>Not   Found</h1>\n<p>No route for &lt;POST /&gt;</p><script>var a = 1;</script></body></html>"
    )
    assert excerpt(page) == "Not Found No route for <POST />"
    assert excerpt("plain\n  text\t here ") == "plain text here"
    assert excerpt("a < b > c") == "a c"  # what looks like a tag goes: an error body is no place for maths
    long = excerpt("word " * 100)
    assert len(long) == 200 and long.endswith("...")
