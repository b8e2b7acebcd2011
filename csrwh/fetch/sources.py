"""Where each corpus comes from, typed: the ``[corpus.upstream]`` tables of the corpus registry
(ingest/corpora.toml) as :class:`GithubArchive`, :class:`HubFiles` or :class:`ManualZip`.

:func:`load_sources` gives the plain table (``{"order": [...], "corpora": {folder: {...}}}``),
which callers and tests may edit; :func:`parse_sources` turns it into :class:`Sources`, the
typed form the rest of the package works on.
"""

from __future__ import annotations

import functools
import json
import os
import re
import urllib.parse
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from csrwh.errors import CsrwhError

SOURCES_FILE = "ingest/corpora.toml"

_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "number": (int, float),
    "boolean": (bool,),
    "null": (type(None),),
    "any": (object,),
}


# --------------------------------------------------------------------------- typed sources


@dataclass(frozen=True, kw_only=True)
class Upstream:
    """What every source has: the corpus (its folder name, fetch's canonical name), a title
    for messages, a homepage and the upstream layout (for hints)."""

    corpus: str
    title: str
    homepage: str | None = None
    layout: str = ""

    kind = "upstream"

    @property
    def hosts(self) -> list[str]:
        """URL templates naming hosts a download may come from (see download.allowed_hosts)."""
        return [u for u in (self.homepage,) if u]


@dataclass(frozen=True)
class Selection:
    """Which files of a GitHub archive a corpus keeps (``include`` / ``select`` of its upstream).

    A file (path relative to the archive's top folder) is kept when it starts with one of
    ``include`` (if any), fully matches ``select.glob`` (if any; see glob_regex) and, if
    ``select.json_keys`` is given, parses as a JSON object holding every listed key with a
    value of the listed JSON type (object, array, string, number, boolean, null, any).
    """

    include: tuple[str, ...] = ()
    glob: str | None = None
    json_keys: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_spec(cls, spec: dict[str, Any]) -> Selection:
        select = spec.get("select") or {}
        json_keys = dict(select.get("json_keys") or {})
        unknown = sorted(set(json_keys.values()) - set(_JSON_TYPES))
        if unknown:  # pragma: no cover - data error
            raise CsrwhError(
                f"unknown JSON type(s) {unknown} in select.json_keys of {SOURCES_FILE}"
            )
        return cls(tuple(spec.get("include") or ()), select.get("glob"), json_keys)

    def path_ok(self, rel: str) -> bool:
        if self.include and not rel.startswith(self.include):
            return False
        return self.glob is None or glob_regex(self.glob).fullmatch(rel) is not None

    def content_ok(self, path: Path) -> bool:
        if not self.json_keys:
            return True
        try:
            data = json.loads(path.read_bytes())  # UTF-8 (with or without BOM), -16, -32
        except (OSError, ValueError, RecursionError):
            return False
        return isinstance(data, dict) and all(
            key in data and _is_json_type(data[key], kind) for key, kind in self.json_keys.items()
        )

    def describe(self) -> str:
        what = [f"files under {', '.join(self.include)}"] if self.include else []
        if self.glob:
            what.append(f"files matching {self.glob}")
        if self.json_keys:
            keys = ", ".join(f"{k!r} ({kind})" for k, kind in self.json_keys.items())
            what.append(f"that are JSON objects with {keys}")
        return " ".join(what) or "files"


@dataclass(frozen=True)
class Pinned:
    """A known sha256 / size (None: not known)."""

    sha256: str | None = None
    size: int | None = None


@dataclass(frozen=True)
class LfsMedia:
    """Where Git LFS objects of an archive are fetched from: a URL template over
    {owner} {repo} {ref} {path}."""

    template: str

    def url(self, owner: str, repo: str, ref: str, rel: str) -> str:
        return self.template.format(owner=owner, repo=repo, ref=ref, path=urllib.parse.quote(rel))


