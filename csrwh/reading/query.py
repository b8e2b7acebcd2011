"""Read side: run SQL against the published warehouse and export marts to Parquet.

User SQL (``csrwh sql``) runs on a *locked* read-only connection: DuckDB's
``enable_external_access`` is off (no COPY TO/FROM, no ``read_text``/``read_csv``/``glob``
of other files, no ATTACH, no replacement scans), extensions are neither installed nor
loaded automatically, and ``lock_configuration`` is on so the query cannot switch any of
that back (``SET``/``RESET`` fail). ``--csv``/``--parquet`` files are written by this
module from the fetched result, never by the query. ``export`` uses its own locked
connection that may write only inside the output folder, with the path quoted as a SQL
string literal and table names as identifiers.
"""

from __future__ import annotations

import csv as csv_module
import io
import json
import os
import stat
import sys
from collections.abc import Sequence
from pathlib import Path

import duckdb
import polars as pl
from rich.console import Console
from rich.table import Table
from rich.text import Text

from csrwh.errors import CsrwhError, damaged_warehouse_error, is_damaged_database
from csrwh.reading.opener import open_read_only

MART_SCHEMA = "main"
# Tables in `main` that are bookkeeping, not marts.
NOT_MARTS = ("build_info", "dq_results")


def connect_read_only(warehouse: Path) -> duckdb.DuckDBPyConnection:
    """Open the warehouse read-only (:mod:`csrwh.reading.opener`), with a clear error when it
    does not exist yet."""
    if not warehouse.exists():
        raise CsrwhError(
            f"warehouse {warehouse} does not exist",
            hint="build it first: make demo (sample data) or make build (real corpora)",
        )
    try:
        return open_read_only(warehouse, hint="is another build writing it?")
    except CsrwhError as exc:
        cause = str(exc.__cause__ or "")
        if is_damaged_database(cause):
            raise damaged_warehouse_error(warehouse, cause) from exc.__cause__
        raise


#: DuckDB settings of the connection user SQL runs on (applied in this order; the last
#: one freezes every setting for the rest of the connection).
LOCKED_SETTINGS: tuple[tuple[str, object], ...] = (
    ("enable_external_access", False),
    ("autoinstall_known_extensions", False),
    ("autoload_known_extensions", False),
    ("lock_configuration", True),
)


def connect_locked(
    warehouse: Path, allowed_directories: tuple[Path, ...] = ()
) -> duckdb.DuckDBPyConnection:
    """The warehouse read-only with no access to other files or extensions, locked.

    ``allowed_directories`` (for the tool's own writes, e.g. ``export``) stay reachable.
    """
    con = connect_read_only(warehouse)
    try:
        if allowed_directories:
            dirs = [str(d.resolve()).rstrip("/") + "/" for d in allowed_directories]
            con.execute("SET allowed_directories = $dirs", {"dirs": dirs})
        for name, value in LOCKED_SETTINGS:
            con.execute(f"SET {name} = {'true' if value else 'false'}")
    except BaseException:
        con.close()
        raise
    return con


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _statements(query: str) -> int:
    """How many SQL statements ``query`` holds (0: empty, blank or only comments)."""
    if not query.strip():
        return 0
    try:
        return len(duckdb.extract_statements(query))
    except duckdb.Error:
        return 1  # let the real run report the syntax error


#: the first bytes of every DuckDB database file (its magic number sits at offset 8)
_DUCKDB_MAGIC = b"DUCK"


def _is_duckdb_file(path: Path) -> bool:
    try:
        with path.open("rb") as fh:
            return fh.read(12)[8:12] == _DUCKDB_MAGIC
    except OSError:
        return False


def _warehouse_files(warehouse: Path, target: Path) -> bool:
    """Whether ``target`` is ``warehouse`` or one of the files kept beside it: its WAL, lock,
    working/failed/ingested copies, ``<warehouse>.build/`` and anything in it, and the
    ``<stem>.*.duckdb`` sidecars (evaluations, validation results)."""
    folder = warehouse.parent
    if target == warehouse or (
        target.exists() and warehouse.exists() and target.samefile(warehouse)
    ):
        return True
    if target.parent == folder and (
        target.name.startswith(warehouse.name + ".")
        or (target.name.startswith(warehouse.stem + ".") and target.suffix == warehouse.suffix)
    ):
        return True
    build = warehouse.with_name(warehouse.name + ".build")
    return target.is_relative_to(build)


