"""What a build must never do to the published warehouse (issue 13, items 1-3, 6, 7, 10).

Every test starts from a copy of one published sample warehouse (built once per module) and
checks the published file's sha256 afterwards. Signals and kills are sent at a phase the test
waits for: the build's test hook ``CSRWH_TEST_PAUSE_AT=<phase>`` makes it write
``CSRWH_TEST_PAUSE_FILE`` at that phase and wait until the file is removed (csrwh/pipeline.py),
or the test polls the build's output for the phase's progress line (dbt's ``START`` lines,
``phase gate``) to signal inside dbt or Great Expectations themselves.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from unittest import mock

import duckdb
import pytest
from build_safety_helpers import (
    count,
    drop_last_conversation,
    error_lines,
    finish,
    leftovers,
    sha256,
    spawn,
    spawn_paused,
    wait_for,
)

from csrwh.errors import CsrwhError
from csrwh.pipeline import build, failed_path
from csrwh.sample import generate


@pytest.fixture(scope="module")
def published(module_tmp_path: Path):
    """(data folder, published warehouse, dbt target): the sample, built once."""
    root = module_tmp_path
    target = root / "target"
    with mock.patch.dict(os.environ, CSRWH_DBT_TARGET_PATH=str(target)):
        data = root / "data"
        generate(data, scale=1, seed=7)
        warehouse = root / "published" / "wh.duckdb"
        assert build(data, warehouse).published
    return data, warehouse, target


@pytest.fixture
def site(published, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A private copy of the published warehouse and of its data folder."""
    data, warehouse, target = published
    monkeypatch.setenv("CSRWH_DBT_TARGET_PATH", str(target))
    own = tmp_path / "wh" / "csr.duckdb"
    own.parent.mkdir()
    shutil.copy2(warehouse, own)
    own_data = tmp_path / "data"
    shutil.copytree(data, own_data)
    return own_data, own


# --------------------------------------------------------------------------- item 1: stale marts


def test_ingest_never_writes_the_published_warehouse(site, tmp_path: Path) -> None:
    data, warehouse = site
    before = sha256(warehouse)
    conversations = data / "cosrec/dataset/crowd/conversations.jsonl"
    conversations.write_text(
        "".join(conversations.read_text("utf-8").splitlines(True)[:-2]), "utf-8"
    )
    log = tmp_path / "ingest.log"
    proc = spawn(["ingest", "--data-dir", str(data), "--warehouse", str(warehouse)], tmp_path, log)
    assert finish(proc) == 0, log.read_text()
    assert sha256(warehouse) == before
    landed = warehouse.with_name(warehouse.name + ".ingested")
    assert (
        count(landed, "select count(*) from raw.cosrec__conversations")
        == count(warehouse, "select count(*) from raw.cosrec__conversations") - 2
    )


def test_build_after_an_in_place_ingest_rebuilds_the_marts(site) -> None:
    """Something wrote raw rows into the published file (an old `csrwh ingest`, a user's
    client): a build must rebuild the marts from them, not say "Up to date"."""
    from ingest import run_ingest

    data, warehouse = site
    drop_last_conversation(data)
    before = count(warehouse, "select count(*) from conversations")
    run_ingest(data, warehouse, progress=False)  # in place: this ingest now loaded the change
    result = build(data, warehouse)
    assert not result.up_to_date and result.published
    assert count(warehouse, "select count(*) from conversations") == before - 1
    assert build(data, warehouse).up_to_date


# --------------------------------------------------------------------------- item 2: one build at a time


def test_second_build_fails_at_once_naming_the_running_one(site, tmp_path: Path) -> None:
    data, warehouse = site
    before = sha256(warehouse)
    args = ["build", "--data-dir", str(data), "--warehouse", str(warehouse)]
    first, _ = spawn_paused(
        args, tmp_path, tmp_path / "first.log", "ingest", "the first build to reach ingest"
    )
    try:
        working = [p for p in leftovers(warehouse) if ".building-" in p]
        assert len(working) == 1  # a per-build working file name
        second_log = tmp_path / "second.log"
        second = spawn(args, tmp_path, second_log)
        assert finish(second, 120) == 75
        lines = error_lines(second_log)
        assert lines[0].startswith("error:") and f"pid {first.pid}" in lines[0], lines
        assert "--wait" in lines[1]
        assert "Traceback" not in second_log.read_text()
    finally:
        first.send_signal(signal.SIGTERM)
        assert finish(first) == 143
    assert sha256(warehouse) == before
    assert leftovers(warehouse) == []  # no working file, no lock file


