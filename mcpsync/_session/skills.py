"""The Skills extension (``io.modelcontextprotocol/skills``, SEP-2640): the skills a server offers,
loaded lazily and verified before anything of them is used.

A server that declares the extension lists its skills (``skills/list``, paged;
``skills/get`` for one). An entry names its ``SKILL.md`` (``skill://<path>/SKILL.md``,
the path's last segment the skill's name), carries its frontmatter, and lists
*every* file of the skill with its size and SHA-256 digest (or says
``"dynamic"``: files that change, with no integrity to check). Files are read
with plain ``resources/read``.

What the client promises, and where it keeps each promise:

- **Nothing is read on listing.** ``list`` reads no file; an entry that breaks
  the rules (``Skill.problem``) is left out with a warning naming it and the rule.
- **Limits before any read**: at most ``MAX_RESOURCES`` files, ``MAX_TOTAL_SIZE``
  bytes in all (``Skill.problem`` again, checked by ``load`` first).
- **Verified, or not used**: a file whose byte length differs from its ``size``
  or whose SHA-256 differs from its ``digest`` is refused (``SkillVerificationError``),
  as is a SKILL.md whose YAML frontmatter differs, field by field, from the
  entry's. ``load`` reads SKILL.md only; ``LoadedSkill.read`` one supporting
  file, and only one the entry lists.
- **Identity is (server, uri)**: names are not unique; a skill loads only on the
  client that listed it. Digests say a file is the one listed, not that it can
  be trusted.
- **Dynamic skills** load only with ``allow_dynamic=True``.
- **Directories** (``resources/directory/read``, only where the server declares
  ``directoryRead: true``): ``LoadedSkill.list_directory`` lists one directory of the
  skill, at most ``MAX_RESOURCES`` entries (checked as each page comes, before the next
  is asked for), each a direct child of it; a file the entry does not list, or lists
  with another size, is not one of the skill's files under this entry (``stale``, not
  ``files``: it is not read, ``read`` refuses it); the files of ``files`` are read and
  verified as any other (``read``).

The frontmatter is parsed and compared in skill_frontmatter.py.
"""

from __future__ import annotations

import logging
import posixpath
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Union

from .._core.errors import ProtocolError
from .._core.feature_errors import ExtensionNotDeclared, SkillVerificationError
from .._core.text import cut, first_line
from .._core.timeouts import USE_DEFAULT, Timeout
from .models import ReadResourceResult, Resource
from .paging import pages
from .skill_frontmatter import differences, parse_frontmatter

__all__ = [
    "MAX_RESOURCES",
    "MAX_TOTAL_SIZE",
    "SKILLS_EXTENSION",
    "LoadedSkill",
    "Skill",
    "SkillDirectory",
    "SkillResource",
    "Skills",
]

logger = logging.getLogger("mcpsync.client")

SKILLS_EXTENSION = "io.modelcontextprotocol/skills"
#: Files one skill may list, SKILL.md included.
MAX_RESOURCES = 512
#: Bytes all the files of one skill may hold together.
MAX_TOTAL_SIZE = 16 * 1024 * 1024

SKILL_FILE = "SKILL.md"
#: The MIME type of a directory resource (``resources/directory/read``).
DIRECTORY = "inode/directory"
_SCHEME = "skill://"
# Checked with fullmatch: ``$`` would also match before a final newline.
_DIGEST = re.compile(r"sha256:[0-9a-f]{64}")


@dataclass(frozen=True)
class SkillResource:
    """One file of a skill, as its entry lists it: ``uri``, ``digest`` (``sha256:<hex>``), ``size`` (bytes)."""

    uri: str
    digest: str
    size: int

    def __repr__(self) -> str:
        return f"<SkillResource {self.uri!r} {self.size} bytes>"


