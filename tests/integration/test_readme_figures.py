"""scripts/cookbook.py renders every figure the docs state about the real corpora
(docs/readme_figures.sql, ``<!--fig:NAME-->value<!--/fig-->`` in whichever page of README.md
and docs/ holds it) and the query cookbook (docs/cookbook.md); its check lists each figure a
page states differently. On the sample: every figure query gives one value, pages rendered from
a warehouse agree with it, and a changed figure or cookbook answer is caught.
tests/integration/test_readme_figures_real.py checks the pages themselves against a build of
the real corpora."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from docs_text import ROOT, all_doc_texts

from csrwh.config import PROJECT_ROOT


def cookbook():
    spec = importlib.util.spec_from_file_location(
        "cookbook", PROJECT_ROOT / "scripts" / "cookbook.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_figure_is_defined_and_used() -> None:
    c = cookbook()
    pages = c.marked_pages()
    # the script finds every page with a marker that the tests' reader of the docs sees
    texts = {p.relative_to(ROOT).as_posix(): t for p, t in all_doc_texts().items()}
    assert set(pages) == {p for p, t in texts.items() if c.BEGIN in t or c.FIGURE.search(t)}
    assert len([p for p, t in pages.items() if c.BEGIN in t]) == 1  # one cookbook
    defined = [name for name, _ in c.load_queries(c.FIGURES, marker="figure")]
    used = [name for text in pages.values() for name, _ in c.FIGURE.findall(text)]
    assert len(defined) == len(set(defined))
    assert set(used) == set(defined)
    # figures once found stale are rendered, not typed
    for stale in ("13 files", "| 2 | CRSArena", "4,101 of 15,150"):
        assert not [p for p, t in texts.items() if stale in t], stale


def test_check_catches_a_figure_or_answer_the_warehouse_does_not_give(
    sample_warehouse: Path,
) -> None:
    c = cookbook()
    figures = c.render_figures(sample_warehouse)
    assert all(isinstance(v, str) and v for v in figures.values())
    answers = c.render(sample_warehouse)
    rendered = {page: c.updated(text, answers, figures) for page, text in c.marked_pages().items()}
    assert c.differences(rendered, sample_warehouse) == []
    name = "vote_records"
    marked = f"<!--fig:{name}-->{figures[name]}<!--/fig-->"
    (page,) = [p for p, text in rendered.items() if marked in text]
    wrong = {
        **rendered,
        page: rendered[page].replace(marked, f"<!--fig:{name}-->999,999<!--/fig-->"),
    }
    assert c.differences(wrong, sample_warehouse) == [
        f"{page}: figure {name} says '999,999', the warehouse {figures[name]!r}"
    ]
    (book,) = [p for p, text in rendered.items() if c.BEGIN in text]
    text = rendered[book]
    answer = text.index("| ", text.index(c.BEGIN))  # the first table's header row
    stale = {**rendered, book: text[:answer] + "| stale " + text[answer + 2 :]}
    assert c.differences(stale, sample_warehouse) == [
        f"{book}: the query cookbook's answers differ (scripts/cookbook.py --update-docs)"
    ]
    assert c.figure_text(4101) == "4,101" and c.figure_text("crsarena 2") == "crsarena 2"
