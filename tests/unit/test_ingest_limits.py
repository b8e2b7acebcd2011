"""Every corpus holds its records to the record limits (size, JSON depth) and to one value per
key: a record past them is one reject, verbatim, with its file, line and reason, and the rest
of its file lands; what lands can be read by DuckDB's JSON functions the gate uses."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from csrwh.errors import CsrwhError
from ingest import run_ingest
from ingest.limits import (
    DEFAULT_MAX_JSON_DEPTH,
    HIGHEST_MAX_JSON_DEPTH,
    MAX_JSON_DEPTH_ENV,
    MAX_RECORD_BYTES_ENV,
)


def ingest(data_dir: Path, con: duckdb.DuckDBPyConnection):
    return run_ingest(data_dir, con, progress=False)


def rejects(con) -> list[tuple]:
    return con.execute(
        "SELECT corpus, source_path, line_number, error, raw_bytes FROM raw.rejected_records "
        "ORDER BY corpus, source_path, record_index NULLS FIRST"
    ).fetchall()


def landed(con, table: str) -> int:
    return con.execute(f"SELECT count(*) FROM raw.{table}").fetchone()[0]


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


#: (corpus folder, file, good record, the file's text around one bad record, raw table)
LAYOUTS = {
    "recoreact-jsonl": (
        "recoreact",
        "x-products.jsonl",
        lambda bad: '{"pid": "p1", "title": "ok"}\n' + bad + "\n",
        "recoreact__products",
    ),
    "cosrec-jsonl": (
        "cosrec",
        "dataset/crowd/quality.jsonl",
        lambda bad: '{"c1": {"q": 1}}\n' + bad + "\n",
        "cosrec__quality",
    ),
    "crsarena-array": (
        "crsarena-dial",
        "data/crs_arena_dial_open.json",
        lambda bad: '[{"conversation ID": "a"}, ' + bad + "]",
        "crsarena__dialogues",
    ),
}


def _bad_record(layout: str, value: str) -> str:
    key = {"recoreact-jsonl": "pid", "crsarena-array": "conversation ID"}.get(layout)
    if key is None:  # CoSRec: a one-key object
        return '{"c2": ' + value + "}"
    return "{" + json.dumps(key) + ': "b", "v": ' + value + "}"


def _raw_table(con, layout: str) -> str:
    table = LAYOUTS[layout][3]
    names = {r[0] for r in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()}
    assert table in names, sorted(names)
    return table


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_a_record_nested_past_the_limit_is_one_reject(tmp_path, duck, write_file, layout):
    folder, rel, text, _ = LAYOUTS[layout]
    bad = _bad_record(layout, nested(10_000))
    write_file(tmp_path / folder, rel, text(bad))
    s = ingest(tmp_path, duck)
    rej = rejects(duck)
    assert len(rej) == 1 and s.records_rejected == 1
    assert rej[0][1] == rel and "nested too deeply" in rej[0][3]
    assert MAX_JSON_DEPTH_ENV in rej[0][3]
    assert rej[0][4] == bad.encode()  # verbatim
    assert landed(duck, _raw_table(duck, layout)) == 1


def test_a_whole_file_record_nested_past_the_limit_is_one_reject(tmp_path, duck, write_file):
    content = '{"history": [], "x": ' + nested(10_000) + "}"
    write_file(tmp_path / "recllmsim", "LLM_agent_user/t/deep.json", content)
    write_file(tmp_path / "recllmsim", "LLM_agent_user/t/ok.json", '{"history": []}')
    ingest(tmp_path, duck)
    rej = rejects(duck)
    assert [(r[1], r[4]) for r in rej] == [("LLM_agent_user/t/deep.json", content.encode())]
    assert "nested too deeply" in rej[0][3]
    assert landed(duck, "recllmsim__conversations") == 1


def test_what_lands_at_the_highest_depth_limit_is_readable_by_json_structure(
    tmp_path, duck, write_file, monkeypatch
):
    """The gate's lineage check reads payloads with ``json_structure`` (DuckDB recurses 128
    levels at most): a record at the highest settable depth lands and is read."""
    monkeypatch.setenv(MAX_JSON_DEPTH_ENV, str(HIGHEST_MAX_JSON_DEPTH))
    content = '{"history": [], "x": ' + nested(HIGHEST_MAX_JSON_DEPTH - 1) + "}"
    write_file(tmp_path / "recllmsim", "LLM_agent_user/t/deep.json", content)
    ingest(tmp_path, duck)
    assert rejects(duck) == []
    duck.execute("SELECT json_structure(payload) FROM raw.recllmsim__conversations").fetchall()
    with pytest.raises(duckdb.Error):  # the limit is needed: DuckDB cannot read deeper
        duck.execute(f"SELECT json_structure('{nested(200)}'::JSON)").fetchall()


def test_the_depth_limit_is_a_setting(tmp_path, duck, write_file, monkeypatch):
    depth = DEFAULT_MAX_JSON_DEPTH // 2
    monkeypatch.setenv(MAX_JSON_DEPTH_ENV, str(depth))
    lines = [
        '{"pid": "a", "v": ' + nested(depth - 1) + "}",
        '{"pid": "b", "v": ' + nested(depth) + "}",
    ]
    write_file(tmp_path / "recoreact", "x-products.jsonl", "\n".join(lines) + "\n")
    ingest(tmp_path, duck)
    assert [(r[2], r[4]) for r in rejects(duck)] == [(2, lines[1].encode())]


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_a_record_larger_than_the_limit_is_one_reject(
    tmp_path, duck, write_file, monkeypatch, layout
):
    monkeypatch.setenv(MAX_RECORD_BYTES_ENV, "4KiB")
    folder, rel, text, _ = LAYOUTS[layout]
    bad = _bad_record(layout, json.dumps("é" * 3000))  # 6,000 bytes, 3,000 characters
    write_file(tmp_path / folder, rel, text(bad))
    s = ingest(tmp_path, duck)
    rej = rejects(duck)
    assert len(rej) == 1 and s.records_rejected == 1
    assert "record too large" in rej[0][3] and f"{4096:,}" in rej[0][3]
    assert rej[0][4] == bad.encode()
    assert landed(duck, _raw_table(duck, layout)) == 1


@pytest.mark.parametrize("value", ["x", "0", "1.5e400", "12 parsecs"])
def test_a_bad_limit_setting_is_one_line_before_any_work(
    tmp_path, duck, write_file, monkeypatch, value
):
    write_file(tmp_path / "recoreact", "x-products.jsonl", '{"pid": "a"}\n')
    monkeypatch.setenv(MAX_RECORD_BYTES_ENV, value)
    with pytest.raises(CsrwhError, match=MAX_RECORD_BYTES_ENV):
        ingest(tmp_path, duck)
    monkeypatch.delenv(MAX_RECORD_BYTES_ENV)
    monkeypatch.setenv(MAX_JSON_DEPTH_ENV, str(HIGHEST_MAX_JSON_DEPTH + 1))
    with pytest.raises(CsrwhError, match=MAX_JSON_DEPTH_ENV):
        ingest(tmp_path, duck)
    assert duck.execute("SELECT count(*) FROM duckdb_tables()").fetchone()[0] == 0


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_a_key_written_twice_is_one_reject_in_every_json_corpus(tmp_path, duck, write_file, layout):
    folder, rel, text, _ = LAYOUTS[layout]
    bad = _bad_record(layout, '{"rating1": 1, "rating1": 7}')
    write_file(tmp_path / folder, rel, text(bad))
    ingest(tmp_path, duck)
    rej = rejects(duck)
    assert len(rej) == 1 and rej[0][1] == rel
    assert 'key "rating1" is written twice' in rej[0][3]
    assert rej[0][4] == bad.encode()
    assert landed(duck, _raw_table(duck, layout)) == 1


def test_a_whole_file_record_with_a_key_written_twice_is_one_reject(tmp_path, duck, write_file):
    content = '{"history": [], "history": [{"role": "user"}]}'
    write_file(tmp_path / "recllmsim", "LLM_agent_user/t/twice.json", content)
    ingest(tmp_path, duck)
    assert [(r[1], r[4]) for r in rejects(duck)] == [
        ("LLM_agent_user/t/twice.json", content.encode())
    ]
