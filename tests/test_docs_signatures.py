"""The signatures the docs show are the code's, and every public name is documented.

The convention (also said in docs/api.md, "How to read the signatures"): in a ```python block of
README.md or docs/*.md (architecture.md aside: it names modules, not calls), a statement that starts
a line (not indented: a line inside a ``with``, ``def`` or ``for`` is an example's) of the form
``name(...)``, ``mcpsync.Name(...)``, ``Class.method(...)`` or ``receiver.method(...)``
(``client.``, ``task.``, ``manager.`` ..., see ``RECEIVERS``), possibly after ``x = `` and before
``-> ...`` or a ``#`` comment, possibly over several lines, is a *signature* when what is between
its parentheses is a Python parameter list whose defaults are literals, ``mcpsync`` names
(``USE_DEFAULT``) or ``...``, with at least one default, ``*`` or ``/`` (``f()`` and ``f(uri)``
read as calls as well as signatures, so they are taken for neither). Anything else
(``call_tool("echo", {...})``, ``auth=mcpsync.OAuth(...)``, ``session=my_session``) is an example
and is not compared. A method of another library's object (``future.result(timeout=5)``) is left
alone.

A signature must show every parameter of ``inspect.signature`` of the real object, in order, with
its kind (the ``*`` before keyword-only ones, the ``/`` after positional-only ones) and its default;
``...`` may stand for a default that is not a plain literal (a tuple, a sentinel object such as
``USE_DEFAULT``) or is a string over 30 characters. ``self`` is left out of methods.

On the docs of main before this test (2026-12-02): 21 mismatches on 14 lines, ToolBox and OAuth
shown nowhere, and 14 public names in no document.
"""

from __future__ import annotations

import ast
import inspect
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

import mcpsync

ROOT = Path(__file__).resolve().parent.parent
API = ROOT / "docs" / "api.md"

#: The receiver names the docs use for instances, and the class each stands for.
RECEIVERS = {
    "client": "Client",
    "task": "ToolTask",
    "loaded": "LoadedSkill",
    "manager": "Manager",
    "box": "ToolBox",
    "result": "CallToolResult",
    "store": "TokenStore",
    "transport": "Transport",
}

#: Public names documented nowhere on purpose, with the reason.
UNDOCUMENTED: dict[str, str] = {
    "__version__": "the package's version, as every package has one",
}

CALL = re.compile(r"^\s*(?:[A-Za-z_]\w*\s*=\s*)?((?:mcpsync\.)?[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)?)\(")


@dataclass
class Shown:
    """One signature found in the docs."""

    line: str
    target: str
    params: ast.arguments


def python_blocks(text: str) -> list[tuple[int, list[str]]]:
    """The ```python blocks of ``text``: (number of the first line, the lines)."""
    blocks: list[tuple[int, list[str]]] = []
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        if lines[index].strip() == "```python":
            start = index + 1
            end = start
            while end < len(lines) and lines[end].strip() != "```":
                end += 1
            blocks.append((start + 1, lines[start:end]))
            index = end
        index += 1
    return blocks


def strip_comment(line: str) -> str:
    """``line`` without a ``#`` comment (a ``#`` inside a string stays)."""
    quote = ""
    for position, char in enumerate(line):
        if quote:
            if char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char == "#":
            return line[:position]
    return line


def calls_in(line_text: str) -> list[str]:
    """The statements of one line split at top-level ``;``."""
    parts, depth, current, quote = [], 0, "", ""
    for char in line_text:
        if quote:
            quote = "" if char == quote else quote
        elif char in "\"'":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == ";" and depth == 0:
            parts.append(current)
            current = ""
            continue
        current += char
    parts.append(current)
    return [part.strip() for part in parts if part.strip()]


def parameters_text(statement: str, start: int) -> str | None:
    """What is between the parentheses opened at ``start``, or None when they do not close."""
    depth = 0
    for position in range(start, len(statement)):
        char = statement[position]
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                return statement[start + 1 : position]
    return None


