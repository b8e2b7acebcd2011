{#- Custom conversations in the conformed contract (docs/ARCHITECTURE.md). -#}

with

conversations as (

    select * from {{ ref('int_custom__conversations') }}

),

conformed as (

    select
        cast(conversation_id as string) as conversation_id,
        cast('custom' as string) as corpus,
        cast(subset as string) as subset,
        cast(source_conversation_id as string) as source_conversation_id,
        cast(domain_or_task as string) as domain_or_task,
        cast(language as string) as language,
        cast({{ global_id('custom', 'source_user_id') }} as string) as user_id,
        cast(system_id as string) as system_id,
        cast(null as timestamp) as started_at,
        cast(null as timestamp) as ended_at,
        cast(user_sentiment as string) as user_sentiment,
        cast(user_satisfaction as double) as user_satisfaction,
        cast(null as string) as task_description,
        cast(task_type as string) as task_type,
        cast(null as string) as profile,
        cast(source_path as string) as source_path,
        cast(record_index as bigint) as source_record_index,
        -- metadata, language, unknown keys and the unmodelled message parts, as JSON text
        cast(source_attributes as string) as source_attributes
    from conversations

)

select * from conformed