def test_wait_waits_for_the_running_build(site, tmp_path: Path) -> None:
    data, warehouse = site
    args = ["build", "--data-dir", str(data), "--warehouse", str(warehouse)]
    first, pause = spawn_paused(
        args, tmp_path, tmp_path / "first.log", "copy", "the first build to take the lock"
    )
    second_log = tmp_path / "second.log"
    second = spawn([*args, "--wait"], tmp_path, second_log)
    try:
        wait_for(
            lambda: "waiting for build" in second_log.read_text(),
            second,
            120,
            "the waiting message",
        )
        pause.unlink()  # let the first build go on: nothing changed, so it is up to date
        assert finish(first) == 0
        assert finish(second) == 0, second_log.read_text()
    finally:
        for proc in (first, second):
            if proc.poll() is None:
                proc.kill()
    assert "up to date" in second_log.read_text()


def test_a_dead_builds_lock_and_working_file_are_taken_over(site, tmp_path: Path) -> None:
    data, warehouse = site
    before = sha256(warehouse)
    args = ["build", "--data-dir", str(data), "--warehouse", str(warehouse)]
    dead, _ = spawn_paused(
        args, tmp_path, tmp_path / "dead.log", "ingest", "the build to reach ingest"
    )
    dead.kill()
    assert finish(dead) == -signal.SIGKILL
    lock = warehouse.with_name(warehouse.name + ".lock")
    assert json.loads(lock.read_text())["pid"] == dead.pid
    assert any(".building-" in p for p in leftovers(warehouse))
    log = tmp_path / "next.log"
    assert finish(spawn(args, tmp_path, log)) == 0, log.read_text()
    text = log.read_text()
    assert "took over the lock of build" in text and f"pid {dead.pid}" in text
    assert "removed what builds and ingests that did not finish left" in text
    assert sha256(warehouse) == before and leftovers(warehouse) == []


# --------------------------------------------------------------------------- item 3: damaged input


