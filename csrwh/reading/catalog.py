"""Schema discovery: the warehouse's tables and columns with their descriptions.

dbt stores every model's and column's ``description`` (``models/**/_*.yml``) in the warehouse
as DuckDB comments (``persist_docs`` in ``dbt_project.yml``): ``duckdb_tables().comment``,
``duckdb_views().comment``, ``duckdb_columns().comment``. This module reads them back for
``csrwh tables`` and ``csrwh describe``. Raw tables are written by the Python ingest, not dbt:
their descriptions come from the dbt sources of this checkout (``csrwh.dbt_support.dbt_sources``);
``build_info`` and ``dq_results`` (written by the build) are described here.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

import duckdb
from rich.console import Group
from rich.table import Table
from rich.text import Text

from csrwh import dq_results
from csrwh.dbt_support.dbt_sources import raw_tables
from csrwh.errors import CsrwhError

#: layers in the order ``csrwh tables --all`` lists them, and the schema each lives in
LAYERS: tuple[tuple[str, str], ...] = (
    ("marts", "main"),
    ("intermediate", "intermediate"),
    ("staging", "staging"),
    ("seeds", "seeds"),
    ("raw", "raw"),
    ("bookkeeping", "main"),
)
#: tables in ``main`` the build writes itself (not dbt marts), with what they hold
BOOKKEEPING = {
    "build_info": "The published build: id, time, data folder, project fingerprint and the "
    "digest of the input files the marts were built from.",
    "dq_results": "Every data-quality result of every build and validation run: expectations, "
    "volume checks, open-vocabulary and lineage warnings (suite, table, severity, outcome).",
}

#: the columns of the bookkeeping tables (the build writes them, not dbt, so no comment is
#: stored): ``csrwh describe dq_results`` shows these (docs/ARCHITECTURE.md has the same table)
BOOKKEEPING_COLUMNS: dict[str, dict[str, str]] = {
    "build_info": {
        "build_id": "The published build's id (`<UTC time>-<8 hex>`); reports and exports cite it.",
        "built_at": "When the build recorded itself, just before its gate (local time of the "
        "machine that built it).",
        "data_dir": "The data folder the build read its input files from.",
        "project_fingerprint": "Digest of the project files (models, macros, seeds, tests, "
        "suites, csrwh and dbt versions): a change makes the next build rebuild what it affects.",
        "csrwh_version": "The csrwh version that built the warehouse.",
        "inputs_digest": "Digest of every landed input file (path, size, sha256 in "
        "raw.ingest_files): equal to the data folder's means nothing to rebuild.",
        "n_input_files": "How many input files the build landed (rows of raw.ingest_files).",
    },
    "dq_results": dq_results.DESCRIPTIONS,
}


@dataclass(frozen=True)
class TableInfo:
    """One table or view of the warehouse."""

    schema: str
    name: str
    layer: str
    kind: str  # "table" | "view"
    description: str
    rows: int | None = None  # None for views (counting would run the view)

    @property
    def qualified(self) -> str:
        """``turns`` for marts (the default schema), else ``<schema>.<name>``."""
        return self.name if self.layer in ("marts", "bookkeeping") else f"{self.schema}.{self.name}"


@dataclass(frozen=True)
class ColumnInfo:
    """One column: name, DuckDB type and description ('' when none is stored)."""

    name: str
    data_type: str
    description: str


def one_line(text: str | None, width: int = 100) -> str:
    """The first sentence of ``text`` on one line, cut to ``width`` characters with '…'."""
    flat = " ".join((text or "").split())
    # a sentence ends at . ! ? before a capital, a quote or a bracket (not after e.g. / i.e.)
    first = re.split(r"(?<!e\.g\.)(?<!i\.e\.)(?<=[.!?])\s+(?=[A-Z`(\"'])", flat, maxsplit=1)[0]
    return first if len(first) <= width else first[: width - 1].rstrip() + "…"


def _layer(schema: str, name: str) -> str | None:
    if schema == "main":
        return "bookkeeping" if name in BOOKKEEPING else "marts"
    return {s: layer for layer, s in LAYERS if s != "main"}.get(schema)


def _source_docs() -> dict[str, tuple[str, dict[str, str]]]:
    """``{raw table: (description, {column: description})}`` from the dbt sources."""
    return {name: (t.description, t.columns) for name, t in raw_tables().items()}


def _relations(con: duckdb.DuckDBPyConnection) -> list[tuple[str, str, str, str]]:
    """(schema, name, kind, comment) of every user table and view of the open warehouse."""
    return con.execute(
        """
        select schema_name, table_name, 'table', coalesce(comment, '') from duckdb_tables()
        where database_name = current_database() and not internal and not temporary
        union all
        select schema_name, view_name, 'view', coalesce(comment, '') from duckdb_views()
        where database_name = current_database() and not internal and not temporary
        """
    ).fetchall()


def _info(
    con: duckdb.DuckDBPyConnection,
    schema: str,
    name: str,
    kind: str,
    comment: str,
    count_rows: bool,
) -> TableInfo | None:
    layer = _layer(schema, name)
    if layer is None:
        return None
    description = comment
    if not description and layer == "bookkeeping":
        description = BOOKKEEPING[name]
    if not description and layer == "raw":
        description = _source_docs().get(name, ("", {}))[0]
    rows = None
    if count_rows and kind == "table":
        rows = con.execute(f"select count(*) from {_ident(schema)}.{_ident(name)}").fetchone()[0]
    return TableInfo(schema, name, layer, kind, description, rows)


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def list_tables(
    con: duckdb.DuckDBPyConnection, include_all: bool = False, count_rows: bool = True
) -> list[TableInfo]:
    """Marts first (by name); with ``include_all`` then intermediate, staging, seeds, raw and
    the build's bookkeeping tables. Tables get exact row counts, views none."""
    order = {layer: i for i, (layer, _) in enumerate(LAYERS)}
    found = []
    for schema, name, kind, comment in _relations(con):
        layer = _layer(schema, name)
        if layer is None or (layer != "marts" and not include_all):
            continue
        info = _info(con, schema, name, kind, comment, count_rows)
        if info is not None:
            found.append(info)
    return sorted(found, key=lambda t: (order[t.layer], t.name))


