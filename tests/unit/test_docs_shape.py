"""The shape of the project's prose: README.md is a map (short, short lines), BENCHMARKS.md opens
with the current results, no issue numbers or work-log rounds in the docs and the code, and each
module says what it is for in a few lines (the long design notes live in docs/internals.md)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from csrwh.config import PROJECT_ROOT

README_MAX_LINES = 300
PROSE_MAX_CHARS = 200
DOCSTRING_MAX_LINES = 12
#: "issue 26", "issues 23 and 26", "(issue 14, item 5)"; "the fifth session", "round 2". Upstream
#: bug trackers are cited with a "#" (GX issues #10738/#11579), which this does not match; a
#: range ("round 1..3") is data, not a work-log round.
DIARY = re.compile(
    r"\bissues? \d+|\b(?:second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth) session\b"
    r"|\bround \d+\b(?!\.\.)",
    re.IGNORECASE,
)
CODE_DIRS = ("csrwh", "ingest", "models", "macros")
CODE_SUFFIXES = {".py", ".sql", ".yml", ".yaml", ".toml", ".md"}


def prose_lines(text: str) -> list[tuple[int, str]]:
    """(line number, line) of the Markdown lines outside fenced code blocks and tables."""
    out, fenced = [], False
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if not fenced and not line.lstrip().startswith("|"):
            out.append((number, line))
    return out


def diary_lines(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8", errors="replace")
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        if DIARY.search(line):
            found.append(f"{path.relative_to(PROJECT_ROOT)}:{number}: {line.strip()[:120]}")
    return found


def test_prose_checks_catch_what_they_are_for() -> None:
    text = "# T\n```\n" + "x" * 300 + "\n```\n| " + "y" * 300 + " |\n" + "z" * 201 + "\n"
    assert [n for n, line in prose_lines(text) if len(line) > PROSE_MAX_CHARS] == [6]
    for diary in ("as issue 26 measured", "(issues 23 and 26)", "the fifth session", "Round 2"):
        assert DIARY.search(diary), diary
    for fine in ("the next session", "GX issues #10738/#11579", "Round 1..3", "rounded"):
        assert not DIARY.search(fine), fine


def test_readme_is_a_map() -> None:
    text = (PROJECT_ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= README_MAX_LINES
    long = [f"README.md:{n}" for n, line in prose_lines(text) if len(line) > PROSE_MAX_CHARS]
    assert long == [], "prose lines over 200 characters (move the detail to docs/)"


def test_benchmarks_opens_with_the_current_results() -> None:
    text = (PROJECT_ROOT / "BENCHMARKS.md").read_text(encoding="utf-8")
    first_table = text.index("\n| ")
    assert first_table < text.index("\n### "), "the results table comes before the sections"
    header = text[first_table + 1 :].splitlines()[0]
    assert [c.strip() for c in header.strip("|").split("|")] == [
        "what",
        "target",
        "figure (latest)",
        "command",
        "date",
        "commit",
    ]


def _prose_files() -> list[Path]:
    files = [PROJECT_ROOT / "README.md", PROJECT_ROOT / "BENCHMARKS.md"]
    files += sorted((PROJECT_ROOT / "docs").rglob("*.md"))
    for folder in CODE_DIRS:
        files += sorted(
            p
            for p in (PROJECT_ROOT / folder).rglob("*")
            if p.suffix in CODE_SUFFIXES and p.is_file()
        )
    return files


def test_no_issue_numbers_or_work_log_rounds() -> None:
    found = [line for path in _prose_files() for line in diary_lines(path)]
    assert found == [], "say what the code or figure is, not which issue or session made it"


def _modules() -> list[Path]:
    return sorted(
        p for folder in ("csrwh", "ingest", "models") for p in (PROJECT_ROOT / folder).rglob("*.py")
    )


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PROJECT_ROOT)))
def test_module_docstrings_are_short(path: Path) -> None:
    docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")), clean=False) or ""
    assert len(docstring.splitlines()) <= DOCSTRING_MAX_LINES, (
        "move the detail to docs/internals.md"
    )
