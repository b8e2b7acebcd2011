"""csrwh.heap: the objects that live through a build phase are frozen out of the
garbage collector's reach for the phase (dbt's run) and handed back after it."""

from __future__ import annotations

import gc
from pathlib import Path
from types import SimpleNamespace

import pytest
from fake_dbt import fake_dbt_runner

from csrwh.heap import FrozenHeap, frozen_heap
from csrwh.pipeline import dbt_runner


@pytest.fixture(autouse=True)
def _nothing_frozen():
    gc.unfreeze()
    yield
    gc.unfreeze()


class _Cycle:
    def __init__(self) -> None:
        self.me = self


def test_the_living_are_frozen_and_thawed_and_new_cycles_are_still_collected() -> None:
    heap = FrozenHeap()
    living = [_Cycle() for _ in range(100)]
    heap.freeze()
    assert gc.get_freeze_count() >= 100
    del living  # frozen cycles: not collected while frozen
    new_garbage = [_Cycle() for _ in range(50)]
    del new_garbage
    assert gc.collect() >= 50  # what the phase creates is collected as before
    heap.freeze()  # again: what lives now joins
    heap.thaw()
    assert gc.get_freeze_count() == 0
    assert gc.collect() >= 100  # the frozen cycles, handed back, are collected


def test_someone_elses_freeze_is_left_alone() -> None:
    gc.freeze()
    theirs = gc.get_freeze_count()
    heap = FrozenHeap()
    heap.freeze()
    heap.thaw()
    assert gc.get_freeze_count() == theirs


def test_frozen_heap_thaws_on_error() -> None:
    with pytest.raises(RuntimeError), frozen_heap():
        assert gc.get_freeze_count() > 0
        raise RuntimeError("boom")
    assert gc.get_freeze_count() == 0


def _fake_dbt(monkeypatch, *, fail: BaseException | None = None) -> dict:
    """dbtRunner replaced: its invoke fires dbt's "Found N models" event, then notes how many
    objects were frozen while the nodes would run (and raises ``fail``, if given)."""
    seen: dict = {}

    def invoke(args, callbacks):
        seen["before_parse"] = gc.get_freeze_count()
        parsed = [_Cycle() for _ in range(1000)]  # the manifest
        for callback in callbacks:
            callback(SimpleNamespace(info=SimpleNamespace(name="FoundStats", level="info")))
        seen["nodes"] = gc.get_freeze_count()
        seen["parsed"] = parsed
        if fail is not None:
            raise fail

    fake_dbt_runner(monkeypatch, invoke)
    return seen


def test_run_dbt_freezes_the_parsed_manifest_while_nodes_run(monkeypatch, tmp_path: Path) -> None:
    seen = _fake_dbt(monkeypatch)
    dbt_runner.run_dbt(["build"], tmp_path / "csr.duckdb", quiet=True)
    assert seen["before_parse"] > 0  # dbt's modules, frozen before parsing
    assert seen["nodes"] >= seen["before_parse"] + 1000  # and the manifest
    assert gc.get_freeze_count() == 0


def test_run_dbt_thaws_when_dbt_is_interrupted(monkeypatch, tmp_path: Path) -> None:
    _fake_dbt(monkeypatch, fail=KeyboardInterrupt())
    with pytest.raises(KeyboardInterrupt):
        dbt_runner.run_dbt(["build"], tmp_path / "csr.duckdb", quiet=True)
    assert gc.get_freeze_count() == 0
