"""In a real build of the sample, the text measures and the Python models never run at the same time."""

from __future__ import annotations

import itertools
import json
from datetime import datetime
from pathlib import Path


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
