"""dbt runs at most one heavy model at a time in a build (csrwh.building.dbt_runner): the
Python models and the SQL models flagged ``meta: {one_at_a_time: true}`` (the text measures,
whose Python functions run on every row). Beside ``text_diversity`` the text measures made the
real corpora's cold-build peak RSS (issue 26)."""

from __future__ import annotations

import itertools
import json
import threading
import time
from datetime import datetime
from pathlib import Path
from types import SimpleNamespace

import pytest
from dbt.task.base import BaseRunner

from csrwh.building import dbt_runner


def _node(name: str, language: str = "sql", meta: dict | None = None) -> SimpleNamespace:
    return SimpleNamespace(
        name=name, resource_type="model", language=language, config=SimpleNamespace(meta=meta)
    )


HEAVY = [
    _node("text_diversity", "python"),
    _node("annotator_agreement", "python"),
    _node("int_turn_text_measures", meta={"one_at_a_time": True}),
]
LIGHT = [_node("turns"), _node("conversations", meta={"other": 1})]


def _overlaps(monkeypatch: pytest.MonkeyPatch, nodes: list, serial: bool) -> set[str]:
    """Run each node's compile_and_execute on its own thread (each takes a while); the names
    of the nodes that ever ran while another of ``nodes`` was running."""
    running: set[str] = set()
    overlapped: set[str] = set()
    guard = threading.Lock()

    def fake_run(self, manifest, ctx):  # a node that takes a while
        with guard:
            if running:
                overlapped.update(running | {self.node.name})
            running.add(self.node.name)
        time.sleep(0.05)
        with guard:
            running.discard(self.node.name)
        return self.node.name

    monkeypatch.setattr(BaseRunner, "compile_and_execute", fake_run)
    monkeypatch.setattr(dbt_runner, "return_freed_memory", lambda: None)
    if serial:
        dbt_runner.heavy_models_one_at_a_time()
        dbt_runner.heavy_models_one_at_a_time()  # idempotent: wraps once
    runners = [SimpleNamespace(node=node) for node in nodes]
    threads = [
        threading.Thread(target=BaseRunner.compile_and_execute, args=(runner, None, None))
        for runner in runners
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return overlapped


def test_heavy_models_run_one_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _overlaps(monkeypatch, HEAVY, serial=True) == set()
    wrapped = BaseRunner.compile_and_execute
    assert wrapped.csrwh_one_at_a_time
    assert wrapped(SimpleNamespace(node=HEAVY[2]), None, None) == "int_turn_text_measures"


def test_other_nodes_still_run_beside_them(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _overlaps(monkeypatch, [HEAVY[0], *LIGHT], serial=True) == {
        "text_diversity",
        "turns",
        "conversations",
    }


def test_without_the_lock_they_overlap(monkeypatch: pytest.MonkeyPatch) -> None:
    # the first check can fail
    assert _overlaps(monkeypatch, HEAVY, serial=False) == {n.name for n in HEAVY}


def test_freed_memory_is_returned_after_each_heavy_model_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(BaseRunner, "compile_and_execute", lambda self, manifest, ctx: None)
    dbt_runner.heavy_models_one_at_a_time()
    trims: list[str] = []
    monkeypatch.setattr(dbt_runner, "return_freed_memory", lambda: trims.append("trim"))
    for node in [*HEAVY, *LIGHT]:
        BaseRunner.compile_and_execute(SimpleNamespace(node=node), None, None)
    assert trims == ["trim"] * len(HEAVY)


def _windows(target: Path) -> dict[str, tuple[float, float]]:
    """Each node's (compile started, execute completed), epoch seconds, from run_results."""
    windows = {}
    for result in json.loads((target / "run_results.json").read_text())["results"]:
        timing = {t["name"]: t for t in result.get("timing", []) if t.get("started_at")}
        if "compile" in timing and "execute" in timing:
            windows[result["unique_id"]] = (
                datetime.fromisoformat(timing["compile"]["started_at"]).timestamp(),
                datetime.fromisoformat(timing["execute"]["completed_at"]).timestamp(),
            )
    return windows


def test_in_a_build_the_text_measures_and_the_python_models_never_overlap(
    sample_warehouse: Path,
) -> None:
    target = sample_warehouse.parents[1] / "target"
    nodes = json.loads((target / "manifest.json").read_text())["nodes"]
    heavy = {
        uid
        for uid, node in nodes.items()
        if node["resource_type"] == "model"
        and (node["language"] == "python" or node["config"]["meta"].get("one_at_a_time"))
    }
    assert "model.csrwh.int_turn_text_measures" in heavy
    assert "model.csrwh.text_diversity" in heavy
    windows = _windows(target)
    assert heavy <= set(windows), heavy - set(windows)
    for a, b in itertools.combinations(sorted(heavy), 2):
        (a0, a1), (b0, b1) = windows[a], windows[b]
        assert a1 <= b0 or b1 <= a0, f"{a} {windows[a]} and {b} {windows[b]} overlap"
