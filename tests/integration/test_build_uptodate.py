"""The no-change check before the copy (csrwh/pipeline/uptodate.py; issue 14: "no-change rebuild
stays under 2 s"): an unchanged build stops before copying the warehouse and without importing
dbt or Great Expectations, and the check still notices every change the build after ingest
would: a same-size edit of an input file, a file gone, a corpus folder gone, a changed model,
raw rows ingested into the published file, outstanding rejects under --strict.

Each test works on a private copy of the session's built sample (``sample_warehouse``).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from csrwh import config
from csrwh.pipeline import build, why_not_up_to_date

PROJECT_FILES = ("dbt_project.yml", "profiles/profiles.yml")
PROJECT_FOLDERS = ("models", "macros", "seeds", "tests/dbt", "expectations")


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture()
def site(sample_warehouse: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """(data folder, published warehouse): private copies of the built sample."""
    monkeypatch.setenv("CSRWH_DBT_TARGET_PATH", str(tmp_path / "target"))
    data = tmp_path / "data"
    shutil.copytree(sample_warehouse.parent.parent / "data", data)
    warehouse = tmp_path / "wh" / "csr.duckdb"
    warehouse.parent.mkdir()
    shutil.copy2(sample_warehouse, warehouse)
    return data, warehouse


def _landed_file(data: Path, warehouse: Path, corpus: str) -> Path:
    """A file of ``corpus`` the published build landed (in ``raw.ingest_files``)."""
    from ingest import registry

    with duckdb.connect(str(warehouse), read_only=True) as con:
        (rel,) = con.execute(
            "select min(source_path) from raw.ingest_files where corpus = ?", [corpus]
        ).fetchone()
    return data / registry.get(corpus).folder / rel


class _WentOn(Exception):
    """Raised instead of ingesting: the build did not stop as up to date."""


def test_no_change_is_up_to_date_before_any_copy(site, monkeypatch: pytest.MonkeyPatch) -> None:
    from csrwh.pipeline import job

    data, warehouse = site
    before = sha256(warehouse)
    assert why_not_up_to_date(data, warehouse) is None

    def no_copy(*args, **kwargs):
        raise AssertionError("an up-to-date build copied a file")

    monkeypatch.setattr(job.shutil, "copy2", no_copy)
    result = build(data, warehouse)
    assert result.up_to_date and not result.published
    assert sha256(warehouse) == before
    assert not [p.name for p in warehouse.parent.iterdir() if ".building" in p.name]


def test_no_change_cli_build_imports_neither_dbt_nor_gx(site, tmp_path: Path) -> None:
    """`csrwh build` as a user runs it; ``-X importtime`` lists every module imported."""
    data, warehouse = site
    env = dict(os.environ, DO_NOT_TRACK="1", COLUMNS="200")
    env.pop("CSRWH_TEST_PAUSE_AT", None)
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "csrwh.cli", "build"]
        + ["--data-dir", str(data), "--warehouse", str(warehouse)],
        check=False,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "is up to date" in proc.stdout + proc.stderr
    imported = {
        line.rsplit("|", 1)[-1].strip()
        for line in proc.stderr.splitlines()
        if line.startswith("import time:")
    }
    assert "duckdb" in imported  # the list is real: the check reads the warehouse
    heavy = sorted(m for m in imported if m.split(".")[0] in ("dbt", "great_expectations"))
    assert heavy == [], heavy[:10]


def test_a_same_size_edit_of_an_input_file_is_noticed(
    site, monkeypatch: pytest.MonkeyPatch
) -> None:
    from csrwh.pipeline import job

    data, warehouse = site
    path = data / "cosrec/dataset/raw/conversations.jsonl"
    raw = bytearray(path.read_bytes())
    stat = path.stat()
    position = raw.index(b'"', raw.index(b":")) + 1  # the first character of a string value
    raw[position] = ord("x") if raw[position] != ord("x") else ord("y")
    path.write_bytes(bytes(raw))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # same size, same mtime
    assert path.stat().st_size == stat.st_size and path.stat().st_mtime_ns == stat.st_mtime_ns

    why = why_not_up_to_date(data, warehouse)
    assert why is not None and "cosrec/dataset/raw/conversations.jsonl" in why and "sha256" in why

    def went_on(self, run_ingest):
        raise _WentOn

    monkeypatch.setattr(job._Build, "_ingest", went_on)
    before = sha256(warehouse)
    with pytest.raises(_WentOn):
        build(data, warehouse)
    assert sha256(warehouse) == before


def test_a_removed_file_and_a_missing_corpus_folder_are_noticed(site) -> None:
    data, warehouse = site
    gone = _landed_file(data, warehouse, "crsarena")
    content = gone.read_bytes()
    gone.unlink()
    why = why_not_up_to_date(data, warehouse)
    assert why is not None and "is gone" in why and "crsarena" in why
    gone.write_bytes(content)
    assert why_not_up_to_date(data, warehouse) is None

    (data / "recoreact").rename(data / "recoreact-elsewhere")
    why = why_not_up_to_date(data, warehouse)
    assert why is not None and "of corpus recoreact is gone" in why
    # asking for the other corpora only: recoreact's landed files are out of scope
    assert why_not_up_to_date(data, warehouse, corpora=["cosrec", "crsarena"]) is None


def test_a_new_input_file_is_noticed(site) -> None:
    from ingest import registry

    data, warehouse = site
    source = data / "cosrec/dataset/raw/conversations.jsonl"
    new = data / "cosrec/dataset/extra/conversations.jsonl"  # a new subset folder
    assert registry.get("cosrec").spec_for("dataset/extra/conversations.jsonl") is not None
    new.parent.mkdir()
    shutil.copy2(source, new)
    why = why_not_up_to_date(data, warehouse)
    assert why is not None and "cosrec/dataset/extra/conversations.jsonl is new" in why


def test_a_changed_model_is_noticed(site, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The fingerprint over a copy of the project files; a model edited in the copy."""
    from csrwh.pipeline import fingerprint

    data, warehouse = site
    project = tmp_path / "project"
    for name in PROJECT_FILES:
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(config.PROJECT_ROOT / name, project / name)
    for folder in PROJECT_FOLDERS:
        shutil.copytree(
            config.PROJECT_ROOT / folder,
            project / folder,
            ignore=shutil.ignore_patterns("__pycache__"),
        )
    monkeypatch.setattr(fingerprint, "PROJECT_ROOT", project)
    assert why_not_up_to_date(data, warehouse) is None  # the same files: the same fingerprint

    model = next(iter(sorted((project / "models" / "marts").rglob("*.sql"))))
    model.write_text(model.read_text("utf-8") + "\n-- changed\n", "utf-8")
    why = why_not_up_to_date(data, warehouse)
    assert why is not None and "project" in why


