"""Expected report tables, computed independently of the notebook.

Shared by ``test_report.py`` (generated sample) and ``tests/integration/test_report_real.py``
(real corpora). The report tables that take more than one SQL step (quantiles, medians,
intervals, correlations, rounds, consensus and rating summaries, the published figures) are
recomputed from the marts by a different code path: plain row queries, aggregated in Python
(``collections``, ``statistics``, hand-written ranks and correlations) instead of the
notebook's SQL aggregates, polars and scipy — ``report_oracle/core.py`` for the overview
sections, ``report_oracle/<corpus>.py`` per corpus. This module lists them (``TABLES``) and
:func:`assert_report_tables_match` compares each CSV with them, cell by cell (numbers to 2e-6,
the CSV's 6-decimal rounding). Tables that copy a mart or count with one GROUP BY
(``GOLDEN_ONLY``) are not restated here: the golden files of the sample
(``tests/golden/report/``, ``test_report_golden.py``) pin them.
"""

from __future__ import annotations

import csv
import hashlib
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
from report_oracle import CORPORA as ORACLE_CORPORA
from report_oracle import agreement as agreement_oracle
from report_oracle.common import (  # noqa: F401 - rows, quantile, ... are this module's API too
    Rows,
    average_ranks,
    correlation,
    mean,
    pearson,
    quantile,
    rows,
)
from report_oracle.core import (
    NOT_RECOMPUTED,
    expected_conversation_length,
    expected_convsearch_click_through_by_rank,
    expected_convsearch_dwell_times,
    expected_convsearch_search_behaviour,
    expected_cosrec_judged_items_per_topic,
    expected_crsarena_conversations,
    expected_crsarena_open_closed_correlation,
    expected_intent_consensus_summary,
    expected_published_value,
    expected_rating_summary,
    expected_recoreact_rounds,
    expected_utterance_length,
)

TOL = 2e-6


