"""Ingest holds one load unit's Arrow data at a time, not the whole run's.

The run writes every file in one transaction. An Arrow table registered on that connection
(``con.register``) stays referenced by its dropped view until the commit, so each file's
buffers used to pile up to the end of the run (sample x300: 2.2 GB of RSS). Readers now run
on a cursor outside the transaction and the insert reads the stage by name; this test
looks at Arrow's live bytes when the last file has landed, just before the commit."""

from __future__ import annotations

import pyarrow as pa

from csrwh.sample import generate
from ingest import run as ingest_run
from ingest import run_ingest


def test_no_file_s_arrow_data_is_alive_when_the_run_commits(tmp_path, monkeypatch):
    data = tmp_path / "data"
    generate(data, scale=2, seed=0, corpora=["cosrec", "convsearch", "crsarena-dial"])
    landed = sum(f.stat().st_size for f in data.rglob("*") if f.is_file())
    live: list[int] = []
    record_run = ingest_run.Ingestor._record_run

    def watched(self, *args, **kwargs):  # called once every file is in, before COMMIT
        live.append(pa.total_allocated_bytes())
        return record_run(self, *args, **kwargs)

    monkeypatch.setattr(ingest_run.Ingestor, "_record_run", watched)
    summary = run_ingest(data, tmp_path / "wh.duckdb", progress=False)
    assert summary.records_loaded > 3_000 and summary.files_loaded > 10
    assert len(live) == 1
    # the old code still held every reader's and insert's tables here: about the files' size
    assert live[0] < landed / 20, (live[0], landed)
