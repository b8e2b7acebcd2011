"""``int_turn_text_counts`` holds no text: it reads the turns twice (the corpora's digests and the
counts), each read streaming, so with more text than DuckDB's memory limit it builds without
spilling. One CTE read twice would be kept whole by DuckDB, texts and all (at 1M generated
conversations that spilled gigabytes).

One dbt run builds the model into a DuckDB file that holds its one input as a table."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
from spill import run_model_sampled

from csrwh.pipeline.dbt_runner import release_database

pytestmark = pytest.mark.integration

MODEL = "int_turn_text_counts"
#: of ~1.2 KiB each: ~140 MiB of text, 1.1 times DuckDB's memory limit below (to_json, which the
#: digest calls, needs ~50 MiB at 2 threads for ~4 KiB texts: a smaller limit fails on it)
TEXTS = 120_000
LIMIT_MIB = 128


def test_the_counts_never_hold_the_texts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CSRWH_DBT_TARGET_PATH", str(tmp_path / "target"))
    warehouse = tmp_path / "long.duckdb"
    con = duckdb.connect(str(warehouse))
    con.execute("create schema intermediate")
    con.execute(
        "create table intermediate.int_turns_unioned as select 'own:c' || (i // 10) as "
        "conversation_id, cast(i % 10 as integer) as turn_index, "
        "repeat('lorem ipsum dolor sit amet 你好 ', 36) || i as text from range(?) as t(i)",
        [TEXTS],
    )
    text_bytes = con.execute(
        "select sum(strlen(text)) from intermediate.int_turns_unioned"
    ).fetchone()[0]
    con.close()
    monkeypatch.setenv("CSRWH_MEMORY_LIMIT", f"{LIMIT_MIB}MiB")
    assert text_bytes > 1.05 * LIMIT_MIB * 2**20, text_bytes
    peak = run_model_sampled(MODEL, warehouse, tmp_path / "spill")
    assert peak == 0, f"DuckDB spilled {peak:,} B for {text_bytes:,} B of text"
    release_database(warehouse)
    with duckdb.connect(str(warehouse)) as con:
        rows, words, han = con.execute(
            f"select count(*), min(n_words), min(n_han_chars) from intermediate.{MODEL}"
        ).fetchone()
    assert (rows, words, han) == (TEXTS, 7 * 36 + 1, 2 * 36)
