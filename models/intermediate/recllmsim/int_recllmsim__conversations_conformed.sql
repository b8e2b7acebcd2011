{#- RecLLMSim conversations (one per file) in the conformed contract (docs/ARCHITECTURE.md). -#}

with

conversations_classified as (

    select * from {{ ref('int_recllmsim__conversations_classified') }}

),

conversations as (

    select * from {{ ref('stg_recllmsim__conversations') }}

),

profiles_parsed as (

    select * from {{ ref('int_recllmsim__profiles_parsed') }}

),

final as (

    select
        cast({{ global_id('recllmsim', 'conversations_classified.conversation_id') }} as string)
            as conversation_id,
        cast('recllmsim' as string) as corpus,
        cast(conversations_classified.subset as string) as subset,
        cast(conversations_classified.conversation_id as string) as source_conversation_id,
        cast(conversations_classified.task as string) as domain_or_task,
        -- no declared language: the conversations mart detects it from the text
        cast(null as string) as language,
        cast({{ global_id('recllmsim', 'conversations_classified.source_user_id') }} as string)
            as user_id,
        cast(conversations_classified.system_id as string) as system_id,
        cast(null as timestamp) as started_at,
        cast(null as timestamp) as ended_at,
        cast(null as string) as user_sentiment,
        cast(null as double) as user_satisfaction,
        cast(conversations.task_context as string) as task_description,
        cast(conversations_classified.task_name as string) as task_type,
        -- the profile the user had in this conversation: the human's profile object, or the
        -- simulated user's structured profile_mapped
        cast(
            coalesce(profiles_parsed.profile_json, cast(conversations.profile_mapped as string))
            as string
        ) as profile,
        cast(conversations.source_path as string) as source_path,
        cast(conversations.record_index as bigint) as source_record_index,
        -- the file's other conversation-level fields, as JSON text
        {{ json_object_text([
            'preference_id', 'conversations.preference_id',
            'preference', 'conversations.preference',
            'preference_zh', 'conversations.preference_zh',
            'preference_summary', {'json': 'conversations.preference_summary'},
            'task_context_id', 'conversations.task_context_id',
            'task_context_zh', 'conversations.task_context_zh',
            'conflict', 'conversations.is_conflict',
        ]) }} as source_attributes
    from conversations_classified
    inner join conversations
        on conversations_classified.conversation_id = conversations.conversation_id
    left join profiles_parsed
        on conversations_classified.conversation_id = profiles_parsed.conversation_id

)

select * from final
