"""The one shared loader: lands corpus files losslessly in the warehouse's ``raw`` schema.

Corpus modules (``ingest/cosrec.py`` ...) only *declare* their files as :class:`FileSpec`
rows (glob pattern -> raw table, record format, record key). Everything else lives here:

* **schema** -- the ``raw.<corpus>__<entity>`` tables (one per file spec of every corpus) and the three bookkeeping
  tables (``rejected_records``, ``ingest_files``, ``ingest_runs``) are always created, with
  exactly the columns of docs/ARCHITECTURE.md;
* **discovery** -- files under each corpus folder are matched against the declared patterns
  (any path component starting with "." is ignored) and hashed (sha256, in threads);
  symlinks are followed only when their target lies inside the data folder (others, dangling
  links and loops are reported as warnings), FIFOs / sockets / devices are never opened;
* **idempotence** -- a file whose sha256, size and target table equal its ``raw.ingest_files``
  row is skipped; a changed file has its rows (raw table, rejects, manifest) deleted and
  re-inserted; a file that disappeared has its rows deleted. All writes of one run happen
  in ONE transaction, so a run lands completely or not at all (a failed run is recorded in
  ``raw.ingest_runs`` with status ``failed``);
* **readers** -- one per record format. The heavy lifting is vectorised:

  - ``jsonl`` / ``qrels``: the bytes are read once, split into lines by Arrow
    (``split_pattern``) and classified in ONE DuckDB SQL pass (``try(decode())`` for UTF-8,
    ``json_valid`` / ``json_type`` / ``json_keys`` for shape, ``regexp_extract_all`` for qrels
    fields);
  - ``json_array``: DuckDB ``read_json_objects(format='array')`` returns every element's
    verbatim text; if DuckDB refuses the file (truncated, broken, invalid UTF-8) a salvage
    parser (``json.JSONDecoder.raw_decode`` element by element) lands the good elements,
    rejects each bad one verbatim at its position and resynchronises at the next element
    boundary (see :func:`_salvage_array`); input nested too deeply for Python's parser is a
    reject, never a RecursionError;
  - ``json_file``: many whole-file JSON documents are classified in one DuckDB query over an
    Arrow batch of their bytes (chunks of ~8 MB);
  - ``csv``: RFC-4180 records (quoted fields may span lines) are delimited by Python's C
    ``csv`` parser, which also gives the verbatim record text; this is the one per-record
    loop, kept because no vectorised CSV reader exposes record boundaries and text. A stray
    quote that would swallow the following records rejects its own line only.

* **rejects** -- every bad record goes to ``raw.rejected_records`` verbatim (``raw_bytes``)
  with a lossy UTF-8 ``raw_text`` and an error text; the rest of its file still lands. A
  :class:`FileSpec` may add a record ``check`` (see :class:`CheckContext`): a parsed record
  for which it returns a reason is rejected the same way, with that reason as its error. A file
  whose name is not valid UTF-8 is one reject (``source_path`` shows the bad bytes as
  ``\\xNN``). A full disk is a CsrwhError saying "No space left on device" (a failing
  ROLLBACK never hides the original error).

Normalisation is deliberately minimal: a leading UTF-8 BOM is dropped, a line's trailing
``\\r`` (CRLF line ends) is dropped, and in multi-line JSON records ``\\r\\n`` becomes ``\\n``
(a raw CR can only be insignificant whitespace in JSON). Blank lines are not records.
"""

from __future__ import annotations

import concurrent.futures as cf
import csv
import errno
import hashlib
import io
import json
import logging
import os
import re
import stat
import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import Enum
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from csrwh.errors import CsrwhError

BOM = b"\xef\xbb\xbf"
RAW_SCHEMA = "raw"

_log = logging.getLogger(__name__)

# --------------------------------------------------------------------------------------
# Declarations used by the corpus modules
# --------------------------------------------------------------------------------------


class Format(str, Enum):
    """How a file is cut into records."""

    JSONL = "jsonl"  #: one JSON object per line
    JSON_ARRAY = "json_array"  #: one top-level JSON array, one record per element
    JSON_FILE = "json_file"  #: the whole file is one JSON object
    CSV = "csv"  #: RFC-4180 CSV with a header row
    QRELS = "qrels"  #: TREC qrels: ``topic iteration doc_id grade`` per line


@dataclass(frozen=True)
class RecordKey:
    """How to get a record's own id (``record_key``).

    * ``single_key``: the only key of a one-key object ``{"<id>": value}`` (CoSRec); a record
      that is not a one-key object is rejected ("wrong top-level shape");
    * ``field``: the value of a field (JSON key, CSV column or qrels field) as a string;
      NULL when the record lacks it (the record still lands);
    * ``relative_path``: the file's path relative to the corpus folder without ``.json``.
    """

    kind: str
    name: str | None = None

    @classmethod
    def single_key(cls) -> RecordKey:
        return cls("single_key")

    @classmethod
    def field(cls, name: str) -> RecordKey:
        return cls("field", name)

    @classmethod
    def relative_path(cls) -> RecordKey:
        return cls("relative_path")

    def describe(self) -> str:
        if self.kind == "field":
            return f"field {self.name!r}"
        return {"single_key": "the single key", "relative_path": "path without .json"}[self.kind]


@dataclass
class CheckContext:
    """What a :attr:`FileSpec.check` sees besides the record: where it is, and ``state``, one
    dict per corpus and run shared by every checked file of the corpus. Checked files are read
    in file order (discovery order), so e.g. the first occurrence of an id can win."""

    source_path: str  #: relative to the corpus folder
    line_number: int | None  #: 1-based (JSONL, CSV, qrels); None for JSON arrays and files
    record_index: int | None  #: 0-based position in the file
    state: dict


#: ``check(record, context) -> reason | None``: ``record`` is the parsed payload of a record
#: that passed the reader (for JSON formats an object); a reason (one line) rejects it
RecordCheck = Callable[[object, CheckContext], "str | None"]


@dataclass(frozen=True)
class FileSpec:
    """One declared family of files: glob ``pattern`` (relative to the corpus folder,
    ``*`` within a path segment, ``**`` any number of segments) -> ``table`` in ``raw``.

    ``check`` (optional) judges each well-formed record (see :data:`RecordCheck`); a record it
    gives a reason for goes to ``raw.rejected_records`` verbatim with that reason. Because a
    check may relate records across files (``CheckContext.state``), a change to one checked
    file of a corpus re-reads all of them."""

    pattern: str
    table: str
    format: Format
    key: RecordKey
    check: RecordCheck | None = None

    def matches(self, rel_path: str) -> bool:
        return _glob_regex(self.pattern).match(rel_path) is not None