def _files_under(folder: Path) -> list[Path]:
    """Every file under ``folder`` (symbolic links not followed into folders)."""
    found: list[Path] = []
    for root, _, names in os.walk(folder):
        found += [Path(root) / name for name in names]
    return found


def protected_inodes(warehouse: Path, data_dir: Path | None) -> dict[tuple[int, int], Path]:
    """(device, inode) -> path of every file of the warehouse (:func:`_warehouse_files`, its
    ``.build/`` folder) and of the data folder: what no command may write through."""
    warehouse = warehouse.resolve()
    candidates = (
        [p for p in warehouse.parent.iterdir() if _warehouse_files(warehouse, p)]
        if warehouse.parent.is_dir()
        else []
    )
    build = warehouse.with_name(warehouse.name + ".build")
    candidates += _files_under(build) if build.is_dir() else []
    if data_dir is not None and data_dir.is_dir():
        candidates += _files_under(data_dir)
    found: dict[tuple[int, int], Path] = {}
    for candidate in candidates:
        try:
            st = candidate.stat()
        except OSError:
            continue
        found.setdefault((st.st_dev, st.st_ino), candidate)
    return found


def protected_file(
    target: Path,
    warehouse: Path,
    data_dir: Path | None,
    protected: dict[tuple[int, int], Path] | None = None,
) -> Path | None:
    """The file of the warehouse or of the data folder (:func:`protected_inodes`, computed
    unless given) that ``target`` is by device and inode -- a hard link to it, or a link to
    one -- else None. Only an existing regular file can be one; a missing ``target`` is None."""
    try:
        st = target.stat()
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    if protected is None:
        protected = protected_inodes(warehouse, data_dir)
    return protected.get((st.st_dev, st.st_ino))


def check_output_file(
    path: Path, option: str, warehouse: Path, data_dir: Path | None = None
) -> Path:
    """Refuse, in one line, an output file that would destroy data: the warehouse or a file
    kept beside it (:func:`_warehouse_files`), any DuckDB database, a file in the data
    folder, the same file as one of those by device and inode (a hard link,
    :func:`protected_file`), a directory, or a path under a file. Returns the path as given."""
    target = Path(os.path.abspath(path.expanduser()))
    resolved = target.resolve()  # through symbolic links: a link to the warehouse is the warehouse
    warehouse = warehouse.resolve()
    hint = f"give {option} a new file name outside the warehouse and data folders"
    for candidate in dict.fromkeys((target, resolved)):
        if _warehouse_files(warehouse, candidate):
            raise CsrwhError(
                f"{option} {path}: that is the warehouse {warehouse.name} or one of its files; "
                "refusing to overwrite it",
                hint=hint,
                exit_code=2,
            )
    if data_dir is not None:
        data = data_dir.resolve()
        if resolved.is_relative_to(data) or target.is_relative_to(data):
            raise CsrwhError(
                f"{option} {path}: it is inside the data folder {data}; refusing to write there",
                hint=hint,
                exit_code=2,
            )
    same = protected_file(resolved, warehouse, data_dir)
    if same is not None:
        raise CsrwhError(
            f"{option} {path}: it is the same file (a hard link) as {same}; refusing to "
            "overwrite it",
            hint=hint,
            exit_code=2,
        )
    if resolved.is_dir():
        raise CsrwhError(
            f"{option} {path}: it is a directory, not a file",
            hint=f"name a file in it, e.g. {option} {Path(path) / ('result.' + option[2:])}",
            exit_code=2,
        )
    if _is_duckdb_file(resolved):
        raise CsrwhError(
            f"{option} {path}: it is a DuckDB database; refusing to overwrite it",
            hint=hint,
            exit_code=2,
        )
    for parent in resolved.parents:
        if parent.exists():
            if not parent.is_dir():
                raise CsrwhError(
                    f"{option} {path}: {parent} is a file, not a folder",
                    hint=f"give {option} a path whose folders are folders",
                    exit_code=2,
                )
            break
    return path


