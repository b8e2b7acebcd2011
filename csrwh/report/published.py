"""Section 2 of the report: every published figure beside the warehouse's.

The comparison itself (metric per figure, rounding as published, status) is
:func:`csrwh.figures.compare`; this module turns it into what the report shows and writes:
``tables/published_vs_warehouse.csv``, a one-line tally of statuses, and per corpus one table
of figures at the published precision, CRSArena's per-system and per-cell figures folded
under a ``<details>``. The notebook calls :func:`show_comparison` and holds no logic.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

from csrwh.report.notebook import show_html, table_html, write_table
from csrwh.report.settings import CORPUS_NAMES

#: the displayed comparison's columns, in order
DISPLAY_COLUMNS = (
    "figure",
    "published",
    "warehouse",
    "difference",
    "status",
    "definition",
    "explanation",
)
#: right-aligned (numbers as text)
RIGHT = ("published", "warehouse", "difference")


def per_system(figure_id: str) -> bool:
    """CRSArena per-system and per-cell figures (four-part ids: Elo, rank, dialogues, lengths,
    satisfaction, battle matrix of one system/environment), folded away in the report; the
    correlations and vote results (``crsarena.corr.*``, ``crsarena.vote_result.*``) are not."""
    parts = figure_id.split(".")
    return parts[0] == "crsarena" and len(parts) >= 4 and parts[1] not in ("corr", "vote_result")


def format_row(row: Mapping[str, Any], precision: int) -> dict[str, str | None]:
    """One comparison row as displayed: the published value at its precision (negative
    precisions shown as integers), the unrounded warehouse value (integers as such, fractions
    with two more decimals than published), the signed difference at the published precision
    (``0`` unsigned)."""
    d = max(precision, 0)
    value, diff = row["warehouse"], row["difference"]
    return {
        "figure": row["figure"],
        "published": f"{row['published']:,.{d}f}",
        "warehouse": None if value is None else f"{value:,.{0 if value.is_integer() else d + 2}f}",
        "difference": None if diff is None else (f"{0:.{d}f}" if diff == 0 else f"{diff:+,.{d}f}"),
        "status": row["status"],
        "definition": row["definition"],
        "explanation": row["explanation"],
    }


def comparison_rows(part, precision: Mapping[str, int]):
    """Published vs warehouse (polars, every column text) for the rows of ``part``;
    ``precision`` maps figure id -> published precision."""
    import polars as pl

    shown = [format_row(r, precision[r["figure_id"]]) for r in part.to_dicts()]
    return pl.DataFrame(shown, schema={k: pl.Utf8 for k in DISPLAY_COLUMNS})


def status_tally(frame) -> list[tuple[str, int]]:
    """(status, number of figures) in status order."""
    return [(s, n) for s, n in frame.group_by("status").len().sort("status").iter_rows()]


def summary_html(comparison) -> str:
    """``Figures compared: <n> match, ... (of <total>).``"""
    return (
        "<p>Figures compared: "
        + ", ".join(f"<strong>{n}</strong> {s}" for s, n in status_tally(comparison))
        + f" (of {comparison.height}).</p>"
    )


def corpus_html(
    comparison, corpus: str, precision: Mapping[str, int], name: str | None = None
) -> str | None:
    """The corpus's heading, its table, its folded per-system figures (if any) and its sources;
    None when the comparison has no row of ``corpus``."""
    import polars as pl

    part = comparison.filter(pl.col("corpus") == corpus)
    if part.is_empty():
        return None
    folds = part["figure_id"].map_elements(per_system, return_dtype=pl.Boolean)
    folded, main = part.filter(folds), part.filter(~folds)
    sources = sorted(set(part["source"].to_list()))
    html_parts = [
        f"<h3>{name or corpus}</h3>",
        table_html(comparison_rows(main, precision), row_class="status", right=RIGHT),
    ]
    if not folded.is_empty():
        tally = ", ".join(f"{n} {s}" for s, n in status_tally(folded))
        html_parts.append(
            f"<details><summary>Per-system figures ({folded.height}: {tally})</summary>"
            + table_html(comparison_rows(folded, precision), row_class="status", right=RIGHT)
            + "</details>"
        )
    html_parts.append(
        '<p class="caption">Sources: ' + " | ".join(html.escape(x) for x in sources) + "</p>"
    )
    return "".join(html_parts)


def show_comparison(
    con,
    present: Mapping[str, Sequence[str]],
    published: Sequence[Mapping[str, str]] | None = None,
    names: Mapping[str, str] = CORPUS_NAMES,
):
    """Compare every published figure with the warehouse, write
    ``published_vs_warehouse.csv``, show the tally and one table per corpus (in ``names``
    order); returns the comparison (polars)."""
    from csrwh import figures

    rows = list(published) if published is not None else figures.load_published()
    comparison = figures.compare(con, present, rows)
    write_table(comparison, "published_vs_warehouse")
    show_html(summary_html(comparison))
    precision = {r["figure_id"]: int(r["precision"]) for r in rows}
    for corpus in names:
        part = corpus_html(comparison, corpus, precision, names[corpus])
        if part is not None:
            show_html(part)
    return comparison
