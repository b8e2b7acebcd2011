with

dialogues as (

    select * from {{ ref('stg_crsarena__dialogues') }}

),

conformed as (

    select
        cast('crsarena:' || dialogue_id as varchar) as conversation_id,
        cast('crsarena' as varchar) as corpus,
        cast(environment as varchar) as subset,
        cast(dialogue_id as varchar) as source_conversation_id,
        cast('movies' as varchar) as domain_or_task,
        cast('en' as varchar) as language,
        cast('crsarena:' || user_id as varchar) as user_id,
        cast(agent_id as varchar) as system_id,
        cast(null as timestamp) as started_at,
        cast(null as timestamp) as ended_at,
        cast(sentiment as varchar) as user_sentiment,
        cast(
            case sentiment
                when 'satisfied' then 1
                when 'frustrated' then 0
            end as double
        ) as user_satisfaction
    from dialogues

)

select * from conformed