def _csv_text(frame: pl.DataFrame) -> str:
    """``frame`` as CSV; BLOB values as lowercase hex (``raw.rejected_records.raw_bytes``),
    nested values (lists, structs) as JSON text in their cell."""
    blobs = [name for name, dtype in frame.schema.items() if dtype == pl.Binary]
    if blobs:
        frame = frame.with_columns(pl.col(blobs).bin.encode("hex"))
    if not any(dtype.is_nested() or dtype == pl.Object for dtype in frame.dtypes):
        return frame.write_csv()
    out = io.StringIO()
    writer = csv_module.writer(out, lineterminator="\n")
    writer.writerow(frame.columns)
    for row in frame.iter_rows():
        writer.writerow(
            [
                ""
                if v is None
                else json.dumps(v, default=str, ensure_ascii=False)
                if isinstance(v, (list, dict))
                else v
                for v in row
            ]
        )
    return out.getvalue()


def run_query(
    warehouse: Path,
    query: str,
    csv: Path | None = None,
    parquet: Path | None = None,
    max_rows: int = 50,
    data_dir: Path | None = None,
) -> int:
    """Run `query`; write CSV/Parquet when asked, else print up to `max_rows` rows. Returns row count.

    The query runs on a locked read-only connection (:func:`connect_locked`); it cannot
    write or read files nor change settings. The output files are written here, after
    :func:`check_output_file` (``csv`` ``-``: standard output; ``data_dir`` None: the data
    folder of :func:`csrwh.config.resolve_data_dir`). Printed rows are a table on a
    terminal and plain CSV off one (a pipe, a file).
    """
    from csrwh.config import resolve_data_dir

    data_dir = resolve_data_dir(data_dir)  # None: $CSRWH_DATA_DIR, else data/raw
    if csv is not None and str(csv) != "-":
        check_output_file(csv, "--csv", warehouse, data_dir)
    if parquet is not None:
        if str(parquet) == "-":
            raise CsrwhError(
                "--parquet -: Parquet is binary and is not written to standard output",
                hint="give --parquet a file name, or use --csv - for standard output",
                exit_code=2,
            )
        check_output_file(parquet, "--parquet", warehouse, data_dir)
    if _statements(query) == 0:
        raise CsrwhError(
            "empty query: give the SQL to run",
            hint='e.g. csrwh sql "select * from corpus_stats"; list tables with: csrwh sql "show all tables"',
            exit_code=2,
        )
    con = connect_locked(warehouse)
    try:
        try:
            relation = con.sql(query)
            if relation is None:
                return 0
            frame = relation.pl()
        except duckdb.Error as exc:
            if is_damaged_database(str(exc)):
                raise damaged_warehouse_error(warehouse, str(exc)) from exc
            hint = 'check the SQL; list tables with: csrwh sql "show all tables"'
            if isinstance(
                exc, duckdb.PermissionException
            ) or "configuration has been locked" in str(exc):
                hint = (
                    "csrwh sql is read-only: it cannot read or write other files, load extensions "
                    "or change settings; use --csv/--parquet to save a result"
                )
            raise CsrwhError(f"query failed: {_one_line(exc)}", hint=hint) from exc
    finally:
        con.close()
    if csv is not None and str(csv) == "-":
        sys.stdout.write(_csv_text(frame))
    elif csv is not None:
        csv.parent.mkdir(parents=True, exist_ok=True)
        csv.write_text(_csv_text(frame), encoding="utf-8")
    if parquet is not None:
        parquet.parent.mkdir(parents=True, exist_ok=True)
        frame.write_parquet(parquet)
    if csv is None and parquet is None:
        shown = frame.head(max_rows)
        if sys.stdout.isatty():
            table = Table(show_lines=False)
            for column in frame.columns:
                table.add_column(Text(column), overflow="fold")
            for row in shown.iter_rows():
                # values are text, never rich markup ("[/x]" in a turn is not a closing tag)
                table.add_row(*[Text("" if v is None else str(v)) for v in row])
            Console().print(table)
        else:  # piped: plain CSV, one record a line, no cell ever wrapped
            sys.stdout.write(_csv_text(shown))
        if frame.height > max_rows:
            Console(stderr=True).print(
                f"({frame.height} rows, {max_rows} shown; use --csv - or --csv FILE for all)",
                markup=False,
            )
    return frame.height


