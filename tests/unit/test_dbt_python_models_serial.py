"""dbt runs at most one heavy model at a time in a build (csrwh.pipeline.dbt_runner): the
Python models and the SQL models flagged ``meta: {one_at_a_time: true}`` (the text measures,
whose Python functions run on every row). Beside ``text_diversity`` the text measures made the
real corpora's cold-build peak RSS (issue 26)."""

from __future__ import annotations

import inspect
import queue as queue_module
import threading
import time
from types import SimpleNamespace
from typing import Any

import pytest
from dbt.task.base import BaseRunner

from csrwh.pipeline import dbt_runner


@pytest.fixture(autouse=True)
def _dbt_queue_as_dbt_has_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """dbt's own GraphQueue in each test (a build in this process may have patched it), put
    back as it was after."""
    from dbt.graph.queue import GraphQueue

    for name in ("get", "mark_done"):
        monkeypatch.setattr(GraphQueue, name, inspect.unwrap(getattr(GraphQueue, name)))


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


def _queue(nodes: list) -> Any:
    """dbt's own graph queue over ``nodes`` (no edges: all ready at once)."""
    import networkx as nx
    from dbt.graph.queue import GraphQueue

    by_id = {}
    for node in nodes:
        node.unique_id = f"model.csrwh.{node.name}"
        node.is_ephemeral = False
        by_id[node.unique_id] = node
    graph = nx.DiGraph()
    graph.add_nodes_from(by_id)
    return GraphQueue(graph, SimpleNamespace(expect=by_id.__getitem__), set(by_id))


def _handed_out(queue: Any) -> list[str]:
    """dbt's main loop: every node as soon as the queue gives it out, none done yet."""
    names = []
    while True:
        try:
            names.append(queue.get(block=False).name)
        except queue_module.Empty:
            return names


def test_a_waiting_heavy_model_stays_in_the_queue(monkeypatch: pytest.MonkeyPatch) -> None:
    # all ready at once; the queue gives out by name: a_ before b_ before z_
    nodes = [
        _node("a_text_diversity", "python"),
        _node("b_text_measures", meta={"one_at_a_time": True}),
        _node("z_turns"),
    ]
    plain = _queue([SimpleNamespace(**vars(n)) for n in nodes])
    assert _handed_out(plain) == ["a_text_diversity", "b_text_measures", "z_turns"]

    dbt_runner.heavy_models_one_at_a_time()
    queue = _queue(nodes)
    # the second heavy model waits in the queue; the SQL node goes out beside the first
    assert _handed_out(queue) == ["a_text_diversity", "z_turns"]
    assert len(queue) == 1 and not queue.empty()
    queue.mark_done("model.csrwh.z_turns")
    assert _handed_out(queue) == []
    queue.mark_done("model.csrwh.a_text_diversity")
    assert _handed_out(queue) == ["b_text_measures"]
    queue.mark_done("model.csrwh.b_text_measures")
    assert queue.empty()
    queue.join()  # every put was matched by a done: join returns
