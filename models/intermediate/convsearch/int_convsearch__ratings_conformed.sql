-- All ConvSearch ratings (0..4), aspects named as in the rating_scales seed:
-- dialogue level (*_user by the user, *_agent by the agent), turn level
-- (satisfaction-turn / understand-turn: the user on agent turns; clarity-turn /
-- difficulty-turn: the agent on user turns) and helpfulness-pagelog (the agent on each
-- landing page it read, attached to the turn the query was issued for).

with

dialogs as (

    select * from {{ ref('stg_convsearch__dialogs') }}

),

turns as (

    select * from {{ ref('int_convsearch__turns_indexed') }}

),

queries as (

    select * from {{ ref('stg_convsearch__search_queries') }}

),

landing_pagelogs as (

    select * from {{ ref('stg_convsearch__landing_pagelogs') }}

),

dialog_rating_columns as (

    select
        dialog_id,
        user_id,
        agent_id,
        satisfaction_user,
        applicability_user,
        effort_user,
        preference_user,
        understand_agent,
        satisfaction_agent,
        difficulty_agent
    from dialogs

),

dialog_ratings as (

    {{ unpivot_columns('dialog_rating_columns', [
        'satisfaction_user', 'applicability_user', 'effort_user', 'preference_user',
        'understand_agent', 'satisfaction_agent', 'difficulty_agent',
    ], 'aspect', 'value') }}

),

turn_rating_columns as (

    select
        conversation_id,
        dialog_id,
        turn_index,
        satisfaction_turn,
        understand_turn,
        clarity_turn,
        difficulty_turn
    from turns

),

turn_ratings as (

    {{ unpivot_columns('turn_rating_columns', [
        'satisfaction_turn', 'understand_turn', 'clarity_turn', 'difficulty_turn',
    ], 'aspect', 'value') }}

),

dialog_level as (

    select
        'convsearch:' || dialog_id as conversation_id,
        cast(null as integer) as turn_index,
        cast(null as string) as item_id,
        case when aspect like '%_user' then 'user' else 'agent' end as rater_kind,
        case
            when aspect like '%_user' then 'convsearch:' || user_id
            else 'agent:' || agent_id
        end as rater_id,
        aspect,
        value
    from dialog_ratings

),

turn_level as (

    select
        turn_ratings.conversation_id,
        turn_ratings.turn_index,
        cast(null as string) as item_id,
        case
            when turn_ratings.aspect in ('satisfaction_turn', 'understand_turn') then 'user'
            else 'agent'
        end as rater_kind,
        case
            when turn_ratings.aspect in ('satisfaction_turn', 'understand_turn')
                then 'convsearch:' || dialogs.user_id
            else 'agent:' || dialogs.agent_id
        end as rater_id,
        replace(turn_ratings.aspect, '_', '-') as aspect,
        turn_ratings.value
    from turn_ratings
    inner join dialogs
        on turn_ratings.dialog_id = dialogs.dialog_id

),

page_level as (

    select
        'convsearch:' || queries.dialog_id as conversation_id,
        turns.turn_index,
        cast(null as string) as item_id,
        'agent' as rater_kind,
        'agent:' || dialogs.agent_id as rater_id,
        'helpfulness-pagelog' as aspect,
        landing_pagelogs.helpfulness as value
    from landing_pagelogs
    inner join queries
        on landing_pagelogs.query_id = queries.query_id
    inner join dialogs
        on queries.dialog_id = dialogs.dialog_id
    left join turns
        on queries.dialog_id = turns.dialog_id
        and queries.turn_id = turns.turn_id
    where landing_pagelogs.helpfulness is not null

),

unioned as (

    select * from dialog_level
    union all
    select * from turn_level
    union all
    select * from page_level

),

conformed as (

    select
        cast(conversation_id as string) as conversation_id,
        cast(turn_index as integer) as turn_index,
        cast(item_id as string) as item_id,
        cast(rater_kind as string) as rater_kind,
        cast(rater_id as string) as rater_id,
        cast(aspect as string) as aspect,
        cast(value as double) as value,
        cast(null as string) as raw_value,
        cast(null as string) as comment
    from unioned

)

select * from conformed