def test_truncated_file_is_refused_with_the_flag_that_accepts_it(site) -> None:
    data, warehouse = site
    before = sha256(warehouse)
    dialogues = data / "crsarena-dial/data/crs_arena_dial_open.json"
    raw = dialogues.read_bytes()
    dialogues.write_bytes(raw[: len(raw) // 2])
    with pytest.raises(CsrwhError) as refused:
        build(data, warehouse)
    assert refused.value.exit_code == 3
    assert (
        "rejected record" in refused.value.message
        and "crs_arena_dial_open.json" in refused.value.message
    )
    assert "--allow-rejects" in refused.value.hint and ".failed" in refused.value.hint
    assert sha256(warehouse) == before
    kept = failed_path(warehouse)
    assert count(kept, "select count(*) from raw.rejected_records") >= 1


def test_missing_corpus_folder_is_refused(site) -> None:
    data, warehouse = site
    before = sha256(warehouse)
    (data / "crsarena-dial").rename(data / "crsarena-dial-old")
    with pytest.raises(CsrwhError) as refused:
        build(data, warehouse)
    assert refused.value.exit_code == 3
    assert "corpus crsarena" in refused.value.message and "--drop-corpus" in refused.value.hint
    assert sha256(warehouse) == before


def test_shrunken_table_is_refused_and_recorded(site) -> None:
    data, warehouse = site
    before = sha256(warehouse)
    products = data / "recoreact/news-products.jsonl"
    lines = products.read_text("utf-8").splitlines(True)
    products.write_text("".join(lines[: len(lines) // 3]), "utf-8")
    with pytest.raises(CsrwhError) as refused:
        build(data, warehouse)
    assert refused.value.exit_code == 3
    assert "raw.recoreact__products shrank" in refused.value.message
    assert "--allow-shrink" in refused.value.hint
    assert sha256(warehouse) == before
    assert (
        count(
            failed_path(warehouse),
            "select count(*) from main.dq_results where suite = 'volume' and not success "
            "and table_name = 'raw.recoreact__products'",
        )
        == 1
    )


def test_volume_check_covers_marts_and_ignores_a_dropped_corpus() -> None:
    from csrwh.pipeline import DEFAULT_MAX_SHRINK
    from csrwh.pipeline.state import _State, _volumes

    published = _State(
        counts={
            ("main.turns", "cosrec"): 100,
            ("main.turns", "crsarena"): 100,
            ("main.votes", "crsarena"): 10,
        }
    )
    now = _State(
        counts={
            ("main.turns", "cosrec"): 85,
            ("main.turns", "crsarena"): 100,
            ("main.votes", "crsarena"): 0,
        }
    )
    volumes = {
        v.table: v
        for v in _volumes(published, now, ["main.turns", "main.votes"], set(), DEFAULT_MAX_SHRINK)
    }
    assert not volumes["main.turns"].too_much and volumes["main.votes"].too_much  # 7.5% vs 100%
    dropped = {
        v.table: v
        for v in _volumes(published, now, ["main.turns", "main.votes"], {"crsarena"}, 0.10)
    }
    assert dropped["main.turns"].too_much and not dropped["main.votes"].too_much  # 15% of cosrec


def test_first_build_with_rejects_is_refused(tmp_path: Path) -> None:
    data = tmp_path / "data"
    votes = data / "crsarena-dial" / "data" / "votes_open.csv"
    votes.parent.mkdir(parents=True)
    votes.write_text(
        "session_id,user_id,crs1,crs2,vote,feedback\r\n2024-09-08 23:02:08,u2,kbrd_redial\r\n"
    )
    warehouse = tmp_path / "wh.duckdb"
    with pytest.raises(CsrwhError, match="rejected record") as refused:
        build(data, warehouse)
    assert refused.value.exit_code == 3 and not warehouse.exists()


def test_strict_points_at_the_kept_failed_build(site) -> None:
    data, warehouse = site
    with (data / "recoreact/news-users.jsonl").open("ab") as fh:
        fh.write(b'{"uid": "broken\n')
    with pytest.raises(CsrwhError, match="rejected record") as refused:
        build(data, warehouse, strict=True)
    kept = failed_path(warehouse)
    assert str(kept) in refused.value.hint and "rejected_records" in refused.value.hint
    assert count(kept, "select count(*) from raw.rejected_records") == 1


# --------------------------------------------------------------------------- item 10: .failed


def test_a_kept_failed_build_never_blocks_the_next(site) -> None:
    data, warehouse = site
    before = sha256(warehouse)
    blocker = failed_path(warehouse)
    blocker.mkdir()  # something that cannot be replaced by a file
    (blocker / "notes.txt").write_text("inspecting")
    conversations = data / "cosrec/dataset/crowd/conversations.jsonl"
    with conversations.open("a", encoding="utf-8") as fh:  # a duplicate id fails dbt's tests
        fh.write(conversations.read_text("utf-8").splitlines()[0] + "\n")
    with pytest.raises(CsrwhError, match="left untouched") as failed:
        build(data, warehouse)
    kept = [p for p in warehouse.parent.iterdir() if p.name.startswith(blocker.name + "-")]
    assert len(kept) == 1 and str(kept[0]) in failed.value.hint
    assert sha256(warehouse) == before
    assert not [p for p in leftovers(warehouse) if ".building" in p or p.endswith(".lock")]


def test_only_a_published_build_replaces_the_warehouses_data_docs(site) -> None:
    """A build refused at the gate keeps its Data Docs beside ``<warehouse>.failed``; the
    published warehouse's ``<warehouse>.data_docs/`` changes only when a build publishes."""
    from csrwh.gate.run import gate

    data, warehouse = site
    docs = warehouse.with_name(warehouse.name + ".data_docs")
    docs.mkdir()
    (docs / "index.html").write_text("the published build's Data Docs", encoding="utf-8")

    def refusing_gate(database: Path, build_id: str) -> list[str]:
        return [*gate(database, build_id), "a critical expectation (forced by the test)"]

    with pytest.raises(CsrwhError, match="left untouched"):
        build(data, warehouse, gates=[refusing_gate], full=True)
    assert (docs / "index.html").read_text(encoding="utf-8") == "the published build's Data Docs"
    kept = failed_path(warehouse).with_name(failed_path(warehouse).name + ".data_docs")
    assert (kept / "index.html").is_file()
    assert not [p for p in leftovers(warehouse) if ".building" in p]

    assert build(data, warehouse, gates=[gate], full=True).published
    assert "the published build" not in (docs / "index.html").read_text(encoding="utf-8")
    assert not [p for p in leftovers(warehouse) if ".building" in p or ".replaced" in p]


# --------------------------------------------------------------------------- item 6: signals


@pytest.mark.parametrize(
    "phase, signum",
    [
        ("copy", signal.SIGTERM),
        ("ingest", signal.SIGINT),
        ("dbt", signal.SIGINT),
        ("gate", signal.SIGTERM),
        ("publish", signal.SIGINT),
    ],
)
def test_signal_at_any_phase_stops_cleans_up_and_exits_128_plus_n(
    site, tmp_path: Path, phase: str, signum: int
) -> None:
    data, warehouse = site
    # a changed input, so the build goes all the way to publishing
    drop_last_conversation(data)
    before = sha256(warehouse)
    log = tmp_path / "build.log"
    args = ["build", "--data-dir", str(data), "--warehouse", str(warehouse)]
    if phase in ("dbt", "gate"):  # inside dbt / Great Expectations themselves
        proc = spawn(args, tmp_path, log)
        marker = " START " if phase == "dbt" else f"phase {phase}"
        wait_for(
            lambda: marker in log.read_text("utf-8", "replace"),
            proc,
            what=f"the {phase} progress line",
        )
    else:
        proc, _ = spawn_paused(args, tmp_path, log, phase, f"the build to reach {phase}")
    proc.send_signal(signum)
    assert finish(proc) == 128 + signum, log.read_text()
    text = log.read_text("utf-8", "replace")
    lines = error_lines(log)
    assert (
        len(lines) == 2
        and f"during {phase}" in lines[0]
        and signal.Signals(signum).name in lines[0]
    ), text
    assert "Traceback" not in text and "dbt project files" not in text
    assert sha256(warehouse) == before
    assert leftovers(warehouse) == []


# --------------------------------------------------------------------------- item 7: stale WAL


def test_a_stale_wal_beside_the_published_file_never_breaks_readers(site, tmp_path: Path) -> None:
    data, warehouse = site
    # a writer of the published file that died without checkpointing
    subprocess.run(
        [
            sys.executable,
            "-c",
            (
                "import duckdb, os, sys; c = duckdb.connect(sys.argv[1]); "
                "c.execute('create table main.scribble as select 1 as x'); os._exit(0)"
            ),
            str(warehouse),
        ],
        check=True,
    )
    wal = warehouse.with_name(warehouse.name + ".wal")
    assert wal.exists()
    drop_last_conversation(data)
    result = build(data, warehouse)
    assert result.published
    assert not wal.exists()
    assert count(warehouse, "select count(*) from conversations") > 0  # readers can open it
    assert count(warehouse, "select count(*) from main.scribble") == 1  # the WAL's change was kept


def _die_writing(warehouse: Path, sql: str) -> None:
    """A writer of the published file that died without checkpointing: it leaves a WAL."""
    subprocess.run(
        [
            sys.executable,
            "-c",
            (
                "import duckdb, os, sys; c = duckdb.connect(sys.argv[1]); "
                "c.execute(sys.argv[2]); os._exit(0)"
            ),
            str(warehouse),
            sql,
        ],
        check=True,
    )


def test_a_stale_wal_or_a_written_published_file_is_rebuilt_never_up_to_date(
    site, tmp_path: Path
) -> None:
    """Issue 24.2: with the input unchanged, a stale WAL made `build` (and `build --full`) say
    "Up to date" and leave it, so every reader failed; a published file written since its
    build (no WAL) was "up to date" too. Each is now a full rebuild with every check on, and
    `--full` always rebuilds."""
    data, warehouse = site
    wal = warehouse.with_name(warehouse.name + ".wal")
    votes = count(warehouse, "select count(*) from votes")
    _die_writing(warehouse, "delete from main.votes")
    assert wal.exists()
    result = build(data, warehouse)
    assert result.published and not result.up_to_date
    assert any("full build" in n and ".wal" in n for n in result.notes), result.notes
    assert not wal.exists()
    assert count(warehouse, "select count(*) from votes") == votes  # readers work, mart repaired

    assert build(data, warehouse).up_to_date  # repaired: nothing left to do
    result = build(data, warehouse, full=True)
    assert result.published and not result.up_to_date

    with duckdb.connect(str(warehouse)) as con:  # a writer that closed: no WAL, file changed
        con.execute("delete from main.votes")
    assert not wal.exists()
    result = build(data, warehouse)
    assert result.published and not result.up_to_date
    assert any("full build" in n and "since" in n for n in result.notes), result.notes
    assert count(warehouse, "select count(*) from votes") == votes
    assert build(data, warehouse).up_to_date


def test_a_live_writer_of_the_published_file_refuses_the_build(site, tmp_path: Path) -> None:
    data, warehouse = site
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            (
                "import duckdb, sys, time; c = duckdb.connect(sys.argv[1]); "
                "c.execute('create table main.scribble as select 1 as x'); print('open', flush=True); time.sleep(600)"
            ),
            str(warehouse),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "open"
        with pytest.raises(CsrwhError, match="open for writing by another process"):
            build(data, warehouse)
    finally:
        holder.kill()
        holder.wait()
