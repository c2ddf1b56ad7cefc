"""A tool search for a model (``ToolBox(..., search=True)``): a ranking of a box's tools for a query, and
the ``search_tools`` meta-tool that hands the model what it found.

The ranking is BM25 over each tool's words: its name (the box's name, ``github__search_issues``: the
server's too), its title, its description and the names of its arguments, split at ``_``, ``-``,
``.``, spaces and camelCase, lower-cased, a plural folded to its singular; the name and the argument
names count more than the description. Nothing here calls a server: the tools are the ones the box
already holds (a lazily started ``Manager``'s from its tool cache). The box is told what a search
found (``found_by``), so that a lazy ``Manager`` starts those tools' servers while the model thinks.
"""

from __future__ import annotations

import json
import math
import re
import warnings
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from ..._core.errors import ConfigurationWarning
from ..._session.models import Tool

__all__ = [
    "CALL_TOOL",
    "DEFAULT_LIMIT",
    "SEARCH_TOOL",
    "VENDOR_SEARCH",
    "ToolIndex",
    "ToolSearch",
    "dispatch_tool",
    "search_tool",
    "words",
]

#: The meta-tool's name (letters and ``_``: every vendor's format takes it).
SEARCH_TOOL = "search_tools"
#: The dispatcher's name: it calls a found tool by name (``dispatch_tool``).
CALL_TOOL = "call_tool"
#: The vendors' own tool searches (``ToolBox.definitions(format, deferred=True)``): the rest is ``defer_loading``.
VENDOR_SEARCH = {
    "anthropic": {"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"},
    "openai-responses": {"type": "tool_search"},
}
#: The most tools one search hands back, by default.
DEFAULT_LIMIT = 5
#: How much each part of a tool counts (its words are repeated this many times).
_WEIGHTS = {"name": 3, "title": 2, "arguments": 2, "description": 1}
_K1, _B = 1.2, 0.75
_STOP = frozenset("a an and any as at be by for from in is it its of on or the to with".split())
#: A word: a run of letters and digits, cut before a capital that follows a small letter or a digit
#: (camelCase: ``getHTTPResponse`` is ``get``, ``HTTPResponse``).
_WORD = re.compile(r"[A-Z]+[a-z0-9]*|[a-z0-9]+")
#: Characters of each part of a tool that are indexed: what one server's descriptions can cost the
#: index is bounded (a description past a few kB adds little to a ranking, and a hostile one much to
#: memory: the index keeps counts of its words, never the text).
MAX_INDEXED = 16_384


def _words(text: str) -> Iterator[str]:
    """``text``'s words as the index keeps them, one at a time (no list of the text's pieces)."""
    for found in _WORD.finditer(text):
        word = found.group().lower()
        if word in _STOP:
            continue
        if len(word) > 4 and word.endswith("ies"):
            word = word[:-3] + "y"
        elif len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
            word = word[:-1]
        yield word


def words(text: str) -> list[str]:
    """``text``'s words as the index keeps them: lower case, split, the plural folded, no stop words."""
    return list(_words(text))


def _document(name: str, tool: Tool, schema: Mapping[str, Any]) -> Counter[str]:
    """A tool's words and how often each counts (its parts' weights applied): counts, not copies."""
    properties = schema.get("properties")
    arguments = " ".join(properties) if isinstance(properties, Mapping) else ""
    parts = {"name": name, "title": tool.title or "", "arguments": arguments, "description": tool.description or ""}
    counts: Counter[str] = Counter()
    for part, text in parts.items():
        weight = _WEIGHTS[part]
        for word, n in Counter(_words(text[:MAX_INDEXED])).items():
            counts[word] += n * weight
    return counts


