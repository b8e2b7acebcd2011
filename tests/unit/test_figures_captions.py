"""Captions quote published values from ``notebooks/published_figures/<corpus>.csv``, never a
copy of the number in code (issue 27 item 1)."""

from __future__ import annotations

import ast
import csv
import re
import shutil
from pathlib import Path

import pytest

from csrwh.config import PROJECT_ROOT
from csrwh.reading.figures import published
from csrwh.reading.figures.render import crsarena as crsarena_render

#: the code that shows published figures: the notebook, the figures and the report
SHOWN_BY = ("notebooks/statistics.py", "csrwh/reading/figures", "csrwh/reading/report")


def _sources() -> list[Path]:
    out = []
    for rel in SHOWN_BY:
        path = PROJECT_ROOT / rel
        out += sorted(path.rglob("*.py")) if path.is_dir() else [path]
    return out


def _strings(tree: ast.AST) -> list[str]:
    """Every string literal of a module but its docstrings."""
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                docstrings.add(id(body[0].value))
    parts = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if id(node) not in docstrings:
                parts.append(node.value)
        elif isinstance(node, ast.JoinedStr):
            parts.append("".join(v.value for v in node.values if isinstance(v, ast.Constant)))
    return parts


def test_no_text_of_the_code_repeats_a_published_value() -> None:
    """A string that speaks of a published value holds no number printed in the CSV (at 2 or
    more decimals: layout constants such as 0.5 are not figures)."""
    values = {
        f"{float(r['published']):.{int(r['precision'])}f}"
        for r in published.load_published()
        if int(r["precision"]) >= 2
    }
    copies = []
    for path in _sources():
        for text in _strings(ast.parse(path.read_text(encoding="utf-8"))):
            if "published" not in text.lower():
                continue
            for number in re.findall(r"(?<![\d.])\d+\.\d{2,}(?!\d)", text):
                if number in values:
                    copies.append(f"{path.relative_to(PROJECT_ROOT)}: {number} in {text[:80]!r}")
    assert copies == []


@pytest.fixture()
def changed_csv(tmp_path: Path, monkeypatch) -> Path:
    """A copy of the published figures with CRSArena's Distinct-2 and open/closed Elo
    correlations changed, read instead of the real ones."""
    folder = tmp_path / "published_figures"
    shutil.copytree(published.PUBLISHED_DIR, folder)
    path = folder / "crsarena.csv"
    with open(path, encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    new = {
        "crsarena.distinct2.open": "0.111",
        "crsarena.distinct2.closed": "0.222",
        "crsarena.corr.elo.pearson": "0.333",
        "crsarena.corr.elo.spearman": "0.444",
    }
    for row in rows:
        row["published"] = new.get(row["figure_id"], row["published"])
    with open(path, "w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=published.COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    monkeypatch.setattr(published, "PUBLISHED_DIR", folder)
    return folder


def test_the_captions_follow_the_csv(changed_csv: Path) -> None:
    assert "published Distinct-2: open 0.111, closed 0.222)" in crsarena_render.diversity_intro()
    caption = crsarena_render.correlation_caption()
    assert "(published: Elo 0.333 / 0.444, satisfaction " in caption
    assert published.published_values("crsarena", "crsarena.distinct2.") == {
        "crsarena.distinct2.open": 0.111,
        "crsarena.distinct2.closed": 0.222,
    }


def test_the_captions_quote_the_real_csv_at_its_precision() -> None:
    text = published.published_texts("crsarena", "crsarena.corr.elo.")
    assert f"(published: Elo {text['crsarena.corr.elo.pearson']} / " in (
        crsarena_render.correlation_caption()
    )
    assert all(re.fullmatch(r"-?\d\.\d{3}", v) for v in text.values()), text
