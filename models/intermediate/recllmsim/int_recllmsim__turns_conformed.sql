{#-
    RecLLMSim messages in the conformed contract: `text` is `content` (English in LLM-agent
    files, Chinese in real-human files), `text_translation` the Chinese `content_zh` where
    the file has one.
-#}

with

messages as (

    select * from {{ ref('stg_recllmsim__messages') }}

),

final as (

    select
        cast({{ global_id('recllmsim', 'conversation_id') }} as string) as conversation_id,
        cast(message_index as integer) as turn_index,
        cast(
            case role
                when 'assistant' then 'system'
                else role
            end as string
        ) as role,
        cast(content as string) as text,
        cast(content_zh as string) as text_translation,
        cast(null as timestamp) as created_at,
        cast(false as boolean) as is_image,
        cast(null as string) as source_turn_id
    from messages

)

select * from final
