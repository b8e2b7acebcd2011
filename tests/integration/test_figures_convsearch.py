"""ConvSearch statistical analysis: the published rows, every metric computing on the generated
sample (ConvSearch is in it; the real corpus is not available), the report marts agreeing with
plain rows, and every one of their dbt tests failing once on a corrupted copy."""

from __future__ import annotations

import csv
import shutil
from collections import Counter
from pathlib import Path

import duckdb

from csrwh.pipeline.dbt_runner import run_dbt
from csrwh.reading import report as R
from csrwh.reading.figures import COLUMNS, PUBLISHED_DIR, compare, metrics, parse_args

CONVSEARCH_MARTS = [
    "convsearch_topic_distribution",
    "convsearch_annotation_distribution",
    "convsearch_click_ratio_by_position",
]


def _published() -> list[dict[str, str]]:
    with open(PUBLISHED_DIR / "convsearch.csv", encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def test_statistical_analysis_rows_are_complete_and_well_formed() -> None:
    rows = _published()
    registry = metrics()
    ids = [r["figure_id"] for r in rows]
    assert len(ids) == len(set(ids))
    groups = Counter(
        i.split(".")[1] for i in ids if i.split(".")[1] in ("topic", "table2", "click_ratio")
    )
    assert groups == {"topic": 8, "table2": 50, "click_ratio": 11}
    # Figure 2's shares sum to 100 (as printed: 100.01); each Table 2 row to 100 within rounding
    assert abs(sum(float(r["published"]) for r in rows if ".topic." in r["figure_id"]) - 100) < 0.02
    table2 = Counter()
    for r in rows:
        if ".table2." in r["figure_id"]:
            table2[r["figure_id"].split(".")[2]] += float(r["published"])
    assert len(table2) == 10 and all(abs(v - 100) < 0.03 for v in table2.values())
    for r in rows:
        assert list(r) == COLUMNS and r["metric"] in registry, r["figure_id"]
        if r["figure_id"].split(".")[1] in ("topic", "table2", "click_ratio"):
            assert parse_args(r["args"]) and r["precision"] in ("2", "4") and r["explanation"]
            assert r["source"].startswith("ConvSearch Dataset_Statistical_Analysis.pdf, ")


def test_every_convsearch_metric_computes_on_the_sample(sample_warehouse: Path) -> None:
    con = R.connect(sample_warehouse)
    try:
        present = R.present_corpora(con)
        assert "convsearch" in present
        table = compare(con, present, _published())
    finally:
        con.close()
    rows = table.to_dicts()
    assert len(rows) == len(_published())
    for row in rows:
        assert row["warehouse"] is not None, row["figure_id"]
        assert "not present" not in row["status"], row["figure_id"]
    # the sample's topics, grades and ratios are proper shares
    by = {r["figure_id"]: r["warehouse"] for r in rows}
    assert (
        abs(sum(v for k, v in by.items() if ".topic." in k) - 100) < 1e-9
    )  # the sample draws from these 8
    for item in {k.split(".")[2] for k in by if ".table2." in k}:
        assert abs(sum(by[f"convsearch.table2.{item}.{g}"] for g in range(5)) - 100) < 1e-9
    assert all(0 <= by[k] <= 1 for k in by if ".click_ratio." in k)


def test_convsearch_marts_agree_with_plain_rows(sample_warehouse: Path) -> None:
    with duckdb.connect(str(sample_warehouse), read_only=True) as con:
        topics = dict(
            con.execute("select topic, n_dialogues from convsearch_topic_distribution").fetchall()
        )
        dialogues = Counter(
            t
            for (t,) in con.execute(
                "select domain_or_task from conversations where corpus = 'convsearch'"
            ).fetchall()
        )
        assert topics == dict(dialogues)
        grades = {
            (a, g): n
            for a, g, n in con.execute(
                "select aspect, grade, n_ratings from convsearch_annotation_distribution"
            ).fetchall()
        }
        given = Counter(
            (a, int(v))
            for a, v in con.execute(
                "select aspect, value from ratings where corpus = 'convsearch' and value is not null"
            ).fetchall()
        )
        assert {k: v for k, v in grades.items() if v} == dict(given)
        ratio = dict(
            con.execute(
                "select position, n_serp_views_clicked from convsearch_click_ratio_by_position"
            ).fetchall()
        )
        serps: dict[str, set] = {}
        for serp, rank in con.execute(
            "select serp_view_id, rank from result_clicks where click_type = 'content'"
        ).fetchall():
            serps.setdefault(">10" if rank > 10 else str(rank), set()).add(serp)
        assert {k: v for k, v in ratio.items() if v} == {k: len(v) for k, v in serps.items()}
        assert len(ratio) == 11


def _corrupt(con, table: str, k: int, assignment: str) -> None:
    con.execute(
        f"update main.{table} set {assignment} where rowid = (select min(rowid) + {k} from main.{table})"
    )


def _duplicate(con, table: str, k: int) -> None:
    con.execute(
        f"insert into main.{table} select * from main.{table} where rowid = (select min(rowid) + {k} from main.{table})"
    )


def test_every_convsearch_mart_test_fails_on_a_corrupted_copy(
    sample_warehouse: Path, tmp_path: Path, isolated_dbt_target: Path
) -> None:
    clean = run_dbt(["test", "--select", *CONVSEARCH_MARTS], sample_warehouse, quiet=True)
    assert clean.success, clean.failures
    tests = set(clean.timings)
    assert len(tests) == 3  # model_rules per model, plus references etc. (macros/tests/)
    corrupted = tmp_path / "corrupted.duckdb"
    shutil.copy2(sample_warehouse, corrupted)
    with duckdb.connect(str(corrupted)) as con:
        t = "convsearch_topic_distribution"
        _corrupt(con, t, 0, "percent_of_dialogues = null")
        _corrupt(con, t, 1, "n_dialogues = 0")
        _corrupt(con, t, 2, "percent_of_dialogues = 101")
        _duplicate(con, t, 3)
        a = "convsearch_annotation_distribution"
        _corrupt(con, a, 0, "level = 'session'")
        _corrupt(con, a, 1, "n_annotated = null")
        _corrupt(con, a, 2, "grade = 5")
        _corrupt(con, a, 3, "n_ratings = n_annotated + 1")
        _corrupt(con, a, 4, "percent_of_ratings = -1")
        _duplicate(con, a, 5)
        c = "convsearch_click_ratio_by_position"
        _corrupt(con, c, 0, "position = null")
        _corrupt(con, c, 1, "click_ratio = 1.5")
        _corrupt(con, c, 2, "n_serp_views_clicked = n_serp_views + 1")
        _corrupt(con, c, 3, "position_order = 12")
        _duplicate(con, c, 4)
    broken = run_dbt(["test", "--select", *CONVSEARCH_MARTS], corrupted, quiet=True)
    assert not broken.success
    failed = {f.split(":", 1)[0] for f in broken.failures}
    assert failed == tests, sorted(tests - failed)
