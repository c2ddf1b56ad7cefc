"""docs/api.md lists, in one section, every file mcpsync writes under the home directory, with the
variables that move it: checked against the defaults the code uses, so that neither drifts."""

from __future__ import annotations

from pathlib import Path

from mcpsync import FileTokenStore
from mcpsync._manager.tool_cache import ToolCache
from mcpsync._manager.trust import TrustStore

API = Path(__file__).resolve().parent.parent / "docs" / "api.md"
HEADING = "### Files mcpsync writes under your home directory"


def section() -> str:
    text = API.read_text(encoding="utf-8")
    assert HEADING in text
    return text.split(HEADING, 1)[1].split("\n#", 1)[0]


def test_every_default_file_is_listed_with_its_place_under_home_and_its_variable(monkeypatch) -> None:
    """Tokens, trusted projects and the tool cache: each default path, as the code makes it on Linux
    with no XDG variable set, appears in the section, and so do the variables that move them."""
    home = Path("/home/ada")
    monkeypatch.setattr("sys.platform", "linux")
    monkeypatch.setenv("HOME", str(home))
    for name in ("XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.delenv(name, raising=False)
    text = section()
    made = {
        "tokens": str(FileTokenStore().directory) + "/",
        "trust": str(TrustStore().path),
        "tool cache": str(ToolCache().path),
    }
    for what, path in made.items():
        shown = "~/" + str(Path(path).relative_to(home)) + ("/" if path.endswith("/") else "")
        assert f"`{shown}`" in text, (what, shown)
    for variable in ("$XDG_DATA_HOME", "$XDG_CACHE_HOME", "$XDG_CONFIG_HOME", "$MCPSYNC_CONFIG"):
        assert variable in text


def test_complete_with_context_is_documented() -> None:
    """``complete(..., context=)`` has its example in docs/api.md."""
    assert 'context={"country": "France"}' in API.read_text(encoding="utf-8")
