"""``int_turn_text_measures`` and ``int_recllmsim__profiles_parsed`` as SQL models calling the
functions the build registers (csrwh/dbt_support/udfs.py), run by dbt on DuckDB.

* the values equal the former Python model's per-utterance definition (``text_measures``
  below, as it was in models/intermediate/shared/int_turn_text_measures.py), EXCEPT ALL
  both ways;
* incremental by content: a build measures only the texts it has not measured before;
* bounded: the Python side holds one batch of rows at a time, whatever the corpus' size
  (the former model held every measured text's results; at 4x the texts its Arrow peak
  grew with them, measured 2026-11-26).

Each dbt run builds one model (``--select``) into a DuckDB file that holds its one input as a
table, so nothing else of the project is built.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pandas as pd
import pyarrow as pa
import pytest
from spill import run_model_sampled

from csrwh.dbt_support import udfs
from csrwh.measures import text as measures
from csrwh.measures.text import segmented_word_count, token_count
from csrwh.pipeline.dbt_runner import release_database, run_dbt

TEXTS = ["Hello world", "你好，世界", "I would like 一本书", "", "Hello world", "再见 朋友们"]
MODEL = "int_turn_text_measures"


@pytest.fixture
def dbt_target(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CSRWH_DBT_TARGET_PATH", str(tmp_path / "target"))
    return tmp_path


def text_measures(turns: pd.DataFrame, min_han_share: float) -> pd.DataFrame:
    """The former Python model's measures of ``conversation_id, turn_index, text,
    text_translation`` rows: its definition, per utterance."""
    texts = [text if isinstance(text, str) else "" for text in turns["text"]]
    translations = [text if isinstance(text, str) else None for text in turns["text_translation"]]
    words = [segmented_word_count(text, min_han_share) for text in texts]
    return pd.DataFrame(
        {
            "conversation_id": turns["conversation_id"].astype("object"),
            "turn_index": turns["turn_index"].astype("int32"),
            "is_segmented": pd.Series([s for _, s in words], dtype="bool"),
            "n_words_segmented": pd.Series([n for n, _ in words], dtype="int32"),
            "n_tokens": pd.Series(token_count(texts, threads=1), dtype="int32"),
            "n_tokens_translation": pd.Series(token_count(translations, threads=1), dtype="Int32"),
        }
    )


def _turns_warehouse(path: Path) -> None:
    con = duckdb.connect(str(path))
    con.execute("create schema intermediate")
    con.execute(
        "create table intermediate.int_turns_unioned (conversation_id varchar, "
        "turn_index integer, text varchar, text_translation varchar)"
    )
    rows = []
    for c in range(40):
        for t in range(len(TEXTS)):
            text = TEXTS[t] if c % 7 else f"{TEXTS[t]} #{c}"  # repeated and own texts
            translation = "Goodbye friends" if TEXTS[t].startswith("再见") else None
            rows.append((f"cosrec:c{c}", t, None if (c, t) == (3, 3) else text, translation))
    con.executemany("insert into intermediate.int_turns_unioned values (?, ?, ?, ?)", rows)
    con.close()


def _build(warehouse: Path, *extra: str) -> None:
    outcome = run_dbt(["run", "--select", MODEL, *extra], warehouse, quiet=True)
    assert outcome.success, outcome.failures


def _query(warehouse: Path, sql: str):
    release_database(warehouse)
    con = duckdb.connect(str(warehouse))
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def _same(con: duckdb.DuckDBPyConnection, left: str, right: str) -> None:
    for a, b in ((left, right), (right, left)):
        extra = con.execute(f"select * from {a} except all select * from {b}").fetchall()
        assert extra == [], f"{a} has rows {b} has not: {extra[:5]}"


_RECORDER = """\
import json

import csrwh.measures.text as measures

_original = measures.segmented_words


def _recorded(texts, segmented):
    with open({log!r}, "a", encoding="utf-8") as log:
        for text in texts.to_pylist():
            log.write(json.dumps(text) + "\\n")
    return _original(texts, segmented)


