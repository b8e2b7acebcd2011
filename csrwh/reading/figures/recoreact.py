"""RecoReact: the dataset card's counts, and the report's ratings and selections by round."""

from __future__ import annotations

from csrwh.reading.figures._metric import sql_metric

METRICS = {
    "recoreact_users": sql_metric(
        "distinct `conversations.user_id` (corpus recoreact)",
        "select count(distinct user_id) from conversations where corpus = 'recoreact'",
    ),
    # a RecoReact turn's source id is '<impression id>:<text field>'
    "recoreact_impressions": sql_metric(
        "distinct (conversation, impression id) over RecoReact `turns` (source turn id `<impression>:<field>`)",
        """select count(distinct conversation_id || '|' || split_part(source_turn_id, ':', 1))
            from turns where corpus = 'recoreact'""",
    ),
    "items": sql_metric(
        "`items` rows (corpus {corpus}, kind {kind})",
        "select count(*) from items where corpus = $corpus and item_kind = $kind",
    ),
}


# the round of a rating is the position of its impression among the user's impressions (turns
# are in round order); selections come from `item_interactions`
ROUNDS_SQL = """with turn_rounds as (
           select conversation_id, turn_index,
                  dense_rank() over (partition by conversation_id order by impression_first_turn) as round
           from (select conversation_id, turn_index,
                        min(turn_index) over (partition by conversation_id, split_part(source_turn_id, ':', 1)) as impression_first_turn
                 from turns where corpus = 'recoreact')),
       impressions as (
           select c.subset as domain, r.round, count(distinct r.conversation_id) as n_impressions
           from turn_rounds r join conversations c using (conversation_id) group by all),
       rated as (
           select c.subset as domain, tr.round,
                  avg(value) filter (where aspect = 'rating1') as mean_rating1,
                  avg(value) filter (where aspect = 'rating2') as mean_rating2,
                  avg(value) filter (where aspect = 'rating3') as mean_rating3,
                  avg(value) filter (where aspect = 'rating_summary') as mean_rating_summary,
                  stddev_samp(value) filter (where aspect = 'rating1') as sd_rating1,
                  count(value) filter (where aspect = 'rating1') as n_rating1,
                  stddev_samp(value) filter (where aspect = 'rating3') as sd_rating3,
                  count(value) filter (where aspect = 'rating3') as n_rating3
           from ratings x join turn_rounds tr using (conversation_id, turn_index)
           join conversations c using (conversation_id)
           where x.corpus = 'recoreact' group by all),
       selected as (
           select domain, round, count(*) as n_selected_items from item_interactions group by all),
       per_impression as (
           select c.subset as domain, k.round, coalesce(s.n, 0) as n_selected
           from (select distinct conversation_id, round from turn_rounds) k
           join conversations c using (conversation_id)
           left join (select conversation_id, round, count(*) as n from item_interactions group by all) s
               using (conversation_id, round)),
       selected_spread as (
           select domain, round, stddev_samp(n_selected) as sd_selected from per_impression group by all)
       select i.domain, i.round, i.n_impressions, r.mean_rating1, r.mean_rating2, r.mean_rating3,
              r.mean_rating_summary, coalesce(s.n_selected_items, 0) as n_selected_items,
              coalesce(s.n_selected_items, 0) / i.n_impressions as mean_selected_per_impression,
              r.sd_rating1, r.n_rating1, r.sd_rating3, r.n_rating3, d.sd_selected
       from impressions i left join rated r using (domain, round) left join selected s using (domain, round)
       left join selected_spread d using (domain, round)
       order by domain, round"""


def rounds_table(R, con):
    """Per domain and round (1-3): impressions, mean slate ratings (first, second, last slate,
    summary; 1-9), selected items and selections per impression, each mean with Student's t
    95% interval (impressions are the units)."""
    rounds = R.query(con, ROUNDS_SQL)
    rounds = R.with_mean_interval(
        rounds, "mean_rating1", "sd_rating1", "n_rating1", prefix="rating1_ci95"
    )
    rounds = R.with_mean_interval(
        rounds, "mean_rating3", "sd_rating3", "n_rating3", prefix="rating3_ci95"
    )
    rounds = R.with_mean_interval(
        rounds,
        "mean_selected_per_impression",
        "sd_selected",
        "n_impressions",
        prefix="selected_ci95",
    )
    return rounds.drop("sd_rating1", "n_rating1", "sd_rating3", "n_rating3", "sd_selected")
