"""Run-level behaviour: schema, idempotence, replacement, removal, missing corpora, errors."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import duckdb
import pytest

from csrwh.dbt_support import dbt_sources
from csrwh.errors import CsrwhError
from ingest import readers, registry, run, run_ingest


def small_corpora(root: Path, write_file) -> Path:
    """14 small files covering every corpus, one of them with a rejected record."""
    write_file(
        root / "cosrec",
        "dataset/crowd/conversations.jsonl",
        '{"c1": "U: a\\nS: b"}\n{"c2": "U: x"}\n',
    )
    write_file(root / "cosrec", "dataset/curated/conversations.jsonl", '{"k1": "U: q"}\n')
    write_file(
        root / "cosrec", "dataset/crowd/quality.jsonl", '{"c1": [{"fluency": 4}]}\nnot json\n'
    )
    write_file(root / "cosrec", "dataset/curated/qrels.qrels", "t1 0 d1 2\nt1 0 d2 0\n")
    write_file(
        root / "crsarena-dial",
        "data/crs_arena_dial_open.json",
        json.dumps([{"conversation ID": "a_u1"}]),
    )
    write_file(
        root / "crsarena-dial",
        "data/votes_open.csv",
        "session_id,user_id,crs1,crs2,vote,feedback\ns,u,a,b,tie,\n",
    )
    write_file(root / "convsearch", "Dialogs.json", '[{"id": 1, "turns": []}]')
    write_file(root / "convsearch", "SearchBehaviors.json", '[{"id": 9, "clicked_results": "[]"}]')
    for i in range(3):
        write_file(
            root / "recllmsim",
            f"LLM_agent_user/travel planning/{i}.json",
            json.dumps({"task": "t", "i": i}),
        )
    write_file(root / "recoreact", "news-products.jsonl", '{"pid": "p1"}\n')
    write_file(root / "recoreact", "news-users.jsonl", '{"uid": "u1"}\n')
    write_file(root / "recoreact", "news-impressions.jsonl", '{"iid": "i1", "uid": "u1"}\n')
    return root


def snapshot(con) -> dict[str, list]:
    """Every row of every raw table and of rejected_records / ingest_files."""
    out = {}
    for t in registry.raw_tables() + ["rejected_records", "ingest_files"]:
        cols = [r[0] for r in con.execute(f"DESCRIBE raw.{t}").fetchall()]
        sel = ", ".join(f'"{c}"::VARCHAR' for c in cols)
        out[t] = con.execute(f"SELECT {sel} FROM raw.{t} ORDER BY ALL").fetchall()
    return out


def source_tables() -> list[str]:
    """The corpus raw tables as declared by the dbt sources in each corpus's staging folder
    (`models/staging/<corpus>/_<corpus>__sources.yml`), independent of ingest's file specs."""
    return sorted(
        name for name, table in dbt_sources.raw_tables().items() if table.source != "ingest"
    )


def quiet(data_dir, warehouse, **kw):
    return run_ingest(data_dir, warehouse, progress=False, **kw)


# ----------------------------------------------------------------------------- schema


def test_all_tables_exist_with_the_contract_columns(tmp_path, duck, write_file):
    write_file(tmp_path / "cosrec", "dataset/crowd/conversations.jsonl", '{"c1": "x"}\n')
    quiet(tmp_path, duck)
    tables = {
        r[0]
        for r in duck.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'raw'"
        ).fetchall()
    }
    assert len(source_tables()) == 19
    assert tables == set(source_tables()) | {
        "rejected_records",
        "ingest_files",
        "ingest_runs",
    }
    for t in source_tables():
        cols = duck.execute(f"DESCRIBE raw.{t}").fetchall()
        assert [(c[0], c[1]) for c in cols] == [
            ("batch_id", "VARCHAR"),
            ("corpus", "VARCHAR"),
            ("source_path", "VARCHAR"),
            ("record_index", "BIGINT"),
            ("line_number", "BIGINT"),
            ("record_key", "VARCHAR"),
            ("payload", "JSON"),
            ("source_text", "VARCHAR"),
            ("file_sha256", "VARCHAR"),
            ("ingested_at", "TIMESTAMP"),
        ]
    expected = {
        "rejected_records": "batch_id, corpus, table_name, source_path, record_index, line_number, error, raw_text, raw_bytes, file_sha256, rejected_at",
        "ingest_files": "corpus, table_name, source_path, file_sha256, size_bytes, modified_at, n_records, n_rejected, batch_id, ingested_at",
        "ingest_runs": "batch_id, started_at, finished_at, data_dir, corpora, files_loaded, files_unchanged, files_removed, records_loaded, records_rejected, status",
    }
    for t, cols in expected.items():
        assert [c[0] for c in duck.execute(f"DESCRIBE raw.{t}").fetchall()] == cols.split(", ")
    assert duck.execute(
        "SELECT data_type FROM information_schema.columns WHERE table_schema='raw' "
        "AND table_name='rejected_records' AND column_name='raw_bytes'"
    ).fetchone() == ("BLOB",)
    # absent corpora: their tables exist and are empty
    assert duck.execute("SELECT count(*) FROM raw.recoreact__users").fetchone() == (0,)


