"""dbt_runner hands freed memory back to the system (after each heavy model:
test_dbt_python_models_serial.py; after dbt)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from csrwh.pipeline import dbt_runner


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS in /proc/self/status")


@pytest.mark.skipif(
    not sys.platform.startswith("linux") or dbt_runner._malloc_trim() is None,
    reason="glibc's malloc_trim and /proc are Linux-only",
)
def test_freed_heap_goes_back_to_the_system() -> None:
    # 3000 blocks of 64 KiB (below malloc's mmap threshold: they live in the heap); keeping
    # every tenth leaves the freed ones in the middle of the heap, where free() keeps them
    blocks = [bytes(64 * 1024) for _ in range(3000)]
    kept = blocks[::10]
    del blocks
    before = _rss_mb()
    dbt_runner.return_freed_memory()
    after = _rss_mb()
    assert len(kept) == 300
    assert before - after > 100, f"RSS {before:.0f} MB -> {after:.0f} MB"


def test_dbt_duckdb_hands_its_allocators_freed_memory_back_in_the_background() -> None:
    # after int_turn_text_measures DuckDB's allocator kept ~270 MB it had freed, under
    # text_diversity's peak (issue 26): the build's profile turns its background purge on
    import duckdb
    import yaml

    from csrwh.config import PROJECT_ROOT

    profile = yaml.safe_load((PROJECT_ROOT / "profiles" / "profiles.yml").read_text())
    options = profile["csrwh"]["outputs"]["default"]["config_options"]
    assert options["allocator_background_threads"] is True
    with duckdb.connect(config={"allocator_background_threads": True}) as con:
        setting = "current_setting('allocator_background_threads')"
        assert con.execute(f"select {setting}").fetchone()[0] is True
