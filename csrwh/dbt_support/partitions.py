"""What the incremental Python models keep from one build to the next.

Run incrementally, a model reads its previous table and computes only what it does not hold:
texts by the md5 of code version and text, corpus-level marts by one digest per corpus of the
rows they read (in ``partitions.<model>``). A code version covers everything the figures depend
on, so any such change computes them again.
Details: docs/internals.md#csrwh-dbt_support-partitions
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

__all__ = [
    "Partitions",
    "code_version",
    "corpus_digests",
    "partitions",
    "previous_digests",
    "previous_table_has",
    "save_digests",
    "sql_list",
]

#: dbt appends its own code to a Python model's source after this line (compiled code).
_DBT_POSTFIX = "# This part is user provided model code"


def _module_source(module: str) -> bytes:
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        return b"<not installed>"
    return Path(spec.origin).read_bytes()


def code_version(
    model_file: str | Path,
    modules: Iterable[str] = (),
    packages: Iterable[str] = (),
    settings: Mapping[str, Any] | None = None,
) -> str:
    """sha256 (hex) of the model's source (``model_file``: its ``__file__``; dbt's appended
    code left out), the sources of ``modules``, the versions of ``packages`` and ``settings``."""
    source = Path(model_file).read_text("utf-8")
    digest = hashlib.sha256(source.split(_DBT_POSTFIX, 1)[0].encode("utf-8") + b"\0")
    for module in sorted(modules):
        digest.update(module.encode() + b"\0" + _module_source(module) + b"\0")
    for package in sorted(packages):
        try:
            version = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            version = "<not installed>"
        digest.update(f"{package}=={version}\0".encode())
    for key, value in sorted((settings or {}).items()):
        digest.update(f"{key}={value!r}\0".encode())
    return digest.hexdigest()


def corpus_digests(relation, columns: Iterable[str]) -> dict[str, str]:
    """corpus -> digest of the rows of ``relation`` (a DuckDB relation with a ``corpus``
    column), each row's ``columns`` taken as text (JSON: NULL and separators unambiguous).

    Order-independent (a row's position counts only through its columns): the xor and the
    count of the rows' md5s, per corpus."""
    as_text = ", ".join(f'"{name}"::varchar' for name in columns)
    rows = (
        relation.project(f"corpus, md5_number(to_json([{as_text}])) as row_md5")
        .aggregate("corpus, bit_xor(row_md5)::varchar || ':' || count(*)::varchar", "corpus")
        .fetchall()
    )
    return {corpus: digest for corpus, digest in rows}


#: The schema of the partitions' digests: out of the marts' (not listed, exported or compared
#: as marts), one table per model, named as the model. The project's on-run-start hook
#: creates it (macros/create_partitions_schema.sql) before any model that writes to it runs:
#: two models creating it in their own transactions at once make DuckDB refuse one commit.
SCHEMA = "partitions"


def _partitions_table(this) -> str:
    return f'"{this.database}"."{SCHEMA}"."{this.identifier}"'


def previous_table_has(session, dbt, columns: Iterable[str]) -> bool:
    """Whether dbt runs the model incrementally and its previous table has ``columns``."""
    if not dbt.is_incremental:
        return False
    this = dbt.this
    present = {
        name
        for (name,) in session.execute(
            "select column_name from duckdb_columns() where database_name = ? "
            "and schema_name = ? and table_name = ?",
            [this.database, this.schema, this.identifier],
        ).fetchall()
    }
    return set(columns) <= present


def previous_digests(session, dbt, version: str) -> dict[str, str]:
    """corpus -> digest of the rows the previous table's rows of that corpus were computed
    from, with this ``version`` of the code (empty: not incremental, or nothing kept)."""
    if not dbt.is_incremental:
        return {}
    table = _partitions_table(dbt.this)
    try:
        rows = session.execute(
            f"select corpus, inputs_digest from {table} where code_version = ?", [version]
        ).fetchall()
    except Exception:  # noqa: BLE001 - no such table yet: nothing is carried over
        return {}
    return {corpus: digest for corpus, digest in rows}


def save_digests(session, dbt, version: str, digests: Mapping[str, str]) -> None:
    """Record, for the table the model returns, each corpus's inputs digest and ``version``."""
    table = _partitions_table(dbt.this)
    # in a dbt run the project's on-run-start hook has created it (two models creating it at
    # once conflict); this serves a model run outside dbt
    session.execute(f'create schema if not exists "{dbt.this.database}"."{SCHEMA}"')
    session.execute(
        f"create or replace table {table} (corpus varchar, inputs_digest varchar, "
        "code_version varchar)"
    )
    if digests:
        session.executemany(
            f"insert into {table} values (?, ?, ?)",
            [(corpus, digest, version) for corpus, digest in sorted(digests.items())],
        )


def sql_list(values: Iterable[str]) -> str:
    """A SQL list literal of strings (typed, so an empty one is too)."""
    return "[" + ", ".join("'" + v.replace("'", "''") + "'" for v in values) + "]::varchar[]"


class Partitions(NamedTuple):
    """A corpus-partitioned model's plan (:func:`partitions`)."""

    version: str
    digests: dict[str, str]
    carried: list[str]  # corpora whose previous rows are kept
    todo: list[str]  # corpora computed again

    def finish(self, session, dbt, computed, schema):
        """The model's table: the carried corpora's previous rows (``schema``'s columns) and
        the ``computed`` ones (a ``pyarrow.Table``); the digests are saved for the next build."""
        import pyarrow as pa

        parts = [computed]
        if self.carried:
            kept = (
                session.sql(f"select * from {dbt.this}")
                .filter(f"list_contains({sql_list(self.carried)}, corpus)")
                .to_arrow_table()
                .select(schema.names)
                .cast(schema)
            )
            parts.insert(0, kept)
        save_digests(session, dbt, self.version, self.digests)
        return pa.concat_tables(parts)


def partitions(session, dbt, version: str, digests: Mapping[str, str]) -> Partitions:
    """Which corpora a partitioned model carries over (its digest and ``version`` unchanged
    since the previous build) and which it computes."""
    previous = previous_digests(session, dbt, version)
    carried = sorted(c for c, digest in digests.items() if previous.get(c) == digest)
    todo = sorted(set(digests) - set(carried))
    return Partitions(version, dict(digests), carried, todo)