@dataclass(frozen=True)
class Skill:
    """A skill a server offers (from ``skills/list`` or ``skills/get``); nothing of it read yet.

    Attributes:
        uri: its SKILL.md, ``skill://<path>/SKILL.md``; with ``server``, its identity.
        name, description: from its frontmatter (names are not unique).
        frontmatter: every field of the entry's frontmatter, as sent.
        resources: every file of the skill with its digest and size; ``None`` for a
            dynamic skill (its files change: nothing to verify them with).
        server: the client (configured server name) that listed it.
        problem: the rule the entry breaks, if any (such a skill is never loaded).
    """

    uri: str
    name: str
    description: Optional[str]
    frontmatter: Mapping[str, Any]
    resources: Optional[tuple[SkillResource, ...]]
    server: str = ""
    problem: Optional[str] = None
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_dict(cls, data: Any, server: str = "", where: str = "skill") -> Skill:
        """Build from a skill entry; a rule it breaks goes to ``problem``, not an exception.

        Raises:
            ProtocolError: the entry is not an object, or has no string ``uri``.
        """
        if not isinstance(data, Mapping):
            raise ProtocolError(f"{where}: expected an object, got {cut(repr(data), 80)}")
        uri = data.get("uri")
        if not isinstance(uri, str):
            raise ProtocolError(f"{where}: 'uri' must be a string, got {cut(repr(uri), 80)}")
        raw_frontmatter = data.get("frontmatter")
        frontmatter = raw_frontmatter if isinstance(raw_frontmatter, Mapping) else {}
        name = frontmatter.get("name")
        description = frontmatter.get("description")
        listed = data.get("resources")
        resources = _resources(listed)
        return cls(
            uri=uri,
            name=name if isinstance(name, str) else "",
            description=description if isinstance(description, str) else None,
            frontmatter=dict(frontmatter),
            resources=resources,
            server=server,
            problem=_problem(uri, raw_frontmatter, listed, resources),
            raw=data,
        )

    @property
    def dynamic(self) -> bool:
        """Whether the entry lists no files (``resources: "dynamic"``): no integrity to check."""
        return self.resources is None and self.raw.get("resources") == "dynamic"

    @property
    def root(self) -> str:
        """The URI its files are relative to: the SKILL.md URI without ``SKILL.md``."""
        return self.uri[: -len(SKILL_FILE)] if self.uri.endswith("/" + SKILL_FILE) else self.uri

    @property
    def path(self) -> str:
        """The skill path, e.g. ``acme/billing/refunds``."""
        return self.root[len(_SCHEME) :].rstrip("/") if self.root.startswith(_SCHEME) else self.root

    @property
    def size(self) -> Optional[int]:
        """The bytes of all its files together (``None`` for a dynamic skill)."""
        return None if self.resources is None else sum(r.size for r in self.resources)

    def resource(self, uri: str) -> Optional[SkillResource]:
        """The listed file with this URI, if the entry lists it."""
        return next((r for r in self.resources or () if r.uri == uri), None)

    def __repr__(self) -> str:
        files = "dynamic" if self.dynamic else f"{len(self.resources or ())} files"
        broken = f" INVALID ({cut(self.problem, 60)})" if self.problem else ""
        return f"<Skill {self.name!r} {self.uri} {files}{broken}{_gist(self.description)}>"


def _gist(description: Optional[str]) -> str:
    line = first_line(description, 60)
    return f": {line}" if line else ""


def _resources(listed: Any) -> Optional[tuple[SkillResource, ...]]:
    """The listed files, if ``listed`` is a list of well-formed ones; ``None`` otherwise."""
    if not isinstance(listed, list):
        return None
    found = []
    for item in listed:
        if not isinstance(item, Mapping):
            return None
        uri, digest, size = item.get("uri"), item.get("digest"), item.get("size")
        if not isinstance(uri, str) or not isinstance(digest, str) or type(size) is not int:
            return None
        found.append(SkillResource(uri, digest, size))
    return tuple(found)