@dataclass(frozen=True)
class CorpusSpec:
    """A corpus: its name (the ``corpus`` column), folder under the data dir, files, hint."""

    name: str
    folder: str
    files: tuple[FileSpec, ...]
    absent_hint: str
    description: str = ""
    #: an optional corpus (``custom``): its absence is normal, neither missing nor reported
    optional: bool = False

    @classmethod
    def from_module(cls, module) -> CorpusSpec:
        doc = (module.__doc__ or "").strip().splitlines()
        return cls(
            name=module.CORPUS,
            folder=module.FOLDER,
            files=tuple(module.FILES),
            absent_hint=module.ABSENT_HINT,
            description=doc[0] if doc else "",
            optional=getattr(module, "OPTIONAL", False),
        )

    @property
    def tables(self) -> list[str]:
        return list(dict.fromkeys(f.table for f in self.files))

    def spec_for(self, rel_path: str) -> FileSpec | None:
        for spec in self.files:
            if spec.matches(rel_path):
                return spec
        return None


_GLOB_CACHE: dict[str, re.Pattern[str]] = {}


def _glob_regex(pattern: str) -> re.Pattern[str]:
    """Compile a path glob: ``**`` spans segments, ``*``/``?`` stay within one segment."""
    rx = _GLOB_CACHE.get(pattern)
    if rx is not None:
        return rx
    out: list[str] = []
    parts = pattern.split("/")
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        if part == "**":
            out.append(".*" if last else "(?:[^/]+/)*")
            continue
        for ch in part:
            out.append("[^/]*" if ch == "*" else "[^/]" if ch == "?" else re.escape(ch))
        if not last:
            out.append("/")
    rx = _GLOB_CACHE[pattern] = re.compile("".join(out) + r"\Z")
    return rx


# --------------------------------------------------------------------------------------
# Schema
# --------------------------------------------------------------------------------------

RAW_COLUMNS: tuple[tuple[str, str], ...] = (
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
)

