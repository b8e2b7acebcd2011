"""The corpus registry: every corpus the warehouse knows, declared once in ``ingest/corpora.toml``.

Everything that needs to know "which corpora exist" derives from it: ingest's specs, every
command's corpus names, ``csrwh fetch`` and ``csrwh sample``, display names, and
``seeds/corpora.csv``. The TOML is loaded once, on first use.
Details: docs/internals.md#ingest-registry
"""

from __future__ import annotations

import csv
import functools
import importlib
import io
import re
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from ingest.errors import CsrwhError
from ingest.spec import CorpusSpec

REGISTRY_FILE = Path(__file__).with_name("corpora.toml")
SEED_FILE = Path(__file__).resolve().parents[1] / "seeds" / "corpora.csv"
SEED_COLUMNS = (
    "corpus",
    "subset",
    "language",
    "domain",
    "upstream_url",
    "licence",
    "citation",
    "description",
    "turn_roles",
)
UNKNOWN_CITATION = "unknown"
#: where a corpus' page is when its entry names no ``doc`` (relative to the project root)
DOCS_FOLDER = "docs/corpora"
#: the roles a conversation's turns may have, in the order the ``turn_roles`` seed column lists them
TURN_ROLES = ("user", "system")
_ID = re.compile(r"[a-z][a-z0-9_]*")


@dataclass(frozen=True)
class Subset:
    """One subset (release, split or domain) of a corpus, as the ``corpora`` seed lists it."""

    name: str
    description: str
    language: str
    domain: str
    licence: str


@dataclass(frozen=True)
class Corpus:
    """One corpus declaration of ingest/corpora.toml."""

    id: str
    folder: str
    title: str
    aliases: tuple[str, ...] = ()
    optional: bool = False
    homepage: str = ""
    licence: str = ""
    languages: tuple[str, ...] = ()
    domain: str = ""
    citation: str = UNKNOWN_CITATION
    citation_note: str = ""
    #: the corpus' page in the project (relative to the project root): what it is, where it
    #: comes from, and its citation as its documentation gives it
    doc: str = ""
    #: the roles of the turns its conversations hold: ("user", "system"), or ("user",) for a
    #: corpus whose data keeps only the users' texts (the shared turn rules read it)
    turn_roles: tuple[str, ...] = TURN_ROLES
    subsets: tuple[Subset, ...] = ()
    #: where ``csrwh fetch`` gets it (the ``[corpus.upstream]`` table); None: nothing to fetch
    upstream: dict[str, Any] | None = field(default=None, compare=False, hash=False)

    @property
    def names(self) -> tuple[str, ...]:
        """Every spelling that names this corpus (id, folder, title, aliases)."""
        return tuple(dict.fromkeys((self.id, self.folder, self.title, *self.aliases)))

    @property
    def citation_known(self) -> bool:
        return self.citation.strip().lower() != UNKNOWN_CITATION


def normalize(name: str) -> str:
    """How a corpus name is compared: case-insensitive, ``_`` = ``-``, no trailing ``/``."""
    return str(name).strip().lower().replace("_", "-").rstrip("/")


# --------------------------------------------------------------------------- loading


def _fail(path: Path, where: str, problem: str) -> CsrwhError:
    return CsrwhError(f"{path}: {where}: {problem}", hint="fix the corpus registry file")


def _text(
    path: Path, where: str, entry: dict[str, Any], key: str, default: str | None = None
) -> str:
    value = entry.get(key, default)
    if not isinstance(value, str):
        raise _fail(path, where, f"`{key}` must be a string (found {type(value).__name__})")
    return value