def _problem(uri: str, frontmatter: Any, listed: Any, resources: Optional[tuple[SkillResource, ...]]) -> Optional[str]:
    """The first rule a skill entry breaks (``None``: none)."""
    if not uri.startswith(_SCHEME) or not uri.endswith("/" + SKILL_FILE):
        return f"its uri {uri!r} is not skill://<skill-path>/SKILL.md"
    segments = uri[len(_SCHEME) : -len(SKILL_FILE) - 1].split("/")
    if any(segment in ("", ".", "..") for segment in segments):
        return f"its skill path in {uri!r} has an empty, '.' or '..' segment"
    if not isinstance(frontmatter, Mapping):
        return "it has no frontmatter object"
    name = frontmatter.get("name")
    if not isinstance(name, str) or not name:
        return "its frontmatter has no name"
    if not isinstance(frontmatter.get("description"), str):
        return "its frontmatter has no description"
    if segments[-1] != name:
        return f"its name {name!r} is not the last segment of its skill path {'/'.join(segments)!r}"
    if listed == "dynamic":
        return None
    if listed is None:
        return "it has no resources (a complete list of its files, or 'dynamic')"
    if resources is None:
        return "its resources are neither 'dynamic' nor a list of {uri, digest, size}"
    seen: set[str] = set()
    for item in resources:
        if not _DIGEST.fullmatch(item.digest):
            return f"the digest of {item.uri!r} is not sha256:<64 lowercase hex digits>: {cut(item.digest, 80)!r}"
        if item.size < 0:
            return f"the size of {item.uri!r} is negative"
        if item.uri in seen:
            return f"it lists {item.uri!r} twice"
        seen.add(item.uri)
    if uri not in seen:
        return f"its resources leave out its own {SKILL_FILE} ({uri})"
    if len(resources) > MAX_RESOURCES:
        return f"it lists {len(resources)} files, more than the {MAX_RESOURCES} a skill may have"
    total = sum(item.size for item in resources)
    if total > MAX_TOTAL_SIZE:
        return f"its files hold {total} bytes, more than the {MAX_TOTAL_SIZE} a skill may have"
    return None


# -- reading and verifying ----------------------------------------------------------------

#: ``fn(uri, timeout) -> ReadResourceResult``: a ``resources/read`` that goes to the server.
Reader = Callable[[str, Timeout], ReadResourceResult]
#: ``fn(uri, timeout) -> the pages of resources/directory/read``: each page's raw children.
DirectoryReader = Callable[[str, Timeout], Iterator[Sequence[Any]]]


def directory_read_declared(capabilities: Mapping[str, Any]) -> bool:
    """Whether the server declares ``directoryRead: true`` in its skills extension settings."""
    extensions = capabilities.get("extensions")
    settings = extensions.get(SKILLS_EXTENSION) if isinstance(extensions, Mapping) else None
    return isinstance(settings, Mapping) and settings.get("directoryRead") is True


@dataclass(frozen=True)
class SkillDirectory:
    """One directory of a loaded skill, as the server lists it now, checked against the skill's entry.

    Attributes:
        uri: the directory's URI (``skill://<path>/references``, no trailing slash).
        files: the paths (relative to the skill's root, as ``LoadedSkill.read`` takes them) of the
            files in it that the entry lists with the same size (a dynamic skill: every file).
        directories: the paths of its subdirectories (``list_directory`` each in turn).
        stale: the URIs the server lists that the entry does not, or lists with another size:
            not files of the skill under this entry (refresh it with ``get_skill`` to reach them).
    """

    uri: str
    files: tuple[str, ...]
    directories: tuple[str, ...]
    stale: tuple[str, ...] = ()


def _contents(skill: Skill, uri: str, result: ReadResourceResult) -> bytes:
    """The bytes of a read file: its one content item, text as UTF-8, a blob decoded."""
    if len(result.contents) != 1:
        raise SkillVerificationError(
            "the read gave not one content item",
            skill_uri=skill.uri,
            file_uri=uri,
            expected=1,
            got=len(result.contents),
        )
    item = result.contents[0]
    if item.uri != uri:
        raise SkillVerificationError(
            "the read answered for another URI", skill_uri=skill.uri, file_uri=uri, expected=uri, got=item.uri
        )
    try:
        return item.data
    except ProtocolError as exc:
        raise SkillVerificationError(str(exc), skill_uri=skill.uri, file_uri=uri) from None


