"""`csrwh eval` on the built sample against an independent nDCG@k / P@k / RR computed here
(not through ir_measures), its errors, `--save` into the evaluations sidecar, and the
dashboard's Leaderboard (query layer and page) over a sidecar made here."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from csrwh.config import PROJECT_ROOT
from csrwh.reading import evaluate as E
from csrwh.reading.dashboard import PAGES_DIR
from csrwh.reading.dashboard import queries as q

MEASURES = ("nDCG@10", "nDCG@5", "P@5", "RR")
ORDERS = ("perfect", "reversed", "shuffled")


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DO_NOT_TRACK": "1"}
    return subprocess.run(
        [sys.executable, "-m", "csrwh.cli", *args],
        check=False,
        capture_output=True,
        text=True,
        env=env,
    )


# ---------------------------------------------------------------------------------------------
# the independent computation (trec_eval's definitions, written out)
# ---------------------------------------------------------------------------------------------


# the independent nDCG@k and P@k, shared with test_evaluate (trec_eval's definitions)
from test_evaluate import ndcg_at, precision_at


def reciprocal_rank(ranked: list[str], grades: dict[str, int]) -> float:
    return next((1 / (i + 1) for i, d in enumerate(ranked) if grades.get(d, 0) >= 1), 0.0)


def independent(run: list[tuple[str, str, float]], judged: dict[str, dict[str, int]]) -> dict:
    """Per-topic values over the judged topics the run answers, and their mean."""
    ranked: dict[str, list[str]] = {}
    for topic, doc, _score in sorted(run, key=lambda r: (r[0], -r[2])):
        ranked.setdefault(topic, []).append(doc)
    topics = sorted(set(judged) & set(ranked))
    per_topic = {
        t: {
            "nDCG@10": ndcg_at(ranked[t], judged[t], 10),
            "nDCG@5": ndcg_at(ranked[t], judged[t], 5),
            "P@5": precision_at(ranked[t], judged[t], 5),
            "RR": reciprocal_rank(ranked[t], judged[t]),
        }
        for t in topics
    }
    mean = {m: sum(v[m] for v in per_topic.values()) / len(topics) for m in MEASURES}
    return {"per_topic": per_topic, "aggregate": mean, "topics": set(topics)}


@pytest.fixture(scope="module")
def judgments(sample_warehouse: Path) -> dict[str, dict[str, dict[str, int]]]:
    """kind -> topic -> doc -> grade, read from the mart with plain SQL."""
    with duckdb.connect(str(sample_warehouse), read_only=True) as con:
        rows = con.execute(
            "select judgment_kind, topic_id, doc_id, grade from relevance_judgments"
        ).fetchall()
    out: dict[str, dict[str, dict[str, int]]] = {"search": {}, "recommendation": {}, "all": {}}
    for kind, topic, doc, grade in rows:
        out[kind].setdefault(topic, {})[doc] = grade
        out["all"].setdefault(topic, {})[doc] = grade
    assert out["search"] and out["recommendation"], "the sample must judge both kinds"
    return out


def make_run(judged: dict[str, dict[str, int]], order: str) -> list[tuple[str, str, float]]:
    """Every 4th topic left out (missing), one topic no qrels judge; shuffled runs also rank an
    unjudged document first."""
    rng = random.Random(11)
    run = []
    for index, topic in enumerate(sorted(judged)):
        if index % 4 == 3:
            continue
        docs = sorted(judged[topic].items(), key=lambda x: (-x[1], x[0]))
        if order == "reversed":
            docs.reverse()
        elif order == "shuffled":
            rng.shuffle(docs)
            docs.insert(0, (f"unjudged-{index}", 0))
        run += [(topic, doc, float(100 - i)) for i, (doc, _) in enumerate(docs)]
    run.append(("not-a-judged-topic", "some-doc", 1.0))
    return run


def write_run(path: Path, run: list[tuple[str, str, float]]) -> Path:
    ranks: dict[str, int] = {}
    lines = []
    for topic, doc, score in run:
        ranks[topic] = ranks.get(topic, 0) + 1
        lines.append(f"{topic} Q0 {doc} {ranks[topic]} {score} test\n")
    path.write_text("".join(lines), encoding="utf-8")
    return path


def measure_args() -> list[str]:
    return [arg for m in MEASURES for arg in ("--measure", m)]


# ---------------------------------------------------------------------------------------------
# agreement with the independent computation
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("order", ORDERS)
def test_eval_agrees_with_an_independent_computation(
    order: str, sample_warehouse: Path, judgments, tmp_path: Path
) -> None:
    run = make_run(judgments["all"], order)
    path = write_run(tmp_path / f"{order}.run", run)
    result = run_cli(
        "eval", str(path), "--warehouse", str(sample_warehouse), "--format", "json", "--per-topic",
        *measure_args(),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert "mean over the topics of the qrels that the run answers" in report["aggregation"]
    assert [r["kind"] for r in report["results"]] == ["search", "recommendation", "all"]
    run_topics = {t for t, _, _ in run}
    for item in report["results"]:
        judged = judgments[item["kind"]]
        expected = independent(run, judged)
        assert item["n_topics_qrels"] == len(judged)
        assert item["n_topics_evaluated"] == len(expected["topics"]) > 0
        assert item["n_topics_missing"] == len(set(judged) - run_topics) > 0
        assert item["n_run_topics_unjudged"] == len(run_topics - set(judged))
        assert set(item["per_topic"]) == expected["topics"]
        for measure in MEASURES:
            assert item["aggregate"][measure] == pytest.approx(
                expected["aggregate"][measure], abs=1e-6
            ), (item["kind"], measure)
            for topic, values in expected["per_topic"].items():
                assert item["per_topic"][topic][measure] == pytest.approx(
                    values[measure], abs=1e-6
                ), (item["kind"], topic, measure)
        if order == "perfect":
            assert item["aggregate"]["nDCG@10"] == pytest.approx(1.0)


def test_reversed_and_shuffled_score_below_perfect(
    sample_warehouse: Path, judgments, tmp_path: Path
) -> None:
    scores = {}
    for order in ORDERS:
        path = write_run(tmp_path / f"{order}.run", make_run(judgments["all"], order))
        out = run_cli(
            "eval", str(path), "--warehouse", str(sample_warehouse), "--format", "json",
            "--qrels", "all", "--measure", "nDCG@10",
        )  # fmt: skip
        assert out.returncode == 0, out.stderr
        scores[order] = json.loads(out.stdout)["results"][-1]["aggregate"]["nDCG@10"]
    assert scores["reversed"] < scores["perfect"] and scores["shuffled"] < scores["perfect"]


def test_table_and_csv_give_the_same_numbers_and_say_how_they_aggregate(
    sample_warehouse: Path, judgments, tmp_path: Path
) -> None:
    run = make_run(judgments["all"], "shuffled")
    path = write_run(tmp_path / "shuffled.run", run)
    expected = independent(run, judgments["search"])
    common = [str(path), "--warehouse", str(sample_warehouse), "--qrels", "search", *measure_args()]
    table = run_cli("eval", *common)
    assert table.returncode == 0, table.stderr
    assert "trec_eval" in table.stdout and "not counted (not as 0)" in table.stdout
    assert f"{expected['aggregate']['nDCG@10']:.4f}" in table.stdout
    assert f"{len(expected['topics'])} of {len(judgments['search'])}" in table.stdout
    assert "│ search" in table.stdout and "│ recommendation" not in table.stdout  # one kind asked
    out = run_cli("eval", *common, "--format", "csv", "--per-topic")
    assert out.returncode == 0, out.stderr
    assert "trec_eval" in out.stderr  # the note goes beside the CSV, not into it
    rows = list(csv.DictReader(io.StringIO(out.stdout)))
    aggregate = {r["measure"]: r for r in rows if r["topic_id"] == ""}
    assert set(aggregate) == set(MEASURES)
    for measure, row in aggregate.items():
        assert float(row["value"]) == pytest.approx(expected["aggregate"][measure], abs=1e-6)
        assert int(row["n_topics_evaluated"]) == len(expected["topics"])
    per_topic = [r for r in rows if r["topic_id"]]
    assert len(per_topic) == len(expected["topics"]) * len(MEASURES)
    for row in per_topic:
        assert float(row["value"]) == pytest.approx(
            expected["per_topic"][row["topic_id"]][row["measure"]], abs=1e-6
        )


# ---------------------------------------------------------------------------------------------
# errors
# ---------------------------------------------------------------------------------------------


def assert_one_error(result: subprocess.CompletedProcess[str], code: int, *needles: str) -> None:
    assert result.returncode == code, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, result.stderr
    for needle in needles:
        assert needle in result.stderr, (needle, result.stderr)


@pytest.mark.parametrize(
    ("third_line", "problem"),
    [
        ("t Q0 d 3 1.0", "expected 6 fields"),
        ("t Q0 d three 1.0 x", "rank must be an integer"),
        ("t Q0 d 3 nan x", "score is not finite"),
        ("t Q0 a 3 1.0 x", "document a listed twice"),
    ],
)
def test_a_bad_run_line_is_one_error_with_its_line_number(
    sample_warehouse: Path, tmp_path: Path, third_line: str, problem: str
) -> None:
    path = tmp_path / "bad.run"
    path.write_text(f"t Q0 a 1 3.0 x\nt Q0 b 2 2.0 x\n{third_line}\n", encoding="utf-8")
    result = run_cli("eval", str(path), "--warehouse", str(sample_warehouse))
    assert_one_error(result, 1, f"bad.run:3: {problem}")


def test_a_run_on_other_topic_ids_is_an_error(sample_warehouse: Path, tmp_path: Path) -> None:
    path = tmp_path / "elsewhere.run"
    path.write_text("q1 Q0 d1 1 1.0 x\nq2 Q0 d1 1 1.0 x\n", encoding="utf-8")
    result = run_cli("eval", str(path), "--warehouse", str(sample_warehouse))
    assert_one_error(result, 1, "answers none of the", "'q1'", "csrwh export --trec")


@pytest.mark.parametrize(
    ("args", "code", "needle"),
    [
        (["--measure", "nDCG@@10"], 1, "unknown measure 'nDCG@@10'"),
        (["--qrels", "both"], 2, "unknown qrels kind 'both'"),
        (["--format", "xml"], 2, "unknown --format 'xml'"),
        (["--replace"], 2, "--replace needs --save NAME"),
        (["--save", " "], 2, "invalid run name"),
    ],
)
def test_bad_options_are_one_error(
    sample_warehouse: Path, judgments, tmp_path: Path, args: list[str], code: int, needle: str
) -> None:
    path = write_run(tmp_path / "ok.run", make_run(judgments["all"], "perfect"))
    result = run_cli("eval", str(path), "--warehouse", str(sample_warehouse), *args)
    assert_one_error(result, code, needle)


def test_missing_warehouse_and_warehouse_without_judgments(tmp_path: Path) -> None:
    path = tmp_path / "ok.run"
    path.write_text("t Q0 d 1 1.0 x\n", encoding="utf-8")
    result = run_cli("eval", str(path), "--warehouse", str(tmp_path / "absent.duckdb"))
    assert_one_error(result, 1, "does not exist")
    empty = tmp_path / "empty.duckdb"
    with duckdb.connect(str(empty)) as con:
        con.execute(
            "create table relevance_judgments (topic_id varchar, doc_id varchar, grade integer, "
            "judgment_kind varchar)"
        )
    assert_one_error(
        run_cli("eval", str(path), "--warehouse", str(empty)), 1, "no relevance judgments"
    )
    missing_run = run_cli("eval", str(tmp_path / "absent.run"), "--warehouse", str(empty))
    assert_one_error(missing_run, 1, "run file not found")


def test_a_kind_without_judgments(tmp_path: Path) -> None:
    """Asked alone it is an error; in the breakdown it is a row with no topic and no value."""
    warehouse = tmp_path / "rec_only.duckdb"
    with duckdb.connect(str(warehouse)) as con:
        con.execute(
            "create table relevance_judgments as select * from (values ('r1', 'd1', 2, "
            "'recommendation'), ('r1', 'd2', 0, 'recommendation')) as t(topic_id, doc_id, grade, "
            "judgment_kind)"
        )
    run = tmp_path / "r.run"
    run.write_text("r1 Q0 d2 1 2.0 x\nr1 Q0 d1 2 1.0 x\n", encoding="utf-8")
    alone = run_cli("eval", str(run), "--warehouse", str(warehouse), "--qrels", "search")
    assert_one_error(alone, 1, "holds no search relevance judgments")
    both = run_cli("eval", str(run), "--warehouse", str(warehouse), "--format", "json",
                   "--measure", "RR")  # fmt: skip
    assert both.returncode == 0, both.stderr
    results = {r["kind"]: r for r in json.loads(both.stdout)["results"]}
    assert results["search"]["n_topics_qrels"] == 0 and results["search"]["aggregate"] == {
        "RR": None
    }
    assert results["all"]["aggregate"]["RR"] == pytest.approx(
        reciprocal_rank(["d2", "d1"], {"d1": 2, "d2": 0})
    )
    table = run_cli("eval", str(run), "--warehouse", str(warehouse), "--measure", "RR")
    assert table.returncode == 0 and "0 of 0" in table.stdout


def test_eval_has_help_with_the_common_options() -> None:
    result = run_cli("eval", "--help")
    assert result.returncode == 0, result.stderr
    for option in ("--qrels", "--measure", "--per-topic", "--format", "--save", "--replace",
                   "--warehouse", "--data-dir"):  # fmt: skip
        assert option in result.stdout


# ---------------------------------------------------------------------------------------------
# --save: the evaluations sidecar
# ---------------------------------------------------------------------------------------------


@pytest.fixture()
def warehouse_copy(sample_warehouse: Path, tmp_path: Path) -> Path:
    """A copy of the sample (its folder gets the sidecar)."""
    copy = tmp_path / "wh" / "csr.duckdb"
    copy.parent.mkdir()
    shutil.copy2(sample_warehouse, copy)
    return copy


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_save_stores_runs_and_scores_beside_the_warehouse_and_never_writes_it(
    warehouse_copy: Path, judgments, tmp_path: Path
) -> None:
    run = make_run(judgments["all"], "shuffled")
    path = write_run(tmp_path / "shuffled.run", run)
    before = sha256(warehouse_copy)
    args = [
        "eval",
        str(path),
        "--warehouse",
        str(warehouse_copy),
        "--format",
        "json",
        *measure_args(),
    ]
    result = run_cli(*args, "--save", "bm25")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    sidecar = warehouse_copy.with_name("csr.evals.duckdb")
    assert sidecar.is_file() and f"saved as 'bm25' in {sidecar}" in result.stderr
    assert sha256(warehouse_copy) == before  # the published warehouse is never written
    assert not Path(str(warehouse_copy) + ".wal").exists()
    with duckdb.connect(str(warehouse_copy), read_only=True) as con:
        build_id = con.execute("select build_id from build_info").fetchone()[0]
    with duckdb.connect(str(sidecar), read_only=True) as con:
        runs = con.execute(
            "select kind, run_path, run_sha256, build_id, measures, n_topics_qrels, "
            "n_topics_evaluated, n_topics_missing, saved_at from eval_runs where run_name = 'bm25' "
            "order by kind"
        ).fetchall()
        scores = con.execute(
            "select kind, measure, topic_id, value from eval_scores where run_name = 'bm25'"
        ).fetchall()
    assert [r[0] for r in runs] == ["all", "recommendation", "search"]
    by_kind = {item["kind"]: item for item in report["results"]}
    for kind, run_path, digest, build, measures, n_qrels, n_eval, n_missing, _ in runs:
        assert (run_path, digest, build) == (str(path.resolve()), sha256(path), build_id)
        assert list(measures) == list(MEASURES)
        item = by_kind[kind]
        expected = independent(run, judgments[kind])
        assert (n_qrels, n_eval, n_missing) == (
            item["n_topics_qrels"], len(expected["topics"]), item["n_topics_missing"],
        )  # fmt: skip
        stored = {(m, t): v for k, m, t, v in scores if k == kind}
        for measure in MEASURES:
            assert stored[(measure, None)] == pytest.approx(
                expected["aggregate"][measure], abs=1e-6
            )
            for topic, values in expected["per_topic"].items():
                assert stored[(measure, topic)] == pytest.approx(values[measure], abs=1e-6)
        assert len(stored) == len(MEASURES) * (1 + len(expected["topics"]))

    # the same name again is refused and changes nothing; --replace overwrites it
    again = run_cli(*args, "--save", "bm25")
    assert_one_error(again, 1, "'bm25' is already saved", "--replace")
    assert again.stdout == ""
    with duckdb.connect(str(sidecar), read_only=True) as con:
        assert con.execute("select max(saved_at) from eval_runs").fetchone()[0] == runs[0][-1]
    perfect = write_run(tmp_path / "perfect.run", make_run(judgments["all"], "perfect"))
    replaced = run_cli("eval", str(perfect), "--warehouse", str(warehouse_copy), "--save", "bm25",
                       "--replace", "--measure", "nDCG@10", "--format", "csv")  # fmt: skip
    assert replaced.returncode == 0, replaced.stderr
    with duckdb.connect(str(sidecar), read_only=True) as con:
        assert con.execute("select count(distinct run_sha256) from eval_runs").fetchone()[0] == 1
        assert con.execute("select any_value(run_sha256) from eval_runs").fetchone()[0] == sha256(
            perfect
        )
        assert con.execute(
            "select distinct measure from eval_scores where run_name = 'bm25'"
        ).fetchall() == [("nDCG@10",)]
    assert sha256(warehouse_copy) == before


def test_save_into_a_busy_or_foreign_sidecar_is_one_error(
    warehouse_copy: Path, judgments, tmp_path: Path
) -> None:
    path = write_run(tmp_path / "p.run", make_run(judgments["all"], "perfect"))
    sidecar = warehouse_copy.with_name("csr.evals.duckdb")
    args = ["eval", str(path), "--warehouse", str(warehouse_copy), "--save", "p"]
    with duckdb.connect(str(sidecar)):  # another process holds it (the dashboard, a save)
        assert_one_error(run_cli(*args), 1, "cannot open the evaluations file", "retry")
    sidecar.unlink()
    sidecar.write_text("not a database", encoding="utf-8")
    assert_one_error(run_cli(*args), 1, "cannot open the evaluations file", str(sidecar))


def test_sidecar_sits_beside_the_warehouse() -> None:
    assert E.sidecar_path(Path("/w/csr.duckdb")) == Path("/w/csr.evals.duckdb")
    assert E.sidecar_path(Path("/w/demo.duckdb")) == Path("/w/demo.evals.duckdb")
    assert q.evals_path("/w/demo.duckdb") == Path("/w/demo.evals.duckdb")


# ---------------------------------------------------------------------------------------------
# the Leaderboard page and its queries
# ---------------------------------------------------------------------------------------------

SMALL = [("t1", "a", 2), ("t1", "b", 1), ("t1", "c", 0), ("t2", "x", 1), ("t2", "y", 0)]


def small_report(order: str, run_path: Path) -> E.EvalReport:
    judged = {"t1": {"a": 2, "b": 1, "c": 0}, "t2": {"x": 1, "y": 0}}
    run = [(t, d, s) for t, d, s in make_run(judged, order) if t in judged]
    write_run(run_path, run)
    lines = E.read_run(run_path)
    evaluation = E.evaluate(lines, SMALL, ["nDCG@10", "RR"], kind="all")
    return E.EvalReport(run_path, E.file_sha256(run_path), None, "b-1", "all", [evaluation])


@pytest.fixture()
def sidecar(tmp_path: Path) -> Path:
    path = tmp_path / "wh.evals.duckdb"
    E.save_report(small_report("reversed", tmp_path / "rev.run"), "reversed", path)
    E.save_report(small_report("perfect", tmp_path / "perf.run"), "perfect", path)
    return path


def test_leaderboard_queries_read_the_saved_scores(sidecar: Path, tmp_path: Path) -> None:
    reversed_ = small_report("reversed", tmp_path / "again.run").evaluations[0]
    with q.Warehouse(sidecar).open() as db:
        assert q.eval_kinds(db) == ["all"]
        board = q.eval_leaderboard(db, "all")
        assert q.eval_leaderboard(db, "search").empty
        topics = q.eval_topic_scores(db, "reversed", "all")
    ndcg = board[board["measure"] == "nDCG@10"]
    assert ndcg["run_name"].tolist() == ["perfect", "reversed"]  # best first
    assert ndcg["value"].tolist() == pytest.approx([1.0, reversed_.aggregate["nDCG@10"]])
    assert ndcg["value"].iloc[1] < 1.0
    assert set(board["n_topics_evaluated"]) == {2} and set(board["build_id"]) == {"b-1"}
    assert len(topics) == 2 * 2
    got = {(r.topic_id, r.measure): r.value for r in topics.itertuples()}
    assert got == pytest.approx(
        {(t, m): v for t, values in reversed_.per_topic.items() for m, v in values.items()}
    )


def test_leaderboard_kinds_of_a_file_without_tables(tmp_path: Path) -> None:
    empty = tmp_path / "empty.evals.duckdb"
    duckdb.connect(str(empty)).close()
    with q.Warehouse(empty).open() as db:
        assert q.eval_kinds(db) == []


def _page(warehouse: Path, monkeypatch: pytest.MonkeyPatch):
    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv("CSRWH_WAREHOUSE", str(warehouse))
    at = AppTest.from_file(str(PAGES_DIR / "leaderboard.py"), default_timeout=60)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_leaderboard_page_ranks_runs_and_says_how_to_start(
    sidecar: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("streamlit")
    warehouse = tmp_path / "wh.duckdb"
    with duckdb.connect(str(warehouse)) as con:
        con.execute("create table build_info as select 'b-1' as build_id, now() as built_at")
    at = _page(warehouse, monkeypatch)
    shown = at.table[0].value
    assert shown["run"].tolist() == ["perfect", "reversed"]
    assert shown["this build"].tolist() == ["yes", "yes"]
    sidecar.unlink()
    at = _page(warehouse, monkeypatch)
    assert not at.table
    text = " ".join(str(i.value) for i in at.info)
    assert "No saved evaluations" in text and "csrwh eval" in text and "--save" in text


# ---------------------------------------------------------------------------------------------
# the README's example, run on the sample
# ---------------------------------------------------------------------------------------------


def readme_blocks(heading: str) -> dict[str, str]:
    """The first ```bash and ```python blocks of the README section ``heading``."""
    text = (PROJECT_ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split(f"\n{heading}\n", 1)[1].split("\n## ", 1)[0]
    blocks = {}
    for lang in ("bash", "python"):
        if f"```{lang}\n" in section:
            blocks[lang] = section.split(f"```{lang}\n", 1)[1].split("```", 1)[0]
    return blocks


def run_readme(block: str, lang: str, cwd: Path, warehouse: Path) -> subprocess.CompletedProcess:
    code = block.replace("warehouse/demo.duckdb", str(warehouse))
    if lang == "bash":
        code = "set -euo pipefail\n" + code.replace(
            ".venv/bin/csrwh", f"{sys.executable} -m csrwh.cli"
        )
        cmd = ["bash", "-c", code]
    else:
        cmd = [sys.executable, "-c", code]
    env = {**os.environ, "DO_NOT_TRACK": "1", "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
           "HF_HOME": str(cwd / "hf_home")}  # fmt: skip
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env, check=False)


def test_readme_run_evaluation_example_works_on_the_sample(
    warehouse_copy: Path, tmp_path: Path
) -> None:
    blocks = readme_blocks("## Run evaluation")
    result = run_readme(blocks["bash"], "bash", tmp_path, warehouse_copy)
    assert result.returncode == 0, result.stderr
    assert "trec_eval" in result.stdout and "nDCG@10" in result.stdout
    rows = list(csv.DictReader(io.StringIO((tmp_path / "toy.csv").read_text(encoding="utf-8"))))
    assert rows and {r["kind"] for r in rows} == {"search"} and any(r["topic_id"] for r in rows)
    with duckdb.connect(str(E.sidecar_path(warehouse_copy)), read_only=True) as con:
        assert con.execute("select run_name, measures from eval_runs").fetchall()[0] == (
            "toy",
            ["AP"],
        )
    python = run_readme(blocks["python"], "python", tmp_path, warehouse_copy)
    assert python.returncode == 0, python.stderr
    assert "nDCG@10" in python.stdout
