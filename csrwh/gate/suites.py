"""Expectation suites as reviewable YAML files (``expectations/``), loaded into plain specs.

One file per raw source (``expectations/raw/<corpus>__<entity>.yml``) and one per mart
(``expectations/marts/<mart>.yml``); shared blocks live in ``expectations/_shared/`` and are
pulled in with ``include:``. See ``expectations/README.md`` for the file format. Loading
checks the files strictly (unknown keys, missing ``why``/``severity``, duplicate names,
unknown GX expectation types, SQL without ``{batch}``) and never imports GX, so suites can
be listed and unit-tested cheaply; :func:`to_gx_expectation` builds the GX object.
"""

from __future__ import annotations

import fnmatch
import functools
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from string import Template
from typing import Any

import yaml

from csrwh.config import PROJECT_ROOT
from csrwh.errors import CsrwhError

DEFAULT_EXPECTATIONS_DIR = PROJECT_ROOT / "expectations"
SEVERITIES = ("critical", "warning")
GROUPS = {"raw": "raw", "marts": "marts"}

_SUITE_KEYS = {
    "suite",
    "table",
    "description",
    "include",
    "vars",
    "columns",
    "column_order",
    "index_columns",
    "expectations",
}
_SHARED_KEYS = {"description", "columns", "column_order", "index_columns", "expectations"}
_EXPECTATION_KEYS = {"name", "type", "severity", "why", "why_sql", "kwargs"}
SQL_TYPE = "unexpected_rows_expectation"
# Why an expectation stays SQL (``why_sql:``, required on every SQL expectation, refused on a
# built-in): one reason each, the class of rule no GX built-in states (expectations/README.md).
SQL_REASONS = {
    "cross-table": "joins or counts another table (ingest counts, cross-mart consistency, seeds)",
    "parses-raw-payload": "reads fields of a raw record's JSON payload (GX addresses columns, not JSON paths)",
    "aggregate": "a rule over groups of rows (shares, per-group counts, contiguous sequences)",
    "multi-column": "arithmetic or a conditional over several columns of one row",
    "schema-describe": "compares the table's DuckDB types (DESCRIBE) with the contract",
}
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_TABLE = re.compile(r"^[a-z_][a-z0-9_]*\.[a-z_][a-z0-9_]*$")


@dataclass(frozen=True)
class ExpectationSpec:
    """One expectation of a suite: a GX expectation type with its kwargs, severity and reason."""

    name: str
    type: str
    kwargs: dict[str, Any]
    severity: str
    why: str
    why_sql: str | None = None  # the reason class an SQL expectation has no built-in (SQL_REASONS)


@dataclass(frozen=True)
class SuiteSpec:
    """A suite file: the table it validates and its expectations (shared ones first)."""

    name: str
    table: str
    path: Path
    group: str
    description: str = ""
    expectations: tuple[ExpectationSpec, ...] = field(default_factory=tuple)
    #: the columns that name a row (the table's key where it has one): GX lists them with each
    #: unexpected value of a built-in (``unexpected_index_column_names``), so its offending rows
    #: name records, not only values
    index_columns: tuple[str, ...] = ()

    @property
    def schema(self) -> str:
        return self.table.split(".", 1)[0]

    @property
    def table_name(self) -> str:
        return self.table.split(".", 1)[1]


def _fail(path: Path, message: str) -> CsrwhError:
    return CsrwhError(
        f"{path}: {message}", hint="see expectations/README.md for the suite file format"
    )


def _read_yaml(path: Path) -> dict[str, Any]:
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=_YAML_LOADER)
    except yaml.YAMLError as exc:
        raise _fail(path, f"not valid YAML ({exc})") from exc
    if not isinstance(data, dict):
        raise _fail(path, "must be a YAML mapping")
    return data


def _substitute(value: Any, variables: dict[str, str], path: Path) -> Any:
    """Replace ``${name}`` in every string (``$.json.path`` and other ``$`` uses are left alone)."""
    if isinstance(value, str):
        out = Template(value).safe_substitute(variables)
        leftover = re.search(r"\$\{[^}]*\}", out)
        if leftover:
            raise _fail(path, f"unknown variable {leftover.group(0)} (declare it under vars:)")
        return out
    if isinstance(value, list):
        return [_substitute(v, variables, path) for v in value]
    if isinstance(value, dict):
        return {k: _substitute(v, variables, path) for k, v in value.items()}
    return value