def _verify(skill: Skill, listed: SkillResource, data: bytes) -> None:
    """Refuse bytes that are not the file listed: its size first, then its digest."""
    if len(data) != listed.size:
        raise SkillVerificationError(
            "its size is not the one listed",
            skill_uri=skill.uri,
            file_uri=listed.uri,
            expected=listed.size,
            got=len(data),
        )
    import hashlib  # here: a skill's first load pays for it, not every `import mcpsync`

    digest = "sha256:" + hashlib.sha256(data).hexdigest()
    if digest != listed.digest:
        raise SkillVerificationError(
            "its digest is not the one listed",
            skill_uri=skill.uri,
            file_uri=listed.uri,
            expected=listed.digest,
            got=digest,
        )


def _resolve(skill: Skill, relative_path: str) -> str:
    """The URI of a file of the skill, given relative to its root (never outside it).

    Raises:
        ValueError: an empty or absolute path, or one that leaves the skill's root.
    """
    if not isinstance(relative_path, str) or not relative_path or relative_path.startswith("/"):
        raise ValueError(f"a skill file is named relative to the skill's root, not {relative_path!r}")
    if "\\" in relative_path or "://" in relative_path:
        raise ValueError(f"a skill file's path has '/' between its segments and no scheme: {relative_path!r}")
    normal = posixpath.normpath(relative_path)
    if normal == ".." or normal.startswith("../") or normal == ".":
        raise ValueError(f"{relative_path!r} is not inside the skill {skill.uri}")
    return skill.root + normal


class LoadedSkill:
    """A skill whose SKILL.md was read and verified: ``text`` (the body), ``frontmatter``, and
    ``read(path)`` for its other files, each read when asked for and verified the same way."""

    def __init__(
        self,
        skill: Skill,
        frontmatter: dict[str, Any],
        text: str,
        reader: Reader,
        directory: Optional[DirectoryReader] = None,
    ) -> None:
        #: The entry it was loaded from (the one its files are checked against).
        self.skill = skill
        #: The frontmatter of its SKILL.md (equal, field by field, to the entry's).
        self.frontmatter = frontmatter
        #: The body of its SKILL.md, after the frontmatter.
        self.text = text
        self._reader = reader
        self._directory = directory

    @property
    def uri(self) -> str:
        """Its SKILL.md's URI."""
        return self.skill.uri

    @property
    def name(self) -> str:
        """Its name (from the frontmatter)."""
        return self.skill.name

    def read(self, relative_path: str, *, timeout: Timeout = USE_DEFAULT) -> bytes:
        """The bytes of one of the skill's files, named relative to its root (``references/guide.md``).

        Reads it now (``resources/read``, within ``timeout``: by default the server's) and checks its
        size and digest against the entry; a dynamic skill's files are read as they come.

        Raises:
            ValueError: a path that is empty, absolute, or leaves the skill's root.
            SkillVerificationError: the entry does not list the file (it is not read), or what was
                read is not what the entry lists (it is not returned).
        """
        uri = _resolve(self.skill, relative_path)
        if self.skill.dynamic:
            return _contents(self.skill, uri, self._reader(uri, timeout))
        listed = self.skill.resource(uri)
        if listed is None:
            raise SkillVerificationError(
                "the skill does not list this file; it was not read", skill_uri=self.skill.uri, file_uri=uri
            )
        data = _contents(self.skill, uri, self._reader(uri, timeout))
        _verify(self.skill, listed, data)
        return data

    def read_text(self, relative_path: str, *, encoding: str = "utf-8", timeout: Timeout = USE_DEFAULT) -> str:
        """``read`` decoded as text (UTF-8 unless told otherwise)."""
        return self.read(relative_path, timeout=timeout).decode(encoding)

    def list_directory(self, relative_path: str = "", *, timeout: Timeout = USE_DEFAULT) -> SkillDirectory:
        """One directory of the skill (``""``: its root; ``"templates"``), as the server lists it now
        (``resources/directory/read``, every page, within ``timeout``), checked against the entry.

        Raises:
            ExtensionNotDeclared: the server does not declare ``directoryRead`` (nothing is sent).
            ValueError: a path that is absolute or leaves the skill's root.
            SkillVerificationError: more than ``MAX_RESOURCES`` entries (no page is asked for past
                them), or an entry that is not a direct child of the directory.
            ServerError: -32602, the server serves no such directory.
        """
        if self._directory is None:
            raise ExtensionNotDeclared(
                f"the server of {self.uri} does not declare directoryRead ({SKILLS_EXTENSION}): its "
                "directories cannot be listed",
                extension=SKILLS_EXTENSION,
            )
        root = self.skill.root.rstrip("/")
        uri = root if relative_path in ("", ".", "./") else _resolve(self.skill, relative_path).rstrip("/")
        prefix = uri + "/"
        files: list[str] = []
        directories: list[str] = []
        stale: list[str] = []
        count = 0
        for page in self._directory(uri, timeout):
            for item in page:
                count += 1
                if count > MAX_RESOURCES:
                    raise SkillVerificationError(
                        f"the directory lists more than the {MAX_RESOURCES} files a skill may have; stopped",
                        skill_uri=self.uri,
                        file_uri=uri,
                    )
                child = Resource.from_dict(item, f"resources/directory/read {uri!r} item #{count - 1}")
                name = child.uri[len(prefix) :] if child.uri.startswith(prefix) else ""
                if not name or "/" in name or name in (".", ".."):
                    raise SkillVerificationError(
                        "the directory read lists an entry that is not a direct child of the directory",
                        skill_uri=self.uri,
                        file_uri=child.uri,
                        expected=prefix + "<name>",
                        got=child.uri,
                    )
                relative = child.uri[len(root) + 1 :]
                if child.mime_type == DIRECTORY:
                    directories.append(relative)
                elif self.skill.dynamic:
                    files.append(relative)  # no entry to hold it against: how a dynamic skill's files are found
                else:
                    listed = self.skill.resource(child.uri)
                    fits = listed is not None and (child.size is None or child.size == listed.size)
                    (files if fits else stale).append(relative if fits else child.uri)
        if stale:
            logger.info("skill %s: %s lists files its entry does not: %s", self.uri, uri, ", ".join(stale))
        return SkillDirectory(uri, tuple(files), tuple(directories), tuple(stale))

    def __repr__(self) -> str:
        dynamic = " dynamic" if self.skill.dynamic else ""
        return f"<LoadedSkill {self.name!r} {self.uri}{dynamic}: {cut(first_line(self.text.strip(), 60), 60)!r}>"


