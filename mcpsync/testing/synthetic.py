"""Made-up tools in any number, for measuring what many tools cost (``python -m mcpsync.testing --tools N``).

``synthetic_tools(count, prefix)`` makes ``count`` tools that look like a real API's: names such as
``tracker_list_issues`` or ``tracker_archive_project`` (``<prefix>_<verb>_<noun>``), a description of a
sentence or two, and an input schema with the arguments such a call takes (ids, filters, paging, an
enum, a nested object now and then). The same count and prefix give the same tools every time.
``answer(name, arguments)`` is what calling one returns: a text naming the tool and its arguments, and
the arguments as structured content.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["answer", "synthetic_tools"]

_VERBS = (
    ("list", "List the {plural} of the workspace, newest first, a page at a time."),
    ("get", "Get one {singular} by its id, with every field the API returns."),
    ("create", "Create a {singular} from the fields given; returns the new {singular} and its id."),
    ("update", "Change the fields given of an existing {singular}; fields left out keep their values."),
    ("delete", "Delete a {singular} by its id. This cannot be undone."),
    ("search", "Search the {plural} by a free-text query, with optional filters on state and owner."),
    ("archive", "Archive a {singular}: it leaves the default lists but can still be read."),
    ("export", "Export the {plural} matching the filters as CSV or JSON, for a report."),
    ("count", "Count the {plural} matching the filters without listing them."),
    ("assign", "Assign a {singular} to a user, replacing whoever had it."),
)
#: The verbs whose tools work on many at once: their names have the plural (``list_issues``).
_OF_MANY = frozenset({"list", "search", "export", "count"})
_NOUNS = (
    ("issue", "issues"),
    ("project", "projects"),
    ("comment", "comments"),
    ("label", "labels"),
    ("milestone", "milestones"),
    ("user", "users"),
    ("team", "teams"),
    ("invoice", "invoices"),
    ("customer", "customers"),
    ("ticket", "tickets"),
    ("document", "documents"),
    ("release", "releases"),
    ("deployment", "deployments"),
    ("dashboard", "dashboards"),
    ("alert", "alerts"),
    ("calendar_event", "calendar events"),
    ("message", "messages"),
    ("file", "files"),
    ("webhook", "webhooks"),
    ("report", "reports"),
)

_ID = {"type": "string", "description": "The id, as the list and search tools return it."}
_PAGING = {
    "limit": {"type": "integer", "minimum": 1, "maximum": 100, "description": "At most this many results."},
    "cursor": {"type": "string", "description": "Where the previous page ended (its nextCursor)."},
}
_STATE = {"type": "string", "enum": ["open", "closed", "all"], "description": "Which ones, by state."}
_OWNER = {"type": "string", "description": "The login of the owner (default: anyone)."}
_FIELDS = {
    "type": "object",
    "description": "The fields to set.",
    "properties": {
        "title": {"type": "string", "description": "A short title."},
        "body": {"type": "string", "description": "The text, in Markdown."},
        "tags": {"type": "array", "items": {"type": "string"}, "description": "Tags to attach."},
        "due": {"type": "string", "format": "date", "description": "When it is due (YYYY-MM-DD)."},
    },
}


def _schema(verb: str) -> dict[str, Any]:
    """The input schema of a tool that does ``verb``."""
    properties: dict[str, Any]
    required: list[str] = []
    if verb in ("get", "delete", "archive"):
        properties, required = {"id": _ID}, ["id"]
    elif verb in ("list", "count"):
        properties = {"state": _STATE, "owner": _OWNER, **(_PAGING if verb == "list" else {})}
    elif verb == "search":
        query = {"type": "string", "description": "Words to look for in the title and text."}
        properties, required = {"query": query, "state": _STATE, "owner": _OWNER, **_PAGING}, ["query"]
    elif verb == "create":
        properties, required = {"fields": _FIELDS}, ["fields"]
    elif verb == "update":
        properties, required = {"id": _ID, "fields": _FIELDS}, ["id", "fields"]
    elif verb == "export":
        export_format = {"type": "string", "enum": ["csv", "json"], "description": "The file format."}
        properties, required = {"format": export_format, "state": _STATE}, ["format"]
    else:  # assign
        assignee = {"type": "string", "description": "The login of the user to assign."}
        properties, required = {"id": _ID, "assignee": assignee}, ["id", "assignee"]
    return {"type": "object", "properties": properties, "required": required}


def synthetic_tools(count: int, prefix: str = "demo") -> list[dict[str, Any]]:
    """``count`` tools named ``<prefix>_<verb>_<noun>``, as ``tools/list`` lists them."""
    tools = []
    for index in range(count):
        verb, text = _VERBS[index % len(_VERBS)]
        singular, plural = _NOUNS[(index // len(_VERBS)) % len(_NOUNS)]
        rounds = index // (len(_VERBS) * len(_NOUNS))  # past 200 tools: the same again, numbered
        noun = plural.replace(" ", "_") if verb in _OF_MANY else singular
        name = f"{prefix}_{verb}_{noun}" + (f"_{rounds + 1}" if rounds else "")
        description = text.format(singular=singular.replace("_", " "), plural=plural)
        tools.append({"name": name, "description": description, "inputSchema": _schema(verb)})
    return tools


def answer(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """The result of calling the synthetic tool ``name`` with ``arguments``."""
    text = f"{name}: done ({json.dumps(arguments, sort_keys=True)})"
    return {"content": [{"type": "text", "text": text}], "structuredContent": {"tool": name, "arguments": arguments}}
