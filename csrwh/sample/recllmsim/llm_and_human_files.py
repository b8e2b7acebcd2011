"""The first release's files: ``LLM_agent_user/<task>/<N>.json`` (LLM-simulated users) and
``real_human_user/User_<k>/<任务>/<N>.json`` (the human study), with their strategy objects."""

from __future__ import annotations

import random

from csrwh.sample._common import gauss_int, weighted
from csrwh.sample.recllmsim.vocabularies import (
    HUMAN_HALLUCINATION,
    HUMAN_INTENTS,
    HUMAN_PROFILE_KEYS,
    HUMAN_TASK_GOAL,
    HUMAN_USER_TEXT,
    LLM_INTENTS,
    MEALS,
    OCCASIONS,
    PLACES,
    PROFILE_VOCAB,
    QUALITIES,
    QUESTIONNAIRE,
    RATING_ASPECTS,
    RECIPIENTS,
    SEASONS,
    SKILLS,
    STRATEGY,
    STRATEGY_V2,
    STRATEGY_V3,
    TASK_ITEMS,
    TASK_KIND,
)


def _pick(r: random.Random, pairs):
    return r.choice(pairs)


def _task_context(r: random.Random, task: str) -> tuple[str, str]:
    n = r.randint(3, 30)
    if task == "preparing gifts":
        (o, oz), (w, wz) = _pick(r, OCCASIONS), _pick(r, RECIPIENTS)
        return (
            (
                f"{o[0].upper() + o[1:]} is coming soon and you want to prepare a gift "
                f"for your {w}. You ask an LLM for ideas, discuss buying or making the gift, "
                f"and keep the budget reasonable."
            ),
            f"{oz}快到了，你想为你的{wz}准备一份礼物。你向LLM寻求建议，讨论购买或亲手制作，并把预算控制在合理范围内。",
        )
    if task in ("travel planning", "new travel planning"):
        (p, pz), (s, sz) = _pick(r, PLACES), _pick(r, SEASONS)
        return (
            (
                f"You plan a {n}-day trip to {p} in {s}. Use an LLM to arrange transport, "
                f"accommodation and a day-by-day schedule you could really follow."
            ),
            f"你计划在{sz}去{pz}旅行{n}天。请借助LLM安排交通、住宿和每日行程，计划要切实可行。",
        )
    if task == "recipe planning":
        (m, mz) = _pick(r, MEALS)
        k = r.randint(2, 8)
        return (
            (
                f"You want to plan {m} for {k} people. Ask an LLM for dishes that fit everyone's "
                f"tastes and dietary needs, with a shopping list."
            ),
            f"你想为{k}个人规划{mz}。请LLM推荐适合大家口味和饮食需求的菜品，并给出购物清单。",
        )
    (sk, skz) = _pick(r, SKILLS)
    return (
        (
            f"You want to learn {sk} within {n} weeks in your spare time. Ask an LLM to help you "
            f"plan resources, milestones and a weekly routine."
        ),
        f"你想在{n}周内利用业余时间学习{skz}。请LLM帮你规划学习资源、阶段目标和每周安排。",
    )


def _assistant_text(r: random.Random, kind: str) -> tuple[str, str]:
    picks = r.sample(TASK_ITEMS[kind], r.randint(2, 4))
    quals = [r.choice(QUALITIES) for _ in picks]
    en = (
        "Here are a few ideas:\n\n"
        + "\n\n".join(
            f"{i}. {e[0].upper() + e[1:]}: a {q[0]} option."
            for i, ((e, _), q) in enumerate(zip(picks, quals), 1)
        )
        + "\n\nLet me know which one you prefer!"
    )
    zh = (
        "以下是一些建议：\n\n"
        + "\n\n".join(
            f"{i}. **{z}**：{q[1]}的选择。" for i, ((_, z), q) in enumerate(zip(picks, quals), 1)
        )
        + "\n\n你更喜欢哪一个？"
    )
    return en, zh


