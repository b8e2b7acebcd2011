-- RecoReact ratings, all given by the user (rater_kind 'user'):
-- - per round (one impression): rating1..3 rate the slate shown after the request, update1
--   and update2, so they are attached to that turn; rating_summary to the summary turn; the
--   round's questionnaire items good_* to the round's request turn. When the anchor turn has
--   no text (no turn), the round's first turn is used.
-- - survey answers from the users file (personalized, explore, task_clear, task_difficult,
--   dialogue_helpful, recs_satisfied, demand): conversation level, turn_index NULL.
-- NULL ratings are skipped.

with

impressions as (

    select * from {{ ref('stg_recoreact__impressions') }}

),

users as (

    select * from {{ ref('stg_recoreact__users') }}

),

turns as (

    select * from {{ ref('int_recoreact__turns') }}

),

conversations as (

    select * from {{ ref('int_recoreact__conversations_conformed') }}

),

impression_ratings as (

    select
        domain,
        user_id,
        impression_id,
        round,
        rating1,
        rating2,
        rating3,
        rating_summary,
        good_suggestions,
        good_selections,
        good_request_match,
        good_summary_match
    from impressions

),

round_ratings as (

    {{ unpivot_columns('impression_ratings', [
        'rating1', 'rating2', 'rating3', 'rating_summary',
        'good_suggestions', 'good_selections', 'good_request_match', 'good_summary_match',
    ], 'aspect', 'value') }}

),

anchored_round_ratings as (

    select
        *,
        case aspect
            when 'rating2' then 1
            when 'rating3' then 2
            when 'rating_summary' then 3
            else 0
        end as anchor_round_step
    from round_ratings

),

round_first_turns as (

    select
        impression_id,
        conversation_id,
        min(turn_index) as turn_index
    from turns
    group by impression_id, conversation_id

),

round_level as (

    select
        'recoreact:' || ratings.domain || ':' || ratings.user_id as conversation_id,
        coalesce(anchor_turns.turn_index, round_first_turns.turn_index) as turn_index,
        ratings.aspect,
        ratings.value,
        ratings.domain,
        ratings.user_id
    from anchored_round_ratings as ratings
    left join turns as anchor_turns
        on ratings.domain = anchor_turns.domain
        and ratings.impression_id = anchor_turns.impression_id
        and ratings.anchor_round_step = anchor_turns.round_step
    left join round_first_turns
        on 'recoreact:' || ratings.domain || ':' || ratings.user_id = round_first_turns.conversation_id
        and ratings.impression_id = round_first_turns.impression_id

),

user_survey as (

    select
        domain,
        user_id,
        personalized,
        explore,
        task_clear,
        task_difficult,
        dialogue_helpful,
        recs_satisfied,
        demand
    from users

),

survey_ratings as (

    {{ unpivot_columns('user_survey', [
        'personalized', 'explore', 'task_clear', 'task_difficult', 'dialogue_helpful',
        'recs_satisfied', 'demand',
    ], 'aspect', 'value') }}

),

conversation_level as (

    select
        conversations.conversation_id,
        cast(null as integer) as turn_index,
        survey_ratings.aspect,
        survey_ratings.value,
        survey_ratings.domain,
        survey_ratings.user_id
    from survey_ratings
    -- only users who have a session get conversation-level ratings
    inner join conversations
        on 'recoreact:' || survey_ratings.domain || ':' || survey_ratings.user_id = conversations.conversation_id

),

unioned as (

    select * from round_level
    union all
    select * from conversation_level

),

conformed as (

    select
        cast(conversation_id as string) as conversation_id,
        cast(turn_index as integer) as turn_index,
        cast(null as string) as item_id,
        cast('user' as string) as rater_kind,
        cast('recoreact:' || domain || ':' || user_id as string) as rater_id,
        cast(aspect as string) as aspect,
        cast(value as double) as value,
        cast(null as string) as raw_value,
        cast(null as string) as comment
    from unioned

)

select * from conformed
