"""One ingest run: plan (discover, hash, compare with the manifest), then in ONE transaction
delete what changed or vanished, read every file to load, insert its records and rejects,
and record the run.

Every landed row carries its provenance, unchanged files are skipped, and bad records go to
``raw.rejected_records`` verbatim while the rest of their file lands.
Details: docs/internals.md#ingest-run
"""

from __future__ import annotations

import errno
import hashlib
import logging
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa

from ingest import readers
from ingest.discover import SourceFile, discover, display, file_sha256, hash_files
from ingest.errors import DISK_FULL_LINE, CsrwhError, out_of_memory_line, size_mib
from ingest.limits import record_limits
from ingest.readers import lines as line_reader
from ingest.readers.checks import apply_check, refine_error
from ingest.readers.stage import ReadContext
from ingest.schema import ensure_schema
from ingest.spec import CorpusSpec, FileSpec, Format
from ingest.summary import REJECTS_LISTED, CorpusStats, IngestSummary
from ingest.write import delete_files, insert_rows, insert_stage

#: discovery warnings are logged where discover() logs its own (logger ``ingest.discover``)
_log = logging.getLogger("ingest.discover")


class _Timer:
    def __init__(self, timings: dict[str, float], name: str) -> None:
        self.timings, self.name = timings, name

    def __enter__(self) -> None:
        self.t0 = time.perf_counter()

    def __exit__(self, *exc) -> None:
        self.timings[self.name] = self.timings.get(self.name, 0.0) + time.perf_counter() - self.t0


def new_batch_id(now: datetime) -> str:
    return f"{now:%Y%m%dT%H%M%SZ}-{uuid.uuid4().hex[:8]}"


def _utcnow() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


JSON_FILE_CHUNK_BYTES = 8 * 1024 * 1024  # bounds memory: DuckDB vectors hold 2048 rows


def _disk_full(exc: BaseException | None) -> bool:
    """``exc`` (or an error it was raised from) is a full disk: ENOSPC or DuckDB's text of it."""
    seen = 0
    while exc is not None and seen < 10:
        if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
            return True
        if "no space left on device" in str(exc).lower():
            return True
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return False


