"""Oracle for the RecLLMSim analyses, the expectations of its report tables (see __init__; the
tables and the published figures are in ``report_oracle.recllmsim``).

Recomputes the report's RecLLMSim tables and the warehouse side of every ``recllmsim.*``
published figure from plain row queries of the core marts (``conversations``, ``turns``,
``ratings``, ``behaviour_labels``) in Python: the per-conversation facts, the user sides, the
0..2 scores from the raw ratings, the profile labels from the profile JSON — never through the
``recllmsim_*`` report marts, ``conversation_quality`` or ``csrwh.reading.figures``. A figure's filters
come from its id (``recllmsim.<kind>.<...>``), read here as the authors' scripts define them.
"""

from __future__ import annotations

import json
import statistics
import weakref
from collections import Counter, defaultdict
from typing import Any

from report_oracle.common import Rows, rows
from report_oracle.intervals import t_interval

SCORE_ASPECTS = {  # warehouse aspect -> the scripts' name (0..2 scores)
    "Detail Level": "Detail Level",
    "questionnaire:Detail": "Detail Level",
    "Practical Usefulness": "Practical Usefulness",
    "questionnaire:Availability": "Practical Usefulness",
    "Diversity": "Diversity",
    "questionnaire:Diversity": "Diversity",
    "Preference Alignment": "Preference Alignment",
    "Role-Playing Completeness": "Role-Playing Completeness",
}
ASSISTANT = ("Detail Level", "Practical Usefulness", "Diversity")
ASPECT_OF_SLUG = {
    a.lower().replace(" ", "_").replace("-", "_"): a for a in set(SCORE_ASPECTS.values())
}


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _sd(values: list[float]) -> float | None:
    return statistics.stdev(values) if len(values) >= 2 else None


_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _facts(con) -> dict[str, Any]:
    """Per conversation: side, release, task, scenario, chat model, profile key, turns, tokens,
    scores; plus its final labels and profile labels. Cached per connection."""
    if con in _CACHE:
        return _CACHE[con]
    conversations = rows(
        con,
        """select conversation_id, user_id, subset, domain_or_task, system_id, task_description,
                                         n_turns, n_user_turns, n_system_turns, source_attributes, profile
                                  from conversations where corpus = 'recllmsim'""",
    )
    turn_columns = {r[0] for r in con.execute("describe turns").fetchall()}
    tokens_known = {"n_tokens", "n_tokens_translation"} <= turn_columns
    tokens: dict[str, list] = defaultdict(list)
    if tokens_known:
        for t in rows(
            con,
            """select conversation_id, role, text_translation, n_tokens, n_tokens_translation
                               from turns where corpus = 'recllmsim'""",
        ):
            n = t["n_tokens_translation"] if t["text_translation"] is not None else t["n_tokens"]
            tokens[t["conversation_id"]].append((t["role"], n))
    scores: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for r in rows(
        con,
        """select conversation_id, aspect, value from ratings
                           where corpus = 'recllmsim' and turn_index is null and item_id is null and value is not null""",
    ):
        if r["aspect"] in SCORE_ASPECTS:
            scores[r["conversation_id"]][SCORE_ASPECTS[r["aspect"]]].append(r["value"])
    facts = {}
    for c in conversations:
        attributes = json.loads(c["source_attributes"]) if c["source_attributes"] else {}
        side = "agent" if attributes.get("preference_id") is not None else "human"
        turns = tokens.get(c["conversation_id"])
        complete = bool(turns) and all(n is not None for _, n in turns)
        task = c["domain_or_task"]
        facts[c["conversation_id"]] = {
            "user_id": c["user_id"],
            "release": c["subset"],
            "side": side,
            "task": task,
            "scenario": "travel planning" if task == "new travel planning" else task,
            "chat_model": c["system_id"],
            "task_context": c["task_description"],
            "profile_key": attributes.get("preference") if side == "agent" else c["user_id"],
            "turns": c["n_turns"] // 2,
            "user_turns": c["n_user_turns"],
            "assistant_turns": c["n_system_turns"],
            "user_tokens": sum(n for role, n in turns if role == "user") if complete else None,
            "assistant_tokens": sum(n for role, n in turns if role == "system")
            if complete
            else None,
            "scores": {a: _mean(v) for a, v in scores.get(c["conversation_id"], {}).items()},
            "profile": json.loads(c["profile"]) if c["profile"] else None,
        }
    labels = [
        r
        for r in rows(
            con,
            """select conversation_id, scheme, dimension, label_value, label_number
                                       from behaviour_labels where corpus = 'recllmsim' and is_final""",
        )
        if r["conversation_id"] in facts
    ]
    out = {"conversations": facts, "labels": labels}
    _CACHE[con] = out
    return out


def _releases(fact: dict) -> tuple[str, str]:
    return (fact["release"], "all")


# --------------------------------------------------------------------------- tables