def _parse(path: Path, data: dict[str, Any]) -> tuple[Corpus, ...]:
    entries = data.get("corpus")
    if not isinstance(entries, list) or not entries:
        raise _fail(path, "top level", "no [[corpus]] entries")
    corpora: list[Corpus] = []
    owner: dict[str, str] = {}  # normalized name -> corpus id that claims it
    for i, entry in enumerate(entries):
        where = f"corpus #{i + 1}"
        cid = _text(path, where, entry, "id", "")
        if not _ID.fullmatch(cid):
            raise _fail(path, where, f"id {cid!r} is not a lowercase identifier")
        where = f"corpus {cid!r}"
        aliases = entry.get("aliases", [])
        languages = entry.get("languages", [])
        for key, values in (("aliases", aliases), ("languages", languages)):
            if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
                raise _fail(path, where, f"`{key}` must be a list of strings")
        licence = _text(path, where, entry, "licence", "")
        domain = _text(path, where, entry, "domain", "")
        subsets = []
        for sub in entry.get("subset", []):
            name = _text(path, where, sub, "name", "")
            if not name:
                raise _fail(path, where, "a [[corpus.subset]] has no name")
            subsets.append(
                Subset(
                    name=name,
                    description=_text(path, f"{where} subset {name!r}", sub, "description", ""),
                    language=_text(path, where, sub, "language", languages[0] if languages else ""),
                    domain=_text(path, where, sub, "domain", domain),
                    licence=_text(path, where, sub, "licence", licence),
                )
            )
        turn_roles = entry.get("turn_roles", list(TURN_ROLES))
        if (
            not isinstance(turn_roles, list)
            or not turn_roles
            or not set(turn_roles) <= set(TURN_ROLES)
            or len(set(turn_roles)) != len(turn_roles)
        ):
            raise _fail(
                path, where, f"`turn_roles` must list some of {list(TURN_ROLES)}, once each"
            )
        upstream = entry.get("upstream")
        if upstream is not None and not isinstance(upstream.get("kind"), str):
            raise _fail(path, where, "[corpus.upstream] has no `kind`")
        corpus = Corpus(
            id=cid,
            folder=_text(path, where, entry, "folder", cid),
            title=_text(path, where, entry, "title", cid),
            aliases=tuple(aliases),
            optional=bool(entry.get("optional", False)),
            homepage=_text(path, where, entry, "homepage", ""),
            licence=licence,
            languages=tuple(languages),
            domain=domain,
            citation=_text(path, where, entry, "citation", UNKNOWN_CITATION).strip(),
            citation_note=_text(path, where, entry, "citation_note", ""),
            doc=_text(path, where, entry, "doc", f"{DOCS_FOLDER}/{cid}.md"),
            turn_roles=tuple(r for r in TURN_ROLES if r in turn_roles),
            subsets=tuple(subsets),
            upstream=upstream,
        )
        for name in corpus.names:
            key = normalize(name)
            if owner.get(key, cid) != cid:
                raise _fail(path, where, f"the name {name!r} already names corpus {owner[key]!r}")
            owner[key] = cid
        corpora.append(corpus)
    return tuple(corpora)


def load(path: str | Path | None = None) -> tuple[Corpus, ...]:
    """The declarations of ``path`` (default ingest/corpora.toml), checked: every id a
    lowercase identifier, no name (id, folder, title, alias) claimed by two corpora."""
    path = Path(path) if path is not None else REGISTRY_FILE
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise _fail(path, "TOML", str(exc)) from None
    return _parse(path, data)


@functools.cache
def declarations() -> tuple[Corpus, ...]:
    """The registry's corpora, in order (loaded once)."""
    return load()


@functools.cache
def _by_name() -> dict[str, Corpus]:
    return {normalize(n): c for c in declarations() for n in c.names}


def module(corpus_id: str, package: str = "ingest") -> ModuleType:
    """The module ``<package>.<id>`` (ingest file specs, ``csrwh.sample`` writer, ...)."""
    return importlib.import_module(f"{package}.{corpus_id}")


@functools.cache
def _specs() -> tuple[CorpusSpec, ...]:
    specs = []
    for c in declarations():
        mod = module(c.id)
        if (mod.CORPUS, mod.FOLDER) != (c.id, c.folder):  # pragma: no cover - data error
            raise CsrwhError(
                f"{mod.__file__}: CORPUS/FOLDER {mod.CORPUS!r}/{mod.FOLDER!r} differ from "
                f"{REGISTRY_FILE.name} ({c.id!r}/{c.folder!r})",
                hint="the registry entry is the source of truth; align the module with it",
            )
        specs.append(CorpusSpec.from_module(mod))
    return tuple(specs)


def __getattr__(name: str) -> Any:  # CORPORA is built on first use, not at import
    if name == "CORPORA":
        return _specs()
    raise AttributeError(name)


# --------------------------------------------------------------------------- lookups


def lookup(name: str) -> Corpus:
    """The declaration named ``name`` (id, folder, title or alias); KeyError if unknown."""
    return _by_name()[normalize(name)]


def resolve(names: list[str] | tuple[str, ...] | None, *, option: str = "") -> list[Corpus]:
    """The declarations ``names`` name, in the order given, duplicates dropped (empty: [])."""
    out: list[Corpus] = []
    for name in names or ():
        try:
            corpus = lookup(name)
        except KeyError:
            raise CsrwhError(
                f"{option + ' ' if option else ''}{name}: unknown corpus",
                hint="known corpora: "
                + ", ".join(names_with_aliases())
                + " (case-insensitive; _ and - alike)",
                exit_code=2,
            ) from None
        if corpus not in out:
            out.append(corpus)
    return out


