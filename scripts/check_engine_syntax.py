"""Reject DuckDB-only SQL in the SQL dbt runs: the same models and tests build
on DuckDB and on Spark, so engine-specific syntax lives in dispatched macros (macros/engine/,
`duckdb__`/`default__` and `spark__` implementations), never in models/**/*.sql, in the dbt tests
(tests/dbt/**/*.sql, singular tests and their macros) or in the project's other macros.

    python scripts/check_engine_syntax.py [folder ...]   # exit 1 and one line per finding

Without arguments it checks :data:`SCANNED`: models/, tests/dbt/ and macros/ except
macros/engine/ (the engine implementations). Jinja comments, SQL `--` comments and the text
inside single-quoted SQL literals are not checked (a JSONPath such as '$.a' is fine); what is
inside `{{ ... }}` is (a DuckDB lambda passed to a macro as a string is still DuckDB), except
that a Jinja index there (`bounds[0]`) is no SQL list index. In a file under a `macros` folder
the bodies of the dispatched implementations (`default__*`, `duckdb__*`, `spark__*` macros) and
the Jinja statements (`{% set parts = [] %}`) are not SQL either and are skipped. Models listed in
NOT_YET_PORTED are skipped: they are the ones still to port, and the list may only shrink.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: what a run without arguments checks (folders under the project root)
SCANNED = ("models", "tests/dbt", "macros")
#: where the engine implementations live: not checked
ENGINE_MACROS = "macros/engine"


def _word(pattern: str) -> re.Pattern[str]:
    """A keyword or type name, any case."""
    return re.compile(rf"\b{pattern}\b", re.IGNORECASE)


def _call(name: str) -> re.Pattern[str]:
    """A call of a function whose name matches ``name``, any case."""
    return re.compile(rf"\b{name}\s*\(", re.IGNORECASE)


_DUCKDB_ONLY_FUNCTIONS = (
    "regexp_split_to_array|string_split|regexp_matches|string_agg|array_to_string|flatten"
    "|epoch_ms|make_timestamp"
)

#: (pattern, what it is, the portable spelling)
FORBIDDEN: list[tuple[re.Pattern[str], str, str]] = [
    (re.compile(r"->>"), "JSON operator ->>", "json_text(expr, path)"),
    (re.compile(r"(?<![-=<])->(?!>)"), "JSON operator ->", "json_get(expr, path) / json_list"),
    (re.compile(r"::"), "cast operator ::", "cast(x as type)"),
    (_word("varchar"), "type varchar", "string (both engines) or dbt.type_string()"),
    (_word("hugeint"), "type hugeint", "bigint or decimal(38, 0)"),
    (re.compile(r"\bjson\s*\[\s*\]", re.IGNORECASE), "type json[]", "json_list(expr, path)"),
    (re.compile(r"\[\s*\]"), "list type []", "a dispatched macro"),
    (_call("list"), "aggregate list()", "agg_list_ordered / agg_distinct_sorted"),
    (_call(r"list_\w+"), "list_* function", "a dispatched macro (list_transform, ...)"),
    (_call("struct_pack"), "struct_pack()", "a dispatched macro"),
    (_call("unnest"), "unnest()", "unnest_join(list, alias, value, ordinal)"),
    (_word(r"with\s+ordinality"), "with ordinality", "unnest_join(..., ordinal)"),
    (_word("unpivot"), "unpivot", "a dispatched macro"),
    (
        _call(r"json_(?!text\b|get\b|list\b|array_length_at\b|object_text\b|to_text_array\b)\w+"),
        "json_* function",
        "the macros of macros/json.sql and macros/engine/",
    ),
    (_call("len"), "len()", "array_size(list)"),
    (_call("arg_(?:max|min)"), "arg_max/arg_min()", "the arg_min macro"),
    (_word("lambda"), "DuckDB lambda", "list_transform / a dispatched macro"),
    (
        _call(f"(?:{_DUCKDB_ONLY_FUNCTIONS})"),
        "DuckDB-only function",
        "regexp_split / split_on_char / regexp_contains / string_agg_ordered / list_join / flatten_lists",
    ),
    (
        re.compile(r"\bregexp_replace\s*\([^)]*'g'\s*\)", re.IGNORECASE),
        "regexp_replace(..., 'g')",
        "regexp_replace_all",
    ),
    (re.compile(r"\w\[\s*\d+\s*\]"), "list index [n] (0-based on Spark)", "array_at(list, n)"),
]

#: the patterns a Jinja expression's own syntax also matches: checked outside ``{{ ... }}`` only
_SQL_ONLY = frozenset({"list index [n] (0-based on Spark)"})

#: Models still to port to Spark (paths under models/); the check skips them. Only shrink it.
NOT_YET_PORTED: frozenset[str] = frozenset()

_JINJA_COMMENT = re.compile(r"\{#.*?#\}", re.DOTALL)
_JINJA_EXPRESSION = re.compile(r"\{\{.*?\}\}", re.DOTALL)
_JINJA_STATEMENT = re.compile(r"\{%.*?%\}", re.DOTALL)
#: a dispatched implementation's body: from its ``macro`` tag to its ``endmacro`` tag
_ENGINE_BODY = re.compile(
    r"\{%-?\s*macro\s+(?:default|duckdb|spark)__\w+\s*\(.*?\{%-?\s*endmacro\s*-?%\}", re.DOTALL
)
_SQL_COMMENT = re.compile(r"--[^\n]*")
_SQL_STRING = re.compile(r"'(?:[^']|'')*'")


def _blank(match: re.Match[str]) -> str:
    """Keep line breaks (so reported line numbers stay right), blank the rest."""
    return re.sub(r"[^\n]", " ", match.group(0))


def _strip(sql: str, macro_file: bool = False) -> str:
    sql = _JINJA_COMMENT.sub(_blank, sql)
    if macro_file:
        sql = _ENGINE_BODY.sub(_blank, sql)
        sql = _JINJA_STATEMENT.sub(_blank, sql)
    sql = _SQL_STRING.sub(lambda m: "'" + " " * (len(m.group(0)) - 2) + "'", sql)
    return _SQL_COMMENT.sub(_blank, sql)


_MACRO = re.compile(r"\{%-?\s*macro\s+(\w+)\s*\(")


def project_macros(root: Path = ROOT) -> frozenset[str]:
    """Names of this project's macros (a call such as json_text_list(...) is not a DuckDB function)."""
    return frozenset(
        name
        for path in (root / "macros").rglob("*.sql")
        for name in _MACRO.findall(path.read_text(encoding="utf-8"))
    )