def load(
    skill: Skill,
    reader: Reader,
    *,
    allow_dynamic: bool,
    timeout: Timeout,
    directory: Optional[DirectoryReader] = None,
) -> LoadedSkill:
    """Read and verify a skill's SKILL.md, and nothing else (see the module docstring).

    Raises:
        SkillVerificationError: the entry breaks a rule or the limits (nothing is read), is dynamic
            without ``allow_dynamic`` (nothing is read), or its SKILL.md is not what it lists.
    """
    if skill.problem is not None:
        raise SkillVerificationError(f"the skill entry is invalid: {skill.problem}", skill_uri=skill.uri)
    if skill.dynamic and not allow_dynamic:
        raise SkillVerificationError(
            "the skill is dynamic (its files cannot be verified); pass allow_dynamic=True to load it anyway",
            skill_uri=skill.uri,
        )
    data = _contents(skill, skill.uri, reader(skill.uri, timeout))
    listed = skill.resource(skill.uri)
    if listed is not None:
        _verify(skill, listed, data)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SkillVerificationError(f"it is not UTF-8 text ({exc})", skill_uri=skill.uri, file_uri=skill.uri) from None
    frontmatter, body = parse_frontmatter(text, skill.uri, skill.uri)
    differing = differences(skill.frontmatter, frontmatter)
    if differing:
        key, expected, got = differing[0]
        fields = ", ".join(repr(name) for name, _, _ in differing)
        raise SkillVerificationError(
            f"its frontmatter differs from the listing's in {fields}",
            skill_uri=skill.uri,
            file_uri=skill.uri,
            field=key,
            expected=expected,
            got=got,
            fields=tuple(name for name, _, _ in differing),
        )
    return LoadedSkill(skill, frontmatter, body, reader, directory)


