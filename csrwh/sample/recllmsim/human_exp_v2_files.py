"""The newer human study's files, ``human_exp_V2/User_<k>/<任务>/<N>.json``."""

from __future__ import annotations

import random

from csrwh.sample._common import gauss_int, weighted
from csrwh.sample.recllmsim.llm_and_human_files import _pick, _strategy
from csrwh.sample.recllmsim.vocabularies import (
    CHAT_MODELS,
    COMPANIONS,
    HUMAN_TASKS,
    MEALS,
    N_V2_USERS,
    OCCASIONS,
    PLACES,
    QUALITIES,
    QUESTIONNAIRE,
    RECIPIENTS,
    SEASONS,
    SKILLS,
    TASK_ITEMS,
    TASK_KIND,
    V2_BACKGROUNDS,
    V2_HALLUCINATION,
    V2_LIST_SIZES,
    V2_MAX_FILES_PER_TASK,
    V2_OCCUPATIONS,
    V2_PROFILE_VOCAB,
    V2_QUESTIONNAIRE_WEIGHTS,
    V2_REASONS,
    V2_SATISFACTION_FIRST,
    V2_SATISFACTION_LATER,
    V2_SECTION_TITLES,
    V2_STRATEGY,
    V2_STRATEGY_V3,
    V2_TIPS,
    V2_USER_TEXT,
)


def _v2_task_context(r: random.Random, kind: str) -> str:
    if kind == "gift":
        (_, oz), (_, wz) = _pick(r, OCCASIONS), _pick(r, RECIPIENTS)
        return (
            f"{oz}快到了，你想给你的{wz}准备一份礼物，预算根据自身情况设定。你打算借助大语言模型"
            "挑选礼物，在对话中需要了解对方可能的喜好、比较几个候选礼物，并确定购买或制作方式。"
            "最终应当选出一份你真正愿意送出的礼物。"
        )
    if kind == "travel":
        (_, pz), (_, sz) = _pick(r, PLACES), _pick(r, SEASONS)
        return (
            f"假设你计划在{sz}和{r.choice(COMPANIONS)}一起去{pz}旅行{r.randint(3, 10)}天，"
            "出发地和预算根据自身情况设定。你希望借助大语言模型完成这次旅行的规划，在对话中需要"
            "确定交通方式、住宿安排和每天的行程。最终方案应当尽量具体，可以真实地按照它出行。"
        )
    if kind == "recipe":
        (_, mz) = _pick(r, MEALS)
        return (
            f"你打算为{r.randint(2, 8)}个人准备{mz}，厨艺水平根据自身情况设定。你希望大语言模型"
            "帮你制定菜谱，在对话中需要确定菜品、列出所需食材，并了解每道菜的做法和合理的烹饪"
            "顺序。最终的菜谱应当可以直接照着做。"
        )
    (_, skz) = _pick(r, SKILLS)
    return (
        f"你想利用{r.randint(4, 52)}周左右的业余时间学习{skz}，此前的基础根据自身情况设定。"
        "你希望借助大语言模型制定学习规划，在对话中需要安排学习进度、整理学习资源，并考虑自己"
        "目前的水平。最终的规划应当切实可行，能够按照它坚持学习。"
    )


def _v2_user_text(r: random.Random, kind: str, first: bool) -> str:
    templates = V2_USER_TEXT[kind]
    template = templates[0] if first else r.choice(templates[1:])
    return template.format(
        o=_pick(r, OCCASIONS)[1],
        w=_pick(r, RECIPIENTS)[1],
        p=_pick(r, PLACES)[1],
        s=_pick(r, SEASONS)[1],
        m=_pick(r, MEALS)[1],
        sk=_pick(r, SKILLS)[1],
        y=_pick(r, TASK_ITEMS[kind])[1],
        n=r.choice((100, 300, 500, 1000)),
        k=r.randint(2, 7),
    )


def _v2_assistant_text(r: random.Random, kind: str) -> str:
    numerals = "一二三四五"
    titles = sorted(r.sample(V2_SECTION_TITLES, r.randint(2, 4)), key=V2_SECTION_TITLES.index)
    sections = []
    for i, title in enumerate(titles):
        items = r.sample(TASK_ITEMS[kind], r.randint(2, 4))
        lines = "\n".join(
            f"{j}. **{z}**：{r.choice(QUALITIES)[1]}的选择，{r.choice(V2_TIPS)}。"
            for j, (_, z) in enumerate(items, 1)
        )
        sections.append(f"### **{numerals[i]}、{title}**\n{lines}")
    return (
        "以下是为你整理的方案，供你参考：\n\n---\n\n"
        + "\n\n---\n\n".join(sections)
        + f"\n\n---\n\n- {r.choice(V2_TIPS)}\n\n需要我根据你的情况进一步调整吗？"
    )


