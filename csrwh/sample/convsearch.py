"""Synthetic ConvSearch (github.com/chuzhumin98/ConvSearch-Dataset) main part.

``Dialogs.json`` and ``SearchBehaviors.json`` in the format the upstream README and NOTES.md
describe (the real files are not available here).
Details: docs/internals.md#csrwh-sample-convsearch
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from urllib.parse import quote

from csrwh.sample._common import (
    HEX,
    URLSAFE,
    ZH_COMMON,
    ZH_TOPIC_WORDS,
    gauss_int,
    geometric_extra,
    make_rng,
    rand_string,
    weighted,
    write_text,
    zh_sentence,
)

FOLDER = "convsearch"
N_DIALOGUES = 40
T0 = 1634860800.0  # 2021-10-22, the study's collection period

TOPICS = ("politics", "others", "fashion", "health", "history", "food", "technology", "sports")
TOPIC_WEIGHTS = {
    "food": 0.2,
    "technology": 0.18,
    "health": 0.15,
    "others": 0.15,
    "sports": 0.1,
    "history": 0.09,
    "fashion": 0.08,
    "politics": 0.05,
}

USER_INTENTS = (
    "reveal-initiate",
    "reveal-continue",
    "reveal-inspire",
    "revise",
    "interpret",
    "chitchat",
    "others",
)
AGENT_ACTIONS = (
    "clarify",
    "answer-single-fact",
    "answer-multi-fact",
    "answer-opinion",
    "no-answer",
    "chitchat",
    "others",
)
LATER_USER_INTENT = {
    "reveal-continue": 0.34,
    "revise": 0.15,
    "interpret": 0.14,
    "reveal-inspire": 0.1,
    "chitchat": 0.12,
    "others": 0.07,
    "reveal-initiate": 0.08,
}
AGENT_ACTION_W = {
    "answer-multi-fact": 0.3,
    "answer-single-fact": 0.25,
    "clarify": 0.18,
    "answer-opinion": 0.12,
    "chitchat": 0.07,
    "no-answer": 0.05,
    "others": 0.03,
}
SOURCES = {"baidu": 0.55, "bing": 0.12, "zhihu": 0.15, "sogou": 0.1, "douban": 0.08}
MERGED_TURNS = {
    3: 0.05,
    4: 0.15,
    5: 0.1,
    6: 0.2,
    7: 0.12,
    8: 0.15,
    9: 0.07,
    10: 0.08,
    12: 0.05,
    14: 0.03,
}
RATING = {0: 0.03, 1: 0.07, 2: 0.2, 3: 0.35, 4: 0.35}

INTENT_TEMPLATES = ("寻找{a}的{b}", "了解{a}和{b}的区别", "想知道{a}{b}怎么样", "为{b}挑选{a}")
USER_TEMPLATES = (
    "{a}和{b}哪个更好？",
    "我想了解一下{a}的{c}",
    "有没有适合{c}的{a}推荐？",
    "{a}怎么选比较好？",
    "那{b}呢？",
    "可以再说说{c}吗？",
    "谢谢！",
    "{a}一般多少钱？",
)
AGENT_TEMPLATES = (
    "请问你想了解的是{a}的哪方面呢？",
    "根据搜索结果，{a}的{c}主要有以下几点：第一，{b}；第二，{d}。",
    "我查了一下，{a}比{b}更{c}一些，你可以参考。",
    "网上的评价是{a}的{c}不错，不过{b}也值得考虑。",
    "好的，我再帮你找找{a}相关的信息。",
)


def _rating(r: random.Random) -> int:
    return weighted(r, RATING)


def _labels(r: random.Random, truth: str, vocab: tuple[str, ...]) -> tuple[list[str], list[str]]:
    primary = [truth if r.random() < 0.78 else r.choice(vocab) for _ in range(3)]
    secondary = ["" if r.random() < 0.8 else r.choice(vocab) for _ in range(3)]
    return primary, secondary


def _fill(r: random.Random, template: str, bank: tuple[str, ...]) -> str:
    return template.format(
        a=r.choice(bank),
        b=r.choice(bank),
        c=r.choice(ZH_COMMON),
        d=r.choice(bank) + r.choice(ZH_COMMON),
    )


def _query(r: random.Random, bank: tuple[str, ...]) -> str:
    words = [r.choice(bank), r.choice(ZH_COMMON)]
    if r.random() < 0.6:
        words.append(r.choice(bank))
    if r.random() < 0.5:
        words.append(r.choice(ZH_COMMON))
    sep = " " if r.random() < 0.35 else ""
    return sep.join(words)


def _serp_url(source: str, query: str, page: int) -> str:
    q = quote(query)
    if source == "baidu":
        return f"https://www.baidu.com/s?wd={q}" + (f"&pn={(page - 1) * 10}" if page > 1 else "")
    if source == "sogou":
        return f"https://www.sogou.com/web?query={q}" + (f"&page={page}" if page > 1 else "")
    if source == "bing":
        return f"https://cn.bing.com/search?q={q}" + (
            f"&first={(page - 1) * 10 + 1}" if page > 1 else ""
        )
    if source == "zhihu":
        return f"https://www.zhihu.com/search?type=content&q={q}"
    return f"https://www.douban.com/search?q={q}"


def _landing(r: random.Random, source: str) -> tuple[str, str]:
    """(clicked href on the SERP, resolved landing-page URL)."""
    if source == "zhihu":
        question, answer = r.randint(10**7, 6 * 10**8), r.randint(10**8, 3 * 10**9)
        url = f"https://www.zhihu.com/question/{question}/answer/{answer}"
        return url, url
    if source == "douban":
        url = f"https://www.douban.com/note/{r.randint(10**8, 9 * 10**8)}/"
        return url, url
    landing = r.choice(
        (
            f"https://baike.baidu.com/item/{rand_string(r, URLSAFE, 10)}",
            f"https://zhidao.baidu.com/question/{r.randint(10**8, 10**10)}.html",
            f"https://www.jianshu.com/p/{rand_string(r, HEX, 12)}",
            f"https://zhuanlan.zhihu.com/p/{r.randint(10**7, 5 * 10**8)}",
            f"https://www.sohu.com/a/{r.randint(10**8, 6 * 10**8)}_{r.randint(100000, 999999)}",
        )
    )
    if source == "baidu":
        href = (
            f"https://www.baidu.com/link?url={rand_string(r, URLSAFE, 106)}"
            f"&wd=&eqid={rand_string(r, HEX, 32)}"
        )
    elif source == "sogou":
        href = f"https://www.sogou.com/link?url={rand_string(r, URLSAFE, 64)}"
    else:
        href = landing
    return href, landing


class _Ids:
    def __init__(self) -> None:
        self.turn = 1
        self.query = 1
        self.pagelog = 1
        self.html = 1


def _behaviour(
    r: random.Random, ids: _Ids, bank, dialog_id: int, turn_id: int, t_start: float, t_end: float
) -> dict:
    """One query request issued between t_start and t_end (seconds)."""
    source = weighted(r, SOURCES)
    query = _query(r, bank)
    clicked = r.random() < 0.61
    qid = ids.query
    ids.query += 1
    n_pages = 2 if (clicked and r.random() < 0.12 and source in ("baidu", "sogou", "bing")) else 1
    span_ms = max(2000, int((t_end - t_start) * 1000) - 2)
    q_ms = round(t_start * 1000)
    serps, landings = [], []
    page_span = span_ms // n_pages
    n_clicks = 0
    for p in range(1, n_pages + 1):
        start = q_ms + 1 + (p - 1) * page_span
        end = start + max(1000, int(page_span * r.uniform(0.85, 0.99)))
        results = []
        if clicked:
            k = (
                0
                if (p > 1 and r.random() < 0.5)
                else weighted(r, {1: 0.3, 2: 0.3, 3: 0.2, 4: 0.12, 5: 0.08})
            )
            if p == n_pages and n_clicks == 0:
                k = max(k, 1)
            ranks = sorted(r.sample(range(1, 11), k))
            for rank in ranks:
                href, landing = _landing(r, source)
                results.append({"href": href, "type": "content", "id": rank})
                l_start = r.randint(start + 200, max(start + 201, end - 1500))
                l_end = r.randint(l_start + 800, max(l_start + 801, end - 10))
                landings.append(
                    {
                        "id": None,  # numbered after sorting by start time
                        "helpfulness-pagelog": _rating(r),
                        "url": landing,
                        "html_name": None,
                        "start_time": l_start,
                        "end_time": l_end,
                        "dwell_time": l_end - l_start,
                    }
                )
            if r.random() < 0.08:
                results.append(
                    {
                        "href": _serp_url(source, query, p) + "&tn=news",
                        "type": "tab",
                        "id": r.randint(1, 6),
                    }
                )
            n_clicks += len(results)
        serp_id = ids.pagelog
        ids.pagelog += 1
        serps.append(
            {
                "id": serp_id,
                "url": _serp_url(source, query, p),
                "html_name": f"serp-{serp_id}.html",
                "start_time": start,
                "end_time": end,
                "dwell_time": int((end - start) * r.uniform(0.6, 1.0)),
                "page_id": p,
                "clicked_results": json.dumps(results, separators=(",", ":"), ensure_ascii=False),
            }
        )
    landings.sort(key=lambda x: x["start_time"])
    for page in landings:
        page["id"] = ids.pagelog
        ids.pagelog += 1
        page["html_name"] = f"{ids.html}.html"
        ids.html += 1
    return {
        "id": qid,
        "query_string": query,
        "source": source,
        "time": round(t_start, 3),
        "belong_dialog": dialog_id,
        "belong_turn": turn_id,
        "serp_pagelogs": serps,
        "landingpage_pagelogs": landings,
    }


def _dialogue(
    r: random.Random, ids: _Ids, dialog_id: int, t: float, n_people: int, force_image: bool
) -> tuple[dict, list[dict], float]:
    topic = weighted(r, TOPIC_WEIGHTS)
    bank = ZH_TOPIC_WORDS[topic]
    user, agent = r.sample(range(1, n_people + 1), 2)
    start = round(t, 3)
    # merged turns alternate user/agent; each may be split into consecutive same-initiator turns
    plan: list[str] = []
    for j in range(weighted(r, MERGED_TURNS)):
        initiator = "user" if j % 2 == 0 else "agent"
        plan.extend([initiator] * (1 + geometric_extra(r, 0.17)))
    turns: list[dict] = []
    agent_slots: list[tuple[int, float, float]] = []  # (turn id, previous time, own time)
    now = start
    first_user = True
    for k, initiator in enumerate(plan):
        prev = now
        if k > 0:
            if initiator == "agent" and plan[k - 1] == "user":
                now += r.uniform(60, 420)
            else:
                now += r.uniform(4, 90)
        is_image = r.random() < (0.05 if initiator == "agent" else 0.015)
        turn: dict = {
            "id": ids.turn,
            "content": ""
            if is_image
            else _fill(
                r, r.choice(USER_TEMPLATES if initiator == "user" else AGENT_TEMPLATES), bank
            ),
            "initiator": initiator,
            "time": round(now, 3),
            "is_image": is_image,
            "image_name": f"{dialog_id}-{ids.turn}.jpg" if is_image else "",
        }
        if initiator == "user":
            truth = "reveal-initiate" if first_user else weighted(r, LATER_USER_INTENT)
            first_user = False
            primary, secondary = _labels(r, truth, USER_INTENTS)
            turn.update(
                {
                    "clarity-turn": _rating(r),
                    "difficulty-turn": _rating(r),
                    "intent-primary-class": primary,
                    "intent-secondary-class": secondary,
                }
            )
        else:
            primary, secondary = _labels(r, weighted(r, AGENT_ACTION_W), AGENT_ACTIONS)
            turn.update(
                {
                    "satisfaction-turn": _rating(r),
                    "understand-turn": _rating(r),
                    "action-primary-class": primary,
                    "action-secondary-class": secondary,
                }
            )
            agent_slots.append((ids.turn, prev, now))
        ids.turn += 1
        turns.append(turn)
    if force_image and not any(x["is_image"] for x in turns):
        last = turns[-1]
        last.update(
            {"content": "", "is_image": True, "image_name": f"{dialog_id}-{last['id']}.jpg"}
        )

    behaviours: list[dict] = []
    if agent_slots:
        n_queries = gauss_int(r, 5.6, 2.4, 1, 14)
        per_slot = [0] * len(agent_slots)
        for _ in range(n_queries):
            per_slot[r.randrange(len(agent_slots))] += 1
        for (turn_id, t_prev, t_turn), n in zip(agent_slots, per_slot):
            if n == 0:
                continue
            width = (t_turn - t_prev) / n
            for q in range(n):
                a = t_prev + q * width + min(1.0, width * 0.05)
                behaviours.append(
                    _behaviour(r, ids, bank, dialog_id, turn_id, a, t_prev + (q + 1) * width)
                )

    dialogue = {
        "id": dialog_id,
        "user": user,
        "agent": agent,
        "start_time": start,
        "end_time": round(now + r.uniform(1, 60), 3),
        "topic_user": topic,
        "intent_user": r.choice(INTENT_TEMPLATES).format(a=r.choice(bank), b=r.choice(ZH_COMMON)),
        "satisfaction_user": _rating(r),
        "effort_user": _rating(r),
        "preference_user": r.randint(0, 4),
        "applicability_user": _rating(r),
        "improvement_user": "" if r.random() < 0.3 else zh_sentence(r, bank, r.randint(3, 6)),
        "understand_agent": _rating(r),
        "satisfaction_agent": _rating(r),
        "difficulty_agent": _rating(r),
        "keywords": r.choice(bank) if r.random() < 0.7 else f"{r.choice(bank)} {r.choice(bank)}",
        "turns": turns,
    }
    return dialogue, behaviours, now


_JSON_SCALAR = r'(?:"(?:[^"\\\n]|\\.)*"|-?\d[\d.eE+-]*|true|false|null)'
_SCALAR_LIST = re.compile(r"\[\n\s+(" + _JSON_SCALAR + r"(?:, \n\s+" + _JSON_SCALAR + r")*)\n\s+\]")
_ITEM_BREAK = re.compile(r", \n\s+")


def _dump(data: list) -> str:
    """README-sample style: indent 2, ``", "`` separators, lists of scalars kept on one line."""
    text = json.dumps(data, indent=2, separators=(", ", ": "), ensure_ascii=True)
    return _SCALAR_LIST.sub(lambda m: "[" + _ITEM_BREAK.sub(", ", m.group(1)) + "]", text)


def write(folder: Path, scale: int, seed: int) -> list[str]:
    """Write Dialogs.json and SearchBehaviors.json under ``folder``; return their names."""
    r = make_rng(seed, FOLDER)
    ids = _Ids()
    n = N_DIALOGUES * scale
    n_people = max(12, n // 2)
    dialogues, behaviours = [], []
    t = T0 + r.uniform(0, 3600)
    for i in range(n):
        dialogue, queries, t_end = _dialogue(r, ids, i + 1, t, n_people, force_image=(i == 0))
        dialogues.append(dialogue)
        behaviours.extend(queries)
        t = t_end + r.uniform(300, 20000)
    write_text(folder / "Dialogs.json", _dump(dialogues))
    write_text(folder / "SearchBehaviors.json", _dump(behaviours))
    return ["Dialogs.json", "SearchBehaviors.json"]


__all__ = ["FOLDER", "TOPICS", "write"]