class ToolIndex:
    """BM25 over tools: ``search(query, limit)`` gives the names of the best matches, best first."""

    def __init__(self, tools: Iterable[tuple[str, Tool, Mapping[str, Any]]]) -> None:
        self._documents = {name: _document(name, tool, schema) for name, tool, schema in tools}
        self._lengths = {name: sum(counts.values()) for name, counts in self._documents.items()}
        count = len(self._documents)
        self._average = sum(self._lengths.values()) / count if count else 0.0
        frequency: Counter[str] = Counter()
        for counts in self._documents.values():
            frequency.update(counts.keys())
        self._idf = {word: math.log(1 + (count - n + 0.5) / (n + 0.5)) for word, n in frequency.items()}

    def __len__(self) -> int:
        return len(self._documents)

    def scores(self, query: str) -> dict[str, float]:
        """Every tool's score for ``query`` above zero."""
        terms = [term for term in dict.fromkeys(words(query)) if term in self._idf]
        scored: dict[str, float] = {}
        for name, counts in self._documents.items():
            norm = _K1 * (1 - _B + _B * self._lengths[name] / self._average) if self._average else _K1
            score = sum(self._idf[t] * counts[t] * (_K1 + 1) / (counts[t] + norm) for t in terms if counts[t])
            if score > 0:
                scored[name] = score
        return scored

    def search(self, query: str, limit: int) -> list[str]:
        """The names of at most ``limit`` tools that match ``query``, best first (ties: by name)."""
        scored = self.scores(query)
        return sorted(scored, key=lambda name: (-scored[name], name))[:limit]


def search_tool(name: str, limit: int, searchable: int, dispatcher: str = CALL_TOOL) -> Tool:
    """The meta-tool as a ``Tool``: what a model, or an agent framework, is handed."""
    description = (
        f"Search the {searchable} further tools that are available but not yet loaded, by what you need done "
        f"(a few keywords: an action, a thing, a service). Returns the definitions of at most {limit} best "
        f"matching tools; call one through {dispatcher} with its name and arguments. Search again with "
        "other words if none fits."
    )
    query = {"type": "string", "description": "Keywords for the tool you need, e.g. 'create invoice customer'."}
    schema = {"type": "object", "properties": {"query": query}, "required": ["query"]}
    return Tool.from_dict({"name": name, "description": description, "inputSchema": schema})


def dispatch_tool(name: str, search: str) -> Tool:
    """The dispatcher as a ``Tool``: it calls a tool ``search`` found, by name. An agent framework fixes
    its tools when a run starts (LangChain, LlamaIndex, smolagents, the Agents SDK's function tools): a
    tool found in the run is called through this one, which the run has had from its start."""
    description = (
        f"Call a tool that {search} found, by its name, with the arguments its definition asks for. "
        "Returns what the tool returns."
    )
    properties = {
        "name": {"type": "string", "description": f"The tool's name, as {search} gave it."},
        "arguments": {"type": "object", "description": "The tool's arguments, as its definition describes them."},
    }
    schema = {"type": "object", "properties": properties, "required": ["name"]}
    return Tool.from_dict({"name": name, "description": description, "inputSchema": schema})