def _v2_profile(r: random.Random) -> dict:
    profile: dict = {
        "gender": r.choice(("Male", "Female")),
        "age": gauss_int(r, 22, 3.5, 17, 38),
        "background": weighted(r, V2_BACKGROUNDS),
    }
    for key in (
        "personality",
        "occupation",
        "daily_interests",
        "travel_habits",
        "dining_preferences",
        "spending_habits",
        "other_aspects",
    ):
        if key == "occupation":
            profile[key] = weighted(r, V2_OCCUPATIONS)
        else:
            profile[key] = r.sample(V2_PROFILE_VOCAB[key], weighted(r, V2_LIST_SIZES[key]))
    return profile


def _v2_file(r: random.Random, task_zh: str, profile: dict, complete_tid: dict | None) -> dict:
    kind = TASK_KIND[task_zh]
    history: list[dict] = []
    n_user = gauss_int(r, 4.3, 1.6, 1, 10)
    for i in range(n_user):
        history.append({"role": "user", "content": _v2_user_text(r, kind, i == 0)})
        turn = {
            "role": "assistant",
            "content": _v2_assistant_text(r, kind),
            "hallucination": weighted(r, V2_HALLUCINATION),
            "satisfaction": weighted(r, V2_SATISFACTION_LATER if i else V2_SATISFACTION_FIRST),
        }
        if int(turn["satisfaction"]) <= 3:
            turn["reason"] = weighted(r, V2_REASONS)
        history.append(turn)
    if r.random() < 0.03:  # the user's last message went unanswered
        history.append({"role": "user", "content": _v2_user_text(r, kind, False)})
    if complete_tid is not None:
        profile = {**profile, "complete_tid": complete_tid}
    return {
        "chat_model": weighted(r, CHAT_MODELS),
        "history": history,
        "task_context": _v2_task_context(r, kind),
        "task_type": task_zh,
        "profile": profile,
        "questionnaire": [
            {
                "query": q,
                "summary": s,
                "option": r.choices(opts, weights=V2_QUESTIONNAIRE_WEIGHTS[s], k=1)[0],
            }
            for s, q, opts, _ in QUESTIONNAIRE
        ],
        "strategy_V3": _strategy(r, V2_STRATEGY_V3),
        "strategy": _strategy(r, V2_STRATEGY),
    }


def _v2_user(r: random.Random, k: int) -> list[tuple[str, dict]]:
    """One human_exp_V2 user: ``[(relative path, document)]``.

    Users ``0, 3, 6, ...`` do all four tasks (the last one twice or more) and users
    ``2, 5, 8, ...`` have no ``complete_tid``, so that every seed shows every variant.
    """
    if k % N_V2_USERS == 0 or r.random() < 0.6:
        tasks = list(HUMAN_TASKS)
    else:
        tasks = r.sample(HUMAN_TASKS, r.randint(1, 3))
    # upstream users mostly start with travel planning, then go on in their own order
    r.shuffle(tasks)
    if "旅行规划" in tasks and r.random() < 0.7:
        tasks.remove("旅行规划")
        tasks.insert(0, "旅行规划")
    profile = _v2_profile(r)
    with_tid = k % N_V2_USERS != N_V2_USERS - 1
    completed: dict[str, list[int]] = {}
    out: list[tuple[str, dict]] = []
    for task_zh in tasks:
        n_files = weighted(r, {1: 0.3, 2: 0.5, 3: 0.2})
        if k % N_V2_USERS == 0 and task_zh == tasks[-1]:
            n_files = max(n_files, 2)  # so that its last task shows up in a complete_tid
        numbers = r.sample(range(V2_MAX_FILES_PER_TASK), n_files)
        published = set(numbers)
        if with_tid and r.random() < 0.3:  # a completed conversation that is not published
            extra = [n for n in range(V2_MAX_FILES_PER_TASK) if n not in published]
            numbers.insert(r.randint(0, len(numbers)), r.choice(extra))
        for number in numbers:
            if number in published:
                tid = {t: list(v) for t, v in completed.items()} if with_tid else None
                doc = _v2_file(r, task_zh, profile, tid)
                out.append((f"human_exp_V2/User_{k}/{task_zh}/{number}.json", doc))
                published.discard(number)
            completed.setdefault(task_zh, [])
            if number not in completed[task_zh]:
                completed[task_zh].append(number)
    return out
