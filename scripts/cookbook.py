"""Render every figure the docs state about the real corpora from a warehouse: the query
cookbook (docs/cookbook.sql, its answers as Markdown between the cookbook markers, in
docs/cookbook.md) and the figures in the text (docs/readme_figures.sql; each written
``<!--fig:NAME-->value<!--/fig-->``, today in docs/data-quality.md). The pages are found by
their markers: README.md or any docs/**/*.md. ``--update-docs`` (alias ``--update-readme``)
rewrites them in every page that holds them; ``--check`` prints every figure a page states
differently and exits 1.

    .venv/bin/python scripts/cookbook.py --warehouse warehouse/csr.duckdb [--update-docs | --check]

tests/integration/test_readme_figures_real.py runs the check on a build of ../shared/corpora.
"""

from __future__ import annotations

import argparse
import functools
import json
import re
import sys
from collections.abc import Mapping
from pathlib import Path

import duckdb

ROOT = Path(__file__).resolve().parents[1]
COOKBOOK = ROOT / "docs" / "cookbook.sql"
FIGURES = ROOT / "docs" / "readme_figures.sql"
README = ROOT / "README.md"
DOCS = ROOT / "docs"
BEGIN, END = "<!-- cookbook:begin -->", "<!-- cookbook:end -->"
FIGURE = re.compile(r"<!--fig:([a-z0-9_]+)-->(.*?)<!--/fig-->")


def doc_pages() -> list[Path]:
    """README.md and every page under docs/, in a stable order."""
    return [README, *sorted(DOCS.rglob("*.md"))]


def marked_pages() -> dict[str, str]:
    """Relative path -> text of every page that holds a figure or the cookbook markers."""
    out = {}
    for path in doc_pages():
        text = path.read_text("utf-8")
        if BEGIN in text or FIGURE.search(text):
            out[path.relative_to(ROOT).as_posix()] = text
    return out


def load_queries(path: Path = COOKBOOK, marker: str = "name") -> list[tuple[str, str]]:
    """(title, sql) pairs: each query starts with a `-- <marker>: <title>` line."""
    parts = re.split(rf"^-- {marker}: (.+)$", path.read_text("utf-8"), flags=re.MULTILINE)
    return [(parts[i].strip(), parts[i + 1].strip().rstrip(";")) for i in range(1, len(parts), 2)]


def to_markdown(columns: list[str], rows: list[tuple]) -> str:
    def cell(value) -> str:  # one line, a pipe escaped (agreement subjects hold `|`)
        return "" if value is None else " ".join(str(value).split()).replace("|", "\\|")

    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def render(warehouse: Path) -> str:
    """The cookbook section: every query with its answer."""
    out = []
    with duckdb.connect(str(warehouse), read_only=True) as con:
        for title, sql in load_queries():
            cursor = con.execute(sql)
            columns = [d[0] for d in cursor.description]
            rows = cursor.fetchall()
            out.append(f"**{title}**\n\n```sql\n{sql};\n```\n\n{to_markdown(columns, rows)}\n")
    return "\n".join(out)


def figure_text(value) -> str:
    """An integer with thousands separators (4,101); anything else as text."""
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


FLAGGED = re.compile(r"\{flagged:([\w.]+):(\w+)\}")


@functools.cache
def _flagging() -> dict[tuple[str, str], tuple[str | None, str]]:
    """(suite, expectation) -> (the query of the rows it flags, or None for a GX built-in, and
    its severity), for every expectation of expectations/ as the gate reads them
    (csrwh.gate.suites)."""
    from csrwh.gate.suites import SQL_TYPE, load_suites

    return {
        (suite.name, spec.name): (
            spec.kwargs["unexpected_rows_query"].replace("{batch}", suite.table)
            if spec.type == SQL_TYPE
            else None,
            spec.severity,
        )
        for suite in load_suites()
        for spec in suite.expectations
    }


@functools.cache
def _gate(warehouse: Path):
    """The gate's validation of ``warehouse`` (read-only, nothing recorded), for the suites
    that hold a warning: the warnings it reports, and the rows each failed built-in names."""
    from csrwh.gate.run import validate

    suites = sorted(
        {suite for (suite, _), (_, severity) in _flagging().items() if severity == "warning"}
    )
    return validate(
        warehouse,
        "cookbook",
        suites=suites,
        data_docs_dir=None,
        record=False,
        named_rows_limit=10**9,  # every row GX names, not the gate's first five
    )


