"""The skills extension (``io.modelcontextprotocol/skills``) against a server that lies.

The test server (``mcpsync.testing.skills``) offers three skills and, on
command (``--skill-lie`` or its ``skill_lie`` tool), lies about one of them;
its ``resources_read`` tool says which files were read. Each promise of
``mcpsync._session.skills`` is checked: listing reads nothing, loading reads
SKILL.md only, a file that is not what the entry says is never used, an
invalid entry or one over the limits is never read, and a dynamic skill
loads only when asked to. Over stdio and both HTTP modes, in both eras.
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import re
from typing import Any

import pytest
import requests

import mcpsync
from mcpsync import ExtensionNotDeclared, LoadedSkill, ServerError, Skill, SkillVerificationError
from mcpsync._session import skills as skills_module
from mcpsync._session.skill_frontmatter import parse_frontmatter
from mcpsync.testing import server_command
from mcpsync.testing.skills import GREETER, LIVE_NOTES, REFUNDS, REFUNDS_POLICY, REFUNDS_TABLE
from tests.http_server import KINDS, server_target as serving

pytestmark = pytest.mark.usefixtures("server_in_thread")

T = 20
PROTOCOLS = ("modern", "legacy")
#: The lies that leave the refunds entry valid, but SKILL.md not what it says.
FILE_LIES = {
    "digest": "digest",
    "size": "size",
    "frontmatter": "frontmatter differs",
    "file_changed": "digest",  # the same size, other bytes
}
#: The lies that make the refunds entry invalid: the rule the warning and the error name.
ENTRY_LIES = {
    "name": "is not the last segment",
    "resources_missing": "has no resources",
    "skill_md_unlisted": "leave out its own SKILL.md",
    "too_many": "more than the 512",
    "too_big": "more than the 16777216",
}


def reads(client: mcpsync.Client) -> list[str]:
    """The URIs the server has read so far (its ``resources_read`` tool)."""
    result = client.call_tool("resources_read", timeout=T).structured_content
    assert result is not None
    return list(result["read"])


def lie(client: mcpsync.Client, kind: str, on: bool = True) -> None:
    client.call_tool("skill_lie", {"kind": kind, "on": on}, timeout=T).raise_for_error()


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_listing_gives_every_skill_of_every_page_and_reads_no_file(kind: str, protocol: str) -> None:
    """skills/list, paged one skill a page: the three skills, their files listed, nothing read."""
    with serving(kind, "--page-size", "1") as target, mcpsync.connect(target, protocol=protocol, timeout=T) as client:
        skills = client.list_skills(timeout=T)
        assert [skill.uri for skill in skills] == [GREETER, REFUNDS, LIVE_NOTES]
        greeter, refunds, live = skills
        assert (greeter.name, refunds.name, live.name) == ("greeter", "refunds", "live-notes")
        assert refunds.path == "acme/billing/refunds" and refunds.root == "skill://acme/billing/refunds/"
        assert [r.uri for r in refunds.resources or ()] == [REFUNDS, REFUNDS_POLICY, REFUNDS_TABLE]
        assert live.dynamic and live.resources is None and not refunds.dynamic
        assert all(skill.server == client.name and skill.problem is None for skill in skills)
        assert "refunds" in repr(refunds) and len(repr(refunds)) < 200
        assert client.get_skill(REFUNDS, timeout=T) == refunds
        assert reads(client) == []


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_loading_reads_skill_md_only_and_each_supporting_file_when_it_is_read(kind: str, protocol: str) -> None:
    """load_skill verifies SKILL.md; read() resolves against the root, reads a listed file, verifies it."""
    with serving(kind) as target, mcpsync.connect(target, protocol=protocol, timeout=T) as client:
        (refunds,) = [skill for skill in client.list_skills(timeout=T) if skill.name == "refunds"]
        loaded = client.load_skill(refunds, timeout=T)
        assert isinstance(loaded, LoadedSkill)
        assert loaded.text.startswith("# Refunds") and loaded.frontmatter == refunds.frontmatter
        assert loaded.frontmatter["metadata"] == {"team": "billing", "version": "2.1"}
        assert reads(client) == [REFUNDS]
        policy = loaded.read_text("references/policy.md", timeout=T)
        assert "Über 30 Tage" in policy
        assert loaded.read("./data/../data/rates.bin", timeout=T) == bytes(range(256)) * 4  # a blob, decoded
        assert reads(client) == [REFUNDS, REFUNDS_POLICY, REFUNDS_TABLE]
        with pytest.raises(SkillVerificationError) as info:
            loaded.read("references/secret.md", timeout=T)
        assert "does not list" in str(info.value) and info.value.file_uri.endswith("references/secret.md")
        for escape in ("../other/SKILL.md", "/etc/passwd", "", "skill://greeter/SKILL.md"):
            with pytest.raises(ValueError):
                loaded.read(escape, timeout=T)
        assert reads(client) == [REFUNDS, REFUNDS_POLICY, REFUNDS_TABLE]  # nothing unlisted was asked for


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_skill_at_the_root_loads_by_its_uri_with_its_fields_verbatim(protocol: str) -> None:
    """load_skill(uri) asks skills/get; YAML's dates stay the text the listing has ('2026-01-15')."""
    with mcpsync.connect(server_command(), protocol=protocol, timeout=T) as client:
        loaded = client.load_skill(GREETER, timeout=T)
        assert loaded.frontmatter["updated"] == "2026-01-15"
        assert loaded.frontmatter["metadata"]["tags"] == ["greeting", "demo"]
        assert loaded.name == "greeter" and "Say hello" in loaded.text
        assert reads(client) == [GREETER]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_skill_md_that_is_not_what_its_entry_says_is_refused_and_nothing_else_is_read(
    kind: str, protocol: str
) -> None:
    """Wrong digest, wrong size, other frontmatter, a changed file: refused, naming the skill and the
    file, with what was expected and what came; no supporting file is read."""
    with serving(kind) as target, mcpsync.connect(target, protocol=protocol, timeout=T) as client:
        for kind_of_lie, said in FILE_LIES.items():
            lie(client, kind_of_lie)
            before = reads(client)
            (refunds,) = [skill for skill in client.list_skills(timeout=T, cache=False) if skill.name == "refunds"]
            with pytest.raises(SkillVerificationError) as info:
                client.load_skill(refunds, timeout=T)
            error = info.value
            assert said in str(error), (kind_of_lie, str(error))
            assert error.skill_uri == REFUNDS and error.file_uri == REFUNDS and REFUNDS in str(error)
            assert reads(client)[len(before) :] == [REFUNDS], kind_of_lie
            lie(client, kind_of_lie, on=False)
        lie(client, "digest")
        with pytest.raises(SkillVerificationError) as info:
            client.load_skill(REFUNDS, timeout=T)
        assert info.value.expected == "sha256:" + hashlib.sha256(b"another file").hexdigest()
        assert isinstance(info.value.got, str) and info.value.got.startswith("sha256:")
        lie(client, "digest", on=False)
        lie(client, "frontmatter")
        with pytest.raises(SkillVerificationError) as info:
            client.load_skill(REFUNDS, timeout=T)
        assert info.value.field == "description" and info.value.fields == ("description",)
        assert info.value.expected == "Refund anything anybody asks for."
        assert info.value.got == "Decide and issue refunds for ACME billing."


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_an_invalid_entry_is_left_out_of_the_listing_with_a_warning_and_never_read(
    kind: str, protocol: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Name not the last segment, resources missing, SKILL.md unlisted, over the limits: the others stay."""
    with serving(kind) as target, mcpsync.connect(target, protocol=protocol, timeout=T) as client:
        for kind_of_lie, rule in ENTRY_LIES.items():
            lie(client, kind_of_lie)
            caplog.clear()
            with caplog.at_level(logging.WARNING, logger="mcpsync.client"):
                listed = client.list_skills(timeout=T, cache=False)
            assert [skill.uri for skill in listed] == [GREETER, LIVE_NOTES], kind_of_lie
            warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
            assert any(REFUNDS in text and rule in text for text in warnings), (kind_of_lie, warnings)
            with pytest.raises(SkillVerificationError) as info:
                client.load_skill(REFUNDS, timeout=T)
            assert rule in str(info.value) and info.value.skill_uri == REFUNDS
            lie(client, kind_of_lie, on=False)
        assert reads(client) == []


@pytest.mark.parametrize("kind", KINDS)
def test_a_supporting_file_that_is_not_what_its_entry_says_is_not_returned(kind: str) -> None:
    """The skill loads; the policy file's digest is wrong: read() refuses it each time."""
    with serving(kind, "--skill-lie", "supporting_digest") as target:
        with mcpsync.connect(target, protocol="modern", timeout=T) as client:
            loaded = client.load_skill(REFUNDS, timeout=T)
            for _ in range(2):
                with pytest.raises(SkillVerificationError) as info:
                    loaded.read("references/policy.md", timeout=T)
                assert info.value.file_uri == REFUNDS_POLICY and info.value.expected == "sha256:" + "0" * 64
            assert loaded.read("data/rates.bin", timeout=T) == bytes(range(256)) * 4


@pytest.mark.parametrize("kind", KINDS)
def test_a_dynamic_skill_loads_only_when_the_caller_allows_it(kind: str) -> None:
    """resources: "dynamic": refused (nothing read) unless allow_dynamic=True; then its files as they come."""
    with serving(kind) as target, mcpsync.connect(target, protocol="modern", timeout=T) as client:
        with pytest.raises(SkillVerificationError) as info:
            client.load_skill(LIVE_NOTES, timeout=T)
        assert "allow_dynamic=True" in str(info.value)
        assert reads(client) == []
        loaded = client.load_skill(LIVE_NOTES, allow_dynamic=True, timeout=T)
        assert "Read number 1." in loaded.text
        assert "today.md" in loaded.read_text("today.md", timeout=T)
        assert reads(client) == [LIVE_NOTES, "skill://live-notes/today.md"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_server_without_the_extension_is_told_apart_and_an_unknown_skill_is_its_error(
    kind: str, protocol: str
) -> None:
    """--no-skills: list/get/load raise naming the extension; skills/get of an unknown URI is -32602."""
    with serving(kind, "--no-skills") as target, mcpsync.connect(target, protocol=protocol, timeout=T) as client:
        for call in (client.list_skills, lambda **kw: client.get_skill(GREETER, **kw)):
            with pytest.raises(ExtensionNotDeclared) as info:
                call(timeout=T)
            assert "io.modelcontextprotocol/skills" in str(info.value)
            assert info.value.extension == "io.modelcontextprotocol/skills"
    with mcpsync.connect(server_command(), protocol=protocol, timeout=T) as client:
        with pytest.raises(ServerError) as error:
            client.get_skill("skill://nobody/SKILL.md", timeout=T)
        assert error.value.code == -32602


def test_a_skill_loads_only_on_the_client_that_listed_it() -> None:
    """Identity is (server, uri): the same URI on another server is another skill."""
    with mcpsync.connect(server_command(), protocol="modern", timeout=T, name="one") as one:
        with mcpsync.connect(server_command(), protocol="modern", timeout=T, name="two") as two:
            (greeter,) = [skill for skill in one.list_skills(timeout=T) if skill.uri == GREETER]
            with pytest.raises(ValueError, match="'one'"):
                two.load_skill(greeter, timeout=T)
            assert two.load_skill(GREETER, timeout=T).skill.server == "two"


@pytest.mark.parametrize("kind", ["http-json"])
def test_the_listing_is_kept_while_its_ttl_says_it_is_fresh(kind: str) -> None:
    """--ttl-ms 60000: a second list_skills asks nobody; cache=False asks again."""
    with serving(kind, "--ttl-ms", "60000") as target, mcpsync.connect(target, protocol="modern", timeout=T) as c:
        first = c.list_skills(timeout=T)
        assert c.list_skills(timeout=T) == first
        c.list_skills(timeout=T, cache=False)
        seen = requests.post(target.replace("/mcp", "/control/seen"), timeout=T).json()
        assert seen.count("skills/list") == 2


# -- without a server: the entry's rules and the frontmatter --------------------------------


def entry(**changes: Any) -> dict[str, Any]:
    data = b"---\nname: x\ndescription: d\n---\nbody\n"
    resource = {"uri": "skill://a/x/SKILL.md", "digest": "sha256:" + hashlib.sha256(data).hexdigest(), "size": 36}
    base: dict[str, Any] = {
        "uri": "skill://a/x/SKILL.md",
        "frontmatter": {"name": "x", "description": "d"},
        "resources": [resource],
    }
    base.update(changes)
    return base


@pytest.mark.parametrize(
    ("changes", "rule"),
    [
        ({"uri": "file:///x/SKILL.md"}, "is not skill://"),
        ({"uri": "skill://a//x/SKILL.md"}, "empty"),
        ({"uri": "skill://a/../x/SKILL.md"}, "'..'"),
        ({"frontmatter": {"description": "d"}}, "no name"),
        ({"frontmatter": {"name": "x"}}, "no description"),
        ({"resources": "all of them"}, "neither 'dynamic'"),
        ({"resources": [{"uri": "skill://a/x/SKILL.md", "digest": "sha256:" + "A" * 64, "size": 1}]}, "lowercase"),
        ({"resources": [{"uri": "skill://a/x/SKILL.md", "digest": "md5:00", "size": 1}]}, "sha256:<64"),
        ({"resources": [{"uri": "skill://a/x/SKILL.md", "digest": "sha256:" + "0" * 64, "size": True}]}, "neither"),
        ({"resources": [{"uri": "skill://a/x/SKILL.md", "digest": "sha256:" + "0" * 64, "size": -1}]}, "negative"),
        ({"resources": [entry()["resources"][0]] * 2}, "twice"),
    ],
)
def test_an_entry_breaking_a_rule_says_which(changes: dict[str, Any], rule: str) -> None:
    skill = Skill.from_dict(entry(**changes))
    assert skill.problem is not None and rule in skill.problem, skill.problem
    assert Skill.from_dict(entry()).problem is None


def test_the_limits_are_checked_before_anything_is_read() -> None:
    """513 files, or 16 MiB and a byte: refused by load() before the reader is called."""
    many = [{"uri": f"skill://a/x/{n}", "digest": "sha256:" + "0" * 64, "size": 0} for n in range(512)]
    big = {"uri": "skill://a/x/big", "digest": "sha256:" + "0" * 64, "size": 16 * 1024 * 1024}
    never: list[str] = []

    def reader(uri: str, timeout: Any) -> Any:
        never.append(uri)
        raise AssertionError("nothing may be read")

    for resources in ([*entry()["resources"], *many], [*entry()["resources"], big]):
        skill = Skill.from_dict(entry(resources=resources))
        with pytest.raises(SkillVerificationError, match="more than"):
            skills_module.load(skill, reader, allow_dynamic=False, timeout=None)
    assert never == []


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("# no frontmatter\n", "no YAML frontmatter"),
        ("---\nname: x\nbody without an end\n", "does not end"),
        ("---\n- a\n- b\n---\n", "not a mapping"),
        ("---\njust text\n---\n", "not a mapping"),
        ("---\nname: [unclosed\n---\n", "not valid YAML"),
        ("---\nname: !!python/object:os.system x\n---\n", "not valid YAML"),
        ("---\n" + "a: " + "[" * 200 + "]" * 200 + "\n---\n", "nests"),
        ("---\n" + "x: " + "y" * (300 * 1024) + "\n---\n", "over 262144 bytes"),
    ],
)
def test_frontmatter_that_cannot_be_used_is_refused_with_a_clear_error(text: str, said: str) -> None:
    with pytest.raises(SkillVerificationError, match=said):
        parse_frontmatter(text, "skill://a/x/SKILL.md", "skill://a/x/SKILL.md")


