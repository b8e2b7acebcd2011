"""Section 2 of the report (csrwh.reading.report.published): which figures fold away, how published
and warehouse values are shown, the per-corpus block and the cell the notebook calls."""

from __future__ import annotations

import polars as pl
import pytest

from csrwh.reading import figures
from csrwh.reading.report import published

COLUMNS = {name: pl.Utf8 for name in figures.COMPARISON_COLUMNS} | {
    name: pl.Float64
    for name in ("published", "warehouse", "warehouse_rounded", "difference", "alt_value")
}


def _row(figure_id: str, status: str, published_value: float, warehouse, source: str) -> dict:
    corpus = figure_id.split(".")[0]
    return {
        "figure_id": figure_id,
        "corpus": corpus,
        "figure": f"figure {figure_id}",
        "definition": None,
        "published": published_value,
        "warehouse": warehouse,
        "warehouse_rounded": None,
        "difference": None if warehouse is None else round(warehouse - published_value, 9),
        "alt_figure": None,
        "alt_value": None,
        "status": status,
        "explanation": None,
        "source": source,
    }


COMPARISON = pl.DataFrame(
    [
        _row("crsarena.votes", "match", 187, 187.0, "README <b>"),
        _row("crsarena.elo.open.kbrd", "differs", 1012, 1003.25, "analysis.ipynb"),
        _row("crsarena.corr.elo.pearson", "match", 0.5, 0.5, "analysis.ipynb"),
        _row("cosrec.conversations", "corpus not present in this warehouse", 10, None, "card"),
    ],
    schema=COLUMNS,
)
PRECISION = {"crsarena.votes": 0, "crsarena.elo.open.kbrd": 0, "crsarena.corr.elo.pearson": 2}
PRECISION["cosrec.conversations"] = 0


@pytest.mark.parametrize(
    ("figure_id", "folded"),
    [
        ("crsarena.elo.open.kbrd_redial", True),
        ("crsarena.dialogues.open.kbrd", True),
        ("crsarena.corr.elo.pearson", False),
        ("crsarena.vote_result.open.a_wins", False),
        ("crsarena.dialogues.open", False),
        ("crsarena.votes", False),
        ("cosrec.crowd.utterances.user", False),
    ],
)
def test_per_system_figures_are_four_part_crsarena_ids(figure_id: str, folded: bool) -> None:
    assert published.per_system(figure_id) is folded


def test_format_row_uses_the_published_precision() -> None:
    row = {"figure": "f", "status": "s", "definition": None, "explanation": None}
    shown = published.format_row(
        {**row, "published": 2329.0, "warehouse": 2329.0, "difference": 0.0}, 0
    )
    assert (shown["published"], shown["warehouse"], shown["difference"]) == ("2,329", "2,329", "0")
    shown = published.format_row(
        {**row, "published": 3.14, "warehouse": 3.14159, "difference": 0.0}, 2
    )
    assert (shown["published"], shown["warehouse"], shown["difference"]) == (
        "3.14",
        "3.1416",
        "0.00",
    )
    shown = published.format_row(
        {**row, "published": 1012.0, "warehouse": 1003.25, "difference": -9.0}, 0
    )
    assert (shown["warehouse"], shown["difference"]) == ("1,003.25", "-9")
    shown = published.format_row(
        {**row, "published": 1500.0, "warehouse": None, "difference": None}, -2
    )
    assert (shown["published"], shown["warehouse"], shown["difference"]) == ("1,500", None, None)


def test_corpus_block_shows_what_differs_and_folds_every_figure() -> None:
    block = published.corpus_html(COMPARISON, "crsarena", PRECISION, "CRSArena-Dial")
    head, rest = block.split('<details class="all-figures">', 1)
    assert head.startswith(
        '<section class="published-corpus" id="published-crsarena"><h3>CRSArena-Dial</h3>'
    )
    assert "<p>3 figures: 1 differs, 2 match.</p>" in head
    # the figure that differs is shown in the open; the others are folded
    assert "figure crsarena.elo.open.kbrd" in head and "figure crsarena.votes" not in head
    main, folded = rest.split("<details>", 1)
    assert "figure crsarena.votes" in main and "figure crsarena.corr.elo.pearson" in main
    assert "<summary>Per-system figures (1: 1 differs)</summary>" in folded
    assert "figure crsarena.elo.open.kbrd" in folded
    assert folded.endswith(
        '</details><p class="caption">Sources: README &lt;b&gt; | analysis.ipynb</p></section>'
    )
    assert 'class="report comparison"' in block  # the column widths of section 2
    assert published.corpus_html(COMPARISON, "recoreact", PRECISION) is None


