"""Section 2 of the report: every published figure beside the warehouse's.

The comparison itself (metric per figure, rounding as published, status) is
:func:`csrwh.reading.figures.compare`; this module turns it into what the report shows and writes:
``tables/published_vs_warehouse.csv``, a one-line tally of statuses, an overview table (per
corpus: match / explained / differs / not derivable / not present) and per corpus a block:
its tally, the figures that differ in the open, and every figure at the published precision
folded under a ``<details>`` (CRSArena's per-system and per-cell figures in one of their
own); a corpus missing from the warehouse is one line, its figures folded under it. The notebook calls :func:`show_comparison` and holds no logic.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

from csrwh.reading import figures
from csrwh.reading.report.notebook import show_html, table_html, write_table
from csrwh.reading.report.page import _slug
from csrwh.reading.report.settings import CORPUS_NAMES

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


#: how the overview table groups statuses (``subset not present: …`` is one kind)
KINDS = ("match", "explained", "differs", "not derivable", "not present")
ABSENT = "corpus not present in this warehouse"


def kind(status: str) -> str:
    """A status's column in the overview: ``not present`` for a missing subset or corpus."""
    return "not present" if "not present" in status else status


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


def anchor(corpus: str) -> str:
    return f"published-{_slug(corpus)}"


def overview_html(comparison, names: Mapping[str, str] = CORPUS_NAMES) -> str:
    """One row per corpus with published figures: how many match, are explained, differ, are
    not derivable or not present (subset or corpus), and the total; the corpus links to its
    block below."""
    import polars as pl

    head = "".join(f"<th>{k}</th>" for k in ("corpus", *KINDS, "total"))
    rows = []
    for corpus, name in names.items():
        part = comparison.filter(pl.col("corpus") == corpus)
        if part.is_empty():
            continue
        counts = dict.fromkeys(KINDS, 0)
        for status, n in status_tally(part):
            counts[kind(status)] += n
        cells = "".join(
            f'<td class="num {_slug(k)}">{counts[k]:,}</td>'
            if counts[k]
            else '<td class="null">–</td>'
            for k in KINDS
        )
        rows.append(
            f'<tr><td><a href="#{anchor(corpus)}">{html.escape(name)}</a></td>{cells}'
            f'<td class="num">{part.height:,}</td></tr>'
        )
    return (
        '<div class="table-wrap"><table class="report published-overview">'
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
    )


#: an explanation at least this long, shared by several rows of one table, is written once
#: below the table and each row points to it
SHARED_NOTE_CHARS = 200
#: a corpus's figures that differ are shown in the open up to this many, folded beyond
MAX_OPEN_DIFFERS = 10


def shared_notes(shown) -> tuple[Any, list[str]]:
    """``shown`` (:func:`comparison_rows`) with each long explanation that several rows share
    replaced by ``See note <n> below the table.``, and the notes in order."""
    import polars as pl

    texts = [t for t in shown["explanation"].to_list() if t and len(t) >= SHARED_NOTE_CHARS]
    notes = [t for t in dict.fromkeys(texts) if texts.count(t) > 1]
    if not notes:
        return shown, []
    number = {t: i + 1 for i, t in enumerate(notes)}
    pointed = [
        f"See note {number[t]} below the table." if t in number else t
        for t in shown["explanation"].to_list()
    ]
    return shown.with_columns(pl.Series("explanation", pointed, dtype=pl.Utf8)), notes


def _table(rows, precision: Mapping[str, int]) -> str:
    shown, notes = shared_notes(comparison_rows(rows, precision))
    table = table_html(shown, row_class="status", right=RIGHT, table_class="comparison")
    return table + "".join(
        f'<p class="caption shared-note"><strong>Note {i}.</strong> {html.escape(text)}</p>'
        for i, text in enumerate(notes, 1)
    )


def corpus_html(
    comparison, corpus: str, precision: Mapping[str, int], name: str | None = None
) -> str | None:
    """The corpus's block: a heading and its tally, the figures that differ in the open, every
    figure folded under a ``<details>`` (CRSArena's per-system figures in one of their own)
    and its sources. A corpus missing from the warehouse is one line, its figures folded under
    it. None when the comparison has no row of ``corpus``."""
    import polars as pl

    part = comparison.filter(pl.col("corpus") == corpus)
    if part.is_empty():
        return None
    name = html.escape(name or corpus)
    sources = sorted(set(part["source"].to_list()))
    caption = '<p class="caption">Sources: ' + " | ".join(html.escape(x) for x in sources) + "</p>"
    tally = ", ".join(f"{n} {s}" for s, n in status_tally(part))
    if part["status"].eq(ABSENT).all():
        return (
            f'<section class="published-corpus" id="{anchor(corpus)}"><details class="absent">'
            f"<summary><strong>{name}:</strong> corpus not present in this warehouse; its "
            f"{part.height} published figures are not compared (show them)</summary>"
            f"{_table(part, precision)}{caption}</details></section>"
        )
    folds = part["figure_id"].map_elements(per_system, return_dtype=pl.Boolean)
    folded, main = part.filter(folds), part.filter(~folds)
    differs = part.filter(pl.col("status") == "differs")
    html_parts = [
        f'<section class="published-corpus" id="{anchor(corpus)}"><h3>{name}</h3>',
        f"<p>{part.height} figures: {tally}.</p>",
    ]
    if not differs.is_empty() and differs.height <= MAX_OPEN_DIFFERS:
        html_parts.append(
            '<div class="differs-open"><p class="caption">The figures that differ:</p>'
            + _table(differs, precision)
            + "</div>"
        )
    elif not differs.is_empty():  # e.g. the generated sample: every figure differs by design
        html_parts.append(
            f'<details class="differs-folded"><summary>The {differs.height} figures that differ '
            f"(more than {MAX_OPEN_DIFFERS}, so folded)</summary>"
            + _table(differs, precision)
            + "</details>"
        )
    inner = _table(main, precision)
    if not folded.is_empty():
        folded_tally = ", ".join(f"{n} {s}" for s, n in status_tally(folded))
        inner += (
            f"<details><summary>Per-system figures ({folded.height}: {folded_tally})</summary>"
            + _table(folded, precision)
            + "</details>"
        )
    html_parts.append(
        f'<details class="all-figures"><summary>All {part.height} figures of {name}, '
        f"with definitions and explanations</summary>{inner}</details>"
    )
    html_parts.append(caption + "</section>")
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
    rows = list(published) if published is not None else figures.load_published()
    comparison = figures.compare(con, present, rows)
    write_table(comparison, "published_vs_warehouse")
    show_html(summary_html(comparison) + overview_html(comparison, names))
    precision = {r["figure_id"]: int(r["precision"]) for r in rows}
    for corpus in names:
        part = corpus_html(comparison, corpus, precision, names[corpus])
        if part is not None:
            show_html(part)
    return comparison