def expected_task_statistics(con) -> Rows:
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for f in _facts(con)["conversations"].values():
        for release in _releases(f):
            for scenario in (f["scenario"], "all"):
                groups[(f["side"], release, scenario)].append(f)
    out = []
    for (side, release, scenario), fs in groups.items():
        user = [f for f in fs if f["user_tokens"] is not None]
        assistant = [f for f in fs if f["assistant_tokens"] is not None]
        user_turns = sum(f["user_turns"] for f in user)
        assistant_turns = sum(f["assistant_turns"] for f in assistant)
        out.append(
            {
                "user_side": side,
                "release": release,
                "scenario": scenario,
                "n_conversations": len(fs),
                "n_tasks": len({f["task_context"] for f in fs if f["task_context"] is not None}),
                "n_profiles": len({f["profile_key"] for f in fs if f["profile_key"] is not None}),
                "mean_turns": _mean([f["turns"] for f in fs]),
                "sd_turns": _sd([f["turns"] for f in fs]),
                "mean_user_turns": _mean([f["user_turns"] for f in fs]),
                "mean_user_tokens": _mean([f["user_tokens"] for f in user]),
                "sd_user_tokens": _sd([f["user_tokens"] for f in user]),
                "mean_assistant_tokens": _mean([f["assistant_tokens"] for f in assistant]),
                "mean_user_tokens_per_turn": sum(f["user_tokens"] for f in user) / user_turns
                if user_turns
                else None,
                "mean_assistant_tokens_per_turn": (
                    sum(f["assistant_tokens"] for f in assistant) / assistant_turns
                    if assistant_turns
                    else None
                ),
            }
        )
    return out


def _score_groups(con, key) -> dict[tuple, list[float]]:
    groups: dict[tuple, list[float]] = defaultdict(list)
    for f in _facts(con)["conversations"].values():
        for aspect, value in f["scores"].items():
            for k in key(f, aspect):
                groups[k].append(value)
    return groups


def expected_quality_by_chat_model(con) -> Rows:
    groups = _score_groups(
        con,
        lambda f, a: (
            [(f["side"], r, f["chat_model"], a) for r in _releases(f)] if a in ASSISTANT else []
        ),
    )
    return [
        {
            "user_side": s,
            "release": r,
            "chat_model": m,
            "aspect": a,
            "n_conversations": len(v),
            "mean_value": _mean(v),
            "sd_value": _sd(v),
        }
        for (s, r, m, a), v in groups.items()
    ]


def expected_quality_by_turns(con) -> Rows:
    groups = _score_groups(con, lambda f, a: [(f["side"], a, f["turns"])])
    return [
        {
            "user_side": s,
            "aspect": a,
            "n_turns": t,
            "n_conversations": len(v),
            "mean_value": _mean(v),
            "sd_value": _sd(v),
        }
        for (s, a, t), v in groups.items()
    ]


def expected_strategy_distribution(con) -> Rows:
    facts = _facts(con)
    conversations = defaultdict(set)
    numbers: dict[tuple, list] = defaultdict(list)
    for label in facts["labels"]:
        f = facts["conversations"][label["conversation_id"]]
        for release in _releases(f):
            for task in (f["task"], "all"):
                key = (
                    f["side"],
                    release,
                    task,
                    label["scheme"],
                    label["dimension"],
                    label["label_value"],
                )
                conversations[key].add(label["conversation_id"])
                numbers[key].append(label["label_number"])
    totals = Counter()
    for key, ids in conversations.items():
        totals[key[:5]] += len(ids)
    out = []
    for key, ids in conversations.items():
        known = [n for n in numbers[key] if n is not None]
        out.append(
            {
                "user_side": key[0],
                "release": key[1],
                "task": key[2],
                "scheme": key[3],
                "dimension": key[4],
                "label_value": key[5],
                "label_number": min(known) if known else None,
                "n_conversations": len(ids),
                "share": len(ids) / totals[key[:5]],
            }
        )
    return out


def expected_quality_by_strategy(con) -> Rows:
    facts = _facts(con)
    values: dict[tuple, list[float]] = defaultdict(list)
    numbers: dict[tuple, list] = defaultdict(list)
    for label in facts["labels"]:
        f = facts["conversations"][label["conversation_id"]]
        for aspect in ASSISTANT:
            value = f["scores"].get(aspect)
            if value is None:
                continue
            for release in _releases(f):
                key = (
                    f["side"],
                    release,
                    label["scheme"],
                    label["dimension"],
                    label["label_value"],
                    aspect,
                )
                values[key].append(value)
                numbers[key].append(label["label_number"])
    out = []
    for key, v in values.items():
        known = [n for n in numbers[key] if n is not None]
        out.append(
            {
                "user_side": key[0],
                "release": key[1],
                "scheme": key[2],
                "dimension": key[3],
                "label_value": key[4],
                "aspect": key[5],
                "label_number": min(known) if known else None,
                "n_conversations": len(v),
                "mean_value": _mean(v),
                "sd_value": _sd(v),
            }
        )
    return out


