"""CoSRec: the figures its README states, and the analyses it shows as figures.

The README's three histograms (images/quality_assessment_avg_results.png,
images/quality_assessment_features_results.png, images/relevant_per_intent_distribution.png)
print no numbers; their bars were read off the images (see the explanation of each row in
``notebooks/published_figures/cosrec.csv``). The warehouse side comes from the marts
``cosrec_quality_average_histogram``, ``cosrec_quality_aspect_histogram`` and
``cosrec_judgments_per_intent_histogram`` (built on ``conversation_quality`` and
``relevance_judgments``), whose yml states the bins and the rounding.
"""

from __future__ import annotations

from csrwh.reading.figures._metric import fn_metric, rows, sql_metric

# the README figure's legend order, also the order its script evidently summed the aspect means in
README_ASPECTS = ("fluency", "informativeness", "logicality", "coherence")
GRADE_LABELS = {0: "not relevant", 1: "partially relevant", 2: "highly relevant"}

METRICS = {
    "judged_conversations": sql_metric(
        "distinct `relevance_judgments.conversation_id`",
        "select count(distinct conversation_id) from relevance_judgments where corpus = 'cosrec'",
    ),
    "relevance_judgments": sql_metric(
        "count of CoSRec's `relevance_judgments` rows",
        "select count(*) from relevance_judgments where corpus = 'cosrec'",
    ),
    "cosrec_average_quality_bin": sql_metric(
        "CoSRec conversations rated in quality.jsonl (crowd + curated) whose average quality -- the "
        "mean over the four aspects of each aspect's mean over the annotators (`conversation_quality` "
        "row 'overall', exact to 10 decimals) -- lies in [{lower}, {upper}) "
        "(`cosrec_quality_average_histogram`). Edge rule: an average exactly on an edge counts in the "
        "upper bin (4.0 in [4.0, 4.5)); the last bin [4.5, 5.0] includes 5.0 (numpy.histogram's rule)",
        """select coalesce(sum(n_conversations), 0) from cosrec_quality_average_histogram
            where bin_lower = cast($lower as double)""",
    ),
    "cosrec_aspect_rating_bin": sql_metric(
        "CoSRec conversations rated in quality.jsonl whose mean {aspect} rating over their annotators, "
        "rounded to a whole point half to even (Python round: 4.5 -> 4, 3.5 -> 4), is {rating} "
        "(`cosrec_quality_aspect_histogram`)",
        """select coalesce(sum(n_conversations), 0) from cosrec_quality_aspect_histogram
            where aspect = $aspect and rating = cast($rating as integer)""",
    ),
    "cosrec_judgments_per_intent_bin": sql_metric(
        "curated intents judged in qrels.qrels (distinct `relevance_judgments.intent_id`, an intent's "
        "personalised topics '<intent>#k' pooled) with n judgments of grade {grade} where "
        "{lower} <= n < {upper}; an intent without such judgments has n = 0; a count on an edge "
        "goes to the upper bin (`cosrec_judgments_per_intent_histogram`)",
        """select coalesce(sum(n_intents), 0) from cosrec_judgments_per_intent_histogram
            where grade = cast($grade as integer) and bin_lower = cast($lower as integer)""",
    ),
}


def float_order_averages(con) -> list[float]:
    """Each rated conversation's average quality computed as the README figure's script
    evidently did: the aspect means (mean over annotators, binary floating point) summed in
    the order fluency, informativeness, logicality, coherence, divided by 4 -- no
    correction of the rounding noise (4.0 can come out as 3.9999999999999996)."""
    by_conversation: dict[str, dict[str, list[float]]] = {}
    for conversation_id, aspect, value in rows(
        con,
        """select conversation_id, aspect, value from ratings
           where corpus = 'cosrec' and turn_index is null and item_id is null and value is not null
           order by conversation_id, aspect, rater_id""",
    ):
        by_conversation.setdefault(conversation_id, {}).setdefault(aspect, []).append(value)
    out = []
    for aspects in by_conversation.values():
        if not all(a in aspects for a in README_ASPECTS):
            continue
        total = 0.0
        for aspect in README_ASPECTS:
            values = aspects[aspect]
            total += sum(values) / len(values)
        out.append(total / len(README_ASPECTS))
    return out


@fn_metric(
    "conversations in [{lower}, {upper}) when each average is computed in binary floating point as "
    "(fluency + informativeness + logicality + coherence aspect means) / 4 in that order, without "
    "correcting the rounding noise, and binned as numpy.histogram does"
)
def _average_quality_bin_float_order(con, args) -> float | None:
    lower, upper = float(args["lower"]), float(args["upper"])
    last = upper >= 5.0
    values = float_order_averages(con)
    return float(sum(1 for v in values if lower <= v < upper or (last and v == upper)))


METRICS["cosrec_average_quality_bin_float_order"] = _average_quality_bin_float_order


# --------------------------------------------------------------------------- the report tables

AVERAGE_SQL = """select bin_lower, bin_upper, n_conversations, share
                 from cosrec_quality_average_histogram order by bin_lower"""
ASPECT_SQL = """select aspect, rating, n_conversations, share
                from cosrec_quality_aspect_histogram order by aspect, rating"""
JUDGMENTS_SQL = """select grade, grade_label, bin_lower, bin_upper, n_intents
                   from cosrec_judgments_per_intent_histogram order by grade, bin_lower"""
# mean over conversations of their per-aspect (and overall) mean, per subset and in all;
# 95% interval: mean +- 1.96 * sd / sqrt(n) (normal approximation), NULL below 2 conversations
BY_ASPECT_SQL = """
    with q as (
        select subset, aspect, mean_value from conversation_quality
        where corpus = 'cosrec' and rater_kind = 'crowd' and mean_value is not null
        union all
        select 'all', aspect, mean_value from conversation_quality
        where corpus = 'cosrec' and rater_kind = 'crowd' and mean_value is not null
    )
    select subset, aspect, count(*) as n_conversations, avg(mean_value) as mean,
           stddev_samp(mean_value) as sd
    from q group by subset, aspect order by subset, aspect"""


# --------------------------------------------------------------------------- relevance judgments

RELEVANCE_GRADES_SQL = """select judgment_kind, grade, count(*) as n_judgments,
              count(*) / sum(count(*)) over (partition by judgment_kind) as share
       from relevance_judgments where corpus = 'cosrec'
       group by judgment_kind, grade order by judgment_kind, grade"""
JUDGED_PER_TOPIC_SQL = """with t as (select judgment_kind, topic_id, count(*) as n_judged,
                         count(*) filter (where grade >= 1) as n_relevant
                  from relevance_judgments where corpus = 'cosrec'
                  group by judgment_kind, topic_id)
       select judgment_kind, count(*) as n_topics, sum(n_judged) as n_judgments,
              min(n_judged) as min_judged, median(n_judged) as median_judged, avg(n_judged) as mean_judged,
              max(n_judged) as max_judged, avg(n_relevant) as mean_relevant,
              count(*) filter (where n_relevant = 0) as topics_without_relevant
       from t group by judgment_kind order by judgment_kind"""


def judgment_tables(R, con) -> dict:
    """The report's CoSRec relevance-judgment tables: judgments per grade and judgment kind
    (share within the kind), and judged items per topic (n, min, median, mean, max, mean
    relevant, topics without a relevant item)."""
    return {
        "cosrec_relevance_grades": R.query(con, RELEVANCE_GRADES_SQL),
        "cosrec_judged_items_per_topic": R.query(con, JUDGED_PER_TOPIC_SQL),
    }