def specs(names: list[str] | tuple[str, ...] | None, *, option: str = "") -> list[CorpusSpec]:
    """The ingest specs of the corpora ``names`` name (:func:`resolve`: same order, same
    one-line error for an unknown name); no names: every corpus."""
    if not names:
        return list(_specs())
    return [get(c.id) for c in resolve(names, option=option)]


def names_with_aliases() -> list[str]:
    """``id (folder, alias, ...)`` per corpus, for hints and help texts."""
    out = []
    for c in declarations():
        other = [n for n in c.names if normalize(n) != normalize(c.id)]
        out.append(f"{c.id} ({', '.join(other)})" if other else c.id)
    return out


def all_names() -> list[str]:
    """Every accepted spelling in lowercase (shell completion)."""
    return list(dict.fromkeys(n.lower() for c in declarations() for n in c.names))


def get(name: str) -> CorpusSpec:
    """A corpus' ingest spec by any of its names (id, folder, title, alias); KeyError if
    unknown."""
    cid = lookup(name).id
    return next(s for s in _specs() if s.name == cid)


def names() -> list[str]:
    """Corpus ids (the ``corpus`` column), in order."""
    return [c.id for c in declarations()]


def display_names(*, optional: bool = True) -> dict[str, str]:
    """``{id: title}`` in corpus order, for reports, the dashboard and exports; without the
    optional corpora (``custom``) when ``optional`` is False."""
    return {c.id: c.title for c in declarations() if optional or not c.optional}


def upstreams() -> list[Corpus]:
    """The corpora ``csrwh fetch`` knows (those with an ``upstream``), in order."""
    return [c for c in declarations() if c.upstream is not None]


def raw_tables() -> list[str]:
    """Every raw table name (without the ``raw.`` schema)."""
    return [t for c in _specs() for t in c.tables]


# --------------------------------------------------------------------------- the corpora seed


def seed_rows(corpora: tuple[Corpus, ...] | None = None) -> list[dict[str, str]]:
    """One row per (corpus, subset): the ``corpora`` seed. A citation is written on one line
    (BibTeX whitespace collapsed); an unknown one is left empty (the export's dataset card then
    points to the upstream)."""
    rows = []
    for c in declarations() if corpora is None else corpora:
        citation = " ".join(c.citation.split()) if c.citation_known else ""
        for s in c.subsets:
            rows.append(
                {
                    "corpus": c.id,
                    "subset": s.name,
                    "language": s.language,
                    "domain": s.domain,
                    "upstream_url": c.homepage,
                    "licence": s.licence,
                    "citation": citation,
                    "description": s.description,
                    "turn_roles": ",".join(c.turn_roles),
                }
            )
    return rows


def render_seed(corpora: tuple[Corpus, ...] | None = None) -> str:
    """seeds/corpora.csv as the registry renders it."""
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=SEED_COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(seed_rows(corpora))
    return buf.getvalue()


def seed_differences(path: str | Path | None = None) -> list[str]:
    """Lines of ``path`` (default seeds/corpora.csv) that differ from :func:`render_seed`
    (empty: in sync)."""
    return rendering_differences(SEED_FILE if path is None else path, render_seed())


def rendering_differences(path: str | Path, rendered: str) -> list[str]:
    """Lines of the committed file ``path`` that differ from what the registry ``rendered``
    (empty: in sync), one message per line naming the file and line."""
    want = rendered.splitlines()
    try:
        have = Path(path).read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return [f"{path} does not exist"]
    out = []
    for i in range(max(len(want), len(have))):
        w = want[i] if i < len(want) else "<no line>"
        h = have[i] if i < len(have) else "<no line>"
        if w != h:
            out.append(f"{path} line {i + 1}: has {h!r}, the registry renders {w!r}")
    return out


def main(argv: list[str] | None = None) -> int:
    """``scripts/corpora_seed.py [--check]``: rewrite (or check) seeds/corpora.csv."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] != "seed" or set(args[1:]) - {"--check"}:
        print("usage: scripts/corpora_seed.py [--check]", file=sys.stderr)
        return 2
    if "--check" in args:
        diff = seed_differences()
        for line in diff:
            print(line, file=sys.stderr)
        if diff:
            print("run `python scripts/corpora_seed.py` to rewrite it", file=sys.stderr)
        return 1 if diff else 0
    SEED_FILE.write_text(render_seed(), encoding="utf-8")
    print(f"wrote {SEED_FILE} ({len(seed_rows())} subsets)")
    return 0