@dataclass(frozen=True, kw_only=True)
class GithubArchive(Upstream):
    """A GitHub zip archive of ``owner/repo`` at commit ``ref``."""

    owner: str
    repo: str
    ref: str
    url_templates: tuple[str, ...]
    archive: Pinned = Pinned()
    selection: Selection = Selection()
    select: dict[str, Any] | None = None  # as written, for the manifest
    lfs: LfsMedia | None = None
    expected_files: dict[str, Pinned] = field(default_factory=dict)

    kind = "github_archive"

    @property
    def urls(self) -> list[str]:
        fmt = {"owner": self.owner, "repo": self.repo, "ref": self.ref}
        return [u.format(**fmt) for u in self.url_templates]

    @property
    def hosts(self) -> list[str]:
        return [*super().hosts, *self.url_templates, *([self.lfs.template] if self.lfs else [])]


@dataclass(frozen=True)
class HubFile:
    """One file on a dataset hub: its path there (``remote``) and the name it is saved as."""

    remote: str
    local: str
    pinned: Pinned = Pinned()


@dataclass(frozen=True, kw_only=True)
class HubFiles(Upstream):
    """Files of a dataset hub (Hugging Face, ModelScope as fallback) at ``revision``."""

    revision: str
    url_templates: tuple[str, ...]
    files: tuple[HubFile, ...]

    kind = "hub_files"

    def urls(self, item: HubFile) -> list[str]:
        return [t.format(revision=self.revision, remote=item.remote) for t in self.url_templates]

    @property
    def hosts(self) -> list[str]:
        return [*super().hosts, *self.url_templates]


@dataclass(frozen=True, kw_only=True)
class ManualZip(Upstream):
    """A zip the user downloads by hand (``--from-zip``); ``members`` are extracted."""

    download_page: str
    members: tuple[str, ...]
    zip_name: str | None = None
    version: str | None = None

    kind = "manual_zip"

    @property
    def hosts(self) -> list[str]:
        return [*super().hosts, self.download_page]


@dataclass(frozen=True)
class Sources:
    """Every fetchable corpus (in fetch order) and the redirect-host override."""

    upstreams: dict[str, Upstream]
    redirect_hosts: tuple[str, ...] | None = None


# --------------------------------------------------------------------------- loading


def _pinned(entry: dict[str, Any]) -> Pinned:
    return Pinned(entry.get("sha256") or None, entry.get("size"))


def parse_upstream(corpus: str, spec: dict[str, Any]) -> Upstream:
    """The typed form of one corpus' entry of the upstream table."""
    common = {
        "corpus": corpus,
        "title": spec.get("title", corpus),
        "homepage": spec.get("homepage"),
        "layout": spec.get("layout", ""),
    }
    kind = spec.get("kind")
    try:
        if kind == "github_archive":
            return GithubArchive(
                **common,
                owner=spec["owner"],
                repo=spec["repo"],
                ref=spec["ref"],
                url_templates=tuple(spec["urls"]),
                archive=_pinned(spec),
                selection=Selection.from_spec(spec),
                select=spec.get("select"),
                lfs=LfsMedia(spec["lfs_media_url"]) if spec.get("lfs_media_url") else None,
                expected_files={
                    rel: _pinned(exp) for rel, exp in (spec.get("expected_files") or {}).items()
                },
            )
        if kind == "hub_files":
            return HubFiles(
                **common,
                revision=spec.get("revision", "main"),
                url_templates=tuple(spec["urls"]),
                files=tuple(
                    HubFile(f["remote"], f.get("local", f["remote"]), _pinned(f))
                    for f in spec["files"]
                ),
            )
        if kind == "manual_zip":
            return ManualZip(
                **common,
                download_page=spec["download_page"],
                members=tuple(spec["members"]),
                zip_name=spec.get("zip_name"),
                version=spec.get("version"),
            )
    except KeyError as exc:
        raise CsrwhError(
            f"{SOURCES_FILE}: the upstream of {corpus} ({kind}) has no {exc.args[0]!r}",
            hint="fix the corpus registry file",
        ) from None
    raise CsrwhError(f"{SOURCES_FILE}: {corpus}: unknown source kind {kind!r}")


