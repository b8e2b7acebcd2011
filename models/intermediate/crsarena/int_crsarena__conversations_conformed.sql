with

dialogues as (

    select * from {{ ref('stg_crsarena__dialogues') }}

),

conformed as (

    select
        cast('crsarena:' || dialogue_id as string) as conversation_id,
        cast('crsarena' as string) as corpus,
        cast(environment as string) as subset,
        cast(dialogue_id as string) as source_conversation_id,
        cast('movies' as string) as domain_or_task,
        cast('en' as string) as language,
        cast('crsarena:' || user_id as string) as user_id,
        cast(agent_id as string) as system_id,
        cast(null as timestamp) as started_at,
        cast(null as timestamp) as ended_at,
        cast(sentiment as string) as user_sentiment,
        cast(
            case sentiment
                when 'satisfied' then 1
                when 'frustrated' then 0
            end as double
        ) as user_satisfaction,
        cast(null as string) as task_description,
        cast(null as string) as task_type,
        cast(null as string) as profile,
        cast(source_path as string) as source_path,
        -- position in the dialogue file: the order the dataset's Elo and Distinct-2 use
        cast(record_index as bigint) as source_record_index,
        cast(null as string) as source_attributes
    from dialogues

)

select * from conformed
