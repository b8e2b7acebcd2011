"""The unit folder's guards (tests/unit_guard.py, applied by tests/unit/conftest.py) are on while a
unit test runs, and name a unit test that asks for a built warehouse."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from types import SimpleNamespace

from unit_guard import BUILD_FIXTURES, UNIT, unit_items_that_build


def _item(folder: Path, *fixtures: str) -> SimpleNamespace:
    path = folder / "test_x.py"
    return SimpleNamespace(
        path=path, nodeid=f"{path.name}::test_y", fixturenames=["tmp_path", *fixtures]
    )


def test_a_unit_test_asking_for_a_warehouse_is_named() -> None:
    integration = UNIT.parent / "integration"
    items = [
        _item(UNIT, "sample_warehouse"),
        _item(UNIT / "fetch", "real_corpora", "tmp_path"),
        _item(UNIT, "duck"),
        _item(integration, "real_warehouse"),
    ]
    assert unit_items_that_build(items) == [
        "test_x.py::test_y (sample_warehouse)",
        "test_x.py::test_y (real_corpora)",
    ]
    assert {"sample_warehouse", "real_warehouse", "real_corpora"} <= BUILD_FIXTURES


def test_dbt_cannot_write_its_target_here() -> None:
    target = Path(os.environ["CSRWH_DBT_TARGET_PATH"])
    assert target.parent.is_file()  # so dbt's mkdir of target/logs fails, in any child too


def test_a_browser_started_here_fails() -> None:
    browser = shutil.which("chromium")
    assert browser is not None
    done = subprocess.run([browser, "--version"], capture_output=True, text=True, check=False)
    assert done.returncode == 1 and "tests/unit starts no browser" in done.stderr
