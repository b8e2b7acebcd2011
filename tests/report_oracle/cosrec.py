"""Oracle for the cosrec analyses (see __init__).

Recomputed from plain rows of `ratings`, `conversations` and `relevance_judgments` in Python,
with exact fractions (no 10-decimal rounding as in the marts): the conversation means, the
average of the aspect means, the half-to-even rounding (``round`` of a Fraction) and the
bins (lower <= x < upper; the top of the scale in the last average bin; counts of 25 in the
upper judgment bin).
"""

from __future__ import annotations

import math
import re
import statistics
from collections import Counter, defaultdict
from fractions import Fraction

from report_oracle.common import Rows, rows
from report_oracle.intervals import t_interval


def _quality(con) -> tuple[dict[str, dict[str, Fraction]], dict[str, str], tuple[int, int] | None]:
    """conversation -> aspect -> exact mean over annotators (CoSRec crowd, conversation level);
    conversation -> subset; the scale (min, max)."""
    values: dict[str, dict[str, list[Fraction]]] = defaultdict(lambda: defaultdict(list))
    scale = None
    for r in rows(
        con,
        """select conversation_id, aspect, value, scale_min, scale_max from ratings
                           where corpus = 'cosrec' and rater_kind = 'crowd' and turn_index is null
                           and item_id is null and value is not null""",
    ):
        values[r["conversation_id"]][r["aspect"]].append(Fraction(r["value"]))
        scale = (int(r["scale_min"]), int(r["scale_max"]))
    means = {c: {a: sum(v) / len(v) for a, v in aspects.items()} for c, aspects in values.items()}
    subset = {
        r["conversation_id"]: r["subset"]
        for r in rows(
            con, "select conversation_id, subset from conversations where corpus = 'cosrec'"
        )
    }
    return means, subset, scale


def expected_average_histogram(con) -> Rows:
    means, _, scale = _quality(con)
    if not means:
        return []
    lo, hi = scale
    averages = [sum(m.values()) / len(m) for m in means.values()]
    n_bins = (hi - lo) * 2
    counts = Counter()
    for a in averages:
        k = n_bins - 1 if a >= hi else math.floor((a - lo) * 2)
        counts[k] += 1
    return [
        {
            "bin_lower": lo + k / 2,
            "bin_upper": lo + (k + 1) / 2,
            "n_conversations": counts[k],
            "share": counts[k] / len(averages),
        }
        for k in range(n_bins)
    ]


def expected_aspect_histogram(con) -> Rows:
    means, _, scale = _quality(con)
    if not means:
        return []
    lo, hi = scale
    counts, totals = Counter(), Counter()
    for aspects in means.values():
        for aspect, m in aspects.items():
            counts[(aspect, round(m))] += 1  # Fraction.__round__: half to even
            totals[aspect] += 1
    return [
        {
            "aspect": a,
            "rating": r,
            "n_conversations": counts[(a, r)],
            "share": counts[(a, r)] / totals[a],
        }
        for a in totals
        for r in range(lo, hi + 1)
    ]


def expected_judgments_histogram(con) -> Rows:
    per_intent: dict[str, Counter] = defaultdict(Counter)
    for r in rows(
        con, "select intent_id, grade from relevance_judgments where intent_id is not null"
    ):
        per_intent[r["intent_id"]][int(r["grade"])] += 1
    if not per_intent:
        return []
    n_bins = max(11, max(c[g] for c in per_intent.values() for g in (0, 1, 2)) // 25 + 1)
    labels = {0: "not relevant", 1: "partially relevant", 2: "highly relevant"}
    out = []
    for g in (0, 1, 2):
        bins = Counter(c[g] // 25 for c in per_intent.values())
        out += [
            {
                "grade": g,
                "grade_label": labels[g],
                "bin_lower": 25 * k,
                "bin_upper": 25 * k + 25,
                "n_intents": bins[k],
            }
            for k in range(n_bins)
        ]
    return out


def expected_quality_by_aspect(con) -> Rows:
    means, subset, _ = _quality(con)
    groups: dict[tuple[str, str], list[float]] = defaultdict(list)
    for conversation, aspects in means.items():
        overall = sum(aspects.values()) / len(aspects)
        for aspect, m in [*aspects.items(), ("overall", overall)]:
            for s in (subset[conversation], "all"):
                groups[(s, aspect)].append(float(m))
    out = []
    for (s, aspect), xs in groups.items():
        mean = statistics.fmean(xs)
        sd = statistics.stdev(xs) if len(xs) > 1 else None
        low, high = t_interval(xs)
        out.append(
            {
                "subset": s,
                "aspect": aspect,
                "n_conversations": len(xs),
                "mean": mean,
                "sd": sd,
                "ci95_low": low,
                "ci95_high": high,
            }
        )
    return out


TABLES: dict = {
    "cosrec_quality_average_histogram": (
        expected_average_histogram,
        ["bin_lower"],
        {"bin_lower"},
        ["bin_lower", "bin_upper", "n_conversations", "share"],
    ),
    "cosrec_quality_aspect_histogram": (
        expected_aspect_histogram,
        ["aspect", "rating"],
        {"rating"},
        ["aspect", "rating", "n_conversations", "share"],
    ),
    "cosrec_judgments_per_intent_histogram": (
        expected_judgments_histogram,
        ["grade", "bin_lower"],
        {"grade", "bin_lower"},
        ["grade", "grade_label", "bin_lower", "bin_upper", "n_intents"],
    ),
    "cosrec_quality_by_aspect": (
        expected_quality_by_aspect,
        ["subset", "aspect"],
        set(),
        ["subset", "aspect", "n_conversations", "mean", "sd", "ci95_low", "ci95_high"],
    ),
}


def published_value(con, figure_id: str) -> float | None:
    m = re.fullmatch(r"cosrec\.avg_quality\.([\d.]+)-([\d.]+)", figure_id)
    if m:
        lower = float(m.group(1))
        return float(
            sum(
                r["n_conversations"]
                for r in expected_average_histogram(con)
                if r["bin_lower"] == lower
            )
        )
    m = re.fullmatch(r"cosrec\.aspect_rating\.(\w+)\.(\d+)", figure_id)
    if m:
        aspect, rating = m.group(1), int(m.group(2))
        return float(
            sum(
                r["n_conversations"]
                for r in expected_aspect_histogram(con)
                if r["aspect"] == aspect and r["rating"] == rating
            )
        )
    m = re.fullmatch(r"cosrec\.judgments_per_intent\.(\d)\.(\d+)-(\d+)", figure_id)
    if m:
        grade, lower = int(m.group(1)), int(m.group(2))
        return float(
            sum(
                r["n_intents"]
                for r in expected_judgments_histogram(con)
                if r["grade"] == grade and r["bin_lower"] == lower
            )
        )
    return None
