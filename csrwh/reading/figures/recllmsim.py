"""RecLLMSim: the figures its `statistics/`, `user_behavior/` and `user_profiling/` scripts print.

The scripts (github.com/wzf2000/RecLLMSim @ d680f2f9d5b8) read the release folders directly:
the *agent* set is `LLM_agent_user` (five task folders, `new travel planning` counted as travel
planning), the *human* set `real_human_user` plus `human_exp_V2` unless a script reads one
release only. The warehouse side reads the RecLLMSim report marts
(`models/marts/reports/recllmsim_*.sql`), which hold those sets as `user_side` and `release`
('all' = every release of the side). Scores are 0..2: the LLM judge's `rating` (agent files) or
the questionnaire answer (human files: 详细/很有用/结果多样 = 2, 一般/有一定参考 = 1,
简略/不可用/结果单一 = 0, the `questionnaire_options` seed).
"""

from __future__ import annotations

import math
import weakref

import polars as pl

from csrwh.reading.figures._metric import Args, Metric, sql_metric

_SIDE = "user side {side} (agent = LLM-agent users, human = human users), release {release}"

# mart -> (key columns -> {key values (as text) -> row}), per connection: ~350 figures read
# eight marts, each once
_INDEXES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _indexed(con, mart: str, keys: tuple[str, ...], where: str) -> dict[tuple[str, ...], dict]:
    cache = _INDEXES.setdefault(con, {})
    if (mart, keys, where) not in cache:
        cursor = con.execute(f"select * from {mart} where {where}")
        names = [d[0] for d in cursor.description]
        index: dict[tuple[str, ...], dict] = {}
        for values in cursor.fetchall():
            row = dict(zip(names, values))
            index[tuple(str(row[k]) for k in keys)] = row
        cache[(mart, keys, where)] = index
    return cache[(mart, keys, where)]


def lookup_metric(
    definition: str,
    mart: str,
    keys: dict[str, str],
    column: str,
    default: float | None = None,
    where: str = "true",
) -> Metric:
    """A figure read from one row of a mart: ``keys`` maps the mart's key columns to the
    figure's args; ``default`` when no row has them (e.g. 0 for a count)."""

    def value(con, args: Args) -> float | None:
        row = _indexed(con, mart, tuple(keys), where).get(
            tuple(str(args.get(a)) for a in keys.values())
        )
        return default if row is None or row[column] is None else row[column]

    return Metric(definition=definition, fn=value)


def _task_statistic(column: str, words: str) -> Metric:
    return lookup_metric(
        f"{words} — `recllmsim_task_statistics.{column}`, {_SIDE}, scenario {{scenario}}",
        "recllmsim_task_statistics",
        {"user_side": "side", "release": "release", "scenario": "scenario"},
        column,
    )


OTHERS = ("其他", "Others")  # the label files' catch-all
_SIDE_KEYS = {"user_side": "side", "release": "release"}
_LABEL_KEYS = {**_SIDE_KEYS, "scheme": "scheme", "dimension": "dimension"}

