"""Rebuild only what changed; keep dbt's partial parse; bounded DuckDB memory (issue 14, 3-5).

One module fixture builds the sample (cold, gate included), changes one CoSRec file, rebuilds
(selective) and builds the same final inputs from scratch in another warehouse (full). The
tests compare the two warehouses table by table and the dbt nodes the selective build ran
against the dbt graph of the saved manifest.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from unittest import mock

import duckdb
import pytest

from csrwh import config
from csrwh.errors import CsrwhError
from csrwh.gate.run import gate
from csrwh.gate.suites import load_suites
from csrwh.pipeline import BuildResult, build, state_dir
from csrwh.pipeline.lineage import SUITE as LINEAGE
from csrwh.pipeline.selection import _saved_state
from csrwh.sample import generate
from ingest.registry import raw_tables

CHANGED_FILE = "cosrec/dataset/raw/conversations.jsonl"
OTHER_CORPORA = ("crsarena", "recllmsim", "convsearch", "recoreact", "custom")


@dataclass
class History:
    data: Path
    warehouse: Path
    reference: Path
    target: Path
    cold: BuildResult
    selective: BuildResult
    selective_started: float
    full: BuildResult
    manifest: dict


#: lines the selective build rejects (issue 24.10: its rejects must reach the marts too)
BAD_LINES = [
    '{"CoSRec-Raw_bad1": oops}\n',
    "[1, 2]\n",
    '{"CoSRec-Raw_bad2": "x", "second key": 1}\n',
    '{"CoSRec-Raw_bad3": NaN}\n',
]


#: the first record's text gains Han characters (issue 26: its corpus's counts in
#: int_turn_text_counts change, so carrying them over from the cold build would show)
EDITED_FROM, EDITED_TO = "Hey there", "你好你好 there"


def _edit_first_text(path: Path) -> None:
    """Change :data:`EDITED_FROM` of the first line into :data:`EDITED_TO`."""
    lines = path.read_text("utf-8").splitlines(True)
    assert EDITED_FROM in lines[0], lines[0][:200]
    lines[0] = lines[0].replace(EDITED_FROM, EDITED_TO, 1)
    path.write_text("".join(lines), "utf-8")


def _drop_last_line(path: Path) -> None:
    """Drop the last line and insert :data:`BAD_LINES` in the middle."""
    lines = path.read_text("utf-8").splitlines(True)[:-1]
    middle = len(lines) // 2
    path.write_text("".join(lines[:middle] + BAD_LINES + lines[middle:]), "utf-8")


@pytest.fixture(scope="module")
def history(module_tmp_path: Path) -> History:
    root = module_tmp_path
    target = root / "target"
    with mock.patch.dict(os.environ, CSRWH_DBT_TARGET_PATH=str(target)):
        data = root / "data"
        generate(data, scale=1, seed=11)
        warehouse = root / "wh" / "csr.duckdb"
        cold = build(data, warehouse, gates=[gate], allow_rejects=True)
        assert cold.published
        manifest = json.loads((state_dir(warehouse) / "manifest.json").read_text("utf-8"))
        _drop_last_line(data / CHANGED_FILE)
        _edit_first_text(data / CHANGED_FILE)
        started = time.time()
        selective = build(data, warehouse, gates=[gate], allow_rejects=True)
        assert selective.published and not selective.up_to_date
        reference = root / "reference" / "csr.duckdb"
        full = build(data, reference, gates=[gate], allow_rejects=True, full_refresh=True)
        assert full.published
    return History(data, warehouse, reference, target, cold, selective, started, full, manifest)


def _executed_models(result: BuildResult) -> set[str]:
    assert result.dbt is not None
    return {uid for uid in result.dbt.timings if uid.startswith("model.")}


def _descendants(manifest: dict, start: str) -> set[str]:
    assert start in manifest["child_map"], f"{start} is not a node of the manifest"
    seen: set[str] = set()
    todo = [start]
    while todo:
        for child in manifest["child_map"].get(todo.pop(), []):
            if child not in seen:
                seen.add(child)
                todo.append(child)
    return seen


# --------------------------------------------------------------------------- dbt's parse


def test_the_second_build_reuses_dbts_partial_parse(history: History) -> None:
    # a fresh target: the cold build has nothing to reuse and parses everything ...
    assert history.cold.dbt is not None and history.cold.dbt.full_parse_reason is not None
    # ... the next build of the same warehouse (another build id, another working file) does not
    assert history.selective.dbt is not None
    assert history.selective.dbt.full_parse_reason is None, history.selective.dbt.full_parse_reason
    assert history.selective.dbt.parse_seconds is not None


def test_no_hard_link_left_beside_the_warehouse(history: History) -> None:
    kept = history.warehouse.with_name(history.warehouse.name + ".build")
    assert sorted(p.name for p in kept.iterdir()) == ["state", "tmp"]
    assert sorted(p.name for p in (kept / "state").iterdir()) == ["build.json", "manifest.json"]
    info = json.loads((kept / "state" / "build.json").read_text("utf-8"))
    con = duckdb.connect(str(history.warehouse), read_only=True)
    try:
        published = con.execute("select build_id from main.build_info").fetchone()[0]
    finally:
        con.close()
    assert info["build_id"] == published == history.selective.build_id


# --------------------------------------------------------------------------- selection


def test_a_change_to_one_corpus_rebuilds_only_its_descendants(history: History) -> None:
    assert any(n.startswith("selective build: ") for n in history.selective.notes)
    executed = _executed_models(history.selective)
    downstream = _descendants(history.manifest, "source.csrwh.cosrec.conversations")
    for table in ("rejected_records", "ingest_files", "ingest_runs"):  # changed with it
        downstream |= _descendants(history.manifest, f"source.csrwh.ingest.{table}")
    assert executed, "the selective build ran no model"
    assert executed <= downstream, sorted(executed - downstream)
    # no staging or intermediate model of another corpus (cross-corpus marts do rebuild)
    other = [
        uid
        for uid in executed
        if Path(history.manifest["nodes"][uid]["original_file_path"]).parts[1:3]
        in {(layer, corpus) for layer in ("staging", "intermediate") for corpus in OTHER_CORPORA}
    ]
    assert not other, other
    assert any(
        Path(history.manifest["nodes"][uid]["original_file_path"]).parts[1:3]
        == ("intermediate", "crsarena")
        for uid in _executed_models(history.full)
    )
    # the full build ran every model, the selective one fewer
    assert executed < _executed_models(history.full)
    assert "model.csrwh.stg_cosrec__conversations" in executed


def test_selective_rebuild_equals_a_full_rebuild_row_for_row(history: History) -> None:
    con = duckdb.connect(":memory:")
    try:
        con.execute(f"attach '{history.warehouse}' as selective (read_only)")
        con.execute(f"attach '{history.reference}' as complete (read_only)")
        tables = {
            (s, t)
            for db in ("selective", "complete")
            for s, t in con.execute(
                "select schema_name, table_name from duckdb_tables() where database_name = ? "
                "and schema_name in ('main', 'intermediate', 'seeds')",
                [db],
            ).fetchall()
        } - {("main", "build_info"), ("main", "dq_results")}
        assert len(tables) > 30
        for schema, table in sorted(tables):
            # DuckDB sums doubles in parallel, in no fixed order: a full build run twice differs
            # in the last bit of averages, so doubles are compared to 12 significant digits
            # ... and when the ingest rejected a record differs between two builds (the
            # summary's times are checked against its own raw.rejected_records below)
            columns = ", ".join(
                f"printf('%.12g', \"{name}\")" if kind in ("DOUBLE", "FLOAT") else f'"{name}"'
                for name, kind in con.execute(
                    "select column_name, data_type from duckdb_columns() where database_name = "
                    "'complete' and schema_name = ? and table_name = ? order by column_index",
                    [schema, table],
                ).fetchall()
                if not name.endswith("_rejected_at")
            )
            a = f'select {columns} from selective."{schema}"."{table}"'
            b = f'select {columns} from complete."{schema}"."{table}"'
            for left, right in ((a, b), (b, a)):
                extra = con.execute(f"select count(*) from ({left} except all {right})").fetchone()[
                    0
                ]
                assert extra == 0, f"{schema}.{table}: {extra} row(s) of one build not in the other"
    finally:
        con.close()


def test_rejected_records_summary_matches_the_rejects_after_a_selective_build(
    history: History,
) -> None:
    """Issue 24.10: the selective build's rejects (4 lines of the changed file) reached
    raw.rejected_records but not rejected_records_summary (0 rows), which the dashboard reads."""
    summary = (
        "select corpus, table_name, n_rejected, n_files, first_rejected_at, last_rejected_at "
        "from main.rejected_records_summary order by all"
    )
    from_raw = (
        "select corpus, table_name, count(*), count(distinct source_path), min(rejected_at), "
        "max(rejected_at) from raw.rejected_records group by all order by all"
    )
    with duckdb.connect(str(history.warehouse), read_only=True) as con:
        got, expected = con.execute(summary).fetchall(), con.execute(from_raw).fetchall()
    assert got == expected
    assert sum(row[2] for row in got) == len(BAD_LINES)
    assert "rejected_records_summary" in {
        u.split(".")[-1] for u in _executed_models(history.selective)
    }


def test_dq_results_describe_the_whole_warehouse(history: History) -> None:
    suites = {s.name for s in load_suites()}
    query = (
        "select suite, table_name, expectation, success, cast(observed_value as varchar), "
        "validated_at from main.dq_results where run_id = ?"
    )
    with duckdb.connect(str(history.warehouse), read_only=True) as con:
        selective = con.execute(query, [history.selective.build_id]).fetchall()
    with duckdb.connect(str(history.reference), read_only=True) as con:
        full = con.execute(query, [history.full.build_id]).fetchall()

    def gx(rows: list[tuple]) -> set[tuple]:
        return {r[:5] for r in rows if r[0] in suites}

    assert {r[0] for r in gx(full)} == suites
    assert gx(selective) == gx(full)
    # what was checked again and what was carried over from the published build
    started = history.selective_started
    rerun = {
        r[0]
        for r in selective
        if r[0] in suites and r[5].replace(tzinfo=dt.UTC).timestamp() >= started
    }
    carried = {r[0] for r in selective if r[0] in suites} - rerun
    assert "raw.cosrec__conversations" in rerun
    assert "raw.crsarena__votes" in carried and "raw.recllmsim__conversations" in carried
    # issue 26: a suite runs again when a table it reads changed, its own or another: ratings
    # (not rebuilt) reads main.turns; crs_leaderboard, rebuilt by dbt with the same rows (and
    # its votes unchanged), keeps its published outcome
    assert "ratings" in rerun and "turns" in rerun
    assert "model.csrwh.crs_leaderboard" in history.selective.dbt.timings
    assert "crs_leaderboard" in carried


def test_lineage_is_scanned_again_only_for_re_ingested_raw_tables(history: History) -> None:
    """Issue 26: a selective rebuild lists the key paths of the raw tables it re-ingested only;
    the other tables' lineage outcomes are carried over, equal to a full build's."""
    query = (
        "select table_name, expectation, success, cast(observed_value as varchar), "
        "cast(offending_rows as varchar), validated_at from main.dq_results "
        "where run_id = ? and suite = ?"
    )
    with duckdb.connect(str(history.warehouse), read_only=True) as con:
        selective = con.execute(query, [history.selective.build_id, LINEAGE]).fetchall()
    with duckdb.connect(str(history.reference), read_only=True) as con:
        full = con.execute(query, [history.full.build_id, LINEAGE]).fetchall()
    assert len(full) == len(raw_tables()) and len(selective) == len(full)
    assert sorted(r[:5] for r in selective) == sorted(r[:5] for r in full)
    started = history.selective_started
    scanned = {r[0] for r in selective if r[5].replace(tzinfo=dt.UTC).timestamp() >= started}
    assert scanned == {"raw.cosrec__conversations"}


# --------------------------------------------------------------------------- fall back to full


def test_missing_or_foreign_state_means_a_full_build(history: History, tmp_path: Path) -> None:
    warehouse = tmp_path / "csr.duckdb"
    shutil.copy2(history.warehouse, warehouse)
    problem, _ = _saved_state(warehouse, history.selective.build_id)
    assert problem is not None and "no saved dbt state" in problem
    shutil.copytree(state_dir(history.warehouse), state_dir(warehouse))
    assert _saved_state(warehouse, history.selective.build_id)[0] is None
    problem, _ = _saved_state(warehouse, history.cold.build_id)
    assert problem is not None and history.selective.build_id in problem


def test_full_makes_dbt_refresh_the_incremental_models(
    history: History, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--full`` runs dbt with ``--full-refresh``: the incremental Python models (issue 26)
    compute everything again rather than carry over their previous tables."""
    from csrwh.pipeline import job
    from csrwh.pipeline.dbt_runner import DbtOutcome

    data = tmp_path / "data"
    shutil.copytree(history.data, data)
    _drop_last_line(data / "cosrec/dataset/crowd/quality.jsonl")
    warehouse = tmp_path / "wh" / "csr.duckdb"
    warehouse.parent.mkdir()
    shutil.copy2(history.warehouse, warehouse)
    shutil.copytree(state_dir(history.warehouse), state_dir(warehouse))
    monkeypatch.setenv("CSRWH_DBT_TARGET_PATH", str(history.target))
    calls: list[list[str]] = []

    def no_dbt(args, database, **kwargs):
        calls.append(list(args))
        return DbtOutcome(success=False, seconds=0.0, failures=["stopped by the test"])

    monkeypatch.setattr(job, "run_dbt", no_dbt)
    for full in (False, True):
        with pytest.raises(CsrwhError):
            build(data, warehouse, allow_rejects=True, full=full)
    selective, full_build = calls
    assert "--select" in selective and "--full-refresh" not in selective
    assert "--select" not in full_build and "--full-refresh" in full_build