def read_csv(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    with open(path, encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh)
        return list(reader.fieldnames or []), list(reader)


def _same(actual: str, expected: Any) -> bool:
    if expected is None or (isinstance(expected, float) and math.isnan(expected)):
        return actual == ""
    if isinstance(expected, bool):
        return actual == ("true" if expected else "false")
    if isinstance(expected, (int, float)):
        if actual == "":
            return False
        return math.isclose(float(actual), float(expected), abs_tol=TOL, rel_tol=1e-9)
    return actual == str(expected)


def _canon(value: Any) -> str:
    """A key cell as text, numbers normalised (CSV '3', '3.000000' and SQL 3 agree)."""
    if value is None or value == "":
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    try:
        return repr(round(float(value), 6))
    except (TypeError, ValueError):
        return str(value)


def assert_table(path: Path, expected: Rows, columns: list[str], keys: list[str]) -> None:
    """The CSV has exactly ``columns`` and one row per expected row (matched on ``keys``),
    every cell equal to the expectation."""
    assert path.is_file(), f"missing table {path.name}"
    header, actual = read_csv(path)
    assert header == columns, f"{path.name}: columns {header} != {columns}"
    assert len(actual) == len(expected), (
        f"{path.name}: {len(actual)} rows, expected {len(expected)}"
    )
    by_key = {tuple(_canon(r[k]) for k in keys): r for r in expected}
    assert len(by_key) == len(expected), f"{path.name}: keys {keys} not unique in the expectation"
    for row in actual:
        key = tuple(_canon(row[k]) for k in keys)
        match = by_key.get(key)
        assert match is not None, f"{path.name}: unexpected row {row}"
        for column in columns:
            assert _same(row[column], match[column]), (
                f"{path.name} {dict(zip(keys, key))} {column}: csv {row[column]!r} != sql {match[column]!r}"
            )


def assert_sorted(path: Path, keys: list[str], numeric: set[str] = frozenset()) -> None:
    """Rows are in ascending order of ``keys`` (the stable order the report promises)."""
    _, actual = read_csv(path)

    def conv(column: str, value: str):
        if value == "":
            return (1, 0)
        return (0, float(value)) if column in numeric else (0, value)

    ordered = [tuple(conv(k, r[k]) for k in keys) for r in actual]
    assert ordered == sorted(ordered), f"{path.name}: rows not sorted by {keys}"


PUBLISHED_ORDER = ("cosrec", "crsarena", "convsearch", "recllmsim", "recoreact")


def read_published(published_dir: Path) -> Rows:
    out: Rows = []
    for corpus in PUBLISHED_ORDER:
        path = published_dir / f"{corpus}.csv"
        if path.exists():
            with open(path, encoding="utf-8", newline="") as fh:
                out.extend(csv.DictReader(fh))
    return out


def check_published(path: Path, con, published_dir: Path) -> dict[str, str]:
    """Every published figure is in the table, with its published value and the warehouse value
    recomputed here (NULL for absent corpora and non-derivable figures), and a status that
    follows from the two (``match`` iff equal at the published precision). Returns id ->
    status."""
    _, actual = read_csv(path)
    published = read_published(published_dir)
    assert [r["figure_id"] for r in actual] == [r["figure_id"] for r in published]
    present = {r["corpus"] for r in rows(con, "select distinct corpus from conversations")}
    statuses = {}
    for row, source in zip(actual, published):
        assert float(row["published"]) == float(source["published"]), row["figure_id"]
        assert row["source"] == source["source"]
        if source["corpus"] not in present:
            assert (
                row["status"] == "corpus not present in this warehouse" and row["warehouse"] == ""
            ), row
        elif not source["metric"]:
            assert row["status"] == "not derivable" and row["warehouse"] == "", row
        else:
            expected = expected_published_value(con, row["figure_id"])
            if expected is not NOT_RECOMPUTED:
                assert _same(row["warehouse"], expected), (
                    row["figure_id"],
                    row["warehouse"],
                    expected,
                )
            if row["status"] == "match":
                precision = int(source["precision"])
                assert round(float(row["warehouse"]), precision) == float(source["published"]), row
            if row["status"] in ("match", "explained", "differs") and row["warehouse"] != "":
                # the status follows from the values: match iff equal when rounded as published
                equal = float(row["warehouse_rounded"]) == float(source["published"])
                assert equal == (row["status"] == "match"), row
        statuses[row["figure_id"]] = row["status"]
    return statuses


# name -> (expectation, key columns, numeric key columns, columns in the CSV)
TABLES: dict[str, tuple[Callable, list[str], set[str], list[str]]] = {
    "conversation_length": (
        expected_conversation_length,
        ["corpus"],
        set(),
        [
            "corpus",
            "n_conversations",
            "mean_turns",
            "median_turns",
            "p90_turns",
            "max_turns",
            "mean_user_turns",
            "mean_merged_turns",
        ],
    ),
    "utterance_length": (
        expected_utterance_length,
        ["corpus", "role"],
        set(),
        [
            "corpus",
            "role",
            "n_utterances",
            "mean_words",
            "median_words",
            "p90_words",
            "max_words",
            "mean_chars",
        ],
    ),
    "annotator_agreement": (
        agreement_oracle.expected_annotator_agreement,
        agreement_oracle.KEYS,
        set(),
        agreement_oracle.COLUMNS,
    ),
    "intent_consensus_summary": (
        expected_intent_consensus_summary,
        ["corpus", "label_scheme"],
        set(),
        [
            "corpus",
            "label_scheme",
            "n_turns",
            "n_turns_multi",
            "mean_annotators",
            "mean_agreement_share",
            "unanimous_share",
        ],
    ),
    "rating_summary": (
        expected_rating_summary,
        ["corpus", "rater_kind", "aspect", "level"],
        set(),
        [
            "corpus",
            "rater_kind",
            "aspect",
            "level",
            "n_ratings",
            "n_conversations",
            "scale_min",
            "scale_max",
            "mean_value",
            "mean_normalized",
            "higher_is_better",
        ],
    ),
    "crsarena_conversations": (
        expected_crsarena_conversations,
        ["environment", "system_id"],
        set(),
        [
            "environment",
            "system_id",
            "n_conversations",
            "n_with_sentiment",
            "n_satisfied",
            "satisfaction_rate",
            "satisfaction_ci95_low",
            "satisfaction_ci95_high",
        ],
    ),
    "crsarena_open_closed_correlation": (
        expected_crsarena_open_closed_correlation,
        ["quantity", "method"],
        set(),
        ["quantity", "method", "coefficient", "n_systems"],
    ),
    "convsearch_search_behaviour": (
        expected_convsearch_search_behaviour,
        ["unit", "measure"],
        set(),
        ["measure", "unit", "n", "mean", "median", "p90", "max"],
    ),
    "convsearch_click_through_by_rank": (
        expected_convsearch_click_through_by_rank,
        ["rank"],
        {"rank"},
        [
            "rank",
            "n_clicks",
            "n_serp_views_clicked",
            "n_serp_views",
            "click_through_rate",
            "ci95_low",
            "ci95_high",
        ],
    ),
    "convsearch_dwell_times": (
        expected_convsearch_dwell_times,
        ["page_kind"],
        set(),
        ["page_kind", "n_views", "mean_s", "p25_s", "median_s", "p75_s", "p90_s"],
    ),
    "cosrec_judged_items_per_topic": (
        expected_cosrec_judged_items_per_topic,
        ["judgment_kind"],
        set(),
        [
            "judgment_kind",
            "n_topics",
            "n_judgments",
            "min_judged",
            "median_judged",
            "mean_judged",
            "max_judged",
            "mean_relevant",
            "topics_without_relevant",
        ],
    ),
    "recoreact_rounds": (
        expected_recoreact_rounds,
        ["domain", "round"],
        {"round"},
        [
            "domain",
            "round",
            "n_impressions",
            "mean_rating1",
            "mean_rating2",
            "mean_rating3",
            "mean_rating_summary",
            "n_selected_items",
            "mean_selected_per_impression",
            "rating1_ci95_low",
            "rating1_ci95_high",
            "rating3_ci95_low",
            "rating3_ci95_high",
            "selected_ci95_low",
            "selected_ci95_high",
        ],
    ),
}
for _oracle in ORACLE_CORPORA.values():
    TABLES.update(getattr(_oracle, "TABLES", {}))
    TABLES.update(getattr(_oracle, "REPORT_TABLES", {}))
PUBLISHED_TABLE = "published_vs_warehouse"


# Tables the report copies from a mart or from raw.ingest_files (select, order, write) or
# counts with one GROUP BY: recomputing them here would only restate the notebook's SQL. Their
# values are checked by the golden files of the sample (tests/golden/report/, test_report.py)
# and the marts by their dbt tests; input_files also by assert_input_hashes (files hashed).
GOLDEN_ONLY = frozenset(
    {
        "input_files",
        "corpus_overview",
        "intent_families",
        "intent_labels",
        "rating_distribution",
        "recllmsim_quality_by_user_turns",
        "crsarena_leaderboard",
        "cosrec_relevance_grades",
    }
)


def assert_report_tables_match(
    tables: Path, warehouse: Path, published_dir: Path
) -> dict[str, str]:
    """Every CSV in ``tables`` is a known table, and each one recomputed here (``TABLES``) equals
    its independent expectation; returns the published-figure statuses."""
    written = sorted(p.stem for p in tables.glob("*.csv"))
    known = sorted([*TABLES, *GOLDEN_ONLY, PUBLISHED_TABLE])
    assert written == known, f"unexpected set of tables: {sorted(set(written) ^ set(known))}"
    con = duckdb.connect(str(warehouse), read_only=True)
    try:
        for name, (expect, keys, numeric, columns) in TABLES.items():
            assert_table(tables / f"{name}.csv", expect(con), columns, keys)
            assert_sorted(tables / f"{name}.csv", keys, numeric)
        return check_published(tables / f"{PUBLISHED_TABLE}.csv", con, published_dir)
    finally:
        con.close()


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def assert_input_hashes(tables: Path, data_dir: Path, folders: dict[str, str]) -> int:
    """input_files.csv lists every data file with its sha256, hashed here from the files."""
    _, listed = read_csv(tables / "input_files.csv")
    listed_by = {(r["corpus"], r["source_path"]): r["file_sha256"] for r in listed}
    on_disk = {}
    for folder, corpus in folders.items():
        root = data_dir / folder
        if not root.is_dir():
            continue
        for p in root.rglob("*"):
            rel = p.relative_to(root)
            if p.is_file() and not any(part.startswith(".") for part in rel.parts):
                on_disk[(corpus, rel.as_posix())] = sha256_of(p)
    assert on_disk == listed_by
    return len(on_disk)