def find_table(con: duckdb.DuckDBPyConnection, name: str) -> TableInfo:
    """The table ``name`` (``turns``, ``main.turns``, ``staging.stg_cosrec__conversations`` or a
    bare name unique across schemas; case-insensitive). Unknown: an error naming close matches."""
    relations = [(s, n, k, c) for s, n, k, c in _relations(con) if _layer(s, n) is not None]
    wanted = name.strip().lower()
    if "." in wanted:
        schema, bare = wanted.split(".", 1)
        hits = [r for r in relations if r[0].lower() == schema and r[1].lower() == bare]
    else:
        hits = [r for r in relations if r[1].lower() == wanted]
        if len(hits) > 1:
            hits = [r for r in hits if r[0] == "main"] or hits
    if len(hits) == 1:
        info = _info(con, *hits[0], count_rows=True)
        assert info is not None
        return info
    if len(hits) > 1:
        names = ", ".join(sorted(f"{s}.{n}" for s, n, _, _ in hits))
        raise CsrwhError(
            f"table name {name!r} is ambiguous: {names}",
            hint=f"give it with its schema, e.g. csrwh describe {hits[0][0]}.{hits[0][1]}",
            exit_code=2,
        )
    candidates = [n if s == "main" else f"{s}.{n}" for s, n, _, _ in relations]
    suggestions = close_matches(name, candidates)
    hint = "list the tables with: csrwh tables --all"
    if suggestions:
        hint = f"did you mean {', '.join(suggestions)}? " + hint
    raise CsrwhError(f"no table or view named {name!r} in the warehouse", hint=hint, exit_code=2)