def parse_sources(sources: dict[str, Any]) -> Sources:
    """The typed form of an upstream table (as :func:`load_sources` returns it)."""
    extra = sources.get("redirect_hosts")
    return Sources(
        {name: parse_upstream(name, sources["corpora"][name]) for name in corpus_names(sources)},
        None if extra is None else tuple(extra),
    )


def _table_from_registry(path: str | os.PathLike[str] | None) -> dict[str, Any]:
    from ingest import registry

    corpora = registry.load(path) if path is not None else registry.declarations()
    table: dict[str, Any] = {"order": [], "corpora": {}}
    for c in corpora:
        if c.upstream is None:
            continue
        other = [n for n in (c.id, c.title, *c.aliases) if n != c.folder]
        table["order"].append(c.folder)
        table["corpora"][c.folder] = {
            "title": c.title,
            "aliases": list(dict.fromkeys(other)),
            "homepage": c.homepage or None,
            **json.loads(json.dumps(c.upstream)),  # a deep copy callers may edit
        }
    return table


def load_sources(path: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """The upstream table: the ``[corpus.upstream]`` tables of the corpus registry
    (ingest/corpora.toml, or the registry file ``path``; a ``.json`` path is read as the
    table itself), keyed by corpus folder, in registry order."""
    if path is not None and str(path).endswith(".json"):
        return json.loads(Path(path).read_text(encoding="utf-8"))
    if path is None:
        return json.loads(_default_table())  # a fresh copy per call
    return _table_from_registry(path)


@functools.cache
def _default_table() -> str:
    return json.dumps(_table_from_registry(None))


def corpus_names(sources: dict[str, Any] | None = None) -> list[str]:
    """Canonical corpus folder names, in fetch order."""
    sources = sources or load_sources()
    return list(sources.get("order") or sources["corpora"])


def resolve_corpora(names: Iterable[str], sources: dict[str, Any] | None = None) -> list[str]:
    """Canonical names for ``names`` (any registry name or alias, duplicates dropped); empty =
    all."""
    from ingest import registry
    from ingest.registry import normalize

    sources = sources or load_sources()
    valid = corpus_names(sources)
    lookup: dict[str, str] = {}
    for name in valid:
        spec = sources["corpora"][name]
        for alias in [name, *spec.get("aliases", [])]:
            lookup[normalize(alias)] = name
    out: list[str] = []
    for raw in names:
        canonical = lookup.get(normalize(raw))
        if canonical is None:
            # not in this upstream table: an unknown name gets the registry's one message
            (corpus,) = registry.resolve([raw])
            raise CsrwhError(
                f"{raw}: corpus {corpus.id} has no upstream to fetch",
                hint=f"corpora to fetch: {', '.join(valid)}; give no name to fetch all",
                exit_code=2,
            )
        if canonical not in out:
            out.append(canonical)
    return out or valid


# --------------------------------------------------------------------------- selection helpers


def _is_json_type(value: Any, kind: str) -> bool:
    if isinstance(value, bool) and kind == "number":
        return False
    return isinstance(value, _JSON_TYPES[kind])


@functools.lru_cache(maxsize=32)
def glob_regex(pattern: str) -> re.Pattern[str]:
    """``pattern`` over POSIX relative paths: ``*`` and ``?`` match within one path segment,
    ``**/`` any number of folders (also none), so ``*/**/*.json`` = a .json file in a folder."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        else:
            out.append({"*": "[^/]*", "?": "[^/]"}.get(pattern[i], re.escape(pattern[i])))
            i += 1
    return re.compile("".join(out), re.DOTALL)