class Ingestor:
    """One ingest run over ``present`` corpora (``scope`` = every corpus the run is about).

    Files of in-scope corpora that are no longer on disk (including every file of an
    in-scope corpus whose folder is absent) are removed from the warehouse.
    """

    def __init__(
        self,
        con: duckdb.DuckDBPyConnection,
        data_dir: Path,
        scope: Sequence[CorpusSpec],
        present: Sequence[CorpusSpec],
        all_raw_tables: Sequence[str],
    ) -> None:
        self.con = con
        self.data_dir = data_dir
        self.scope = list(scope)
        self.present = list(present)
        self.all_raw_tables = list(all_raw_tables)
        self.started_at = _utcnow()
        self.batch_id = new_batch_id(self.started_at)
        self.summary = IngestSummary(batch_id=self.batch_id)
        self._current_file: str | None = None  # the file being landed, for error lines
        self.limits = record_limits()  # a bad setting is one line before any work
        #: corpus name -> the CheckContext.state of its checked files in this run
        self._check_states: dict[str, dict] = {}
        for c in self.scope:
            if c in self.present or not c.optional:
                self.summary.per_corpus[c.name] = CorpusStats()
        self.summary.missing_corpora = [
            c.name for c in self.scope if c not in self.present and not c.optional
        ]
        try:
            row = con.execute(
                "SELECT path FROM duckdb_databases() WHERE database_name = current_database()"
            ).fetchone()
            self.db_path: str | None = row[0] if row and row[0] else None
        except duckdb.Error:
            self.db_path = None

    # -- planning ----------------------------------------------------------------------
    def plan(self) -> tuple[list[SourceFile], list[tuple[str, str, str]]]:
        """(files to load, manifest rows (corpus, table, path) whose files are gone)."""
        found: list[SourceFile] = []
        for corpus in self.present:
            files, ignored = discover(
                corpus, self.data_dir / corpus.folder, self.data_dir, self._warn
            )
            found += files
            self.summary.per_corpus[corpus.name].files_ignored = len(ignored)
            self.summary.ignored_files += [f"{corpus.folder}/{p}" for p in ignored]
        names = [c.name for c in self.scope]
        manifest = {
            (c, p): (t, sha, size)
            for c, t, p, sha, size in self.con.execute(
                "SELECT corpus, table_name, source_path, file_sha256, size_bytes "
                "FROM raw.ingest_files WHERE list_contains(?, corpus)",
                [names],
            ).fetchall()
        }
        # only a file whose manifest row matches in table and size can be unchanged: hash
        # those; every other file is loaded and hashed from the bytes it lands (one read)
        hash_files(
            [
                f
                for f in found
                if (m := manifest.get((f.corpus.name, f.rel))) and m[0::2] == (f.spec.table, f.size)
            ]
        )
        changed = [
            manifest.get((f.corpus.name, f.rel)) != (f.spec.table, f.sha256, f.size) for f in found
        ]
        seen = {(f.corpus.name, f.rel) for f in found}
        gone = [(c, t, p) for (c, p), (t, _, _) in manifest.items() if (c, p) not in seen]
        # a record check may relate records across files (CheckContext.state): when one checked
        # file of a corpus changed or vanished, all its checked files are read again, in order
        checked = {(c.name, s.table) for c in self.scope for s in c.files if s.check is not None}
        recheck = {f.corpus.name for f, ch in zip(found, changed) if ch and f.spec.check}
        recheck |= {c for c, t, _ in gone if (c, t) in checked}
        to_load: list[SourceFile] = []
        for f, ch in zip(found, changed):
            if ch or (f.corpus.name in recheck and f.spec.check is not None):
                to_load.append(f)
            else:
                self.summary.per_corpus[f.corpus.name].files_unchanged += 1
        return to_load, gone

    def _warn(self, line: str) -> None:
        self.summary.warnings.append(line)
        _log.warning(line)

    # -- run -------------------------------------------------------------------------
    def run(
        self,
        on_progress: Callable[[int], None] | None = None,
        on_plan: Callable[[int], None] | None = None,
        on_file: Callable[[str], None] | None = None,
    ) -> IngestSummary:
        t0 = time.perf_counter()
        ensure_schema(self.con, self.all_raw_tables)
        status = "failed"
        try:
            with self._t("scan+hash"):
                to_load, gone = self.plan()
            if on_plan:
                on_plan(len(to_load))
            if to_load or gone:
                self.con.execute("BEGIN TRANSACTION")
                try:
                    with self._t("delete"):
                        self._delete(to_load, gone)
                    self._load(to_load, on_progress, on_file)
                    self._record_run("ok")
                    with self._t("commit"):
                        self.con.execute("COMMIT")
                except BaseException:
                    try:
                        self.con.execute("ROLLBACK")
                    except duckdb.Error:  # e.g. the failed write already ended it
                        pass  # never mask the original error
                    raise
            else:
                self._record_run("ok")
            status = "ok"
        except (OSError, duckdb.Error) as exc:
            if isinstance(exc, duckdb.OutOfMemoryException):
                where = (
                    f"file {self._current_file}" if self._current_file else "writing the raw tables"
                )
                limit, n_threads, spill_dir = self._memory_settings()
                raise CsrwhError(
                    out_of_memory_line(
                        "ingest", where, str(exc), size_mib(limit), n_threads, limit, spill_dir
                    )
                    + "; nothing was changed (rolled back)"
                ) from exc
            if _disk_full(exc):
                raise CsrwhError(
                    f"{DISK_FULL_LINE} in the ingest phase, writing the warehouse"
                    f"{' ' + self.db_path if self.db_path else ''}: No space left on device; "
                    "nothing was changed (rolled back)",
                    hint="free disk space on that drive (a run needs room for the new rows and "
                    "DuckDB's write-ahead log), then run again",
                ) from exc
            raise
        finally:
            if status != "ok":
                self._reset_counts()
                try:
                    self._record_run("failed")
                except duckdb.Error:  # never mask the original error
                    pass
        self.summary.rejected_outstanding = self.con.execute(
            "SELECT count(*) FROM raw.rejected_records WHERE list_contains(?, corpus)",
            [[c.name for c in self.scope]],
        ).fetchone()[0]
        self.summary.seconds = time.perf_counter() - t0
        return self.summary

    def _memory_settings(self) -> tuple[str | None, int, str | None]:
        """The ``memory_limit`` (as DuckDB shows it), ``threads`` and ``temp_directory`` this
        ingest's connection runs under, for the out-of-memory line ((None, 0, None) when they
        cannot be read)."""
        try:
            limit, n_threads, spill_dir = self.con.execute(
                "select current_setting('memory_limit'), current_setting('threads'), "
                "current_setting('temp_directory')"
            ).fetchone()
        except duckdb.Error:
            return None, 0, None
        return str(limit), int(n_threads), str(spill_dir) or None

    def _t(self, name: str) -> _Timer:
        return _Timer(self.summary.timings, name)

    def _reset_counts(self) -> None:
        """After a rollback nothing was loaded or removed."""
        s = self.summary
        s.files_loaded = s.files_removed = s.records_loaded = s.records_rejected = 0
        s.rejected_files = {}
        s.rejects = []
        for c in s.per_corpus.values():
            c.files_loaded = c.files_removed = c.records_loaded = c.records_rejected = 0

    def _record_run(self, status: str) -> None:
        s = self.summary
        s.files_unchanged = sum(c.files_unchanged for c in s.per_corpus.values())
        self.con.execute(
            "INSERT INTO raw.ingest_runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                self.batch_id,
                self.started_at,
                _utcnow(),
                display(str(self.data_dir)),
                ",".join(c.name for c in self.scope),
                s.files_loaded,
                s.files_unchanged,
                s.files_removed,
                s.records_loaded,
                s.records_rejected,
                status,
            ],
        )

    def _delete(self, to_load: list[SourceFile], gone: list[tuple[str, str, str]]) -> None:
        old_tables = {
            (c, p): t
            for c, t, p in self.con.execute(
                "SELECT corpus, table_name, source_path FROM raw.ingest_files"
            ).fetchall()
        }
        # A file without a manifest row has no rows anywhere (writes are transactional),
        # so only files known to the manifest need deleting.
        rows: set[tuple[str, str, str]] = set(gone)
        for f in to_load:
            old = old_tables.get((f.corpus.name, f.rel))
            if old is not None:
                rows.update({(f.corpus.name, old, f.rel), (f.corpus.name, f.spec.table, f.rel)})
        for c, _, _ in gone:
            self.summary.per_corpus.setdefault(c, CorpusStats()).files_removed += 1
        self.summary.files_removed = len(gone)
        delete_files(self.con, rows, self.all_raw_tables)

    def _units(self, to_load: list[SourceFile]) -> Iterable[list[SourceFile]]:
        """Load units: one file each, except whole-file JSON which is batched."""
        batch: list[SourceFile] = []
        batch_bytes = 0
        batch_key = None
        for f in to_load:
            if f.spec.format is not Format.JSON_FILE or f.name_error:
                yield [f]
                continue
            key = (f.corpus.name, f.spec)
            if batch and (key != batch_key or batch_bytes + f.size > JSON_FILE_CHUNK_BYTES):
                yield batch
                batch, batch_bytes = [], 0
            batch.append(f)
            batch_key = key
            batch_bytes += f.size
        if batch:
            yield batch

    def _load(self, to_load: list[SourceFile], on_progress, on_file) -> None:
        ctx = ReadContext(self.con)
        try:
            self._load_units(ctx, to_load, on_progress, on_file)
        finally:
            ctx.close()

    def _load_units(
        self,
        ctx: ReadContext,
        to_load: list[SourceFile],
        on_progress,
        on_file,
    ) -> None:
        now = _utcnow()
        manifest_rows: list[dict] = []
        reject_rows: list[dict] = []
        for unit in self._units(to_load):
            first = unit[0]
            corpus, spec = first.corpus, first.spec
            more = f" (+{len(unit) - 1} files)" if len(unit) > 1 else ""
            self._current_file = f"{corpus.folder}/{first.rel}{more}"
            if on_file:
                on_file(self._current_file)
            counts: dict[str, tuple[int, int]] = {}
            rejected: list = []
            for stage in self._stages(ctx, unit):
                with self._t("insert"):
                    stage_counts, stage_rejected = self._insert_stage(stage, corpus, spec, now)
                    del stage
                for rel, (ok, bad) in stage_counts.items():
                    was_ok, was_bad = counts.get(rel, (0, 0))
                    counts[rel] = (was_ok + ok, was_bad + bad)
                rejected.extend(stage_rejected)
            for p, rec_index, line, error, raw, sha, at_eof in rejected:
                raw = bytes(raw) if raw is not None else None
                reason = refine_error(error, raw, bool(at_eof), spec.format)
                if len(self.summary.rejects) < REJECTS_LISTED:
                    self.summary.rejects.append((f"{corpus.folder}/{p}", line, reason))
                reject_rows.append(
                    {
                        "batch_id": self.batch_id,
                        "corpus": corpus.name,
                        "table_name": spec.table,
                        "source_path": p,
                        "record_index": rec_index,
                        "line_number": line,
                        "error": reason,
                        "raw_text": raw.decode("utf-8", "replace") if raw is not None else None,
                        "raw_bytes": raw,
                        "file_sha256": sha,
                        "rejected_at": now,
                    }
                )
            stats = self.summary.per_corpus[corpus.name]
            for f in unit:
                ok, bad = counts.get(f.rel, (0, 0))
                manifest_rows.append(
                    {
                        "corpus": corpus.name,
                        "table_name": spec.table,
                        "source_path": f.rel,
                        "file_sha256": f.sha256,
                        "size_bytes": f.size,
                        "modified_at": f.modified_at,
                        "n_records": ok,
                        "n_rejected": bad,
                        "batch_id": self.batch_id,
                        "ingested_at": now,
                    }
                )
                stats.files_loaded += 1
                stats.records_loaded += ok
                stats.records_rejected += bad
                self.summary.files_loaded += 1
                self.summary.records_loaded += ok
                self.summary.records_rejected += bad
                if bad:
                    self.summary.rejected_files[f"{corpus.folder}/{f.rel}"] = bad
            if on_progress:
                on_progress(len(unit))
        with self._t("bookkeeping"):
            insert_rows(self.con, "rejected_records", reject_rows)
            insert_rows(self.con, "ingest_files", manifest_rows)

    @staticmethod
    def _in_blocks(unit: list[SourceFile]) -> bool:
        """A JSONL, qrels or delimited file larger than a block, or compressed, lands a block of
        lines at a time (a compressed file's size on disk does not bound its content)."""
        (f, *more) = unit
        return (
            not more
            and not f.name_error
            and f.spec.format in (Format.JSONL, Format.QRELS, Format.CSV)
            and (f.size > line_reader.BLOCK_BYTES or f.spec.compression is not None)
        )

    def _stages(self, ctx: ReadContext, unit: list[SourceFile]) -> Iterator[pa.Table]:
        """The unit's records staged and checked, for :meth:`_load_units` to insert: the whole
        unit at once, or a line file larger than a block a block of whole lines at a time
        (memory bounded by the block, not the file) with the same rows, record_index and rejects
        as reading it whole. Each file's sha256 and size are of the bytes landed; a file that
        changed since discovery while it was landed a block at a time is an error (its rows so
        far are rolled back with the rest of the run)."""
        if self._in_blocks(unit):
            yield from self._block_stages(ctx, unit[0])
            return
        datas: list[bytes] = []
        readable: list[SourceFile] = []
        with self._t("read"):
            for f in unit:
                try:
                    data = f.path.read_bytes()
                except OSError as exc:  # e.g. no permission: that file is a reject, not the run
                    yield readers.unreadable_file(f, exc)
                    continue
                f.sha256 = hashlib.sha256(data).hexdigest()  # of the bytes actually landed
                f.size = len(data)
                datas.append(data)
                readable.append(f)
        if not readable:
            return
        with self._t("parse+classify"):
            stage = readers.read_unit(ctx, readable, datas)
            if not readable[0].name_error:
                stage = self._checked(stage, readable[0])
        del datas
        yield stage

    def _block_stages(self, ctx: ReadContext, f: SourceFile) -> Iterator[pa.Table]:
        """:meth:`_stages` of one line file, a block of whole lines at a time."""
        if f.sha256 is None:  # every staged row names the file's sha256: hash it first
            with self._t("read"):
                try:
                    f.sha256 = file_sha256(f.path)
                except OSError as exc:
                    yield readers.unreadable_file(f, exc)
                    return
        digest, size, n_rows = hashlib.sha256(), 0, 0
        reader = readers.BlockReader(ctx, f)
        for block in reader.blocks():
            with self._t("read"):
                on_disk = block.data if block.disk is None else block.disk
                digest.update(on_disk)
                size += len(on_disk)
            with self._t("parse+classify"):
                stage = reader.read(block)
                index = pa.array(np.arange(n_rows, n_rows + stage.num_rows, dtype=np.int64))
                stage = stage.set_column(
                    stage.schema.get_field_index("record_index"), "record_index", index
                )
                n_rows += stage.num_rows
                stage = self._checked(stage, f)
            yield stage
            del stage  # before the next block is read
        if digest.hexdigest() != f.sha256 or size != f.size:
            raise CsrwhError(
                f"{f.corpus.folder}/{f.rel} changed while it was being landed "
                f"({f.size} -> {size} bytes); nothing was changed (rolled back)",
                hint="run the build again once the file is complete",
            )

    def _checked(self, stage: pa.Table, f: SourceFile) -> pa.Table:
        """``stage`` after the record limits, one value per key and the file spec's
        cross-record check, if it has one (:func:`~ingest.readers.checks.apply_check`)."""
        state = self._check_states.setdefault(f.corpus.name, {})
        return apply_check(stage, f.spec.check, state, self.limits)

    def _insert_stage(self, stage, corpus: CorpusSpec, spec: FileSpec, now: datetime):
        """Insert the staged good records; per-file counts and the rejects (see write.py)."""
        return insert_stage(self.con, stage, spec.table, self.batch_id, corpus.name, now)


__all__ = ["CorpusStats", "IngestSummary", "Ingestor"]