METRICS = {
    "recllmsim_conversations": _task_statistic("n_conversations", "conversations"),
    "recllmsim_mean_turns": _task_statistic(
        "mean_turns", "mean turns per conversation, a turn being a pair of messages (messages // 2)"
    ),
    "recllmsim_mean_user_tokens": _task_statistic(
        "mean_user_tokens",
        "mean tokens of the user's messages per conversation (tiktoken cl100k_base, the gpt-4-turbo-preview "
        "encoding; agent files: the Chinese translation content_zh, human files: the text)",
    ),
    "recllmsim_mean_user_tokens_per_turn": _task_statistic(
        "mean_user_tokens_per_turn",
        "mean tokens per user message (cl100k_base; agent files: content_zh, human files: the text)",
    ),
    "recllmsim_mean_assistant_tokens_per_turn": _task_statistic(
        "mean_assistant_tokens_per_turn",
        "mean tokens per assistant message (cl100k_base; agent files: content_zh, human files: the text)",
    ),
    "recllmsim_tasks": _task_statistic("n_tasks", "distinct task descriptions (task_context)"),
    "recllmsim_profiles": _task_statistic(
        "n_profiles",
        "distinct profiles: the simulated users' preference texts (agent) or the release/User_k folders (human)",
    ),
    "recllmsim_quality_by_chat_model": lookup_metric(
        "mean 0..2 score of {aspect} over the conversations with chat model {model} — "
        f"`recllmsim_quality_by_chat_model.mean_value`, {_SIDE}",
        "recllmsim_quality_by_chat_model",
        {**_SIDE_KEYS, "chat_model": "model", "aspect": "aspect"},
        "mean_value",
    ),
    "recllmsim_quality_by_user_turns": lookup_metric(
        "mean LLM-judge rating {aspect} of the RecLLMSim conversations with {turns} user messages "
        "(`quality_by_length.mean_value`; only LLM-agent conversations carry this aspect)",
        "quality_by_length",
        {"aspect": "aspect", "n_user_turns": "turns"},
        "mean_value",
        where="corpus = 'recllmsim'",
    ),
    "recllmsim_rated_by_user_turns": lookup_metric(
        "RecLLMSim conversations with {turns} user messages and an LLM-judge rating {aspect} "
        "(`quality_by_length.n_conversations`; 0 when none)",
        "quality_by_length",
        {"aspect": "aspect", "n_user_turns": "turns"},
        "n_conversations",
        default=0,
        where="corpus = 'recllmsim'",
    ),
    "recllmsim_quality_by_script_turns": lookup_metric(
        "mean 0..2 score {aspect} of the {side}-side conversations with {turns} turns, a turn being a pair "
        "of messages (`recllmsim_quality_by_turns.mean_value`)",
        "recllmsim_quality_by_turns",
        {"user_side": "side", "aspect": "aspect", "n_turns": "turns"},
        "mean_value",
    ),
    "recllmsim_strategy_count": lookup_metric(
        "conversations whose final {scheme} label of {dimension} is {label} "
        f"(`recllmsim_strategy_distribution.n_conversations`; 0 when none), {_SIDE}, task {{task}}",
        "recllmsim_strategy_distribution",
        {**_LABEL_KEYS, "task": "task", "label_value": "label"},
        "n_conversations",
        default=0,
    ),
    "recllmsim_strategy_score": lookup_metric(
        "mean 0..2 score {aspect} of the conversations whose final {scheme} label of {dimension} is {label} "
        f"(`recllmsim_quality_by_strategy.mean_value`), {_SIDE}",
        "recllmsim_quality_by_strategy",
        {**_LABEL_KEYS, "label_value": "label", "aspect": "aspect"},
        "mean_value",
    ),
    "recllmsim_strategy_users": lookup_metric(
        f"users with a final {{scheme}} label of {{dimension}} (`recllmsim_strategy_consistency.n_users`), {_SIDE}",
        "recllmsim_strategy_consistency",
        _LABEL_KEYS,
        "n_users",
    ),
    "recllmsim_strategy_modal_share": lookup_metric(
        "mean over users of the share of the user's conversations carrying the user's most frequent final "
        f"{{scheme}} label of {{dimension}} (`recllmsim_strategy_consistency.mean_modal_share`), {_SIDE}",
        "recllmsim_strategy_consistency",
        _LABEL_KEYS,
        "mean_modal_share",
    ),
    "recllmsim_strategy_consistent_users": lookup_metric(
        "users whose most frequent final {scheme} label of {dimension} covers more than 80% of their "
        f"conversations (`recllmsim_strategy_consistency.n_users_modal_share_over_80pct`), {_SIDE}",
        "recllmsim_strategy_consistency",
        _LABEL_KEYS,
        "n_users_modal_share_over_80pct",
    ),
    "recllmsim_profile_label_count": lookup_metric(
        "conversations whose profile lists {attribute} label {label} "
        f"(`recllmsim_profile_labels.n_conversations`; 0 when none), {_SIDE}",
        "recllmsim_profile_labels",
        {**_SIDE_KEYS, "attribute": "attribute", "label": "label"},
        "n_conversations",
        default=0,
    ),
    "recllmsim_profile_labels_per_conversation": sql_metric(
        "mean number of {attribute} labels (list entries, 'Others' included) per conversation profile "
        f"(`recllmsim_profile_labels`: n_mentions summed / n_listing_conversations), {_SIDE}",
        """select sum(n_mentions) / max(n_listing_conversations) from recllmsim_profile_labels
            where user_side = $side and release = $release and attribute = $attribute""",
    ),
    "recllmsim_profile_label_vocabulary": sql_metric(
        "distinct {attribute} labels in the profiles of every release ('Others' included; "
        "`recllmsim_profile_labels`, release 'all' of both sides)",
        """select count(distinct label) from recllmsim_profile_labels
            where release = 'all' and attribute = $attribute""",
    ),
}


def _label_diversity(con, args: Args) -> float | None:
    counts = [
        n
        for label, label_en, n in con.execute(
            """select label, label_en, n_profiles from recllmsim_profile_labels
               where user_side = ? and release = ? and attribute = ? order by label""",
            [args.get("side"), args.get("release"), args.get("attribute")],
        ).fetchall()
        if label not in OTHERS and label_en not in OTHERS
    ]
    total = sum(counts)
    if not total:
        return None
    shares = [n / total for n in counts]
    if args.get("index") == "simpson":
        return 1 - sum(p * p for p in shares)
    return -sum(p * math.log(p) for p in shares if p > 0)