def close_matches(name: str, candidates: list[str], n: int = 5) -> list[str]:
    """Candidates that look like ``name`` (by full or schema-less name): similar spelling
    first, then the shortest ones containing it."""
    wanted = name.strip().lower()
    keys: dict[str, str] = {}
    for candidate in candidates:
        keys.setdefault(candidate.lower(), candidate)
        keys.setdefault(candidate.lower().split(".", 1)[-1], candidate)
    similar = difflib.get_close_matches(wanted, list(keys), n=2 * n, cutoff=0.6)
    containing = sorted((k for k in keys if wanted and wanted in k), key=len)
    out: list[str] = []
    for key in similar + containing:
        if keys[key] not in out:
            out.append(keys[key])
    return out[:n]


def columns(con: duckdb.DuckDBPyConnection, table: TableInfo) -> list[ColumnInfo]:
    """The columns of ``table`` in order, with their types and descriptions."""
    rows = con.execute(
        "select column_name, data_type, coalesce(comment, '') from duckdb_columns() "
        "where database_name = current_database() and schema_name = ? and table_name = ? "
        "order by column_index",
        [table.schema, table.name],
    ).fetchall()
    fallback: dict[str, str] = {}
    if table.layer == "raw":
        fallback = _source_docs().get(table.name, ("", {}))[1]
    elif table.layer == "bookkeeping":
        fallback = BOOKKEEPING_COLUMNS.get(table.name, {})
    return [ColumnInfo(n, t, c or fallback.get(n, "")) for n, t, c in rows]


def describe(con: duckdb.DuckDBPyConnection, name: str) -> tuple[TableInfo, list[ColumnInfo]]:
    """``find_table`` and its ``columns``."""
    table = find_table(con, name)
    return table, columns(con, table)


def missing_descriptions(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Marts (``turns``) and mart columns (``turns.n_chars``) whose stored comment is empty."""
    missing = []
    for table in list_tables(con, count_rows=False):
        if not table.description.strip():
            missing.append(table.name)
        missing += [
            f"{table.name}.{c.name}" for c in columns(con, table) if not c.description.strip()
        ]
    return missing


# --------------------------------------------------------------------------- rendering


def _rows(info: TableInfo) -> str:
    return "view" if info.rows is None else f"{info.rows:,}"


#: what a missing description shows
def _dash() -> Text:
    return Text("—", style="dim")


def tables_view(tables: list[TableInfo], width: int = 100) -> Group:
    """One table per layer: name, rows, one-line description."""
    parts = []
    for layer, _ in LAYERS:
        chosen = [t for t in tables if t.layer == layer]
        if not chosen:
            continue
        table = Table(title=f"{layer} ({len(chosen)})", title_justify="left", show_edge=False)
        table.add_column("table", no_wrap=True)
        table.add_column("rows", justify="right", no_wrap=True)
        table.add_column("description")
        for t in chosen:
            table.add_row(
                Text(t.qualified),
                _rows(t),
                Text(one_line(t.description, width)) if t.description.strip() else _dash(),
            )
        parts.append(table)
    return Group(*parts)


def describe_view(table: TableInfo, cols: list[ColumnInfo]) -> Group:
    """The table's name, kind, rows and full description, then its columns."""
    head = Text.assemble(
        (table.qualified, "bold"),
        f"  {table.layer} {table.kind}",
        "" if table.rows is None else f", {table.rows:,} rows",
        f", {len(cols)} columns",
    )
    grid = Table(show_edge=False)
    grid.add_column("column", no_wrap=True)
    grid.add_column("type")
    grid.add_column("description")
    for c in cols:
        text = " ".join(c.description.split())
        grid.add_row(Text(c.name), Text(c.data_type), Text(text) if text else _dash())
    about = Text(" ".join(table.description.split()) or "(no description stored)")
    return Group(head, about, Text(""), grid)
