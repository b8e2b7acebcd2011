"""run_json_child: the benchmarks' one way to run a measuring child and read its figures."""

from __future__ import annotations

import pytest

from csrwh._devtools.child_run import run_json_child


def _script(tmp_path, body: str):
    script = tmp_path / "bench.py"
    script.write_text("import json, sys\nassert sys.argv[1] == '--child'\n" + body)
    return script


def test_the_last_line_is_the_result_and_wall_is_added(tmp_path) -> None:
    script = _script(tmp_path, "print('progress')\nprint(json.dumps({'args': sys.argv[2:]}))\n")
    out = run_json_child(script, "build", "x", what="build")
    assert out["args"] == ["build", "x"]
    assert out["wall"] > 0


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("sys.stderr.write('boom\\n'); sys.exit(3)\n", "build failed (exit 3):"),
        ("print('no json here')\n", "build printed no JSON on its last line"),
    ],
)
def test_a_failed_or_silent_child_ends_the_benchmark_with_its_output(tmp_path, body, message):
    with pytest.raises(SystemExit) as ended:
        run_json_child(_script(tmp_path, body), what="build")
    assert message in str(ended.value)
