"""``main.dq_results``: the one home of its columns, types and descriptions.

Written by the expectations gate (:func:`csrwh.gate.run.record_results`: one row per
expectation and run) and read by ``csrwh describe dq_results`` (:mod:`csrwh.reading.catalog`)
and the dashboard's Data health page (:mod:`csrwh.reading.dashboard.queries`). It sits below
both the build and the read side, so neither imports the other for it; docs/ARCHITECTURE.md,
"Data-quality results", shows the same table.
"""

from __future__ import annotations

TABLE = "main.dq_results"

#: the build's own checks, recorded beside the expectations under these suite names; they are
#: not expectations: the build's and ``csrwh validate``'s "N expectations in M suites" leave
#: them out, and so does every count that repeats those figures
VOLUME_SUITE = "volume"
OPEN_VOCABULARY_SUITE = "open_vocabulary"
LINEAGE_SUITE = "lineage_completeness"
BUILD_CHECK_SUITES: tuple[str, ...] = (VOLUME_SUITE, OPEN_VOCABULARY_SUITE, LINEAGE_SUITE)

#: column -> (DuckDB type, description), in table order
COLUMNS: dict[str, tuple[str, str]] = {
    "run_id": (
        "varchar",
        "The build id (the build's gate) or the run id of a `csrwh validate` run.",
    ),
    "validated_at": ("timestamp", "When the run validated (UTC)."),
    "suite": (
        "varchar",
        (
            "Suite name: `expectations/<group>/<suite>.yml`, or `volume`, "
            "`open_vocabulary`, `lineage_completeness` (the build's own checks)."
        ),
    ),
    "table_name": (
        "varchar",
        "The table the expectation ran on (`main.turns`, `raw.cosrec__quality`).",
    ),
    "expectation": ("varchar", "The expectation's name, unique in its suite."),
    "expectation_type": (
        "varchar",
        (
            "Great Expectations type (`expect_column_values_to_not_be_null`, "
            "...) or the build check's kind."
        ),
    ),
    "severity": (
        "varchar",
        "`critical` (a failure blocks publishing) or `warning` (reported only).",
    ),
    "success": ("boolean", "Whether the expectation passed."),
    "observed_value": ("json", "What was observed (a count, share or value), as JSON."),
    "offending_rows": ("json", "The first offending rows (at most 5) as JSON; NULL when none."),
    "error": (
        "varchar",
        "The exception text when the expectation could not be evaluated; NULL otherwise.",
    ),
    "why": ("varchar", "The suite's explanation of why the expectation holds."),
}

#: the column names, in table order
NAMES: tuple[str, ...] = tuple(COLUMNS)

#: the descriptions ``csrwh describe dq_results`` shows
DESCRIPTIONS: dict[str, str] = {name: text for name, (_, text) in COLUMNS.items()}

DDL = (
    f"create table if not exists {TABLE} (\n"
    + ",\n".join(f"    {name} {kind}" for name, (kind, _) in COLUMNS.items())
    + "\n)"
)

#: ``insert into`` with one placeholder per column
INSERT = f"insert into {TABLE} values ({', '.join('?' for _ in COLUMNS)})"
