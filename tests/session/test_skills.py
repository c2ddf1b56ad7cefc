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
from typing import Any

import pytest
import requests

import mcpsync
from mcpsync import ExtensionNotDeclared, LoadedSkill, ServerError, Skill, SkillVerificationError
from mcpsync._session import skills as skills_module
from mcpsync._session.skill_frontmatter import parse_frontmatter
from mcpsync.testing import server_command
from mcpsync.testing.skills import GREETER, LIVE_NOTES, REFUNDS, REFUNDS_POLICY, REFUNDS_TABLE
from tests.http_server import KINDS
from tests.http_server import server_target as serving

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
