"""The corpora the warehouse knows -- the five public ones and ``custom`` (your own, in the
generic format of docs/ADDING_A_CORPUS.md) -- in a fixed order, and lookups by name or folder."""

from __future__ import annotations

from ingest import convsearch, cosrec, crsarena, custom, recllmsim, recoreact
from ingest.loader import CorpusSpec

CORPORA: tuple[CorpusSpec, ...] = tuple(
    CorpusSpec.from_module(m) for m in (cosrec, crsarena, convsearch, recllmsim, recoreact, custom)
)

_BY_NAME = {c.name: c for c in CORPORA} | {c.folder: c for c in CORPORA}


def names() -> list[str]:
    return [c.name for c in CORPORA]


def get(name: str) -> CorpusSpec:
    """A corpus by its name (``crsarena``) or folder (``crsarena-dial``); KeyError if unknown."""
    return _BY_NAME[name.strip().lower()]


def raw_tables() -> list[str]:
    """Every raw table name (without the ``raw.`` schema)."""
    return [t for c in CORPORA for t in c.tables]