def expected_strategy_consistency(con) -> Rows:
    facts = _facts(con)
    per_user: dict[tuple, Counter] = defaultdict(Counter)
    for label in facts["labels"]:
        f = facts["conversations"][label["conversation_id"]]
        per_user[(f["side"], f["release"], f["user_id"], label["scheme"], label["dimension"])][
            label["label_value"]
        ] += 1
    shares: dict[tuple, list[float]] = defaultdict(list)
    for (side, release, _, scheme, dimension), counts in per_user.items():
        share = max(counts.values()) / sum(counts.values())
        for r in (release, "all"):
            shares[(side, r, scheme, dimension)].append(share)
    return [
        {
            "user_side": s,
            "release": r,
            "scheme": sc,
            "dimension": d,
            "n_users": len(v),
            "mean_modal_share": _mean(v),
            "sd_modal_share": _sd(v),
            "n_users_modal_share_over_80pct": sum(1 for x in v if x > 0.8),
            "n_users_single_label": sum(1 for x in v if x == 1),
        }
        for (s, r, sc, d), v in shares.items()
    ]


def _attribute_name(key: str) -> str:
    return key.split(" and ")[0].strip().lower().replace(" ", "_")


def expected_profile_labels(con) -> Rows:
    listing: dict[tuple, set] = defaultdict(set)
    holders: dict[tuple, set] = defaultdict(set)
    profiles: dict[tuple, set] = defaultdict(set)
    mentions: Counter = Counter()
    english: dict[tuple, set] = defaultdict(set)
    for cid, f in _facts(con)["conversations"].items():
        if not isinstance(f["profile"], dict):
            continue
        for key, value in f["profile"].items():
            if not isinstance(value, list):
                continue
            attribute = _attribute_name(key)
            for release in _releases(f):
                listing[(f["side"], release, attribute)].add(cid)
            for item in value:
                if isinstance(item, dict):
                    label, label_en = item.get("zh"), item.get("en")
                else:
                    label, label_en = (item if isinstance(item, str) else json.dumps(item)), None
                if label_en is not None:
                    english[(attribute, label)].add(label_en)
                if label is None:
                    continue
                for release in _releases(f):
                    holders[(f["side"], release, attribute, label)].add(cid)
                    if f["profile_key"] is not None:
                        profiles[(f["side"], release, attribute, label)].add(f["profile_key"])
                    mentions[(f["side"], release, attribute, label)] += 1
    out = []
    for key, ids in holders.items():
        n_listing = len(listing[key[:3]])
        names = english.get((key[2], key[3]))
        out.append(
            {
                "user_side": key[0],
                "release": key[1],
                "attribute": key[2],
                "label": key[3],
                "label_en": min(names) if names else None,
                "n_conversations": len(ids),
                "n_profiles": len(profiles[key]),
                "n_mentions": mentions[key],
                "n_listing_conversations": n_listing,
                "share_of_conversations": len(ids) / n_listing,
            }
        )
    return out


#: The report's rule for the sparse tail of "quality by user turns" (notebooks/statistics.py).
MIN_CONVERSATIONS = 20


def expected_quality_by_user_turns_binned(con) -> Rows:
    """Per rater kind: the largest user-turn count with >= 20 rated conversations starts the
    pooled last bin; per (rater kind, aspect, bin) the conversations, ratings, mean and sd of
    value_normalized and its t interval; drawn when the bin has >= 20 conversations."""
    rated = rows(
        con,
        """select r.rater_kind, r.aspect, r.conversation_id, c.n_user_turns, r.value_normalized
                          from ratings r join conversations c on r.conversation_id = c.conversation_id
                          where r.corpus = 'recllmsim' and r.turn_index is null and r.item_id is null
                            and r.value_normalized is not null""",
    )
    conversations_per_count: dict[tuple, set] = defaultdict(set)
    for r in rated:
        conversations_per_count[(r["rater_kind"], r["n_user_turns"])].add(r["conversation_id"])
    tail_from: dict[str, int] = {}
    for (kind, turns), ids in conversations_per_count.items():
        if len(ids) >= MIN_CONVERSATIONS:
            tail_from[kind] = max(turns, tail_from.get(kind, turns))
    groups: dict[tuple, list] = defaultdict(list)
    for r in rated:
        start = tail_from.get(r["rater_kind"])
        turns = r["n_user_turns"]
        in_tail = start is not None and turns >= start
        groups[(r["rater_kind"], r["aspect"], start if in_tail else turns, in_tail)].append(r)
    out = []
    for (kind, aspect, bin_, in_tail), rs in groups.items():
        values = [r["value_normalized"] for r in rs]
        n_conversations = len({r["conversation_id"] for r in rs})
        low, high = t_interval(values)
        out.append(
            {
                "rater_kind": kind,
                "aspect": aspect,
                "n_user_turns_bin": bin_,
                "is_tail": in_tail,
                "n_conversations": n_conversations,
                "n_ratings": len(values),
                "mean_normalized": _mean(values),
                "sd_normalized": _sd(values),
                "ci95_low": low,
                "ci95_high": high,
                "is_plotted": n_conversations >= MIN_CONVERSATIONS,
            }
        )
    return out