METRICS["recllmsim_profile_label_diversity"] = Metric(
    definition=(
        "{index} diversity of the {attribute} labels over the distinct profiles ('Others' left out): "
        "with p = a label's share of the profile-label pairs (`recllmsim_profile_labels.n_profiles`), "
        f"Simpson = 1 - sum p^2, Shannon = -sum p ln p; {_SIDE}"
    ),
    fn=_label_diversity,
)


# --------------------------------------------------------------------------- the report tables


ASPECTS = ("Detail Level", "Practical Usefulness", "Diversity")


def _q(R, con, sql: str, **params) -> pl.DataFrame:
    return R.query(con, sql, params)


def tables(R, con) -> dict[str, pl.DataFrame]:
    """Every table this section writes, always the same set with the same columns."""
    return {
        "recllmsim_task_statistics": _q(
            R, con, "select * from recllmsim_task_statistics order by user_side, release, scenario"
        ),
        "recllmsim_quality_by_chat_model": _q(
            R,
            con,
            "select * from recllmsim_quality_by_chat_model order by user_side, release, chat_model, aspect",
        ),
        "recllmsim_quality_by_turns": _q(
            R, con, "select * from recllmsim_quality_by_turns order by user_side, aspect, n_turns"
        ),
        "recllmsim_strategy_distribution": _q(
            R,
            con,
            """select * from recllmsim_strategy_distribution
               order by user_side, release, task, scheme, dimension, label_value""",
        ),
        "recllmsim_quality_by_strategy": _q(
            R,
            con,
            """select * from recllmsim_quality_by_strategy
               order by user_side, release, scheme, dimension, label_value, aspect""",
        ),
        "recllmsim_strategy_consistency": _q(
            R,
            con,
            "select * from recllmsim_strategy_consistency order by user_side, release, scheme, dimension",
        ),
        "recllmsim_profile_labels": _q(
            R,
            con,
            "select * from recllmsim_profile_labels order by user_side, release, attribute, label",
        ),
    }


# --------------------------------------------------------------------------- quality by length

#: a turn count with fewer conversations than this is pooled into the tail or not drawn
MIN_CONVERSATIONS = 20
QUALITY_BY_USER_TURNS_SQL = (
    "select * from quality_by_length where corpus = 'recllmsim' order by aspect, n_user_turns"
)
QUALITY_BY_USER_TURNS_BINNED_SQL = """with rated as (
           select r.rater_kind, r.aspect, r.conversation_id, c.n_user_turns, r.value_normalized
           from ratings r join conversations c using (conversation_id)
           where r.corpus = 'recllmsim' and r.turn_index is null and r.item_id is null
             and r.value_normalized is not null),
       per_count as (
           select rater_kind, n_user_turns, count(distinct conversation_id) as n from rated group by all),
       tail as (
           select rater_kind, max(n_user_turns) as tail_from from per_count where n >= $min group by rater_kind)
       select rated.rater_kind, aspect,
              cast(least(n_user_turns, coalesce(tail_from, n_user_turns)) as integer) as n_user_turns_bin,
              coalesce(n_user_turns >= tail_from, false) as is_tail,
              count(distinct conversation_id) as n_conversations, count(*) as n_ratings,
              avg(value_normalized) as mean_normalized, stddev_samp(value_normalized) as sd_normalized
       from rated left join tail using (rater_kind)
       group by all order by rated.rater_kind, aspect, n_user_turns_bin"""


def quality_by_user_turns_tables(R, con) -> dict:
    """The report's RecLLMSim quality by number of user turns: `quality_by_length` as it is, and
    per rater kind and aspect the normalised mean by user turns with Student's t 95% interval,
    the turn counts with fewer than :data:`MIN_CONVERSATIONS` conversations pooled from the
    largest count that has them (``is_tail``) and marked not plotted."""
    import polars as pl

    binned = R.with_mean_interval(
        R.query(con, QUALITY_BY_USER_TURNS_BINNED_SQL, {"min": MIN_CONVERSATIONS}),
        "mean_normalized",
        "sd_normalized",
        "n_ratings",
    ).with_columns((pl.col("n_conversations") >= MIN_CONVERSATIONS).alias("is_plotted"))
    return {
        "recllmsim_quality_by_user_turns": R.query(con, QUALITY_BY_USER_TURNS_SQL),
        "recllmsim_quality_by_user_turns_binned": binned,
    }