def test_rows_ingested_into_the_published_file_are_noticed(site) -> None:
    """The published raw files must be those its marts were built from (build_info's digest)."""
    data, warehouse = site
    with duckdb.connect(str(warehouse)) as con:
        con.execute(
            "update raw.ingest_files set file_sha256 = 'x' || file_sha256 "
            "where source_path = (select min(source_path) from raw.ingest_files)"
        )
    why = why_not_up_to_date(data, warehouse)
    assert why is not None and "not those its marts were built from" in why


def test_strict_with_outstanding_rejects_is_not_up_to_date(site) -> None:
    data, warehouse = site
    with duckdb.connect(str(warehouse)) as con:
        con.execute(
            "insert into raw.rejected_records by name "
            "select 'cosrec' as corpus, 'dataset/raw/x.jsonl' as source_path, 'bad' as error"
        )
    assert why_not_up_to_date(data, warehouse) is None
    why = why_not_up_to_date(data, warehouse, strict=True)
    assert why is not None and "--strict and 1 rejected record(s)" in why


def test_a_stale_wal_or_no_published_file_leaves_it_to_ingest(site) -> None:
    data, warehouse = site
    wal = warehouse.with_name(warehouse.name + ".wal")
    wal.write_bytes(b"not a wal")
    why = why_not_up_to_date(data, warehouse)
    assert why is not None and ".wal" in why
    wal.unlink()
    assert why_not_up_to_date(data, warehouse.with_name("other.duckdb")) is not None
