"""RecLLMSim published figures and the report's RecLLMSim tables (csrwh/reading/figures/recllmsim.py).

On the generated sample (built once per session): every figure of
notebooks/published_figures/recllmsim.csv names a metric whose parameters its args fill, the
warehouse value of every figure equals the independent recomputation in
tests/report_oracle/recllmsim.py, every RecLLMSim report mart equals the oracle's table,
and render() writes the same tables with the same columns when RecLLMSim is absent.
"""

from __future__ import annotations

import csv
import math
import re
import shutil
from pathlib import Path

import duckdb
import pytest
from report_expected import assert_table, rows
from report_oracle import recllmsim as oracle

from csrwh.reading import figures as F
from csrwh.reading.figures import recllmsim
from csrwh.reading.figures.render import recllmsim as recllmsim_render

CSV = F.PUBLISHED_DIR / "recllmsim.csv"
SCRIPTS = ("statistics/", "user_behavior/", "user_profiling/", "README.md")


def _published() -> list[dict[str, str]]:
    with open(CSV, encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def test_every_figure_names_its_script_metric_and_arguments() -> None:
    figures = _published()
    registry = F.metrics()
    assert len(figures) > 300
    assert len({f["figure_id"] for f in figures}) == len(figures)
    for f in figures:
        assert f["figure_id"].startswith("recllmsim.") and f["corpus"] == "recllmsim", f[
            "figure_id"
        ]
        assert "github.com/wzf2000/RecLLMSim @ d680f2f9d5b8" in f["source"] and any(
            s in f["source"] for s in SCRIPTS
        )
        assert f["explanation"], f["figure_id"]  # which files, filter and rounding the script used
        assert int(f["precision"]) >= 0 and f["subsets"]
        if not f["metric"]:  # not derivable: the explanation says why
            assert "not a function of the files" in f["explanation"], f["figure_id"]
            continue
        metric = registry[f["metric"]]
        args = F.parse_args(f["args"])
        assert set(re.findall(r"\$(\w+)", metric.sql or "")) <= set(args), f["figure_id"]
        assert "(any)" not in metric.describe(args), f["figure_id"]
        if f["alt_metric"]:
            assert f["alt_metric"] in registry and f["alt_figure"]
        # the published value is written at its precision
        assert round(float(f["published"]), int(f["precision"])) == float(f["published"]), f[
            "figure_id"
        ]


def test_metrics_are_defined_in_the_recllmsim_module_with_definitions() -> None:
    assert set(recllmsim.METRICS) <= set(F.metrics())
    for name, metric in recllmsim.METRICS.items():
        assert name.startswith("recllmsim_") and len(metric.definition) > 40, name
    used = {f["metric"] for f in _published() if f["metric"]} | {
        f["alt_metric"] for f in _published() if f["alt_metric"]
    }
    assert used == set(recllmsim.METRICS)


@pytest.fixture(scope="module")
def sample_con(sample_warehouse: Path):
    con = duckdb.connect(str(sample_warehouse), read_only=True)
    yield con
    con.close()


def test_every_figure_equals_the_oracle_on_the_sample(sample_con) -> None:
    figures = _published()
    present = {
        "recllmsim": [
            s
            for (s,) in sample_con.execute(
                "select distinct subset from conversations where corpus = 'recllmsim'"
            ).fetchall()
        ]
    }
    comparison = F.compare(sample_con, present, figures)
    assert comparison.height == len(figures)
    checked = 0
    for row in comparison.to_dicts():
        if row["status"] == "not derivable":
            continue
        expected = oracle.published_value(sample_con, row["figure_id"])
        if expected is None:
            assert row["warehouse"] is None, row["figure_id"]
        else:
            assert row["warehouse"] is not None and math.isclose(
                row["warehouse"], expected, rel_tol=1e-9, abs_tol=1e-9
            ), (row["figure_id"], row["warehouse"], expected)
            checked += 1
    assert checked > 250


@pytest.mark.parametrize("name", sorted(oracle.TABLES))
def test_every_recllmsim_mart_equals_the_oracle_on_the_sample(
    sample_con, name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from csrwh.reading import report

    expectation, keys, _, columns = oracle.TABLES[name]
    monkeypatch.setenv(report.ENV_TABLES, str(tmp_path))
    path = report.write_table(sample_con.sql(f"select {', '.join(columns)} from {name}").pl(), name)
    expected = expectation(sample_con)
    assert expected, name  # the sample exercises every table
    assert_table(path, expected, columns, keys)


def test_the_scripts_sets_are_kept_apart(sample_con) -> None:
    """Agent = files naming a preference profile; 'new travel planning' is its own task but
    part of the travel planning scenario; every score lies on 0..2."""
    sides = dict(
        sample_con.execute(
            "select release, min(user_side) from recllmsim_conversation_measures group by release having count(distinct user_side) = 1"
        ).fetchall()
    )
    assert sides["LLM_agent_user"] == "agent" and sides["real_human_user"] == "human"
    scenarios = rows(
        sample_con, "select distinct task, scenario from recllmsim_conversation_measures"
    )
    for r in scenarios:
        assert r["scenario"] == (
            "travel planning" if r["task"] == "new travel planning" else r["task"]
        )


class _Recorder:
    """Stands in for csrwh.reading.report: records written tables, ignores display."""

    def __init__(self, out: Path) -> None:
        from csrwh.reading import report

        self.out, self._report = out, report
        self.written: dict[str, list[str]] = {}
        self.absent: list[str] = []

    def query(self, con, sql, params=None):
        return self._report.query(con, sql, params)

    def write_table(self, frame, name):
        self.written[name] = list(frame.columns)

    def show_absent(self, corpus):
        self.absent.append(corpus)

    def __getattr__(self, name):  # show_html, show_table, show_figure
        return lambda *a, **k: None


def test_render_writes_the_same_tables_with_or_without_recllmsim(
    sample_warehouse: Path, tmp_path: Path
) -> None:
    import matplotlib

    matplotlib.use("Agg", force=True)
    with duckdb.connect(str(sample_warehouse), read_only=True) as con:
        with_data = _Recorder(tmp_path)
        recllmsim_render.render(con, with_data, present=True)
    empty = tmp_path / "empty.duckdb"
    shutil.copy2(sample_warehouse, empty)
    with duckdb.connect(str(empty)) as con:
        for name in oracle.TABLES:
            con.execute(f"delete from main.{name}")
        without = _Recorder(tmp_path)
        recllmsim_render.render(con, without, present=False)
    expected = {name: spec[3] for name, spec in oracle.TABLES.items()}
    assert with_data.written == expected and without.written == expected
    assert without.absent == ["recllmsim"] and with_data.absent == []
