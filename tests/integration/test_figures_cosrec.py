"""CoSRec README figures: the published rows, the floating-point explanation of the average
histogram, and -- on the generated sample -- `conversation_quality` and the CoSRec report
marts: invariants, and every one of their dbt tests failing once on a corrupted copy."""

from __future__ import annotations

import csv
import shutil
from fractions import Fraction
from pathlib import Path

import duckdb
import pytest

from csrwh.pipeline.dbt_runner import run_dbt
from csrwh.reading.figures import COLUMNS, PUBLISHED_DIR, cosrec, metrics, parse_args

QUALITY_MARTS = [
    "conversation_quality",
    "cosrec_quality_average_histogram",
    "cosrec_quality_aspect_histogram",
    "cosrec_judgments_per_intent_histogram",
]


def _published() -> list[dict[str, str]]:
    with open(PUBLISHED_DIR / "cosrec.csv", encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def test_readme_histogram_rows_are_complete_and_well_formed() -> None:
    rows = _published()
    registry = metrics()
    ids = [r["figure_id"] for r in rows]
    assert len(ids) == len(set(ids))
    avg = [r for r in rows if r["figure_id"].startswith("cosrec.avg_quality.")]
    aspect = [r for r in rows if r["figure_id"].startswith("cosrec.aspect_rating.")]
    judged = [r for r in rows if r["figure_id"].startswith("cosrec.judgments_per_intent.")]
    assert (len(avg), len(aspect), len(judged)) == (8, 20, 33)
    # every README histogram of quality counts 312 conversations; the judgments one 105 intents per grade
    assert sum(float(r["published"]) for r in avg) == 312
    for name in cosrec.README_ASPECTS:
        assert sum(float(r["published"]) for r in aspect if f".{name}." in r["figure_id"]) == 312
    for grade in (0, 1, 2):
        assert (
            sum(float(r["published"]) for r in judged if r["figure_id"].split(".")[2] == str(grade))
            == 105
        )
    for r in avg + aspect + judged:
        assert list(r) == COLUMNS and r["precision"] == "0"
        assert r["metric"] in registry and (not r["alt_metric"] or r["alt_metric"] in registry)
        assert parse_args(r["args"]) and "Read off the image" in r["explanation"]
        assert r["source"].startswith("CoSRec README.md, figure images/")


def test_float_order_average_reproduces_the_readme_edge_case(duck) -> None:
    """CoSRec-Crowd_5: aspect means 4.6, 4.6, 3.2, 3.6 average exactly 4, but summed in the
    README's aspect order in binary floating point they give 3.9999999999999996."""
    duck.execute("""create table ratings (conversation_id varchar, rater_id varchar, aspect varchar,
                    value double, corpus varchar, turn_index integer, item_id varchar)""")
    values = {
        "fluency": [5, 5, 5, 4, 4],
        "informativeness": [5, 5, 4, 4, 5],
        "logicality": [3, 3, 4, 3, 3],
        "coherence": [4, 3, 4, 4, 3],
    }
    for aspect, vs in values.items():
        for k, v in enumerate(vs):
            duck.execute(
                "insert into ratings values ('c5', ?, ?, ?, 'cosrec', null, null)",
                [f"r{k}", aspect, v],
            )
    exact = sum(Fraction(sum(vs), len(vs)) for vs in values.values()) / 4
    assert exact == 4
    assert cosrec.float_order_averages(duck) == [3.9999999999999996]
    alt = metrics()["cosrec_average_quality_bin_float_order"]
    assert alt.value(duck, {"lower": "3.5", "upper": "4.0"}) == 1
    assert alt.value(duck, {"lower": "4.0", "upper": "4.5"}) == 0


# --------------------------------------------------------------------------- on the sample


def test_conversation_quality_on_the_sample(sample_warehouse: Path) -> None:
    with duckdb.connect(str(sample_warehouse), read_only=True) as con:
        rows = con.execute("""select conversation_id, rater_kind, aspect, is_overall, n_aspects, n_annotators,
                                     n_ratings, mean_value, mean_normalized
                              from conversation_quality where corpus = 'cosrec'""").fetchall()
        ratings = con.execute("""select conversation_id, aspect, rater_id, value from ratings
                                 where corpus = 'cosrec' and turn_index is null""").fetchall()
        corpora = {
            r[0] for r in con.execute("select distinct corpus from conversation_quality").fetchall()
        }
    assert corpora == {"cosrec", "crsarena", "convsearch", "recllmsim", "recoreact", "custom"}
    by: dict[tuple[str, str], list[tuple[str, float]]] = {}
    for conversation, aspect, rater, value in ratings:
        by.setdefault((conversation, aspect), []).append((rater, value))
    overall: dict[str, list[Fraction]] = {}
    for (conversation, aspect), given in by.items():
        overall.setdefault(conversation, []).append(Fraction(sum(v for _, v in given)) / len(given))
    seen = 0
    for conversation, kind, aspect, is_overall, n_aspects, n_annotators, n_ratings, mean, _ in rows:
        assert kind == "crowd"
        if is_overall:
            means = overall[conversation]
            assert (aspect, n_aspects) == ("overall", len(means))
            assert mean == pytest.approx(float(sum(means) / len(means)), abs=1e-10)
        else:
            given = by[(conversation, aspect)]
            assert (n_aspects, n_ratings, n_annotators) == (
                1,
                len(given),
                len({r for r, _ in given}),
            )
            assert mean == pytest.approx(sum(v for _, v in given) / len(given), abs=1e-10)
        seen += 1
    assert seen == len(by) + len(overall)


def _corrupt(con, table: str, k: int, assignment: str) -> None:
    con.execute(
        f"update main.{table} set {assignment} where rowid = (select min(rowid) + {k} from main.{table})"
    )


def test_every_quality_mart_test_fails_on_a_corrupted_copy(
    sample_warehouse: Path, tmp_path: Path, isolated_dbt_target: Path
) -> None:
    clean = run_dbt(["test", "--select", *QUALITY_MARTS], sample_warehouse, quiet=True)
    assert clean.success, clean.failures
    tests = set(clean.timings)
    assert len(tests) == 9  # model_rules per model, plus references etc. (macros/tests/)
    corrupted = tmp_path / "corrupted.duckdb"
    shutil.copy2(sample_warehouse, corrupted)
    with duckdb.connect(str(corrupted)) as con:
        q = "conversation_quality"
        con.execute(
            f"update main.{q} set aspect = 'total' where rowid = (select min(rowid) from main.{q} where is_overall)"
        )
        con.execute(
            f"update main.{q} set n_aspects = 0 where rowid = (select max(rowid) from main.{q} where is_overall)"
        )
        con.execute(
            f"update main.{q} set n_aspects = 2 where rowid = (select min(rowid) from main.{q} where not is_overall)"
        )
        _corrupt(con, q, 1, "conversation_id = 'cosrec:no-such-conversation'")
        _corrupt(con, q, 2, "n_ratings = null")
        _corrupt(con, q, 3, "mean_normalized = 1.5")
        con.execute(
            f"update main.{q} set mean_value = null where rowid = (select max(rowid) from main.{q} where not is_overall)"
        )
        con.execute(
            f"update main.{q} set mean_normalized = null where rowid = (select min(rowid) from main.{q} "
            f"where is_overall and rowid > (select min(rowid) from main.{q} where is_overall))"
        )
        con.execute(
            f"update main.{q} set mean_value = scale_max + 1 where rowid = "
            f"(select max(rowid) from main.{q} where scale_max is not null and mean_value is not null)"
        )
        _corrupt(con, q, 5, "n_annotators = n_ratings + 1")
        con.execute(
            f"insert into main.{q} select * from main.{q} where rowid = (select min(rowid) + 6 from main.{q})"
        )
        for table, bad_bin in (
            ("cosrec_quality_average_histogram", "bin_upper = bin_lower + 1"),
            ("cosrec_judgments_per_intent_histogram", "bin_upper = bin_lower + 30"),
        ):
            _corrupt(con, table, 0, "bin_index = 1000")
            _corrupt(con, table, 1, bad_bin)
            con.execute(
                f"insert into main.{table} select * from main.{table} where rowid = (select min(rowid) + 2 from main.{table})"
            )
        a = "cosrec_quality_average_histogram"
        _corrupt(con, a, 3, "share = null")
        _corrupt(con, a, 4, "n_conversations = -1")
        _corrupt(con, a, 5, "share = 2")
        s = "cosrec_quality_aspect_histogram"
        _corrupt(con, s, 0, "rating = 6")
        _corrupt(con, s, 1, "share = null")
        _corrupt(con, s, 2, "n_conversations = -1")
        _corrupt(con, s, 3, "share = 2")
        con.execute(
            f"insert into main.{s} select * from main.{s} where rowid = (select min(rowid) + 4 from main.{s})"
        )
        j = "cosrec_judgments_per_intent_histogram"
        _corrupt(con, j, 3, "grade = 3")
        _corrupt(con, j, 4, "grade_label = null")
        _corrupt(con, j, 5, "n_intents = -1")
    broken = run_dbt(["test", "--select", *QUALITY_MARTS], corrupted, quiet=True)
    assert not broken.success
    failed = {f.split(":", 1)[0] for f in broken.failures}
    assert failed == tests, sorted(tests - failed)
