"""What keeps tests/unit free of dbt, builds and browsers (tests/unit/conftest.py applies it):
the fixtures that mean a built warehouse or the real corpora, and the environment in which a real
dbt run or a browser fails at once."""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

import pytest

BUILD_FIXTURES = frozenset(
    {
        "sample_warehouse",
        "real_warehouse",
        "warehouse_copy",
        "real_corpora",
        "isolated_dbt_target",
        "judgments",
    }
)
UNIT = Path(__file__).resolve().parent / "unit"
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def unit_items_that_build(items: list[pytest.Item]) -> list[str]:
    """The unit tests among ``items`` that use a fixture of ``BUILD_FIXTURES``, with the fixture."""
    out = []
    for item in items:
        if UNIT not in Path(str(item.path)).resolve().parents:
            continue
        used = sorted(BUILD_FIXTURES & set(item.fixturenames))
        if used:
            out.append(f"{item.nodeid} ({', '.join(used)})")
    return out


@contextlib.contextmanager
def no_dbt_and_no_browser(root: Path):
    """Point dbt's target folder under a regular file and put failing browsers first on PATH
    (files in ``root``); both put back as they were after."""
    blocker = root / "not-a-folder"
    blocker.write_text("tests/unit runs no dbt\n", encoding="utf-8")
    shims = root / "bin"
    shims.mkdir()
    for name in BROWSERS:
        shim = shims / name
        shim.write_text("#!/bin/sh\necho 'tests/unit starts no browser' >&2\nexit 1\n")
        shim.chmod(shim.stat().st_mode | stat.S_IXUSR)
    saved = {key: os.environ.get(key) for key in ("CSRWH_DBT_TARGET_PATH", "PATH")}
    os.environ["CSRWH_DBT_TARGET_PATH"] = str(blocker / "target")
    os.environ["PATH"] = f"{shims}{os.pathsep}{os.environ.get('PATH', '')}"
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
