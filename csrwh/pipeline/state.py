"""What a warehouse file holds that the safety checks compare: published state, landed files,
row volumes (and their ``volume`` results in ``main.dq_results``)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from csrwh.config import PROJECT_ROOT
from csrwh.pipeline.paths import _sql_str


@dataclass
class _State:
    """What a warehouse file holds that the safety checks compare."""

    fingerprint: str | None = None
    inputs_digest: str | None = None
    build_id: str | None = None
    corpora: set[str] = field(default_factory=set)
    # (corpus, source_path, md5 of the record's bytes) -> how many
    rejects: dict[tuple[str, str, str], int] = field(default_factory=dict)
    # (schema.table, corpus or None) -> rows
    counts: dict[tuple[str, str | None], int] = field(default_factory=dict)


def _volume_tables() -> tuple[list[str], list[str]]:
    """(raw corpus tables, entity marts) whose row counts the volume check compares."""
    from ingest import registry

    raw = [f"raw.{t}" for t in registry.raw_tables()]
    marts = sorted(
        f"main.{p.stem}"
        for folder in ("core", "search")
        for p in (PROJECT_ROOT / "models" / "marts" / folder).glob("*.sql")
    )
    return raw, marts


def _read_state(database: Path, tables: list[str] | None = None, full: bool = True) -> _State:
    """Read ``database`` read-only through a private instance (never the per-process cache)."""
    import duckdb

    state = _State()
    con = duckdb.connect(":memory:")
    try:
        con.execute(f"attach '{_sql_str(database)}' as w (read_only)")
        present = {
            (s, t): None
            for s, t in con.execute(
                "select schema_name, table_name from duckdb_tables() where database_name = 'w'"
            ).fetchall()
        }
        if full and ("main", "build_info") in present:
            columns = {
                c
                for (c,) in con.execute(
                    "select column_name from duckdb_columns() where database_name = 'w' "
                    "and schema_name = 'main' and table_name = 'build_info'"
                ).fetchall()
            }
            if "project_fingerprint" in columns:
                state.fingerprint = con.execute(
                    "select project_fingerprint from w.main.build_info"
                ).fetchone()[0]
            if "inputs_digest" in columns:
                state.inputs_digest = con.execute(
                    "select inputs_digest from w.main.build_info"
                ).fetchone()[0]
            state.build_id = con.execute("select build_id from w.main.build_info").fetchone()[0]
        if full and ("raw", "ingest_files") in present:
            state.corpora = {
                c
                for (c,) in con.execute("select distinct corpus from w.raw.ingest_files").fetchall()
            }
        if full and ("raw", "rejected_records") in present:
            for corpus, path, digest, n in con.execute(
                "select corpus, source_path, md5(coalesce(raw_bytes, encode(coalesce(raw_text, '')))), "
                "count(*) from w.raw.rejected_records group by all"
            ).fetchall():
                state.rejects[(corpus, path, digest)] = n
        for qualified in tables or []:
            schema, table = qualified.split(".", 1)
            if (schema, table) not in present:
                continue
            columns = [
                c
                for (c,) in con.execute(
                    "select column_name from duckdb_columns() where database_name = 'w' and schema_name = ? "
                    "and table_name = ? order by column_index",
                    [schema, table],
                ).fetchall()
            ]
            key = (
                "corpus"
                if "corpus" in columns
                else f"split_part(cast(\"{columns[0]}\" as varchar), ':', 1)"
            )
            for corpus, n in con.execute(
                f'select {key}, count(*) from w."{schema}"."{table}" group by all'
            ).fetchall():
                state.counts[(qualified, corpus)] = n
            state.counts.setdefault((qualified, None), 0)
    finally:
        con.close()
    return state


def _ingest_files(database: Path) -> list[tuple[str, str, str, str]]:
    """Every landed file: (corpus, raw table, source path, sha256), sorted; [] before any ingest."""
    import duckdb

    con = duckdb.connect(":memory:")
    try:
        con.execute(f"attach '{_sql_str(database)}' as w (read_only)")
        present = con.execute(
            "select count(*) from duckdb_tables() where database_name = 'w' "
            "and schema_name = 'raw' and table_name = 'ingest_files'"
        ).fetchone()[0]
        if not present:
            return []
        return con.execute(
            "select corpus, table_name, source_path, file_sha256 from w.raw.ingest_files order by all"
        ).fetchall()
    finally:
        con.close()


def changed_raw_tables(
    before: list[tuple[str, str, str, str]], after: list[tuple[str, str, str, str]]
) -> set[str]:
    """Raw tables (``cosrec__conversations``) one of whose files was added, removed or changed."""
    return {table for _, table, _, _ in set(before) ^ set(after)}


def _inputs_digest(database: Path) -> str:
    """sha256 over every landed file (corpus, table, path, sha256): what the marts are built from."""
    return _digest_rows(_ingest_files(database))


def _digest_rows(rows: list[tuple[str, str, str, str]]) -> str:
    """The inputs digest of :func:`_ingest_files`' rows (in that order)."""
    digest = hashlib.sha256()
    for row in rows:
        digest.update("\t".join(str(v) for v in row).encode("utf-8") + b"\n")
    return digest.hexdigest()


@dataclass
class _Volume:
    table: str
    published: int
    building: int
    max_shrink: float

    @property
    def shrink(self) -> float:
        return (
            0.0
            if self.published <= 0
            else max(0.0, (self.published - self.building) / self.published)
        )

    @property
    def too_much(self) -> bool:
        return self.shrink > self.max_shrink


def _volumes(
    published: _State, now: _State, tables: list[str], dropped: set[str], max_shrink: float
) -> list[_Volume]:
    out = []
    for table in tables:
        if not any(t == table for t, _ in published.counts):
            continue  # not in the published warehouse: nothing to compare with
        out.append(
            _Volume(table, _rows(published, table, dropped), _rows(now, table, dropped), max_shrink)
        )
    return out


def _rows(state: _State, table: str, dropped: set[str]) -> int:
    return sum(n for (t, c), n in state.counts.items() if t == table and c not in dropped)


def _record_volumes(
    database: Path, build_id: str, volumes: list[_Volume], allow_shrink: bool
) -> None:

    from csrwh.dq_results import VOLUME_SUITE
    from csrwh.gate.results import ExpectationOutcome, record_checks

    if not volumes:
        return
    pct = f"{volumes[0].max_shrink:.0%}"
    outcomes = [
        ExpectationOutcome(
            suite=VOLUME_SUITE,
            table=v.table,
            expectation=f"shrinks_at_most_{pct.rstrip('%')}_percent",
            expectation_type="csrwh_volume_against_published",
            severity="warning" if allow_shrink else "critical",
            success=not v.too_much,
            observed_value={
                "published_rows": v.published,
                "building_rows": v.building,
                "shrink": round(v.shrink, 4),
            },
            why=f"a table losing more than {pct} of its rows against the published build is "
            "damaged input until accepted (--allow-shrink)",
        )
        for v in volumes
    ]
    record_checks(database, build_id, outcomes)