def flagged_sql(suite: str, expectation: str, warehouse: Path) -> str:
    """The rows ``expectation`` of ``suite`` flags, as a parenthesised query: an SQL
    expectation's own query, or the rows a built-in names in the gate's validation (its suite's
    index_columns and the column, as text)."""
    if (suite, expectation) not in _flagging():
        raise SystemExit(f"{FIGURES}: no expectation {suite}:{expectation}")
    query = _flagging()[suite, expectation][0]
    if query is not None:
        return f"({query.strip().rstrip(';')})"
    from csrwh.gate.suites import load_suites

    (spec,) = load_suites(select=[suite])
    column = next(e for e in spec.expectations if e.name == expectation).kwargs.get("column")
    columns = [*spec.index_columns, *([column] if column else [])]
    outcome = next(
        (o for o in _gate(warehouse).outcomes if (o.suite, o.expectation) == (suite, expectation)),
        None,
    )
    if outcome is None:
        raise SystemExit(f"{FIGURES}: {suite}:{expectation} is in no suite with a warning")
    rows = json.dumps(outcome.named_rows or []).replace("'", "''")
    select = ", ".join(f"r ->> '{c}' as \"{c}\"" for c in columns) or "r"
    return f"(select {select} from (select unnest(from_json('{rows}', '[\"json\"]')) as r))"


def flagged_warnings(warehouse: Path) -> set[tuple[str, str]]:
    """(suite, expectation) of every warning that flags rows in ``warehouse``: the warnings its
    gate reports, SQL and built-in alike."""
    return {(o.suite, o.expectation) for o in _gate(warehouse).warnings}


def render_figures(warehouse: Path) -> dict[str, str]:
    """name -> the figure's text, from docs/readme_figures.sql (one value per query)."""
    queries = [
        (name, FLAGGED.sub(lambda m: flagged_sql(m[1], m[2], warehouse), sql))
        for name, sql in load_queries(FIGURES, marker="figure")
    ]  # before opening the warehouse: the gate's validation opens it with its own settings
    out = {}
    with duckdb.connect(str(warehouse), read_only=True) as con:
        for name, sql in queries:
            rows = con.execute(sql).fetchall()
            if len(rows) != 1 or len(rows[0]) != 1:
                raise SystemExit(f"{FIGURES}: figure {name} gives {len(rows)} rows, not one value")
            out[name] = figure_text(rows[0][0])
    return out


def updated(text: str, cookbook: str, figures: dict[str, str]) -> str:
    """``text`` (one page) with the cookbook section, if it holds one, and every marked figure
    rendered."""
    used = {name for name, _ in FIGURE.findall(text)}
    unknown = sorted(used - set(figures))
    if unknown:
        raise SystemExit(f"the docs name figures {FIGURES.name} does not define: {unknown}")
    if BEGIN in text:
        start, stop = text.index(BEGIN) + len(BEGIN), text.index(END)
        text = text[:start] + "\n" + cookbook + text[stop:]
    return FIGURE.sub(lambda m: f"<!--fig:{m[1]}-->{figures[m[1]]}<!--/fig-->", text)


def differences(pages: Mapping[str, str], warehouse: Path) -> list[str]:
    """What the pages (relative path -> text) state differently from the warehouse: one line
    per figure, and the cookbook section as a whole."""
    cookbook, figures = render(warehouse), render_figures(warehouse)
    out = [
        f"{page}: figure {name} says {stated!r}, the warehouse {figures.get(name)!r}"
        for page, text in pages.items()
        for name, stated in FIGURE.findall(text)
        if figures.get(name) != stated
    ]
    holders = [page for page, text in pages.items() if BEGIN in text]
    if not holders:
        out.append(f"no page holds the query cookbook ({BEGIN} ... {END})")
    for page in holders:
        text = pages[page]
        start, stop = text.index(BEGIN) + len(BEGIN), text.index(END)
        if text[start:stop] != "\n" + cookbook:
            out.append(
                f"{page}: the query cookbook's answers differ (scripts/cookbook.py --update-docs)"
            )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    parser.add_argument("--warehouse", type=Path, required=True)
    action = parser.add_mutually_exclusive_group()
    action.add_argument(
        "--update-docs",
        "--update-readme",
        dest="update",
        action="store_true",
        help="rewrite the cookbook and the figures in every page that holds them",
    )
    action.add_argument("--check", action="store_true")
    args = parser.parse_args()
    pages = marked_pages()
    if args.check:
        found = differences(pages, args.warehouse)
        print("\n".join(found) or f"{', '.join(pages)} agree with the warehouse")
        sys.exit(1 if found else 0)
    cookbook = render(args.warehouse)
    if not args.update:
        print(cookbook)
        for name, text in render_figures(args.warehouse).items():
            print(f"{name}: {text}")
        return
    figures = render_figures(args.warehouse)
    for page, text in pages.items():
        new = updated(text, cookbook, figures)
        if new != text:
            (ROOT / page).write_text(new, "utf-8")
            print(f"updated {page}")


if __name__ == "__main__":
    main()
