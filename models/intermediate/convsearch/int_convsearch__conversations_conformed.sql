with

dialogs as (

    select * from {{ ref('stg_convsearch__dialogs') }}

),

conformed as (

    select
        cast('convsearch:' || dialog_id as varchar) as conversation_id,
        cast('convsearch' as varchar) as corpus,
        cast('main' as varchar) as subset,
        cast(dialog_id as varchar) as source_conversation_id,
        cast(topic_user as varchar) as domain_or_task,
        cast('zh' as varchar) as language,
        cast('convsearch:' || user_id as varchar) as user_id,
        cast('agent:' || agent_id as varchar) as system_id,
        cast(started_at as timestamp) as started_at,
        cast(ended_at as timestamp) as ended_at,
        cast(null as varchar) as user_sentiment,
        cast(satisfaction_user / 4 as double) as user_satisfaction,
        -- the user's own description of the information need
        cast(intent_user as varchar) as task_description,
        cast(null as varchar) as task_type,
        cast(null as varchar) as profile,
        cast(source_path as varchar) as source_path,
        cast(record_index as bigint) as source_record_index,
        cast(null as varchar) as source_attributes
    from dialogs

)

select * from conformed
