"""Synthetic RecLLMSim (github.com/wzf2000/RecLLMSim) in the repository's current layout.

Layout: ``LLM_agent_user/<task>/<N>.json`` (English task folder names),
``real_human_user/User_<k>/<任务>/<N>.json`` and ``human_exp_V2/User_<k>/<任务>/<N>.json``
(Chinese task folder names). One conversation per file, written like upstream:
``json.dumps(obj, indent=4, ensure_ascii=False)`` in UTF-8, no final newline.

Variants exercised on purpose (all seen upstream or in NOTES.md):
- LLM-agent files carry ``preference_summary_old`` except in ``new travel planning``;
  a few carry ``strategy_1120``; the first user turn lists ``intent_zh`` before
  ``intent``; a few assistant turns carry ``content_zh_old``.
- real-human files: ``profile`` / ``questionnaire`` are objects in about half of the
  files and Python ``repr`` strings (``ast.literal_eval``-able) in the other half; some
  files add ``strategy_human``, ``strategy_human_V2``, ``strategy_human_V3``.
- human_exp_V2 files (the newer human study): ``chat_model`` names the assistant model;
  user turns carry no intent; every assistant turn carries ``hallucination`` and a
  ``satisfaction`` string digit '1'..'5', plus a ``reason`` category when the score is
  3 or lower; ``profile`` is one object per user, and ``profile.complete_tid`` (present
  for some users only) lists the task numbers the user had completed before this one;
  ``strategy_V3`` precedes ``strategy``; there is no ``strategy_V2``; a few
  conversations end with an unanswered user message.

In every subset the strategy objects hold three classifier runs ``'1'``..``'3'`` and
their ensemble ``'final'`` (majority for labels, rounded mean for the 1..5 scores), as
upstream.
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
SUBSETS = ("LLM_agent_user", "human_exp_V2", "real_human_user")
N_LLM_PER_TASK = 8
N_HUMAN_USERS = 4
N_HUMAN_PER_TASK = 2
N_V2_USERS = 3
V2_MAX_FILES_PER_TASK = 6  # upstream numbers a user's conversations of one task 0..5

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


# --------------------------------------------------------------------------- human_exp_V2

CHAT_MODELS = {
    "gpt-4-turbo-preview": 0.29,
    "gemini-2.0-pro-exp-02-05": 0.27,
    "claude-3-7-sonnet-20250219": 0.25,
    "deepseek-v3": 0.19,
}
V2_HALLUCINATION = {"否": 0.93, "无法判断": 0.04, "是": 0.03}
V2_SATISFACTION_FIRST = {"5": 0.38, "4": 0.40, "3": 0.15, "2": 0.05, "1": 0.02}
V2_SATISFACTION_LATER = {"5": 0.48, "4": 0.38, "3": 0.09, "2": 0.03, "1": 0.02}
V2_REASONS = {"不够细致": 0.37, "不满足需求": 0.24, "不够多样": 0.17, "不可用": 0.15, "其它": 0.07}
V2_QUESTIONNAIRE_WEIGHTS = {
    "Memorization": (0.93, 0.07),
    "Detail": (0.69, 0.28, 0.03),
    "Availability": (0.62, 0.37, 0.01),
    "Diversity": (0.71, 0.26, 0.03),
}
V2_STRATEGY = {
    "information_request": {"Planning": 0.54, "Sequential": 0.46},
    "order": {"Comprehensive": 0.77, "Depth": 0.17, "Breadth": 0.06},
    "context": {"High": 0.67, "Low": 0.33},
    "question": {"Specific": 0.89, "Broad": 0.11},
}
V2_STRATEGY_V3 = {
    "question_broadness": {4: 0.61, 3: 0.29, 5: 0.05, 2: 0.04, 1: 0.01},
    "context_dependency": {3: 0.53, 4: 0.33, 5: 0.08, 2: 0.05, 1: 0.01},
    "feedback": {"NoFeedback": 0.55, "Positive": 0.28, "Both": 0.1, "Negative": 0.07},
}
V2_PROFILE_VOCAB = {
    "personality": (
        "乐观", "友善", "细致", "随性", "幽默", "耐心", "独立", "上进", "内向", "坚定", "冷静",
        "外向", "自信",
    ),
    "daily_interests": (
        "听音乐", "玩游戏", "看电视", "运动", "阅读", "网购", "摄影", "养宠物", "烘焙/烹饪",
        "手工艺制作", "绘画", "下棋", "写作",
    ),
    "travel_habits": (
        "自然风光", "美食之旅", "户外活动", "参观博物馆", "喜欢宁静", "文化旅行", "自驾游",
        "家庭旅行", "国际旅行", "经常出差", "探亲",
    ),
    "dining_preferences": (
        "烧烤", "中式美食", "街头小吃", "均衡饮食", "健康饮食", "海鲜", "快餐", "尝鲜", "外卖",
        "烘焙", "日式美食", "素食",
    ),
    "spending_habits": (
        "注重消费体验", "娱乐支出", "用于旅行", "质量大于数量", "节俭", "为未来储蓄", "时尚支出",
        "科技产品", "购买书籍",
    ),
    "other_aspects": (
        "住在宿舍", "喜欢参与音乐活动", "养小动物", "喜欢参与体育活动", "社交广泛",
        "喜欢参与志愿活动", "独自生活", "家庭生活", "生活压力大", "租房", "无符合描述",
    ),
}  # fmt: skip
V2_LIST_SIZES = {
    "personality": {3: 0.42, 4: 0.42, 2: 0.1, 5: 0.04, 1: 0.02},
    "daily_interests": {3: 0.47, 4: 0.31, 2: 0.18, 5: 0.04},
    "travel_habits": {3: 0.41, 4: 0.36, 2: 0.2, 5: 0.03},
    "dining_preferences": {3: 0.44, 4: 0.34, 2: 0.2, 5: 0.02},
    "spending_habits": {3: 0.43, 4: 0.28, 2: 0.24, 1: 0.03, 0: 0.01, 5: 0.01},
    "other_aspects": {2: 0.41, 3: 0.26, 4: 0.21, 1: 0.11, 5: 0.01},
}
V2_BACKGROUNDS = {
    "信息科学与技术": 0.28,
    "工程与应用科学": 0.19,
    "医学与健康科学": 0.14,
    "其他": 0.12,
    "人文与艺术": 0.09,
    "自然科学": 0.08,
    "社会科学与行为科学": 0.06,
    "交叉与前沿学科": 0.04,
}
V2_OCCUPATIONS = {
    "学生": 0.81,
    "其他": 0.05,
    "工程师": 0.04,
    "艺术工作者": 0.03,
    "医护人员": 0.03,
    "教师": 0.02,
    "自媒体工作者": 0.02,
}
COMPANIONS = ("朋友", "家人", "室友", "同学", "父母")
V2_USER_TEXT = {
    "gift": (
        "{o}快到了，我想给{w}送一份礼物，预算{n}元左右，有什么推荐吗",
        "{y}不错，还有类似的选择吗",
        "{w}平时比较喜欢安静，{y}合适吗",
        "能帮我比较一下这几个礼物的优缺点吗",
        "在哪里买比较方便？",
    ),
    "travel": (
        "我打算{s}去{p}玩{k}天，帮我做个行程规划",
        "住宿想要{y}，有推荐吗",
        "第{k}天的安排太赶了，能调整一下吗",
        "交通方面怎么安排比较省时间",
        "帮我把完整的行程整理一下",
    ),
    "recipe": (
        "我想给{k}个人做{m}，帮我推荐几道菜",
        "{y}的具体做法是什么",
        "换一道清淡一点的菜吧",
        "需要提前准备哪些食材？",
        "帮我安排一下做菜的先后顺序",
    ),
    "skill": (
        "我想在{k}个月内学会{sk}，目前零基础，怎么规划比较好",
        "有没有适合初学者的{y}推荐",
        "我每天只有一个小时，这个进度能完成吗",
        "第一个月具体每周学什么",
        "谢谢，这个计划很清楚",
    ),
}
V2_SECTION_TITLES = ("整体思路", "具体推荐", "时间安排", "预算参考", "注意事项")
V2_TIPS = (
    "提前确认时间和预算，避免临时调整",
    "可以根据自己的实际情况灵活取舍",
    "建议先从最简单的一项开始尝试",
    "遇到高峰期记得预留充足时间",
    "保留一到两个备选方案",
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
    for k in range(N_V2_USERS * scale):
        r = make_rng(seed, FOLDER, "human_exp_V2", k)
        for rel, doc in _v2_user(r, k):
            write_text(folder / rel, _dump(doc))
            written.append(rel)
    return sorted(written)


__all__ = ["FOLDER", "HUMAN_TASKS", "LLM_TASKS", "SUBSETS", "write"]
