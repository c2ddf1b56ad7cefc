"""mcpsync._edges.display: the notebook views (``to_html``), and the models' short reprs.

Most tests build the values from wire dicts, as a server would send them;
one runs the bundled server to render real results. The hostile-input tests
parse every output with ``html.parser`` and check each tag and attribute: a
server's text must never become markup, an event handler, a script URL or a
media type outside the allow-list.
"""

from __future__ import annotations

import base64
import html
import re
import struct
import zlib
from html.parser import HTMLParser
from typing import Any, Optional

import pytest

import mcpsync
from mcpsync._edges import safe_html
from mcpsync._edges.display import status_html, to_html
from mcpsync._manager.records import ManagedPrompt, ManagedResource, ManagedTool, ServerState, ServerStatus
from mcpsync._session.content import ImageContent, ResourceContents
from mcpsync._session.models import (
    CallToolResult,
    GetPromptResult,
    Prompt,
    ReadResourceResult,
    Resource,
    ResourceTemplate,
    ServerInfo,
    Tool,
)
from mcpsync.testing import server_command, server_config

# -- what the outputs may contain ------------------------------------------------------------

TAGS = {"div", "span", "b", "code", "pre", "br", "table", "thead", "tbody", "tr", "th", "td", "details", "summary"}
TAGS |= {"img", "audio", "a"}
ATTRIBUTES = {"style", "href", "src", "alt", "controls", "open", "target", "rel"}
MEDIA_SRC = re.compile(r"data:(image/(png|jpeg|gif|webp)|audio/(wav|mpeg|ogg));base64,[A-Za-z0-9+/]*={0,2}")
WEB_HREF = re.compile(r"https?://[^\s\"'<>]+", re.IGNORECASE)


class Checked(HTMLParser):
    """Parses a view; collects its tags and text, and what is wrong with them."""

    def __init__(self, markup: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, Optional[str]]]] = []
        self.text: list[str] = []
        self.problems: list[str] = []
        self.feed(markup)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, Optional[str]]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag not in TAGS:
            self.problems.append(f"tag <{tag}>")
        for name, value in attrs:
            value = value or ""
            if name not in ATTRIBUTES or name.startswith("on"):
                self.problems.append(f"attribute {name}= on <{tag}>")
            if "javascript:" in re.sub(r"\s", "", value).lower():
                self.problems.append(f"script URL in {name}= on <{tag}>")
            if "alert" in value:  # every hostile payload calls alert: server text reached an attribute
                self.problems.append(f"server text in {name}= on <{tag}>: {value!r}")
            if name == "src" and not MEDIA_SRC.fullmatch(value):
                self.problems.append(f"src={value[:60]!r} on <{tag}>")
            if name == "href" and not WEB_HREF.fullmatch(value):
                self.problems.append(f"href={value!r}")
            if name == "style" and ("url(" in value or "expression" in value):
                self.problems.append(f"style={value!r}")

    handle_startendtag = handle_starttag

    def handle_data(self, data: str) -> None:
        self.text.append(data)

    def handle_comment(self, data: str) -> None:
        self.problems.append(f"comment {data!r}")

    def handle_decl(self, decl: str) -> None:
        self.problems.append(f"declaration {decl!r}")

    def handle_pi(self, data: str) -> None:
        self.problems.append(f"processing instruction {data!r}")

    def unknown_decl(self, data: str) -> None:
        self.problems.append(f"declaration {data!r}")

    @property
    def all_text(self) -> str:
        return "".join(self.text)


def safe(markup: Optional[str]) -> Checked:
    """The parsed view, after checking that nothing in it can run or load anything but our media."""
    assert markup is not None
    checked = Checked(markup)
    assert checked.problems == []
    # Escaped, "onerror=" may stand in the text; as an attribute the parser above would have caught it.
    assert "<script" not in markup.lower() and "<img src=x" not in markup and "<svg" not in markup.lower()
    return checked


# -- small wire values -----------------------------------------------------------------------