def test_every_raw_table_of_a_full_sample_is_filled(tmp_path, duck, write_file):
    small_corpora(tmp_path, write_file)
    s = quiet(tmp_path, duck)
    assert s.missing_corpora == []
    assert (s.files_loaded, s.records_rejected) == (14, 1)
    for t in registry.raw_tables():
        if t not in (
            "cosrec__intent_annotations",
            "cosrec__intents",
            "cosrec__keywords",
            "cosrec__profiles",
            "custom__conversations",
            "custom__corpora",
            "custom__qrels",
            "custom__users",
        ):  # custom is optional
            assert duck.execute(f"SELECT count(*) FROM raw.{t}").fetchone()[0] > 0, t
    runs = duck.execute(
        "SELECT batch_id, files_loaded, records_loaded, records_rejected, status, corpora FROM raw.ingest_runs"
    ).fetchall()
    assert runs == [
        (
            s.batch_id,
            14,
            s.records_loaded,
            1,
            "ok",
            "cosrec,crsarena,convsearch,recllmsim,recoreact,custom",
        )
    ]


# ----------------------------------------------------------------------------- idempotence


def test_second_run_loads_nothing_and_changes_nothing(tmp_path, duck, write_file):
    small_corpora(tmp_path, write_file)
    first = quiet(tmp_path, duck)
    before = snapshot(duck)
    second = quiet(tmp_path, duck)
    assert (second.files_loaded, second.files_unchanged, second.files_removed) == (0, 14, 0)
    assert (second.records_loaded, second.records_rejected) == (0, 0)
    assert (first.rejected_outstanding, second.rejected_outstanding) == (1, 1)
    assert snapshot(duck) == before
    runs = duck.execute(
        "SELECT batch_id, files_loaded, files_unchanged, status FROM raw.ingest_runs ORDER BY started_at"
    ).fetchall()
    assert runs == [(first.batch_id, 14, 0, "ok"), (second.batch_id, 0, 14, "ok")]


def test_touching_a_file_without_changing_it_loads_nothing(tmp_path, duck, write_file):
    small_corpora(tmp_path, write_file)
    quiet(tmp_path, duck)
    p = tmp_path / "recoreact" / "news-users.jsonl"
    p.write_bytes(p.read_bytes())  # new mtime, same bytes
    assert quiet(tmp_path, duck).files_loaded == 0


def test_a_same_size_edit_is_found_by_its_sha256(tmp_path, duck, write_file):
    """Only files whose manifest row has their size and table are hashed while planning (a
    new or resized file is loaded anyway and hashed from the bytes it lands): an edit that
    keeps the size is still caught by the hash, and the manifest keeps each file's sha256."""
    small_corpora(tmp_path, write_file)
    quiet(tmp_path, duck)
    p = tmp_path / "recoreact" / "news-users.jsonl"
    p.write_bytes(p.read_bytes().replace(b"u1", b"u2"))  # same size, other bytes
    s = quiet(tmp_path, duck)
    assert (s.files_loaded, s.files_unchanged) == (1, 13)
    assert duck.execute("SELECT record_key FROM raw.recoreact__users").fetchall() == [("u2",)]
    stored = dict(duck.execute("SELECT source_path, file_sha256 FROM raw.ingest_files").fetchall())
    on_disk = {
        str(f.relative_to(tmp_path / corpus)): hashlib.sha256(f.read_bytes()).hexdigest()
        for corpus in (d.name for d in tmp_path.iterdir() if d.is_dir())  # what small_corpora wrote
        for f in (tmp_path / corpus).rglob("*")
        if f.is_file()
    }
    assert stored == on_disk


def test_planning_hashes_only_files_that_may_be_unchanged(tmp_path, duck, write_file, monkeypatch):
    small_corpora(tmp_path, write_file)
    hashed: list[list[str]] = []
    original = run.hash_files

    def spy(files, *a, **k):
        hashed.append(sorted(f.rel for f in files))
        return original(files, *a, **k)

    monkeypatch.setattr(run, "hash_files", spy)
    quiet(tmp_path, duck)  # cold: every file is new, none hashed before loading
    p = tmp_path / "recoreact" / "news-users.jsonl"
    p.write_bytes(p.read_bytes() + b'{"uid": "u9"}\n')  # resized: loaded without planning hash
    s = quiet(tmp_path, duck)
    assert hashed[0] == []
    assert len(hashed[1]) == 13 and "news-users.jsonl" not in hashed[1]
    assert (s.files_loaded, s.records_loaded) == (1, 2)


