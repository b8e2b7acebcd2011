"""Conversation filters (the sidebar's widgets) as SQL predicates, and the corpus clause of the
per-corpus pages."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

NONE_LABEL = "(none)"
FILTER_COLUMNS = {
    "corpus": "corpus",
    "subset": "subset",
    "language": "language",
    "domain": "domain_or_task",
}


@dataclass(frozen=True)
class Filters:
    """Conversation filters; an empty tuple means "all". NULL values are selected as '(none)'."""

    corpus: tuple[str, ...] = ()
    subset: tuple[str, ...] = ()
    language: tuple[str, ...] = ()
    domain: tuple[str, ...] = ()

    def where(self, alias: str = "c") -> tuple[str, list[str]]:
        """SQL predicate over `conversations` (aliased ``alias``) and its parameters."""
        clauses, params = [], []
        for attr, column in FILTER_COLUMNS.items():
            values = getattr(self, attr)
            if values:
                marks = ", ".join("?" for _ in values)
                clauses.append(f"coalesce({alias}.{column}, '{NONE_LABEL}') in ({marks})")
                params.extend(values)
        return (" and ".join(clauses) or "true"), params

    def is_empty(self) -> bool:
        return not any(getattr(self, attr) for attr in FILTER_COLUMNS)


#: no filter: every conversation (the pages' default)
NO_FILTERS = Filters()


def _corpus_clause(corpora: Sequence[str], column: str = "corpus") -> tuple[str, list[str]]:
    if not corpora:
        return "true", []
    return f"{column} in ({', '.join('?' for _ in corpora)})", list(corpora)
