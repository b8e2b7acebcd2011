"""Oracle for the RecLLMSim analyses (see __init__): the report tables it recomputes
(``TABLES``, ``REPORT_TABLES``; the expectations are ``report_oracle.recllmsim_expected``) and
the warehouse side of every ``recllmsim.*`` published figure (:func:`published_value`), from
plain row queries of the core marts — never through the ``recllmsim_*`` report marts,
``conversation_quality`` or ``csrwh.reading.figures``.
"""

from __future__ import annotations

import math
from typing import Any

from report_oracle.common import Rows, rows
from report_oracle.recllmsim_expected import (
    ASPECT_OF_SLUG,
    _facts,
    _mean,
    expected_profile_labels,
    expected_quality_by_chat_model,
    expected_quality_by_strategy,
    expected_quality_by_turns,
    expected_quality_by_user_turns_binned,
    expected_strategy_consistency,
    expected_strategy_distribution,
    expected_task_statistics,
)

TABLES = {
    "recllmsim_task_statistics": (
        expected_task_statistics,
        ["user_side", "release", "scenario"],
        set(),
        [
            "user_side",
            "release",
            "scenario",
            "n_conversations",
            "n_tasks",
            "n_profiles",
            "mean_turns",
            "sd_turns",
            "mean_user_turns",
            "mean_user_tokens",
            "sd_user_tokens",
            "mean_assistant_tokens",
            "mean_user_tokens_per_turn",
            "mean_assistant_tokens_per_turn",
        ],
    ),
    "recllmsim_quality_by_chat_model": (
        expected_quality_by_chat_model,
        ["user_side", "release", "chat_model", "aspect"],
        set(),
        [
            "user_side",
            "release",
            "chat_model",
            "aspect",
            "n_conversations",
            "mean_value",
            "sd_value",
        ],
    ),
    "recllmsim_quality_by_turns": (
        expected_quality_by_turns,
        ["user_side", "aspect", "n_turns"],
        {"n_turns"},
        ["user_side", "aspect", "n_turns", "n_conversations", "mean_value", "sd_value"],
    ),
    "recllmsim_strategy_distribution": (
        expected_strategy_distribution,
        ["user_side", "release", "task", "scheme", "dimension", "label_value"],
        set(),
        [
            "user_side",
            "release",
            "task",
            "scheme",
            "dimension",
            "label_value",
            "label_number",
            "n_conversations",
            "share",
        ],
    ),
    "recllmsim_quality_by_strategy": (
        expected_quality_by_strategy,
        ["user_side", "release", "scheme", "dimension", "label_value", "aspect"],
        set(),
        [
            "user_side",
            "release",
            "scheme",
            "dimension",
            "label_value",
            "aspect",
            "label_number",
            "n_conversations",
            "mean_value",
            "sd_value",
        ],
    ),
    "recllmsim_strategy_consistency": (
        expected_strategy_consistency,
        ["user_side", "release", "scheme", "dimension"],
        set(),
        [
            "user_side",
            "release",
            "scheme",
            "dimension",
            "n_users",
            "mean_modal_share",
            "sd_modal_share",
            "n_users_modal_share_over_80pct",
            "n_users_single_label",
        ],
    ),
    "recllmsim_profile_labels": (
        expected_profile_labels,
        ["user_side", "release", "attribute", "label"],
        set(),
        [
            "user_side",
            "release",
            "attribute",
            "label",
            "label_en",
            "n_conversations",
            "n_profiles",
            "n_mentions",
            "n_listing_conversations",
            "share_of_conversations",
        ],
    ),
}
# report tables that are not a RecLLMSim mart (TABLES above is compared with the marts too)
REPORT_TABLES = {
    "recllmsim_quality_by_user_turns_binned": (
        expected_quality_by_user_turns_binned,
        ["rater_kind", "aspect", "n_user_turns_bin"],
        {"n_user_turns_bin"},
        [
            "rater_kind",
            "aspect",
            "n_user_turns_bin",
            "is_tail",
            "n_conversations",
            "n_ratings",
            "mean_normalized",
            "sd_normalized",
            "ci95_low",
            "ci95_high",
            "is_plotted",
        ],
    ),
}


# --------------------------------------------------------------------------- published figures


def _table(con, expectation) -> Rows:
    """A table's expectation, computed once per connection (published_value asks for it per figure)."""
    tables = _facts(con).setdefault("tables", {})
    if expectation.__name__ not in tables:
        tables[expectation.__name__] = expectation(con)
    return tables[expectation.__name__]


def _find(rows: Rows, **where) -> dict | None:
    found = [r for r in rows if all(r[k] == v for k, v in where.items())]
    return found[0] if found else None


