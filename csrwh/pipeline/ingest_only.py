"""`csrwh ingest`: land into a scratch copy of the published warehouse, never publish."""

from __future__ import annotations

import os
import shutil
import signal
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from csrwh.errors import CsrwhError
from csrwh.pipeline.paths import _ensure_folder, _remove_db, ingested_path, refuse_links
from csrwh.pipeline.signals import _disk_full, _SignalGuard


@dataclass
class IngestResult:
    summary: object
    landed: Path


def ingest_only(data_dir: Path, warehouse: Path, corpora: list[str] | None = None) -> IngestResult:
    """`csrwh ingest`: land the data folder into ``<warehouse>.ingested``, a scratch copy of the
    published warehouse, to see what a build would land and reject. The published file is never
    written; only `csrwh build` publishes, through its gate."""
    from ingest import run_ingest

    warehouse = Path(warehouse)
    _ensure_folder(warehouse.parent)
    refuse_links(warehouse)
    out = ingested_path(warehouse)
    scratch = warehouse.with_name(
        f"{warehouse.name}.ingesting-{os.getpid()}-{uuid.uuid4().hex[:6]}"
    )
    with _SignalGuard() as guard:
        try:
            if warehouse.exists():
                shutil.copy2(warehouse, scratch)
            spill = scratch.with_name(f"{scratch.name}.tmp")
            try:
                with landing_connection(scratch, spill) as con:
                    summary = run_ingest(data_dir, con, corpora=corpora)
            finally:
                shutil.rmtree(spill, ignore_errors=True)
            guard.check()
            with guard.deferred():
                _remove_db(out)
                os.replace(scratch, out)
        except BaseException as exc:
            _remove_db(scratch)
            if guard.interrupted(exc):
                signum = guard.signum or signal.SIGINT
                raise CsrwhError(
                    f"ingest interrupted by {signal.Signals(signum).name}; {warehouse} was not "
                    "touched",
                    hint="run it again when ready",
                    exit_code=128 + signum,
                ) from None
            if _disk_full(exc):
                raise CsrwhError(
                    f"ran out of disk space writing {scratch}",
                    hint="free space there or use another --warehouse",
                ) from exc
            raise
    return IngestResult(summary=summary, landed=out)


@contextmanager
def landing_connection(database: Path, spill: Path) -> Iterator[Any]:
    """A connection to ``database`` with a build's DuckDB settings (``memory_limit``,
    ``threads``, spilling into ``spill``): without them DuckDB may take most of the machine's
    memory while a large corpus lands. Closed (checkpointed) on leaving; an error in closing
    is raised only when the body succeeded, never masking the error that ended it."""
    import duckdb

    from csrwh.config import duckdb_settings

    con = duckdb.connect(str(database), config=duckdb_settings(spill))
    failed = True
    try:
        yield con
        failed = False
    finally:
        try:
            con.close()  # checkpoints: can itself hit a full disk
        except duckdb.Error:
            if not failed:
                raise
