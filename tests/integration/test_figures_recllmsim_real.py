"""RecLLMSim's published figures and report marts on the real corpora in ../shared/corpora.

Builds a warehouse from the real files and checks: every figure of
notebooks/published_figures/recllmsim.csv matches at its published precision (the README's
simulation-quality table, and what the authors' statistics/, user_behavior/ and
user_profiling/ scripts print on the three releases); the published values of the count and
score figures are what the scripts' selections give when recounted here straight from the JSON
files; and every dbt test of the RecLLMSim report marts fails on a corrupted copy (and passes
on the clean one). Skips when the folder is absent, except under CI.
"""

from __future__ import annotations

import csv
import json
import shutil
import statistics
from collections import Counter, defaultdict
from pathlib import Path

import duckdb
import pytest

from csrwh.pipeline.dbt_runner import run_dbt
from csrwh.reading import figures as F

pytestmark = pytest.mark.integration

from report_oracle import recllmsim as oracle

MARTS = sorted(oracle.TABLES) + ["recllmsim_conversation_measures"]
HUMAN_TASKS = {
    "旅行规划": "travel planning",
    "礼物准备": "preparing gifts",
    "菜谱规划": "recipe planning",
    "技能学习规划": "skills learning planning",
}
AGENT_FOLDERS = (
    "new travel planning",
    "preparing gifts",
    "travel planning",
    "recipe planning",
    "skills learning planning",
)
OPTION = {
    "详细": 2,
    "一般": 1,
    "简略": 0,
    "很有用": 2,
    "有一定参考": 1,
    "不可用": 0,
    "结果多样": 2,
    "结果单一": 0,
}
ITEM = {"Detail Level": "Detail", "Practical Usefulness": "Availability", "Diversity": "Diversity"}


@pytest.fixture(scope="module")
def real(real_corpora: Path, real_warehouse: Path, module_tmp_path: Path):
    return real_corpora, real_warehouse, module_tmp_path


