{#-
    RecLLMSim ratings in the conformed contract: the LLM evaluator's seven conversation-level
    aspects (0..2, LLM-agent files) and the turn-level hallucination judgment of each
    assistant message (1/0; by an LLM in LLM-agent files, by the user in real-human files;
    a user's "cannot judge" gives no row).
-#}

with

ratings as (

    select * from {{ ref('stg_recllmsim__ratings') }}

),

hallucinations as (

    select * from {{ ref('int_recllmsim__hallucinations') }}

),

conversations_classified as (

    select * from {{ ref('int_recllmsim__conversations_classified') }}

),

conversation_ratings as (

    select
        conversation_id,
        cast(null as integer) as turn_index,
        'llm' as rater_kind,
        cast(null as varchar) as rater_id,
        aspect,
        rating_value as value
    from ratings

),

turn_hallucinations as (

    select
        hallucinations.conversation_id,
        hallucinations.message_index as turn_index,
        case
            when conversations_classified.subset = 'real_human_user' then 'user'
            else 'llm'
        end as rater_kind,
        case
            when conversations_classified.subset = 'real_human_user' then
                {{ global_id('recllmsim', 'conversations_classified.source_user_id') }}
        end as rater_id,
        'hallucination' as aspect,
        hallucinations.hallucination_value as value
    from hallucinations
    inner join conversations_classified
        on hallucinations.conversation_id = conversations_classified.conversation_id
    -- "无法判断" (the user could not judge) is no rating: the ratings mart wants a value
    where hallucinations.hallucination_value is not null

),

unioned as (

    select * from conversation_ratings
    union all
    select * from turn_hallucinations

),

final as (

    select
        cast({{ global_id('recllmsim', 'conversation_id') }} as varchar) as conversation_id,
        cast(turn_index as integer) as turn_index,
        cast(null as varchar) as item_id,
        cast(rater_kind as varchar) as rater_kind,
        cast(rater_id as varchar) as rater_id,
        cast(aspect as varchar) as aspect,
        cast(value as double) as value
    from unioned

)

select * from final
