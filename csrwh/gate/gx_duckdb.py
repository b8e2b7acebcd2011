"""A version-guarded fix that lets Great Expectations push SQL down to DuckDB.

GX's SQL engine returns query results after their connection is closed (duckdb-engine then
yields no rows, silently) and knows no regex SQL for DuckDB; both are patched for the
``duckdb`` dialect only, and only on the GX versions in :data:`KNOWN_BROKEN` (any other version
raises :class:`UnsupportedGXVersion`).
Details: docs/internals.md#csrwh-gate-gx_duckdb
"""

from __future__ import annotations

import functools
import importlib
from typing import Any

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from csrwh.errors import CsrwhError

#: GX versions verified to have the bug and to take this fix (pyproject pins the same range;
#: 1.9 is the first with the row-condition objects, `row_condition: {type: ...}`, suites use).
KNOWN_BROKEN = SpecifierSet(">=1.9,<1.25")

_MARKER = "_csrwh_duckdb_fetch_fix"
_REGEX_MARKER = "_csrwh_duckdb_regex_fix"
#: the GX modules that import ``get_dialect_regex_expression`` by name (each gets the fix)
_REGEX_MODULES = tuple(
    f"great_expectations.expectations.metrics.column_map_metrics.column_values_{name}"
    for name in ("match_regex", "not_match_regex", "match_regex_list", "not_match_regex_list")
)


class UnsupportedGXVersion(CsrwhError):
    """The installed Great Expectations is outside the range the DuckDB fix was verified on."""


def gx_version() -> Version:
    import great_expectations

    return Version(great_expectations.__version__)


def is_applied() -> bool:
    from great_expectations.execution_engine.sqlalchemy_execution_engine import (
        SqlAlchemyExecutionEngine,
    )

    return getattr(SqlAlchemyExecutionEngine.execute_query, _MARKER, False) and all(
        getattr(module.get_dialect_regex_expression, _REGEX_MARKER, False)
        for module in _regex_modules()
    )


def _regex_modules() -> list[Any]:
    return [importlib.import_module(name) for name in _REGEX_MODULES]


def apply() -> None:
    """Patch ``SqlAlchemyExecutionEngine.execute_query`` and the regex metrics' SQL for DuckDB
    (idempotent).

    Raises :class:`UnsupportedGXVersion` when the installed GX is not in
    :data:`KNOWN_BROKEN`, or when its engine no longer has the shape the fix relies on.
    """
    from great_expectations.execution_engine.sqlalchemy_execution_engine import (
        SqlAlchemyExecutionEngine,
    )

    if is_applied():
        return
    remove()  # a partial application (one patch of two) is redone whole
    version = gx_version()
    if version not in KNOWN_BROKEN:
        raise UnsupportedGXVersion(
            f"great_expectations {version} is not a version the DuckDB result-fetch fix was "
            f"verified on ({KNOWN_BROKEN}); with it, expectations on DuckDB may silently "
            "return empty results",
            hint="install a verified version (pip install 'great-expectations>=1.9,<1.25'), or "
            "check whether GX issues #10738/#11579 are fixed in this version, run "
            "tests/unit/test_validate_gx_fix.py and widen KNOWN_BROKEN in "
            "csrwh/gate/gx_duckdb.py",
        )
    original = SqlAlchemyExecutionEngine.execute_query
    regex_modules = _regex_modules()
    if (
        not callable(original)
        or not hasattr(SqlAlchemyExecutionEngine, "get_connection")
        or not all(
            callable(getattr(m, "get_dialect_regex_expression", None)) for m in regex_modules
        )
    ):
        raise UnsupportedGXVersion(
            f"great_expectations {version}: SqlAlchemyExecutionEngine has no "
            "execute_query/get_connection, or a regex metric no get_dialect_regex_expression; "
            "the DuckDB fix cannot be applied",
            hint="pin great-expectations>=1.9,<1.25",
        )
    run_with_recovery = getattr(SqlAlchemyExecutionEngine, "_execute_query_with_recovery", None)

    @functools.wraps(original)
    def execute_query(self: Any, query: Any) -> Any:
        if self.engine.dialect.name != "duckdb":
            return original(self, query)
        with self.get_connection() as connection:
            if run_with_recovery is not None:
                result = run_with_recovery(connection, query)
            else:  # pragma: no cover - GX releases before the recovery helper
                result = connection.execute(query)
            if not result.returns_rows:
                return result
            # Fetch while the connection is still open; freeze() reads every row.
            return result.freeze()()

    setattr(execute_query, _MARKER, True)
    SqlAlchemyExecutionEngine.execute_query = execute_query  # type: ignore[method-assign]
    for module in regex_modules:
        module.get_dialect_regex_expression = _duckdb_regex(module.get_dialect_regex_expression)


def _duckdb_regex(original: Any) -> Any:
    """``get_dialect_regex_expression`` that also knows DuckDB: ``regexp_matches`` (a search)."""
    import sqlalchemy as sa

    @functools.wraps(original)
    def get_dialect_regex_expression(
        column: Any, regex: str, dialect: Any, positive: bool = True
    ) -> Any:
        if getattr(dialect, "name", None) != "duckdb":  # GX passes the engine's dialect
            return original(column, regex, dialect, positive)
        matches = sa.func.regexp_matches(column, sa.literal(regex))
        return matches if positive else sa.not_(matches)

    setattr(get_dialect_regex_expression, _REGEX_MARKER, True)
    return get_dialect_regex_expression


def remove() -> None:
    """Undo :func:`apply` (tests use it to show the bugs the fix prevents)."""
    from great_expectations.execution_engine.sqlalchemy_execution_engine import (
        SqlAlchemyExecutionEngine,
    )

    patched = SqlAlchemyExecutionEngine.execute_query
    if getattr(patched, _MARKER, False):
        SqlAlchemyExecutionEngine.execute_query = patched.__wrapped__  # type: ignore[attr-defined]
    for module in _regex_modules():
        regex = module.get_dialect_regex_expression
        if getattr(regex, _REGEX_MARKER, False):
            module.get_dialect_regex_expression = regex.__wrapped__