def list_marts(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Tables in the marts schema (dbt marts and report marts)."""
    rows = con.execute(
        "select table_name from information_schema.tables "
        "where table_schema = ? and table_type = 'BASE TABLE' order by table_name",
        [MART_SCHEMA],
    ).fetchall()
    return [name for (name,) in rows if name not in NOT_MARTS]


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _string_literal(value: str) -> str:
    if "\x00" in value:
        raise CsrwhError(f"invalid path {value!r}: it contains a NUL character")
    return "'" + value.replace("'", "''") + "'"


def _corpus_filter(con: duckdb.DuckDBPyConnection, name: str, corpora: Sequence[str]) -> str | None:
    """A SQL predicate keeping the rows of mart ``name`` that belong to ``corpora``: by its
    ``corpus`` column, else by the ``<corpus>:`` prefix of its global ids (``conversation_id``
    first, then the first other ``*_id`` column whose every value starts with a corpus of the
    warehouse), else a report mart named ``<corpus>_...`` is whole or not at all. None when
    none applies (a report table without corpus or ids, e.g. ``crs_leaderboard``)."""
    columns = con.execute(
        "select column_name, data_type from duckdb_columns() where schema_name = ? and table_name = ? "
        "order by column_index",
        [MART_SCHEMA, name],
    ).fetchall()
    wanted = ", ".join(_string_literal(c) for c in corpora)
    names = [column for column, _ in columns]
    if "corpus" in names:
        return f"corpus in ({wanted})"
    known = {
        c
        for (c,) in con.execute(
            f"select distinct corpus from {_ident(MART_SCHEMA)}.conversations"
        ).fetchall()
    }
    ids = [c for c, t in columns if c.endswith("_id") and t == "VARCHAR"]
    ids.sort(key=lambda c: c != "conversation_id")
    for column in ids:
        prefixes = {
            p
            for (p,) in con.execute(
                f"select distinct split_part({_ident(column)}, ':', 1) from {_ident(MART_SCHEMA)}.{_ident(name)} "
                f"where {_ident(column)} is not null"
            ).fetchall()
        }
        if prefixes and prefixes <= known:
            return f"split_part({_ident(column)}, ':', 1) in ({wanted})"
    owner = next((c for c in known if name.startswith(f"{c}_")), None)
    if owner is not None:
        return "true" if owner in corpora else "false"
    return None


def export_marts(warehouse: Path, out: Path, corpora: Sequence[str] = ()) -> list[Path]:
    """Write every mart table to `out/<mart>.parquet`.

    With ``corpora``, only their rows (see :func:`_corpus_filter`); a mart that cannot be split
    by corpus, or keeps no row, is not written. The connection may write inside ``out``
    only; paths are SQL string literals (quotes doubled) and table names quoted identifiers,
    so no path or name can change the statement.
    """
    out.mkdir(parents=True, exist_ok=True)
    con = connect_locked(warehouse, allowed_directories=(out,))
    written = []
    try:
        for name in list_marts(con):
            target = out.resolve() / f"{name}.parquet"
            if target.parent != out.resolve():  # a table name with "/" would leave the folder
                raise CsrwhError(f"cannot export table {name!r}: its name is not a valid file name")
            source = f"{_ident(MART_SCHEMA)}.{_ident(name)}"
            if corpora:
                where = _corpus_filter(con, name, corpora)
                if where is None:
                    continue
                source = f"(select * from {source} where {where})"
                if not con.execute(f"select count(*) from {source}").fetchone()[0]:
                    continue
            try:
                con.execute(f"COPY {source} TO {_string_literal(str(target))} (FORMAT parquet)")
            except duckdb.Error as exc:
                raise CsrwhError(
                    f"export of {name} to {target} failed: {_one_line(exc)}",
                    hint=f"check that {out} is writable",
                ) from exc
            written.append(out / f"{name}.parquet")
    finally:
        con.close()
    return written