def _user_text(r: random.Random, kind: str, first: bool) -> tuple[str, str]:
    (e, z) = _pick(r, TASK_ITEMS[kind])
    if first:
        return r.choice(
            (
                (
                    "Hello! I'm looking for some advice on my plan. Do you have any suggestions?",
                    "你好！我想就我的计划寻求一些建议，你有什么想法吗？",
                ),
                (
                    "Hi, could you help me put together a plan? I'd like something practical.",
                    "你好，能帮我制定一个计划吗？我希望它切实可行。",
                ),
            )
        )
    return r.choice(
        (
            (
                f"I like the idea of {e}. Could you tell me more?",
                f"我喜欢{z}这个主意，能详细说说吗？",
            ),
            (f"What about {e} instead? Is it within budget?", f"那换成{z}呢？在预算内吗？"),
            (
                "Thanks, that's very helpful. Could you summarize the plan?",
                "谢谢，很有帮助。能总结一下计划吗？",
            ),
            (f"I'd rather avoid {e}. Any alternatives?", f"我不太想要{z}，有其他选择吗？"),
        )
    )


def _profile(r: random.Random) -> dict:
    out: dict = {
        "Gender": dict(zip(("en", "zh"), r.choice((("Female", "女"), ("Male", "男"))))),
        "Age": {"en": str(a := r.randint(18, 60)), "zh": str(a)},
    }
    for key, vocab in PROFILE_VOCAB.items():
        if key == "Occupation":
            e, z = r.choice(vocab)
            out[key] = {"en": e, "zh": z}
        else:
            out[key] = [{"en": e, "zh": z} for e, z in r.sample(vocab, r.randint(1, 3))]
    return out


def _preference_text(p: dict) -> tuple[str, str]:
    def en(v):
        return v["en"] if isinstance(v, dict) else ", ".join(x["en"] for x in v)

    def zh(v):
        return v["zh"] if isinstance(v, dict) else "，".join(x["zh"] for x in v)

    names_zh = (
        "性别",
        "年龄",
        "个性",
        "职业",
        "日常兴趣爱好",
        "旅行习惯",
        "餐饮喜好",
        "消费习惯",
        "其他方面",
    )
    en_lines = [f"{i}. {k}: {en(v)}" for i, (k, v) in enumerate(p.items(), 1)]
    zh_parts = [
        f"{i}. {names_zh[i - 1]}：{zh(v)}{'岁' if k == 'Age' else ''}"
        for i, (k, v) in enumerate(p.items(), 1)
    ]
    return "\n".join(en_lines), "，".join(zh_parts)


def _ensemble(values: list):
    """Upstream's ``final``: rounded mean of 1..5 scores, majority label otherwise."""
    if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return int(sum(values) / len(values) + 0.5)
    return max(values, key=values.count)  # first of the most common (a majority for 3 runs)


def _strategy(
    r: random.Random, table: dict, keys=("final", "1", "2", "3"), agree: float = 0.85
) -> dict:
    """``final`` plus classifier runs that mostly agree on one drawn value per attribute."""
    runs = [k for k in keys if k != "final"]
    truth = {a: weighted(r, w) for a, w in table.items()}
    out: dict = {k: {} for k in keys}
    for a, w in table.items():
        values = [truth[a] if r.random() < agree else weighted(r, w) for _ in runs]
        if len(values) == 3 and len(set(values)) == 3 and not isinstance(values[0], int):
            values[2] = values[0]  # labels always have a majority upstream
        if "final" in out:
            out["final"][a] = _ensemble(values) if values else truth[a]
        for k, v in zip(runs, values):
            out[k][a] = v
    return out


