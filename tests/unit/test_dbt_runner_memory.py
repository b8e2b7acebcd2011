"""dbt_runner hands freed memory back to the system after Python models and after dbt."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from csrwh.building import dbt_runner


def _event(name: str, node_path: str) -> SimpleNamespace:
    return SimpleNamespace(
        info=SimpleNamespace(name=name),
        data=SimpleNamespace(node_info=SimpleNamespace(node_path=node_path)),
    )


def test_memory_is_returned_at_the_end_of_python_models_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[str] = []
    monkeypatch.setattr(dbt_runner, "return_freed_memory", lambda: calls.append("trim"))
    dbt_runner._trim_after_python_models(_event("NodeFinished", "marts/measures/text_diversity.py"))
    assert calls == ["trim"]
    dbt_runner._trim_after_python_models(_event("NodeFinished", "marts/core/turns.sql"))
    dbt_runner._trim_after_python_models(_event("NodeStart", "marts/measures/text_diversity.py"))
    assert calls == ["trim"]


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