def _columns_expectations(columns: dict[str, Any], order: str, path: Path) -> list[dict[str, Any]]:
    """The schema contract (``columns: {name: TYPE or [TYPE, ...]}``) as two expectations."""
    if not isinstance(columns, dict) or not columns:
        raise _fail(path, "columns: must map column names to DuckDB types")
    allowed: dict[str, list[str]] = {}
    for name, types in columns.items():
        types = [types] if isinstance(types, str) else types
        if not isinstance(types, list) or not all(isinstance(t, str) and t for t in types):
            raise _fail(path, f"columns: type of {name!r} must be a type name or a list of them")
        allowed[str(name)] = [t.upper() for t in types]
    if order == "strict":
        names = {
            "name": "columns_match_contract",
            "type": "expect_table_columns_to_match_ordered_list",
            "kwargs": {"column_list": list(allowed)},
            "why": "The table has exactly the contract's columns, in the contract's order.",
        }
    elif order == "any":
        names = {
            "name": "columns_match_contract",
            "type": "expect_table_columns_to_match_set",
            "kwargs": {"column_set": list(allowed), "exact_match": True},
            "why": "The table has exactly the contract's columns (no missing, no extra ones).",
        }
    else:
        raise _fail(path, f"column_order must be strict or any, not {order!r}")
    values = ", ".join(
        "('{}', [{}])".format(name, ", ".join(f"'{t}'" for t in types))
        for name, types in allowed.items()
    )
    types_query = (
        "with actual as (\n"
        "    select column_name, column_type from (describe select * from {batch})\n"
        "),\n"
        f"expected(column_name, allowed_types) as (values {values})\n"
        "select expected.column_name, array_to_string(expected.allowed_types, '|') as expected_type,\n"
        "    actual.column_type as actual_type\n"
        "from expected\n"
        "inner join actual on actual.column_name = expected.column_name\n"
        "where not list_contains(expected.allowed_types, actual.column_type)"
    )
    types = {
        "name": "column_types_match_contract",
        "type": "unexpected_rows_expectation",
        "kwargs": {"unexpected_rows_query": types_query},
        "why": "Every contract column has its contract DuckDB type (returns the columns that do not).",
        "why_sql": "schema-describe",
    }
    for item in (names, types):
        item["severity"] = "critical"
    return [names, types]


def _parse_expectation(raw: Any, path: Path) -> ExpectationSpec:
    if not isinstance(raw, dict):
        raise _fail(path, "every entry under expectations: must be a mapping")
    unknown = set(raw) - _EXPECTATION_KEYS
    if unknown:
        raise _fail(path, f"expectation {raw.get('name')!r}: unknown key(s) {sorted(unknown)}")
    for key in ("name", "type", "severity", "why"):
        if not isinstance(raw.get(key), str) or not raw[key].strip():
            raise _fail(path, f"expectation {raw.get('name')!r}: {key} is required (a string)")
    name = raw["name"]
    if not _NAME.match(name):
        raise _fail(path, f"expectation name {name!r} must be snake_case")
    if raw["severity"] not in SEVERITIES:
        raise _fail(path, f"expectation {name!r}: severity must be one of {SEVERITIES}")
    kwargs = raw.get("kwargs") or {}
    if not isinstance(kwargs, dict):
        raise _fail(path, f"expectation {name!r}: kwargs must be a mapping")
    why_sql = raw.get("why_sql")
    if raw["type"] == SQL_TYPE:
        query = kwargs.get("unexpected_rows_query")
        if not isinstance(query, str) or "{batch}" not in query:
            raise _fail(
                path, f"expectation {name!r}: unexpected_rows_query must select from {{batch}}"
            )
        if why_sql not in SQL_REASONS:
            raise _fail(
                path,
                f"expectation {name!r}: an SQL expectation needs why_sql: one of "
                f"{', '.join(SQL_REASONS)} (the rule no GX built-in states), not {why_sql!r}",
            )
    elif why_sql is not None:
        raise _fail(path, f"expectation {name!r}: why_sql: is for SQL expectations only")
    return ExpectationSpec(
        name=name,
        type=raw["type"],
        kwargs=dict(kwargs),
        severity=raw["severity"],
        why=" ".join(raw["why"].split()),
        why_sql=why_sql,
    )


