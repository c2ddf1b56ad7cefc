"""Speed by design, not by reach (issue 38): mcpsync reads no private member of the standard library or
of a dependency, builds no frozen dataclass around its ``__init__``, writes into no other object's
``__dict__``, and copies no function's body into its caller ("written out", "without its frame").

Every ``x._name`` in the package whose ``x`` is not ``self``, ``cls`` or ``super()`` (a subclass calling
the hook it overrides) is listed in ``REACH`` with why it may stay, and every import of a private module
or name from outside the package (``import _signal``) in ``PRIVATE_IMPORTS``; a new one fails here
until it is listed or, better, gone. An entry nothing uses any more fails too, so the lists only shrink.

What a scan of the source cannot see: a subclass of another package's class that runs on its private
state through ``self``. ``_core.pending.RequestFuture`` is one: it is a ``concurrent.futures.Future``
that keeps ``Future``'s private ``_state``, ``_condition``, ``_waiters`` and ``_done_callbacks`` itself
(settled without a lock, the ``Condition`` made only for a caller of the Future API). It is still to go
(issue 38, point 1): the ``_base`` import listed below is the visible end of it.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "mcpsync"

#: (module, expression) -> why it stays.
REACH = {
    # Public despite the underscore.
    ("_edges/frameworks/langchain.py", "link._asdict"): "namedtuple's documented API",
    ("_edges/apps/notebook.py", "widget._repr_mimebundle_"): "IPython's documented display protocol",
    ("testing/__main__.py", "os._exit"): "documented: leave without running cleanup (a test server's crash)",
    ("testing/server.py", "os._exit"): "documented: leave without running cleanup (a test server's crash)",
    ("_auth/browser.py", "receiver._arrived"): "ours: the callback receiver of the same module",
    # Ours, between the classes of one module (a module is the unit of privacy here).
    ("_edges/apps/notebook.py", "bridge._invalid"): "ours: notebook's widget and its bridge",
    ("_edges/apps/notebook.py", "self._bridge_of(view)._handle_checked"): "ours: notebook's widget and its bridge",
    ("_session/cancel_scope.py", "scope._lock"): "ours: the module's functions and its CancelScope",
    ("_session/cancel_scope.py", "scope._sleepers"): "ours: the module's functions and its CancelScope",
    ("_wire/http/client.py", "client._refusing"): "ours: HTTPClient and its Exchange, one module",
    ("_wire/http/client.py", "client._running"): "ours: HTTPClient and its Exchange, one module",
    ("_wire/http/client.py", "client._running_lock"): "ours: HTTPClient and its Exchange, one module",
    ("_wire/http/client.py", "client._watchdog"): "ours: HTTPClient and its Exchange, one module",
    ("_wire/http/client.py", "exchange._deadline_passed"): "ours: HTTPClient and its Exchange, one module",
    ("_wire/http/client.py", "exchange._token"): "ours: HTTPClient and its Exchange, one module",
    ("_wire/http/client.py", "outer._inner"): "ours: HTTPClient and its Exchange, one module",
    ("_wire/http/client.py", "self._outer._inner"): "ours: HTTPClient and its Exchange, one module",
    # Still to go (issue 38, point 2: a Client that nothing reaches into).
    ("_manager/attempt.py", "client._channel"): "to go: point 2 gives the Manager a public way",
    ("_session/connect.py", "client._channel"): "to go: point 2 gives connect() a public way",
    ("_wire/http/session.py", "exchange._attach"): "ours: the sessions' connections and http_client's Exchange",
    ("_wire/http/session.py", "exchange._client"): "ours: the sessions' connections and http_client's Exchange",
    ("_wire/http/session.py", "exchange._connecting"): "ours: the sessions' connections and http_client's Exchange",
    # Still to go: urllib3 has no public way to hand the socket over before its connect starts, which is
    # what lets Exchange.cut abort a connect that hangs (see http_session's docstring).
    ("_wire/http/session.py", "conn._dns_host"): "to go: urllib3's connection, read to connect as it does",
}

#: (module, what it imports) -> why it stays, for a private module or name of the standard library or
#: a dependency.
PRIVATE_IMPORTS = {
    ("_core/pending.py", "concurrent.futures._base"): (
        "to go: RequestFuture keeps Future's private state itself (see the module docstring); its states"
    ),
    ("_threads/signals.py", "_signal"): (
        "to go: _signal.getsignal is signal.getsignal without its enum conversion, which raises and "
        "catches a ValueError for a Python handler: 2.1 us against 0.05 us, on every request's deferred "
        "section (timeit, 2026-12-05); the public way needs a design that does not ask on every request"
    ),
}

#: Words that mark a copy of another function's body, and constructions that skip a dataclass's __init__.
COPIES = re.compile(r"written out|without its frame|first look|object\.__new__|__dict__\[")
#: The shortcuts that stay: one function each, its measured gain in its docstring (issue 38: >= 3% of a
#: call's instructions). (module, line) -> the function.
SHORTCUTS = {("_session/content.py", "    made = object.__new__(cls)"): "made"}


def _reaches() -> dict[tuple[str, str], int]:
    found: dict[tuple[str, str], int] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        module = path.relative_to(PACKAGE).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Attribute) or not node.attr.startswith("_") or node.attr.endswith("__"):
                continue
            value = node.value
            if isinstance(value, ast.Name) and value.id in ("self", "cls"):
                continue
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "super":
                continue  # a subclass calls the hook it overrides
            key = (module, f"{ast.unparse(value)}.{node.attr}")
            found[key] = found.get(key, 0) + 1
    return found


def _private_imports() -> set[tuple[str, str]]:
    found: set[tuple[str, str]] = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        module = path.relative_to(PACKAGE).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module not in (None, "__future__"):
                names = [node.module or ""] + [f"{node.module}.{alias.name}" for alias in node.names]
            else:
                continue
            for name in names:
                parts = name.split(".")
                if parts[0] != "mcpsync" and any(p.startswith("_") and not p.endswith("__") for p in parts):
                    found.add((module, name))
    return found


def test_no_private_module_or_name_is_imported_but_what_is_listed_with_its_reason():
    found = _private_imports()
    unlisted = sorted(found - set(PRIVATE_IMPORTS))
    assert not unlisted, f"private modules or names imported (list them in PRIVATE_IMPORTS with why): {unlisted}"
    stale = sorted(set(PRIVATE_IMPORTS) - found)
    assert not stale, f"PRIVATE_IMPORTS lists what the package no longer imports (remove it): {stale}"


def test_nothing_private_of_others_is_read_but_what_is_listed_with_its_reason():
    found = _reaches()
    unlisted = sorted(set(found) - set(REACH))
    assert not unlisted, f"private members read off another object (list them in REACH with why, or don't): {unlisted}"
    stale = sorted(set(REACH) - set(found))
    assert not stale, f"REACH lists what the package no longer does (remove it): {stale}"


def test_no_function_is_copied_into_its_caller_and_no_dataclass_is_built_around_its_init():
    hits = [
        f"{path.relative_to(PACKAGE)}:{number}: {line.strip()}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if COPIES.search(line) and (path.relative_to(PACKAGE).as_posix(), line) not in SHORTCUTS
    ]
    assert not hits, "\n".join(hits)


def test_the_check_sees_what_it_must_refuse(tmp_path, monkeypatch):
    """The scan itself: a module reading requests' private member, and one copying a body, are found."""
    (tmp_path / "bad.py").write_text(
        "import requests\n"
        "def f(prepared):\n"
        "    prepared._body_position = None  # the default _write_request, written out\n",
        encoding="utf-8",
    )
    (tmp_path / "worse.py").write_text("import _signal\nfrom concurrent.futures import _base\n", encoding="utf-8")
    monkeypatch.setitem(globals(), "PACKAGE", tmp_path)
    assert _reaches() == {("bad.py", "prepared._body_position"): 1}
    assert _private_imports() == {("worse.py", "_signal"), ("worse.py", "concurrent.futures._base")}
    try:
        test_no_function_is_copied_into_its_caller_and_no_dataclass_is_built_around_its_init()
    except AssertionError as exc:
        assert "written out" in str(exc)
    else:
        raise AssertionError("a copied body went unseen")