# --------------------------------------------------------------------------- memory and threads


def test_ingest_and_dbt_get_the_machine_settings(
    history: History, monkeypatch: pytest.MonkeyPatch
) -> None:
    import ingest

    monkeypatch.setenv("CSRWH_DBT_TARGET_PATH", str(history.target))
    monkeypatch.setenv("CSRWH_MEMORY_LIMIT", "300MiB")
    monkeypatch.setenv("CSRWH_THREADS", "1")
    seen: dict[str, str] = {}
    original = ingest.run_ingest

    def spy(data_dir, warehouse, **kwargs):
        assert isinstance(warehouse, duckdb.DuckDBPyConnection)
        for name in ("memory_limit", "threads", "temp_directory"):
            seen[name] = str(warehouse.execute(f"select current_setting('{name}')").fetchone()[0])
        return original(data_dir, warehouse, **kwargs)

    monkeypatch.setattr(ingest, "run_ingest", spy)
    # past the no-change check before the copy (csrwh/pipeline/uptodate.py), as when it cannot tell:
    # the copy is ingested, with these settings, and the check after ingest finds it up to date
    monkeypatch.setattr("csrwh.pipeline.job.why_not_up_to_date", lambda *a, **k: "cannot tell")
    assert build(history.data, history.warehouse, allow_rejects=True).up_to_date
    with duckdb.connect(config={"memory_limit": "300MiB"}) as con:
        expected = con.execute("select current_setting('memory_limit')").fetchone()[0]
    assert seen["memory_limit"] == expected
    assert seen["threads"] == "1"
    assert Path(seen["temp_directory"]) == history.warehouse.with_name("csr.duckdb.build") / "tmp"