def load_suite(path: Path, expectations_dir: Path | None = None) -> SuiteSpec:
    """Read one suite file (with its includes) into a :class:`SuiteSpec`."""
    root = Path(expectations_dir or DEFAULT_EXPECTATIONS_DIR)
    data = _read_yaml(path)
    unknown = set(data) - _SUITE_KEYS
    if unknown:
        raise _fail(path, f"unknown key(s) {sorted(unknown)}")
    group = path.parent.name
    if group not in GROUPS.values():
        raise _fail(path, "suite files live in expectations/raw/ or expectations/marts/")
    table = data.get("table")
    if not isinstance(table, str) or not _TABLE.match(table):
        raise _fail(path, "table: must be <schema>.<table> in lower case, e.g. raw.crsarena__votes")
    # raw suites are named by their table; mart suites by their file (`conversations`, or
    # `cosrec__conversations` for a corpus's own suite on a shared mart)
    default_name = table if group == "raw" else path.stem
    name = data.get("suite", default_name)
    variables = {str(k): str(v) for k, v in (data.get("vars") or {}).items()}

    entries: list[dict[str, Any]] = []
    columns, column_order, index_columns = None, None, None
    for include in data.get("include") or []:
        shared_path = root / "_shared" / f"{include}.yml"
        if not shared_path.is_file():
            raise _fail(path, f"include {include!r}: no file {shared_path}")
        shared = _read_yaml(shared_path)
        unknown = set(shared) - _SHARED_KEYS
        if unknown:
            raise _fail(shared_path, f"unknown key(s) {sorted(unknown)}")
        shared = _substitute(shared, variables, shared_path)
        columns = shared.get("columns", columns)
        column_order = shared.get("column_order", column_order)
        index_columns = shared.get("index_columns", index_columns)
        entries.extend(shared.get("expectations") or [])
    own = _substitute(
        {k: data.get(k) for k in ("columns", "column_order", "index_columns", "expectations")},
        variables,
        path,
    )
    columns = own["columns"] or columns
    index_columns = own["index_columns"] or index_columns or []
    if not isinstance(index_columns, list) or not all(
        isinstance(c, str) and c for c in index_columns
    ):
        raise _fail(path, "index_columns: must be a list of column names")
    column_order = own["column_order"] or column_order or "any"
    entries.extend(own["expectations"] or [])
    if columns:
        entries = _columns_expectations(columns, column_order, path) + entries

    specs = [_parse_expectation(raw, path) for raw in entries]
    seen: set[str] = set()
    for spec in specs:
        if spec.name in seen:
            raise _fail(path, f"duplicate expectation name {spec.name!r}")
        seen.add(spec.name)
    if not specs:
        raise _fail(path, "a suite needs at least one expectation")
    return SuiteSpec(
        name=str(name),
        table=table,
        path=path,
        group=group,
        description=" ".join(str(data.get("description") or "").split()),
        expectations=tuple(specs),
        index_columns=tuple(index_columns),
    )


def load_suites(
    expectations_dir: Path | None = None, select: list[str] | None = None
) -> list[SuiteSpec]:
    """Every suite under ``expectations_dir`` (raw first, then marts), optionally selected.

    ``select`` items are suite names (``raw.crsarena__votes``, ``conversations``), the groups
    ``raw`` / ``marts``, or shell patterns (``raw.cosrec__*``). An item matching nothing is
    an error, so a typo never validates nothing.
    """
    root = Path(expectations_dir or DEFAULT_EXPECTATIONS_DIR)
    if not root.is_dir():
        raise CsrwhError(f"expectations folder {root} does not exist")
    suites = [
        load_suite(path, root)
        for group in ("raw", "marts")
        for path in sorted((root / group).glob("*.yml"))
    ]
    names = [s.name for s in suites]
    if len(set(names)) != len(names):
        dupes = sorted({n for n in names if names.count(n) > 1})
        raise CsrwhError(f"duplicate suite names in {root}: {dupes}")
    if not select:
        return suites
    chosen: list[SuiteSpec] = []
    for item in select:
        matched = [
            s
            for s in suites
            if item == s.group or item == s.name or fnmatch.fnmatchcase(s.name, item)
        ]
        if not matched:
            raise CsrwhError(
                f"no expectation suite matches {item!r}",
                hint="suites: raw, marts, " + ", ".join(names[:5]) + ", ...",
            )
        chosen.extend(s for s in matched if s not in chosen)
    return [s for s in suites if s in chosen]


