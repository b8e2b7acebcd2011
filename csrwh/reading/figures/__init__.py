"""Published figures: every figure a corpus's authors state, recomputed from the marts.

The figures are data (``notebooks/published_figures/<corpus>.csv``), their metrics one module per
corpus; :func:`compare` evaluates every row against a warehouse as match, explained, differs,
not present or not derivable.
Details: docs/internals.md#csrwh-reading-figures
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from types import ModuleType
from typing import Any

from csrwh.reading.figures import published as _published
from csrwh.reading.figures._metric import Metric
from csrwh.reading.figures.published import (
    COLUMNS,
    PUBLISHED_DIR,
    load_published,
    published_texts,
    published_values,
)

__all__ = [
    "COLUMNS",
    "COMPARISON_COLUMNS",
    "CORPORA",
    "PUBLISHED_DIR",
    "compare",
    "compare_row",
    "corpus_module",
    "load_published",
    "metrics",
    "parse_args",
    "published_texts",
    "published_values",
    "round_as_published",
]

COMPARISON_COLUMNS = [
    "figure_id",
    "corpus",
    "figure",
    "definition",
    "published",
    "warehouse",
    "warehouse_rounded",
    "difference",
    "alt_figure",
    "alt_value",
    "status",
    "explanation",
    "source",
]


def __getattr__(name: str) -> Any:  # CORPORA: the registry's, looked up on use
    if name == "CORPORA":
        return _published.corpora()
    raise AttributeError(name)


def corpus_module(corpus: str) -> ModuleType:
    return importlib.import_module(f"csrwh.reading.figures.{corpus}")


def metrics() -> dict[str, Metric]:
    """Every metric by name (a name is defined once across the corpus modules)."""
    out: dict[str, Metric] = dict(importlib.import_module("csrwh.reading.figures.common").METRICS)
    for corpus in _published.corpora():
        for name, metric in corpus_module(corpus).METRICS.items():
            if name in out:
                raise ValueError(
                    f"metric {name!r} is defined twice (csrwh/reading/figures/{corpus}.py)"
                )
            out[name] = metric
    return out


def parse_args(text: str) -> dict[str, str]:
    return dict(part.split("=", 1) for part in text.split(";") if part) if text else {}


def round_as_published(value: float, precision: int) -> float:
    """Python's round (half to even on the binary value), as the figures' own scripts print."""
    return round(value, precision) + 0.0


def compare_row(
    con,
    row: Mapping[str, str],
    present: Mapping[str, Sequence[str]],
    registry: Mapping[str, Metric],
) -> dict[str, Any]:
    corpus, published, precision = row["corpus"], float(row["published"]), int(row["precision"])
    missing = [s for s in row["subsets"].split(";") if s and s not in present.get(corpus, [])]
    args = parse_args(row["args"])
    metric = registry.get(row["metric"]) if row["metric"] else None
    definition = row["definition"] or (metric.describe(args) if metric else "")
    value = rounded = difference = alt_value = None
    explanation = ""
    if corpus not in present:
        status = "corpus not present in this warehouse"
    elif metric is None:
        status, explanation = "not derivable", row["explanation"]
    else:
        value = metric.value(con, args)
        if value is not None:
            rounded = round_as_published(value, precision)
            difference = round(rounded - published, 9) + 0.0
        if row["alt_metric"]:
            alt_value = registry[row["alt_metric"]].value(con, parse_args(row["alt_args"]) or args)
        if missing and not (value is not None and difference == 0):
            status = "subset not present: " + ", ".join(missing)
            explanation = row["explanation"]
        elif value is None:
            status = "differs"
            explanation = "The warehouse has no value for this figure."
        elif difference == 0:
            status = "match"
            explanation = row["explanation"]  # how it was matched, where that needed saying
        elif alt_value is not None and round_as_published(alt_value, precision) == published:
            status = "explained"
            explanation = f"{row['explanation']} Warehouse {row['alt_figure']}: {alt_value:,.{max(precision, 0)}f}."
        else:
            status = "differs"
            explanation = row["explanation"]
    return {
        "figure_id": row["figure_id"],
        "corpus": corpus,
        "figure": row["figure"],
        "definition": definition or None,
        "published": published,
        "warehouse": value,
        "warehouse_rounded": rounded,
        "difference": difference,
        "alt_figure": row["alt_figure"] or None,
        "alt_value": alt_value,
        "status": status,
        "explanation": explanation or None,
        "source": row["source"],
    }


def compare(
    con, present: Mapping[str, Sequence[str]], published: Sequence[Mapping[str, str]] | None = None
):
    """The comparison table (polars) of every published figure against the warehouse."""
    import polars as pl

    registry = metrics()
    rows = [compare_row(con, row, present, registry) for row in (published or load_published())]
    schema = {name: pl.Utf8 for name in COMPARISON_COLUMNS}
    schema.update(
        {
            name: pl.Float64
            for name in ("published", "warehouse", "warehouse_rounded", "difference", "alt_value")
        }
    )
    return pl.DataFrame(rows, schema=schema)