def test_memory_limit_and_threads_from_the_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CSRWH_MEMORY_LIMIT", raising=False)
    monkeypatch.delenv("CSRWH_THREADS", raising=False)
    monkeypatch.setattr(config, "_machine_memory_mb", lambda: 1000)
    monkeypatch.setattr(config, "_machine_cores", lambda: 3)
    assert config.memory_limit_mb() == 400 and config.threads() == 3
    monkeypatch.setattr(config, "_machine_memory_mb", lambda: 64_000)
    assert config.memory_limit_mb() == config.MAX_MEMORY_LIMIT_MB < 0.4 * 64_000
    monkeypatch.setenv("CSRWH_MEMORY_LIMIT", "2GB")
    monkeypatch.setenv("CSRWH_THREADS", "5")
    assert config.memory_limit_mb() == int(2 * 10**9 / 2**20) and config.threads() == 5
    assert config.duckdb_settings(Path("/x/tmp")) == {
        "memory_limit": f"{int(2 * 10**9 / 2**20)}MiB",
        "threads": "5",
        "temp_directory": "/x/tmp",
        "zstd_min_string_length": str(config.ZSTD_MIN_STRING_LENGTH),
    }


@pytest.mark.parametrize(
    ("name", "value", "words"),
    [
        ("CSRWH_MEMORY_LIMIT", "lots", "is not a size"),
        ("CSRWH_MEMORY_LIMIT", "10MB", "below"),
        ("CSRWH_THREADS", "0", "positive whole number"),
        ("CSRWH_THREADS", "two", "positive whole number"),
    ],
)
def test_bad_settings_are_one_line_errors(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str, words: str
) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(CsrwhError) as info:
        config.duckdb_settings(Path("/tmp"))
    message = str(info.value)
    assert name in message and words in message and "\n" not in message
