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
        ) as user_satisfaction,
        cast(null as varchar) as task_description,
        cast(null as varchar) as task_type,
        cast(null as varchar) as profile,
        cast(source_path as varchar) as source_path,
        -- position in the dialogue file: the order the dataset's Elo and Distinct-2 use
        cast(record_index as bigint) as source_record_index,
        cast(null as varchar) as source_attributes
    from dialogues

)

select * from conformed
