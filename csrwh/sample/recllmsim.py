"""Synthetic RecLLMSim (github.com/wzf2000/RecLLMSim) in the repository's current layout.

Layout: ``LLM_agent_user/<task>/<N>.json`` (English task folder names) and
``real_human_user/User_<k>/<任务>/<N>.json`` (Chinese task folder names). One
conversation per file, written like upstream: ``json.dumps(obj, indent=4,
ensure_ascii=False)`` in UTF-8, no final newline.

Variants exercised on purpose (all seen upstream or in NOTES.md):
- LLM-agent files carry ``preference_summary_old`` except in ``new travel planning``;
  a few carry ``strategy_1120``; the first user turn lists ``intent_zh`` before
  ``intent``; a few assistant turns carry ``content_zh_old``.
- real-human files: ``profile`` / ``questionnaire`` are objects in about half of the
  files and Python ``repr`` strings (``ast.literal_eval``-able) in the other half; some
  files add ``strategy_human``, ``strategy_human_V2``, ``strategy_human_V3``.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from csrwh.sample._common import gauss_int, make_rng, weighted, write_text

FOLDER = "recllmsim"

LLM_TASKS = (
    "new travel planning",
    "preparing gifts",
    "recipe planning",
    "skills learning planning",
    "travel planning",
)
HUMAN_TASKS = ("礼物准备", "旅行规划", "菜谱规划", "技能学习规划")
N_LLM_PER_TASK = 8
N_HUMAN_USERS = 4
N_HUMAN_PER_TASK = 2

LLM_INTENTS = {
    ("Planning", "规划"): 0.34,
    ("Others", "其他"): 0.28,
    ("Recommendation", "推荐"): 0.18,
    ("Search & Recommendation", "检索+推荐"): 0.14,
    ("Search", "检索"): 0.06,
}
HUMAN_INTENTS = {"推荐": 0.44, "规划": 0.38, "评估": 0.13, "其它": 0.05}
HUMAN_HALLUCINATION = {"否": 0.9, "是": 0.05, "无法判断": 0.05}

RATING_ASPECTS = {
    "Preference Alignment": {0: 0.01, 1: 0.49, 2: 0.5},
    "Additional Preferences": {0: 0.75, 1: 0.25},
    "Role-Playing Completeness": {0: 0.13, 1: 0.16, 2: 0.71},
    "Memorization": {0: 0.04, 1: 0.96},
    "Detail Level": {0: 0.02, 1: 0.1, 2: 0.88},
    "Practical Usefulness": {0: 0.01, 1: 0.16, 2: 0.83},
    "Diversity": {0: 0.13, 1: 0.13, 2: 0.74},
}

# profile_mapped vocabularies: (en, zh)
PROFILE_VOCAB: dict[str, tuple[tuple[str, str], ...]] = {
    "Personality": (
        ("Determined", "坚定"),
        ("Independent", "独立"),
        ("Friendly", "友善"),
        ("Patient", "耐心"),
        ("Ambitious", "上进"),
        ("Confident", "自信"),
        ("Extroverted", "外向"),
        ("Optimistic", "乐观"),
        ("Meticulous", "细致"),
        ("Humorous", "幽默"),
        ("Calm", "冷静"),
        ("Others", "其他"),
    ),
    "Occupation": (
        ("Artist", "艺术工作者"),
        ("Student", "学生"),
        ("Engineer", "工程师"),
        ("Medical staff", "医护人员"),
        ("Educators", "教师"),
        ("Others", "其他"),
    ),
    "Daily Interests and Hobbies": (
        ("Sports", "运动"),
        ("Reading", "阅读"),
        ("Painting", "绘画"),
        ("Writing", "写作"),
        ("Gaming", "玩游戏"),
        ("Listening to music", "听音乐"),
        ("Crafting", "手工艺制作"),
        ("Photography", "摄影"),
        ("Others", "其他"),
    ),
    "Travel Habits": (
        ("Frequently travels for work", "经常出差"),
        ("Cultural trips", "文化旅行"),
        ("Self-driving tour", "自驾游"),
        ("Nature-based destinations", "自然风光"),
        ("Prefers calm and serene locations", "喜欢宁静"),
        ("Visiting family", "探亲"),
        ("International travel", "国际旅行"),
        ("Others", "其他"),
    ),
    "Dining Preferences": (
        ("Loves trying new cuisines", "尝鲜"),
        ("Fast food", "快餐"),
        ("Street food", "街头小吃"),
        ("Vegan", "素食"),
        ("Healthy food", "健康饮食"),
        ("Japanese cuisine", "日料"),
        ("Seafood", "海鲜"),
        ("Baking", "烘焙"),
        ("Others", "其他"),
    ),
    "Spending Habits": (
        ("Spends on fashion", "时尚支出"),
        ("Spends on entertainment", "娱乐支出"),
        ("Saves for future", "为未来储蓄"),
        ("Spends on tech gadgets", "科技产品"),
        ("Spends on books", "购买书籍"),
        ("High spender", "高消费"),
        ("Invests in art pieces", "投资艺术品"),
        ("Others", "其他"),
    ),
    "Other Aspects": (
        ("Living in a rented house", "租房"),
        ("Active in volunteer activities", "喜欢参与志愿活动"),
        ("Active in academic activities", "喜欢参与学术活动"),
        ("Living in a dormitory", "住在宿舍"),
        ("Has a large social circle", "社交广泛"),
        ("High life pressure", "生活压力大"),
        ("Others", "其他"),
    ),
}
HUMAN_PROFILE_KEYS = {
    "personality": "Personality",
    "occupation": "Occupation",
    "daily_interests": "Daily Interests and Hobbies",
    "travel_habits": "Travel Habits",
    "dining_preferences": "Dining Preferences",
    "spending_habits": "Spending Habits",
    "other_aspects": "Other Aspects",
}

QUESTIONNAIRE = (
    ("Memorization", "对话中对方是否忘记了前面提到过的内容", ("否", "是"), (0.9, 0.1)),
    (
        "Detail",
        "整体来看，对方对每个选项的介绍是否足够详细",
        ("详细", "一般", "简略"),
        (0.6, 0.36, 0.04),
    ),
    (
        "Availability",
        "整体来看，对方的回答对你解决真实问题有多大帮助",
        ("很有用", "有一定参考", "不可用"),
        (0.44, 0.52, 0.04),
    ),
    ("Diversity", "请给对方回答的多样性打分", ("结果多样", "一般", "结果单一"), (0.57, 0.37, 0.06)),
)

STRATEGY = {
    "information_request": {"Planning": 0.9, "Sequential": 0.1},
    "order": {"Comprehensive": 0.9, "Breadth": 0.05, "Depth": 0.05},
    "context": {"Low": 0.55, "High": 0.45},
    "question": {"Specific": 0.75, "Broad": 0.25},
}
STRATEGY_V2 = {
    "order": {"BreadthDepth": 0.8, "Breadth": 0.14, "DepthBreadth": 0.05, "Depth": 0.01},
    "feedback": {"Positive": 0.95, "Both": 0.03, "NoFeedback": 0.015, "Negative": 0.005},
}
STRATEGY_V3 = {
    "question_broadness": {4: 0.53, 3: 0.4, 2: 0.055, 5: 0.01, 1: 0.005},
    "context_dependency": {3: 0.78, 4: 0.15, 2: 0.04, 5: 0.02, 1: 0.01},
    "feedback": {"Positive": 0.97, "Both": 0.01, "NoFeedback": 0.015, "Negative": 0.005},
}

# Task texts (en, zh) with placeholders.
OCCASIONS = (
    ("Teacher's Day", "教师节"),
    ("a birthday", "生日"),
    ("the Spring Festival", "春节"),
    ("a wedding anniversary", "结婚纪念日"),
    ("graduation", "毕业"),
)
RECIPIENTS = (
    ("teacher", "老师"),
    ("mother", "母亲"),
    ("best friend", "好朋友"),
    ("grandfather", "爷爷"),
    ("colleague", "同事"),
)
PLACES = (
    ("Yunnan", "云南"),
    ("Japan", "日本"),
    ("Iceland", "冰岛"),
    ("Xi'an", "西安"),
    ("the Swiss Alps", "瑞士阿尔卑斯山"),
    ("Hainan", "海南"),
    ("Portugal", "葡萄牙"),
)
SEASONS = (("spring", "春天"), ("summer", "夏天"), ("autumn", "秋天"), ("winter", "冬天"))
MEALS = (
    ("a family dinner", "家庭晚餐"),
    ("a week of lunches", "一周的午餐"),
    ("a birthday party menu", "生日聚会菜单"),
    ("healthy breakfasts", "健康早餐"),
)
SKILLS = (
    ("photography", "摄影"),
    ("Python programming", "Python编程"),
    ("guitar", "吉他"),
    ("swimming", "游泳"),
    ("public speaking", "公开演讲"),
    ("Japanese", "日语"),
)
TASK_ITEMS = {
    "gift": (
        ("a handwritten card", "手写贺卡"),
        ("a scented candle set", "香薰蜡烛套装"),
        ("a leather notebook", "皮面笔记本"),
        ("a tea gift box", "茶叶礼盒"),
        ("a photo album", "相册"),
        ("a desk plant", "桌面绿植"),
        ("a thermos cup", "保温杯"),
    ),
    "travel": (
        ("a city walking tour", "城市徒步游"),
        ("a local guesthouse", "当地民宿"),
        ("a high-speed train ticket", "高铁票"),
        ("a day at the museum", "博物馆一日游"),
        ("a night market visit", "夜市之行"),
        ("a lakeside hotel", "湖边酒店"),
    ),
    "recipe": (
        ("a steamed fish dish", "清蒸鱼"),
        ("a vegetable soup", "蔬菜汤"),
        ("a tomato egg stir-fry", "番茄炒蛋"),
        ("a fruit salad", "水果沙拉"),
        ("braised tofu", "红烧豆腐"),
        ("a mushroom risotto", "蘑菇烩饭"),
    ),
    "skill": (
        ("an online course", "网课"),
        ("a practice schedule", "练习计划表"),
        ("a beginner's textbook", "入门教材"),
        ("a weekend workshop", "周末工作坊"),
        ("a study group", "学习小组"),
        ("a one-on-one tutor", "一对一辅导"),
    ),
}
TASK_KIND = {
    "preparing gifts": "gift",
    "travel planning": "travel",
    "new travel planning": "travel",
    "recipe planning": "recipe",
    "skills learning planning": "skill",
    "礼物准备": "gift",
    "旅行规划": "travel",
    "菜谱规划": "recipe",
    "技能学习规划": "skill",
}
QUALITIES = (
    ("practical", "实用"),
    ("thoughtful", "贴心"),
    ("popular", "受欢迎"),
    ("simple", "简单"),
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


def _strategy(r: random.Random, table: dict, keys=("final", "1", "2", "3")) -> dict:
    return {k: {a: weighted(r, w) for a, w in table.items()} for k in keys}


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


HUMAN_USER_TEXT = (
    "我想{x}，预算在{n}元以内，请给我一些建议。",
    "不要{y}，请换成其他类别的具体建议。",
    "{y}听起来不错，能再详细介绍一下吗？",
    "请帮我把以上内容整理成一个完整的计划。",
    "第{k}天的安排能再轻松一点吗？",
    "谢谢，这个方案可以。",
)
HUMAN_TASK_GOAL = {
    "礼物准备": "给家人准备一份礼物",
    "旅行规划": "规划一次旅行",
    "菜谱规划": "安排一周的菜谱",
    "技能学习规划": "学习一项新技能",
}


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


def _dump(doc: dict) -> str:
    return json.dumps(doc, indent=4, ensure_ascii=False)


def write(folder: Path, scale: int, seed: int) -> list[str]:
    """Write the RecLLMSim files under ``folder``; return their relative POSIX paths."""
    written: list[str] = []
    for task in LLM_TASKS:
        r = make_rng(seed, FOLDER, "llm", task)
        for i in range(N_LLM_PER_TASK * scale):
            rel = f"LLM_agent_user/{task}/{i}.json"
            write_text(folder / rel, _dump(_llm_file(r, task, i)))
            written.append(rel)
    n_files = 0
    for k in range(N_HUMAN_USERS * scale):
        r = make_rng(seed, FOLDER, "human", k)
        for task_zh in HUMAN_TASKS:
            for number in sorted(r.sample(range(33), N_HUMAN_PER_TASK)):
                rel = f"real_human_user/User_{k}/{task_zh}/{number}.json"
                write_text(folder / rel, _dump(_human_file(r, task_zh, as_repr=n_files % 2 == 0)))
                written.append(rel)
                n_files += 1
    return sorted(written)


__all__ = ["FOLDER", "HUMAN_TASKS", "LLM_TASKS", "write"]
