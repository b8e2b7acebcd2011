"""A build removes what killed builds and `csrwh ingest` runs left beside the warehouse -- a
dead build's working file and Data Docs folder, a dead ingest's copy -- and nothing else: not a
running ingest's copy, not another file beside the warehouse, not what a link points to."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from csrwh.pipeline.paths import building_path, remove_leftovers


def _dead_pid() -> int:
    child = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                           capture_output=True, text=True, check=True)  # fmt: skip
    return int(child.stdout)


def test_remove_leftovers_removes_only_what_dead_runs_left(tmp_path: Path) -> None:
    warehouse = tmp_path / "csr.duckdb"
    warehouse.write_bytes(b"published")
    mine = building_path(warehouse, "20260101T000000-mine")
    mine.write_bytes(b"this build's working file")
    dead_build = building_path(warehouse, "20250101T000000-dead")
    dead_build.write_bytes(b"x")
    docs = dead_build.with_name(dead_build.name + ".data_docs")
    (docs / "static").mkdir(parents=True)
    (docs / "index.html").write_text("<html>")
    outside = tmp_path / "precious"
    outside.mkdir()
    (outside / "keep.txt").write_text("keep")
    linked = building_path(warehouse, "20250101T000001-link").with_name(
        building_path(warehouse, "20250101T000001-link").name + ".data_docs"
    )
    linked.symlink_to(outside, target_is_directory=True)
    dead = _dead_pid()
    dead_ingest = tmp_path / f"csr.duckdb.ingesting-{dead}-abc123"
    dead_ingest.write_bytes(b"copy")
    (tmp_path / f"{dead_ingest.name}.wal").write_bytes(b"wal")
    live_ingest = tmp_path / f"csr.duckdb.ingesting-{os.getpid()}-def456"
    live_ingest.write_bytes(b"copy being landed")
    others = [
        tmp_path / "csr.duckdb.wal",
        tmp_path / "csr.duckdb.ingested",
        tmp_path / "csr.evals.duckdb",
    ]
    for other in others:
        other.write_bytes(b"other")

    removed = remove_leftovers(warehouse, mine)

    assert sorted(removed) == sorted([dead_build.name, docs.name, linked.name, dead_ingest.name])
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["csr.duckdb", mine.name, "precious", live_ingest.name, *(p.name for p in others)]
    )
    assert (outside / "keep.txt").read_text() == "keep"  # a link is removed, never followed