def _quality_by_user_turns(con, aspect: str, turns: int) -> tuple[int, float | None]:
    """`quality_by_length` recomputed: conversation-level ratings of the aspect by user messages."""
    n_user = {
        r["conversation_id"]: r["n_user_turns"]
        for r in rows(
            con,
            "select conversation_id, n_user_turns from conversations where corpus = 'recllmsim'",
        )
    }
    values, ids = [], set()
    for r in rows(
        con,
        f"""select conversation_id, value from ratings where corpus = 'recllmsim' and aspect = '{aspect}'
                            and turn_index is null and item_id is null""",
    ):
        if n_user.get(r["conversation_id"]) == turns:
            ids.add(r["conversation_id"])
            if r["value"] is not None:
                values.append(r["value"])
    return len(ids), _mean(values)


def published_value(con, figure_id: str) -> float | None:
    """The warehouse value of a ``recllmsim.*`` figure, recomputed from its id."""
    parts = figure_id.split(".")
    kind = parts[1]
    value: Any = None
    if kind in ("count", "tasks", "profiles"):
        scenario, side = parts[2].replace("_", " "), parts[3]
        row = _find(
            _table(con, expected_task_statistics), user_side=side, release="all", scenario=scenario
        )
        column = {"tasks": "n_tasks", "profiles": "n_profiles"}.get(kind) or {
            "conversations": "n_conversations",
            "turns": "mean_turns",
            "user_tokens": "mean_user_tokens",
            "user_tokens_per_turn": "mean_user_tokens_per_turn",
            "assistant_tokens_per_turn": "mean_assistant_tokens_per_turn",
        }[parts[4]]
        value = row[column] if row else None
    elif kind == "assistant_quality":
        model, aspect = ".".join(parts[2:-1]), ASPECT_OF_SLUG[parts[-1]]
        row = _find(
            _table(con, expected_quality_by_chat_model),
            user_side="human",
            release="all",
            chat_model=model,
            aspect=aspect,
        )
        value = row["mean_value"] if row else None
    elif kind == "simulation_quality":
        turns = int(parts[2])
        if parts[3] == "conversations":
            value = _quality_by_user_turns(con, "Preference Alignment", turns)[0]
        else:
            value = _quality_by_user_turns(con, ASPECT_OF_SLUG[parts[3]], turns)[1]
    elif kind == "strategy_count":
        side, scheme, task = parts[2], parts[3], parts[4].replace("_", " ")
        dimension, label = parts[5].rsplit("_", 1)
        release = "LLM_agent_user" if side == "agent" else "all"  # count_sim.py / count_human.py
        row = _find(
            _table(con, expected_strategy_distribution),
            user_side=side,
            release=release,
            task=task,
            scheme=scheme,
            dimension=dimension,
            label_value=label,
        )
        value = row["n_conversations"] if row else 0
    elif kind == "strategy_consistency":
        scheme, dimension, measure = parts[2], parts[3], parts[4]
        row = _find(
            _table(con, expected_strategy_consistency),
            user_side="human",
            release="real_human_user",
            scheme=scheme,
            dimension=dimension,
        )
        column = {
            "mean_modal_share": "mean_modal_share",
            "users": "n_users",
            "users_over_80pct": "n_users_modal_share_over_80pct",
        }[measure]
        value = row[column] if row else None
    elif kind == "strategy_score":
        side, scheme, dimension, label, aspect = (
            parts[2],
            parts[3],
            parts[4],
            parts[5],
            ASPECT_OF_SLUG[parts[6]],
        )
        release = (
            "LLM_agent_user" if side == "agent" else "real_human_user"
        )  # score_sim.py / score_human.py
        row = _find(
            _table(con, expected_quality_by_strategy),
            user_side=side,
            release=release,
            scheme=scheme,
            dimension=dimension,
            label_value=label,
            aspect=aspect,
        )
        value = row["mean_value"] if row else None
    elif kind == "profile_count":
        attribute, label = parts[2], ".".join(parts[3:])
        row = _find(
            _table(con, expected_profile_labels),
            user_side="human",
            release="real_human_user",
            attribute=attribute,
            label=label,
        )
        value = row["n_conversations"] if row else 0
    elif kind == "profile_labels":
        attribute = parts[2]
        labels = [
            r
            for r in _table(con, expected_profile_labels)
            if r["release"] == "all" and r["attribute"] == attribute
        ]
        if parts[3] == "vocabulary":
            value = len({r["label"] for r in labels}) if labels else 0
        else:
            side_rows = [r for r in labels if r["user_side"] == parts[3]]
            value = (
                (sum(r["n_mentions"] for r in side_rows) / side_rows[0]["n_listing_conversations"])
                if side_rows
                else None
            )
    elif kind == "profile_diversity":  # agent side: over the distinct profiles, 'Others' left out
        attribute, side, index = parts[2], parts[3], parts[4]
        counts = [
            r["n_profiles"]
            for r in _table(con, expected_profile_labels)
            if r["user_side"] == side
            and r["release"] == "all"
            and r["attribute"] == attribute
            and r["label"] != "其他"
            and r["label_en"] != "Others"
        ]
        total = sum(counts)
        if total:
            shares = [n / total for n in counts]
            value = (
                (1 - sum(p * p for p in shares))
                if index == "simpson"
                else -sum(p * math.log(p) for p in shares)
            )
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return float(value)