class ToolSearch:
    """A box's search: its always-on tools, the tools found so far (offered from then on), the index,
    and the dispatcher that calls a found tool by name (``call_tool``: a run whose tools were fixed
    at its start reaches what it found through it).

    ``rebuild`` after the box's tools changed (the found ones still there stay found); ``shown`` the
    names a model is handed now; ``answer`` runs one call of the meta-tool; ``missing`` (set by the
    box) names the servers whose tools are not in the index yet.
    """

    def __init__(self, always: Iterable[str], limit: int, found_by: Callable[[list[str]], None]) -> None:
        if isinstance(always, str):
            raise TypeError("always= takes a list of tool names, not one string")
        if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
            raise ValueError(f"search_limit must be a whole number of at least 1, not {limit!r}")
        self.always = tuple(always)
        self.limit = limit
        self.name = SEARCH_TOOL
        self.found_by = found_by  # told the names each search found
        self.found: dict[str, None] = {}
        self._warned: set[str] = set()
        self.index = ToolIndex(())
        self.dispatcher = dispatch_tool(CALL_TOOL, self.name)
        self.tool = search_tool(self.name, limit, 0, self.dispatcher.name)
        #: The servers whose tools the index lacks now (still starting, no tools cached), said in each answer.
        self.missing: Callable[[], list[str]] = list

    def rebuild(self, tools: Mapping[str, tuple[Tool, Mapping[str, Any]]]) -> None:
        """Index ``tools`` (``{box name: (tool, schema)}``) but the always-on ones; an ``always`` name
        that is none of them is a ``ConfigurationWarning`` (once)."""
        self.name = SEARCH_TOOL if SEARCH_TOOL not in tools else f"mcpsync_{SEARCH_TOOL}"
        self.dispatcher = dispatch_tool(CALL_TOOL if CALL_TOOL not in tools else f"mcpsync_{CALL_TOOL}", self.name)
        self.index = ToolIndex((name, *tools[name]) for name in tools if name not in self.always)
        self.found = {name: None for name in self.found if name in tools}
        self.tool = search_tool(self.name, self.limit, len(self.index), self.dispatcher.name)
        for name in self.always:
            if name not in tools and name not in self._warned:
                self._warned.add(name)
                warnings.warn(f"ToolBox: always= names {name!r}, which is no tool of the box", ConfigurationWarning, 4)

    def parts(self) -> tuple[str, str, dict[str, Any]]:
        """The meta-tool's name, description and input schema."""
        return self.tool.name, self.tool.description or "", dict(self.tool.input_schema)

    def dispatcher_parts(self) -> tuple[str, str, dict[str, Any]]:
        """The dispatcher's name, description and input schema."""
        return self.dispatcher.name, self.dispatcher.description or "", dict(self.dispatcher.input_schema)

    def dispatched(self, arguments: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
        """The tool name and arguments a dispatcher call names.

        Raises:
            ValueError: ``name`` is no string or ``arguments`` no object (the text is for the model).
        """
        name, given = arguments.get("name"), arguments.get("arguments", {})
        if not isinstance(name, str) or not name:
            raise ValueError(f"{self.dispatcher.name} needs 'name': the name of a tool {self.name} found.")
        if given is None:
            given = {}
        if not isinstance(given, Mapping):
            raise ValueError(f"{self.dispatcher.name}: 'arguments' must be a JSON object, the tool's arguments.")
        return name, dict(given)

    def client_tool(self) -> dict[str, Any]:
        """The meta-tool as OpenAI Responses' client-executed ``tool_search``."""
        _, description, schema = self.parts()
        return {"type": "tool_search", "execution": "client", "description": description, "parameters": schema}

    def output(self, call: Mapping[str, Any], definition: Any) -> dict[str, Any]:
        """The ``tool_search_output`` item answering OpenAI's ``tool_search_call`` (``execution: "client"``):
        the found tools' definitions (``definition(name)``), none for a call without a query."""
        arguments = call.get("arguments")
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments or "{}")
            except ValueError:
                arguments = {}
        query = arguments.get("query") if isinstance(arguments, Mapping) else None
        names = self.index.search(query, self.limit) if isinstance(query, str) else []
        self._found(names)
        tools = [definition(name) for name in names]
        return {"type": "tool_search_output", "call_id": call.get("call_id"), "execution": "client", "tools": tools}

    def _found(self, names: list[str]) -> None:
        self.found.update(dict.fromkeys(names))
        if names:
            self.found_by(names)

    def shown(self, names: Iterable[str]) -> list[str]:
        """Of ``names`` (the box's, in its order), the ones a model is handed: always-on or found."""
        return [name for name in names if name in self.always or name in self.found]

    def answer(self, arguments: Mapping[str, Any], definition: Any) -> tuple[str, bool]:
        """``(text for the model, is_error)`` of a search: the found tools' definitions (``definition(name)``
        gives one, in the model's format) as JSON; they are offered from then on."""
        query = arguments.get("query")
        if not isinstance(query, str) or not query.strip():
            return "The search needs a 'query': a few keywords saying what the tool should do.", True
        names = self.index.search(query, self.limit)
        missing = self.missing()
        later = (
            f" The tools of {', '.join(map(repr, missing))} are not searched yet (still starting): search again soon."
            if missing
            else ""
        )
        if not names:
            return f"No tool matches {query!r}. Try other words (an action, a thing, a service).{later}", False
        self._found(names)
        definitions = json.dumps([definition(name) for name in names], ensure_ascii=False)
        how = f'call one through {self.dispatcher.name} with {{"name": <its name>, "arguments": {{...}}}}'
        return f"Found {len(names)} tool(s): {how}.{later} Their definitions:\n{definitions}", False