def plain_default(node: ast.expr) -> bool:
    """A default a signature may show: a literal, ``...``, or a name mcpsync exports."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.Name):
        return node.id in mcpsync._PUBLIC
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "mcpsync":
        return True
    try:
        ast.literal_eval(node)
    except ValueError:
        return False
    return True


DOCS = [ROOT / "README.md", *(path for path in sorted((ROOT / "docs").glob("*.md")) if path.name != "architecture.md")]


def signatures(path: Path = API) -> list[Shown]:
    """Every signature shown in ``path``'s python blocks, by the convention above."""
    found: list[Shown] = []
    for first, lines in python_blocks(path.read_text(encoding="utf-8")):
        index = 0
        while index < len(lines):
            number = first + index
            text = strip_comment(lines[index])
            # a statement may go on over lines while its parentheses are open
            while text.count("(") > text.count(")") and index + 1 < len(lines):
                index += 1
                text += " " + strip_comment(lines[index]).strip()
            index += 1
            if text[:1].isspace():
                continue  # inside a with, def or for: an example's line
            for statement in calls_in(text):
                match = CALL.match(statement)
                if not match:
                    continue
                inside = parameters_text(statement, match.end() - 1)
                if inside is None:
                    continue
                try:
                    tree = ast.parse(f"def f({inside}): pass")
                except SyntaxError:
                    continue
                function = tree.body[0]
                assert isinstance(function, ast.FunctionDef)
                params = function.args
                bare = not (params.defaults or params.kwonlyargs or params.vararg or params.kwarg or params.posonlyargs)
                if bare:
                    continue  # f() or f(uri): a call with variables as much as a signature
                defaults = [*params.defaults, *(d for d in params.kw_defaults if d is not None)]
                if not all(plain_default(node) for node in defaults):
                    continue
                found.append(
                    Shown(
                        f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name}:{number}",
                        match.group(1),
                        params,
                    )
                )
    return found


def resolve(target: str) -> object | None:
    """The object a signature names, or None when it is no public one."""
    parts = target.split(".")
    if parts[0] == "mcpsync":
        parts = parts[1:]
    head = RECEIVERS.get(parts[0], parts[0])
    if head not in mcpsync._PUBLIC:
        return None
    value: object = getattr(mcpsync, head)
    for part in parts[1:]:
        static = inspect.getattr_static(value, part, None)
        if static is None or isinstance(static, property):
            return None
        value = getattr(value, part)  # a classmethod bound: no cls
    return value


def shown_parameters(params: ast.arguments) -> list[tuple[str, inspect._ParameterKind, object]]:
    """(name, kind, default as written or ``inspect.Parameter.empty``) of a parsed list."""
    kinds = inspect.Parameter
    out: list[tuple[str, inspect._ParameterKind, object]] = []
    positional = [*params.posonlyargs, *params.args]
    padded = [None] * (len(positional) - len(params.defaults)) + list(params.defaults)
    for position, (arg, default) in enumerate(zip(positional, padded)):
        kind = kinds.POSITIONAL_ONLY if position < len(params.posonlyargs) else kinds.POSITIONAL_OR_KEYWORD
        out.append((arg.arg, kind, kinds.empty if default is None else default))
    if params.vararg:
        out.append((params.vararg.arg, kinds.VAR_POSITIONAL, kinds.empty))
    for arg, kw_default in zip(params.kwonlyargs, params.kw_defaults):
        out.append((arg.arg, kinds.KEYWORD_ONLY, kinds.empty if kw_default is None else kw_default))
    if params.kwarg:
        out.append((params.kwarg.arg, kinds.VAR_KEYWORD, kinds.empty))
    return out


def default_matches(written: object, real: object) -> bool:
    """Whether the default ``written`` (an ast node) says the real default ``real``."""
    if not isinstance(written, ast.expr):
        return written is real
    if isinstance(written, ast.Constant) and written.value is Ellipsis:
        plain = real is None or isinstance(real, (bool, int, float)) or (isinstance(real, str) and len(real) <= 30)
        return not plain
    if isinstance(written, ast.Name):
        return getattr(mcpsync, written.id) is real
    if isinstance(written, ast.Attribute):
        return getattr(mcpsync, written.attr, object()) is real
    value = ast.literal_eval(written)
    return type(value) is type(real) and value == real


