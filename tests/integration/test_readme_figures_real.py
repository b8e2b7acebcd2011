"""Every figure README.md states about the real corpora -- the query cookbook's answers, the
data-quality warnings and the known data quirks -- equals what a build of ../shared/corpora
gives (scripts/cookbook.py renders them; `--update-readme` after an intended change), and the
warnings table lists exactly the warnings that build reports."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

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
    readme = (PROJECT_ROOT / "README.md").read_text(encoding="utf-8")
    assert cookbook().differences(readme, real_warehouse) == []


def test_warnings_table_lists_the_warnings_of_the_real_corpora(real_warehouse: Path) -> None:
    """Each warning expectation (expectations/) that flags rows of the real corpora -- what
    the build's gate reports -- is one row of the table, and no other."""
    readme = (PROJECT_ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n## Data-quality warnings on the real corpora\n", 1)[1]
    listed = set(
        re.findall(r"^\| `([\w.]+) › (\w+)` \|", section.split("\n## ", 1)[0], re.MULTILINE)
    )
    assert listed == cookbook().flagged_warnings(real_warehouse)