measures.segmented_words = _recorded
"""


class _Seen:
    """Records the texts csrwh.measures.text.segmented_words is given (what is measured) in
    dbt's process: a ``sitecustomize`` on its PYTHONPATH wraps the function and appends each
    text to a file this reads back."""

    def __init__(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        hook = tmp_path / "recorder"
        hook.mkdir()
        self._log = tmp_path / "measured.jsonl"
        (hook / "sitecustomize.py").write_text(
            _RECORDER.format(log=str(self._log)), encoding="utf-8"
        )
        path = os.environ.get("PYTHONPATH")
        monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(hook), path])))

    @property
    def texts(self) -> list[str]:
        if not self._log.exists():
            return []
        with self._log.open(encoding="utf-8") as log:
            return [json.loads(line) for line in log]

    def clear(self) -> None:
        self._log.unlink(missing_ok=True)


def _compare_with_definition(warehouse: Path, min_han_share: float) -> None:
    release_database(warehouse)
    con = duckdb.connect(str(warehouse))
    try:
        expected = text_measures(con.table("intermediate.int_turns_unioned").df(), min_han_share)
        con.register("expected", pa.Table.from_pandas(expected, preserve_index=False))
        _same(
            con,
            f"(select * exclude (text_key, translation_key) from intermediate.{MODEL})",
            "(select * from expected)",
        )
    finally:
        con.close()


def test_values_equal_the_definition_and_only_new_texts_are_measured(
    dbt_target: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    warehouse = dbt_target / "turns.duckdb"
    _turns_warehouse(warehouse)
    seen = _Seen(dbt_target, monkeypatch)
    _build(warehouse, "--full-refresh")
    distinct = _query(
        warehouse,
        "select count(distinct coalesce(text, '')) + (select count(distinct text_translation) "
        "from intermediate.int_turns_unioned where text_translation not in (select text from "
        "intermediate.int_turns_unioned where text is not null)) "
        "from intermediate.int_turns_unioned",
    )[0][0]
    assert sorted(seen.texts) == sorted(set(seen.texts))  # each distinct text once
    assert len(seen.texts) == distinct
    _compare_with_definition(warehouse, 0.3)

    # nothing changed: nothing is measured
    seen.clear()
    _build(warehouse)
    assert seen.texts == []

    # one utterance changed, one conversation removed: only the new text is measured
    con = duckdb.connect(str(warehouse))
    con.execute(
        "update intermediate.int_turns_unioned set text = 'A brand new 文本' "
        "where conversation_id = 'cosrec:c1' and turn_index = 2"
    )
    con.execute("delete from intermediate.int_turns_unioned where conversation_id = 'cosrec:c0'")
    con.close()
    _build(warehouse)
    assert seen.texts == ["A brand new 文本"]
    _compare_with_definition(warehouse, 0.3)
    assert _query(warehouse, f"select count(*) from intermediate.{MODEL}")[0][0] == 39 * len(TEXTS)

    # another setting is another version: everything is measured again, with that setting
    seen.clear()
    _build(warehouse, "--vars", json.dumps({"zh_min_han_share": 0.9}))
    keys, translations = _query(
        warehouse,
        f"select count(distinct text_key), count(distinct translation_key) filter "
        f"(where translation_key not in (select text_key from intermediate.{MODEL})) "
        f"from intermediate.{MODEL}",
    )[0]
    assert len(seen.texts) == keys + translations
    _compare_with_definition(warehouse, 0.9)


def test_vectorised_measures_equal_the_per_text_functions() -> None:
    texts = [
        *TEXTS,
        None,
        "日本語のテキスト",  # kana: not Chinese
        "〇〇",  # Han-script numerals and no letter: Chinese (formerly a division by zero)
        "abc 漢字 def",
        "\x1cfoo\x1dbar\u3000baz",  # Python's whitespace set
        "中文，English mixed 文本 with emoji 😀 and 123",
    ]
    array = pa.array(texts)
    chinese = measures.chinese_mask(array, 0.3)
    assert chinese.to_pylist() == [measures.is_chinese(t, 0.3) for t in texts]
    words = measures.segmented_words(array, chinese).to_pylist()
    assert words == [segmented_word_count(t, 0.3)[0] for t in texts]
    assert measures.token_counts(array).to_pylist() == token_count(texts, threads=1)


def test_profiles_parsed_reads_json_and_python_repr() -> None:
    raw = [
        '{"gender": "Male", "age": 24}',
        json.dumps("{'gender': 'Female', 'age': 31, 'student': True, 'pet': None}"),
        json.dumps('["a", "b"]'),  # a JSON string holding a list literal
        json.dumps("not a dict"),
        "null",
        None,
    ]
    con = duckdb.connect()
    udfs.register_duckdb(con)
    got = con.execute(
        "select csrwh_repr_json_status(v), csrwh_repr_json(v) from unnest(?) with ordinality "
        "as t(v, i) order by i",
        [raw],
    ).fetchall()
    assert got == [
        ("json", '{"gender": "Male", "age": 24}'),
        ("python_repr", '{"gender": "Female", "age": 31, "student": true, "pet": null}'),
        ("python_repr", '["a", "b"]'),
        ("unparsed", None),
        ("absent", None),
        ("absent", None),
    ]


# --------------------------------------------------------------------------- memory

_MEMORY_RUN = """
import sys
from pathlib import Path