class Skills:
    """One client's side of the extension: its checks, the entries it offers, getting, loading
    (the listing itself is listings.py's, with the others).

    Args:
        name: the server's name (logs, and each skill's ``server``).
        capabilities: ``fn() -> server capabilities``.
        request: ``fn(method, params, timeout) -> result``.
        reader: reads a file from the server.
    """

    def __init__(
        self,
        name: str,
        capabilities: Callable[[], Mapping[str, Any]],
        request: Callable[[str, dict[str, Any], Timeout], dict[str, Any]],
        reader: Reader,
    ) -> None:
        self._name = name
        self._capabilities = capabilities
        self._request = request
        self._reader = reader

    def check_declared(self) -> None:
        """Refuse (``ExtensionNotDeclared``) unless the server declares the skills extension."""
        extensions = self._capabilities().get("extensions")
        if not isinstance(extensions, Mapping) or SKILLS_EXTENSION not in extensions:
            raise ExtensionNotDeclared(
                f"{self._name}: the server does not declare the skills extension ({SKILLS_EXTENSION})",
                extension=SKILLS_EXTENSION,
            )

    def valid(self, entries: Sequence[Any], start: int) -> list[Skill]:
        """The entries of a page that are skills keeping the extension's rules; the rest are logged."""
        found: list[Skill] = []
        for index, entry in enumerate(entries):
            try:
                skill = Skill.from_dict(entry, self._name, f"skills/list item #{start + index}")
            except ProtocolError as exc:
                logger.warning("server %r: a skill left out: %s", self._name, exc)
                continue
            if skill.problem is not None:
                logger.warning("server %r: skill %s left out: %s", self._name, skill.uri, skill.problem)
                continue
            found.append(skill)
        return found

    def get(self, uri: str, *, timeout: Timeout) -> Skill:
        """One skill's entry, from the server; see ``Client.get_skill``."""
        self.check_declared()
        result = self._request("skills/get", {"uri": uri}, timeout)
        return Skill.from_dict(result.get("skill"), self._name, f"skills/get {uri!r} skill")

    def load(self, skill: Union[Skill, str], *, allow_dynamic: bool, timeout: Timeout) -> LoadedSkill:
        """Read and verify a skill's SKILL.md; see ``Client.load_skill``."""
        if isinstance(skill, str):
            skill = self.get(skill, timeout=timeout)
        elif not isinstance(skill, Skill):
            raise TypeError(f"load_skill takes a Skill or its URI, not {type(skill).__name__}")
        elif skill.server != self._name:
            raise ValueError(f"the skill {skill.uri} was listed by server {skill.server!r}, not {self._name!r}")
        else:
            self.check_declared()
        directory = self.read_directory if directory_read_declared(self._capabilities()) else None
        return load(skill, self._reader, allow_dynamic=allow_dynamic, timeout=timeout, directory=directory)

    def read_directory(self, uri: str, timeout: Timeout, max_pages: Optional[int] = None) -> Iterator[Sequence[Any]]:
        """The pages of ``resources/directory/read`` of ``uri`` (each page's raw children), asked for
        one by one; see ``Client.read_directory``.

        Raises:
            ExtensionNotDeclared: the server does not declare ``directoryRead`` (nothing is sent).
        """
        self.check_declared()
        if not directory_read_declared(self._capabilities()):
            raise ExtensionNotDeclared(
                f"{self._name}: the server does not declare directoryRead ({SKILLS_EXTENSION}); "
                "resources/directory/read is not sent",
                extension=SKILLS_EXTENSION,
            )
        # A number bounds the whole listing; the default (the server's timeout) bounds each page.
        seconds = None if timeout is USE_DEFAULT or timeout is None else float(timeout)
        request = self._request

        def ask(method: str, params: Optional[dict[str, Any]], left: Timeout) -> dict[str, Any]:
            each: Timeout = left if left is not None else timeout
            return request(method, {**(params or {}), "uri": uri}, each)

        for items, _ in pages(ask, "resources/directory/read", "resources", seconds, max_pages=max_pages):
            yield items
