"""Run the README's query cookbook (docs/cookbook.sql) against a warehouse and print the
answers as Markdown; `--update-readme` rewrites the README section between the markers.

    .venv/bin/python scripts/cookbook.py --warehouse warehouse/csr.duckdb [--update-readme]
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import duckdb

ROOT = Path(__file__).resolve().parents[1]
COOKBOOK = ROOT / "docs" / "cookbook.sql"
BEGIN, END = "<!-- cookbook:begin -->", "<!-- cookbook:end -->"


def load_queries(path: Path = COOKBOOK) -> list[tuple[str, str]]:
    """(title, sql) pairs: each query starts with a `-- name: <title>` line."""
    parts = re.split(r"^-- name: (.+)$", path.read_text("utf-8"), flags=re.MULTILINE)
    return [(parts[i].strip(), parts[i + 1].strip().rstrip(";")) for i in range(1, len(parts), 2)]


def to_markdown(columns: list[str], rows: list[tuple]) -> str:
    def cell(value) -> str:
        return "" if value is None else str(value)

    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def render(warehouse: Path) -> str:
    out = []
    with duckdb.connect(str(warehouse), read_only=True) as con:
        for title, sql in load_queries():
            cursor = con.execute(sql)
            columns = [d[0] for d in cursor.description]
            rows = cursor.fetchall()
            out.append(f"**{title}**\n\n```sql\n{sql};\n```\n\n{to_markdown(columns, rows)}\n")
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--warehouse", type=Path, required=True)
    parser.add_argument("--update-readme", action="store_true")
    args = parser.parse_args()
    text = render(args.warehouse)
    if not args.update_readme:
        print(text)
        return
    readme = ROOT / "README.md"
    content = readme.read_text("utf-8")
    start, stop = content.index(BEGIN) + len(BEGIN), content.index(END)
    readme.write_text(content[:start] + "\n" + text + content[stop:], "utf-8")


if __name__ == "__main__":
    main()