import duckdb
import pyarrow as pa

from csrwh.pipeline.dbt_runner import run_dbt

warehouse, n = Path(sys.argv[1]), int(sys.argv[2])
con = duckdb.connect(str(warehouse))
con.execute("create schema intermediate")
con.execute(
    "create table intermediate.int_turns_unioned as select 'c' || (i // 10) as conversation_id, "
    "cast(i % 10 as integer) as turn_index, 'utterance ' || i || ' of a long conversation' as text, "
    "cast(null as varchar) as text_translation from range(?) as t(i)",
    [n],
)
con.close()
outcome = run_dbt(["run", "--select", "int_turn_text_measures", "--full-refresh"], warehouse, quiet=True)
assert outcome.success, outcome.failures
print(pa.default_memory_pool().max_memory())
"""


def _arrow_peak(tmp_path: Path, n: int) -> int:
    """Peak bytes of Arrow's memory pool in a process that builds the model on ``n`` texts."""
    warehouse = tmp_path / f"n{n}.duckdb"
    env = {**os.environ, "CSRWH_DBT_TARGET_PATH": str(tmp_path / f"target{n}")}
    done = subprocess.run(
        [sys.executable, "-c", _MEMORY_RUN, str(warehouse), str(n)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return int(done.stdout.split()[-1])


def test_python_memory_does_not_grow_with_the_texts(tmp_path: Path) -> None:
    small, large = 20_000, 200_000
    small_peak = _arrow_peak(tmp_path, small)
    large_peak = _arrow_peak(tmp_path, large)
    print(f"Arrow peak: {small_peak:,} B at {small:,} texts, {large_peak:,} B at {large:,}")
    # a batch of rows at a time: 10x the texts, the same peak (up to 1 MiB of noise); the
    # former model kept every text's results (~37 bytes a text more at its peak)
    assert large_peak < small_peak + 2**20, (small_peak, large_peak)


_SPILL_TEXTS = 24_000  # of ~4 KiB each: ~96 MiB of text, 1.5 times DuckDB's memory limit below


def test_duckdb_never_holds_the_texts(dbt_target: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Distinct texts are found by key and read back by place, so DuckDB holds keys, not
    texts: with more text than its memory limit, the model builds without spilling (grouping
    the texts, or keeping a CTE's rows with their texts, spills them)."""
    warehouse = dbt_target / "long.duckdb"
    con = duckdb.connect(str(warehouse))
    con.execute("create schema intermediate")
    con.execute(
        "create table intermediate.int_turns_unioned as select 'c' || (i // 10) as "
        "conversation_id, cast(i % 10 as integer) as turn_index, "
        "repeat('lorem ipsum dolor sit amet ', 150) || i as text, "
        "case when i % 3 = 0 then 'translated ' || repeat('consectetur ', 40) || i end "
        "as text_translation from range(?) as t(i)",
        [_SPILL_TEXTS],
    )
    text_bytes = con.execute(
        "select sum(strlen(text) + coalesce(strlen(text_translation), 0)) "
        "from intermediate.int_turns_unioned"
    ).fetchone()[0]
    con.close()
    monkeypatch.setenv("CSRWH_MEMORY_LIMIT", "64MiB")
    assert text_bytes > 1.4 * 64 * 2**20, text_bytes
    peak = run_model_sampled(MODEL, warehouse, dbt_target / "spill")
    assert peak == 0, f"DuckDB spilled {peak:,} B for {text_bytes:,} B of text"
    rows, tokens = _query(
        warehouse, f"select count(*), count(n_tokens_translation) from intermediate.{MODEL}"
    )[0]
    assert (rows, tokens) == (_SPILL_TEXTS, _SPILL_TEXTS // 3)
