"""The Spark engine's pieces that need no Spark (issue 28): the value comparator of
``csrwh.pipeline.spark_parity``, the raw layer written as Parquet, the exclusion lineage and
the one-line errors when pyspark or Java is missing."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import duckdb
import pytest

from csrwh.config import PROJECT_ROOT
from csrwh.errors import CsrwhError
from csrwh.pipeline import spark, spark_parity

ROWS = [
    ("crsarena", "a", 1, 0.1 + 0.2, None),
    ("crsarena", "b", 2, 2.5, "x"),
    ("cosrec", "c", 3, 1 / 3, "it's"),
]


def _warehouse(tmp_path: Path, rows: list[tuple]) -> Path:
    path = tmp_path / "w.duckdb"
    with duckdb.connect(str(path)) as con:
        con.execute(
            "create table main.votes (corpus varchar, id varchar, n integer, share double, "
            "note varchar)"
        )
        con.executemany("insert into main.votes values (?, ?, ?, ?, ?)", rows)
    return path


def _spark_marts(tmp_path: Path, rows: list[tuple], *, n_type: str = "bigint") -> Path:
    """A ``<warehouse>.spark/votes/`` folder as Spark writes it (other integer width)."""
    out = tmp_path / "w.duckdb.spark"
    (out / "votes").mkdir(parents=True)
    with duckdb.connect() as con:
        con.execute(
            f"create table v (corpus varchar, id varchar, n {n_type}, share double, note varchar)"
        )
        con.executemany("insert into v values (?, ?, ?, ?, ?)", rows)
        target = out / "votes" / "part-00000.snappy.parquet"
        con.execute(f"copy v to '{target}' (format parquet)")
    return out


def test_same_values_match_across_integer_widths_and_float_noise(tmp_path: Path) -> None:
    warehouse = _warehouse(tmp_path, ROWS)
    # Spark sums in another order: the same doubles up to the last bits
    noisy = [(c, i, n, share + 1e-13, note) for c, i, n, share, note in ROWS]
    out = _spark_marts(tmp_path, list(reversed(noisy)))
    (result,) = spark_parity.compare(warehouse, out, marts=["votes"], excluded={})
    assert result.status == "match", result.line()
    assert result.rows == 3


def test_one_differing_value_is_reported_with_the_row(tmp_path: Path) -> None:
    warehouse = _warehouse(tmp_path, ROWS)
    changed = [*ROWS[:2], ("cosrec", "c", 4, 1 / 3, "it's")]  # n 3 -> 4 in one row
    out = _spark_marts(tmp_path, changed)
    (result,) = spark_parity.compare(warehouse, out, marts=["votes"], excluded={})
    assert result.status == "differs"
    assert [row[:3] for row in result.only_duckdb] == [("cosrec", "c", 3)]
    assert [row[:3] for row in result.only_spark] == [("cosrec", "c", 4)]
    assert "1 row(s) only on DuckDB, 1 only on Spark" in result.line()


def test_a_duplicated_row_differs(tmp_path: Path) -> None:
    """By multiset (EXCEPT ALL), not by set: a row twice on one side is a difference."""
    warehouse = _warehouse(tmp_path, ROWS)
    out = _spark_marts(tmp_path, [*ROWS, ROWS[0]])
    (result,) = spark_parity.compare(warehouse, out, marts=["votes"], excluded={})
    assert result.status == "differs" and len(result.only_spark) == 1


def test_a_float_beyond_the_precision_differs(tmp_path: Path) -> None:
    warehouse = _warehouse(tmp_path, ROWS)
    off = [(c, i, n, share + 1e-6, note) for c, i, n, share, note in ROWS]
    out = _spark_marts(tmp_path, off)
    (result,) = spark_parity.compare(warehouse, out, marts=["votes"], excluded={})
    assert result.status == "differs" and len(result.only_duckdb) == 3


def test_missing_column_and_missing_mart(tmp_path: Path) -> None:
    warehouse = _warehouse(tmp_path, ROWS)
    out = tmp_path / "w.duckdb.spark"
    (out / "votes").mkdir(parents=True)
    with duckdb.connect() as con:
        con.execute(
            f"copy (select 'crsarena' as corpus, 'a' as id) to '{out / 'votes' / 'p.parquet'}'"
        )
    (votes,) = spark_parity.compare(warehouse, out, marts=["votes"], excluded={})
    assert votes.status == "differs" and "n, share, note" in votes.detail
    shutil.rmtree(out / "votes")
    (gone,) = spark_parity.compare(warehouse, out, marts=["votes"], excluded={})
    assert gone.status == "missing"


def test_excluded_mart_names_the_entry_it_is_built_from(tmp_path: Path) -> None:
    warehouse = _warehouse(tmp_path, ROWS)
    out = tmp_path / "w.duckdb.spark"
    out.mkdir()
    manifest = tmp_path / "manifest.json"
    manifest.write_text(
        json.dumps(
            {
                "nodes": {
                    "model.csrwh.votes": {
                        "name": "votes",
                        "resource_type": "model",
                        "original_file_path": "models/marts/core/votes.sql",
                    },
                    "model.csrwh.stg_crsarena__votes": {
                        "name": "stg_crsarena__votes",
                        "resource_type": "model",
                        "original_file_path": "models/staging/crsarena/stg_crsarena__votes.sql",
                    },
                },
                "parent_map": {
                    "model.csrwh.votes": ["model.csrwh.stg_crsarena__votes"],
                    "model.csrwh.stg_crsarena__votes": [],
                },
            }
        )
    )
    (result,) = spark_parity.compare(
        warehouse,
        out,
        marts=["votes"],
        manifest=manifest,
        excluded={"path:models/staging/crsarena": "not portable yet"},
    )
    assert result.status == "excluded"
    assert result.detail == (
        "built from stg_crsarena__votes, path:models/staging/crsarena: not portable yet"
    )


def test_cli_exit_status(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    warehouse = _warehouse(tmp_path, ROWS)
    _spark_marts(tmp_path, ROWS[:2])
    manifest_free = ["--warehouse", str(warehouse)]
    # every other project mart is missing from this tiny warehouse: exit 1, one line each
    assert spark_parity.main(manifest_free) == 1
    out = capsys.readouterr().out
    assert "votes: differs (0 row(s) only on DuckDB" not in out
    assert "votes: differs (1 row(s) only on DuckDB, 0 only on Spark" in out
    assert spark_parity.main(["--warehouse", str(tmp_path / "none.duckdb")]) == 2
    assert "error: no DuckDB warehouse at" in capsys.readouterr().err


def test_raw_tables_as_parquet_folders(tmp_path: Path) -> None:
    from ingest.schema import RAW_COLUMNS, ensure_schema

    db = tmp_path / "ingest.duckdb"
    with duckdb.connect(str(db)) as con:
        ensure_schema(con, ["crsarena__votes"])
        con.execute(
            "insert into raw.crsarena__votes values ('b', 'crsarena', 'f.json', 0, 1, 'k', "
            """'{"a b": [1, null]}', '{"a b": [1, null]}', 'sha', '2026-01-02 03:04:05')"""
        )
    out = tmp_path / "raw"
    tables = spark.export_raw_parquet(db, out)
    assert set(tables) == {"crsarena__votes", "rejected_records", "ingest_files", "ingest_runs"}
    assert sorted(p.name for p in (out / "crsarena__votes").iterdir()) == ["part-0.parquet"]
    with duckdb.connect() as con:
        schema = dict(
            con.execute(
                f"select name, type from parquet_schema('{out / 'crsarena__votes' / '*.parquet'}')"
            ).fetchall()[1:]
        )
        payload, ingested = con.execute(
            f"select payload, ingested_at from '{out / 'crsarena__votes' / '*.parquet'}'"
        ).fetchone()
    assert list(schema) == [name for name, _ in RAW_COLUMNS]
    assert schema["payload"] == "BYTE_ARRAY" and isinstance(payload, str)
    assert payload == '{"a b": [1, null]}'
    assert str(ingested) == "2026-01-02 03:04:05"


def test_missing_pyspark_is_one_line_with_the_install_hint(monkeypatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "pyspark" else real(name, *a),
    )
    with pytest.raises(CsrwhError) as err:
        spark.check_spark_available()
    assert err.value.message == "--engine spark needs pyspark, which is not installed"
    assert "pip install 'csrwh[spark]'" in err.value.hint


def test_missing_java_is_one_line(monkeypatch) -> None:
    import importlib.util

    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: object())
    monkeypatch.setattr(shutil, "which", lambda name: None)
    monkeypatch.delenv("JAVA_HOME", raising=False)
    with pytest.raises(CsrwhError) as err:
        spark.check_spark_available()
    assert "needs a Java runtime" in err.value.message
    assert "openjdk-17-jre-headless" in err.value.hint


def test_exclusions_file_gives_a_reason_for_every_entry() -> None:
    entries = spark.exclusions()
    assert entries, "spark_exclusions.yml lists nothing"
    assert all(reason.strip() for reason in entries.values())
    # every Python model is listed (dbt-spark runs Python models only on Databricks)
    python_models = sorted(path.stem for path in (PROJECT_ROOT / "models").rglob("*.py"))
    assert python_models, "no Python model found"
    for name in python_models:
        assert name in entries


def test_spark_build_refusal_leaves_nothing_behind(tmp_path: Path, monkeypatch) -> None:
    """A Spark build that stops early (here: marts-from-duckdb without a DuckDB warehouse)
    says so in one line, releases the lock and removes its work folder; nothing else is
    written beside the warehouse."""
    monkeypatch.setattr(spark, "check_spark_available", lambda java=True: None)
    warehouse = tmp_path / "wh" / "w.duckdb"
    warehouse.parent.mkdir()
    with pytest.raises(CsrwhError) as err:
        spark.spark_build(tmp_path / "data", warehouse, marts_from_duckdb=True)
    assert err.value.message == f"no DuckDB warehouse at {warehouse} to take the marts' inputs from"
    left = sorted(p.relative_to(warehouse.parent).as_posix() for p in warehouse.parent.rglob("*"))
    assert left == ["w.duckdb.build"]  # the build folder stays (empty), as a DuckDB build's


def test_a_mart_the_spark_build_computes_with_duckdb_is_missing_when_absent(
    tmp_path: Path,
) -> None:
    """An entry marked duckdb_pass (spark_exclusions.yml) is published by every Spark build:
    when its mart is absent, the comparison fails (``missing``), it does not excuse it."""
    mart = spark.duckdb_pass_models()[0]
    warehouse = _warehouse(tmp_path, ROWS)
    with duckdb.connect(str(warehouse)) as con:
        con.execute(f"create table main.{mart} as select 1 as n")
    out = tmp_path / "w.duckdb.spark"
    out.mkdir()
    manifest = tmp_path / "manifest.json"
    manifest.write_text(
        json.dumps(
            {
                "nodes": {
                    f"model.csrwh.{mart}": {
                        "name": mart,
                        "resource_type": "model",
                        "original_file_path": f"models/marts/{mart}.py",
                    }
                },
                "parent_map": {f"model.csrwh.{mart}": []},
            }
        )
    )
    (result,) = spark_parity.compare(warehouse, out, marts=[mart], manifest=manifest)
    assert result.status == "missing", result.line()
    assert spark_parity.main(["--warehouse", str(warehouse), "--spark", str(out)]) == 1