def test_changed_file_replaces_only_its_rows(tmp_path, duck, write_file):
    small_corpora(tmp_path, write_file)
    first = quiet(tmp_path, duck)
    before = snapshot(duck)
    write_file(tmp_path / "cosrec", "dataset/crowd/conversations.jsonl", '{"c9": "new"}\n')
    second = quiet(tmp_path, duck)
    assert (second.files_loaded, second.files_unchanged, second.records_loaded) == (1, 13, 1)
    got = duck.execute(
        "SELECT source_path, record_key, batch_id FROM raw.cosrec__conversations ORDER BY ALL"
    ).fetchall()
    assert got == [
        ("dataset/crowd/conversations.jsonl", "c9", second.batch_id),
        ("dataset/curated/conversations.jsonl", "k1", first.batch_id),
    ]
    after = snapshot(duck)
    for t in before:
        if t not in ("cosrec__conversations", "ingest_files"):
            assert after[t] == before[t], t
    manifest = duck.execute(
        "SELECT source_path, batch_id, n_records FROM raw.ingest_files "
        "WHERE table_name = 'cosrec__conversations' ORDER BY 1"
    ).fetchall()
    assert manifest == [
        ("dataset/crowd/conversations.jsonl", second.batch_id, 1),
        ("dataset/curated/conversations.jsonl", first.batch_id, 1),
    ]


def test_fixing_a_file_removes_its_rejects(tmp_path, duck, write_file):
    small_corpora(tmp_path, write_file)
    quiet(tmp_path, duck)
    assert duck.execute("SELECT count(*) FROM raw.rejected_records").fetchone() == (1,)
    write_file(
        tmp_path / "cosrec", "dataset/crowd/quality.jsonl", '{"c1": [{"fluency": 4}]}\n{"c2": []}\n'
    )
    s = quiet(tmp_path, duck)
    assert (s.files_loaded, s.records_loaded, s.records_rejected) == (1, 2, 0)
    assert duck.execute("SELECT count(*) FROM raw.rejected_records").fetchone() == (0,)
    assert duck.execute("SELECT count(*) FROM raw.cosrec__quality").fetchone() == (2,)


def test_deleted_file_rows_go(tmp_path, duck, write_file):
    small_corpora(tmp_path, write_file)
    quiet(tmp_path, duck)
    (tmp_path / "cosrec" / "dataset/crowd/quality.jsonl").unlink()
    (tmp_path / "recllmsim" / "LLM_agent_user/travel planning/1.json").unlink()
    s = quiet(tmp_path, duck)
    assert (s.files_loaded, s.files_removed, s.files_unchanged) == (0, 2, 12)
    assert (
        s.per_corpus["cosrec"].files_removed == 1 and s.per_corpus["recllmsim"].files_removed == 1
    )
    assert duck.execute("SELECT count(*) FROM raw.cosrec__quality").fetchone() == (0,)
    assert duck.execute("SELECT count(*) FROM raw.rejected_records").fetchone() == (0,)
    assert duck.execute(
        "SELECT record_key FROM raw.recllmsim__conversations ORDER BY 1"
    ).fetchall() == [("LLM_agent_user/travel planning/0",), ("LLM_agent_user/travel planning/2",)]
    paths = {r[0] for r in duck.execute("SELECT source_path FROM raw.ingest_files").fetchall()}
    assert "dataset/crowd/quality.jsonl" not in paths and len(paths) == 12
    assert duck.execute(
        "SELECT files_removed FROM raw.ingest_runs WHERE batch_id = ?", [s.batch_id]
    ).fetchone() == (2,)


def test_changed_recllmsim_batch_only_reloads_changed_files(tmp_path, duck, write_file):
    small_corpora(tmp_path, write_file)
    first = quiet(tmp_path, duck)
    write_file(
        tmp_path / "recllmsim", "LLM_agent_user/travel planning/1.json", '{"task": "changed"}'
    )
    write_file(tmp_path / "recllmsim", "V2/new task/0.json", '{"task": "new"}')
    s = quiet(tmp_path, duck)
    assert (s.files_loaded, s.records_loaded) == (2, 2)
    got = duck.execute(
        "SELECT record_key, batch_id = ? FROM raw.recllmsim__conversations ORDER BY 1",
        [first.batch_id],
    ).fetchall()
    assert got == [
        ("LLM_agent_user/travel planning/0", True),
        ("LLM_agent_user/travel planning/1", False),
        ("LLM_agent_user/travel planning/2", True),
        ("V2/new task/0", False),
    ]


