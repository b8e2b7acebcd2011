"""Ingest of the real corpora in ../shared/corpora (cosrec, crsarena-dial, recllmsim).

Every real file must land, each file's record count must equal a count computed here by
a different code path (json.load, line counting, the csv module), payloads must be the
verbatim source text, there must be zero rejects, and a no-change re-ingest must take
less than 2 s. Override the location with $CSRWH_SHARED_CORPORA. The test skips when the
folder is absent, except under CI (env CI set), where that is a failure.
"""

from __future__ import annotations

import csv
import json
import time
from pathlib import Path

import duckdb
import pytest

from ingest import run_ingest

pytestmark = pytest.mark.integration

from shared_corpora import SHARED_CORPORA, require_real_corpora

REAL = SHARED_CORPORA
REAL_CORPORA = {"cosrec": "cosrec", "crsarena-dial": "crsarena", "recllmsim": "recllmsim"}


_require_real = require_real_corpora


def _real_files() -> dict[tuple[str, str], Path]:
    """(corpus, path relative to the corpus folder) -> file, for every non-dot file."""
    out = {}
    for folder, corpus in REAL_CORPORA.items():
        root = REAL / folder
        for p in root.rglob("*"):
            rel = p.relative_to(root)
            if p.is_file() and not any(part.startswith(".") for part in rel.parts):
                out[(corpus, rel.as_posix())] = p
    return out


def _expected_count(path: Path) -> int:
    """Records in a file, computed without the ingest code."""
    if path.suffix == ".jsonl":
        with open(path, encoding="utf-8") as fh:
            lines = [ln for ln in fh if ln.strip()]
        for ln in lines:
            assert isinstance(json.loads(ln), dict)
        return len(lines)
    if path.suffix == ".qrels":
        with open(path, encoding="utf-8") as fh:
            return sum(1 for ln in fh if len(ln.split()) == 4)
    if path.suffix == ".csv":
        with open(path, encoding="utf-8", newline="") as fh:
            return sum(1 for _ in csv.DictReader(fh))
    with open(path, encoding="utf-8") as fh:
        obj = json.load(fh)
    return len(obj) if isinstance(obj, list) else 1


@pytest.fixture(scope="module")
def landed(module_tmp_path):
    data = _require_real()
    wh = module_tmp_path / "warehouse" / "real.duckdb"
    t0 = time.perf_counter()
    first = run_ingest(data, wh, progress=False)
    cold = time.perf_counter() - t0
    t0 = time.perf_counter()
    second = run_ingest(data, wh, progress=False)
    warm = time.perf_counter() - t0
    con = duckdb.connect(str(wh), read_only=True)
    yield first, second, cold, warm, con
    con.close()


def test_every_real_file_lands_with_zero_rejects(landed):
    first, _, _, _, con = landed
    files = _real_files()
    assert first.records_rejected == 0, first.rejected_files
    assert con.execute("SELECT count(*) FROM raw.rejected_records").fetchone() == (0,)
    assert first.ignored_files == []
    manifest = {
        (c, p): (n, rej)
        for c, p, n, rej in con.execute(
            "SELECT corpus, source_path, n_records, n_rejected FROM raw.ingest_files"
        ).fetchall()
    }
    assert set(manifest) == set(files)
    assert first.files_loaded == len(files)


def test_per_file_record_counts_match_an_independent_count(landed):
    _, _, _, _, con = landed
    tables = {
        c: t
        for c, t in con.execute(
            "SELECT DISTINCT corpus || '/' || source_path, table_name FROM raw.ingest_files"
        ).fetchall()
    }
    landed_counts: dict[str, int] = {}
    for table in set(tables.values()):
        for key, n in con.execute(
            f"SELECT corpus || '/' || source_path, count(*) FROM raw.{table} GROUP BY 1"
        ).fetchall():
            landed_counts[key] = n
    mismatches = {}
    for (corpus, rel), path in _real_files().items():
        want = _expected_count(path)
        got = landed_counts.get(f"{corpus}/{rel}", 0)
        if want != got:
            mismatches[f"{corpus}/{rel}"] = (want, got)
    assert mismatches == {}


def test_payloads_are_the_verbatim_source_text(landed):
    _, _, _, _, con = landed
    # JSONL: each line verbatim
    for rel in ("dataset/crowd/intent_annotations.jsonl", "dataset/curated/intents.jsonl"):
        lines = [
            ln
            for ln in (REAL / "cosrec" / rel).read_text(encoding="utf-8").split("\n")
            if ln.strip()
        ]
        table = "cosrec__intent_annotations" if "annotations" in rel else "cosrec__intents"
        got = con.execute(
            f"SELECT record_key, payload::VARCHAR FROM raw.{table} WHERE source_path = ? ORDER BY record_index",
            [rel],
        ).fetchall()
        assert [g[1] for g in got] == lines
        assert [g[0] for g in got] == [next(iter(json.loads(ln))) for ln in lines]
    # whole files verbatim, keyed by path
    got = dict(
        con.execute(
            "SELECT record_key, payload::VARCHAR FROM raw.recllmsim__conversations"
        ).fetchall()
    )
    files = {rel: p for (c, rel), p in _real_files().items() if c == "recllmsim"}
    assert len(got) == len(files)
    for rel, path in files.items():
        assert got[rel[: -len(".json")]] == path.read_text(encoding="utf-8"), rel
    # JSON array elements parse back to the same objects, in file order
    for name in ("crs_arena_dial_open.json", "crs_arena_dial_closed.json"):
        objs = json.loads((REAL / "crsarena-dial" / "data" / name).read_text(encoding="utf-8"))
        got = con.execute(
            "SELECT record_key, payload::VARCHAR FROM raw.crsarena__dialogues WHERE source_path = ? "
            "ORDER BY record_index",
            [f"data/{name}"],
        ).fetchall()
        assert [json.loads(g[1]) for g in got] == objs
        assert [g[0] for g in got] == [o["conversation ID"] for o in objs]


def test_csv_and_qrels_fields(landed):
    _, _, _, _, con = landed
    for name in ("votes_open.csv", "votes_closed.csv"):
        with open(REAL / "crsarena-dial" / "data" / name, encoding="utf-8", newline="") as fh:
            rows = list(csv.DictReader(fh))
        got = con.execute(
            "SELECT record_key, payload::VARCHAR FROM raw.crsarena__votes WHERE source_path = ? ORDER BY record_index",
            [f"data/{name}"],
        ).fetchall()
        assert [json.loads(g[1]) for g in got] == rows
        assert [g[0] for g in got] == [r["session_id"] for r in rows]
    with open(REAL / "cosrec" / "dataset/curated/qrels.qrels", encoding="utf-8") as fh:
        want = [ln.split() for ln in fh if ln.strip()]
    got = con.execute(
        "SELECT payload->>'topic_id', payload->>'iteration', payload->>'doc_id', payload->>'grade' "
        "FROM raw.cosrec__qrels ORDER BY record_index"
    ).fetchall()
    assert [list(g) for g in got] == want


def test_no_change_reingest_loads_nothing(landed):
    # Its speed is measured by benchmarks/ingest.py (BENCHMARKS.md), not asserted here.
    first, second, _, _, con = landed
    assert second.files_loaded == 0 and second.files_removed == 0
    assert second.files_unchanged == first.files_loaded
    runs = con.execute(
        "SELECT status, files_loaded FROM raw.ingest_runs ORDER BY started_at"
    ).fetchall()
    assert runs == [("ok", first.files_loaded), ("ok", 0)]
