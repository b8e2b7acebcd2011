"""benchmarks/build.py --child floor: the driver measures the floor child's peak memory (one
``_peak_rss_mb``, build.py's, for the build and its floor alike)."""

from __future__ import annotations

import importlib.util
import json
import sys
import types

from csrwh.config import PROJECT_ROOT


def _build_benchmark():
    spec = importlib.util.spec_from_file_location(
        "build_benchmark_under_test", PROJECT_ROOT / "benchmarks" / "build.py"
    )
    module = importlib.util.module_from_spec(spec)
    saved = list(sys.path)
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path[:] = saved  # build.py puts the project first on sys.path
    return module


def test_the_floor_child_reports_the_peak_the_build_child_reports(monkeypatch, capsys) -> None:
    build = _build_benchmark()
    floor = types.SimpleNamespace(child_floor=lambda *args: {"args": list(args)})
    monkeypatch.setattr(build, "_sibling", lambda name: floor)
    monkeypatch.setattr(build, "_peak_rss_mb", lambda: 123.5)
    assert build.main(["--child", "floor", "d", "w", "t", "c"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out == {"args": ["d", "w", "t", "c"], "peak_rss_mb": 123.5}