def _llm_file(r: random.Random, task: str, index: int) -> dict:
    profile = _profile(r)
    pref, pref_zh = _preference_text(profile)
    ctx, ctx_zh = _task_context(r, task)
    history: list[dict] = []
    n_user = gauss_int(r, 3.8, 1.6, 1, 10)
    for i in range(n_user):
        content, content_zh = _user_text(r, TASK_KIND[task], i == 0)
        intent, intent_zh = weighted(r, LLM_INTENTS)
        if i == 0:
            history.append(
                {
                    "role": "user",
                    "content": content,
                    "content_zh": content_zh,
                    "intent_zh": intent_zh,
                    "intent": intent,
                }
            )
        else:
            history.append(
                {
                    "role": "user",
                    "content": content,
                    "content_zh": content_zh,
                    "intent": intent,
                    "intent_zh": intent_zh,
                }
            )
        a_en, a_zh = _assistant_text(r, TASK_KIND[task])
        halluc = r.random() < 0.02
        turn = {
            "role": "assistant",
            "content": a_en,
            "content_zh": a_zh,
            "hallucination": {
                "hallucination": halluc,
                "memo": r.choice(("网址不存在", "电话无法核实", "景点不对外开放"))
                if halluc
                else "No Hallucination",
            },
        }
        if not halluc and r.random() < 0.04:
            turn["hallucination"]["memo"] = "Translation Problem Fixed"
            turn["content_zh_old"] = a_zh.replace("建议", "意见")
        history.append(turn)
    summary = r.sample(
        (
            "budget-friendly",
            "personal",
            "meaningful",
            "practical",
            "relaxing",
            "cultural",
            "healthy",
            "step by step",
            "hands-on",
            "well organised",
        ),
        weighted(r, {3: 0.65, 2: 0.12, 5: 0.13, 4: 0.06, 1: 0.04}),
    )
    doc: dict = {
        "task": task,
        "preference_id": r.randint(0, 99),
        "task_context_id": r.randint(0, 19),
        "preference": pref,
        "preference_zh": pref_zh,
        "task_context": ctx,
        "task_context_zh": ctx_zh,
        "history": history,
        "conflict": r.random() < 0.05,
    }
    if task != "new travel planning":
        doc["preference_summary_old"] = r.sample(summary, len(summary))
    doc["preference_summary"] = summary
    doc["rating"] = {k: weighted(r, w) for k, w in RATING_ASPECTS.items()}
    doc["profile_mapped"] = profile
    doc["strategy"] = _strategy(r, STRATEGY)
    doc["strategy_V2"] = _strategy(r, STRATEGY_V2)
    if index % 8 == 7:
        doc["strategy_1120"] = _strategy(r, STRATEGY)
    doc["strategy_V3"] = _strategy(r, STRATEGY_V3)
    return doc


def _human_file(r: random.Random, task_zh: str, as_repr: bool) -> dict:
    history: list[dict] = []
    n_user = gauss_int(r, 4.6, 2.3, 1, 14)
    for i in range(n_user):
        template = HUMAN_USER_TEXT[0] if i == 0 else r.choice(HUMAN_USER_TEXT[1:])
        content = template.format(
            x=HUMAN_TASK_GOAL[task_zh],
            n=r.choice((200, 500, 2000, 5000)),
            y=r.choice(TASK_ITEMS[TASK_KIND[task_zh]])[1],
            k=r.randint(1, 7),
        )
        k = weighted(r, {1: 0.79, 2: 0.2, 3: 0.01})
        history.append(
            {
                "role": "user",
                "content": content,
                "intent": r.sample(list(HUMAN_INTENTS), k)
                if k > 1
                else [weighted(r, HUMAN_INTENTS)],
            }
        )
        _, zh = _assistant_text(r, TASK_KIND[task_zh])
        history.append(
            {"role": "assistant", "content": zh, "hallucination": weighted(r, HUMAN_HALLUCINATION)}
        )
    profile: dict = {"gender": r.choice(("Male", "Female")), "age": r.randint(18, 27)}
    for key, vocab_key in HUMAN_PROFILE_KEYS.items():
        vocab = [z for e, z in PROFILE_VOCAB[vocab_key] if e != "Others"]
        if key == "occupation":
            profile[key] = "学生" if r.random() < 0.9 else "工程师"
        else:
            profile[key] = r.sample(vocab, r.randint(1, 4))
    questionnaire = [
        {"query": q, "summary": s, "option": r.choices(opts, weights=w, k=1)[0]}
        for s, q, opts, w in QUESTIONNAIRE
    ]
    doc: dict = {
        "history": history,
        "task_context": _task_context(
            r,
            {
                "礼物准备": "preparing gifts",
                "旅行规划": "travel planning",
                "菜谱规划": "recipe planning",
            }.get(task_zh, "skills"),
        )[1],
        "task_type": task_zh,
        "profile": repr(profile) if as_repr else profile,
        "questionnaire": repr(questionnaire) if as_repr else questionnaire,
        "strategy": _strategy(r, STRATEGY),
        "strategy_V2": _strategy(r, STRATEGY_V2),
    }
    human = r.random() < 0.15
    if human:
        doc["strategy_human"] = _strategy(
            r, {k: v for k, v in STRATEGY.items() if k != "order"}, ("final",)
        )
        doc["strategy_human_V2"] = _strategy(r, STRATEGY_V2, ("final",))
    doc["strategy_V3"] = _strategy(r, STRATEGY_V3)
    if human:
        doc["strategy_human_V3"] = _strategy(r, STRATEGY_V3, ("final",))
    return doc