def findings(path: Path, root: Path | None = None) -> list[str]:
    """One 'file:line: construct (use ...)' line per DuckDB-only construct in a dbt SQL file
    (a model, a dbt test, a macro); names relative to ``root`` (default :data:`ROOT`)."""
    root = ROOT if root is None else root
    text = _strip(path.read_text(encoding="utf-8"), macro_file="macros" in path.parts)
    sql_only = _JINJA_EXPRESSION.sub(_blank, text)
    name = path.relative_to(root) if path.is_relative_to(root) else path
    macros = project_macros(root)
    found = []
    for number, (line, sql_line) in enumerate(
        zip(text.splitlines(), sql_only.splitlines(), strict=True), start=1
    ):
        for pattern, what, instead in FORBIDDEN:
            for match in pattern.finditer(sql_line if what in _SQL_ONLY else line):
                called = re.match(r"\w+", match.group(0))
                if called and called.group(0) in macros:
                    continue
                found.append(f"{name}:{number}: DuckDB-only {what} in dbt SQL (use {instead})")
                break
    return found


def check(folder: Path, root: Path | None = None) -> list[str]:
    """The findings of every ``*.sql`` under ``folder`` but macros/engine/ and NOT_YET_PORTED."""
    root = ROOT if root is None else root
    found = []
    engine = (root / ENGINE_MACROS).resolve()
    for path in sorted(folder.rglob("*.sql")):
        if path.resolve().is_relative_to(engine):
            continue
        if path.relative_to(folder).as_posix() in NOT_YET_PORTED:
            continue
        found.extend(findings(path, root))
    return found


def main(argv: list[str]) -> int:
    folders = [Path(arg) for arg in argv] if argv else [ROOT / name for name in SCANNED]
    found = [line for folder in folders for line in check(folder.resolve())]
    for line in found:
        print(line)
    if found:
        print(
            f"{len(found)} DuckDB-only construct(s) in {', '.join(str(f) for f in folders)}: "
            "put them behind a dispatched macro (macros/engine/) so it builds on Spark too",
            file=sys.stderr,
        )
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
