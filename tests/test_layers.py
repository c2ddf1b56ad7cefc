"""The layers of docs/architecture.md, checked on the import graph: a lower layer never imports a higher one.

Run by ``make test`` and by ``make lint``. Every ``import`` and ``from ...
import`` in the package counts, lazy ones inside functions too: a lower layer
must not reach up even to dodge a cycle.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "mcpsync"

#: Bottom up. A module may import its own layer and the ones below.
LAYERS = {
    "_version": 0,
    "_core": 1,
    "_threads": 2,
    "_wire": 3,
    "_auth": 4,
    "_session": 5,
    "_manager": 6,
    "_edges": 7,
    "testing": 7,
    "__init__": 8,
    "__main__": 8,
    "errors": 8,
    "types": 8,
}
#: What the protocol core never touches: it does no I/O and starts no thread.
CORE_FORBIDDEN = {"socket", "select", "subprocess", "signal", "requests", "urllib3", "http", "selectors", "asyncio"}


def modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def layer_of(dotted: str) -> int:
    """The layer of ``mcpsync.<part>...``."""
    parts = dotted.split(".")
    assert parts[0] == "mcpsync", dotted
    top = parts[1] if len(parts) > 1 else "__init__"
    return LAYERS[top]


def dotted_name(path: Path) -> str:
    relative = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(relative.parts)
    if parts[-1] == "__init__" and len(parts) > 1:
        parts = parts[:-1]
    return ".".join(parts)


def imports_of(path: Path) -> list[tuple[str, int]]:
    """(imported module, line) for every import of ``path``, relative ones resolved."""
    package = dotted_name(path) if path.name == "__init__.py" else dotted_name(path).rsplit(".", 1)[0]
    return imports_in(path.read_text("utf-8"), package)


def imports_in(source: str, package: str) -> list[tuple[str, int]]:
    """(imported module, line) for every import in ``source``, a module of ``package``."""
    tree = ast.parse(source)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((alias.name, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if node.module is None:  # from . import x: each name is a module
                found.extend((f"{target}.{alias.name}", node.lineno) for alias in node.names)
            else:
                found.append((target, node.lineno))
    return found


def own_layer(path: Path) -> int:
    dotted = dotted_name(path)
    return LAYERS["__init__"] if dotted == "mcpsync" else layer_of(dotted)


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_module_imports_a_higher_layer(path: Path) -> None:
    mine = own_layer(path)
    upward = [
        f"line {line}: {target}"
        for target, line in imports_of(path)
        if target.startswith("mcpsync") and target != "mcpsync" and layer_of(target) > mine
    ]
    assert not upward, f"{path.relative_to(PACKAGE)} (layer {mine}) imports a higher layer: {upward}"


@pytest.mark.parametrize("path", sorted((PACKAGE / "_core").glob("*.py")), ids=lambda p: p.name)
def test_the_protocol_core_does_no_io_and_starts_no_thread(path: Path) -> None:
    source = path.read_text("utf-8")
    touched = {target.split(".")[0] for target, _ in imports_of(path)} & CORE_FORBIDDEN
    assert not touched, f"_core/{path.name} imports {sorted(touched)}"
    assert "Thread(" not in source, f"_core/{path.name} starts a thread"


def test_every_package_directory_is_a_known_layer() -> None:
    """A new folder must say where it stands."""
    for entry in PACKAGE.iterdir():
        if entry.is_dir() and not entry.name.startswith("__"):
            assert entry.name in LAYERS, f"mcpsync/{entry.name} is in no layer of tests/test_layers.py"


def test_the_checker_sees_an_upward_import() -> None:
    """The check itself: an upward import, relative and inside a function, is found and resolved."""
    source = "import json\n\ndef f():\n    from .._session.client import Client\n    from . import text\n"
    found = imports_in(source, "mcpsync._core")
    assert found == [("json", 1), ("mcpsync._session.client", 4), ("mcpsync._core.text", 5)]
    assert layer_of("mcpsync._session.client") > layer_of("mcpsync._core.jsonrpc")


#: Imports that close a known circle, being removed elsewhere (none today; each would say where).
KNOWN_CIRCLE_IMPORTS: set[tuple[str, str]] = set()


def import_graph() -> dict[str, set[str]]:
    """Module -> the mcpsync modules it imports (lazy and ``TYPE_CHECKING`` imports too, but
    ``KNOWN_CIRCLE_IMPORTS``); an import of a name in a module (``from . import x``, ``x`` a class)
    counts as one of that module."""
    names = {dotted_name(path): path for path in modules()}
    graph: dict[str, set[str]] = {name: set() for name in names}
    for name, path in names.items():
        for target, _ in imports_of(path):
            while target and target not in names:
                target = target.rpartition(".")[0]
            if target.startswith("mcpsync") and target != name and (name, target) not in KNOWN_CIRCLE_IMPORTS:
                graph[name].add(target)
    return graph


def circles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(component)
    return found


def test_no_import_circles() -> None:
    """No two modules of mcpsync import each other, directly or round a longer circle, even lazily
    (inside a function) or for the type checker alone: each circle found is listed."""
    found = [sorted(c) for c in circles(import_graph())]
    assert not found, "import circles: " + "; ".join(" <-> ".join(c) for c in found)


def test_the_circle_finder_sees_a_lazy_circle() -> None:
    """The check itself: a circle closed by an import inside a function is found; a chain is not."""
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert circles(graph) == [{"a", "b", "c"}]
    lazy = imports_in("def f():\n    from .a import x\n", "mcpsync.pkg")
    assert lazy == [("mcpsync.pkg.a", 2)]
