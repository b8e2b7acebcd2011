{#- CoSRec conversations in the conformed contract (docs/ARCHITECTURE.md). -#}

with

conversations as (

    select * from {{ ref('stg_cosrec__conversations') }}

),

final as (

    select
        cast({{ global_id('cosrec', 'conversation_id') }} as string) as conversation_id,
        cast('cosrec' as string) as corpus,
        cast(partition_name as string) as subset,
        cast(conversation_id as string) as source_conversation_id,
        cast('product search and recommendation' as string) as domain_or_task,
        cast('en' as string) as language,
        -- LLM-generated: no single user (profiles.jsonl lists several users per
        -- conversation, used for personalised judgments) and no named system
        cast(null as string) as user_id,
        cast(null as string) as system_id,
        cast(null as timestamp) as started_at,
        cast(null as timestamp) as ended_at,
        cast(null as string) as user_sentiment,
        cast(null as double) as user_satisfaction,
        cast(null as string) as task_description,
        cast(null as string) as task_type,
        cast(null as string) as profile,
        cast(source_path as string) as source_path,
        cast(record_index as bigint) as source_record_index,
        cast(null as string) as source_attributes
    from conversations

)

select * from final