def to_gx_expectation(suite: SuiteSpec, spec: ExpectationSpec) -> Any:
    """Build the GX expectation object (imports GX)."""
    from great_expectations.expectations.registry import get_expectation_impl

    try:
        cls = get_expectation_impl(spec.type)
    except Exception as exc:  # GX raises its own ExpectationNotFoundError
        raise _fail(
            suite.path, f"expectation {spec.name!r}: unknown GX type {spec.type!r}"
        ) from exc
    why = spec.why.replace("$", "$$")
    try:
        # Data Docs render the description (a $-template over the kwargs) in place of GX's own
        # sentence: a built-in keeps that sentence ("Values for given compound columns must be
        # unique together: $column_list_0 $column_list_1") between its name and the reason.
        sentence = "" if spec.type == SQL_TYPE else _gx_sentence(cls, spec)
        return cls(
            **spec.kwargs,
            severity=spec.severity,
            description=f"[{spec.severity}] {spec.name}: {sentence}{why}",
            notes=f"**{spec.severity}** · `{spec.name}` — {spec.why}",
            meta={
                "name": spec.name,
                "severity": spec.severity,
                "why": spec.why,
                **({"why_sql": spec.why_sql} if spec.why_sql else {}),
            },
        )
    except Exception as exc:  # pydantic validation of kwargs
        raise _fail(
            suite.path, f"expectation {spec.name!r}: invalid kwargs for {spec.type}: {exc}"
        ) from exc


def _gx_sentence(cls: Any, spec: ExpectationSpec) -> str:
    """GX's own prescriptive sentence for a built-in, its parameters filled in ("Values for given
    compound columns must be unique together: source_path record_index. "); empty when GX
    renders none."""
    return _rendered_sentence(cls, json.dumps(spec.kwargs, sort_keys=True))


@functools.lru_cache(maxsize=1024)
def _rendered_sentence(cls: Any, kwargs_json: str) -> str:
    """:func:`_gx_sentence` once per expectation type and kwargs: GX renders through pydantic
    models it creates per parameter (~70 ms each), and most raw-table built-ins recur unchanged
    in every raw suite."""
    expectation = cls(**json.loads(kwargs_json))
    expectation.render()
    for content in expectation.rendered_content or []:
        if content.name == "atomic.prescriptive.summary":
            value = content.value
            params = {}
            for name, param in (value.params or {}).items():
                shown = param.get("value") if isinstance(param, dict) else param.value
                params[name] = ", ".join(map(str, shown)) if isinstance(shown, list) else str(shown)
            text = Template(str(value.template or "")).safe_substitute(params).strip()
            return f"{text.rstrip('.')}. ".replace("$", "$$") if text else ""
    return ""


def suite_digests(expectations_dir: Path | None = None) -> dict[str, str]:
    """sha256 of each suite as loaded (its table and expectations, shared ones included): a
    selective rebuild re-runs a suite whose digest changed since the published build."""
    import hashlib

    return {
        spec.name: hashlib.sha256(
            repr((spec.table, spec.expectations, spec.index_columns)).encode()
        ).hexdigest()
        for spec in load_suites(expectations_dir)
    }


def expectation_counts(expectations_dir: Path | None = None) -> dict[str, int]:
    """How many expectations (as loaded, shared ones once per suite) are built-in and how many
    SQL, by reason: ``{"built-in": n, "sql": m, "sql:cross-table": k, ...}``."""
    counts = {"built-in": 0, "sql": 0} | {f"sql:{reason}": 0 for reason in SQL_REASONS}
    for suite in load_suites(expectations_dir):
        for spec in suite.expectations:
            if spec.type == SQL_TYPE:
                counts["sql"] += 1
                counts[f"sql:{spec.why_sql}"] += 1
            else:
                counts["built-in"] += 1
    return counts


def counts_markdown(expectations_dir: Path | None = None) -> str:
    """The counts table of expectations/README.md (tests/unit/test_validate_suites.py checks the
    README holds exactly this; print it with ``python -m csrwh.gate.suites``)."""
    counts = expectation_counts(expectations_dir)
    total = counts["built-in"] + counts["sql"]
    lines = [
        (
            f"Of the {total} expectations as loaded (shared ones counted once per suite that "
            f"includes them), {counts['built-in']} are GX built-ins and {counts['sql']} SQL:"
        ),
        "",
        "| kind | `why_sql` | expectations | the rule |",
        "|---|---|---|---|",
        f"| built-in | | {counts['built-in']} | stated by a GX expectation type |",
    ]
    lines += [
        f"| SQL | `{reason}` | {counts[f'sql:{reason}']} | {text} |"
        for reason, text in SQL_REASONS.items()
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    print(counts_markdown())
