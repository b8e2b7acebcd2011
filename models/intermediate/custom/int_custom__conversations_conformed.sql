{#- Custom conversations in the conformed contract (docs/ARCHITECTURE.md). -#}

with

conversations as (

    select * from {{ ref('int_custom__conversations') }}

),

conformed as (

    select
        cast(conversation_id as varchar) as conversation_id,
        cast('custom' as varchar) as corpus,
        cast(subset as varchar) as subset,
        cast(source_conversation_id as varchar) as source_conversation_id,
        cast(domain_or_task as varchar) as domain_or_task,
        cast(language as varchar) as language,
        cast({{ global_id('custom', 'source_user_id') }} as varchar) as user_id,
        cast(system_id as varchar) as system_id,
        cast(null as timestamp) as started_at,
        cast(null as timestamp) as ended_at,
        cast(user_sentiment as varchar) as user_sentiment,
        cast(user_satisfaction as double) as user_satisfaction,
        cast(null as varchar) as task_description,
        cast(task_type as varchar) as task_type,
        cast(null as varchar) as profile,
        cast(source_path as varchar) as source_path,
        cast(record_index as bigint) as source_record_index,
        -- metadata, language, unknown keys and the unmodelled message parts, as JSON text
        cast(source_attributes as varchar) as source_attributes
    from conversations

)

select * from conformed
