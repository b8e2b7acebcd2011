"""Tests for csrwh.sample's RecLLMSim files: layout, keys and the upstream variants of each
release (csrwh/sample/recllmsim/)."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from csrwh.sample import generate

LLM_TASKS = [
    "new travel planning",
    "preparing gifts",
    "recipe planning",
    "skills learning planning",
    "travel planning",
]
HUMAN_TASKS = ["礼物准备", "旅行规划", "菜谱规划", "技能学习规划"]
RECLLMSIM_SUBSETS = ["LLM_agent_user", "human_exp_V2", "real_human_user"]
CHAT_MODELS = {
    "gpt-4-turbo-preview",
    "gemini-2.0-pro-exp-02-05",
    "claude-3-7-sonnet-20250219",
    "deepseek-v3",
}
V2_PROFILE_KEYS = [
    "gender",
    "age",
    "background",
    "personality",
    "occupation",
    "daily_interests",
    "travel_habits",
    "dining_preferences",
    "spending_habits",
    "other_aspects",
]
QUESTIONNAIRE_OPTIONS = {
    "Memorization": {"是", "否"},
    "Detail": {"详细", "一般", "简略"},
    "Availability": {"很有用", "有一定参考", "不可用"},
    "Diversity": {"结果多样", "一般", "结果单一"},
}
STRATEGY_VALUES = {
    "information_request": {"Planning", "Sequential"},
    "order": {"Comprehensive", "Depth", "Breadth"},
    "context": {"High", "Low"},
    "question": {"Specific", "Broad"},
}


@pytest.fixture(scope="module")
def sample(module_tmp_path) -> tuple[Path, dict[str, int]]:
    out = module_tmp_path
    counts = generate(out, scale=1, seed=0)
    return out, counts


# --------------------------------------------------------------------------- RecLLMSim


def test_recllmsim_layout_and_keys(sample):
    out, _ = sample
    root = out / "recllmsim"
    assert sorted(p.name for p in root.iterdir() if p.is_dir()) == RECLLMSIM_SUBSETS
    for task in LLM_TASKS:
        files = list((root / "LLM_agent_user" / task).glob("*.json"))
        assert len(files) == 8
        text = files[0].read_text(encoding="utf-8")
        doc = json.loads(text)
        assert text == json.dumps(doc, indent=4, ensure_ascii=False)
        assert doc["task"] == task
        assert set(doc["rating"]) and all(v in (0, 1, 2) for v in doc["rating"].values())
        for turn in doc["history"]:
            if turn["role"] == "assistant":
                assert isinstance(turn["hallucination"]["hallucination"], bool)
            else:
                assert {"content_zh", "intent", "intent_zh"} <= set(turn)
    users = sorted(p.name for p in (root / "real_human_user").iterdir())
    assert users == [f"User_{k}" for k in range(4)]
    for user in users:
        assert sorted(p.name for p in (root / "real_human_user" / user).iterdir()) == sorted(
            HUMAN_TASKS
        )


def test_recllmsim_real_human_variants(sample):
    out, _ = sample
    variants = set()
    for path in (out / "recllmsim/real_human_user").rglob("*.json"):
        doc = json.loads(path.read_text(encoding="utf-8"))
        assert doc["task_type"] == path.parent.name
        for key in ("profile", "questionnaire"):
            value = doc[key]
            if isinstance(value, str):
                parsed = ast.literal_eval(value)
                variants.add((key, "repr"))
            else:
                parsed = value
                variants.add((key, "object"))
            assert isinstance(parsed, dict if key == "profile" else list)
        for turn in doc["history"]:
            if turn["role"] == "user":
                assert isinstance(turn["intent"], list) and turn["intent"]
            else:
                assert turn["hallucination"] in ("是", "否", "无法判断")
    assert variants == {
        ("profile", "repr"),
        ("profile", "object"),
        ("questionnaire", "repr"),
        ("questionnaire", "object"),
    }


def test_recllmsim_human_exp_v2(sample):
    out, _ = sample
    root = out / "recllmsim/human_exp_V2"
    paths = sorted(root.rglob("*.json"))
    assert len(paths) >= 10
    assert sorted(p.name for p in root.iterdir()) == [f"User_{k}" for k in range(3)]
    assert {p.parent.name for p in paths} == set(HUMAN_TASKS)
    seen = {"reason": 0, "complete_tid": 0, "no_complete_tid": 0}
    profiles: dict[str, set[str]] = {}
    for path in paths:
        assert path.stem.isdigit() and 0 <= int(path.stem) <= 5
        text = path.read_text(encoding="utf-8")
        doc = json.loads(text)
        assert text == json.dumps(doc, indent=4, ensure_ascii=False)
        assert list(doc) == [
            "chat_model",
            "history",
            "task_context",
            "task_type",
            "profile",
            "questionnaire",
            "strategy_V3",
            "strategy",
        ]
        assert doc["chat_model"] in CHAT_MODELS
        assert doc["task_type"] == path.parent.name and doc["task_context"]
        history = doc["history"]
        assert [t["role"] for t in history[: len(history) // 2 * 2]] == [
            "user",
            "assistant",
        ] * (len(history) // 2)
        for turn in history:
            assert turn["content"]
            if turn["role"] == "user":
                assert list(turn) == ["role", "content"]
                continue
            assert list(turn)[:4] == ["role", "content", "hallucination", "satisfaction"]
            assert turn["hallucination"] in ("是", "否", "无法判断")
            assert turn["satisfaction"] in ("1", "2", "3", "4", "5")
            assert set(turn) <= {"role", "content", "hallucination", "satisfaction", "reason"}
            if "reason" in turn:
                seen["reason"] += 1
                assert isinstance(turn["reason"], str) and turn["reason"]
        profile = doc["profile"]
        assert list(profile)[: len(V2_PROFILE_KEYS)] == V2_PROFILE_KEYS
        assert isinstance(profile["age"], int)
        for key in V2_PROFILE_KEYS[3:]:
            assert isinstance(profile[key], str if key == "occupation" else list)
        if "complete_tid" in profile:
            seen["complete_tid"] += 1
            assert set(profile["complete_tid"]) <= set(HUMAN_TASKS)
            assert all(isinstance(n, int) for v in profile["complete_tid"].values() for n in v)
        else:
            seen["no_complete_tid"] += 1
        user = path.relative_to(root).parts[0]
        rest = {k: v for k, v in profile.items() if k != "complete_tid"}
        profiles.setdefault(user, set()).add(json.dumps(rest, ensure_ascii=False))
        assert [q["summary"] for q in doc["questionnaire"]] == list(QUESTIONNAIRE_OPTIONS)
        for q in doc["questionnaire"]:
            assert set(q) == {"query", "summary", "option"} and q["query"]
            assert q["option"] in QUESTIONNAIRE_OPTIONS[q["summary"]]
        for key in ("strategy", "strategy_V3"):
            assert list(doc[key]) == ["final", "1", "2", "3"]
        for run in doc["strategy"].values():
            assert set(run) == set(STRATEGY_VALUES)
            assert all(run[a] in vals for a, vals in STRATEGY_VALUES.items())
        for run in doc["strategy_V3"].values():
            assert run["question_broadness"] in range(1, 6)
            assert run["context_dependency"] in range(1, 6)
            assert run["feedback"] in ("Positive", "Negative", "Both", "NoFeedback")
    assert all(seen.values()), seen
    assert all(len(v) == 1 for v in profiles.values())  # one profile per user


def test_recllmsim_strategy_final_is_the_ensemble_of_the_runs(sample):
    out, _ = sample
    checked = 0
    for path in (out / "recllmsim").rglob("*.json"):
        doc = json.loads(path.read_text(encoding="utf-8"))
        for key in ("strategy", "strategy_V2", "strategy_V3", "strategy_1120"):
            if key not in doc:
                continue
            runs = [doc[key][k] for k in ("1", "2", "3")]
            for attr, final in doc[key]["final"].items():
                values = [run[attr] for run in runs]
                if isinstance(final, int):
                    assert final == int(sum(values) / 3 + 0.5)
                else:
                    assert values.count(final) >= 2
                checked += 1
    assert checked > 500