def png(width: int = 1, height: int = 1) -> bytes:
    """A real (tiny, grey) PNG."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\x00" + b"\x80" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


WAV = b"RIFF" + struct.pack("<I", 36) + b"WAVEfmt " + bytes(24)
SVG = b'<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(1)</script></svg>'


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


SCHEMA = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "description": "What to look for"},
        "limit": {"type": "integer", "default": 10},
        "mode": {"enum": ["fast", "full"]},
        "when": {"anyOf": [{"type": "string", "format": "date"}, {"type": "null"}]},
        "filter": {
            "type": "object",
            "properties": {"label": {"type": "string", "description": "A label"}, "state": {"type": "string"}},
            "required": ["label"],
        },
        "tags": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}}}},
    },
    "required": ["query"],
}

TOOL = Tool.from_dict(
    {"name": "search", "title": "Search issues", "description": "Find issues.", "inputSchema": SCHEMA}
)


def result(content: list[dict[str, Any]], **extra: Any) -> CallToolResult:
    return CallToolResult.from_dict({"content": content, **extra}, "search")


def status(**fields: Any) -> ServerStatus:
    values: dict[str, Any] = {"name": "github", "state": ServerState.CONNECTED, "source": "/p/.mcp.json"}
    values["transport"] = "stdio"
    return ServerStatus(**{**values, **fields})


# -- tools -----------------------------------------------------------------------------------


def test_a_tool_list_is_a_table_of_names_descriptions_and_parameters() -> None:
    add = Tool.from_dict(
        {"name": "add", "description": "Add two numbers.", "inputSchema": {"type": "object", "properties": {"a": {}}}}
    )
    tools = list([TOOL, add])
    assert tools == [TOOL, add] and [TOOL, add] == tools and isinstance(tools, list)
    view = safe(to_html(tools))
    text = view.all_text
    for piece in (
        "Tools",
        "2",
        "search",
        "Search issues",
        "Find issues.",
        "add",
        "Add two numbers.",
        "query",
        "string",
    ):
        assert piece in text
    markup = to_html(tools) or ""
    assert re.search(r"<code>query</code><b [^>]*>\*</b>", markup)  # required
    assert re.search(r"<code>limit</code> ", markup)  # optional: no mark
    assert to_html([]) is None  # an empty list shows as []


def test_a_tool_shows_its_schema_as_a_table_with_nested_rows_indented_and_the_raw_json() -> None:
    markup = to_html(TOOL)
    view = safe(markup)
    text = view.all_text
    for piece in ("string (date) | null", 'one of: "fast", "full"', "default: 10", "What to look for", "integer"):
        assert piece in text
    assert "filter.label" in text and "tags[].name" in text
    assert re.search(r'padding-left:1\.5em"><code>filter\.label</code>', markup or "")
    raw = markup[markup.index("<details>") :] if markup else ""
    assert "JSON schema" in raw and "&quot;required&quot;" in raw  # the schema itself, escaped


def test_a_managed_tool_list_shows_qualified_names_servers_and_the_deferred_mark() -> None:
    tools = list([ManagedTool("github__search", "github", TOOL, deferred=True), ManagedTool("a__x", "a", TOOL)])
    text = safe(to_html(tools)).all_text
    assert "github__search" in text and "github" in text and "deferred" in text and "Find issues." in text
    assert text.count("deferred") == 1
    single = safe(to_html(tools[0])).all_text
    assert "github__search" in single and "on server github as search" in single and "deferred" in single


def test_short_reprs_name_the_thing_and_leave_out_the_data() -> None:
    assert repr(TOOL) == "<Tool 'search'(query, limit?, mode?, when?, filter?, tags?): Find issues.>"
    prompt = Prompt.from_dict({"name": "greet", "arguments": [{"name": "who", "required": True}, {"name": "style"}]})
    assert repr(prompt) == "<Prompt 'greet'(who, style?)>"
    big = ImageContent(b64(png() + bytes(300_000)), "image/png")
    assert repr(big) == f"<ImageContent image/png, {len(png()) + 300_000} bytes>"
    call = result([{"type": "text", "text": "x" * 500}, {"type": "image", "data": b64(png()), "mimeType": "image/png"}])
    assert len(repr(call)) < 150 and repr(call).startswith("<CallToolResult 'search': text 'xxx")
    assert "image image/png" in repr(call)
    assert "error" in repr(result([], isError=True))
    blob = ResourceContents.from_dict({"uri": "binary://pixel", "mimeType": "image/png", "blob": b64(png())})
    assert repr(blob) == f"<ResourceContents 'binary://pixel' image/png, {len(png())} bytes>"
    assert "'binary://pixel'" in repr(ReadResourceResult([blob]))
    assert "ManagedTool(name='a__x'" in repr(ManagedTool("a__x", "a", TOOL))  # the dataclass repr, short inside


# -- tool results ----------------------------------------------------------------------------


def test_a_result_shows_each_block() -> None:
    call = result(
        [
            {"type": "text", "text": "first line\nsecond <b>line</b>"},
            {"type": "image", "data": b64(png()), "mimeType": "image/png"},
            {"type": "audio", "data": b64(WAV), "mimeType": "audio/wav"},
            {"type": "resource_link", "uri": "https://example.com/a?b=1&c=2", "name": "report", "mimeType": "text/csv"},
            {"type": "resource_link", "uri": "file:///etc/hosts", "name": "hosts"},
            {"type": "resource", "resource": {"uri": "mem://note", "mimeType": "text/plain", "text": "a note"}},
            {"type": "resource", "resource": {"uri": "mem://bin", "mimeType": "application/zip", "blob": b64(b"PK12")}},
            {"type": "hologram", "beam": 3},
        ]
    )
    markup = to_html(call)
    view = safe(markup)
    text = view.all_text
    assert "first line\nsecond <b>line</b>" in text  # shown as text, not markup
    images = [attrs for tag, attrs in view.tags if tag == "img"]
    assert [base64.b64decode((a["src"] or "").split(",")[1]) for a in images] == [png()]
    audio = [attrs for tag, attrs in view.tags if tag == "audio"]
    assert len(audio) == 1 and (audio[0]["src"] or "").startswith("data:audio/wav;base64,")
    links = [attrs["href"] for tag, attrs in view.tags if tag == "a"]
    assert links == ["https://example.com/a?b=1&c=2"]
    assert "file:///etc/hosts" in text  # not http(s): text only
    assert "a note" in text and "application/zip, 4 bytes" in text
    assert "hologram" in text and '"beam": 3' in text
    assert "Error" not in text


def test_structured_content_is_a_table_when_flat_and_json_otherwise() -> None:
    flat = safe(to_html(result([], structuredContent={"sum": 3, "unit": "cm", "ok": True})))
    cells = [t for t in flat.text if t.strip()]
    assert ["sum", "3", "unit", "cm", "ok", "true"] == cells[cells.index("sum") : cells.index("sum") + 6]
    nested = result([{"type": "text", "text": '{"a": {"b": [1, 2]}}'}], structuredContent={"a": {"b": [1, 2]}})
    markup = to_html(nested) or ""
    safe(markup)
    assert "<details open>" in markup and "&quot;b&quot;: [" in markup
    # The text block that repeats the structured content as JSON is folded away.
    assert "Text (the structured content as JSON)" in markup


def test_structured_content_of_any_json_value_is_shown() -> None:
    """2026-07-28: an array of flat objects is a table with a column per key, a scalar (null included)
    is shown as JSON, an array of anything else as JSON (the unfixed display crashed on a list)."""
    users = [{"id": "1", "name": "Alice"}, {"id": "2", "name": "<b>Bob</b>", "admin": True}]
    table = safe(to_html(result([], structuredContent=users)))
    cells = [t for t in table.text if t.strip()]
    start = cells.index("id")
    assert cells[start : start + 9] == ["id", "name", "admin", "1", "Alice", "2", "<b>Bob</b>", "true"]
    for value, shown in ((3, "3"), ("three", '"three"'), (None, "null"), (False, "false")):
        markup = to_html(result([], structuredContent=value)) or ""
        safe(markup)
        assert "Structured content" in markup and f"<code>{html.escape(shown)}</code>" in markup
    nested = to_html(result([], structuredContent=[[1, 2], {"a": {"b": 1}}])) or ""
    safe(nested)
    assert "<details open>" in nested
    assert "Structured content" not in (to_html(result([{"type": "text", "text": "x"}])) or "")


def test_an_error_result_is_marked() -> None:
    markup = to_html(result([{"type": "text", "text": "no such repo"}], isError=True)) or ""
    text = safe(markup).all_text
    assert text.startswith("Error") and "no such repo" in text
    assert "border:2px solid #c62828" in markup.split(">", 1)[0]


def test_long_texts_are_cut_with_a_note() -> None:
    text = safe(to_html(result([{"type": "text", "text": "y" * 25_000}]))).all_text
    assert text.count("y") == safe_html.TEXT_LIMIT and "15000 more characters not shown" in text


def test_media_show_inline_only_for_allowed_types_whose_bytes_match() -> None:
    cases = [
        ("image/svg+xml", SVG),  # SVG can carry script
        ("image/png", SVG),  # a type from the list, but not what the bytes are
        ('image/png"><script>alert(1)</script>', png()),
        ("text/html", b"<script>alert(1)</script>"),
        ("audio/wav", b"not a wav"),
    ]
    for mime, data in cases:
        kind = "audio" if mime.startswith("audio") else "image"
        view = safe(to_html(result([{"type": kind, "data": b64(data), "mimeType": mime}])))
        assert not [tag for tag, _ in view.tags if tag in ("img", "audio")], mime
        assert mime in view.all_text and f"{len(data)} bytes" in view.all_text
    broken = safe(to_html(result([{"type": "image", "data": "%%%", "mimeType": "image/png"}])))
    assert "not valid base64" in broken.all_text
    # A JPEG labelled PNG is shown, as what it is.
    jpeg = b"\xff\xd8\xff\xe0" + bytes(20)
    view = safe(to_html(result([{"type": "image", "data": b64(jpeg), "mimeType": "image/png"}])))
    assert [a["src"][:23] for t, a in view.tags if t == "img" and a["src"]] == ["data:image/jpeg;base64,"]


@pytest.mark.parametrize(
    "uri, linked",
    [
        ("https://example.com/x", True),
        ("HTTP://example.com/x", True),
        ("javascript:alert(1)", False),
        ("JaVaScRiPt:alert(1)", False),
        (" javascript:alert(1)", False),
        ("java\tscript:alert(1)", False),
        ("https://example.com/\njavascript:alert(1)", False),
        ('https://example.com/" onmouseover="alert(1)', False),
        ("data:text/html,<script>alert(1)</script>", False),
        ("file:///etc/passwd", False),
    ],
)
def test_links_only_for_http_and_https(uri: str, linked: bool) -> None:
    view = safe(to_html(result([{"type": "resource_link", "uri": uri, "name": "r"}])))
    assert [a["href"] for t, a in view.tags if t == "a"] == ([uri] if linked else [])
    assert uri in view.all_text


# -- resources and prompts -------------------------------------------------------------------


def test_resources_templates_and_contents() -> None:
    resources = list(
        [
            Resource.from_dict({"uri": "text://greeting", "name": "greeting", "mimeType": "text/plain"}),
            Resource.from_dict({"uri": "https://example.com/doc", "name": "doc", "description": "The doc."}),
        ]
    )
    view = safe(to_html(resources))
    assert all(p in view.all_text for p in ("Resources", "greeting", "text://greeting", "text/plain", "The doc."))
    assert [a["href"] for t, a in view.tags if t == "a"] == ["https://example.com/doc"]
    single = safe(to_html(resources[0])).all_text
    assert "greeting" in single and "text://greeting" in single

    templates = list([ResourceTemplate.from_dict({"uriTemplate": "echo://{text}", "name": "echo"})])
    assert "echo://{text}" in safe(to_html(templates)).all_text
    assert "echo://{text}" in safe(to_html(templates[0])).all_text

    read = ReadResourceResult.from_dict(
        {
            "contents": [
                {"uri": "text://greeting", "mimeType": "text/plain", "text": "Hello <there>"},
                {"uri": "binary://pixel", "mimeType": "image/png", "blob": b64(png())},
                {"uri": "binary://blob", "mimeType": "application/octet-stream", "blob": b64(bytes(70))},
            ]
        }
    )
    view = safe(to_html(read))
    assert "Hello <there>" in view.all_text and "application/octet-stream, 70 bytes" in view.all_text
    assert len([t for t, _ in view.tags if t == "img"]) == 1


def test_managed_prompt_and_resource_lists_name_their_servers() -> None:
    prompt = Prompt.from_dict({"name": "greet", "arguments": [{"name": "who", "required": True}]})
    resource = Resource.from_dict({"uri": "text://a", "name": "a"})
    prompts = safe(to_html(list([ManagedPrompt("srv__greet", "srv", prompt)]))).all_text
    assert "srv__greet" in prompts and "srv" in prompts and "who" in prompts
    resources = safe(to_html(list([ManagedResource("srv", resource)]))).all_text
    assert "srv" in resources and "text://a" in resources


def test_prompts_and_prompt_results() -> None:
    prompt = Prompt.from_dict(
        {
            "name": "greet",
            "title": "Greet someone",
            "description": "Ask for a greeting.",
            "arguments": [{"name": "name", "description": "Who to greet", "required": True}, {"name": "style"}],
        }
    )
    text = safe(to_html(list([prompt]))).all_text
    assert all(p in text for p in ("greet", "Greet someone", "Ask for a greeting.", "name", "style"))
    text = safe(to_html(prompt)).all_text
    assert "Who to greet" in text and "yes" in text
    got = GetPromptResult.from_dict(
        {
            "description": "A greeting request",
            "messages": [
                {"role": "user", "content": {"type": "text", "text": "Greet Ada."}},
                {"role": "assistant", "content": {"type": "image", "data": b64(png()), "mimeType": "image/png"}},
            ],
        }
    )
    view = safe(to_html(got))
    assert "A greeting request" in view.all_text and "2 messages" in view.all_text
    assert view.all_text.index("user") < view.all_text.index("Greet Ada.") < view.all_text.index("assistant")
    assert len([t for t, _ in view.tags if t == "img"]) == 1
    assert "user" in safe(to_html(got.messages[0])).all_text


# -- the manager -----------------------------------------------------------------------------


def test_the_status_table_colours_states_and_shows_the_first_line_of_errors() -> None:
    statuses = [
        status(tools=12, server_info=ServerInfo("github-mcp", "1.2")),
        status(name="slow", state=ServerState.CONNECTING, tools=3, tools_from_cache=True),
        status(
            name="bad",
            state=ServerState.FAILED,
            error="exited with code 4\nTraceback...",
            attempts=2,
            retry_in=29.6,
            stderr_tail=("starting", "no token set"),
        ),
    ]
    markup = status_html(statuses)
    view = safe(markup)
    text = view.all_text
    for piece in ("github", "connected", "github-mcp 1.2", "12", "(cached)", "/p/.mcp.json", "exited with code 4"):
        assert piece in text
    assert "Traceback" not in text and "no token set" in text and "next attempt in 30s (2 failed)" in text
    assert "color:#2e7d32" in markup and "color:#ef6c00" in markup and "color:#c62828" in markup
    assert "exited with code 4" in safe(to_html(statuses[2])).all_text
    assert "slow" in safe(to_html(list(statuses))).all_text


def test_the_status_dict_shows_as_the_status_table_and_other_dicts_have_no_view() -> None:
    """Issue 37, point 9: ``manager.status()`` is a dict: in a notebook it was a plain dict; now the
    table (a lazy server's ``not_idle`` under its state, escaped); any other dict keeps its repr."""
    statuses = {
        "a<b>": status(name="a<b>", state=ServerState.CONNECTED, not_idle="started at once: <no> tool list cached"),
        "idle": status(name="idle", state=ServerState.IDLE),
    }
    markup = to_html(statuses)
    assert markup is not None and "<b>a&lt;b&gt;</b>" in markup
    text = safe(markup).all_text
    assert "MCP servers" in text and "idle" in text and "started at once: <no> tool list cached" in text
    assert to_html({"a": 1}) is None and to_html({}) is None


def test_a_manager_shows_its_status_table() -> None:
    config = {"mcpServers": {"off": {"command": "/nonexistent/server", "disabled": True}}}
    with mcpsync.Manager(config, tool_cache=False, startup_timeout=0) as manager:
        text = safe(to_html(manager)).all_text
        assert "off" in text and "disabled" in text
        assert manager.list_tools() == [] and isinstance(manager.list_tools(), list)


# -- hostile servers -------------------------------------------------------------------------

HOSTILE = [
    "<script>alert(1)</script>",
    '"><img src=x onerror=alert(1)>',
    "<a href=\"javascript:alert('x')\">click</a> javascript:alert(1)",
    "</pre></td></table><svg onload=alert(1)>",
    "<!-- alert(1) --><![CDATA[alert(1)]]>",
]


def hostile_values(evil: str) -> list[Any]:
    """Every kind of view, with ``evil`` in every field a server fills."""
    schema = {
        "type": "object",
        "properties": {
            evil: {"type": evil, "description": evil, "enum": [evil], "default": evil},
            "nested": {"type": "object", "properties": {evil: {"$ref": f"#/{evil}", "format": evil}}},
        },
        "required": [evil],
    }
    tool = Tool.from_dict(
        {
            "name": evil,
            "title": evil,
            "description": evil,
            "inputSchema": schema,
            "outputSchema": schema,
            "annotations": {evil: evil},
        }
    )
    call = result(
        [
            {"type": "text", "text": evil},
            {"type": "image", "data": b64(SVG), "mimeType": "image/svg+xml"},
            {"type": "image", "data": b64(png()), "mimeType": evil},
            {"type": "audio", "data": b64(WAV), "mimeType": evil},
            {
                "type": "resource_link",
                "uri": "javascript:alert(1)",
                "name": evil,
                "description": evil,
                "mimeType": evil,
            },
            {"type": "resource_link", "uri": evil, "name": evil, "title": evil},
            {"type": "resource", "resource": {"uri": evil, "mimeType": evil, "text": evil}},
            {"type": "resource", "resource": {"uri": evil, "mimeType": "image/svg+xml", "blob": b64(SVG)}},
            {"type": evil, evil: evil},
        ],
        structuredContent={evil: evil, "nested": {evil: [evil]}},
    )
    flat = result([], structuredContent={evil: evil}, isError=True)
    resource = Resource.from_dict(
        {"uri": "javascript:alert(1)", "name": evil, "title": evil, "description": evil, "mimeType": evil}
    )
    template = ResourceTemplate.from_dict({"uriTemplate": evil, "name": evil, "description": evil, "mimeType": evil})
    read = ReadResourceResult.from_dict(
        {"contents": [{"uri": evil, "mimeType": evil, "text": evil}, {"uri": evil, "mimeType": evil, "blob": b64(SVG)}]}
    )
    prompt = Prompt.from_dict(
        {"name": evil, "title": evil, "description": evil, "arguments": [{"name": evil, "description": evil}]}
    )
    got = GetPromptResult.from_dict(
        {"description": evil, "messages": [{"role": evil, "content": {"type": "text", "text": evil}}]}
    )
    server = status(
        name=evil, source=evil, transport=evil, error=evil, stderr_tail=(evil,), server_info=ServerInfo(evil, evil)
    )
    managed = ManagedTool(evil, evil, tool, deferred=True)
    return [
        tool,
        list([tool]),
        call,
        flat,
        resource,
        list([resource]),
        template,
        list([template]),
        read,
        prompt,
        list([prompt]),
        got,
        server,
        list([server]),
        managed,
        list([managed]),
        list([ManagedPrompt(evil, evil, prompt)]),
        list([ManagedResource(evil, resource)]),
        *call.content,
    ]


@pytest.mark.parametrize("evil", HOSTILE)
def test_a_hostile_server_cannot_inject_markup(evil: str) -> None:
    """What a server sends shows as text in every view, and never becomes a tag, attribute or URL."""
    for value in hostile_values(evil):
        view = safe(to_html(value))
        assert evil in view.all_text or type(value).__name__ in ("ImageContent", "AudioContent"), value


def test_a_hostile_client_view_is_escaped_too() -> None:
    client = mcpsync.Client(mcpsync.create_transport(server_config(name="<script>alert(1)</script>")))
    try:
        client.server_info = ServerInfo(HOSTILE[1], HOSTILE[0], title=HOSTILE[2])
        client.instructions = HOSTILE[3]
        view = safe(to_html(client))
        assert all(evil in view.all_text for evil in HOSTILE[:4])
    finally:
        client.close()


# -- clients ---------------------------------------------------------------------------------


def test_a_client_before_connecting_and_over_http_hides_credentials() -> None:
    url = "https://user:secret@example.com:8443/mcp?token=s3cret#frag"
    client = mcpsync.Client(mcpsync.create_transport(mcpsync.HTTPServerConfig(url=url, name="remote")))
    try:
        text = safe(to_html(client)).all_text
        assert "remote" in text and "https://example.com:8443/mcp?..." in text and "unopened" in text
        assert "secret" not in text and "s3cret" not in text and "not connected yet" in text
        assert repr(client) == "<mcpsync.Client 'remote' server='?' protocol=None http unopened>"
    finally:
        client.close()


def test_real_results_of_the_bundled_server() -> None:
    """The client, a tool list, a call, and the PNG of ``binary://pixel`` rendered from a live server."""
    with mcpsync.connect(server_command(), name="demo", timeout=20) as client:
        tools = list(client.list_tools())
        text = safe(to_html(client)).all_text
        assert "mcpsync-test-server" in text and "mcpsync test server" in text and client.protocol_version in text
        assert "stdio" in text and "-m mcpsync.testing" in text and "open" in text and f"{len(tools)} tools" in text
        assert "demo" in repr(client) and "mcpsync-test-server" in repr(client)
        assert "echo" in safe(to_html(tools)).all_text
        added = safe(to_html(client.call_tool("add", {"a": 1, "b": 2})))
        assert "sum" in added.all_text and "3" in added.all_text
        pixel = safe(to_html(client.read_resource("binary://pixel")))
        images = [a["src"] for t, a in pixel.tags if t == "img"]
        assert len(images) == 1 and base64.b64decode((images[0] or "").split(",")[1]).startswith(b"\x89PNG")