def test_a_billion_laughs_in_the_frontmatter_is_stopped_at_the_value_bound() -> None:
    """Aliases are counted each time they are used: nine levels of ten is far over the bound."""
    lines = ["---", 'a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for n in range(1, 9):
        lines.append(f"a{n}: &a{n} [" + ", ".join([f"*a{n - 1}"] * 10) + "]")
    lines.append("name: x\n---\nbody")
    with pytest.raises(SkillVerificationError, match="more than 10000 values"):
        parse_frontmatter("\n".join(lines))


def test_frontmatter_and_body_are_split_at_the_closing_line() -> None:
    frontmatter, body = parse_frontmatter("\ufeff---\r\nname: x\r\nwhen: 2026-01-15\r\n---\r\n# Body\r\n")
    assert frontmatter == {"name": "x", "when": "2026-01-15"}
    assert body.strip() == "# Body"


def test_a_read_of_several_contents_or_another_uri_is_refused() -> None:
    """The one content item of the file asked for, or a failure naming what came."""
    data = b"---\nname: x\ndescription: d\n---\nbody\n"
    skill = Skill.from_dict(entry())
    for contents in (
        [{"uri": skill.uri, "text": data.decode()}] * 2,
        [{"uri": "skill://a/y/SKILL.md", "text": data.decode()}],
    ):
        answer = mcpsync.ReadResourceResult.from_dict({"contents": contents})
        with pytest.raises(SkillVerificationError):
            skills_module.load(skill, lambda uri, timeout, answer=answer: answer, allow_dynamic=False, timeout=None)
    blob = [{"uri": skill.uri, "blob": base64.b64encode(data).decode()}]
    result = mcpsync.ReadResourceResult.from_dict({"contents": blob})
    loaded = skills_module.load(skill, lambda uri, timeout: result, allow_dynamic=False, timeout=None)
    assert loaded.text == "body\n" and json.dumps(loaded.frontmatter) == '{"name": "x", "description": "d"}'


def test_a_digest_with_a_final_newline_is_no_sha256_digest():
    """``$`` matched before a final newline: ``sha256:<hex>\\n`` passed the check; ``fullmatch`` refuses it."""
    from mcpsync._session.skills import SkillResource, _problem

    uri = "skill://a/SKILL.md"
    digest = "sha256:" + "0" * 64
    front = {"name": "a", "description": "d"}
    assert _problem(uri, front, [], (SkillResource(uri, digest, 1),)) is None
    assert "digest" in (_problem(uri, front, [], (SkillResource(uri, digest + "\n", 1),)) or "")


# -- directories (resources/directory/read, where the server declares directoryRead) -------------------


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_skills_directories_are_listed_and_checked_against_its_entry(kind: str, protocol: str) -> None:
    """The test server declares ``directoryRead``; paged one child a page. ``list_directory`` of the root and
    of ``references``: the files the entry lists (as ``read`` takes them) and the subdirectories; nothing is
    read by listing, and a listed file reads and verifies as any other. (The unfixed client had no way to.)"""
    with serving(kind, "--page-size", "1") as target, mcpsync.connect(target, protocol=protocol, timeout=T) as client:
        loaded = client.load_skill(REFUNDS, timeout=T)
        root = loaded.list_directory(timeout=T)
        assert root == skills_module.SkillDirectory(
            "skill://acme/billing/refunds", ("SKILL.md",), ("data", "references"), ()
        )
        references = loaded.list_directory("references", timeout=T)
        assert (references.uri, references.files, references.directories) == (
            "skill://acme/billing/refunds/references",
            ("references/policy.md",),
            (),
        )
        assert reads(client) == [REFUNDS]
        assert loaded.read_text(references.files[0], timeout=T).startswith("# Refund policy")
        names = [(r.name, r.mime_type) for r in client.read_directory("skill://acme/billing", timeout=T)]
        assert names == [("refunds", "inode/directory")]
        with pytest.raises(ServerError) as error:
            client.read_directory(REFUNDS, timeout=T)
        assert error.value.code == -32602
        with pytest.raises(ValueError):
            loaded.list_directory("../other", timeout=T)


def test_a_file_the_entry_does_not_list_is_stale_not_a_file_of_the_skill() -> None:
    """The server added ``references/new.md`` after the entry was listed: the directory read shows it, but it
    is not surfaced as a file of the skill (``stale``) and ``read`` refuses it unread (the extension's MUST)."""
    with mcpsync.connect(server_command("--skill-lie", "unlisted_file"), protocol="modern", timeout=T) as client:
        loaded = client.load_skill(REFUNDS, timeout=T)
        references = loaded.list_directory("references", timeout=T)
        assert references.files == ("references/policy.md",)
        assert references.stale == ("skill://acme/billing/refunds/references/new.md",)
        with pytest.raises(SkillVerificationError, match="does not list this file"):
            loaded.read("references/new.md", timeout=T)
        assert reads(client) == [REFUNDS]


def test_a_directory_read_that_lists_another_directorys_file_is_refused() -> None:
    """``directory_outsider``: ``references`` lists ``data/rates.bin``, which is not its child."""
    with mcpsync.connect(server_command("--skill-lie", "directory_outsider"), timeout=T) as client:
        loaded = client.load_skill(REFUNDS, timeout=T)
        with pytest.raises(SkillVerificationError, match="not a direct child") as info:
            loaded.list_directory("references", timeout=T)
        assert info.value.file_uri == REFUNDS_TABLE


def test_a_dynamic_skills_files_are_found_by_reading_its_directory() -> None:
    """A dynamic skill lists no files: its directory read is how they are found (still not verified)."""
    with mcpsync.connect(server_command(), timeout=T) as client:
        loaded = client.load_skill(LIVE_NOTES, allow_dynamic=True, timeout=T)
        assert loaded.list_directory(timeout=T).files == ("SKILL.md", "today.md")


def test_the_entry_limit_holds_before_the_next_page_is_asked_for() -> None:
    """Pages of 300 children: past ``MAX_RESOURCES`` (512) the listing stops, and no third page is asked for."""
    asked: list[int] = []

    def directory(uri: str, timeout: Any) -> Any:
        for page in range(10):
            asked.append(page)
            yield [{"uri": f"{uri}/{page}-{n}.md", "name": f"{page}-{n}.md"} for n in range(300)]

    skill = Skill.from_dict(entry())
    loaded = LoadedSkill(skill, {}, "", lambda uri, timeout: None, directory)  # type: ignore[arg-type,return-value]
    with pytest.raises(SkillVerificationError, match="more than the 512"):
        loaded.list_directory()
    assert asked == [0, 1]


def test_no_directory_read_is_sent_to_a_server_that_does_not_declare_directory_read() -> None:
    """The extension declared without ``directoryRead``: the extension forbids the call, so it is not sent."""
    sent: list[str] = []

    def request(method: str, params: Any, timeout: Any) -> Any:
        sent.append(method)
        return {"resources": []}

    extension = {"extensions": {"io.modelcontextprotocol/skills": {"directoryRead": False}}}
    skills = skills_module.Skills("s", lambda: extension, request, lambda u, t: None)  # type: ignore[arg-type,return-value]
    with pytest.raises(ExtensionNotDeclared, match="directoryRead"):
        list(skills.read_directory("skill://a/x", T))
    loaded = LoadedSkill(Skill.from_dict(entry()), {}, "", lambda uri, timeout: None)  # type: ignore[arg-type,return-value]
    with pytest.raises(ExtensionNotDeclared, match="directoryRead"):
        loaded.list_directory()
    assert sent == []


# -- what the flows above do not look at: exact values, bounds, timeouts (found by mutation testing) -----


def _file(uri: str, data: bytes) -> dict[str, Any]:
    return {"uri": uri, "digest": "sha256:" + hashlib.sha256(data).hexdigest(), "size": len(data)}


def _answer(uri: str, data: bytes) -> mcpsync.ReadResourceResult:
    return mcpsync.ReadResourceResult.from_dict({"contents": [{"uri": uri, "text": data.decode()}]})


class Reads:
    """A reader that serves ``files`` (uri -> bytes) and records each read with its timeout."""

    def __init__(self, files: dict[str, bytes]) -> None:
        self.files = files
        self.calls: list[tuple[str, Any]] = []

    def __call__(self, uri: str, timeout: Any) -> mcpsync.ReadResourceResult:
        self.calls.append((uri, timeout))
        return _answer(uri, self.files[uri])


def test_a_read_passes_its_timeout_on_and_the_default_means_the_servers():
    """``read``, ``read_text`` and a dynamic skill's ``read`` give the reader the caller's timeout,
    or ``USE_DEFAULT`` when none is passed (the server's), never another."""
    notes = b"notes\n"
    skill = Skill.from_dict(entry(resources=[*entry()["resources"], _file("skill://a/x/notes.md", notes)]))
    reads_ = Reads({"skill://a/x/notes.md": notes})
    loaded = LoadedSkill(skill, {}, "", reads_)
    assert loaded.read("notes.md", timeout=3.5) == notes
    assert loaded.read_text("notes.md", timeout=None) == "notes\n"
    assert loaded.read_text("notes.md") == "notes\n"
    dynamic = LoadedSkill(Skill.from_dict(entry(resources="dynamic")), {}, "", reads_)
    assert dynamic.read("notes.md", timeout=7) == notes
    assert reads_.calls == [
        ("skill://a/x/notes.md", 3.5),
        ("skill://a/x/notes.md", None),
        ("skill://a/x/notes.md", mcpsync.USE_DEFAULT),
        ("skill://a/x/notes.md", 7),
    ]


def test_a_refused_read_names_the_skill_and_the_file():
    """A file the entry does not list (not read), and a dynamic skill's read of several contents:
    ``SkillVerificationError`` with the skill's URI and the file's."""
    skill = Skill.from_dict(entry())
    with pytest.raises(SkillVerificationError) as raised:
        LoadedSkill(skill, {}, "", Reads({})).read("other.md")
    assert (raised.value.skill_uri, raised.value.file_uri) == (skill.uri, "skill://a/x/other.md")
    assert raised.value.reason == "the skill does not list this file; it was not read"
    dynamic = Skill.from_dict(entry(resources="dynamic"))
    two = mcpsync.ReadResourceResult.from_dict({"contents": [{"uri": "skill://a/x/n", "text": "a"}] * 2})
    with pytest.raises(SkillVerificationError) as raised:
        LoadedSkill(dynamic, {}, "", lambda uri, timeout: two).read("n")
    assert (raised.value.skill_uri, raised.value.file_uri) == (dynamic.uri, "skill://a/x/n")
    assert (raised.value.expected, raised.value.got) == (1, 2)


@pytest.mark.parametrize(
    ("path", "said"),
    [
        ("", "relative to the skill's root"),
        ("/etc/passwd", "relative to the skill's root"),
        (5, "relative to the skill's root"),
        ("..\\..\\secrets", "'/' between its segments"),
        ("a\\b", "'/' between its segments"),
        ("skill://other/SKILL.md", "no scheme"),
        ("..", "is not inside the skill"),
        ("../y/SKILL.md", "is not inside the skill"),
        ("a/../../y", "is not inside the skill"),
        (".", "is not inside the skill"),
    ],
)
def test_a_file_path_outside_the_skill_or_not_relative_is_refused_before_any_read(path, said):
    """Empty, absolute, not a string, with a backslash or a scheme, or leaving the root: ``ValueError``
    quoting the path, and the reader is never called."""
    reads_ = Reads({})
    with pytest.raises(ValueError, match=re.escape(said)) as raised:
        LoadedSkill(Skill.from_dict(entry()), {}, "", reads_).read(path)
    assert repr(path) in str(raised.value)
    assert reads_.calls == []


def _directory(*pages: list[dict[str, Any]], seen: list[Any]) -> Any:
    def read(uri: str, timeout: Any) -> Any:
        seen.append((uri, timeout))
        yield from pages

    return read


def _child(uri: str, **fields: Any) -> dict[str, Any]:
    return {"uri": uri, "name": uri.rsplit("/", 1)[-1], **fields}


def test_the_root_is_listed_as_empty_dot_or_dot_slash_and_a_directory_without_its_trailing_slash():
    """``list_directory("")``, ``"."`` and ``"./"`` list the skill's root; ``"refs/"`` and ``"refX"``
    the directory of that name (its URI has no trailing slash, and a name ending in ``X`` keeps it);
    the caller's timeout goes to the directory read."""
    seen: list[Any] = []
    loaded = LoadedSkill(Skill.from_dict(entry()), {}, "", Reads({}), _directory([], seen=seen))
    for path in ("", ".", "./"):
        assert loaded.list_directory(path, timeout=4) == skills_module.SkillDirectory("skill://a/x", (), ())
    assert loaded.list_directory("refs/").uri == "skill://a/x/refs"
    assert loaded.list_directory("refX").uri == "skill://a/x/refX"
    assert seen == [("skill://a/x", 4)] * 3 + [
        ("skill://a/x/refs", mcpsync.USE_DEFAULT),
        ("skill://a/x/refX", mcpsync.USE_DEFAULT),
    ]


def test_a_directory_of_exactly_the_limit_is_listed_and_one_more_entry_is_refused():
    """``MAX_RESOURCES`` children are a listing; one more is refused, naming the skill and the directory."""
    seen: list[Any] = []
    limit = skills_module.MAX_RESOURCES
    full = [_child(f"skill://a/x/{n}.md") for n in range(limit)]
    loaded = LoadedSkill(Skill.from_dict(entry(resources="dynamic")), {}, "", Reads({}), _directory(full, seen=seen))
    assert len(loaded.list_directory().files) == limit
    over = LoadedSkill(
        Skill.from_dict(entry()), {}, "", Reads({}), _directory(full, [_child("skill://a/x/last.md")], seen=seen)
    )
    with pytest.raises(SkillVerificationError) as raised:
        over.list_directory()
    assert (raised.value.skill_uri, raised.value.file_uri) == ("skill://a/x/SKILL.md", "skill://a/x")
    assert f"more than the {limit} files" in raised.value.reason


@pytest.mark.parametrize(
    "uri", ["skill://a/x/refs/deeper/f.md", "skill://a/x/refs/.", "skill://a/x/refs/..", "skill://a/x/refs/"]
)
def test_a_directory_entry_that_is_not_a_direct_child_is_refused(uri):
    """A grandchild, ``.``, ``..`` or the directory itself listed as its own child: refused, with
    what was expected (``<dir>/<name>``) and what came."""
    seen: list[Any] = []
    loaded = LoadedSkill(Skill.from_dict(entry()), {}, "", Reads({}), _directory([_child(uri)], seen=seen))
    with pytest.raises(SkillVerificationError, match="not a direct child") as raised:
        loaded.list_directory("refs")
    error = raised.value
    assert (error.skill_uri, error.file_uri) == ("skill://a/x/SKILL.md", uri)
    assert (error.expected, error.got) == ("skill://a/x/refs/<name>", uri)


def test_a_malformed_directory_entry_says_which_item_of_which_directory():
    """An entry that is not a resource: ``ProtocolError`` naming the directory and the item's index."""
    seen: list[Any] = []
    pages = [[_child("skill://a/x/SKILL.md")], [{"name": "no uri"}]]
    loaded = LoadedSkill(Skill.from_dict(entry()), {}, "", Reads({}), _directory(*pages, seen=seen))
    with pytest.raises(mcpsync.ProtocolError, match=re.escape("resources/directory/read 'skill://a/x' item #1")):
        loaded.list_directory()


def test_a_listed_file_of_another_size_is_stale_and_one_without_a_size_is_the_skills():
    """The directory read gives a listed file's size: another size than the entry's makes it stale; no
    size at all keeps it a file of the skill (the entry's size is checked when it is read)."""
    seen: list[Any] = []
    notes = _file("skill://a/x/notes.md", b"notes\n")
    skill = Skill.from_dict(entry(resources=[*entry()["resources"], notes]))
    page = [_child("skill://a/x/SKILL.md", size=36), _child("skill://a/x/notes.md", size=99)]
    loaded = LoadedSkill(skill, {}, "", Reads({}), _directory(page, seen=seen))
    assert loaded.list_directory() == skills_module.SkillDirectory(
        "skill://a/x", ("SKILL.md",), (), ("skill://a/x/notes.md",)
    )
    page = [_child("skill://a/x/SKILL.md"), _child("skill://a/x/notes.md")]
    loaded = LoadedSkill(skill, {}, "", Reads({}), _directory(page, seen=seen))
    assert loaded.list_directory().files == ("SKILL.md", "notes.md")


def test_without_directory_read_the_error_names_the_extension():
    """``list_directory`` and ``read_directory`` without ``directoryRead``: ``ExtensionNotDeclared``
    whose ``extension`` is the skills extension."""
    loaded = LoadedSkill(Skill.from_dict(entry()), {}, "", Reads({}))
    with pytest.raises(ExtensionNotDeclared) as raised:
        loaded.list_directory()
    assert raised.value.extension == skills_module.SKILLS_EXTENSION
    extension = {"extensions": {skills_module.SKILLS_EXTENSION: {}}}
    skills = skills_module.Skills("s", lambda: extension, lambda m, p, t: {}, Reads({}))
    with pytest.raises(ExtensionNotDeclared) as raised:
        list(skills.read_directory("skill://a/x", None))
    assert raised.value.extension == skills_module.SKILLS_EXTENSION


class Directories:
    """``request`` of a server declaring ``directoryRead``: ``pages`` pages of one child each (a cursor
    on every page but the last, ``None`` pages: endless), recording each request's params and timeout."""

    def __init__(self, pages: Any) -> None:
        self.pages = pages
        self.sent: list[tuple[str, dict[str, Any], Any]] = []

    def __call__(self, method: str, params: dict[str, Any], timeout: Any) -> dict[str, Any]:
        self.sent.append((method, params, timeout))
        n = len(self.sent)
        result: dict[str, Any] = {"resources": [_child(f"{params['uri']}/{n}.md")]}
        if self.pages is None or n < self.pages:
            result["nextCursor"] = f"c{n}"
        return result


def _skills(request: Any) -> skills_module.Skills:
    capabilities = {"extensions": {skills_module.SKILLS_EXTENSION: {"directoryRead": True}}}
    return skills_module.Skills("s", lambda: capabilities, request, Reads({}))


def test_read_directory_bounds_the_whole_listing_by_a_number_and_each_page_by_the_default():
    """A number of seconds bounds the whole listing: each page is asked for with what is left of it (a
    float under it). ``USE_DEFAULT`` (the server's timeout) and ``None`` (no limit) go to each page as
    they are. Every page asks for the same ``uri``, the next with the cursor."""
    for timeout in (30, mcpsync.USE_DEFAULT, None):
        request = Directories(2)
        items = list(_skills(request).read_directory("skill://a/x", timeout))
        assert items == [[_child("skill://a/x/1.md")], [_child("skill://a/x/2.md")]]
        assert [(method, params) for method, params, _ in request.sent] == [
            ("resources/directory/read", {"uri": "skill://a/x"}),
            ("resources/directory/read", {"cursor": "c1", "uri": "skill://a/x"}),
        ]
        given = [each for _, _, each in request.sent]
        if timeout == 30:
            assert all(type(each) is float and 0 < each < 30 for each in given), given
        else:
            assert given == [timeout, timeout]


def test_read_directory_stops_at_max_pages():
    """A server with a cursor on every page: ``max_pages`` pages are asked for, then ``PageLimitExceeded``."""
    request = Directories(None)
    with pytest.raises(mcpsync.PageLimitExceeded):
        list(_skills(request).read_directory("skill://a/x", None, max_pages=2))
    assert len(request.sent) == 2


def test_a_skill_and_a_loaded_skill_say_what_they_are():
    """The reprs a notebook shows: name, URI, file count or ``dynamic``, ``INVALID`` with the rule (cut
    at 60 characters), the description's first line; a loaded skill's first line of text."""
    assert repr(Skill.from_dict(entry())) == "<Skill 'x' skill://a/x/SKILL.md 1 files: d>"
    dynamic = Skill.from_dict(entry(resources="dynamic", frontmatter={"name": "x", "description": "one\ntwo"}))
    assert repr(dynamic) == "<Skill 'x' skill://a/x/SKILL.md dynamic: one>"
    broken = Skill.from_dict(entry(frontmatter={"name": "yyyy", "description": ""}))
    assert broken.problem is not None and len(broken.problem) > 60
    assert repr(broken) == f"<Skill 'yyyy' skill://a/x/SKILL.md 1 files INVALID ({broken.problem[:57]}...)>"
    loaded = LoadedSkill(dynamic, {}, "\n# Title\nbody", Reads({}))
    assert repr(loaded) == "<LoadedSkill 'x' skill://a/x/SKILL.md dynamic: '# Title'>"
    static = LoadedSkill(Skill.from_dict(entry()), {}, "x" * 100, Reads({}))
    assert repr(static) == f"<LoadedSkill 'x' skill://a/x/SKILL.md: '{'x' * 57}...'>"


SKILL_MD = b"---\nname: x\ndescription: d\n---\nbody\n"
DIGEST = "sha256:" + "0" * 64


def _res(uri: str = "skill://a/x/SKILL.md", digest: str = DIGEST, size: Any = 1) -> dict[str, Any]:
    return {"uri": uri, "digest": digest, "size": size}


@pytest.mark.parametrize(
    ("changes", "problem"),
    [
        ({"uri": "skill://a/x/README.md"}, "its uri 'skill://a/x/README.md' is not skill://<skill-path>/SKILL.md"),
        ({"uri": "skill://a/xSKILL.md"}, "its uri 'skill://a/xSKILL.md' is not skill://<skill-path>/SKILL.md"),
        (
            {"uri": "skill://a/./x/SKILL.md"},
            "its skill path in 'skill://a/./x/SKILL.md' has an empty, '.' or '..' segment",
        ),
        ({"uri": "skill:///SKILL.md"}, "its skill path in 'skill:///SKILL.md' has an empty, '.' or '..' segment"),
        ({"frontmatter": None}, "it has no frontmatter object"),
        ({"frontmatter": ["name", "x"]}, "it has no frontmatter object"),
        ({"frontmatter": {"name": "", "description": "d"}}, "its frontmatter has no name"),
        ({"frontmatter": {"name": 5, "description": "d"}}, "its frontmatter has no name"),
        ({"frontmatter": {"name": "x", "description": 5}}, "its frontmatter has no description"),
        (
            {"frontmatter": {"name": "a", "description": "d"}},
            "its name 'a' is not the last segment of its skill path 'a/x'",
        ),
        ({"resources": None}, "it has no resources (a complete list of its files, or 'dynamic')"),
        ({"resources": "static"}, "its resources are neither 'dynamic' nor a list of {uri, digest, size}"),
        (
            {"resources": [_res(), "skill://a/x/b"]},
            "its resources are neither 'dynamic' nor a list of {uri, digest, size}",
        ),
        ({"resources": [_res(uri=None)]}, "its resources are neither 'dynamic' nor a list of {uri, digest, size}"),
        ({"resources": [_res(digest=None)]}, "its resources are neither 'dynamic' nor a list of {uri, digest, size}"),
        ({"resources": [_res(size=1.0)]}, "its resources are neither 'dynamic' nor a list of {uri, digest, size}"),
        (
            {"resources": [_res(digest="sha256:" + "0" * 63)]},
            "the digest of 'skill://a/x/SKILL.md' is not sha256:<64 lowercase hex digits>: 'sha256:" + "0" * 63 + "'",
        ),
        (
            {"resources": [_res(digest="Sha256:" + "0" * 64)]},
            "the digest of 'skill://a/x/SKILL.md' is not sha256:<64 lowercase hex digits>: 'Sha256:" + "0" * 64 + "'",
        ),
        ({"resources": [_res(size=-1)]}, "the size of 'skill://a/x/SKILL.md' is negative"),
        ({"resources": [_res(), _res()]}, "it lists 'skill://a/x/SKILL.md' twice"),
        (
            {"resources": [_res(uri="skill://a/x/other.md")]},
            "its resources leave out its own SKILL.md (skill://a/x/SKILL.md)",
        ),
        ({"resources": []}, "its resources leave out its own SKILL.md (skill://a/x/SKILL.md)"),
    ],
)
def test_each_rule_of_an_entry_is_said_exactly(changes: dict[str, Any], problem: str) -> None:
    """The first rule an entry breaks, in the words ``Skill.problem`` (and the listing's warning) gives."""
    assert Skill.from_dict(entry(**changes)).problem == problem


def test_an_entry_at_its_limits_is_valid_and_one_past_them_is_not():
    """Exactly ``MAX_RESOURCES`` files and exactly ``MAX_TOTAL_SIZE`` bytes: valid; a file or a byte
    more: the problem says how many and the limit. A size of 0 is a size."""
    skill_md = _res(size=0)
    many = [skill_md, *(_res(uri=f"skill://a/x/{n}", size=0) for n in range(skills_module.MAX_RESOURCES - 1))]
    assert Skill.from_dict(entry(resources=many)).problem is None
    more = [*many, _res(uri="skill://a/x/last", size=0)]
    assert Skill.from_dict(entry(resources=more)).problem == "it lists 513 files, more than the 512 a skill may have"
    full = [skill_md, _res(uri="skill://a/x/big", size=skills_module.MAX_TOTAL_SIZE)]
    assert Skill.from_dict(entry(resources=full)).problem is None
    over = [_res(size=1), _res(uri="skill://a/x/big", size=skills_module.MAX_TOTAL_SIZE)]
    assert Skill.from_dict(entry(resources=over)).problem == (
        "its files hold 16777217 bytes, more than the 16777216 a skill may have"
    )


def test_an_entry_is_read_into_its_fields():
    """``from_dict``: the URI, name and description from the frontmatter (a copy of all of it), the
    files in order, the server, and what the entry's root, path, size and files are."""
    notes = _res(uri="skill://a/x/notes.md", size=5)
    data = entry(resources=[_res(size=36), notes], frontmatter={"name": "x", "description": "d", "v": 2})
    skill = Skill.from_dict(data, "srv")
    assert skill == Skill(
        "skill://a/x/SKILL.md",
        "x",
        "d",
        {"name": "x", "description": "d", "v": 2},
        (
            skills_module.SkillResource("skill://a/x/SKILL.md", DIGEST, 36),
            skills_module.SkillResource("skill://a/x/notes.md", DIGEST, 5),
        ),
        "srv",
        None,
    )
    assert skill.raw is data and skill.frontmatter is not data["frontmatter"]
    assert (skill.root, skill.path, skill.size, skill.dynamic) == ("skill://a/x/", "a/x", 41, False)
    assert skill.resource("skill://a/x/notes.md") == skills_module.SkillResource("skill://a/x/notes.md", DIGEST, 5)
    assert skill.resource("skill://a/x/other.md") is None
    dynamic = Skill.from_dict(entry(resources="dynamic"))
    assert (dynamic.dynamic, dynamic.resources, dynamic.size, dynamic.problem) == (True, None, None, None)
    assert dynamic.resource("skill://a/x/SKILL.md") is None
    bare = Skill.from_dict({"uri": "skill://a/x/SKILL.md", "frontmatter": {"name": 1, "description": 2}})
    assert (bare.name, bare.description, bare.frontmatter, bare.server) == ("", None, {"name": 1, "description": 2}, "")
    odd = Skill.from_dict({"uri": "other://x"})
    assert (odd.root, odd.path, odd.frontmatter, odd.dynamic) == ("other://x", "other://x", {}, False)


@pytest.mark.parametrize(
    ("data", "said"), [(["x"], "expected an object, got ['x']"), ({"uri": 5}, "'uri' must be a string, got 5")]
)
def test_an_entry_that_is_no_skill_at_all_is_a_protocol_error_saying_where(data, said):
    """Not an object, or no string ``uri``: ``ProtocolError`` with the place the caller named."""
    with pytest.raises(mcpsync.ProtocolError) as raised:
        Skill.from_dict(data, "s", "skills/list item #3")
    assert str(raised.value) == f"skills/list item #3: {said}"


@pytest.mark.parametrize(
    ("capabilities", "declared"),
    [
        ({"extensions": {skills_module.SKILLS_EXTENSION: {"directoryRead": True}}}, True),
        ({"extensions": {skills_module.SKILLS_EXTENSION: {"directoryRead": 1}}}, False),
        ({"extensions": {skills_module.SKILLS_EXTENSION: {}}}, False),
        ({"extensions": {skills_module.SKILLS_EXTENSION: True}}, False),
        ({"extensions": {"other": {"directoryRead": True}}}, False),
        ({"extensions": ["io.modelcontextprotocol/skills"]}, False),
        ({}, False),
    ],
)
def test_directory_read_is_declared_only_by_true_in_the_extensions_settings(capabilities, declared):
    """``directoryRead: true`` in the skills extension's settings object, nothing else."""
    assert skills_module.directory_read_declared(capabilities) is declared


def _load(data: bytes = SKILL_MD, *, changes: Any = None, allow_dynamic: bool = False, **answer: Any) -> LoadedSkill:
    skill = Skill.from_dict(entry(**(changes or {})))
    contents = answer.get("contents", [{"uri": skill.uri, "text": data.decode("utf-8", "replace")}])
    result = mcpsync.ReadResourceResult.from_dict({"contents": contents})
    return skills_module.load(skill, lambda uri, timeout: result, allow_dynamic=allow_dynamic, timeout=None)


def _load_refused(*args: Any, **kwargs: Any) -> SkillVerificationError:
    with pytest.raises(SkillVerificationError) as raised:
        _load(*args, **kwargs)
    return raised.value


def test_a_verified_skill_md_loads_with_its_frontmatter_and_body():
    """The SKILL.md the entry lists: its frontmatter, its body, the entry it was held against."""
    loaded = _load()
    assert (loaded.frontmatter, loaded.text, loaded.uri, loaded.name) == (
        {"name": "x", "description": "d"},
        "body\n",
        "skill://a/x/SKILL.md",
        "x",
    )


def test_a_skill_md_of_another_size_or_digest_is_refused_saying_what_was_expected_and_what_came():
    """Size first (the entry's and the byte length read), then the SHA-256 (the entry's and the file's)."""
    error = _load_refused(SKILL_MD + b"x")
    assert (error.reason, error.skill_uri, error.file_uri) == (
        "its size is not the one listed",
        "skill://a/x/SKILL.md",
        "skill://a/x/SKILL.md",
    )
    assert (error.expected, error.got) == (36, 37)
    other = SKILL_MD.replace(b"body", b"BODY")
    error = _load_refused(other)
    assert (error.reason, error.file_uri) == ("its digest is not the one listed", "skill://a/x/SKILL.md")
    assert error.expected == "sha256:" + hashlib.sha256(SKILL_MD).hexdigest()
    assert error.got == "sha256:" + hashlib.sha256(other).hexdigest()


def test_a_read_of_skill_md_that_is_not_its_one_content_is_refused_with_what_came():
    """Two items, none, another URI, or a blob that is not base64: refused, saying what came."""
    uri = "skill://a/x/SKILL.md"
    error = _load_refused(contents=[{"uri": uri, "text": "a"}, {"uri": uri, "text": "b"}])
    assert (error.reason, error.skill_uri, error.file_uri, error.expected, error.got) == (
        "the read gave not one content item",
        uri,
        uri,
        1,
        2,
    )
    assert (_load_refused(contents=[]).expected, _load_refused(contents=[]).got) == (1, 0)
    error = _load_refused(contents=[{"uri": "skill://a/y/SKILL.md", "text": "a"}])
    assert (error.reason, error.skill_uri, error.file_uri, error.expected, error.got) == (
        "the read answered for another URI",
        uri,
        uri,
        uri,
        "skill://a/y/SKILL.md",
    )
    error = _load_refused(contents=[{"uri": uri, "blob": "%%%"}])
    assert (error.skill_uri, error.file_uri) == (uri, uri) and "base64" in error.reason


def test_an_invalid_or_dynamic_entry_is_refused_before_any_read():
    """An entry breaking a rule: refused with the rule; a dynamic one without ``allow_dynamic``:
    refused, saying how to load it. Nothing is read for either."""
    read: list[str] = []

    def reader(uri: str, timeout: Any) -> Any:
        read.append(uri)
        return _answer(uri, SKILL_MD)

    invalid = Skill.from_dict(entry(resources=[]))
    with pytest.raises(SkillVerificationError) as raised:
        skills_module.load(invalid, reader, allow_dynamic=True, timeout=None)
    assert raised.value.reason == f"the skill entry is invalid: {invalid.problem}"
    assert raised.value.skill_uri == invalid.uri
    dynamic = Skill.from_dict(entry(resources="dynamic"))
    with pytest.raises(SkillVerificationError) as raised:
        skills_module.load(dynamic, reader, allow_dynamic=False, timeout=None)
    assert raised.value.reason == (
        "the skill is dynamic (its files cannot be verified); pass allow_dynamic=True to load it anyway"
    )
    assert raised.value.skill_uri == dynamic.uri
    assert read == []
    loaded = skills_module.load(dynamic, reader, allow_dynamic=True, timeout=2.5)
    assert loaded.text == "body\n" and read == [dynamic.uri]


def test_skill_md_is_read_with_the_callers_timeout_and_its_directory_reader_is_kept():
    """``load`` reads SKILL.md with the timeout given, and the loaded skill lists directories with
    the directory reader given (none: ``list_directory`` refuses)."""
    given: list[Any] = []

    def reader(uri: str, timeout: Any) -> Any:
        given.append(timeout)
        return _answer(uri, SKILL_MD)

    seen: list[Any] = []
    loaded = skills_module.load(
        Skill.from_dict(entry()), reader, allow_dynamic=False, timeout=9, directory=_directory([], seen=seen)
    )
    assert given == [9]
    loaded.list_directory()
    assert seen == [("skill://a/x", mcpsync.USE_DEFAULT)]


def test_a_skill_md_that_is_not_utf8_is_refused():
    """Bytes that are not UTF-8 (their size and digest listed truly): refused, naming the file."""
    data = b"---\nname: x\ndescription: d\n---\n\xff\n"
    skill = Skill.from_dict(entry(resources=[_file("skill://a/x/SKILL.md", data)]))
    blob = base64.b64encode(data).decode()
    result = mcpsync.ReadResourceResult.from_dict({"contents": [{"uri": skill.uri, "blob": blob}]})
    with pytest.raises(SkillVerificationError, match="it is not UTF-8 text") as raised:
        skills_module.load(skill, lambda uri, timeout: result, allow_dynamic=False, timeout=None)
    assert (raised.value.skill_uri, raised.value.file_uri) == (skill.uri, skill.uri)


def test_a_frontmatter_differing_from_the_entrys_names_every_field_and_the_first_values():
    """SKILL.md's frontmatter differs in two fields: the error names both (sorted), and the first
    with what the entry says and what the file says."""
    data = b"---\nname: x\ndescription: other\nextra: 1\n---\nbody\n"
    skill = Skill.from_dict(entry(resources=[_file("skill://a/x/SKILL.md", data)]))
    result = _answer(skill.uri, data)
    with pytest.raises(SkillVerificationError) as raised:
        skills_module.load(skill, lambda uri, timeout: result, allow_dynamic=False, timeout=None)
    error = raised.value
    assert error.reason == "its frontmatter differs from the listing's in 'description', 'extra'"
    assert (error.field, error.expected, error.got, error.fields) == (
        "description",
        "d",
        "other",
        ("description", "extra"),
    )
    assert (error.skill_uri, error.file_uri) == (skill.uri, skill.uri)


class Server:
    """A client's side of a server, for ``Skills``: its capabilities and the requests sent to it."""

    def __init__(self, capabilities: dict[str, Any], skill: Any = None) -> None:
        self.capabilities = capabilities
        self.skill = skill
        self.sent: list[tuple[str, dict[str, Any], Any]] = []
        self.read: list[tuple[str, Any]] = []

    def skills(self, name: str = "srv") -> skills_module.Skills:
        def request(method: str, params: dict[str, Any], timeout: Any) -> dict[str, Any]:
            self.sent.append((method, params, timeout))
            return {"skill": self.skill} if method == "skills/get" else {"resources": []}

        def reader(uri: str, timeout: Any) -> Any:
            self.read.append((uri, timeout))
            return _answer(uri, SKILL_MD)

        return skills_module.Skills(name, lambda: self.capabilities, request, reader)


DECLARED = {"extensions": {skills_module.SKILLS_EXTENSION: {}}}


@pytest.mark.parametrize(
    "capabilities", [{}, {"extensions": {"other/ext": {}}}, {"extensions": ["io.modelcontextprotocol/skills"]}]
)
def test_a_server_not_declaring_the_extension_is_asked_nothing(capabilities):
    """No ``extensions``, another extension, or a list instead of an object: ``get`` and ``load`` raise
    ``ExtensionNotDeclared`` naming the server and the extension, and nothing is sent or read."""
    server = Server(capabilities, entry())
    skills = server.skills()
    with pytest.raises(ExtensionNotDeclared) as raised:
        skills.get("skill://a/x/SKILL.md", timeout=None)
    assert str(raised.value) == "srv: the server does not declare the skills extension (io.modelcontextprotocol/skills)"
    assert raised.value.extension == skills_module.SKILLS_EXTENSION
    with pytest.raises(ExtensionNotDeclared):
        skills.load(Skill.from_dict(entry(), "srv"), allow_dynamic=False, timeout=None)
    assert server.sent == [] and server.read == []


def test_get_asks_skills_get_for_the_uri_and_load_by_uri_gets_the_entry_first():
    """``get``: one ``skills/get`` with the URI and the caller's timeout, its ``skill`` read as an entry
    of this server; ``load`` of a URI gets the entry, then reads its SKILL.md with the same timeout."""
    server = Server(DECLARED, entry())
    skills = server.skills()
    assert skills.get("skill://a/x/SKILL.md", timeout=4) == Skill.from_dict(entry(), "srv")
    loaded = skills.load("skill://a/x/SKILL.md", allow_dynamic=False, timeout=6)
    assert loaded.skill.server == "srv" and loaded.text == "body\n"
    assert server.sent == [
        ("skills/get", {"uri": "skill://a/x/SKILL.md"}, 4),
        ("skills/get", {"uri": "skill://a/x/SKILL.md"}, 6),
    ]
    assert server.read == [("skill://a/x/SKILL.md", 6)]
    server.skill = ["not", "an", "entry"]
    with pytest.raises(
        mcpsync.ProtocolError, match=re.escape("skills/get 'skill://a/x/SKILL.md' skill: expected an object")
    ):
        skills.get("skill://a/x/SKILL.md", timeout=None)


def test_load_takes_only_a_skill_of_this_server_or_a_uri():
    """A skill another client listed: ``ValueError`` naming both servers; something else than a Skill
    or a URI: ``TypeError``. Nothing is sent or read."""
    server = Server(DECLARED, entry())
    skills = server.skills("mine")
    with pytest.raises(ValueError) as raised:
        skills.load(Skill.from_dict(entry(), "theirs"), allow_dynamic=False, timeout=None)
    assert str(raised.value) == "the skill skill://a/x/SKILL.md was listed by server 'theirs', not 'mine'"
    with pytest.raises(TypeError, match="load_skill takes a Skill or its URI, not dict"):
        skills.load(entry(), allow_dynamic=False, timeout=None)  # type: ignore[arg-type]
    assert server.sent == [] and server.read == []


def test_a_loaded_skill_lists_directories_only_where_the_server_declares_directory_read():
    """``load`` gives the loaded skill the server's directory reader when ``directoryRead`` is declared:
    its ``list_directory`` sends ``resources/directory/read``; without it, it refuses and sends nothing."""
    plain = Server(DECLARED)
    with pytest.raises(ExtensionNotDeclared):
        plain.skills().load(Skill.from_dict(entry(), "srv"), allow_dynamic=False, timeout=None).list_directory()
    assert plain.sent == []
    declared = Server({"extensions": {skills_module.SKILLS_EXTENSION: {"directoryRead": True}}})
    loaded = declared.skills().load(Skill.from_dict(entry(), "srv"), allow_dynamic=False, timeout=None)
    assert loaded.list_directory(timeout=3) == skills_module.SkillDirectory("skill://a/x", (), ())
    assert [(method, params) for method, params, _ in declared.sent] == [
        ("resources/directory/read", {"uri": "skill://a/x"})
    ]


def test_the_listing_keeps_valid_entries_and_says_which_were_left_out_and_why(caplog):
    """``valid``: the entries keeping the rules, in order; an invalid one and one that is no entry at
    all are left out with a warning naming the server, the skill or its place, and the rule."""
    skills = Server(DECLARED).skills()
    good = entry()
    with caplog.at_level(logging.WARNING, logger="mcpsync.client"):
        found = skills.valid([["junk"], good, entry(resources=[]), good], 10)
    assert found == [Skill.from_dict(good, "srv")] * 2
    assert [record.getMessage() for record in caplog.records] == [
        "server 'srv': a skill left out: skills/list item #10: expected an object, got ['junk']",
        "server 'srv': skill skill://a/x/SKILL.md left out: its resources leave out its own SKILL.md (skill://a/x/SKILL.md)",
    ]


def test_an_entry_that_is_no_object_is_named_a_skill_by_default():
    """``Skill.from_dict`` without a place: the error says "skill", and quotes what came."""
    with pytest.raises(mcpsync.ProtocolError) as raised:
        Skill.from_dict([1])
    assert str(raised.value) == "skill: expected an object, got [1]"


def test_a_listed_file_read_as_another_uri_is_refused_naming_the_skill():
    """A supporting file the entry lists, answered for another URI: ``SkillVerificationError`` naming
    the skill and the file, not any other error."""
    notes = b"notes\n"
    skill = Skill.from_dict(entry(resources=[*entry()["resources"], _file("skill://a/x/notes.md", notes)]))
    answer = _answer("skill://a/x/other.md", notes)
    with pytest.raises(SkillVerificationError) as raised:
        LoadedSkill(skill, {}, "", lambda uri, timeout: answer).read("notes.md")
    assert (raised.value.skill_uri, raised.value.file_uri) == (skill.uri, "skill://a/x/notes.md")
    assert raised.value.got == "skill://a/x/other.md"


def test_a_skill_md_without_frontmatter_is_refused_naming_the_skill_and_its_skill_md():
    """SKILL.md as listed (size and digest true) but with no frontmatter: the error names the skill and
    says it is its SKILL.md."""
    data = b"# no frontmatter\n"
    skill = Skill.from_dict(entry(resources=[_file("skill://a/x/SKILL.md", data)]))
    result = _answer(skill.uri, data)
    with pytest.raises(SkillVerificationError, match="no YAML frontmatter") as raised:
        skills_module.load(skill, lambda uri, timeout: result, allow_dynamic=False, timeout=None)
    assert (raised.value.skill_uri, raised.value.file_uri) == (skill.uri, skill.uri)
    assert str(raised.value).startswith("skill skill://a/x/SKILL.md (its SKILL.md): ")


def test_an_entry_left_out_after_a_kept_one_is_numbered_from_the_pages_start(caplog):
    """The warning for an entry that is no object, after one kept, numbers it from the page's start
    (the items of earlier pages counted)."""
    skills = Server(DECLARED).skills()
    with caplog.at_level(logging.WARNING, logger="mcpsync.client"):
        skills.valid([entry(), ["junk"]], 10)
    assert [record.getMessage() for record in caplog.records] == [
        "server 'srv': a skill left out: skills/list item #11: expected an object, got ['junk']"
    ]


def test_entries_left_out_one_after_another_are_each_numbered_by_their_place(caplog):
    """Two entries that are no objects, one after the other, at the start of a page whose items are
    numbered from 10: each warning names its own place (#10, #11), not the count of kept ones (both #10)."""
    skills = Server(DECLARED).skills()
    with caplog.at_level(logging.WARNING, logger="mcpsync.client"):
        skills.valid([["junk"], ["more junk"], entry()], 10)
    assert [record.getMessage() for record in caplog.records] == [
        "server 'srv': a skill left out: skills/list item #10: expected an object, got ['junk']",
        "server 'srv': a skill left out: skills/list item #11: expected an object, got ['more junk']",
    ]