def test_a_long_explanation_shared_by_rows_is_written_once_and_pointed_to() -> None:
    shared = "Read off the image: " + "bar tops measured in pixels. " * 10  # > 200 characters
    rows = [
        _row(f"cosrec.aspect.{a}", "differs", 10, 11.0, "README") | {"explanation": shared}
        for a in ("fluency", "coherence", "logicality")
    ]
    rows.append(_row("cosrec.other", "differs", 1, 2.0, "README") | {"explanation": "short"})
    comparison = pl.DataFrame(rows, schema=COLUMNS)
    block = published.corpus_html(comparison, "cosrec", dict.fromkeys(comparison["figure_id"], 0))
    opened = block.split('<details class="all-figures">', 1)[0]
    assert opened.count(shared.strip()) == 1  # once, below the table of the figures that differ
    assert opened.count("See note 1 below the table.") == 3
    assert "<strong>Note 1.</strong> " + shared.strip() in opened
    assert ">short<" in opened  # an explanation of one row stays in its row


def test_many_figures_that_differ_are_folded() -> None:
    n = published.MAX_OPEN_DIFFERS + 1
    rows = [_row(f"recoreact.f{i}", "differs", 1, 2.0, "README") for i in range(n)]
    comparison = pl.DataFrame(rows, schema=COLUMNS)
    block = published.corpus_html(
        comparison, "recoreact", dict.fromkeys(comparison["figure_id"], 0)
    )
    assert 'class="differs-open"' not in block
    assert f"<summary>The {n} figures that differ (more than" in block
    few = published.corpus_html(
        comparison.head(n - 1), "recoreact", PRECISION | dict.fromkeys(comparison["figure_id"], 0)
    )
    assert 'class="differs-open"' in few and "differs-folded" not in few


def test_an_absent_corpus_is_one_line_with_its_figures_folded() -> None:
    block = published.corpus_html(COMPARISON, "cosrec", PRECISION, "CoSRec")
    assert block.startswith(
        '<section class="published-corpus" id="published-cosrec"><details class="absent">'
        "<summary><strong>CoSRec:</strong> corpus not present in this warehouse; its 1 "
        "published figures are not compared (show them)</summary>"
    )
    assert "<h3>" not in block and "figure cosrec.conversations" in block


def test_overview_counts_each_kind_per_corpus() -> None:
    table = published.overview_html(COMPARISON, {"cosrec": "CoSRec", "crsarena": "CRSArena-Dial"})
    rows = table.split("<tr>")[2:]
    assert [r[r.index('">') + 2 : r.index("</a>")] for r in rows] == ["CoSRec", "CRSArena-Dial"]
    cells = [c.split(">", 1)[1].split("<")[0] for c in rows[1].split("<td")[2:]]
    # match, explained, differs, not derivable, not present, total
    assert cells == ["2", "–", "1", "–", "–", "3"]
    assert published.kind("subset not present: raw") == "not present"


def test_summary_counts_every_status() -> None:
    assert published.summary_html(COMPARISON) == (
        "<p>Figures compared: <strong>1</strong> corpus not present in this warehouse, "
        "<strong>1</strong> differs, <strong>2</strong> match (of 4).</p>"
    )


def test_show_comparison_writes_the_table_and_shows_one_block_per_corpus(
    monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    from csrwh.reading import report

    shown: list[str] = []
    rows = [{"figure_id": k, "precision": str(v)} for k, v in PRECISION.items()]
    monkeypatch.setenv(report.ENV_TABLES, str(tmp_path))
    monkeypatch.setattr(figures, "compare", lambda con, present, published_rows: COMPARISON)
    monkeypatch.setattr(published, "show_html", shown.append)
    result = published.show_comparison(None, {"crsarena": ["open"]}, rows)
    assert result is COMPARISON
    assert (tmp_path / "published_vs_warehouse.csv").read_text(encoding="utf-8").splitlines()[
        0
    ] == ",".join(figures.COMPARISON_COLUMNS)
    assert shown[0] == published.summary_html(COMPARISON) + published.overview_html(COMPARISON)
    # in display order (CORPUS_NAMES): CoSRec before CRSArena-Dial, corpora without rows skipped
    assert [s[s.index(' id="') + 5 : s.index('">')] for s in shown[1:]] == [
        "published-cosrec",
        "published-crsarena",
    ]
