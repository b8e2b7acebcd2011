"""The project's Markdown as tests read it: README.md and every page under docs/. Tests that run
a documented example find its section by heading, wherever the section lives, so moving a
section from one page to another does not break them -- renaming its heading does, with a
message naming the heading. (A module with its own name, imported as ``from docs_text import
...``, like shared_corpora.)"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_HEADING = re.compile(r"^(#{1,6}) +(.+?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")


def doc_paths() -> list[Path]:
    """README.md and every ``docs/**/*.md``, in a stable order."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def all_doc_texts() -> dict[Path, str]:
    """Path -> text of README.md and every page under docs/."""
    return {path: path.read_text(encoding="utf-8") for path in doc_paths()}


def headings(text: str) -> list[tuple[int, int, str]]:
    """(line index, level, title) of every ATX heading outside fenced code blocks (a ``#``
    comment in a bash block is no heading)."""
    out, fenced = [], False
    for i, line in enumerate(text.split("\n")):
        if _FENCE.match(line):
            fenced = not fenced
            continue
        match = None if fenced else _HEADING.match(line)
        if match:
            out.append((i, len(match.group(1)), match.group(2)))
    return out


def doc_section(heading: str) -> tuple[Path, str]:
    """(page, body) of the one section titled ``heading`` (``"Run evaluation"``; leading
    ``#`` are ignored, so ``"## Run evaluation"`` works too) in README.md or a docs page: the
    lines after the heading up to the next heading of the same or a higher level (its
    subsections included). Exactly one section must have that title."""
    title = heading.lstrip("#").strip()
    found = []
    for path, text in all_doc_texts().items():
        lines = text.split("\n")
        marks = headings(text)
        for n, (index, level, name) in enumerate(marks):
            if name != title:
                continue
            stop = next((i for i, lv, _ in marks[n + 1 :] if lv <= level), len(lines))
            found.append((path, "\n".join(lines[index + 1 : stop])))
    where = [str(path.relative_to(ROOT)) for path, _ in found]
    assert len(found) == 1, (
        f"expected one section titled {title!r} in README.md or docs/**/*.md, found "
        f"{len(found)}{': ' + ', '.join(where) if where else ''} (a test runs its examples: "
        "keep the heading, or change the test with it)"
    )
    return found[0]


def code_blocks(section: str, language: str) -> list[str]:
    """The ```` ```language ```` blocks of ``section``, in order, without their fences."""
    return re.findall(rf"^```{re.escape(language)}\n(.*?)^```", section, re.DOTALL | re.MULTILINE)
