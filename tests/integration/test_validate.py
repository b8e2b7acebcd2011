"""Expectation suites end to end on the generated sample, built by the real ingest + dbt build.

A clean copy passes every critical expectation (the sample's upstream quirks only warn), and
each deliberately corrupted copy (made by SQL on a copy of the file) fails on the expectation
meant to catch it, one corruption per suite at least. Keys, not-nulls, ranges, closed
vocabularies, references and the SQL marts' schemas are dbt's (expectations/README.md, "Who
owns which check"); their corruptions are in tests/integration/test_dbt_checks.py.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import duckdb
import pytest
from validate_corruptions import CORRUPTIONS, WARNING_CORRUPTIONS

from csrwh.gate import load_suites
from csrwh.gate.run import DQ_RESULTS, gate, raw_gate, validate
from ingest.registry import raw_tables

# --- the warehouse: the generated sample through the real pipeline ----------------------------
# `sample_warehouse` (tests/conftest.py): `csrwh sample` at its smallest scale (1, seed 0) through
# the real ingest, `dbt build` and the gate, once per test session. Each test gets its own copy,
# without the build's recorded results (the state the gate sees), and corrupts it by SQL.

RAW_TABLES = raw_tables()  # the ingest registry: every raw table


@pytest.fixture()
def warehouse(sample_warehouse: Path, tmp_path: Path) -> Path:
    """A fresh copy of the built sample, to corrupt."""
    copy = tmp_path / "copy.duckdb"
    shutil.copy(sample_warehouse, copy)
    with duckdb.connect(str(copy)) as con:
        con.execute(f"drop table if exists {DQ_RESULTS}")
    return copy


def _run(database: Path, suites: list[str] | None = None, **kwargs):
    kwargs.setdefault("data_docs_dir", None)
    kwargs.setdefault("record", False)
    return validate(database, run_id="test", suites=suites, **kwargs)


def _failed(report) -> set[str]:
    return {f"{o.suite}:{o.expectation}" for o in report.outcomes if not o.success}


# --- clean build -----------------------------------------------------------------------------


def test_clean_warehouse_passes_every_expectation(warehouse: Path) -> None:
    report = _run(warehouse)
    assert len(report.suites) == len(load_suites())
    assert [o.message() for o in report.critical_failures] == []
    # the sample writes upstream quirks (a duplicate vote session, an empty utterance, a vote
    # without one of its dialogues): each may only warn
    assert all(o.severity == "warning" for o in report.outcomes if not o.success)
    # every expectation produced an observed value (the DuckDB fetch fix is in effect)
    assert all(o.error is None and o.observed_value is not None for o in report.outcomes)


def test_a_repeated_vote_session_only_warns(warehouse: Path) -> None:
    """The sample repeats one vote (an upstream quirk it writes on purpose): GX's compound
    uniqueness names the repeated (file, session) and only warns."""
    with duckdb.connect(str(warehouse)) as con:
        repeated = con.execute(
            "select source_path, record_key, count(*) from raw.crsarena__votes "
            "group by all having count(*) > 1"
        ).fetchall()
    assert repeated
    report = _run(warehouse, ["raw.crsarena__votes"])
    failed = {o.expectation: o for o in report.outcomes if not o.success}
    outcome = failed["session_id_unique_per_file"]
    assert outcome.severity == "warning" and outcome.error is None
    assert outcome.observed_value not in (None, 0, [], {})
    assert {(*r["value"], r["count"]) for r in outcome.offending_rows} == set(repeated)
    assert not report.critical_failures


def test_empty_corpora_are_legitimate(warehouse: Path) -> None:
    """Absent corpora leave empty raw tables and no mart rows; nothing fails for that."""
    with duckdb.connect(str(warehouse)) as con:
        for table in RAW_TABLES:
            if not table.startswith("cosrec"):
                con.execute(f"delete from raw.{table}")
        for suite in load_suites(select=["marts"]):
            columns = {r[0] for r in con.execute(f"describe {suite.table}").fetchall()}
            if "corpus" in columns:
                con.execute(f"delete from {suite.table} where corpus <> 'cosrec'")
            else:
                con.execute(f"delete from {suite.table}")
    report = _run(warehouse)
    assert [o.message() for o in report.critical_failures] == []


# --- corrupted copies: each fails on the intended expectation ------------------------------

# the corruptions, one per suite at least: tests/integration/validate_corruptions.py


@pytest.mark.parametrize(
    ("suite", "corruption", "expectation", "severity"),
    [(*c[1:], "critical") for c in CORRUPTIONS]
    + [(*c[1:], "warning") for c in WARNING_CORRUPTIONS],
    ids=[c[0] for c in CORRUPTIONS] + [f"warns-{c[0]}" for c in WARNING_CORRUPTIONS],
)
def test_corruption_fails_on_the_intended_expectation(
    warehouse: Path, suite: str, corruption: str, expectation: str, severity: str
) -> None:
    """Each corrupted copy fails on its expectation with that expectation's severity, naming an
    observed value and offending rows; a warning never blocks publishing."""
    with duckdb.connect(str(warehouse)) as con:
        con.execute(corruption)
    report = _run(warehouse, [suite])
    failed = {o.expectation: o for o in report.outcomes if not o.success}
    assert expectation in failed, (
        f"{suite}: expected {expectation} to fail; failed: {sorted(failed)}"
    )
    outcome = failed[expectation]
    assert outcome.severity == severity and outcome.error is None
    assert outcome.observed_value not in (None, 0, [], {})
    assert outcome.offending_rows or outcome.expectation == "columns_match_contract"
    if severity == "warning":
        assert not report.critical_failures


def test_every_suite_has_a_corruption_test() -> None:
    suites = {s.name for s in load_suites()}
    assert suites == {c[1] for c in CORRUPTIONS + WARNING_CORRUPTIONS}


# --- recording, gate, docs ---------------------------------------------------------------------


def test_results_land_in_dq_results(warehouse: Path) -> None:
    with duckdb.connect(str(warehouse)) as con:
        con.execute(
            "update main.ratings set value = 9, value_normalized = 2 where aspect = 'fluency'"
        )
        # the rows the corruption puts off their scale, counted here from the ratings themselves
        off_scale = con.execute(
            "select count(*) from main.ratings where aspect = 'fluency' and 9 > scale_max"
        ).fetchone()[0]
    assert off_scale > 0
    first = validate(warehouse, run_id="run-1", suites=["ratings", "turns"], data_docs_dir=None)
    validate(
        warehouse, run_id="run-1", suites=["ratings", "turns"], data_docs_dir=None
    )  # replaces, not appends
    validate(warehouse, run_id="run-2", suites=["turns"], data_docs_dir=None)
    votes = validate(warehouse, run_id="run-2", suites=["votes"], data_docs_dir=None)  # adds
    with duckdb.connect(str(warehouse), read_only=True) as con:
        counts = dict(
            con.execute(f"select run_id, count(*) from {DQ_RESULTS} group by run_id").fetchall()
        )
        failing = con.execute(
            f"select suite, expectation, severity, success, observed_value, offending_rows, validated_at "
            f"from {DQ_RESULTS} where run_id = 'run-1' and not success order by expectation"
        ).fetchall()
        columns = [r[0] for r in con.execute(f"describe {DQ_RESULTS}").fetchall()]
    assert counts == {
        "run-1": len(first.outcomes),
        "run-2": sum(o.suite == "turns" for o in first.outcomes) + len(votes.outcomes),
    }
    assert columns == [
        "run_id",
        "validated_at",
        "suite",
        "table_name",
        "expectation",
        "expectation_type",
        "severity",
        "success",
        "observed_value",
        "offending_rows",
        "error",
        "why",
    ]
    by_name = {row[1]: row for row in failing}
    off = by_name["value_at_most_scale_max"]
    assert off[:4] == ("ratings", "value_at_most_scale_max", "critical", False)
    # GX's own result: the unexpected count, and offending rows naming the ratings (the suite's
    # index_columns) with the (scale_max, value) each failed on
    assert json.loads(off[4])["unexpected_count"] == off_scale
    offending = json.loads(off[5])
    assert 0 < len(offending) <= 5
    with duckdb.connect(str(warehouse), read_only=True) as con:
        for row in offending:
            assert row["aspect"] == "fluency" and row["value"] == 9.0
            assert con.execute(
                "select count(*) from main.ratings where conversation_id = ? and rater_id = ? "
                "and aspect = ? and value = 9",
                [row["conversation_id"], row["rater_id"], row["aspect"]],
            ).fetchone()[0]
    assert off[6] is not None


def test_gate_returns_only_critical_failures(
    warehouse: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # the gate renders Data Docs beside the warehouse, not here
    with duckdb.connect(str(warehouse)) as con:
        con.execute("update main.votes set conversation_id_b = null")
    assert gate(warehouse, "build-ok") == []  # an unlinked vote is only a warning
    with duckdb.connect(str(warehouse)) as con:
        con.execute("delete from main.conversations where conversation_id = 'convsearch:1'")
    messages = gate(warehouse, "build-bad")
    assert messages, "a lost conversation must block publishing"
    # (its orphan turns are dbt's references_turns, which the gate does not run)
    lost = [m for m in messages if "one_conversation_per_ingested_record" in m]
    assert (
        lost and "conversations" in lost[0] and "convsearch" in lost[0] and "observed 1" in lost[0]
    )
    assert not any("dialogue_b_linked" in m for m in messages)
    assert (warehouse.with_name(warehouse.name + ".data_docs") / "index.html").is_file()
    assert not (tmp_path / "reports").exists()


def test_data_docs_are_rendered(warehouse: Path, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    stale = docs / "validations" / "old.html"
    stale.parent.mkdir(parents=True)
    stale.write_text("stale")
    report = _run(warehouse, ["raw.crsarena__votes", "votes"], data_docs_dir=docs)
    assert report.data_docs_index == docs / "index.html" and report.data_docs_index.is_file()
    pages = list((docs / "validations").rglob("*.html"))
    assert len(pages) == 2 and not stale.exists()
    page = next(p for p in pages if "votes" in p.parts and "raw" not in p.parts).read_text(
        encoding="utf-8"
    )
    assert "vote_order_contiguous" in page and "critical" in page
    # a built-in in GX's own words (then the reason), its parameters filled in
    raw_page = next(p for p in pages if "crsarena__votes" in str(p.relative_to(docs)))
    raw_text = raw_page.read_text(encoding="utf-8")
    assert "must be unique together: source_path record_key." in raw_text


def test_missing_table_is_a_critical_failure(warehouse: Path) -> None:
    with duckdb.connect(str(warehouse)) as con:
        con.execute("drop table main.annotator_agreement")
    report = _run(warehouse, ["annotator_agreement"])
    assert [(o.expectation, o.severity, o.success) for o in report.outcomes] == [
        ("table_exists", "critical", False)
    ]
    assert "does not exist" in report.outcomes[0].message()


def test_missing_database_is_a_clear_error(tmp_path: Path) -> None:
    from csrwh.errors import CsrwhError

    with pytest.raises(CsrwhError, match="does not exist"):
        validate(tmp_path / "nope.duckdb", run_id="x")


def test_raw_gate_checks_raw_suites_only_and_records_nothing(warehouse: Path) -> None:
    with duckdb.connect(str(warehouse)) as con:
        con.execute("update main.votes set winner = 'c'")  # a mart problem: not the raw gate's
    assert raw_gate(warehouse, "early") == []
    with duckdb.connect(str(warehouse)) as con:
        con.execute(
            "update raw.crsarena__votes set payload = json_object('session_id', payload->>'session_id', "
            "'user_id', 'u1', 'crs1', 'kbrd_redial', 'crs2', 'chatgpt_redial', 'vote', 'crs3', 'feedback', '')"
        )
        assert con.execute(
            "select count(*) from information_schema.tables where table_name = 'dq_results'"
        ).fetchone() == (0,)
    messages = raw_gate(warehouse, "early")
    assert len(messages) == 1 and "raw.crsarena__votes › vote_in_vocabulary" in messages[0]
