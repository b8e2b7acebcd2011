"""The published figures as data: ``notebooks/published_figures/<corpus>.csv``, one row per
figure a corpus's authors state (its source, published value and precision, and the metric
that recomputes it). The one place that reads those files: the comparison
(:func:`csrwh.reading.figures.compare`), the corpus sections' marks and captions
(:func:`published_values`) and the tests read them through here."""

from __future__ import annotations

import csv
from pathlib import Path

from csrwh.config import PROJECT_ROOT
from ingest import registry

PUBLISHED_DIR = PROJECT_ROOT / "notebooks" / "published_figures"
COLUMNS = [
    "figure_id",
    "corpus",
    "subsets",
    "figure",
    "published",
    "precision",
    "metric",
    "args",
    "alt_figure",
    "alt_metric",
    "alt_args",
    "definition",
    "explanation",
    "source",
]


def corpora(folder: Path | None = None) -> tuple[str, ...]:
    """The corpora with published figures: the registry's corpora, in its order, that have a
    ``<corpus>.csv`` in ``folder`` (:data:`PUBLISHED_DIR`)."""
    folder = PUBLISHED_DIR if folder is None else folder
    return tuple(c for c in registry.names() if (folder / f"{c}.csv").is_file())


def __getattr__(name: str) -> tuple[str, ...]:  # CORPORA: looked up on use, not at import
    if name == "CORPORA":
        return corpora()
    raise AttributeError(name)


def load_published(folder: Path | None = None) -> list[dict[str, str]]:
    """Every published figure, corpus by corpus in display order, rows in file order
    (``folder``: :data:`PUBLISHED_DIR`)."""
    folder = PUBLISHED_DIR if folder is None else folder
    rows: list[dict[str, str]] = []
    for corpus in corpora(folder):
        path = folder / f"{corpus}.csv"
        with open(path, encoding="utf-8", newline="") as fh:
            reader = csv.DictReader(fh)
            if reader.fieldnames != COLUMNS:
                raise ValueError(f"{path}: columns {reader.fieldnames} are not {COLUMNS}")
            rows.extend(reader)
    return rows


def published_values(corpus: str, prefix: str = "", folder: Path | None = None) -> dict[str, float]:
    """Figure id -> published value of ``corpus``'s figures whose id starts with ``prefix``
    (what a plot marks and a caption quotes: never a copy of the number in code)."""
    return {
        r["figure_id"]: float(r["published"])
        for r in load_published(folder)
        if r["corpus"] == corpus and r["figure_id"].startswith(prefix)
    }


def published_texts(corpus: str, prefix: str = "", folder: Path | None = None) -> dict[str, str]:
    """Figure id -> published value as printed at its published precision (``0.700``), for the
    captions that quote them."""
    return {
        r["figure_id"]: f"{float(r['published']):,.{max(int(r['precision']), 0)}f}"
        for r in load_published(folder)
        if r["corpus"] == corpus and r["figure_id"].startswith(prefix)
    }
