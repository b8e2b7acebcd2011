with

dialogs as (

    select * from {{ ref('stg_convsearch__dialogs') }}

),

conformed as (

    select
        cast('convsearch:' || dialog_id as string) as conversation_id,
        cast('convsearch' as string) as corpus,
        cast('main' as string) as subset,
        cast(dialog_id as string) as source_conversation_id,
        cast(topic_user as string) as domain_or_task,
        cast('zh' as string) as language,
        cast('convsearch:' || user_id as string) as user_id,
        cast('agent:' || agent_id as string) as system_id,
        cast(started_at as timestamp) as started_at,
        cast(ended_at as timestamp) as ended_at,
        cast(null as string) as user_sentiment,
        cast(satisfaction_user / 4 as double) as user_satisfaction,
        -- the user's own description of the information need
        cast(intent_user as string) as task_description,
        cast(null as string) as task_type,
        cast(null as string) as profile,
        cast(source_path as string) as source_path,
        cast(record_index as bigint) as source_record_index,
        cast(null as string) as source_attributes
    from dialogs

)

select * from conformed
