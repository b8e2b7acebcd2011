"""The import contracts in pyproject.toml (import-linter, run by ``make lint``): they hold on the
tree, and each one fails when a copy of the tree breaks it."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from csrwh.config import PROJECT_ROOT

LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def _lint_imports(root: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", "--config", str(PROJECT_ROOT / "pyproject.toml")],
        capture_output=True,
        text=True,
        cwd=root,
        env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"},
        check=False,
    )


def _copy_tree(tmp_path: Path) -> Path:
    for package in ("csrwh", "ingest"):
        shutil.copytree(
            PROJECT_ROOT / package,
            tmp_path / package,
            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"),
        )
    return tmp_path


def test_the_tree_keeps_every_contract() -> None:
    done = _lint_imports(PROJECT_ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


@pytest.mark.parametrize(
    ("module", "line", "broken"),
    [
        # a reader reaching into the build
        ("csrwh/reading/api.py", "from csrwh.pipeline import build", "the read side imports"),
        # ingest importing csrwh
        ("ingest/registry.py", "import csrwh.config", "form layers"),
        # what dbt loads importing the pipeline above it
        ("csrwh/dbt_support/udfs.py", "def later():\n    import csrwh.pipeline.run", "form layers"),
        # two pipeline modules importing each other (inside a function too)
        (
            "csrwh/pipeline/paths.py",
            "def later():\n    from csrwh.pipeline import run",
            "no import cycle",
        ),
    ],
)
def test_a_broken_contract_fails(tmp_path: Path, module: str, line: str, broken: str) -> None:
    root = _copy_tree(tmp_path)
    with open(root / module, "a", encoding="utf-8") as fh:
        fh.write(f"\n\n{line}\n")
    done = _lint_imports(root)
    assert done.returncode == 1, done.stdout + done.stderr
    broken_lines = [ln for ln in done.stdout.splitlines() if ln.endswith(" BROKEN")]
    assert any(broken in ln for ln in broken_lines), done.stdout
