"""What every reader shares: the staged-records table (:data:`STAGE_SCHEMA`) a reader
returns -- the file's good records and its rejects, in file order -- the read context, and
the SQL pieces that classify JSON records."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

import duckdb
import pyarrow as pa

from ingest.schema import sql_literal
from ingest.spec import RecordKey

BOM = b"\xef\xbb\xbf"

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
STAGE_COLS = ", ".join(STAGE_SCHEMA.names)

WS = "chr(32) || chr(9) || chr(10) || chr(13)"
CRLF = "chr(13) || chr(10)"


def json_kind(expr: str) -> str:
    """SQL: a human name of the JSON type of ``expr`` ('an array', 'a string', ...)."""
    return (
        f"CASE json_type({expr}) WHEN 'OBJECT' THEN 'an object' WHEN 'ARRAY' THEN 'an array' "
        "WHEN 'VARCHAR' THEN 'a string' WHEN 'BOOLEAN' THEN 'a boolean' WHEN 'NULL' THEN 'null' "
        "ELSE 'a number' END"
    )


def field_path(name: str) -> str:
    return sql_literal("$." + json.dumps(name))


@dataclass
class ReadContext:
    con: duckdb.DuckDBPyConnection
    _reader: duckdb.DuckDBPyConnection | None = None

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

    def stage_sql(
        self, sql: str, params: list | None = None, tables: dict[str, pa.Table] | None = None
    ) -> pa.Table:
        """The result of ``sql`` as a staged table (STAGE_SCHEMA); ``tables`` are the Arrow
        tables it reads, by name.

        Runs on :attr:`reader`, outside the run's write transaction: a table registered
        inside that transaction stays referenced by its dropped view until the commit, so
        every file's Arrow buffers would be held to the end of the run (at sample x300
        the ingest's RSS grew to 2.2 GB that way)."""
        tables = tables or {}
        for name, table in tables.items():
            self.reader.register(name, table)
        try:
            result = self.reader.sql(sql, params=params or None).to_arrow_table()
        finally:
            for name in tables:
                self.reader.unregister(name)
        return result.cast(STAGE_SCHEMA)


def file_reject(rel: str, sha: str, error: str, raw: bytes | None) -> dict:
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


def rows_to_stage(rows: list[dict]) -> pa.Table:
    return pa.Table.from_pylist(rows, schema=STAGE_SCHEMA)


def strip_bom(data: bytes) -> bytes:
    return data[3:] if data.startswith(BOM) else data


#: for a string that is valid JSON: its value is an object (JSON whitespace is only these four)
_OBJECT_START = "'^[ \\t\\n\\r]*\\{'"


#: cheap test for a record that may hold a non-finite number (most records do not): a NaN or
#: Inf(inity) constant where a value starts, an exponent of 3+ digits or a run of 40+ digits
#: -- anywhere, strings included; :data:`_NON_FINITE` then decides on the text outside strings
_MAYBE_NON_FINITE = "'[:\\[,]\\s*-?(?i:nan|inf)|[0-9][eE]\\+?0*[0-9]{3}|[0-9]{40}'"
_JSON_STRING = """'"(?:[^"\\\\]|\\\\.)*"'"""
_JSON_NUMBER = "'(?i)-?(?:nan|inf(?:inity)?|[0-9][0-9.e+-]*)'"
#: SQL over a valid JSON text ``t``: its first number that is not finite as a double (NaN,
#: Infinity, 1e400, a 400-digit integer: DuckDB's JSON reader accepts them all), or NULL
_NON_FINITE = (
    f"CASE WHEN regexp_matches(t, {_MAYBE_NON_FINITE}) THEN list_filter("
    f"regexp_extract_all(regexp_replace(t, {_JSON_STRING}, '\"\"', 'g'), {_JSON_NUMBER}), "
    "lambda x: NOT coalesce(isfinite(TRY_CAST(x AS DOUBLE)), false))[1] END"
)


def json_ctes(source: str, key: RecordKey, empty_file: bool = False) -> str:
    """Three CTEs over ``source`` (any columns plus ``t``: the record's text, NULL when it is
    not UTF-8) that classify each record with as few JSON parses as possible: ``json_ok``
    (valid JSON, parsed once), ``json_shape`` (single key: the object's keys, NULL when not an
    object -- parsed once more; otherwise: is an object, no parse), ``json_non_finite`` (the
    first number that is not finite, :data:`_NON_FINITE`: a reject for every corpus) and
    ``error`` (NULL: a good record). The last CTE is ``json_classified``; with ``empty_file``, a blank ``t`` is an
    "empty file". Use :func:`key_expr_json` for the record key."""
    is_object = f"json_ok AND regexp_matches(t, {_OBJECT_START})"
    kind = json_kind("t")
    if key.kind == "single_key":
        shape_col = f"CASE WHEN {is_object} THEN json_keys(t) END"
        shape = (
            "WHEN json_shape IS NULL THEN 'wrong top-level shape: expected a one-key object "
            f'{{"<id>": value}}, found \' || {kind} '
            "WHEN len(json_shape) <> 1 THEN 'wrong top-level shape: expected a one-key object "
            "{\"<id>\": value}, found an object with ' || len(json_shape) || ' keys' "
        )
    else:
        shape_col = is_object
        shape = (
            "WHEN NOT json_shape THEN 'wrong top-level shape: expected an object, "
            f"found ' || {kind} "
        )
    empty = f"WHEN ltrim(t, {WS}) = '' THEN 'empty file' " if empty_file else ""
    non_finite = (
        "WHEN json_non_finite IS NOT NULL THEN 'non-finite number: ' || left(json_non_finite, 40) "
        "|| ' (NaN, Infinity or beyond the double range; JSON numbers must be finite)' "
    )
    error = (
        f"CASE WHEN t IS NULL THEN 'invalid UTF-8' {empty}"
        f"WHEN NOT json_ok THEN 'broken JSON' {shape}{non_finite}END"
    )
    return (
        f"json_checked AS (SELECT *, json_valid(t) AS json_ok FROM {source}), "
        f"json_shaped AS (SELECT *, {shape_col} AS json_shape, "
        f"CASE WHEN json_ok THEN {_NON_FINITE} END AS json_non_finite FROM json_checked), "
        f"json_classified AS (SELECT *, {error} AS error FROM json_shaped)"
    )


def key_expr_json(t: str, key: RecordKey, rel: str) -> str:
    """SQL: the record key of a good record of a :func:`json_ctes` query."""
    if key.kind == "single_key":
        return "json_shape[1]"
    if key.kind == "field":
        names = (key.name, *key.fallbacks)
        found = [f"json_extract_string({t}, {field_path(name)})" for name in names]
        return found[0] if len(found) == 1 else f"coalesce({', '.join(found)})"
    if key.kind == "relative_path":
        return sql_literal(re.sub(r"\.json$", "", rel))
    raise ValueError(f"unknown record key kind {key.kind!r}")