def test_missing_corpus_is_reported_and_mirrored(tmp_path, duck, write_file, capsys):
    small_corpora(tmp_path, write_file)
    before = quiet(tmp_path, duck).missing_corpora  # registered corpora small_corpora leaves out
    import shutil

    shutil.rmtree(tmp_path / "convsearch")
    s = quiet(tmp_path, duck)
    assert [c for c in s.missing_corpora if c not in before] == ["convsearch"]
    assert s.files_removed == 2
    err = capsys.readouterr().err
    assert "convsearch" in err and "missing" in err and "--from-zip" in err
    assert duck.execute("SELECT count(*) FROM raw.convsearch__dialogs").fetchone() == (0,)


def test_corpora_filter_leaves_other_corpora_alone(tmp_path, duck, write_file):
    small_corpora(tmp_path, write_file)
    s = quiet(tmp_path, duck, corpora=["crsarena-dial", "recoreact"])
    assert set(s.per_corpus) == {"crsarena", "recoreact"}
    assert s.files_loaded == 5
    assert duck.execute("SELECT count(*) FROM raw.cosrec__conversations").fetchone() == (0,)
    assert duck.execute("SELECT corpora FROM raw.ingest_runs").fetchone() == ("crsarena,recoreact",)
    # now cosrec alone: the others stay as they are
    s2 = quiet(tmp_path, duck, corpora=["cosrec"])
    assert (s2.files_loaded, s2.files_removed) == (4, 0)
    assert duck.execute("SELECT count(*) FROM raw.recoreact__users").fetchone() == (1,)


def test_unknown_corpus_name(tmp_path, duck):
    with pytest.raises(CsrwhError) as exc:
        quiet(tmp_path, duck, corpora=["nope"])
    assert "nope" in exc.value.message and "cosrec" in exc.value.hint


@pytest.mark.parametrize("make_dir", [True, False])
def test_no_corpus_at_all_is_an_error_with_a_hint(tmp_path, duck, make_dir):
    data = tmp_path / "data"
    if make_dir:
        (data / "unrelated").mkdir(parents=True)
    with pytest.raises(CsrwhError) as exc:
        quiet(data, duck)
    assert "csrwh sample --out data/sample" in exc.value.hint
    assert "csrwh fetch" in exc.value.hint


def test_requested_corpus_missing_is_an_error(tmp_path, duck, write_file):
    small_corpora(tmp_path, write_file)
    import shutil

    shutil.rmtree(tmp_path / "recoreact")
    with pytest.raises(CsrwhError):
        quiet(tmp_path, duck, corpora=["recoreact"])


# ----------------------------------------------------------------------------- warehouse & transactions


def test_warehouse_path_is_created_opened_and_closed(tmp_path, write_file):
    small_corpora(tmp_path / "d", write_file)
    wh = tmp_path / "nested" / "dir" / "wh.duckdb"
    s = quiet(tmp_path / "d", wh)
    assert wh.exists()
    con = duckdb.connect(str(wh))  # would fail if ingest still held the file
    try:
        assert con.execute("SELECT sum(n_records) FROM raw.ingest_files").fetchone() == (
            s.records_loaded,
        )
    finally:
        con.close()
    assert quiet(tmp_path / "d", wh).files_loaded == 0


def test_a_failing_run_changes_nothing_and_is_recorded(tmp_path, duck, write_file, monkeypatch):
    small_corpora(tmp_path, write_file)
    quiet(tmp_path, duck)
    before = snapshot(duck)
    write_file(tmp_path / "cosrec", "dataset/crowd/conversations.jsonl", '{"c9": "new"}\n')
    write_file(tmp_path / "crsarena-dial", "data/votes_open.csv", "session_id\nx\n")

    def boom(*a, **k):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(readers, "read_csv", boom)
    with pytest.raises(RuntimeError, match="disk on fire"):
        quiet(tmp_path, duck)
    assert snapshot(duck) == before
    assert duck.execute(
        "SELECT status, files_loaded FROM raw.ingest_runs ORDER BY started_at"
    ).fetchall() == [("ok", 14), ("failed", 0)]
    monkeypatch.undo()
    assert quiet(tmp_path, duck).files_loaded == 2


def test_summary_lists_files_with_rejects(tmp_path, duck, write_file, capsys):
    small_corpora(tmp_path, write_file)
    s = run_ingest(tmp_path, duck, progress=True)
    assert s.rejected_files == {"cosrec/dataset/crowd/quality.jsonl": 1}
    assert s.records_rejected == 1
    err = capsys.readouterr().err
    assert "cosrec/dataset/crowd/quality.jsonl: 1" in err
    for word in ("corpus", "loaded", "unchanged", "removed", "records", "rejects", "recllmsim"):
        assert word in err
