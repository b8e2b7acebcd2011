{#- RecLLMSim conversations (one per file) in the conformed contract (docs/ARCHITECTURE.md). -#}

with

conversations_classified as (

    select * from {{ ref('int_recllmsim__conversations_classified') }}

),

final as (

    select
        cast({{ global_id('recllmsim', 'conversation_id') }} as varchar) as conversation_id,
        cast('recllmsim' as varchar) as corpus,
        cast(subset as varchar) as subset,
        cast(conversation_id as varchar) as source_conversation_id,
        cast(task as varchar) as domain_or_task,
        cast(language as varchar) as language,
        cast({{ global_id('recllmsim', 'source_user_id') }} as varchar) as user_id,
        cast('llm_assistant' as varchar) as system_id,
        cast(null as timestamp) as started_at,
        cast(null as timestamp) as ended_at,
        cast(null as varchar) as user_sentiment,
        cast(null as double) as user_satisfaction
    from conversations_classified

)

select * from final
