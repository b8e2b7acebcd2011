"""The Python API (csrwh.connect / csrwh.load / splits) on the built sample warehouse."""

from __future__ import annotations

import builtins
import hashlib
from collections import Counter
from pathlib import Path

import duckdb
import pytest

import csrwh
from csrwh.errors import CsrwhError
from csrwh.reading import api


def test_split_rule_known_answers() -> None:
    # md5("abc") = 900150983cd2...: 0x90015098 = 2416005272, % 100 = 72 -> train (buckets 0-79)
    assert int(hashlib.md5(b"abc").hexdigest()[:8], 16) % 100 == 72
    assert api.split_of("abc") == "train"
    assert sum(api.SPLIT_RATIOS.values()) == 100
    buckets = Counter(api.split_of(f"corpus:{i}") for i in range(20000))
    assert abs(buckets["train"] / 20000 - 0.8) < 0.02 and abs(buckets["test"] / 20000 - 0.1) < 0.02


def test_sql_and_python_split_rules_agree(duck) -> None:
    ids = [f"cosrec:CoSRec-Crowd_{i}" for i in range(500)] + ["crsarena:ü-id", ""]
    duck.execute("create table t (conversation_id varchar)")
    duck.executemany("insert into t values (?)", [[i] for i in ids])
    got = dict(duck.sql(f"select conversation_id, {api.split_sql()} from t").fetchall())
    assert got == {i: api.split_of(i) for i in ids}


def test_load_returns_every_conversation_once_in_chat_shape(sample_warehouse: Path) -> None:
    frame = csrwh.load(warehouse=sample_warehouse)
    con = duckdb.connect(str(sample_warehouse), read_only=True)
    try:
        conversations = dict(
            con.sql("select conversation_id, n_turns from conversations").fetchall()
        )
        turns = con.sql(
            "select conversation_id, role, coalesce(text, '') from turns order by conversation_id, turn_index"
        ).fetchall()
    finally:
        con.close()
    ids = frame["conversation_id"].to_list()
    assert len(ids) == len(set(ids)) and set(ids) == set(conversations)
    expected: dict[str, list[dict]] = {}
    for cid, role, text in turns:
        expected.setdefault(cid, []).append(
            {"role": "user" if role == "user" else "assistant", "content": text}
        )
    for row in frame.iter_rows(named=True):
        assert row["messages"] == expected.get(row["conversation_id"], [])
        assert (
            len(row["turn_annotations"])
            == len(row["messages"])
            == conversations[row["conversation_id"]]
        )
        assert row["split"] == api.split_of(row["conversation_id"])
    assert {m["role"] for ms in frame["messages"].to_list() for m in ms} == {"user", "assistant"}
    assert set(frame["corpus"]) == {
        "cosrec",
        "crsarena",
        "convsearch",
        "recllmsim",
        "recoreact",
        "custom",
    }


def test_load_filters_and_formats(sample_warehouse: Path) -> None:
    everything = csrwh.load(warehouse=sample_warehouse)
    crs = csrwh.load("crsarena", warehouse=sample_warehouse)
    assert crs.height == everything.filter(everything["corpus"] == "crsarena").height > 0
    subset = crs["subset"][0]
    assert set(csrwh.load("crsarena", subset, warehouse=sample_warehouse)["subset"]) == {subset}
    test = csrwh.load(warehouse=sample_warehouse, split="test")
    assert set(test["split"]) == {"test"} and 0 < test.height < everything.height
    pandas = csrwh.load("cosrec", warehouse=sample_warehouse, format="pandas")
    assert (
        list(pandas["conversation_id"])
        == csrwh.load("cosrec", warehouse=sample_warehouse)["conversation_id"].to_list()
    )
    with pytest.raises(CsrwhError, match="corpus 'nope' is not in this warehouse"):
        csrwh.load("nope", warehouse=sample_warehouse)
    with pytest.raises(CsrwhError, match="unknown format"):
        csrwh.load(warehouse=sample_warehouse, format="csv")
    with pytest.raises(CsrwhError, match="unknown split"):
        csrwh.load(warehouse=sample_warehouse, split="dev")


def test_hf_format_without_datasets_says_how_to_install(
    sample_warehouse: Path, monkeypatch
) -> None:
    real_import = builtins.__import__

    def no_datasets(name, *args, **kwargs):
        if name == "datasets" or name.startswith("datasets."):
            raise ImportError("No module named 'datasets'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_datasets)
    with pytest.raises(CsrwhError, match="datasets") as info:
        csrwh.load(warehouse=sample_warehouse, format="hf")
    assert "pip install" in info.value.hint


def test_connect_is_read_only_and_missing_warehouse_is_clear(
    sample_warehouse: Path, tmp_path: Path
) -> None:
    con = csrwh.connect(sample_warehouse)
    try:
        assert con.execute("select count(*) from conversations").fetchone()[0] > 0
        with pytest.raises(duckdb.Error):
            con.execute("create table x (a int)")
    finally:
        con.close()
    with pytest.raises(CsrwhError, match="no warehouse at"):
        csrwh.connect(tmp_path / "missing.duckdb")
