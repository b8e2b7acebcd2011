"""Every figure the docs state about the real corpora -- the query cookbook's answers
(docs/cookbook.md), the data-quality warnings and the known data quirks (docs/data-quality.md),
wherever the markers are -- equals what a build of ../shared/corpora gives (scripts/cookbook.py
renders them; `--update-docs` after an intended change), and the warnings table lists exactly
the warnings that build reports."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest
from docs_text import doc_section

from csrwh.config import PROJECT_ROOT

pytestmark = pytest.mark.integration


def cookbook():
    spec = importlib.util.spec_from_file_location(
        "cookbook", PROJECT_ROOT / "scripts" / "cookbook.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_readme_figures_agree_with_the_real_warehouse(real_warehouse: Path) -> None:
    c = cookbook()
    assert c.differences(c.marked_pages(), real_warehouse) == []


def test_warnings_table_lists_the_warnings_of_the_real_corpora(real_warehouse: Path) -> None:
    """Each warning expectation (expectations/) that flags rows of the real corpora -- what
    the build's gate reports -- is one row of the table, and no other."""
    _, section = doc_section("Data-quality warnings on the real corpora")
    listed = set(re.findall(r"^\| `([\w.]+) › (\w+)` \|", section, re.MULTILINE))
    assert listed == cookbook().flagged_warnings(real_warehouse)
