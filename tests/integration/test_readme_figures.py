"""scripts/cookbook.py renders every figure the README states about the real corpora
(docs/readme_figures.sql, ``<!--fig:NAME-->value<!--/fig-->`` in README.md) and the query
cookbook; its check lists each figure the README states differently. On the sample: every
figure query gives one value, a README rendered from a warehouse agrees with it, and a changed
figure or cookbook answer is caught. tests/integration/test_readme_figures_real.py checks the
README itself against a build of the real corpora."""

from __future__ import annotations

import importlib.util
from pathlib import Path

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
    readme = (PROJECT_ROOT / "README.md").read_text(encoding="utf-8")
    defined = [name for name, _ in c.load_queries(c.FIGURES, marker="figure")]
    used = [name for name, _ in c.FIGURE.findall(readme)]
    assert len(defined) == len(set(defined))
    assert set(used) == set(defined)
    # the figures the issue found stale are rendered, not typed
    for stale in ("13 files", "| 2 | CRSArena", "4,101 of 15,150"):
        assert stale not in readme


def test_check_catches_a_figure_or_answer_the_warehouse_does_not_give(
    sample_warehouse: Path,
) -> None:
    c = cookbook()
    readme = (PROJECT_ROOT / "README.md").read_text(encoding="utf-8")
    figures = c.render_figures(sample_warehouse)
    assert all(isinstance(v, str) and v for v in figures.values())
    rendered = c.updated(readme, c.render(sample_warehouse), figures)
    assert c.differences(rendered, sample_warehouse) == []
    name = "vote_records"
    wrong = rendered.replace(
        f"<!--fig:{name}-->{figures[name]}<!--/fig-->", f"<!--fig:{name}-->999,999<!--/fig-->"
    )
    assert c.differences(wrong, sample_warehouse) == [
        f"figure {name}: README says '999,999', the warehouse {figures[name]!r}"
    ]
    start = rendered.index(c.BEGIN) + len(c.BEGIN)
    answer = rendered.index("| ", start)  # the first table's header row
    stale = rendered[:answer] + "| stale " + rendered[answer + 2 :]
    assert c.differences(stale, sample_warehouse) == [
        "the query cookbook's answers differ (scripts/cookbook.py --update-readme)"
    ]
    assert c.figure_text(4101) == "4,101" and c.figure_text("crsarena 2") == "crsarena 2"