def _figures() -> list[dict[str, str]]:
    with open(F.PUBLISHED_DIR / "recllmsim.csv", encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def test_every_recllmsim_figure_matches(real) -> None:
    _, warehouse, _ = real
    with duckdb.connect(str(warehouse), read_only=True) as con:
        present = {
            "recllmsim": [
                s
                for (s,) in con.execute(
                    "select distinct subset from conversations where corpus = 'recllmsim'"
                ).fetchall()
            ]
        }
        comparison = F.compare(con, present, _figures())
        for row in comparison.to_dicts():  # the warehouse side equals the independent oracle
            if row["status"] == "not derivable":
                continue
            expected = oracle.published_value(con, row["figure_id"])
            assert row["warehouse"] == pytest.approx(expected, rel=1e-9, abs=1e-9), row["figure_id"]
    assert comparison.height > 300
    others = {r["figure_id"]: r["status"] for r in comparison.to_dicts() if r["status"] != "match"}
    # profile_plot.py's human-side figures sample one profile per user in directory order
    assert others == {
        f"recllmsim.profile_diversity.{feature}.{what}": "not derivable"
        for feature in ("daily_interests", "travel_habits", "dining_preferences", "spending_habits")
        for what in ("human.simpson", "human.shannon", "top5_overlap")
    }


# --------------------------------------------------------------------------- the files, recounted


def _load(path: Path) -> dict:
    return json.loads(path.read_text("utf-8"))


def _agent(root: Path, folders=AGENT_FOLDERS) -> list[tuple[str, dict]]:
    return [
        (folder, _load(p))
        for folder in folders
        for p in sorted((root / "recllmsim/LLM_agent_user" / folder).glob("*.json"))
    ]


def _human(
    root: Path, releases=("real_human_user", "human_exp_V2")
) -> list[tuple[str, str, str, dict]]:
    out = []
    for release in releases:
        for user in sorted((root / "recllmsim" / release).iterdir()):
            for task, english in HUMAN_TASKS.items():
                out += [
                    (release, user.name, english, _load(p))
                    for p in sorted((user / task).glob("*.json"))
                ]
    return out


def _scores(data: dict) -> dict[str, int]:
    if "rating" in data:
        return {k: data["rating"][k] for k in ITEM}
    answers = {q["summary"]: q["option"] for q in data["questionnaire"]}
    return {k: OPTION[answers[item]] for k, item in ITEM.items()}


def _published() -> dict[str, float]:
    return {r["figure_id"]: float(r["published"]) for r in _figures()}


def test_published_counts_and_scores_are_what_the_scripts_count_on_the_files(
    real_corpora: Path,
) -> None:
    published = _published()
    agent, human = _agent(real_corpora), _human(real_corpora)
    checked = 0

    def check(figure_id: str, value: float, precision: int) -> None:
        nonlocal checked
        assert round(value, precision) == published[figure_id], (
            figure_id,
            value,
            published[figure_id],
        )
        checked += 1

    for scenario in ("all", *HUMAN_TASKS.values()):
        a = [d for f, d in agent if scenario == "all" or f.replace("new ", "") == scenario]
        h = [(r, u, d) for r, u, t, d in human if scenario == "all" or t == scenario]
        key = scenario.replace(" ", "_")
        check(f"recllmsim.count.{key}.agent.conversations", len(a), 0)
        check(f"recllmsim.count.{key}.human.conversations", len(h), 0)
        check(
            f"recllmsim.count.{key}.agent.turns",
            statistics.fmean(len(d["history"]) // 2 for d in a),
            2,
        )
        check(f"recllmsim.tasks.{key}.agent", len({d["task_context"] for d in a}), 0)
        check(f"recllmsim.tasks.{key}.human", len({d["task_context"] for *_, d in h}), 0)
        check(f"recllmsim.profiles.{key}.agent", len({d["preference"] for d in a}), 0)
        check(f"recllmsim.profiles.{key}.human", len({(r, u) for r, u, _ in h}), 0)
    # assistant quality by chat model (both human releases)
    by_model = defaultdict(list)
    for *_, d in human:
        for aspect, score in _scores(d).items():
            by_model[(d.get("chat_model", "gpt-4-turbo-preview"), aspect)].append(score)
    for (model, aspect), scores in by_model.items():
        check(
            f"recllmsim.assistant_quality.{model}.{aspect.lower().replace(' ', '_')}",
            statistics.fmean(scores),
            4,
        )
    # final behaviour labels: count_sim (folder 'travel planning'), count_human (all human files)
    sim_v3 = Counter(
        (k, str(v))
        for _, d in _agent(real_corpora, ["travel planning"])
        for k, v in d["strategy_V3"]["final"].items()
    )
    human_v3 = Counter((k, str(v)) for *_, d in human for k, v in d["strategy_V3"]["final"].items())
    for figure_id in published:
        parts = figure_id.split(".")
        if (
            parts[1] == "strategy_count"
            and parts[3] == "strategy_V3"
            and parts[4] in ("travel_planning", "all")
        ):
            counts = sim_v3 if parts[2] == "agent" else human_v3
            if parts[2] == "human" and parts[4] != "all":
                continue
            dimension, label = parts[5].rsplit("_", 1)
            check(figure_id, counts[(dimension, label)], 0)
    # scores by label: score_sim (agent, strategy), score_human (real_human_user, strategy_V2)
    for side, files, scheme in (
        ("agent", [d for _, d in agent], "strategy"),
        ("human", [d for *_, d in _human(real_corpora, ["real_human_user"])], "strategy_V2"),
    ):
        grouped = defaultdict(list)
        for d in files:
            for dimension, label in d[scheme]["final"].items():
                for aspect, score in _scores(d).items():
                    grouped[(dimension, label, aspect)].append(score)
        for (dimension, label, aspect), scores in grouped.items():
            slug = aspect.lower().replace(" ", "_")
            check(
                f"recllmsim.strategy_score.{side}.{scheme}.{dimension}.{label}.{slug}",
                statistics.fmean(scores),
                4,
            )
    # profile labels of real_human_user conversations (user_profiling/count.py)
    labels = Counter(
        (a, label)
        for *_, d in _human(real_corpora, ["real_human_user"])
        for a in (
            "personality",
            "daily_interests",
            "travel_habits",
            "dining_preferences",
            "spending_habits",
        )
        for label in set(d["profile"][a])
    )
    for figure_id in published:
        if figure_id.startswith("recllmsim.profile_count."):
            _, _, attribute, label = figure_id.split(".", 3)
            check(figure_id, labels[(attribute, label)], 0)
    assert checked > 180


# --------------------------------------------------------------------------- dbt tests


def _corruptions(null_column: str, out_of_range: str) -> list[str]:
    """A NULL where none may be (first row), values off their ranges (second row), then a
    duplicate of an untouched row (the last)."""
    return [
        f"update {{t}} set {null_column} = null where rowid = (select min(rowid) from {{t}})",
        f"update {{t}} set {out_of_range} where rowid = (select min(rowid) + 1 from {{t}})",
        "insert into {t} select * from {t} where rowid = (select max(rowid) from {t})",
    ]


CORRUPTIONS = {
    "recllmsim_conversation_measures": [
        *_corruptions(
            "release",
            "n_turns_script = -1, n_user_tokens = -1, n_assistant_tokens = -1, detail_level = 3, "
            "practical_usefulness = 3, diversity = 3, preference_alignment = 3, role_playing_completeness = 3",
        ),
        # a conversation that is nowhere, on an unknown side
        "insert into {t} select * replace ('recllmsim:nowhere' as conversation_id, 'robot' as user_side) from {t} limit 1",
    ],
    "recllmsim_task_statistics": _corruptions("scenario", "n_conversations = 0, mean_turns = -1"),
    "recllmsim_quality_by_chat_model": _corruptions(
        "chat_model", "aspect = 'Fluency', mean_value = 3"
    ),
    "recllmsim_quality_by_turns": _corruptions("aspect", "mean_value = 3"),
    "recllmsim_quality_by_strategy": _corruptions("aspect", "mean_value = 3"),
    "recllmsim_strategy_distribution": _corruptions(
        "dimension", "n_conversations = 0, share = 1.5"
    ),
    "recllmsim_strategy_consistency": _corruptions(
        "dimension", "n_users = 0, mean_modal_share = 1.5"
    ),
    "recllmsim_profile_labels": _corruptions(
        "label", "n_conversations = 0, share_of_conversations = 1.5"
    ),
}


def test_every_dbt_test_of_the_recllmsim_marts_fails_on_corrupted_data(
    real, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, warehouse, root = real
    monkeypatch.setenv("CSRWH_DBT_TARGET_PATH", str(root / "target"))
    assert set(CORRUPTIONS) == set(MARTS)
    clean = run_dbt(["test", "--select", *MARTS], warehouse, quiet=True)
    assert clean.success, clean.failures
    corrupted = tmp_path / "corrupted.duckdb"
    shutil.copy2(warehouse, corrupted)
    with duckdb.connect(str(corrupted)) as con:
        for mart, statements in CORRUPTIONS.items():
            for statement in statements:
                con.execute(statement.format(t=f"main.{mart}"))
    outcome = run_dbt(["test", "--select", *MARTS], corrupted, quiet=True)
    assert not outcome.success
    # every test node of the marts fails: each test is seen to catch its corruption
    assert outcome.n_nodes == clean.n_nodes >= 9
    passed = [
        name
        for name in outcome.timings
        if not any(f.startswith(name + ":") for f in outcome.failures)
    ]
    assert passed == []
