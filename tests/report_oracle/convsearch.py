"""Oracle for the convsearch analyses (see __init__).

Recomputed from plain rows of `conversations`, `search_queries`, `landing_page_views`,
`ratings`, `serp_views` and `result_clicks` in Python (Counters and sets); intervals from
`report_oracle.intervals`.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict

from report_oracle.common import Rows, rows
from report_oracle.intervals import wilson

TABLE1 = (
    "# Dialogues",
    "Average total turns per dialogue",
    "Average merged turns per dialogue",
    "Average agent queries per dialogue",
    "Average agent queries with clicks per dialogue",
    "Average words per agent query",
    "Average agent landing pages per dialogue",
)


def _mean(xs: list[float]) -> float | None:
    return sum(xs) / len(xs) if xs else None


def expected_basic_statistics(con) -> Rows:
    dialogues = rows(
        con, "select n_turns, n_merged_turns from conversations where corpus = 'convsearch'"
    )
    if not dialogues:
        return []
    n = len(dialogues)
    queries = rows(con, "select has_click, n_words from search_queries")
    landing = rows(con, "select landing_page_view_id from landing_page_views")
    values = [
        n,
        _mean([d["n_turns"] for d in dialogues]),
        _mean([d["n_merged_turns"] for d in dialogues]),
        len(queries) / n,
        sum(1 for q in queries if q["has_click"]) / n,
        _mean([q["n_words"] for q in queries if q["n_words"] is not None]),
        len(landing) / n,
    ]
    return [
        {"statistic_order": i, "statistic": name, "value": v}
        for i, (name, v) in enumerate(zip(TABLE1, values), start=1)
    ]


def expected_topics(con) -> Rows:
    topics = Counter(
        r["domain_or_task"]
        for r in rows(con, "select domain_or_task from conversations where corpus = 'convsearch'")
    )
    total = sum(topics.values())
    return [
        {"topic": t, "n_dialogues": n, "percent_of_dialogues": 100 * n / total}
        for t, n in topics.items()
    ]


def expected_annotations(con) -> Rows:
    counts: dict[tuple[str, str], Counter] = defaultdict(Counter)
    kinds: dict[tuple[str, str], set] = defaultdict(set)
    scale: dict[tuple[str, str], tuple[int, int]] = {}
    for r in rows(
        con,
        """select aspect, rater_kind, turn_index, item_id, value, scale_min, scale_max
                           from ratings where corpus = 'convsearch' and value is not null""",
    ):
        level = (
            "page"
            if r["item_id"] is not None
            else ("turn" if r["turn_index"] is not None else "dialogue")
        )
        key = (level, r["aspect"])
        counts[key][int(r["value"])] += 1
        kinds[key].add(r["rater_kind"])
        scale[key] = (int(r["scale_min"]), int(r["scale_max"]))
    out = []
    for (level, aspect), c in counts.items():
        total = sum(c.values())
        lo, hi = scale[(level, aspect)]
        out += [
            {
                "level": level,
                "aspect": aspect,
                "rater_kind": min(kinds[(level, aspect)]),
                "grade": g,
                "n_ratings": c[g],
                "n_annotated": total,
                "percent_of_ratings": 100 * c[g] / total,
            }
            for g in range(lo, hi + 1)
        ]
    return out


def expected_click_ratio(con) -> Rows:
    n_serps = len(rows(con, "select serp_view_id from serp_views"))
    if not n_serps:
        return []
    clicked: dict[int, set] = defaultdict(set)
    clicks = Counter()
    for r in rows(con, "select serp_view_id, rank from result_clicks where click_type = 'content'"):
        if r["rank"] is None or r["rank"] < 1:
            continue
        position = min(r["rank"], 11)
        clicked[position].add(r["serp_view_id"])
        clicks[position] += 1
    return [
        {
            "position_order": p,
            "position": ">10" if p == 11 else str(p),
            "n_clicks": clicks[p],
            "n_serp_views_clicked": len(clicked[p]),
            "n_serp_views": n_serps,
            "click_ratio": len(clicked[p]) / n_serps,
            **dict(zip(("ci95_low", "ci95_high"), wilson(len(clicked[p]), n_serps))),
        }
        for p in range(1, 12)
    ]


TABLES: dict = {
    "convsearch_basic_statistics": (
        expected_basic_statistics,
        ["statistic_order"],
        {"statistic_order"},
        ["statistic_order", "statistic", "value"],
    ),
    "convsearch_topic_distribution": (
        expected_topics,
        ["topic"],
        set(),
        ["topic", "n_dialogues", "percent_of_dialogues"],
    ),
    "convsearch_annotation_distribution": (
        expected_annotations,
        ["level", "aspect", "grade"],
        {"grade"},
        [
            "level",
            "aspect",
            "rater_kind",
            "grade",
            "n_ratings",
            "n_annotated",
            "percent_of_ratings",
        ],
    ),
    "convsearch_click_ratio_by_position": (
        expected_click_ratio,
        ["position_order"],
        {"position_order"},
        [
            "position_order",
            "position",
            "n_clicks",
            "n_serp_views_clicked",
            "n_serp_views",
            "click_ratio",
            "ci95_low",
            "ci95_high",
        ],
    ),
}


def published_value(con, figure_id: str) -> float | None:
    m = re.fullmatch(r"convsearch\.topic\.(.+)", figure_id)
    if m:
        topics = expected_topics(con)
        return (
            float(sum(r["percent_of_dialogues"] for r in topics if r["topic"] == m.group(1)))
            if topics
            else None
        )
    m = re.fullmatch(r"convsearch\.table2\.(.+)\.(\d+)", figure_id)
    if m:
        found = [
            r["percent_of_ratings"]
            for r in expected_annotations(con)
            if r["aspect"] == m.group(1) and r["grade"] == int(m.group(2))
        ]
        return found[0] if found else None
    m = re.fullmatch(r"convsearch\.click_ratio\.(.+)", figure_id)
    if m:
        found = [r["click_ratio"] for r in expected_click_ratio(con) if r["position"] == m.group(1)]
        return found[0] if found else None
    return None