def mismatches(shown: Shown) -> list[str]:
    """What differs between a shown signature and the code's, in words."""
    where = f"{shown.line} {shown.target}"
    head = shown.target.split(".")[0]
    if head[0].islower() and head not in RECEIVERS and shown.target.count(".") == 1 and head != "mcpsync":
        return []  # future.result(...): another library's object
    value = resolve(shown.target)
    if value is None:
        return [f"{where}: no public object of that name"]
    try:
        real = inspect.signature(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return [f"{where}: has no signature"]
    actual = [p for p in real.parameters.values() if p.name != "self"]
    written = shown_parameters(shown.params)
    problems = []
    names_shown = [name for name, _, _ in written]
    names_real = [p.name for p in actual]
    if names_shown != names_real:
        problems.append(f"{where}: parameters {names_shown} but the code has {names_real}")
        return problems
    for (name, kind, default), parameter in zip(written, actual):
        if kind != parameter.kind:
            problems.append(f"{where}: {name} is shown {kind.description}, is {parameter.kind.description}")
        if (default is inspect.Parameter.empty) != (parameter.default is inspect.Parameter.empty):
            problems.append(
                f"{where}: {name}'s default is shown {'missing' if default is inspect.Parameter.empty else 'present'}"
            )
        elif default is not inspect.Parameter.empty and not default_matches(default, parameter.default):
            problems.append(f"{where}: {name}={ast.unparse(default)} but the code's default is {parameter.default!r}")  # type: ignore[arg-type]
    return problems


def test_the_convention_finds_the_signatures_of_the_main_objects() -> None:
    """The parser sees the signatures of connect, Client and its calls, Manager, ToolBox, OAuth:
    a convention that found nothing would make the next test pass vacuously."""
    targets = {shown.target for path in DOCS for shown in signatures(path)}
    for needed in (
        "mcpsync.connect",
        "mcpsync.Client",
        "client.call_tool",
        "mcpsync.Manager",
        "mcpsync.ToolBox",
        "mcpsync.OAuth",
    ):
        assert needed in targets, (needed, sorted(targets))


def test_every_signature_in_the_api_doc_is_the_code_s() -> None:
    """Each signature line of README.md and docs/*.md names a public object and shows its parameters,
    their kinds (``*``, ``/``) and defaults as ``inspect.signature`` gives them."""
    problems = [problem for path in DOCS for shown in signatures(path) for problem in mismatches(shown)]
    assert not problems, f"{len(problems)} mismatches:\n" + "\n".join(problems)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("client.call_tool(name, arguments=None, *, timeout=...)", True),
        ('client.call_tool("echo", {"text": "hi"})', False),
        ("mcpsync.connect(url, auth=mcpsync.OAuth(client_id='x'))", False),
        ("transport = mcpsync.StreamableHTTPTransport(url, session=my_session)", False),
        ("client = mcpsync.Client(transport, roots=None)   # a comment", True),
    ],
)
def test_the_convention_tells_signatures_from_examples(tmp_path: Path, text: str, expected: bool) -> None:
    """A parameter list with plain defaults is a signature; a call with values is an example."""
    doc = tmp_path / "doc.md"
    doc.write_text(f"```python\n{text}\n```\n", encoding="utf-8")
    assert bool(signatures(doc)) is expected


def test_every_public_name_is_documented() -> None:
    """Every public name (``mcpsync._PUBLIC``: ``__all__``, ``mcpsync.errors``, ``mcpsync.types``) appears, as a word, in README.md or docs/*.md, or is
    listed in UNDOCUMENTED with the reason."""
    texts = [ROOT.joinpath("README.md").read_text(encoding="utf-8")]
    texts += [path.read_text(encoding="utf-8") for path in sorted((ROOT / "docs").glob("*.md"))]
    everything = "\n".join(texts)
    missing = [
        name
        for name in mcpsync._PUBLIC
        if name not in UNDOCUMENTED and not re.search(rf"(?<!\w){re.escape(name)}(?!\w)", everything)
    ]
    assert not missing, f"{len(missing)} public names in no document: {missing}"
