"""What a build found new in its input: unlisted JSON key paths and unseen open-vocabulary values.

Both are warnings (docs/ARCHITECTURE.md, "Open and closed vocabularies" and "Lineage
completeness"): the data lands and the build publishes, but every new key path and every
new value is printed on one line and recorded in ``main.dq_results`` under the build id
(suites ``lineage_completeness`` and ``open_vocabulary``), so nothing new goes unnoticed.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from csrwh import dq_results
from csrwh.config import duckdb_settings
from csrwh.gate.results import ExpectationOutcome, record_checks
from csrwh.pipeline import lineage
from csrwh.pipeline.dbt_runner import DbtOutcome

OPEN_VOCABULARY = dq_results.OPEN_VOCABULARY_SUITE


def lineage_outcomes(
    database: Path, temp_directory: Path, tables: Iterable[str] | None = None
) -> list[ExpectationOutcome]:
    """One outcome per raw table: its unlisted JSON key paths (none = success).

    The scan parses every payload, so it runs with a build's DuckDB settings, spilling into
    ``temp_directory``: with DuckDB's default limit (most of the machine's memory) the build's
    process held 742 MB for it at 300k generated conversations.
    ``tables``: only these raw tables (a selective rebuild: the re-ingested ones; the others'
    outcomes are carried over from the published build); default every raw table."""
    import duckdb

    from ingest.registry import raw_tables

    spec = lineage.load_spec()
    known = raw_tables()
    tables = sorted(known if tables is None else set(tables) & set(known))
    if not tables:
        return []
    with duckdb.connect(
        str(database), read_only=True, config=duckdb_settings(temp_directory)
    ) as con:
        unlisted = lineage.unlisted_paths(con, spec, tables)
    outcomes = []
    for table in tables:
        found = [u for u in unlisted if u.table == table]
        outcomes.append(
            ExpectationOutcome(
                suite=lineage.SUITE,
                table=f"raw.{table}",
                expectation="every_json_path_modelled_or_listed",
                expectation_type="lineage_completeness",
                severity="warning",
                success=not found,
                observed_value={"unlisted_paths": len(found)},
                offending_rows=[
                    {
                        "path": u.path,
                        "example_source_path": u.example_source_path,
                        "n_records": u.n_records,
                    }
                    for u in found
                ],
                why="Every key path of every raw payload is read by a staging model "
                "(config.meta.json_paths_read) or listed with its reason in the raw table's dbt source (models/staging/<corpus>/_<corpus>__sources.yml) "
                "(config.meta.unmodelled_json_paths).",
            )
        )
    return outcomes


def open_vocabulary_outcomes(
    database: Path, outcome: DbtOutcome | None
) -> list[ExpectationOutcome]:
    """One outcome per open_vocabulary test that warned, with the new values it found."""
    import duckdb

    if outcome is None or not outcome.open_vocabulary_warnings:
        return []
    outcomes = []
    with duckdb.connect(str(database), read_only=True) as con:
        for test_id, vocabulary, compiled in outcome.open_vocabulary_warnings:
            cursor = con.execute(compiled)
            columns = [c[0] for c in cursor.description]
            rows = [dict(zip(columns, row)) for row in cursor.fetchall()]
            outcomes.append(
                ExpectationOutcome(
                    suite=OPEN_VOCABULARY,
                    table=test_id.split(".")[2] if test_id.count(".") >= 2 else test_id,
                    expectation=test_id,
                    expectation_type="open_vocabulary",
                    severity="warning",
                    success=not rows,
                    observed_value={"vocabulary": vocabulary, "new_values": len(rows)},
                    offending_rows=rows,
                    why="Open vocabulary: a value no seed lists lands and publishes with a warning "
                    "(docs/ARCHITECTURE.md).",
                )
            )
    return outcomes


def warning_lines(outcomes: list[ExpectationOutcome]) -> list[str]:
    """One line per new key path or new value."""
    lines = []
    for o in outcomes:
        for row in o.offending_rows:
            if o.suite == lineage.SUITE:
                lines.append(
                    f"new JSON path in {o.table}: {row['path']} is neither modelled nor listed as "
                    f"unmodelled (e.g. {row['example_source_path']}, {row['n_records']} record(s))"
                )
            else:
                values = [v for k, v in row.items() if k.startswith("value_")]
                shown = " / ".join(repr(v) for v in values)
                lines.append(
                    f"new value in open vocabulary '{o.observed_value['vocabulary']}': {shown} "
                    f"({row.get('n_rows')} row(s)); it landed — add it to its seed once reviewed"
                )
    return lines


def report(
    database: Path,
    build_id: str,
    outcome: DbtOutcome | None,
    console: Console,
    temp_directory: Path,
    raw_tables: Iterable[str] | None = None,
) -> list[str]:
    """Find, print and record (in dq_results) what is new; return the warning lines.

    ``raw_tables``: scan only these raw tables' key paths (a selective rebuild passes the
    re-ingested ones when no project file changed; default every raw table);
    ``temp_directory``: where the key-path scan spills (the build's spill folder)."""
    outcomes = lineage_outcomes(database, temp_directory, raw_tables) + open_vocabulary_outcomes(
        database, outcome
    )
    lines = warning_lines(outcomes)
    for line in lines:
        console.print(f"  [yellow]![/yellow] {escape(line)}")
    record_checks(database, build_id, outcomes)
    return lines