BOOKKEEPING: dict[str, tuple[tuple[str, str], ...]] = {
    "rejected_records": (
        ("batch_id", "VARCHAR"),
        ("corpus", "VARCHAR"),
        ("table_name", "VARCHAR"),
        ("source_path", "VARCHAR"),
        ("record_index", "BIGINT"),
        ("line_number", "BIGINT"),
        ("error", "VARCHAR"),
        ("raw_text", "VARCHAR"),
        ("raw_bytes", "BLOB"),
        ("file_sha256", "VARCHAR"),
        ("rejected_at", "TIMESTAMP"),
    ),
    "ingest_files": (
        ("corpus", "VARCHAR"),
        ("table_name", "VARCHAR"),
        ("source_path", "VARCHAR"),
        ("file_sha256", "VARCHAR"),
        ("size_bytes", "BIGINT"),
        ("modified_at", "TIMESTAMP"),
        ("n_records", "BIGINT"),
        ("n_rejected", "BIGINT"),
        ("batch_id", "VARCHAR"),
        ("ingested_at", "TIMESTAMP"),
    ),
    "ingest_runs": (
        ("batch_id", "VARCHAR"),
        ("started_at", "TIMESTAMP"),
        ("finished_at", "TIMESTAMP"),
        ("data_dir", "VARCHAR"),
        ("corpora", "VARCHAR"),
        ("files_loaded", "BIGINT"),
        ("files_unchanged", "BIGINT"),
        ("files_removed", "BIGINT"),
        ("records_loaded", "BIGINT"),
        ("records_rejected", "BIGINT"),
        ("status", "VARCHAR"),
    ),
}


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _lit(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def ensure_schema(con: duckdb.DuckDBPyConnection, raw_tables: Iterable[str]) -> None:
    """Create schema ``raw``, every raw table and the bookkeeping tables (if missing)."""
    con.execute(f"CREATE SCHEMA IF NOT EXISTS {RAW_SCHEMA}")
    tables = {t: RAW_COLUMNS for t in raw_tables} | BOOKKEEPING
    for table, cols in tables.items():
        body = ", ".join(f"{_q(c)} {t}" for c, t in cols)
        con.execute(f"CREATE TABLE IF NOT EXISTS {RAW_SCHEMA}.{_q(table)} ({body})")


# --------------------------------------------------------------------------------------
# Discovery and hashing
# --------------------------------------------------------------------------------------


@dataclass
class SourceFile:
    corpus: CorpusSpec
    spec: FileSpec
    path: Path
    rel: str  # POSIX path relative to the corpus folder
    size: int
    modified_at: datetime
    sha256: str | None = None
    #: set when the file cannot land as records (a name that is not valid UTF-8): the
    #: file is one reject with this error; ``rel`` then shows the bad bytes as \\xNN
    name_error: str | None = None


_SPECIAL_KINDS: tuple[tuple[Callable[[int], bool], str], ...] = (
    (stat.S_ISFIFO, "named pipe (FIFO)"),
    (stat.S_ISSOCK, "socket"),
    (stat.S_ISCHR, "character device"),
    (stat.S_ISBLK, "block device"),
)


def _display(name: str) -> str:
    """A path as valid UTF-8 text: bytes that are not UTF-8 (``surrogateescape`` in ``name``)
    become ``\\xNN`` escapes, e.g. ``caf\\xe9.json``."""
    if not _SURROGATE.search(name):
        return name
    return os.fsencode(name).decode("utf-8", "backslashreplace")


NAME_NOT_UTF8 = (
    "file name is not valid UTF-8 (source_path shows the bad bytes as \\xNN escapes): "
    "the file is kept here verbatim; rename it to UTF-8 to land its records"
)


def _within(path: str, folder: str) -> bool:
    """``path`` is ``folder`` or below it (both real, absolute paths)."""
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _link_problem(
    link: str, st: os.stat_result | OSError, bounds: Sequence[str], open_dirs: Sequence[str]
) -> str | None:
    """Why the symlink ``link`` must not be followed (``st``: its target's stat or error)."""
    if isinstance(st, FileNotFoundError):
        return "dangling symlink (target does not exist)"
    if isinstance(st, OSError):
        return "symlink loop" if st.errno == errno.ELOOP else f"unreadable symlink ({st.strerror})"
    target = os.path.realpath(link)
    if not any(_within(target, b) for b in bounds):
        return "symlink points outside the data folder"
    if stat.S_ISDIR(st.st_mode) and any(_within(d, target) for d in open_dirs):
        return "symlink to an ancestor folder (loop)"
    return None


def discover(
    corpus: CorpusSpec,
    root: Path,
    data_dir: Path | None = None,
    warn: Callable[[str], None] | None = None,
) -> tuple[list[SourceFile], list[str]]:
    """Files under ``root`` matching the corpus' declared patterns, and the unmatched ones.

    Any path component starting with "." (``.csrwh-manifest.json``, ``.git/``) is ignored.
    A symlink (file or folder) is followed when its target lies inside ``data_dir`` (default:
    ``root``'s parent, the folder holding every corpus folder) or inside ``root``'s own real
    folder; its files get the path seen through the link. Links pointing elsewhere, dangling
    links, link loops and links to an ancestor folder are not followed; FIFOs, sockets and
    devices are never opened. Each of those is reported as ONE line to ``warn`` (default:
    this module's logger at WARNING level), e.g. ``recllmsim/extra -> /etc: symlink points
    outside the data folder, not followed``. Files are listed in sorted order (a folder's
    files before its sub-folders).
    """
    warn = warn or _log.warning
    bounds = (os.path.realpath(data_dir or root.parent), os.path.realpath(root))
    found: list[SourceFile] = []
    ignored: list[str] = []

    def walk(folder: str, rel_dir: str, open_dirs: tuple[str, ...]) -> None:
        try:
            with os.scandir(folder) as it:
                entries = sorted(
                    (e for e in it if not e.name.startswith(".")), key=lambda e: e.name
                )
        except OSError as exc:
            warn(
                f"{corpus.folder}/{_display(rel_dir) or '.'}: cannot list folder ({exc.strerror}), skipped"
            )
            return
        subdirs: list[tuple[str, str]] = []
        for entry in entries:
            rel = f"{rel_dir}{entry.name}"
            shown = f"{corpus.folder}/{_display(rel)}"
            try:
                st: os.stat_result | OSError = os.stat(entry.path)  # follows symlinks
            except OSError as exc:
                st = exc
            if entry.is_symlink():
                why = _link_problem(entry.path, st, bounds, open_dirs)
                if why is not None:
                    warn(f"{shown} -> {_display(os.readlink(entry.path))}: {why}, not followed")
                    continue
            if isinstance(st, OSError):
                warn(f"{shown}: cannot stat ({st.strerror}), skipped")
            elif stat.S_ISDIR(st.st_mode):
                subdirs.append((entry.path, rel))
            elif stat.S_ISREG(st.st_mode):
                shown_rel = _display(rel)
                spec = corpus.spec_for(shown_rel)
                if spec is None:
                    ignored.append(shown_rel)
                    continue
                mtime = datetime.fromtimestamp(st.st_mtime, UTC).replace(tzinfo=None)
                found.append(
                    SourceFile(
                        corpus,
                        spec,
                        Path(entry.path),
                        shown_rel,
                        st.st_size,
                        mtime,
                        name_error=NAME_NOT_UTF8 if shown_rel != rel else None,
                    )
                )
            else:
                kind = next((k for test, k in _SPECIAL_KINDS if test(st.st_mode)), "special file")
                warn(f"{shown}: {kind}, not a regular file, skipped")
        for path, rel in subdirs:
            walk(path, f"{rel}/", (*open_dirs, os.path.realpath(path)))

    walk(str(root), "", (os.path.realpath(root),))
    return found, ignored


def _sha256_path(path: Path) -> str:
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def hash_files(files: Sequence[SourceFile], workers: int | None = None) -> None:
    """Fill ``sha256`` of every file (hashlib releases the GIL: threads scale)."""
    workers = workers or min(16, (os.cpu_count() or 2) * 2)
    with cf.ThreadPoolExecutor(max_workers=workers) as pool:
        for f, digest in zip(files, pool.map(lambda f: _sha256_path(f.path), files)):
            f.sha256 = digest


# --------------------------------------------------------------------------------------
# Readers: every reader leaves its records in ctx.stage (an Arrow table, STAGE_SCHEMA)
# --------------------------------------------------------------------------------------

STAGE = "_csrwh_stage"
STAGE_SCHEMA = pa.schema(
    [
        ("source_path", pa.string()),
        ("file_sha256", pa.string()),
        ("record_index", pa.int64()),
        ("line_number", pa.int64()),
        ("record_key", pa.string()),
        ("payload", pa.large_string()),
        ("source_text", pa.large_string()),
        ("error", pa.string()),
        ("raw_bytes", pa.large_binary()),
        ("at_eof", pa.bool_()),  # last line of a file without a final newline
    ]
)
_STAGE_COLS = ", ".join(STAGE_SCHEMA.names)

_WS = "chr(32) || chr(9) || chr(10) || chr(13)"
_CRLF = "chr(13) || chr(10)"


def _json_kind(expr: str) -> str:
    """SQL: a human name of the JSON type of ``expr`` ('an array', 'a string', ...)."""
    return (
        f"CASE json_type({expr}) WHEN 'OBJECT' THEN 'an object' WHEN 'ARRAY' THEN 'an array' "
        "WHEN 'VARCHAR' THEN 'a string' WHEN 'BOOLEAN' THEN 'a boolean' WHEN 'NULL' THEN 'null' "
        "ELSE 'a number' END"
    )


def _field_path(name: str) -> str:
    return _lit("$." + json.dumps(name))


@dataclass
class _Ctx:
    con: duckdb.DuckDBPyConnection
    _reader: duckdb.DuckDBPyConnection | None = None
    #: the staged records of the current load unit (STAGE_SCHEMA). Kept in Arrow rather
    #: than a temp table: temp-table versions would pile up until the run's commit.
    stage: pa.Table | None = None

    @property
    def reader(self) -> duckdb.DuckDBPyConnection:
        """A cursor with its own transaction, for reads that may fail (a failed statement
        would abort the run's write transaction)."""
        if self._reader is None:
            self._reader = self.con.cursor()
        return self._reader

    def close(self) -> None:
        if self._reader is not None:
            self._reader.close()
            self._reader = None

    def stage_sql(self, sql: str, params: list | None = None) -> None:
        self.stage = self.con.sql(sql, params=params or None).to_arrow_table().cast(STAGE_SCHEMA)

    def stage_arrow(self, table: pa.Table) -> None:
        self.stage = table.cast(STAGE_SCHEMA)


def _file_reject(rel: str, sha: str, error: str, raw: bytes | None) -> dict:
    return {
        "source_path": rel,
        "file_sha256": sha,
        "record_index": None,
        "line_number": None,
        "record_key": None,
        "payload": None,
        "source_text": None,
        "error": error,
        "raw_bytes": raw,
        "at_eof": True,
    }


def _rows_to_stage(ctx: _Ctx, rows: list[dict]) -> None:
    ctx.stage_arrow(pa.Table.from_pylist(rows, schema=STAGE_SCHEMA))


def _strip_bom(data: bytes) -> bytes:
    return data[3:] if data.startswith(BOM) else data


def read_lines(ctx: _Ctx, f: SourceFile, data: bytes) -> None:
    """JSONL and qrels: Arrow splits the lines, one DuckDB SQL pass classifies them."""
    body = _strip_bom(data)
    if not body.strip():
        return _rows_to_stage(ctx, [_file_reject(f.rel, f.sha256, "empty file", data)])
    lines = pc.split_pattern(pa.array([body], pa.large_binary()), pattern=b"\n").flatten()
    n_lines = len(lines)
    tbl = pa.table({"ln": pa.array(np.arange(1, n_lines + 1, dtype=np.int64)), "b": lines})
    spec = f.spec
    if spec.format is Format.QRELS:
        extra = ", regexp_extract_all(t, '\\S+') AS f"
        error = (
            "CASE WHEN t IS NULL THEN 'invalid UTF-8' WHEN len(f) <> 4 THEN 'wrong field count: "
            "qrels line has ' || len(f) || ' fields, expected 4 (topic_id iteration doc_id grade)' END"
        )
        payload = "json_object('topic_id', f[1], 'iteration', f[2], 'doc_id', f[3], 'grade', f[4])::VARCHAR"
        source_text = "t"
        key = _key_expr_fields(
            spec.key, {"topic_id": "f[1]", "iteration": "f[2]", "doc_id": "f[3]", "grade": "f[4]"}
        )
    else:
        extra = ""
        error = _json_error_expr("t", spec.key)
        payload = "t"
        source_text = "NULL"
        key = _key_expr_json("t", spec.key, f.rel)
    keep_raw = " OR true" if spec.check is not None else ""  # a checked record may be rejected
    sql = f"""
        WITH d AS (SELECT ln, b, try(decode(b)) AS t0 FROM _csrwh_lines),
        s AS (SELECT ln, b, CASE WHEN ends_with(t0, chr(13)) THEN left(t0, -1) ELSE t0 END AS t FROM d),
        r AS (
            SELECT ln, b, t, row_number() OVER (ORDER BY ln) - 1 AS record_index {extra}
            FROM s WHERE t IS NULL OR ltrim(t, {_WS}) <> ''
        ),
        c AS (SELECT *, {error} AS error FROM r)
        SELECT ?::VARCHAR AS source_path, ?::VARCHAR AS file_sha256, record_index,
               ln AS line_number,
               CASE WHEN error IS NULL THEN {key} END AS record_key,
               CASE WHEN error IS NULL THEN {payload} END AS payload,
               CASE WHEN error IS NULL THEN {source_text} END AS source_text,
               error,
               CASE WHEN error IS NOT NULL{keep_raw} THEN b END AS raw_bytes,
               ln = {n_lines} AS at_eof
        FROM c ORDER BY record_index
    """
    ctx.con.register("_csrwh_lines", tbl)
    try:
        ctx.stage_sql(sql, [f.rel, f.sha256])
    finally:
        ctx.con.unregister("_csrwh_lines")


def _json_error_expr(t: str, key: RecordKey) -> str:
    if key.kind == "single_key":
        shape = (
            f"WHEN json_type({t}) <> 'OBJECT' THEN 'wrong top-level shape: expected a one-key object "
            f'{{"<id>": value}}, found \' || {_json_kind(t)} '
            f"WHEN len(json_keys({t})) <> 1 THEN 'wrong top-level shape: expected a one-key object "
            f"{{\"<id>\": value}}, found an object with ' || len(json_keys({t})) || ' keys' "
        )
    else:
        shape = (
            f"WHEN json_type({t}) <> 'OBJECT' THEN 'wrong top-level shape: expected an object, "
            f"found ' || {_json_kind(t)} "
        )
    return (
        f"CASE WHEN {t} IS NULL THEN 'invalid UTF-8' "
        f"WHEN NOT json_valid({t}) THEN 'broken JSON' {shape}END"
    )


def _key_expr_json(t: str, key: RecordKey, rel: str) -> str:
    if key.kind == "single_key":
        return f"json_keys({t})[1]"
    if key.kind == "field":
        return f"json_extract_string({t}, {_field_path(key.name)})"
    if key.kind == "relative_path":
        return _lit(re.sub(r"\.json$", "", rel))
    raise ValueError(f"unknown record key kind {key.kind!r}")


def _key_expr_fields(key: RecordKey, fields: dict[str, str]) -> str:
    if key.kind != "field" or key.name not in fields:
        raise ValueError(f"qrels records are keyed by one of {sorted(fields)}, not {key}")
    return fields[key.name]


def read_json_array(ctx: _Ctx, f: SourceFile, data: bytes) -> None:
    """A top-level JSON array: DuckDB read_json_objects, salvage parser when it refuses."""
    body = _strip_bom(data)
    if not body.strip():
        return _rows_to_stage(ctx, [_file_reject(f.rel, f.sha256, "empty file", data)])
    elems: pa.Table | None = None
    # DuckDB accepts an unclosed array ending in "," silently: such files take the salvage
    # path, which reports them. Paths with glob characters would be expanded by DuckDB.
    closed = body.rstrip(b" \t\r\n").endswith(b"]")
    if (
        closed
        and not any(ch in str(f.path) for ch in "*?[{")
        and not _SURROGATE.search(str(f.path))
    ):
        try:
            elems = ctx.reader.sql(
                "SELECT json AS t FROM read_json_objects($path, format='array', "
                "maximum_object_size=1073741824)",
                params={"path": str(f.path)},
            ).to_arrow_table()
        except duckdb.Error:
            elems = None
    if elems is not None:
        n = elems.num_rows
        elems = pa.table(
            {
                "record_index": pa.array(np.arange(n, dtype=np.int64)),
                "t": elems.column("t").cast(pa.large_string()),
                "pre_error": pa.nulls(n, pa.string()),
                "raw": pa.nulls(n, pa.large_binary()),
            }
        )
        file_rejects: list[dict] = []
    else:
        elems, file_rejects = _salvage_array(f, body)
    error = _json_error_expr("t", f.spec.key)
    key = _key_expr_json("t", f.spec.key, f.rel)
    sql = f"""
        WITH c AS (SELECT *, coalesce(pre_error, {error}) AS error FROM _csrwh_elems)
        SELECT ?::VARCHAR AS source_path, ?::VARCHAR AS file_sha256, record_index,
               NULL::BIGINT AS line_number,
               CASE WHEN error IS NULL THEN {key} END AS record_key,
               CASE WHEN error IS NULL THEN replace(t, {_CRLF}, chr(10)) END AS payload,
               NULL::VARCHAR AS source_text, error,
               CASE WHEN error IS NOT NULL THEN coalesce(raw, encode(t)) END AS raw_bytes,
               false AS at_eof
        FROM c
    """
    if file_rejects:
        frs = pa.Table.from_pylist(file_rejects, schema=STAGE_SCHEMA)
        ctx.con.register("_csrwh_file_rejects", frs)
        sql = f"({sql}) UNION ALL (SELECT {_STAGE_COLS} FROM _csrwh_file_rejects)"
    ctx.con.register("_csrwh_elems", elems)
    try:
        ctx.stage_sql(f"SELECT * FROM ({sql}) ORDER BY record_index NULLS LAST", [f.rel, f.sha256])
    finally:
        ctx.con.unregister("_csrwh_elems")
        if file_rejects:
            ctx.con.unregister("_csrwh_file_rejects")


_PY_KIND = {
    dict: "an object",
    list: "an array",
    str: "a string",
    type(None): "null",
    bool: "a boolean",
}
_SURROGATE = re.compile("[\udc80-\udcff]")
_NOT_WS = re.compile(r"[^ \t\n\r]")


_WS_CHARS = " \t\n\r"
#: characters that matter to the structural scanner (outside strings: all; inside: \\ and ")
_STRUCT = re.compile(r'[\\"{}\[\],]')
_IN_STRING = re.compile(r'[\\"]')
_FIRST_KEY = re.compile(r'\{[ \t\r\n]*("(?:[^"\\]|\\.)*")[ \t\r\n]*:')


def _decode_at(dec: json.JSONDecoder, text: str, i: int) -> tuple[int | None, str, int]:
    """``raw_decode`` at ``i``: (end, "", 0) when a value parses, else (None, problem, position).

    Deep nesting exhausts Python's parser (RecursionError): that is a problem of the record,
    reported like a syntax error, never an abort of the run.
    """
    try:
        _, end = dec.raw_decode(text, i)
        return end, "", 0
    except json.JSONDecodeError as exc:
        return None, exc.msg, exc.pos
    except RecursionError:
        return None, "JSON nested too deeply to parse (more than ~1000 levels)", i


def _where(text: str, pos: int) -> str:
    line = text.count("\n", 0, pos) + 1
    col = pos - (text.rfind("\n", 0, pos) + 1) + 1
    return f"file line {line}, column {col}"


def _scan(
    text: str, pos: int, depth: int, in_str: bool, stop: int | None = None
) -> tuple[int | None, int, bool]:
    """Structural scan of JSON text from ``pos`` with the given state.

    Returns (boundary, depth, in_str): ``boundary`` is the index of the first ``,`` at
    depth 0 (the end of the current array element) or of a ``]`` that closes the enclosing
    array (depth -1), or None when ``stop`` (or the end of the text) is reached first; the
    state is the one at ``stop``. A stray ``}`` at depth 0 is ignored.
    """
    end = len(text) if stop is None else stop
    i = pos
    while i < end:
        m = (_IN_STRING if in_str else _STRUCT).search(text, i, end)
        if m is None:
            break
        ch = m.group()
        i = m.end()
        if ch == "\\":
            i += 1  # the escaped character (inside a string; noise outside)
        elif ch == '"':
            in_str = not in_str
        elif ch in "{[":
            depth += 1
        elif ch == "}":
            depth = max(depth - 1, 0)
        elif ch == "]":
            if depth == 0:
                return m.start(), depth, in_str
            depth -= 1
        elif depth == 0:  # ","
            return m.start(), depth, in_str
    return None, depth, in_str


def _salvage_array(f: SourceFile, body: bytes) -> tuple[pa.Table, list[dict]]:
    """Parse a JSON array element by element; land good elements, reject only bad ones.

    After a bad element the parser resynchronises at the next element boundary, so one
    broken element is one reject (its verbatim text, at its position) and the following
    elements still land:

    * pretty-printed arrays (the separators between good elements hold a line break): the
      next element starts on the next line with the elements' own indentation after a
      ``,`` -- JSON strings cannot hold raw line breaks, so that is structural even when a
      quote is missing inside the bad element;
    * otherwise a structural scan (strings, brackets) finds the next ``,`` at the array's
      level, trying both string states from the point where the parser failed (a missing or
      extra quote inverts them); a boundary is taken only if the element after it parses
      (and, when the elements are objects, starts with the same first key as the good ones);
    * failing that (a bracket too many or too few), the next ``, {"<first key>":`` whose
      element parses.

    A good element followed by a separator with the wrong indentation and then by text that
    is not an element was cut off by a stray closing bracket: it is taken back and rejected
    together with that text. When no boundary is found the rest of the array (or file) is
    rejected as one record.
    Returns the element table (record_index, t, pre_error, raw) and file-level rejects
    (record_index NULL) such as "not an array" or "array not closed".
    """
    text = body.decode("utf-8", "surrogateescape")
    dec = json.JSONDecoder()
    n = len(text)

    def skip(i: int) -> int:
        m = _NOT_WS.search(text, i)
        return m.start() if m else n

    idx: list[int] = []
    ts: list[str | None] = []
    pre: list[str | None] = []
    raws: list[bytes | None] = []
    file_rejects: list[dict] = []

    def add(t: str | None, err: str | None, raw: str | None = None) -> None:
        if t is not None and _SURROGATE.search(t):
            err, raw, t = "invalid UTF-8", t, None
        idx.append(len(idx))
        ts.append(t)
        pre.append(err)
        raws.append(raw.encode("utf-8", "surrogateescape") if raw is not None else None)

    stripped = text.rstrip(_WS_CHARS)
    closed = stripped.endswith("]")
    closing = len(stripped) - 1 if closed else None  # index of the array's final "]"

    first_key: list[str] = []  # the first key of the good object elements (one value)

    def element_ok(p: int) -> bool:
        """An element starts at ``p`` that parses, is followed by "," or the final "]" and,
        when the good elements are objects, starts with their first key."""
        try:
            value, end = dec.raw_decode(text, p)
        except (ValueError, RecursionError):
            return False
        if first_key and not (isinstance(value, dict) and next(iter(value), None) == first_key[0]):
            return False
        q = skip(end)
        return q < n and (text[q] == "," or q == closing)

    def resync(
        start: int, err_pos: int, indent: str | None, opener: str | None
    ) -> tuple[int, int] | None:
        """(end of the bad element, start of the next one) or None."""
        if indent is not None:
            nxt = "[" + re.escape(opener) + "]" if opener else r"[^ \t\r\n\]}]"
            m = re.compile(r",[ \t]*\r?\n" + re.escape(indent) + "(?=" + nxt + ")").search(
                text, start
            )
            if m:
                return m.start(), m.end()

        def boundary(c: int | None) -> tuple[int, int] | None:
            if c is None or (text[c] == "]" and c != closing):
                return None
            if text[c] == "]":
                return c, c
            p = skip(c + 1)
            if p < n and (opener is None or text[p] == opener) and element_ok(p):
                return c, p
            return None

        b, depth, in_str = _scan(text, start, 0, False, stop=max(err_pos, start))
        if b is not None:
            found = boundary(b)
        else:  # from the error on, both string states; the earliest good boundary wins
            found = None
            for state in (not in_str, in_str):
                c = _scan(
                    text, max(err_pos, start), depth, state, stop=found[0] if found else None
                )[0]
                found = boundary(c) or found
        if found is not None:
            return found
        if first_key:  # a bracket too many or too few: look for the next element's first key
            key = json.dumps(first_key[0], ensure_ascii=False)
            rx = re.compile(r",[ \t\r\n]*(\{)[ \t\r\n]*" + re.escape(key) + r"[ \t\r\n]*:")
            for m in rx.finditer(text, start + 1, closing or n):
                if element_ok(m.start(1)):
                    return m.start(), m.start(1)
        return None

    i = skip(0)
    if text[i] != "[":
        try:
            found = _PY_KIND.get(type(json.loads(text)), "a number")
        except (ValueError, RecursionError):
            found = "text that is not JSON"
        file_rejects.append(
            _file_reject(
                f.rel,
                f.sha256,
                f"wrong top-level shape: expected a JSON array, found {found}",
                body,
            )
        )
    else:
        opened = i
        i = skip(i + 1)
        lead = text[opened + 1 : i]
        indent = lead[lead.rfind("\n") + 1 :] if "\n" in lead else None
        layout_known = False  # indent comes from the first separator between good elements
        opener: str | None = None
        odd: tuple[int, int] | None = None  # (start, end) of a good element whose separator
        # did not have the layout's indentation: it may be a fragment cut off by an extra
        # closing bracket, so it is taken back if the next element does not parse
        while True:
            if i >= n:
                file_rejects.append(
                    _file_reject(
                        f.rel,
                        f.sha256,
                        "truncated file: the JSON array is not closed (no partial record left)",
                        b"",
                    )
                )
                break
            if text[i] == "]":
                rest = text[i + 1 :]
                if rest.strip(_WS_CHARS):
                    add(None, "broken JSON: unexpected text after the closing ']'", rest)
                break
            end, problem, pos = _decode_at(dec, text, i)
            if end is not None and odd is not None and opener is not None and text[i] != opener:
                end, problem, pos = (
                    None,
                    "an element ends early (a stray closing bracket?)",
                    odd[1] - 1,
                )
            if end is not None:
                add(text[i:end], None)
                if opener is None and text[i] in "{[":
                    opener = text[i]
                if not first_key and text[i] == "{":
                    m = _FIRST_KEY.match(text, i)
                    if m:
                        try:
                            first_key.append(json.loads(m.group(1)))
                        except ValueError:
                            pass
                j = skip(end)
                if j < n and text[j] == ",":
                    k = skip(j + 1)
                    sep = text[j + 1 : k]
                    sep_indent = sep[sep.rfind("\n") + 1 :] if "\n" in sep else None
                    if not layout_known:
                        indent, layout_known = sep_indent, True
                    odd = (i, end) if sep_indent != indent else None
                    i = k
                    continue
                odd = None
                if j >= n or text[j] == "]":
                    i = j
                    continue
                # something other than "," or "]" after a good element: reject up to the
                # next boundary as one record
                i, problem, pos = j, "expected ',' or ']' after the previous element", j
            elif odd is not None:
                # the previous element was cut off early: take it back, reject both parts as one
                i = odd[0]
                for col in (idx, ts, pre, raws):
                    col.pop()
            odd = None
            where = _where(text, pos)
            found_at = resync(i, pos, indent, opener or (text[i] if text[i] in "{[" else None))
            if found_at is not None:  # reject this element only, go on with the next one
                c, p = found_at
                add(None, f"broken JSON: {problem} ({where})", text[i:c].rstrip(_WS_CHARS))
                i = p
                continue
            if closing is not None and closing > i:
                add(
                    None,
                    f"broken JSON: {problem} ({where}); no later element boundary found, "
                    "the rest of the array is rejected as this record",
                    text[i:closing].rstrip(_WS_CHARS),
                )
                i = closing
                continue
            add(
                None,
                f"truncated file: partial last record: {problem} ({where}); "
                "the rest of the file is rejected as this record",
                text[i:],
            )
            break
    table = pa.table(
        {
            "record_index": pa.array(idx, pa.int64()),
            "t": pa.array(ts, pa.large_string()),
            "pre_error": pa.array(pre, pa.string()),
            "raw": pa.array(raws, pa.large_binary()),
        }
    )
    return table, file_rejects


def read_json_files(ctx: _Ctx, files: Sequence[SourceFile], datas: Sequence[bytes]) -> None:
    """Whole-file JSON objects: one DuckDB SQL pass over an Arrow batch of many files."""
    key = files[0].spec.key
    if key.kind == "relative_path":
        key_sql = "regexp_replace(source_path, '\\.json$', '')"
    elif key.kind == "field":
        key_sql = f"json_extract_string(t, {_field_path(key.name)})"
    else:
        key_sql = "json_keys(t)[1]"
    tbl = pa.table(
        {
            "source_path": pa.array([f.rel for f in files], pa.string()),
            "file_sha256": pa.array([f.sha256 for f in files], pa.string()),
            "b": pa.array(datas, pa.large_binary()),
        }
    )
    error = _json_error_expr("t", key).replace(
        "WHEN NOT json_valid", f"WHEN ltrim(t, {_WS}) = '' THEN 'empty file' WHEN NOT json_valid", 1
    )
    keep_raw = " OR true" if files[0].spec.check is not None else ""
    sql = f"""
        WITH d AS (SELECT source_path, file_sha256, b, try(decode(b)) AS t0 FROM _csrwh_files),
        s AS (
            SELECT *, replace(CASE WHEN starts_with(t0, chr(65279)) THEN substr(t0, 2) ELSE t0 END,
                              {_CRLF}, chr(10)) AS t
            FROM d
        ),
        c AS (SELECT *, {error} AS error FROM s)
        SELECT source_path, file_sha256,
               CASE WHEN error = 'empty file' THEN NULL ELSE 0 END::BIGINT AS record_index,
               NULL::BIGINT AS line_number,
               CASE WHEN error IS NULL THEN {key_sql} END AS record_key,
               CASE WHEN error IS NULL THEN t END AS payload,
               NULL::VARCHAR AS source_text, error,
               CASE WHEN error IS NOT NULL{keep_raw} THEN b END AS raw_bytes,
               true AS at_eof
        FROM c
    """
    ctx.con.register("_csrwh_files", tbl)
    try:
        ctx.stage_sql(sql)
    finally:
        ctx.con.unregister("_csrwh_files")


_TERMINATOR = re.compile(r"(?:\r\n|\n|\r)\Z")


def _csv_records(
    lines: Sequence[str], pos: int
) -> Iterable[tuple[int, int, list[str] | None, str | None]]:
    """(first line index, end line index, row, error) of each CSV record from line ``pos``."""
    reader = csv.reader(lines[pos:] if pos else lines)
    prev = 0
    while True:
        try:
            row, err = next(reader), None
        except StopIteration:
            return
        except csv.Error as exc:
            row, err = None, f"broken CSV: {exc}"
        yield pos + prev, pos + reader.line_num, row, err
        prev = reader.line_num


def _stray_quote(lines: Sequence[str], start: int, end: int, width: int) -> int:
    """How many following lines a stray quote on line ``start`` swallowed (0: none).

    The record ``lines[start:end]`` spans several lines because a quoted field runs over line
    ends. That is a stray quote, not a multi-line field, when the field does not close the
    RFC-4180 way (its closing quote is followed by something other than a delimiter or line
    end, or it never closes) and at least one swallowed line reads, on its own, as a record
    with the header's field count.
    """
    record = "".join(lines[start:end])
    try:
        for _ in csv.reader(io.StringIO(record, newline=""), strict=True):
            pass
        return 0  # a well-formed multi-line field
    except csv.Error:
        pass
    swallowed = 0
    for line in lines[start + 1 : end]:
        try:
            fields = next(csv.reader([line]), [])
        except csv.Error:
            continue
        swallowed += len(fields) == width
    return end - start - 1 if swallowed else 0


def read_csv(ctx: _Ctx, f: SourceFile, data: bytes) -> None:
    """RFC-4180 CSV with a header: payload = {header: value} (strings), source_text = record.

    Python's C csv parser delimits records (quoted fields may span lines); ``line_num``
    tells which physical lines each record used, which gives its verbatim text. A stray
    quote (a quoted field that never closes properly and would swallow the following
    records, see :func:`_stray_quote`) rejects its own line only, verbatim; reading
    resumes on the next line, so the records it would have swallowed still land.
    """
    body = _strip_bom(data)
    if not body.strip():
        return _rows_to_stage(ctx, [_file_reject(f.rel, f.sha256, "empty file", data)])
    if csv.field_size_limit() < 2**31 - 1:
        csv.field_size_limit(2**31 - 1)
    text = body.decode("utf-8", "surrogateescape")
    lines = list(io.StringIO(text, newline=""))
    key_name = f.spec.key.name if f.spec.key.kind == "field" else None
    header: list[str] | None = None
    rows: list[dict] = []
    records = iter(_csv_records(lines, 0))
    while True:
        item = next(records, None)
        if item is None:
            break
        start, end, row, err = item
        record = _TERMINATOR.sub("", "".join(lines[start:end]))
        if err is None and (not row or not record.strip()):
            continue  # blank line
        at_eof = end >= len(lines)
        if header is None and err is None and not _SURROGATE.search(record):
            header = row
            continue
        out = {
            "source_path": f.rel,
            "file_sha256": f.sha256,
            "record_index": len(rows),
            "line_number": start + 1,
            "record_key": None,
            "payload": None,
            "source_text": None,
            "error": None,
            "raw_bytes": None,
            "at_eof": at_eof,
        }
        swallowed = 0
        if header is not None and end - start > 1 and len(header) > 1:
            swallowed = _stray_quote(lines, start, end, len(header))
        if swallowed:
            record = _TERMINATOR.sub("", lines[start])
            out["at_eof"] = False
            out["error"] = (
                f"broken CSV: stray quote: a quoted field opened on line {start + 1} does not close "
                f"properly and would swallow the next {swallowed} line(s), which read as records "
                f"of their own; this line is rejected and reading resumes on line {start + 2}"
            )
            records = iter(_csv_records(lines, start + 1))
        elif _SURROGATE.search(record):
            out["error"] = "invalid UTF-8"
        elif err is not None:
            out["error"] = err
        elif header is None:
            out["error"] = "broken CSV: no header row"
        elif at_eof and record.count('"') % 2 == 1:
            out["error"] = "truncated file: unterminated quoted field at the end of the file"
        elif len(row) != len(header):
            out["error"] = f"wrong field count: {len(row)} fields, the header has {len(header)}"
        if out["error"] is not None:
            out["raw_bytes"] = record.encode("utf-8", "surrogateescape")
        else:
            out["payload"] = (
                "{"
                + ",".join(
                    json.dumps(h, ensure_ascii=False) + ":" + json.dumps(v, ensure_ascii=False)
                    for h, v in zip(header, row)
                )
                + "}"
            )
            out["source_text"] = record
            if key_name is not None and key_name in header:
                out["record_key"] = row[header.index(key_name)]
        rows.append(out)
    _rows_to_stage(ctx, rows)


def _apply_check(stage: pa.Table, check: RecordCheck, state: dict) -> pa.Table:
    """Run a FileSpec's ``check`` over the staged good records (in stage order); a record it
    gives a reason for becomes a reject: error = the reason, raw_bytes = its verbatim bytes
    (kept by the reader, else its source text or payload), nothing of it lands."""
    errors = stage.column("error").to_pylist()
    payloads = stage.column("payload").to_pylist()
    paths = stage.column("source_path").to_pylist()
    lines = stage.column("line_number").to_pylist()
    indexes = stage.column("record_index").to_pylist()
    new_errors = list(errors)
    for i, (error, payload) in enumerate(zip(errors, payloads)):
        if error is not None or payload is None:
            continue
        try:
            record = json.loads(payload)
        except RecursionError:
            reason = "JSON nested too deeply to check (more than ~1000 levels)"
        except ValueError as exc:
            reason = f"record could not be checked: {exc}"
        else:
            reason = check(record, CheckContext(paths[i], lines[i], indexes[i], state))
        if reason:
            new_errors[i] = " ".join(str(reason).split())  # one line
    rejected = pa.array([new is not None and old is None for new, old in zip(new_errors, errors)])
    text = pc.coalesce(stage.column("source_text"), stage.column("payload"))
    raw = pc.coalesce(stage.column("raw_bytes"), pc.cast(text, pa.large_binary()))
    is_error = pa.array([e is not None for e in new_errors])
    columns = {
        "error": pa.array(new_errors, pa.string()),
        "raw_bytes": pc.if_else(is_error, raw, pa.nulls(len(raw), pa.large_binary())),
    }
    for name in ("record_key", "payload", "source_text"):
        col = stage.column(name)
        columns[name] = pc.if_else(rejected, pa.nulls(len(col), col.type), col)
    for name, col in columns.items():
        stage = stage.set_column(stage.schema.get_field_index(name), name, col)
    return stage


# --------------------------------------------------------------------------------------
# Reject messages (computed in Python for the few rejected records only)
# --------------------------------------------------------------------------------------


def _refine_error(error: str, raw: bytes | None, at_eof: bool, fmt: Format) -> str:
    """Turn the SQL error code into a precise message; detect truncated last records."""
    if raw is None:
        return error
    if error == "broken JSON":
        text = _strip_bom(raw).decode("utf-8", "replace")
        text = text.removesuffix("\r")
        try:
            json.loads(text)
            return "broken JSON: rejected by DuckDB's JSON parser (e.g. a lone surrogate escape)"
        except RecursionError:
            return "broken JSON: nested too deeply to locate the error (more than ~1000 levels)"
        except json.JSONDecodeError as exc:
            truncated = exc.pos >= len(text.rstrip()) or exc.msg.startswith("Unterminated string")
            if truncated and (at_eof or fmt is Format.JSON_FILE):
                return f"truncated file: partial last record ({exc})"
            return f"broken JSON: {exc}"
    if error.startswith("wrong field count") and at_eof and fmt is Format.QRELS:
        return f"truncated file: partial last line ({error})"
    return error


# --------------------------------------------------------------------------------------
# The run
# --------------------------------------------------------------------------------------


@dataclass
class CorpusStats:
    files_loaded: int = 0
    files_unchanged: int = 0
    files_removed: int = 0
    records_loaded: int = 0
    records_rejected: int = 0
    files_ignored: int = 0


@dataclass
class IngestSummary:
    """What one ``run_ingest`` did (counts are for this run; unchanged files count 0 records)."""

    batch_id: str
    files_loaded: int = 0
    files_unchanged: int = 0
    files_removed: int = 0
    records_loaded: int = 0
    records_rejected: int = 0
    rejected_files: dict[str, int] = field(default_factory=dict)  # "<corpus folder>/<path>" -> n
    missing_corpora: list[str] = field(default_factory=list)
    per_corpus: dict[str, CorpusStats] = field(default_factory=dict)
    ignored_files: list[str] = field(default_factory=list)  # "<corpus folder>/<path>"
    #: discovery warnings, one line each (links not followed, FIFOs/sockets/devices skipped);
    #: also logged (logger ``ingest.loader``, WARNING) as they happen
    warnings: list[str] = field(default_factory=list)
    #: rows in raw.rejected_records for the run's corpora after the run (this run's rejects
    #: plus those of unchanged files landed earlier)
    rejected_outstanding: int = 0
    seconds: float = 0.0
    timings: dict[str, float] = field(default_factory=dict)  # phase -> seconds (benchmarks)


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
        hash_files(found)
        names = [c.name for c in self.scope]
        manifest = {
            (c, p): (t, sha, size)
            for c, t, p, sha, size in self.con.execute(
                "SELECT corpus, table_name, source_path, file_sha256, size_bytes "
                "FROM raw.ingest_files WHERE list_contains(?, corpus)",
                [names],
            ).fetchall()
        }
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
            if _disk_full(exc):
                raise CsrwhError(
                    f"ingest failed: No space left on device while writing the warehouse"
                    f"{' ' + self.db_path if self.db_path else ''}; nothing was changed (rolled back)",
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

    def _t(self, name: str) -> _Timer:
        return _Timer(self.summary.timings, name)

    def _reset_counts(self) -> None:
        """After a rollback nothing was loaded or removed."""
        s = self.summary
        s.files_loaded = s.files_removed = s.records_loaded = s.records_rejected = 0
        s.rejected_files = {}
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
                _display(str(self.data_dir)),
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
        if not rows:
            return
        ordered = sorted(rows)
        g = pa.table(
            {
                "corpus": [r[0] for r in ordered],
                "table_name": [r[1] for r in ordered],
                "source_path": [r[2] for r in ordered],
            }
        )
        self.con.register("_csrwh_gone", g)
        try:
            for table in sorted({r[1] for r in ordered}):
                if table not in self.all_raw_tables:
                    continue
                self.con.execute(
                    f"DELETE FROM raw.{_q(table)} AS r USING _csrwh_gone AS g "
                    "WHERE g.table_name = ? AND r.corpus = g.corpus AND r.source_path = g.source_path",
                    [table],
                )
            for table in ("rejected_records", "ingest_files"):
                self.con.execute(
                    f"DELETE FROM raw.{table} AS r USING (SELECT DISTINCT corpus, source_path "
                    "FROM _csrwh_gone) AS g WHERE r.corpus = g.corpus AND r.source_path = g.source_path"
                )
        finally:
            self.con.unregister("_csrwh_gone")

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
        ctx = _Ctx(self.con)
        try:
            self._load_units(ctx, to_load, on_progress, on_file)
        finally:
            ctx.close()

    def _load_units(self, ctx: _Ctx, to_load: list[SourceFile], on_progress, on_file) -> None:
        now = _utcnow()
        manifest_rows: list[dict] = []
        reject_rows: list[dict] = []
        for unit in self._units(to_load):
            first = unit[0]
            corpus, spec = first.corpus, first.spec
            if on_file:
                more = f" (+{len(unit) - 1} files)" if len(unit) > 1 else ""
                on_file(f"{corpus.folder}/{first.rel}{more}")
            with self._t("read"):
                datas = [f.path.read_bytes() for f in unit]
                for f, data in zip(unit, datas):
                    f.sha256 = hashlib.sha256(data).hexdigest()  # of the bytes actually landed
                    f.size = len(data)
            with self._t("parse+classify"):
                if first.name_error:
                    _rows_to_stage(
                        ctx, [_file_reject(first.rel, first.sha256, first.name_error, datas[0])]
                    )
                elif spec.format is Format.JSON_FILE:
                    read_json_files(ctx, unit, datas)
                elif spec.format is Format.JSON_ARRAY:
                    read_json_array(ctx, first, datas[0])
                elif spec.format is Format.CSV:
                    read_csv(ctx, first, datas[0])
                else:
                    read_lines(ctx, first, datas[0])
                if spec.check is not None and not first.name_error:
                    state = self._check_states.setdefault(corpus.name, {})
                    ctx.stage = _apply_check(ctx.stage, spec.check, state)
            del datas
            with self._t("insert"):
                self.con.register(STAGE, ctx.stage)
                try:
                    counts, rejected = self._insert_stage(corpus, spec, now)
                finally:
                    self.con.unregister(STAGE)
                    ctx.stage = None
            for p, rec_index, line, error, raw, sha, at_eof in rejected:
                raw = bytes(raw) if raw is not None else None
                reject_rows.append(
                    {
                        "batch_id": self.batch_id,
                        "corpus": corpus.name,
                        "table_name": spec.table,
                        "source_path": p,
                        "record_index": rec_index,
                        "line_number": line,
                        "error": _refine_error(error, raw, bool(at_eof), spec.format),
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
            self._insert_rows("rejected_records", reject_rows)
            self._insert_rows("ingest_files", manifest_rows)

    def _insert_stage(self, corpus: CorpusSpec, spec: FileSpec, now: datetime):
        """Insert the staged good records into their raw table; return per-file counts and
        the rejected records (source_path, record_index, line_number, error, raw, sha, at_eof)."""
        self.con.execute(
            f"INSERT INTO raw.{_q(spec.table)} SELECT ?, ?, source_path, record_index, line_number, "
            f"record_key, payload::JSON, source_text, file_sha256, ? FROM {STAGE} WHERE error IS NULL",
            [self.batch_id, corpus.name, now],
        )
        counts = {
            p: (ok, bad)
            for p, ok, bad in self.con.execute(
                f"SELECT source_path, count(*) FILTER (WHERE error IS NULL), "
                f"count(*) FILTER (WHERE error IS NOT NULL) FROM {STAGE} GROUP BY ALL"
            ).fetchall()
        }
        rejected = self.con.execute(
            f"SELECT source_path, record_index, line_number, error, raw_bytes, file_sha256, at_eof "
            f"FROM {STAGE} WHERE error IS NOT NULL ORDER BY source_path, record_index NULLS FIRST"
        ).fetchall()
        return counts, rejected

    def _insert_rows(self, table: str, rows: list[dict]) -> None:
        if not rows:
            return
        cols = BOOKKEEPING[table]
        types = {
            "VARCHAR": pa.large_string(),
            "BIGINT": pa.int64(),
            "BLOB": pa.large_binary(),
            "TIMESTAMP": pa.timestamp("us"),
        }
        schema = pa.schema([(c, types[t]) for c, t in cols])
        tbl = pa.Table.from_pylist(rows, schema=schema)
        self.con.register("_csrwh_rows", tbl)
        try:
            names = ", ".join(_q(c) for c, _ in cols)
            self.con.execute(f"INSERT INTO raw.{table} ({names}) SELECT {names} FROM _csrwh_rows")
        finally:
            self.con.unregister("_csrwh_rows")


__all__ = [
    "BOM",
    "BOOKKEEPING",
    "RAW_COLUMNS",
    "CheckContext",
    "CorpusSpec",
    "CorpusStats",
    "FileSpec",
    "Format",
    "IngestSummary",
    "Ingestor",
    "RecordCheck",
    "RecordKey",
    "discover",
    "ensure_schema",
    "hash_files",
]
