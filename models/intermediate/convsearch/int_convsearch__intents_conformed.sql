-- Every assessor label of every turn: user intents on user turns, agent actions on agent
-- turns, primary and (when given) secondary.

with

labels as (

    select * from {{ ref('stg_convsearch__turn_labels') }}

),

turns as (

    select * from {{ ref('int_convsearch__turns_indexed') }}

),

conformed as (

    select
        cast(turns.conversation_id as string) as conversation_id,
        cast(turns.turn_index as integer) as turn_index,
        cast('assessor_' || labels.assessor_index as string) as annotator,
        cast(
            case labels.label_kind
                when 'intent' then 'convsearch_user_intent'
                when 'action' then 'convsearch_agent_action'
            end as string
        ) as label_scheme,
        cast(labels.raw_label as string) as raw_label,
        cast(labels.is_primary as boolean) as is_primary,
        cast(null as string) as standalone_query,
        cast(null as string) as intent_id,
        cast('human' as string) as source
    from labels
    inner join turns
        on labels.dialog_id = turns.dialog_id
        and labels.turn_id = turns.turn_id

)

select * from conformed
